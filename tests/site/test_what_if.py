"""The what-if page: small enough to store and carry, and its sliders work with no network.

The explorer is one Altair chart whose sliders (Vega parameters bound to range inputs) select
from a grid stored in the page. The browser test moves sliders the way a reader's browser
does (set the value, dispatch ``input`` and ``change``) with every request to another host
aborted, and checks that the drawn lines and the printed readout change accordingly. Then the
page as a workshop uses it: on a phone (390 px, touch), in dark mode, and opened at its top;
each exercise's button sets the explorer, sliders are touch targets at least 24 px tall, charts
are drawn dark in dark mode (and light again when switched), and a tap on a solution's title
opens the solution.
"""

from __future__ import annotations

import re

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


# --- the workshop on a phone, by touch, in dark mode ----------------------------------------------

PHONE = {"width": 390, "height": 844}  # a common phone's screen, in CSS pixels
DESKTOP = {"width": 1366, "height": 768}
# WCAG 2 AA: normal text needs a contrast ratio of at least 4.5 with its background.
MIN_CONTRAST = 4.5
_CONTRAST_JS = """els => {
  const rgba = c => { const p = c.match(/[\\d.]+/g).map(Number);
                      return p.length > 3 ? p : [...p, 1]; };
  const lum = c => c.slice(0, 3).map(v => { v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const behind = el => { for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor); if (c[3] >= 0.5) return c; }
    return [255, 255, 255, 1]; };
  return els.map(el => { const a = lum(rgba(getComputedStyle(el).color)), b = lum(behind(el));
    return {text: el.textContent.trim(), color: getComputedStyle(el).color,
            background: behind(el).join(','),
            ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)}; });
}"""


def _open_explorer(browser, site_url, **options):
    url = f"{site_url}/{PAGE}"
    context, page, visit = open_page(browser, url, site_url, **options)
    page.goto(url, wait_until="load")
    assert wait_for_charts(page) >= 1
    page.wait_for_timeout(300)
    return context, page, visit


@pytest.mark.browser
def test_the_explorer_keeps_to_a_phone_screen(browser, site_url):
    """At 390 px nothing leaves the screen: the page is no wider than the phone, the panels
    stack in one column, and every slider lies on the screen, uncovered, where a thumb can
    reach it."""
    context, page, visit = _open_explorer(browser, site_url, touch=True, **PHONE)
    try:
        chart = page.locator(EXPLORER)
        page_width = page.evaluate("() => document.documentElement.scrollWidth")
        svg = chart.locator("svg.marks").first.bounding_box()
        sliders = []
        for i in range(chart.locator("input[type='range']").count()):
            slider = chart.locator("input[type='range']").nth(i)
            slider.scroll_into_view_if_needed()
            box = slider.bounding_box()
            hit = page.evaluate(
                """([x, y]) => { const e = document.elementFromPoint(x, y);
                   return e && e.tagName === 'INPUT' ? e.name : String(e && e.className); }""",
                [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
            sliders.append((slider.get_attribute("name"), round(box["x"]),
                            round(box["x"] + box["width"]), hit))
        page.evaluate("sel => window.scrollTo(0, document.querySelector(sel)"
                      ".getBoundingClientRect().top + window.scrollY - 60)", EXPLORER)
        page.wait_for_timeout(200)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "notebooks__what-if__phone.png"), full_page=True)
    finally:
        context.close()
    assert page_width <= PHONE["width"], f"the page is {page_width} px wide on a 390 px phone"
    assert svg["x"] >= 0 and svg["x"] + svg["width"] <= PHONE["width"], (
        f"the explorer spans {svg['x']:.0f} to {svg['x'] + svg['width']:.0f} px")
    assert len(sliders) == 6
    for name, left, right, hit in sliders:
        assert 0 <= left and right <= PHONE["width"], f"slider {name} spans {left} to {right} px"
        assert hit == name, f"slider {name} is covered by {hit!r}"
    assert visit.outside == []


@pytest.mark.browser
def test_a_tap_shows_the_value(browser, site_url):
    """Touch screens show no hover tooltip: a tap on a panel writes the value under it."""
    context, page, visit = _open_explorer(browser, site_url, touch=True, **PHONE)
    try:
        chart = page.locator(EXPLORER)
        before = _texts(chart)
        # The 8th dot of the first panel (throughput) stands at 200 clients: tap where it is.
        column = chart.locator("svg.marks g.mark-symbol path").nth(7)
        column.evaluate("el => window.scrollBy(0, el.getBoundingClientRect().top"
                        " - window.innerHeight * 0.6)")
        page.wait_for_timeout(200)
        box = column.bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_timeout(400)
        after = _texts(chart)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "notebooks__what-if__phone-tap.png"))
    finally:
        context.close()
    tapped = [t for t in after if t.startswith("200 clients: ")]
    assert not [t for t in before if t.startswith("200 clients: ")]
    assert tapped, f"a tap wrote no value; texts: {after}"
    assert re.fullmatch(r"200 clients: \d+(\.\d+)?", tapped[0]), tapped
    assert visit.outside == []


