"""Fixtures for the built-site tests: the site served on 127.0.0.1 and a headless Chromium."""

from __future__ import annotations

import functools
import os
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# QUEUELAB_SITE points the tests at another build (e.g. jupyter-book build --path-output DIR).
SITE = Path(os.environ.get("QUEUELAB_SITE", ROOT / "_build" / "html"))
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


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature fixed by the base class
        pass


@pytest.fixture(scope="session")
def site_url():
    site_pages()  # fail early, with the reason, when the book is not built
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    if executable is None:
        raise RuntimeError("Debian's chromium is not installed: run `make chromium`")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
