"""The calculator on a phone and with bad input, and the way to it from the landing page.

* At 390 px every line of the settings to copy is in view without sideways scrolling (each
  snippet wraps), and every text of the chart, whatever the chart draws, is drawn at 11 px or
  more and inside the chart.
* Text a reader types that the browser cannot read as a number (1e400, a lone "e"), in a
  required field or an optional one, is named with the field's range, and no answer shows.
* The landing page's first box links the calculator.
"""

from __future__ import annotations

import pytest
from site_pages import SCREENSHOTS, open_page, unexpected
from site_pages import served as site

PAGE = "book/size-your-server.html"
PHONE = {"width": 390, "height": 844}

SNIPPETS_IN_VIEW = """() => [...document.querySelectorAll('[data-snippet]')].map(pre => ({
  name: pre.dataset.snippet, scroll: pre.scrollWidth, client: pre.clientWidth,
  right: pre.getBoundingClientRect().right, text: pre.textContent.length}))"""

# Each text of the chart: the size it is drawn at (its font size in the SVG's units times the
# scale of its transformation to the screen, rotated or not), and its box against the SVG's.
CHART_TEXT = """() => {
  const svg = document.querySelector('[data-chart]');
  const box = svg.getBoundingClientRect();
  return [...svg.querySelectorAll('text')].map(t => {
    const b = t.getBoundingClientRect(), m = t.getScreenCTM();
    return {text: t.textContent,
            px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b),
            inside: b.left >= box.left - 0.5 && b.right <= box.right + 0.5 &&
                    b.top >= box.top - 0.5 && b.bottom <= box.bottom + 0.5};
  });
}"""


def _open(browser, site_url, rel=PAGE, **screen):
    url, origin = site(rel, "http", site_url)
    context, page, visit = open_page(browser, url, origin, **screen)
    page.goto(url)
    return context, page, visit


def _calculator(browser, site_url, **screen):
    context, page, visit = _open(browser, site_url, **screen)
    page.wait_for_function("() => window.QueuetuneCalculator && "
                           "window.QueuetuneCalculator.updates > 0")
    return context, page, visit


@pytest.mark.browser
def test_on_a_phone_every_snippet_value_is_in_view(browser, site_url):
    context, page, visit = _calculator(browser, site_url, touch=True, **PHONE)
    try:
        shown = page.evaluate(SNIPPETS_IN_VIEW)
        page.locator(".qt-snippets").screenshot(
            path=str(SCREENSHOTS / "book__size-your-server__snippets_phone.png"))
    finally:
        context.close()
    assert {s["name"] for s in shown} >= {"tomcat", "spring", "nginx"}
    for s in shown:
        assert s["text"] > 0, s
        assert s["scroll"] <= s["client"] and s["right"] <= PHONE["width"], s
    assert unexpected(visit.console_errors) == []


@pytest.mark.browser
def test_on_a_phone_the_chart_s_text_is_11_px_or_more_and_inside_it(browser, site_url):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context, page, visit = _calculator(browser, site_url, touch=True, **PHONE)
    try:
        texts = page.evaluate(CHART_TEXT)
        page.locator(".qt-chart").screenshot(
            path=str(SCREENSHOTS / "book__size-your-server__chart_phone.png"))
    finally:
        context.close()
    assert texts, "the chart draws no text"
    small = [t for t in texts if t["px"] < 11]
    assert small == [], f"drawn under 11 px on a 390-px phone: {small}"
    cut = [t["text"] for t in texts if not t["inside"]]
    assert cut == [], f"outside the chart, cut off: {cut}"
    assert unexpected(visit.console_errors) == []


# Empties the field and puts the cursor in it; the test then types as a reader does.
FOCUS = """name => {
  const input = document.getElementById('qt-calculator').elements[name];
  input.value = '';
  input.focus();
}"""


@pytest.mark.browser
@pytest.mark.parametrize(("name", "typed", "label", "range_text"), [
    ("processors", "1e400", "Processors (processors)", "a whole number from 1 to 4,096"),
    ("cpu_ms", "1e400", "Processor time per request (cpu_ms)",
     "from 0.001 to 1,000,000 ms"),
    ("rate", "e", "Peak arrival rate (rate)", "more than 0 to 10,000,000 requests/s"),
    ("connections", "1e400", "Connection pool (connections)", "a whole number from 1 to 100,000"),
    ("max_response_ms", "2e", "Longest acceptable response (max_response_ms)",
     "from 0.001 to 3,600,000 ms"),
])
def test_text_that_is_no_number_is_named_with_its_range_and_no_answer_shows(
        browser, site_url, name, typed, label, range_text):
    context, page, visit = _calculator(browser, site_url, width=1366, height=900)
    try:
        assert page.locator("[data-answer]").is_visible()
        page.evaluate(FOCUS, name)
        page.keyboard.type(typed)
        error = page.locator("[data-error]")
        error.wait_for(state="visible")
        message = error.text_content()
        answered = page.locator("[data-answer]").is_visible()
        invalid = page.evaluate("() => [...document.querySelectorAll('[aria-invalid=true]')]"
                                ".map(e => e.name)")
    finally:
        context.close()
    assert label in message and range_text in message and "not a number" in message, message
    assert "empty" not in message, message
    assert not answered
    assert invalid == [name]
    assert unexpected(visit.console_errors) == []


@pytest.mark.browser
def test_the_landing_page_s_first_box_links_the_calculator(browser, site_url):
    context, page, visit = _open(browser, site_url, "book/intro.html", touch=True, **PHONE)
    try:
        links = page.evaluate("""() => [...document.querySelector('.admonition')
            .querySelectorAll('a')].map(a => [a.textContent.trim(),
                                             new URL(a.href).pathname])""")
    finally:
        context.close()
    assert any(path.endswith("/book/size-your-server.html") for _, path in links), links
    assert unexpected(visit.console_errors) == []
