"""The *Size your server* page: the same answers as the package, at once, on a phone, offline.

The page computes in JavaScript (``book/_static/calculator/sizing.js``); this test types random
inputs into its form the way a reader does (set the value, dispatch ``input``) and compares
every output with :func:`queuetune.sizing.size` run here on the same inputs, to 1e-6 relative.
Then the requirements of the page: it fits a 390-px phone, shows
a message naming the field and its range for bad input and then no answer, follows dark mode,
and works from ``file://`` with every other host blocked. Its time to answer a change (under
100 ms with the processor throttled fourfold) is a benchmark, ``scripts/benchmark_calculator.py``
(``make benchmark``): no test here times anything.
"""

from __future__ import annotations

import math
import random

import pytest
from site_pages import SCREENSHOTS, SITE, open_page, unexpected
from site_pages import served as site

from queuetune import sizing

PAGE = "book/size-your-server.html"
CASES = 200
SEED = 20261127
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}

# Sets the form's fields (by name) for each case, dispatches one input event per case, and
# reads every output's exact value (data-value) and the error message.
RUN_CASES = """cases => cases.map(fields => {
  const form = document.getElementById('qt-calculator');
  for (const [name, value] of Object.entries(fields)) form.elements[name].value = value;
  form.elements.processors.dispatchEvent(new Event('input', {bubbles: true}));
  const out = {};
  for (const el of form.querySelectorAll('[data-out]')) {
    out[el.dataset.out] = el.hasAttribute('data-value') ? el.getAttribute('data-value') : null;
  }
  const error = form.querySelector('[data-error]');
  return {out, error: error.hidden ? null : error.textContent,
          answered: !form.querySelector('[data-answer]').hidden};
})"""


def random_cases(n: int, seed: int) -> list[dict[str, str]]:
    """Form fields (strings, as typed) spread over the documented domain, open and closed,
    with or without a headroom, a read timeout, a p99 objective and the user's own settings."""
    rng = random.Random(seed)

    def logu(low, high):
        return math.exp(rng.uniform(math.log(low), math.log(high)))

    cases = []
    for _ in range(n):
        p = max(1, round(logu(1, 256)))
        cpu = float(f"{logu(0.5, 200):.4g}")
        wait = 0.0 if rng.random() < 0.15 else float(f"{logu(1, 2000):.4g}")
        fields = {"processors": str(p), "cpu_ms": f"{cpu:g}", "wait_ms": f"{wait:g}",
                  "rate": "", "clients": "", "think_s": "", "connections": "",
                  "max_response_ms": "", "headroom": "", "read_timeout_s": "",
                  "p99_objective_ms": "", "threads": "", "capacity": ""}
        if rng.random() < 0.7:
            fields["rate"] = f"{p / (cpu / 1000) * rng.uniform(0.2, 1.3):.6g}"
        else:
            fields["clients"] = str(max(1, round(logu(1, 5000))))
            fields["think_s"] = "0" if rng.random() < 0.05 else f"{rng.uniform(0, 10):.4g}"
        if rng.random() < 0.4:
            fields["connections"] = str(max(1, round(logu(1, 500))))
        if rng.random() < 0.3:
            fields["max_response_ms"] = f"{logu(50, 10000):.5g}"
        if rng.random() < 0.3:
            fields["headroom"] = f"{rng.uniform(1, 3):.3g}"
        if rng.random() < 0.3:
            fields["read_timeout_s"] = f"{logu(0.5, 120):.4g}"
        if rng.random() < 0.2:
            fields["p99_objective_ms"] = f"{logu(10, 10000):.4g}"
        if rng.random() < 0.3:
            threads = max(1, round(logu(1, 500)))
            fields["threads"] = str(threads)
            if rng.random() < 0.5:
                fields["capacity"] = str(threads + round(logu(1, 2000)) - 1)
        cases.append(fields)
    return cases


