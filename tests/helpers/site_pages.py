"""The built site and a browser page that blocks other hosts, shared by the site tests."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
# QUEUETUNE_SITE points the tests at another build (e.g. jupyter-book build --path-output DIR).
SITE = Path(os.environ.get("QUEUETUNE_SITE", ROOT / "_build" / "html"))
SCREENSHOTS = SITE.parent / "screenshots"
# Flags that keep Chromium from reaching for Google's hosts in the background.
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def site_pages() -> list[Path]:
    """Every HTML page of the built book (theme snippets under _static are not pages)."""
    if not (SITE / "index.html").is_file():
        raise RuntimeError(f"{SITE} holds no built book: run `make book` first")
    skip = {"_static", "_sources", "_images"}
    return sorted(p for p in SITE.rglob("*.html") if not skip & set(p.relative_to(SITE).parts))


CHART_TIMEOUT_MS = 20_000
# Console messages that are known, harmless, and not ours to fix (none: the theme-mode error of
# pydata-sphinx-theme is fixed by html_context.default_mode in _config.yml).
CONSOLE_ALLOW: list[re.Pattern[str]] = []


@dataclass
class Visit:
    outside: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    # Every request the page let through (to its own host), once finished.
    requests: list = field(default_factory=list)


def _local(url: str, origin: str) -> bool:
    scheme = urlsplit(url).scheme
    return url.startswith(origin) or scheme in ("data", "blob", "about")


def served(rel: str, how: str, site_url: str) -> tuple[str, str]:
    """The URL of the page ``rel`` of the site and the origin it may load from, served over
    ``"http"`` (the test server on 127.0.0.1) or opened from ``"file"`` (a copy on a USB stick).
    """
    if how == "http":
        return f"{site_url}/{rel}", site_url
    return (SITE / rel).as_uri(), "file://"


def open_page(browser, url: str, origin: str, width: int = 1280, height: int = 900,
              touch: bool = False, dark: bool = False):
    """A new page, ``width`` by ``height`` pixels, that aborts and records every request not to
    ``origin``; ``touch`` makes it a phone's (touch events, no mouse hover), ``dark`` asks
    for the theme's dark mode."""
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch,
                                  is_mobile=touch, color_scheme="dark" if dark else "light")
    if dark:
        context.add_init_script("localStorage.setItem('theme', 'dark')")
    page = context.new_page()
    visit = Visit()

    def route(r):
        if _local(r.request.url, origin):
            r.continue_()
        else:
            visit.outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: m.type == "error" and visit.console_errors.append(m.text))
    page.on("pageerror", lambda e: visit.console_errors.append(f"uncaught: {e}"))
    page.on("requestfinished", lambda r: visit.requests.append(r))
    return context, page, visit


def wait_for_charts(page) -> int:
    charts = page.locator("div[id^='altair-viz-']")
    count = charts.count()
    for i in range(count):
        charts.nth(i).locator("svg.marks, canvas.marks").first.wait_for(
            state="attached", timeout=CHART_TIMEOUT_MS)
    return count


def wait_for_math(page) -> int:
    """The number of formulas on the page, once each is drawn: a MathML ``<math>`` element
    (written at build time) that takes room on the page unless it sits in a folded part."""
    count = page.locator(".math").count()
    if count:
        page.wait_for_function(
            "() => [...document.querySelectorAll('.math')].every(e => {"
            "  const m = e.querySelector('math'); if (!m) return false;"
            "  if (!m.checkVisibility()) return true;"
            "  const box = m.getBoundingClientRect(); return box.width > 0 && box.height > 0; })",
            timeout=CHART_TIMEOUT_MS,
        )
    return count


def unexpected(errors: list[str]) -> list[str]:
    return [e for e in errors if not any(p.search(e) for p in CONSOLE_ALLOW)]


