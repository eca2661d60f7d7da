"""The theme's icons draw without Font Awesome's script, over HTTP and from file://.

Every visible Font Awesome icon (``<i class="fa-...">``) of a page must be drawn by the theme's
stylesheet: a glyph in its ``::before`` from the Font Awesome web font, which the site serves
itself and the browser has loaded. None is an SVG put in by the (no longer shipped) script.
"""

from __future__ import annotations

import pytest
from site_pages import open_page, unexpected
from site_pages import served as site

pytestmark = pytest.mark.browser

PAGES = ["book/intro.html", "notebooks/domino-threads.html"]
ICONS = """() => [...document.querySelectorAll('i[class*="fa-"]')]
  .filter(e => e.getClientRects().length > 0)
  .map(e => { const s = getComputedStyle(e, '::before');
              return {cls: e.className, content: s.content, font: s.fontFamily,
                      width: e.getBoundingClientRect().width}; })"""


@pytest.mark.parametrize("how", ["http", "file"])
@pytest.mark.parametrize("rel", PAGES)
def test_icons_draw_from_the_web_font(browser, site_url, rel, how):
    url, origin = site(rel, how, site_url)
    context, page, visit = open_page(browser, url, origin)
    try:
        page.goto(url, wait_until="load")
        page.evaluate("() => document.fonts.ready.then(() => true)")
        icons = page.evaluate(ICONS)
        loaded = page.evaluate(
            "() => [...document.fonts].filter(f => f.status === 'loaded')"
            ".map(f => f.family.replaceAll('\"', ''))")
        svg_icons = page.locator("svg.svg-inline--fa").count()
    finally:
        context.close()
    assert len(icons) >= 3, f"{rel}: only {icons} visible icons"
    for icon in icons:
        assert icon["content"] not in ("none", "normal", '""'), f"{rel}: {icon} draws nothing"
        assert "Font Awesome" in icon["font"], icon
        assert icon["width"] > 0, icon
    assert "Font Awesome 6 Free" in loaded, f"{rel}: the icon font did not load ({loaded})"
    assert svg_icons == 0
    assert visit.outside == []
    assert unexpected(visit.console_errors) == [], visit.console_errors
