"""The calculator's percentiles past saturation: the page's JavaScript against the package.

Past saturation with a large admission bound B nearly every admitted request waits about
``B / X_in(T)`` for a thread, a wait too narrow for the Euler inversion, which the fast method
evaluates in the time domain (``queuetune.models.passage``: chunks of levels as shifted
gammas). These rows once showed "—" on the page. Here random sizings past saturation with
long read timeouts (B from about 1 to 3,600 s of the ceiling's throughput, up to 10^10 with
the user's own B) are typed into the page, and every p95 and p99 of every row (1, 1.1, 1.5 and
2 times the peak, recommended settings and the user's) is held to the package's to 1e-6
relative, as the other outputs are in ``test_calculator.py``; none may be missing.
"""

from __future__ import annotations

import importlib.util
import math
import random
from pathlib import Path

import pytest
from site_pages import unexpected


def _calculator_tests():
    """test_calculator.py's page helpers (how it opens the page, types the cases and reads
    the outputs, the package's answer under the page's names), loaded from its file: the
    site tests are not a package. That file is extended in parallel; this one only reads it."""
    spec = importlib.util.spec_from_file_location(
        "calculator_page_helpers", Path(__file__).with_name("test_calculator.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_PAGE = _calculator_tests()
DESKTOP, RUN_CASES, _open = _PAGE.DESKTOP, _PAGE.RUN_CASES, _PAGE._open
python_answer, same = _PAGE.python_answer, _PAGE.same

CASES = 60
SEED = 20261202


def overload_cases(n: int, seed: int) -> list[dict[str, str]]:
    """Form fields past saturation: the peak at 0.8 to 2.5 times what the processors carry
    (the rows at 1.5 and 2 times it further past), a read timeout of 1 to 3,600 s (B from it)
    or none (the default 60 s), and one in three with the user's threads and a bound of up to
    10^10 admitted requests."""
    rng = random.Random(seed)

    def logu(low, high):
        return math.exp(rng.uniform(math.log(low), math.log(high)))

    cases = []
    for _ in range(n):
        p = max(1, round(logu(1, 128)))
        cpu = float(f"{logu(1, 200):.4g}")
        wait = 0.0 if rng.random() < 0.15 else float(f"{logu(1, 1000):.4g}")
        fields = {"processors": str(p), "cpu_ms": f"{cpu:g}", "wait_ms": f"{wait:g}",
                  "rate": "", "clients": "", "think_s": "", "connections": "",
                  "max_response_ms": "", "headroom": "", "read_timeout_s": "",
                  "p99_objective_ms": "", "threads": "", "capacity": ""}
        if rng.random() < 0.8:
            fields["rate"] = f"{p / (cpu / 1000) * rng.uniform(0.8, 2.5):.6g}"
        else:  # closed: many clients with a short think time
            fields["clients"] = str(max(1, round(logu(50, 5000))))
            fields["think_s"] = f"{rng.uniform(0, 0.5):.4g}"
        if rng.random() < 0.7:
            fields["read_timeout_s"] = f"{logu(1, 3600):.4g}"
        if rng.random() < 0.3:
            fields["connections"] = str(max(1, round(logu(1, 200))))
        if rng.random() < 0.35:
            threads = max(1, round(logu(1, 300)))
            fields["threads"] = str(threads)
            fields["capacity"] = str(threads + round(logu(100, 1e10)))
        cases.append(fields)
    return cases


def percentile_keys(want: dict) -> list[str]:
    return [key for key in want if key.endswith(("p95_ms", "p99_ms"))]


def test_the_cases_reach_the_narrow_waits():
    """The sample is what it says: most cases have a row past saturation whose waits the
    Euler inversion alone does not resolve (in the package; no browser needed)."""
    from queuetune import sizing
    from queuetune.models import passage

    narrow, built = 0, []
    make = passage._mixture

    def keep(*args, **kwargs):
        built.append(make(*args, **kwargs))
        return built[-1]

    passage._mixture = keep
    try:
        for fields in overload_cases(CASES, SEED)[:20]:
            built.clear()
            python_answer(fields)
            narrow += any(mix.unresolved() > 1e-4 for mix in built)
    finally:
        passage._mixture = make
    assert narrow >= 10, narrow
    assert sizing.size(processors=18, cpu_time=0.04, wait_time=0.2, arrival_rate=300.0
                       ).double["response_time_p99"] is not None


@pytest.mark.browser
def test_the_page_gives_the_packages_percentiles_past_saturation(browser, site_url):
    cases = overload_cases(CASES, SEED)
    context, page, visit = _open(browser, site_url, "http", **DESKTOP)
    try:
        answers = page.evaluate(RUN_CASES, cases)
    finally:
        context.close()
    wrong, missing = [], []
    for fields, got in zip(cases, answers, strict=True):
        assert got["error"] is None and got["answered"], (fields, got["error"])
        want = python_answer(fields)
        for key in percentile_keys(want):
            if want[key] is None or got["out"][key] in ("", None):
                missing.append((fields, key, got["out"][key], want[key]))
            elif not same(got["out"][key], want[key]):
                wrong.append((fields, key, got["out"][key], want[key]))
    assert missing == [], f"{len(missing)} percentiles missing: {missing[:5]}"
    assert wrong == [], f"{len(wrong)} percentiles differ from the package: {wrong[:5]}"
    assert visit.outside == []
    assert unexpected(visit.console_errors) == []
