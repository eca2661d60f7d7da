"""The *Size your server* page's fleet fields: the same answers as the package's fleet sizing.

With the database's time per request (``db_ms``) and any of its processors, the instances,
its ``max_connections`` and a contention coefficient, the page sizes a fleet with
``book/_static/calculator/fleet.js``, a port of :func:`queuetune.fleet_sizing.size_fleet`
and of the approximation it evaluates (``queuetune.models.fleet``'s ``method="fes"``). This
test types random inputs into the form, as a reader does, and compares every output of the
fleet (and every row of its table of pools, and its warnings) with ``size_fleet`` run here on
the same inputs, to 1e-6 relative: both solve the same fixed points to 1e-12 relative and sum
the same terms in another order, so they differ at rounding level times the chains' condition
(far below 1e-6; a value moved past it is refused by ``test_a_value_off_by_more_than_the_bound
_is_refused``). Then: the page never recommends more connections in total than the database
allows, refuses a limit smaller than the instances, names a bad fleet field and its range, and
works from ``file://``.
"""

from __future__ import annotations

import math
import random

import pytest
from site_pages import SCREENSHOTS, open_page, unexpected
from site_pages import served as site

from queuetune.fleet_sizing import size_fleet

PAGE = "book/size-your-server.html"
SEED = 20261202
CASES_HTTP = 30
CASES_FILE = 5
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
#: Every field of the form, empty unless a case gives it.
FIELDS = ("processors", "cpu_ms", "wait_ms", "rate", "clients", "think_s", "connections",
          "max_response_ms", "headroom", "read_timeout_s", "p99_objective_ms", "threads",
          "capacity", "db_ms", "db_processors", "instances", "db_max_connections",
          "db_contention")
#: The fleet's outputs: data-out name on the page -> (key of FleetSizing, scale).
OUTPUTS = {"instances": ("instances", 1), "fleet_connections": ("connections", 1),
           "total_connections": ("total_connections", 1),
           "connection_limit": ("connection_limit", 1), "fleet_threads": ("threads", 1),
           "fleet_capacity": ("capacity", 1), "fleet_headroom": ("headroom", 1),
           "fleet_response_ms": ("response_time", 1000),
           "fleet_connection_wait_ms": ("connection_wait", 1000),
           "fleet_database_ms": ("database_time", 1000),
           "database_utilization": ("database_utilization", 1),
           "fleet_utilization": ("utilization", 1), "fleet_throughput": ("throughput", 1),
           "fleet_refused": ("refused", 1),
           "fleet_saturation_multiple": ("saturation_multiple", 1),
           "limiting_resource": ("limiting_resource", None)}
#: The columns of the table of pools, in order: key of a row of FleetSizing.pools, scale.
POOL_COLUMNS = (("connections", 1), ("total_connections", 1), ("response_time", 1000),
                ("connection_wait", 1000), ("database_time", 1000),
                ("database_utilization", 1), ("ceiling", 1))

RUN_CASES = """cases => cases.map(fields => {
  const form = document.getElementById('qt-calculator');
  for (const [name, value] of Object.entries(fields)) form.elements[name].value = value;
  form.elements.processors.dispatchEvent(new Event('input', {bubbles: true}));
  window.QueuetuneCalculator.update();  // a fleet answers after a pause of typing: now
  const out = {};
  for (const el of form.querySelectorAll('[data-out]')) {
    out[el.dataset.out] = el.hasAttribute('data-value') ? el.getAttribute('data-value') : null;
  }
  const pools = [...form.querySelectorAll('[data-pools] tr')].map(tr => ({
    within: tr.dataset.withinLimit,
    cells: [...tr.querySelectorAll('td')].map(td => td.getAttribute('data-value'))}));
  const warnings = [...form.querySelectorAll('[data-warnings] li')].map(li => li.textContent);
  const hikari = form.querySelector("[data-snippet='hikari']").textContent;
  const error = form.querySelector('[data-error]');
  return {out, pools, warnings, hikari, error: error.hidden ? null : error.textContent,
          answered: !form.querySelector('[data-answer]').hidden};
})"""


