"""On a phone-sized screen a chapter keeps to the screen: each chart scrolls sideways in its own
box rather than widening the whole page."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_pages import SITE, open_page, site_pages, wait_for_charts

PHONE_WIDTH = 400
CHART_PAGES = [p for p in site_pages() if "altair-viz-" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", CHART_PAGES, ids=lambda p: str(p.relative_to(SITE)))
def test_charts_scroll_in_their_box_on_a_phone(browser, site_url, path: Path):
    """The what-if explorer's box is the one exception to the scrolling: its sliders stay in
    view while the reader scrolls the page, which a scrolling box would prevent (see
    book/_static); it keeps to the screen by stacking its panels instead, and the page width
    checks that."""
    rel = path.relative_to(SITE).as_posix()
    context, page, _ = open_page(browser, f"{site_url}/{rel}", site_url, width=PHONE_WIDTH)
    try:
        page.goto(f"{site_url}/{rel}", wait_until="load")
        wait_for_charts(page)
        page.wait_for_timeout(200)
        page_width = page.evaluate("() => document.documentElement.scrollWidth")
        overflowing = page.evaluate(
            "() => [...document.querySelectorAll('div[id^=\"altair-viz-\"]')]"
            ".map(e => e.closest('.output'))"
            ".filter(o => o && !o.querySelector('.vega-bind')"
            " && getComputedStyle(o).overflowX === 'visible').length")
    finally:
        context.close()
    assert overflowing == 0, f"{rel}: {overflowing} chart box(es) would widen the page"
    assert page_width <= PHONE_WIDTH, f"{rel} is {page_width} px wide on a {PHONE_WIDTH} px screen"


DESKTOP_WIDTH = 1366


@pytest.mark.parametrize("path", CHART_PAGES, ids=lambda p: str(p.relative_to(SITE)))
def test_charts_fit_the_text_column_on_a_desktop(browser, site_url, path: Path):
    """On a laptop's screen no chart needs its sideways scrolling: a chart wider than the text
    column has its legend or its last panel cut off at the box's edge."""
    rel = path.relative_to(SITE).as_posix()
    context, page, _ = open_page(browser, f"{site_url}/{rel}", site_url, width=DESKTOP_WIDTH,
                                 height=768)
    try:
        page.goto(f"{site_url}/{rel}", wait_until="load")
        wait_for_charts(page)
        page.wait_for_timeout(200)
        cut = page.evaluate(
            "() => [...document.querySelectorAll('div[id^=\"altair-viz-\"]')]"
            ".map(e => [e, e.closest('.output')]).filter(([e, o]) => o"
            " && o.scrollWidth > o.clientWidth + 1)"
            ".map(([e, o]) => `${e.id}: ${o.scrollWidth} px in a ${o.clientWidth} px box`)")
    finally:
        context.close()
    assert cut == [], f"{rel}: charts wider than the text column: {cut}"