@pytest.mark.browser
def test_slider_labels_are_readable_in_dark_mode(browser, site_url):
    """In the theme's dark mode every slider's name and value keep a contrast of at least
    4.5:1 with what is behind them."""
    context, page, visit = _open_explorer(browser, site_url, dark=True, **DESKTOP)
    try:
        theme = page.evaluate("() => document.documentElement.dataset.theme")
        chart = page.locator(EXPLORER)
        labels = chart.locator(".vega-bind-name, .vega-bind input[type='range'] + span")
        contrasts = labels.evaluate_all(_CONTRAST_JS)
        chart.scroll_into_view_if_needed()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "notebooks__what-if__dark.png"))
    finally:
        context.close()
    assert theme == "dark"
    assert len(contrasts) == 12  # six names, six values
    low = [c for c in contrasts if c["ratio"] < MIN_CONTRAST]
    assert low == [], f"text below {MIN_CONTRAST}:1 in dark mode: {low}"
    assert visit.outside == []


@pytest.mark.browser
@pytest.mark.parametrize("screen", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_explorer_is_at_the_top_of_its_page(browser, site_url, screen):
    """A workshop opens the page and finds the explorer: its sliders begin on the first
    screen, before the model and the grid are explained."""
    context, page, visit = _open_explorer(browser, site_url, touch=screen is PHONE, **screen)
    try:
        top = page.evaluate("sel => document.querySelector(sel).getBoundingClientRect().top"
                            " + window.scrollY", EXPLORER)
    finally:
        context.close()
    assert top < screen["height"] * 0.8, (
        f"the explorer starts {top:.0f} px down a {screen['height']} px screen")


# --- the workshop on a phone: exercise buttons, slider targets, dark charts, solution titles -----

# WCAG 2.2 (2.5.8, target size, minimum): a target at least 24 by 24 CSS pixels.
MIN_TARGET_PX = 24


def _slider_values(chart) -> dict[str, float]:
    return dict(chart.locator("input[type='range']").evaluate_all(
        "els => els.map(e => [e.name, Number(e.value)])"))


@pytest.mark.browser
def test_each_exercise_has_a_button_that_sets_the_explorer(browser, site_url):
    """On a phone the explorer is many screens above the exercises: each exercise's button
    sets every slider to the exercise's starting values, redraws the panels and brings the
    explorer back into view."""
    context, page, visit = _open_explorer(browser, site_url, touch=True, **PHONE)
    try:
        chart = page.locator(EXPLORER)
        exercises = page.locator("div.exercise").count()
        buttons = page.locator("div.exercise button[data-explorer]")
        presses = []
        for i in range(buttons.count()):
            button = buttons.nth(i)
            wanted = {name: float(value) for name, value in
                      (pair.split("=") for pair in button.get_attribute("data-explorer").split())}
            button.scroll_into_view_if_needed()
            before = _lines(chart)
            box = button.bounding_box()
            page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            after = _settle(page, chart, before)
            top = page.evaluate("sel => document.querySelector(sel).getBoundingClientRect().top",
                                EXPLORER)
            presses.append((wanted, _slider_values(chart), before != after, top, box["height"]))
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "notebooks__what-if__phone-exercise-button.png"))
    finally:
        context.close()
    assert exercises >= 4 and len(presses) == exercises, (
        f"{len(presses)} exercise buttons for {exercises} exercises")
    for wanted, shown, _, top, height in presses:
        assert {k: shown[k] for k in wanted} == wanted
        assert 0 <= top < PHONE["height"] / 2, f"the explorer is at {top:.0f} px after a press"
        assert height >= MIN_TARGET_PX
    # Consecutive exercises start from different settings: the panels move at every press.
    assert all(moved for _, _, moved, _, _ in presses)
    assert visit.outside == [] and unexpected(visit.console_errors) == []


@pytest.mark.browser
def test_sliders_are_touch_targets_at_least_24_px_tall(browser, site_url):
    context, page, visit = _open_explorer(browser, site_url, touch=True, **PHONE)
    try:
        heights = page.locator(EXPLORER).locator("input[type='range']").evaluate_all(
            "els => els.map(e => [e.name, e.getBoundingClientRect().height])")
    finally:
        context.close()
    assert len(heights) == 6
    short = [(name, h) for name, h in heights if h < MIN_TARGET_PX]
    assert short == [], f"sliders under {MIN_TARGET_PX} px tall: {short}"


_BACKGROUND_JS = """el => {
  const rgb = c => (c.match(/[\\d.]+/g) || [255, 255, 255]).slice(0, 3).map(Number);
  const lum = c => c.map(v => { v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const svg = el.querySelector('svg.marks');  // Vega paints the background on the svg itself
  const fill = getComputedStyle(svg).backgroundColor;
  const text = svg.querySelector('g.role-axis-label text, g.role-title-text text');
  return {fill: fill, background: lum(rgb(fill)),
          text: text ? lum(rgb(getComputedStyle(text).fill)) : null};
}"""


def _chart_colours(page) -> list[dict]:
    charts = page.locator("div[id^='altair-viz-']")
    return [charts.nth(i).evaluate(_BACKGROUND_JS) for i in range(charts.count())]