def random_fleet_cases(n: int, seed: int) -> list[dict[str, str]]:
    """Form fields (strings, as typed) over the fleet's domain: open loads and closed ones
    (at most 4 instances, whose closed product form the page computes in a second), with or
    without the database's processors, the instances, its limit, contention, a headroom, a
    read timeout or a longest response."""
    rng = random.Random(seed)

    def logu(low, high):
        return math.exp(rng.uniform(math.log(low), math.log(high)))

    cases = []
    for _ in range(n):
        fields = dict.fromkeys(FIELDS, "")
        p = max(1, round(logu(1, 32)))
        cpu = float(f"{logu(0.5, 200):.4g}")
        wait = 0.0 if rng.random() < 0.1 else float(f"{logu(1, 500):.4g}")
        db = float(f"{logu(0.5, 50):.4g}")
        fields.update(processors=str(p), cpu_ms=f"{cpu:g}", wait_ms=f"{wait:g}",
                      db_ms=f"{db:g}")
        closed = rng.random() < 0.25
        pdb = None if rng.random() < 0.2 else max(1, round(logu(1, 64)))
        N = (max(1, round(logu(1, 4))) if closed
             else None if rng.random() < 0.3 else max(1, round(logu(1, 16))))
        if pdb is not None:
            fields["db_processors"] = str(pdb)
        if N is not None:
            fields["instances"] = str(N)
        if rng.random() < 0.6:
            fields["db_max_connections"] = str(round(logu(20, 1000)))
        if rng.random() < 0.3:
            fields["db_contention"] = f"{logu(0.001, 0.2):.3g}"
        carried = (N or 4) * p / (cpu / 1000)
        if pdb is not None:
            carried = min(carried, pdb / (db / 1000))
        if closed:
            think = rng.uniform(0.5, 10)
            fields["clients"] = str(max(1, min(400, round(carried * rng.uniform(0.1, 1.1)
                                                          * think))))
            fields["think_s"] = f"{think:.4g}"
        else:
            fields["rate"] = f"{carried * rng.uniform(0.1, 1.1):.6g}"
        if rng.random() < 0.3:
            fields["headroom"] = f"{rng.uniform(1, 3):.3g}"
        if rng.random() < 0.7:
            fields["read_timeout_s"] = f"{logu(0.5, 10):.4g}"
        elif rng.random() < 0.3:
            fields["max_response_ms"] = f"{logu(50, 5000):.5g}"
        cases.append(fields)
    return cases


def fleet_kwargs(fields: dict[str, str]) -> dict:
    kw = {"processors": int(fields["processors"]), "cpu_time": float(fields["cpu_ms"]) / 1000,
          "wait_time": float(fields["wait_ms"]) / 1000,
          "db_time": float(fields["db_ms"]) / 1000}
    if fields["rate"]:
        kw["arrival_rate"] = float(fields["rate"])
    else:
        kw["clients"] = int(fields["clients"])
        kw["think_time"] = float(fields["think_s"])
    for name, key, kind in (("db_processors", "db_processors", int),
                            ("instances", "instances", int),
                            ("db_max_connections", "db_max_connections", int),
                            ("db_contention", "db_contention", float),
                            ("headroom", "headroom", float),
                            ("read_timeout_s", "read_timeout", float)):
        if fields.get(name):
            kw[key] = kind(fields[name])
    if fields.get("max_response_ms"):
        kw["max_response_time"] = float(fields["max_response_ms"]) / 1000
    return kw


#: The bound of the comparison (see the module's docstring).
RTOL = 1e-6


def same(page_value: str | None, want) -> bool:
    if isinstance(want, str):
        return page_value == want
    if page_value in ("", None):
        return False
    got = float(page_value)
    if math.isinf(want) or math.isnan(want):
        return str(got) == str(want)
    return abs(got - want) <= RTOL * max(abs(want), abs(got), 1e-300)


