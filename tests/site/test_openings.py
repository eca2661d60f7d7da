"""Every chapter opens with what it finds and shows its first chart early: on a 1366 x 900
laptop screen its box of findings starts on the first screen and its first chart within the
first two. The workshop page opens with its explorer instead of a box."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_pages import SITE, open_page, site_pages, wait_for_charts

pytestmark = pytest.mark.browser

WIDTH, SCREEN = 1366, 900
CHAPTERS = [p for p in site_pages() if p.parent.name == "notebooks"]
FINDINGS_TITLES = ("What this chapter finds", "What this page finds", "In short")
# The workshop page: its explorer (the first chart) is the opening itself.
EXPLORER_FIRST = {"notebooks/what-if.html"}


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: str(p.relative_to(SITE)))
def test_chapter_opens_with_its_findings_and_an_early_chart(browser, site_url, path: Path):
    rel = path.relative_to(SITE).as_posix()
    context, page, _ = open_page(browser, f"{site_url}/{rel}", site_url, width=WIDTH,
                                 height=SCREEN)
    try:
        page.goto(f"{site_url}/{rel}", wait_until="load")
        assert wait_for_charts(page) > 0, f"{rel} has no chart"
        opening = page.evaluate(
            "titles => { const top = e => e.getBoundingClientRect().top + window.scrollY;"
            " const box = [...document.querySelectorAll('article .admonition')]"
            "   .find(a => titles.some(t => (a.querySelector('.admonition-title') || {})"
            "     .textContent === t));"
            " const chart = document.querySelector('article div[id^=\"altair-viz-\"]');"
            " return {box: box ? top(box) : null, chart: top(chart)}; }",
            list(FINDINGS_TITLES))
    finally:
        context.close()
    assert opening["chart"] < 2 * SCREEN, f"{rel}: first chart at {opening['chart']:.0f} px"
    if rel in EXPLORER_FIRST:
        assert opening["chart"] < SCREEN, f"{rel}: the explorer starts at {opening['chart']} px"
    else:
        assert opening["box"] is not None, f"{rel} has no box of findings"
        assert opening["box"] < SCREEN, f"{rel}: its findings start at {opening['box']:.0f} px"
