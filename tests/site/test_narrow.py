"""On a phone-sized screen a chapter keeps to the screen: each chart scrolls sideways in its own
box rather than widening the whole page."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_pages import SITE, open_page, site_pages, wait_for_charts

PHONE_WIDTH = 400
# The what-if explorer lets its chart box overflow on purpose: its sliders stay in view while
# the reader scrolls the page, which a scrolling box would prevent (see book/_static).
WIDE_BY_DESIGN = {"notebooks/what-if.html"}
CHART_PAGES = [p for p in site_pages()
               if "altair-viz-" in p.read_text(encoding="utf-8")
               and p.relative_to(SITE).as_posix() not in WIDE_BY_DESIGN]


@pytest.mark.parametrize("path", CHART_PAGES, ids=lambda p: str(p.relative_to(SITE)))
def test_charts_scroll_in_their_box_on_a_phone(browser, site_url, path: Path):
    rel = path.relative_to(SITE).as_posix()
    context, page, _ = open_page(browser, f"{site_url}/{rel}", site_url, width=PHONE_WIDTH)
    try:
        page.goto(f"{site_url}/{rel}", wait_until="load")
        wait_for_charts(page)
        page_width = page.evaluate("() => document.documentElement.scrollWidth")
        overflowing = page.evaluate(
            "() => [...document.querySelectorAll('div[id^=\"altair-viz-\"]')]"
            ".map(e => e.closest('.output'))"
            ".filter(o => o && getComputedStyle(o).overflowX === 'visible').length")
    finally:
        context.close()
    assert overflowing == 0, f"{rel}: {overflowing} chart box(es) would widen the page"
    assert page_width <= PHONE_WIDTH, f"{rel} is {page_width} px wide on a {PHONE_WIDTH} px screen"
