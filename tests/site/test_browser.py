"""Browser test of the built site: every page in headless Chromium with other hosts blocked.

For every page: no request leaves 127.0.0.1, every Altair chart draws, math is typeset, the
console shows no error beyond the allow-list below, and a screenshot is saved under
``_build/screenshots/``. Then the interactions a reader relies on: tooltips and legend
highlighting, and the site opened from ``file://`` (a copy on a USB stick).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from site_pages import (
    DESKTOP,
    SITE,
    open_page,
    site_pages,
    unexpected,
    wait_for_charts,
    wait_for_math,
)

pytestmark = pytest.mark.browser

@pytest.mark.parametrize("path", site_pages(), ids=lambda p: str(p.relative_to(SITE)))
def test_page_renders_offline(visited, path: Path):
    """The page in a fresh context on a laptop's screen (the visit test_weight, test_narrow and
    test_openings read too), its full-page screenshot saved."""
    rel = path.relative_to(SITE).as_posix()
    record = visited(rel, DESKTOP)
    assert record.screenshot is not None and record.screenshot.is_file()
    assert record.outside == [], f"{rel} asked another host for: {record.outside}"
    assert record.chart_errors == 0, f"{rel}: {record.chart_errors} chart(s) show an error"
    assert unexpected(record.console_errors) == [], f"{rel} console: {record.console_errors}"
    if "altair-viz-" in path.read_text(encoding="utf-8"):
        assert record.charts > 0


# The WebMail response-time chart (figure DT-F3): one line with points per thread setting, and a
# legend (the page opens with a heat map, so the chart is found by its section's label).
DT_F3 = "section:has(> #dt-f3) div[id^='altair-viz-']"


def _chart_page(browser, site_url):
    rel = "notebooks/domino-threads.html"
    context, page, visit = open_page(browser, f"{site_url}/{rel}", site_url)
    page.goto(f"{site_url}/{rel}", wait_until="load")
    assert wait_for_charts(page) >= 1
    return context, page, visit


def test_tooltip_shows_exact_value(browser, site_url):
    context, page, visit = _chart_page(browser, site_url)
    try:
        chart = page.locator(DT_F3).first
        chart.scroll_into_view_if_needed()
        point = chart.locator("svg.marks g.mark-symbol path").first
        point.hover(force=True)
        tooltip = page.locator("#vg-tooltip-element")
        tooltip.wait_for(state="visible", timeout=5_000)
        text = tooltip.inner_text()
    finally:
        context.close()
    assert "Response time (s)" in text
    assert re.search(r"\b\d\.\d{3}\b", text), text  # the value with its three printed decimals
    assert visit.outside == []


def test_legend_click_highlights_one_setting(browser, site_url):
    context, page, visit = _chart_page(browser, site_url)
    try:
        chart = page.locator(DT_F3).first
        chart.scroll_into_view_if_needed()
        lines = chart.locator("svg.marks g.mark-line path")
        faded = "els => els.filter(e => parseFloat(e.getAttribute('opacity') ?? '1') < 0.5).length"
        before = lines.evaluate_all(faded)
        chart.locator("svg.marks g.role-legend-symbol path, svg.marks g.role-legend-label text"
                      ).first.click(force=True)
        page.wait_for_timeout(300)
        after = lines.evaluate_all(faded)
        total = lines.count()
    finally:
        context.close()
    assert before == 0
    assert after == total - 1, f"{after} of {total} lines faded after the legend click"


def test_site_works_from_file_url(browser):
    """A copy of the site opened from disk, with every network request refused."""
    path = SITE / "notebooks" / "domino-threads.html"
    url = path.as_uri()
    context, page, visit = open_page(browser, url, "file://")
    try:
        page.goto(url, wait_until="load")
        charts = wait_for_charts(page)
    finally:
        context.close()
    assert charts >= 1
    assert visit.outside == []
    assert unexpected(visit.console_errors) == []


# The foundations page's display formula of the bounds, X <= min(K/(Z+S), 1/s_c, T/S), ...:
# about 440 px wide, so wider than a phone's text column.
BOUNDS = ("[...document.querySelectorAll('section:has(> #foundations-laws) div.math')]"
          ".find(d => d.textContent.includes('min'))")


@pytest.mark.parametrize("width", [1366, 390])
def test_formulas_are_laid_out_as_math(browser, site_url, width):
    """The browser lays the MathML out as mathematics: a fraction's numerator above its
    denominator, a subscript below its base's baseline; a display formula wider than a phone
    scrolls within its box, from its left end, and never widens the page."""
    rel = "book/foundations.html"
    context, page, visit = open_page(browser, f"{site_url}/{rel}", site_url, width=width)
    try:
        page.goto(f"{site_url}/{rel}", wait_until="load")
        assert wait_for_math(page) > 20
        fraction = page.evaluate(
            "() => { const f = " + BOUNDS + ".querySelector('mfrac');"
            " const [n, d] = [...f.children].map(c => c.getBoundingClientRect());"
            " return {numerator_bottom: n.bottom, denominator_top: d.top}; }")
        script = page.evaluate(
            "() => { const m = " + BOUNDS + ".querySelector('msub');"
            " const [b, i] = [...m.children].map(c => c.getBoundingClientRect());"
            " return {base_top: b.top, base_bottom: b.bottom, index_bottom: i.bottom}; }")
        layout = page.evaluate(
            "() => { const d = " + BOUNDS + "; const m = d.querySelector('math');"
            " const box = d.getBoundingClientRect();"
            " const parts = [...m.querySelectorAll('*')].map(e => e.getBoundingClientRect());"
            " const left = Math.min(...parts.map(r => r.left));"
            " const right = Math.max(...parts.map(r => r.right));"
            " return {page: document.documentElement.scrollWidth, box_left: box.left,"
            " math_left: left, fits: right - left <= d.clientWidth}; }")
    finally:
        context.close()
    assert fraction["numerator_bottom"] <= fraction["denominator_top"] + 1, fraction
    assert script["index_bottom"] > script["base_bottom"], script
    assert layout["page"] <= width, layout
    assert layout["fits"] == (width > 500), layout
    if not layout["fits"]:  # on the phone: the formula starts at its box's left edge
        assert layout["math_left"] >= layout["box_left"] - 1, layout
    assert unexpected(visit.console_errors) == []
