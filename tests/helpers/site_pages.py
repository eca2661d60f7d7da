"""The built site and a browser page that blocks other hosts, shared by the site tests."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
# QUEUETUNE_SITE points the tests at another build (e.g. jupyter-book build --path-output DIR).
SITE = Path(os.environ.get("QUEUETUNE_SITE", ROOT / "_build" / "html"))
SCREENSHOTS = SITE.parent / "screenshots"
# What each page transfers, by part (tests/site/test_weight.py), one row a page.
PAGE_WEIGHTS = SITE.parent / "page_weights.csv"
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




# One visit per page and screen, shared by the tests that only observe the page -------------
#
# Loading a chapter (tens of Vega charts) is most of what the site tests cost. The tests that
# look at a page without touching it (test_browser's render, test_weight, test_narrow,
# test_openings) read the record of one visit: a fresh context (nothing cached, every other host
# blocked, as `open_page` gives), made once per (page, screen) in a run, by whichever pytest
# worker asks first, and read by the others (the `visited` fixture of tests/site/conftest.py).
# Tests that click, type or switch the theme open their own page.

@dataclass(frozen=True)
class Screen:
    """A screen a page is visited on; ``weigh`` and ``screenshot`` say what the visit keeps."""
    name: str
    width: int
    height: int
    weigh: bool = False
    screenshot: bool = False


# A laptop's screen (1366 x 900): the theme lays out every width from 1200 px the same way (its
# widest breakpoint, `min-width: 1200px`) and no rule of its stylesheets depends on the height.
DESKTOP = Screen("desktop", 1366, 900, weigh=True, screenshot=True)
PHONE = Screen("phone", 400, 900)

# What a visit measures once the page has drawn (each a script for page.evaluate), and the test
# that reads it. Measured on every screen: they cost milliseconds beside the load.
FINDINGS_TITLES = ("What this chapter finds", "What this page finds", "In short")
PROBES = {
    # test_narrow: the page's width, and the chart boxes that would widen it on a phone (the
    # what-if explorer's, with its sliders, keeps to the screen by other means)
    "page_width": "() => document.documentElement.scrollWidth",
    "unboxed_charts": (
        "() => [...document.querySelectorAll('div[id^=\"altair-viz-\"]')]"
        ".map(e => e.closest('.output'))"
        ".filter(o => o && !o.querySelector('.vega-bind')"
        " && getComputedStyle(o).overflowX === 'visible').length"),
    # test_narrow: the charts wider than their box (cut off at its edge)
    "cut_charts": (
        "() => [...document.querySelectorAll('div[id^=\"altair-viz-\"]')]"
        ".map(e => [e, e.closest('.output')]).filter(([e, o]) => o"
        " && o.scrollWidth > o.clientWidth + 1)"
        ".map(([e, o]) => `${e.id}: ${o.scrollWidth} px in a ${o.clientWidth} px box`)"),
    # test_openings: the top, in the page, of the box of findings and of the first chart
    "opening": (
        "() => { const titles = " + json.dumps(FINDINGS_TITLES) + ";"
        " const top = e => e.getBoundingClientRect().top + window.scrollY;"
        " const box = [...document.querySelectorAll('article .admonition')]"
        "   .find(a => titles.some(t => (a.querySelector('.admonition-title') || {})"
        "     .textContent === t));"
        " const chart = document.querySelector('article div[id^=\"altair-viz-\"]');"
        " return {box: box ? top(box) : null, chart: chart ? top(chart) : null}; }"),
}


@dataclass
class PageRecord:
    """What one visit of a page saw."""
    rel: str
    screen: Screen
    outside: list[str]            # requests to another host (aborted), in the whole visit
    console_errors: list[str]     # console errors and uncaught exceptions, in the whole visit
    charts: int                   # Altair charts, each drawn (its svg or canvas attached)
    chart_errors: int             # charts showing vega-embed's error instead
    formulas: int                 # formulas, each drawn
    received: dict[str, int]      # bytes of each response body from the site, by path
    measured: dict[str, object]   # PROBES' results
    screenshot: Path | None


class VisitFailed(RuntimeError):
    """A visit that failed in another test (or another worker), raised to each test reading it."""


def body_size(request, response) -> int:
    """The bytes of a response's body (as sent: the test server does not compress)."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        return len(response.body())
    except PlaywrightError:  # a page navigated away from (index.html forwards to the first page)
        return request.sizes()["responseBodySize"]


def screenshot_path(rel: str) -> Path:
    return SCREENSHOTS / (rel.removesuffix(".html").replace("/", "__") + ".png")


def record_visit(browser, site_url: str, rel: str, screen: Screen) -> PageRecord:
    """Open ``rel`` in a fresh context on ``screen``, let it draw its charts and formulas and
    load its fonts, weigh what it received, measure it, take its screenshot, and close it."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    url = f"{site_url}/{rel}"
    context, page, visit = open_page(browser, url, site_url, width=screen.width,
                                     height=screen.height)
    try:
        page.goto(url, wait_until="load")
        charts = wait_for_charts(page)
        formulas = wait_for_math(page)
        chart_errors = page.locator("div[id^='altair-viz-'] .error").count()
        # (index.html forwards to the first page: wait_for_function survives the navigation)
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        received: dict[str, int] = {}
        if screen.weigh:
            try:
                page.wait_for_load_state("networkidle", timeout=10_000)
            except PlaywrightTimeoutError:
                # Seen on the lab chapter after another page in the same browser: no request of
                # the page was in flight, yet Chromium never reported the network idle. The loop
                # below waits for the response of every request the page made
                # (request.response() blocks until it arrives), so the count is complete either
                # way.
                pass
            for request in list(visit.requests):
                response = request.response()
                if response is None or not request.url.startswith(site_url):
                    continue
                path = urlsplit(request.url).path
                received[path] = received.get(path, 0) + body_size(request, response)
        page.wait_for_timeout(200)
        measured = {name: page.evaluate(script) for name, script in PROBES.items()}
        shot = None
        if screen.screenshot:
            shot = screenshot_path(rel)
            shot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shot), full_page=True)
    finally:
        context.close()
    return PageRecord(rel=rel, screen=screen, outside=list(visit.outside),
                      console_errors=list(visit.console_errors), charts=charts,
                      chart_errors=chart_errors, formulas=formulas, received=received,
                      measured=measured, screenshot=shot)

