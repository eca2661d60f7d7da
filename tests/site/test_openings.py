"""Every chapter opens with what it finds and shows its first chart early: on a 1366 x 900
laptop screen its box of findings starts on the first screen and its first chart within the
first two. The workshop page opens with its explorer instead of a box."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_pages import DESKTOP, SITE, site_pages

pytestmark = pytest.mark.browser

WIDTH, SCREEN = 1366, 900
CHAPTERS = [p for p in site_pages() if p.parent.name == "notebooks"]
# The workshop page: its explorer (the first chart) is the opening itself.
EXPLORER_FIRST = {"notebooks/what-if.html"}


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: str(p.relative_to(SITE)))
def test_chapter_opens_with_its_findings_and_an_early_chart(visited, path: Path):
    """The box of findings is the admonition titled as in site_pages.FINDINGS_TITLES."""
    rel = path.relative_to(SITE).as_posix()
    assert (DESKTOP.width, DESKTOP.height) == (WIDTH, SCREEN)  # exact: the screen, in pixels
    record = visited(rel, DESKTOP)
    assert record.charts > 0, f"{rel} has no chart"
    opening = record.measured["opening"]
    assert opening["chart"] < 2 * SCREEN, f"{rel}: first chart at {opening['chart']:.0f} px"
    if rel in EXPLORER_FIRST:
        assert opening["chart"] < SCREEN, f"{rel}: the explorer starts at {opening['chart']} px"
    else:
        assert opening["box"] is not None, f"{rel} has no box of findings"
        assert opening["box"] < SCREEN, f"{rel}: its findings start at {opening['box']:.0f} px"