@pytest.mark.browser
@pytest.mark.parametrize(("page_path", "chosen_by"), [
    (PAGE, "reader"), ("notebooks/thread-pool-model.html", "reader"), (PAGE, "system")])
def test_charts_follow_dark_mode(browser, site_url, page_path, chosen_by):
    """In the theme's dark mode, chosen by the reader (the theme switch, stored) or by the
    system (prefers-color-scheme, the theme's default "auto"), every chart is drawn on a dark
    background with light text; switched to light, it is drawn again light."""
    url = f"{site_url}/{page_path}"
    by_reader = chosen_by == "reader"
    context, page, visit = open_page(browser, url, site_url, dark=by_reader, **DESKTOP)
    try:
        if not by_reader:
            page.emulate_media(color_scheme="dark")
        page.goto(url, wait_until="load")
        assert wait_for_charts(page) >= 1
        page.wait_for_timeout(500)
        theme = page.evaluate("() => document.documentElement.dataset.theme")
        dark = _chart_colours(page)
        first = page.locator("div[id^='altair-viz-']").first
        first.scroll_into_view_if_needed()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        name = page_path.replace("/", "__").removesuffix(".html")
        page.screenshot(path=str(SCREENSHOTS / f"{name}__dark-chart-{chosen_by}.png"))
        page.evaluate("() => { document.documentElement.dataset.theme = 'light'; }")
        page.wait_for_timeout(1500)
        light = _chart_colours(page)
    finally:
        context.close()
    assert theme == "dark"
    assert dark and all(c["background"] < 0.05 for c in dark), dark
    assert all(c["text"] is None or c["text"] > 0.4 for c in dark), dark
    assert all(c["background"] > 0.9 for c in light), light
    assert visit.outside == [] and unexpected(visit.console_errors) == []


@pytest.mark.browser
def test_a_tap_on_a_solution_title_opens_the_solution(browser, site_url):
    """A folded solution's title holds a link to its exercise ("Solution to Exercise 1"): a
    tap on that link opens the solution, where it is, instead of jumping to the exercise."""
    context, page, visit = _open_explorer(browser, site_url, touch=True, **PHONE)
    try:
        solution = page.locator("div.solution.dropdown").first
        link = solution.locator(".admonition-title a").first
        link.scroll_into_view_if_needed()
        hidden_before = solution.evaluate("el => el.classList.contains('toggle-hidden')")
        url_before = page.url
        box = link.bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_timeout(600)
        hidden_after = solution.evaluate("el => el.classList.contains('toggle-hidden')")
        title_top = solution.evaluate("el => el.getBoundingClientRect().top")
        page.screenshot(path=str(SCREENSHOTS / "notebooks__what-if__phone-solution-open.png"))
    finally:
        context.close()
    assert hidden_before and not hidden_after, "the tap did not open the solution"
    assert page.url == url_before, f"the tap jumped to {page.url}"
    assert 0 <= title_top < PHONE["height"], "the page scrolled away from the solution"
    assert visit.outside == []


@pytest.mark.browser
@pytest.mark.parametrize(("screen", "dark"), [(DESKTOP, False), (PHONE, False), (PHONE, True)],
                         ids=["1366", "390", "390-dark"])
def test_screenshots_of_the_workshop_page(browser, site_url, screen, dark):
    """Whole-page screenshots to look at (1366 px, 390 px, 390 px dark)."""
    context, page, visit = _open_explorer(browser, site_url, touch=screen is PHONE,
                                          dark=dark, **screen)
    try:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        tag = f"{screen['width']}{'-dark' if dark else ''}"
        page.screenshot(path=str(SCREENSHOTS / f"notebooks__what-if__page-{tag}.png"),
                        full_page=True)
        width = page.evaluate("() => document.documentElement.scrollWidth")
    finally:
        context.close()
    assert width <= screen["width"]
    assert visit.outside == []


@pytest.mark.browser
def test_a_theme_switch_keeps_the_sliders_where_they_were(browser, site_url):
    """Switching the theme draws the explorer again, in the new colours, with every slider
    where the reader left it."""
    context, page, visit = _open_explorer(browser, site_url, **DESKTOP)
    try:
        chart = page.locator(EXPLORER)
        _move(chart, "threads", 5)
        _move(chart, "load", 300)
        page.wait_for_timeout(300)
        moved = _slider_values(chart)
        texts = _texts(chart)
        page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; }")
        page.wait_for_timeout(1500)
        after = _slider_values(page.locator(EXPLORER))
        texts_after = _texts(page.locator(EXPLORER))
        background = page.locator(EXPLORER).evaluate(_BACKGROUND_JS)["background"]
    finally:
        context.close()
    assert moved["threads"] == 5 and moved["load"] == 300
    assert after == moved
    assert "Your pool: 5" in texts_after and "At 300 clients:" in texts_after
    assert sorted(texts_after) == sorted(texts)
    assert background < 0.05
    assert visit.outside == [] and unexpected(visit.console_errors) == []
