"""What a page costs its reader: the bytes it transfers, and only the libraries it needs.

Every page is opened over http://127.0.0.1 in a fresh headless Chromium context (nothing cached,
every other host blocked) and left to draw its charts and formulas and load its fonts;
then the bodies of every response it received from the site are summed (the test server sends
files as they are, uncompressed, as they are read from a USB stick). The visit is the one
``site_pages.record_visit`` makes of each page for the tests that observe it. A page without a chart
(prose) may transfer at most 1 MB, a page with charts 2.5 MB; the what-if page, whose explorer
stores its whole grid of answers, states its own limit below, with the reason. Formulas cost no
script or font (they are MathML written at build time): no page loads MathJax. A page without a
chart loads no chart library, and no page loads Font Awesome's icon script.

The measured weights are written to ``_build/page_weights.csv`` (beside the site) so that they
can be quoted: one row per page, its total and what it is made of, written at the end of the run
by ``tests/site/conftest.py`` with the rows of every worker.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from site_pages import DESKTOP, SITE, site_pages

pytestmark = pytest.mark.browser

MB = 1_000_000
PROSE_LIMIT = 1 * MB
CHART_LIMIT = int(2.5 * MB)
# Pages allowed more than their kind's limit, with the reason.
OWN_LIMITS: dict[str, tuple[int, str]] = {
    "notebooks/what-if.html": (
        int(2.8 * MB), "the explorer's precomputed grid of answers is stored in the page"),
}
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


@pytest.mark.parametrize("path", site_pages(), ids=lambda p: str(p.relative_to(SITE)))
def test_page_weight(visited, record_property, path: Path):
    rel = path.relative_to(SITE).as_posix()
    html = path.read_text(encoding="utf-8")
    has_chart = "altair-viz-" in html
    has_math = 'class="math' in html
    record = visited(rel, DESKTOP)
    received = record.received
    by_part = dict.fromkeys(PARTS, 0)
    for file, size in received.items():
        by_part[part(file, f"/{rel}")] += size
    total = sum(received.values())
    allowed = limit(rel, has_chart)
    kind = ("chart" if has_chart else "prose") + (" + formulas" if has_math else "")
    # A row of page_weights.csv (tests/site/conftest.py writes the table at the end of the run).
    record_property("page_weight", {
        "page": rel, "kind": kind, "bytes": total, "limit": allowed,
        **{f"{p}_bytes": by_part[p] for p in PARTS}, "requests": len(received),
    })
    print(f"{rel}: {total:,} bytes in {len(received)} files "
          + ", ".join(f"{p} {by_part[p]:,}" for p in PARTS))

    assert received, f"{rel}: the visit weighed nothing"
    assert record.outside == [], f"{rel} asked another host for: {record.outside}"
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