def differences(fields: dict[str, str], got: dict) -> list:
    """Every output of the page that differs from size_fleet's, as (field, page, package)."""
    want = size_fleet(**fleet_kwargs(fields))
    wrong = []
    for name, (key, scale) in OUTPUTS.items():
        value = getattr(want, key)
        value = value if scale is None else value * scale
        if not same(got["out"].get(name), value):
            wrong.append((name, got["out"].get(name), value))
    for name, value in (("single_connections", want.single_server["connections"]),
                        ("single_total_connections",
                         want.single_server["total_connections"])):
        if not same(got["out"].get(name), value):
            wrong.append((name, got["out"].get(name), value))
    if len(got["pools"]) != len(want.pools):
        wrong.append(("pools", len(got["pools"]), len(want.pools)))
    for row, row_want in zip(got["pools"], want.pools, strict=False):
        if row["within"] != str(row_want["within_limit"]).lower():
            wrong.append(("within_limit", row["within"], row_want["within_limit"]))
        for cell, (key, scale) in zip(row["cells"], POOL_COLUMNS, strict=True):
            if not same(cell, row_want[key] * scale):
                wrong.append((f"pools[{row_want['connections']}].{key}", cell,
                              row_want[key] * scale))
    if got["warnings"] != want.warnings:
        wrong.append(("warnings", got["warnings"], want.warnings))
    if f"maximumPoolSize={want.connections}" not in got["hikari"]:
        wrong.append(("hikari", got["hikari"], want.connections))
    return wrong


def _open(browser, site_url, how="http", **screen):
    url, origin = site(PAGE, how, site_url)
    context, page, visit = open_page(browser, url, origin, **screen)
    page.goto(url)
    page.wait_for_function("() => window.QueuetuneCalculator && "
                           "window.QueuetuneCalculator.updates > 0")
    return context, page, visit


@pytest.mark.browser
@pytest.mark.parametrize("served", ["http", "file"])
def test_the_fleet_fields_answer_as_the_package_does(browser, site_url, served):
    cases = random_fleet_cases(CASES_HTTP if served == "http" else CASES_FILE, SEED)
    context, page, visit = _open(browser, site_url, served, **DESKTOP)
    try:
        page.set_default_timeout(600_000)
        answers = [page.evaluate(RUN_CASES, [fields])[0] for fields in cases]
    finally:
        context.close()
    wrong, refused = [], 0
    for fields, got in zip(cases, answers, strict=True):
        try:
            want_error = None
            wrong_here = differences(fields, got) if got["error"] is None else None
        except ValueError as error:
            want_error = str(error)
        if want_error is not None or got["error"] is not None:
            refused += 1  # both must refuse, with the package's reason
            if want_error is None or got["error"] is None or want_error not in got["error"]:
                wrong.append((fields, "error", got["error"], want_error))
            continue
        assert got["answered"]
        wrong += [(fields, *w) for w in wrong_here]
    assert wrong == [], f"{len(wrong)} outputs differ from the package: {wrong[:5]}"
    assert refused <= len(cases) // 10  # the domain is mostly answerable
    assert visit.outside == []
    assert unexpected(visit.console_errors) == []


def test_a_value_off_by_more_than_the_bound_is_refused():
    assert same("1.0000011", 1.0) is False and same("1.0000009", 1.0) is True


#: The engineer of issue 30: 300 requests/s, 40 ms of processor time, 200 ms holding a
#: connection of which 10 ms at the database's processors; 3 instances of 8 processors, a
#: PostgreSQL of 4 processors with the default max_connections of 100.
ENGINEER = {"processors": "8", "cpu_ms": "40", "wait_ms": "190", "rate": "300",
            "db_ms": "10", "db_processors": "4", "instances": "3"}


