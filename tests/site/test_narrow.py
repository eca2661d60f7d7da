"""On a phone-sized screen a chapter keeps to the screen: each chart scrolls sideways in its own
box rather than widening the whole page."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_pages import DESKTOP, PHONE, SITE, site_pages

pytestmark = pytest.mark.browser

CHART_PAGES = [p for p in site_pages() if "altair-viz-" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", CHART_PAGES, ids=lambda p: str(p.relative_to(SITE)))
def test_charts_scroll_in_their_box_on_a_phone(visited, path: Path):
    """The what-if explorer's box is the one exception to the scrolling: its sliders stay in
    view while the reader scrolls the page, which a scrolling box would prevent (see
    book/_static); it keeps to the screen by stacking its panels instead, and the page width
    checks that."""
    rel = path.relative_to(SITE).as_posix()
    record = visited(rel, PHONE)
    page_width = record.measured["page_width"]
    overflowing = record.measured["unboxed_charts"]
    assert overflowing == 0, f"{rel}: {overflowing} chart box(es) would widen the page"
    assert page_width <= PHONE.width, f"{rel} is {page_width} px wide on a {PHONE.width} px screen"


@pytest.mark.parametrize("path", CHART_PAGES, ids=lambda p: str(p.relative_to(SITE)))
def test_charts_fit_the_text_column_on_a_desktop(visited, path: Path):
    """On a laptop's screen no chart needs its sideways scrolling: a chart wider than the text
    column has its legend or its last panel cut off at the box's edge."""
    rel = path.relative_to(SITE).as_posix()
    cut = visited(rel, DESKTOP).measured["cut_charts"]
    assert cut == [], f"{rel}: charts wider than the text column: {cut}"
