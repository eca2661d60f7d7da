"""What a page costs its reader: the bytes it transfers, and only the libraries it needs.

Every page is opened over http://127.0.0.1 in a fresh headless Chromium context (nothing cached,
every other host blocked) and left to draw its charts and formulas and load its fonts;
then the bodies of every response it received from the site are summed (the test server sends
files as they are, uncompressed, as they are read from a USB stick). A page without a chart
(prose) may transfer at most 1 MB, a page with charts 2.5 MB; the what-if page, whose explorer
stores its whole grid of answers, states its own limit below, with the reason. Formulas cost no
script or font (they are MathML written at build time): no page loads MathJax. A page without a
chart loads no chart library, and no page loads Font Awesome's icon script.

The measured weights are written to ``_build/page_weights.csv`` (beside the site) so that they
can be quoted: one row per page, its total and what it is made of.
"""

from __future__ import annotations

import csv
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from site_pages import SITE, open_page, site_pages, wait_for_charts, wait_for_math

pytestmark = pytest.mark.browser

MB = 1_000_000
PROSE_LIMIT = 1 * MB
CHART_LIMIT = int(2.5 * MB)
# Pages allowed more than their kind's limit, with the reason.
OWN_LIMITS: dict[str, tuple[int, str]] = {
    "notebooks/what-if.html": (
        int(2.8 * MB), "the explorer's precomputed grid of answers is stored in the page"),
}
WEIGHTS = SITE.parent / "page_weights.csv"
PARTS = ("page", "theme", "icon_font", "icon_script", "charts", "mathjax")


def part(path: str, page_path: str) -> str:
    """Which part of a page a file of the site is."""
    if path == page_path:
        return "page"
    if path.endswith("/vendor/vega-offline.js"):
        return "charts"
    if "/vendor/mathjax/" in path:
        return "mathjax"
    if path.endswith("/fontawesome.js"):
        return "icon_script"
    if "/fontawesome/webfonts/" in path:
        return "icon_font"
    return "theme"


def limit(rel: str, has_chart: bool) -> int:
    if rel in OWN_LIMITS:
        return OWN_LIMITS[rel][0]
    return CHART_LIMIT if has_chart else PROSE_LIMIT


@pytest.fixture(scope="module")
def weights():
    """The rows of page_weights.csv, written once every page has been weighed."""
    rows: dict[str, dict] = {}
    yield rows
    if rows:
        WEIGHTS.parent.mkdir(parents=True, exist_ok=True)
        with WEIGHTS.open("w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=[
                "page", "kind", "bytes", "limit", *(f"{p}_bytes" for p in PARTS), "requests"])
            writer.writeheader()
            for rel in sorted(rows):
                writer.writerow(rows[rel])


def body_size(request, response) -> int:
    """The bytes of a response's body (as sent: the test server does not compress)."""
    try:
        return len(response.body())
    except PlaywrightError:  # a page navigated away from (index.html forwards to the first page)
        return request.sizes()["responseBodySize"]


def weigh(browser, site_url: str, rel: str):
    """The bytes of every response body the page received from the site, by path."""
    context, page, visit = open_page(browser, f"{site_url}/{rel}", site_url)
    try:
        page.goto(f"{site_url}/{rel}", wait_until="load")
        wait_for_charts(page)
        wait_for_math(page)
        # (index.html forwards to the first page: wait_for_function survives the navigation)
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        try:
            page.wait_for_load_state("networkidle", timeout=10_000)
        except PlaywrightTimeoutError:
            # Seen on the lab chapter after another page in the same browser: no request of
            # the page was in flight, yet Chromium never reported the network idle. The loop
            # below waits for the response of every request the page made (request.response()
            # blocks until it arrives), so the count is complete either way.
            pass
        received: dict[str, int] = {}
        for request in visit.requests:
            response = request.response()
            if response is None or not request.url.startswith(site_url):
                continue
            path = urlsplit(request.url).path
            received[path] = received.get(path, 0) + body_size(request, response)
    finally:
        context.close()
    return received, visit


@pytest.mark.parametrize("path", site_pages(), ids=lambda p: str(p.relative_to(SITE)))
def test_page_weight(browser, site_url, weights, path: Path):
    rel = path.relative_to(SITE).as_posix()
    html = path.read_text(encoding="utf-8")
    has_chart = "altair-viz-" in html
    has_math = 'class="math' in html
    received, visit = weigh(browser, site_url, rel)
    by_part = dict.fromkeys(PARTS, 0)
    for file, size in received.items():
        by_part[part(file, f"/{rel}")] += size
    total = sum(received.values())
    allowed = limit(rel, has_chart)
    weights[rel] = {
        "page": rel, "bytes": total,
        "kind": ("chart" if has_chart else "prose") + (" + formulas" if has_math else ""),
        "limit": allowed, **{f"{p}_bytes": by_part[p] for p in PARTS},
        "requests": len(received),
    }
    print(f"{rel}: {total:,} bytes in {len(received)} files "
          + ", ".join(f"{p} {by_part[p]:,}" for p in PARTS))

    assert visit.outside == [], f"{rel} asked another host for: {visit.outside}"
    assert by_part["icon_script"] == 0, f"{rel} loads Font Awesome's icon script"
    if not has_chart:
        assert by_part["charts"] == 0, f"{rel} has no chart but loads the chart library"
    assert by_part["mathjax"] == 0, f"{rel} loads MathJax"
    assert total <= allowed, (
        f"{rel} transfers {total:,} bytes, more than its {allowed:,}: "
        + ", ".join(f"{p} {by_part[p]:,}" for p in PARTS))


def test_every_own_limit_names_a_page_and_a_reason():
    pages = {p.relative_to(SITE).as_posix() for p in site_pages()}
    for rel, (allowed, reason) in OWN_LIMITS.items():
        assert rel in pages, f"{rel} has its own limit but is not in the site"
        assert allowed > CHART_LIMIT and reason