#: The columns of the load tables (r.loads: 1, 1.1, 1.5 and 2 times the peak).
COLUMNS = ("", "x1_1_", "x1_5_", "double_")


def load_outputs(prefix: str, loads: list[dict]) -> dict:
    out = {}
    for column, row in zip(COLUMNS, loads, strict=True):
        key = prefix + column
        out[key + "load"] = row["arrival_rate"] if row["arrival_rate"] is not None \
            else row["clients"]
        for name in ("utilization", "throughput", "refused"):
            out[key + name] = row[name]
        out[key + "response_ms"] = row["response_time"] * 1000
        for q in ("p95", "p99"):  # the fast percentiles, held to 1e-6 like the rest
            value = row[f"response_time_{q}"]  # None: not resolved, "—" on the page
            out[f"{key}{q}_ms"] = None if value is None else value * 1000
    return out


def python_answer(fields: dict[str, str]) -> dict[str, float | str | None]:
    """The package's answer for the same fields, under the page's output names."""
    kw = {"processors": int(fields["processors"]), "cpu_time": float(fields["cpu_ms"]) / 1000,
          "wait_time": float(fields["wait_ms"]) / 1000}
    if fields["rate"]:
        kw["arrival_rate"] = float(fields["rate"])
    else:
        kw["clients"] = int(fields["clients"])
        kw["think_time"] = float(fields["think_s"])
    for name, key, scale in (("connections", "connections", None),
                             ("threads", "threads", None), ("capacity", "capacity", None),
                             ("headroom", "headroom", 1.0),
                             ("max_response_ms", "max_response_time", 1000.0),
                             ("read_timeout_s", "read_timeout", 1.0),
                             ("p99_objective_ms", "p99_objective", 1000.0)):
        if fields.get(name):
            kw[key] = int(fields[name]) if scale is None else float(fields[name]) / scale
    s = sizing.size(**kw)
    out = {key: getattr(s, key) for key in ("processors_needed", "threads", "connections",
                                            "capacity", "headroom", "saturation_multiple",
                                            "saturation_resource", "max_response_origin")}
    out["max_response_ms"] = s.max_response_time * 1000
    out.update(load_outputs("", s.loads))
    if s.yours is not None:
        for key in ("threads", "connections", "capacity", "saturation_multiple",
                    "saturation_resource"):
            out["yours_" + key] = s.yours[key]
        out.update(load_outputs("yours_", s.yours["loads"]))
    return out


def same(page_value: str | None, want: float | str | None) -> bool:
    if isinstance(want, str):
        return page_value == want
    if want is None:
        return page_value in ("", None)
    if page_value in ("", None):
        return False
    got = float(page_value)
    if math.isinf(want):
        return math.isinf(got)
    return abs(got - want) <= 1e-6 * max(abs(want), abs(got), 1e-300)


def _open(browser, site_url, how="http", **screen):
    url, origin = site(PAGE, how, site_url)
    context, page, visit = open_page(browser, url, origin, **screen)
    page.goto(url)
    page.wait_for_function("() => window.QueuetuneCalculator && "
                           "window.QueuetuneCalculator.updates > 0")
    return context, page, visit


@pytest.mark.browser
@pytest.mark.parametrize("served", ["http", "file"])
def test_the_page_answers_as_the_package_does(browser, site_url, served):
    cases = random_cases(CASES if served == "http" else 20, SEED)
    context, page, visit = _open(browser, site_url, served, **DESKTOP)
    try:
        answers = page.evaluate(RUN_CASES, cases)
    finally:
        context.close()
    assert len(answers) == len(cases)
    wrong = []
    for fields, got in zip(cases, answers, strict=True):
        assert got["error"] is None and got["answered"], (fields, got["error"])
        want = python_answer(fields)
        for key, value in want.items():
            if not same(got["out"][key], value):
                wrong.append((fields, key, got["out"][key], value))
    assert wrong == [], f"{len(wrong)} outputs differ from the package: {wrong[:5]}"
    assert visit.outside == []
    assert unexpected(visit.console_errors) == []


