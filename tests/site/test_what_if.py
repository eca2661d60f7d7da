"""The what-if page: small enough to store and carry, and its sliders work with no network.

The explorer is one Altair chart whose sliders (Vega parameters bound to range inputs) select
from a grid stored in the page. The browser test moves sliders the way a reader's browser
does (set the value, dispatch ``input`` and ``change``) with every request to another host
aborted, and checks that the drawn lines and the printed readout change accordingly.
"""

from __future__ import annotations

import pytest
from site_pages import SCREENSHOTS, SITE, open_page, unexpected, wait_for_charts
from site_pages import served as site

PAGE = "notebooks/what-if.html"
MAX_PAGE_BYTES = 1_500_000  # 1.5 MB: the page carries the whole precomputed grid
EXPLORER = "div[id^='altair-viz-']:has(input[type='range'])"


def test_page_is_small_enough():
    path = SITE / PAGE
    assert path.is_file(), f"{PAGE} is not in the built site"
    size = path.stat().st_size
    assert size <= MAX_PAGE_BYTES, (
        f"{PAGE} is {size:,} bytes, more than {MAX_PAGE_BYTES:,}: make the grid coarser")


def _lines(chart) -> list[str]:
    """The ``d`` attribute of every line mark, in drawing order."""
    return chart.locator("svg.marks g.mark-line path").evaluate_all(
        "els => els.map(e => e.getAttribute('d'))")


def _texts(chart) -> list[str]:
    return chart.locator("svg.marks g.mark-text text").evaluate_all(
        "els => els.map(e => e.textContent)")


def _move(chart, name: str, value: float) -> None:
    """Set a slider as a reader's drag does: a new value, then input and change events."""
    chart.locator(f"input[type='range'][name='{name}']").evaluate(
        """(el, v) => { el.value = String(v);
                        el.dispatchEvent(new Event('input', {bubbles: true}));
                        el.dispatchEvent(new Event('change', {bubbles: true})); }""", value)


def _settle(page, chart, before: list[str]) -> list[str]:
    """The line paths once they differ from ``before`` (or after 5 s, unchanged)."""
    try:
        page.wait_for_function(
            """([sel, old]) => { const c = document.querySelector(sel);
                 const d = [...c.querySelectorAll('svg.marks g.mark-line path')]
                   .map(e => e.getAttribute('d'));
                 return JSON.stringify(d) !== JSON.stringify(old); }""",
            arg=[EXPLORER, before], timeout=5_000)
    except Exception:  # noqa: BLE001 - the assertion below reports what did not change
        pass
    page.wait_for_timeout(150)
    return _lines(chart)


@pytest.mark.browser
@pytest.mark.parametrize("served", ["http", "file"])
def test_sliders_change_the_plotted_values_offline(browser, site_url, served):
    """Over http://127.0.0.1 and from file:// (a copy on a USB stick), no network."""
    url, origin = site(PAGE, served, site_url)
    context, page, visit = open_page(browser, url, origin)
    try:
        page.goto(url, wait_until="load")
        assert wait_for_charts(page) >= 1
        chart = page.locator(EXPLORER)
        assert chart.count() == 1, "the page has no chart with sliders"
        sliders = chart.locator("input[type='range']").evaluate_all(
            "els => els.map(e => e.name)")
        start_lines, start_texts = _lines(chart), _texts(chart)

        _move(chart, "threads", 5)
        after_threads = _settle(page, chart, start_lines)
        texts_threads = _texts(chart)
        shown = chart.locator("input[name='threads'] + span").inner_text()

        _move(chart, "load", 300)
        page.wait_for_timeout(300)
        texts_load = _texts(chart)

        _move(chart, "cpu_ms", 20)
        after_cpu = _settle(page, chart, after_threads)

        # The whole explorer in view, its sliders above it, for a look at the moved state.
        page.set_viewport_size({"width": 1280, "height": 1500})
        page.evaluate("sel => window.scrollBy(0, document.querySelector(sel)"
                      ".getBoundingClientRect().top - 80)", EXPLORER)
        page.wait_for_timeout(200)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"notebooks__what-if__sliders-moved-{served}.png"),
                        clip=chart.bounding_box())
        errors_in_chart = chart.locator(".error").count()
    finally:
        context.close()

    assert sliders == ["capacity", "threads", "cpu_ms", "wait_ms", "think_time", "load"]
    assert len(start_lines) >= 5  # four panels and the three answers of the sizing panel
    assert "Your pool: 20" in start_texts and "At 200 clients:" in start_texts
    # Fewer threads: the throughput, response-time and busy-thread lines move.
    changed = sum(a != b for a, b in zip(start_lines, after_threads, strict=True))
    assert changed >= 3, f"only {changed} line(s) moved when the pool shrank to 5 threads"
    assert shown == "5"
    assert "Your pool: 5" in texts_threads and "Your pool: 20" not in texts_threads
    # The load slider moves the readout of the sizing answers.
    assert "At 300 clients:" in texts_load and "At 200 clients:" not in texts_load
    answers = [t for t in texts_load if t.endswith(" threads")]
    assert len(answers) == 3 and answers != [t for t in texts_threads if t.endswith(" threads")]
    # A longer CPU time moves the lines again, the sizing answers among them.
    assert after_cpu != after_threads
    assert visit.outside == [], f"the page asked another host for: {visit.outside}"
    assert errors_in_chart == 0
    assert unexpected(visit.console_errors) == [], visit.console_errors