@pytest.mark.browser
def test_the_engineers_fleet_and_never_more_connections_than_the_limit(browser, site_url):
    tight = {**ENGINEER, "db_max_connections": "40"}
    too_many = {**ENGINEER, "instances": "", "processors": "1", "rate": "300",
                "db_max_connections": "20"}
    cases = [{**dict.fromkeys(FIELDS, ""), **c} for c in (ENGINEER, tight, too_many)]
    context, page, visit = _open(browser, site_url, **DESKTOP)
    try:
        page.set_default_timeout(300_000)
        engineer, cut, refused = page.evaluate(RUN_CASES, cases)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.evaluate(RUN_CASES, [cases[0]])
        page.screenshot(path=str(SCREENSHOTS / "book__size-your-server__fleet.png"),
                        full_page=True)
    finally:
        context.close()
    assert differences(cases[0], engineer) == []
    # the single-server pool, 34 per instance, would be 102 connections: more than the 97
    assert int(engineer["out"]["total_connections"]) <= 97 < int(
        engineer["out"]["single_total_connections"])
    assert differences(cases[1], cut) == []
    total, limit = int(cut["out"]["total_connections"]), int(cut["out"]["connection_limit"])
    assert total <= limit == 37
    assert cut["out"]["limiting_resource"] == "connection limit"
    over = [row for row in cut["pools"] if row["within"] == "false"]
    assert over and all(int(row["cells"][1]) > limit for row in over)
    # 1-processor instances need more than 17 of them for 450 requests/s of 40 ms: the
    # database's 17 connections cannot give each one, and the page refuses to answer
    assert not refused["answered"] and "db_max_connections must leave at least one " \
        "connection per instance" in refused["error"], refused["error"]
    assert all(v is None for v in refused["out"].values())
    assert unexpected(visit.console_errors) == []


@pytest.mark.browser
@pytest.mark.parametrize(("fields", "names", "range_text"), [
    ({"db_ms": "0"}, "Database processor time per request (db_ms)", "from 0.001 to 1,000,000"),
    ({"db_ms": "10", "instances": "2.5"}, "Instances (instances)", "from 1 to 4,096"),
    ({"db_ms": "10", "db_processors": "0"}, "Database processors (db_processors)",
     "from 1 to 4,096"),
    ({"db_ms": "10", "db_max_connections": "3"},
     "Database max_connections (db_max_connections)", "from 4 to 100,000"),
    ({"db_ms": "10", "db_contention": "11"}, "Database contention (db_contention)",
     "from 0 to 10"),
    ({"instances": "3"}, "(db_ms)", "to size a fleet"),
    ({"db_ms": "10", "connections": "20"}, "Connection pool (connections)",
     "not taken with a fleet"),
])
def test_a_bad_fleet_field_is_named_with_its_range(browser, site_url, fields, names,
                                                    range_text):
    context, page, visit = _open(browser, site_url, **DESKTOP)
    try:
        got = page.evaluate(RUN_CASES, [fields])[0]
    finally:
        context.close()
    assert names in (got["error"] or "") and range_text in got["error"], got["error"]
    assert not got["answered"]
    assert unexpected(visit.console_errors) == []


TYPE_ENGINEER = """fields => {
  const form = document.getElementById('qt-calculator');
  for (const [name, value] of Object.entries(fields)) {
    form.elements[name].value = value;
    form.elements[name].dispatchEvent(new Event('input', {bubbles: true}));
  }
  return {busy: form.getAttribute('aria-busy'), updates: window.QueuetuneCalculator.updates};
}"""


@pytest.mark.browser
def test_typing_in_a_fleet_answers_after_a_pause_and_a_single_server_at_once(browser,
                                                                          site_url):
    """A fleet's sizing takes the page a second or more: keystrokes in a fleet wait for a
    pause (the form says it is busy) and then give one answer; without a fleet field each
    keystroke answers at once."""
    context, page, visit = _open(browser, site_url, **DESKTOP)
    try:
        page.set_default_timeout(120_000)
        single = page.evaluate(TYPE_ENGINEER, {"processors": "12"})
        # the database's time first: every keystroke after it is one in a fleet
        fields = {"db_ms": ENGINEER["db_ms"], **dict.fromkeys(FIELDS, ""), **ENGINEER}
        typed = page.evaluate(TYPE_ENGINEER, fields)
        page.wait_for_function(f"() => window.QueuetuneCalculator.updates > {typed['updates']}"
                               " && !document.getElementById('qt-calculator')"
                               ".hasAttribute('aria-busy')")
        after = page.evaluate("() => [window.QueuetuneCalculator.updates, "
                              "document.querySelector(\"[data-out='instances']\")"
                              ".getAttribute('data-value')]")
    finally:
        context.close()
    assert single["busy"] is None  # answered at the keystroke
    assert typed["busy"] == "true" and typed["updates"] == single["updates"]
    assert after == [typed["updates"] + 1, "3"]  # one answer for the whole burst
    assert unexpected(visit.console_errors) == []