@pytest.mark.browser
@pytest.mark.parametrize(("fields", "names", "range_text"), [
    ({"processors": "0"}, "Processors (processors)", "a whole number from 1 to 4,096"),
    ({"processors": "2.5"}, "Processors (processors)", "a whole number from 1 to 4,096"),
    ({"cpu_ms": ""}, "Processor time per request (cpu_ms)", "from 0.001 to 1,000,000 ms"),
    ({"wait_ms": "-3"}, "Wait per request (wait_ms)", "to 1,000,000 ms, or 0"),
    ({"rate": "2e7"}, "Peak arrival rate (rate)", "more than 0 to 10,000,000 requests/s"),
    ({"connections": "0"}, "Connection pool (connections)", "from 1 to 100,000"),
    ({"rate": "", "clients": "100"}, "think time (think_s)", "0 to 100,000 s"),
    ({"clients": "100", "think_s": "1"}, "(rate)", "not both"),
])
def test_a_bad_input_names_its_field_and_range_and_gets_no_answer(browser, site_url, fields,
                                                                   names, range_text):
    context, page, visit = _open(browser, site_url, **DESKTOP)
    try:
        before = page.evaluate(RUN_CASES, [{}])[0]
        got = page.evaluate(RUN_CASES, [fields])[0]
        invalid = page.evaluate("() => [...document.querySelectorAll('[aria-invalid=true]')]"
                                ".map(e => e.name)")
        visible = page.locator("[data-error]").is_visible()
    finally:
        context.close()
    assert before["answered"] and before["out"]["threads"]
    assert visible and names in got["error"] and range_text in got["error"], got["error"]
    assert not got["answered"]
    assert all(v is None for v in got["out"].values()), got["out"]
    assert invalid
    assert unexpected(visit.console_errors) == []


@pytest.mark.browser
@pytest.mark.parametrize(("screen", "dark", "name"), [
    (DESKTOP, False, "desktop"), (PHONE, False, "phone"), (DESKTOP, True, "dark")])
def test_the_page_fits_the_screen_and_follows_the_theme(browser, site_url, screen, dark, name):
    context, page, visit = _open(browser, site_url, dark=dark, touch=screen is PHONE, **screen)
    try:
        width = page.evaluate("() => document.documentElement.scrollWidth")
        boxes = page.evaluate("""() => [...document.querySelectorAll(
            '#qt-calculator input, #qt-calculator table, #qt-calculator svg')].map(e => {
              const b = e.getBoundingClientRect(); return [b.left, b.right]; })""")
        colors = page.evaluate("""() => {
            const cell = document.querySelector('[data-out=threads]');
            const text = getComputedStyle(cell).color;
            const input = getComputedStyle(document.querySelector('#qt-calculator input'));
            return {theme: document.documentElement.dataset.theme, text,
                    input: input.backgroundColor}; }""")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"book__size-your-server__{name}.png"),
                        full_page=True)
    finally:
        context.close()
    assert width <= screen["width"], f"the page is {width} px wide on a {screen['width']} screen"
    assert all(0 <= left and right <= screen["width"] + 0.5 for left, right in boxes), boxes
    if dark:
        assert colors["theme"] == "dark"
        # light text on a dark field: the form follows the theme's colours
        assert _luminance(colors["text"]) > 0.4 and _luminance(colors["input"]) < 0.2, colors
    assert visit.outside == []
    assert unexpected(visit.console_errors) == []


def _luminance(css: str) -> float:
    r, g, b = (int(v) / 255 for v in css[css.index("(") + 1: css.index(")")].split(",")[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_the_page_is_in_the_built_site():
    assert (SITE / PAGE).is_file(), f"{PAGE} is not in the built site: run `make book`"
