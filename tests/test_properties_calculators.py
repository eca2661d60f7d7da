"""The domain property test extended to the calculators of the source documents and the
chapter helpers that take numbers from readers (hypothesis, seeded): for every input a
calculator documents as accepted, a finite result that agrees with an exact (rational)
reference, or a ValueError that names the parameter and what it must be; nothing else.

Counts are drawn up to 2**53 and beyond, times, rates and sizes over [1e-100, 1e100] and just
outside it, percentages to their bounds; the simulations and grids are drawn small, so that the
file runs in seconds.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from property_domain import (
    BAD_COUNTS,
    BAD_TIMES,
    SEEDED,
    call,
    close,
    counts,
    maybe_refused,
    refused_argument,
    times,
    unwrap,
)

from queuetune import explorer
from queuetune._validation import MAX_INTEGER
from queuetune.chapters import text
from queuetune.chapters.thread_pool_model import sweep
from queuetune.documents.domino_curves import rules as curves
from queuetune.documents.domino_keepalive import amortization
from queuetune.documents.domino_threads import rules as threads_rule
from queuetune.documents.iplanet_tuning import scaling, sizing
from queuetune.documents.iplanet_tuning import thread_posting as tp

CALC = settings(SEEDED, max_examples=100)
FEW = settings(CALC, max_examples=25)
F = Fraction

#: Refused as a count of at least 1 (BAD_COUNTS) and beyond any float or C long.
BAD_INTS = BAD_COUNTS + [10**400, 2**63]
#: Refused as a count of at least 0.
BAD_INTS_FROM_ZERO = [-1, 0.5, math.nan, math.inf, MAX_INTEGER + 2, 1e20, 10**400, "3", None,
                      True]
#: Refused as 0 or a magnitude in [1e-100, 1e100].
BAD_AMOUNTS = [-1.0, math.nan, math.inf, -math.inf, 1e-101, 5e-324, 1.0000001e100, 1e308,
               10**400, "1", None, True, [], 1 + 1j]
#: Refused as a magnitude in [1e-100, 1e100] (BAD_TIMES, 0 and numbers beyond any float).
BAD_MAGNITUDES = BAD_TIMES + [0.0, 1e308, 10**400]
BAD_PERCENTS = [-1e-9, 100.0000001, math.nan, math.inf, 10**400, "50", None, True]


def optional(bad_values):
    """The refused values of a parameter whose None means its default."""
    return [v for v in bad_values if v is not None]


def drawn(draw, spec: dict) -> dict:
    """Arguments drawn from ``{name: (valid strategy, refused values)}``, at most one refused."""
    bad = refused_argument(draw, list(spec))
    return {name: maybe_refused(draw, name, valid, refused, bad)
            for name, (valid, refused) in spec.items()}


def amounts():
    """0 or a magnitude in [1e-100, 1e100]."""
    return times(zero=True)


def counts_from_zero():
    return st.one_of(st.just(0), counts())


def percents(low: float = 0.0, high: float = 100.0):
    return st.one_of(st.floats(low, high), st.sampled_from([low, high, 50.0]))


def exact(value) -> Fraction:
    return F(value)


# --------------------------------------------------------------------------- iplanet sizing


@st.composite
def memory_arguments(draw):
    names = ["cpus", "peak_users", "baseline_mb", "per_cpu_mb", "users_included",
             "per_user_kb"]
    bad = refused_argument(draw, names)
    maybe = st.one_of(st.none(), amounts())
    return {
        "cpus": maybe_refused(draw, "cpus", counts(), BAD_INTS, bad),
        "peak_users": maybe_refused(draw, "peak_users", counts_from_zero(), BAD_INTS_FROM_ZERO,
                                    bad),
        "composition": draw(st.sampled_from(sizing.COMPOSITIONS)),
        "baseline_mb": maybe_refused(draw, "baseline_mb", maybe, optional(BAD_AMOUNTS), bad),
        "per_cpu_mb": maybe_refused(draw, "per_cpu_mb", maybe, optional(BAD_AMOUNTS), bad),
        "users_included": maybe_refused(draw, "users_included",
                                        st.one_of(st.none(), counts_from_zero()),
                                        optional(BAD_INTS_FROM_ZERO), bad),
        "per_user_kb": maybe_refused(draw, "per_user_kb", maybe, optional(BAD_AMOUNTS), bad),
    }


@CALC
@given(memory_arguments())
def test_memory_mb_over_its_domain(arguments):
    res = call(sizing.memory_mb, arguments, [])
    if res is None:
        return
    a, _ = unwrap(arguments)

    def given_or(name, constant):
        return exact(sizing.rule_constant(constant) if a[name] is None else a[name])

    base = given_or("baseline_mb", "memory_baseline_mb")
    per_cpu = given_or("per_cpu_mb", "memory_per_cpu_mb")
    included = int(given_or("users_included", "users_before_extra_memory"))
    per_user = given_or("per_user_kb", "memory_per_extra_user_kb")
    cpus = a["cpus"]
    if a["composition"] == "example":
        cpu_part = max(base, cpus * per_cpu)
    else:
        cpu_part = base + cpus * per_cpu if cpus > 1 else base
    want = cpu_part + max(0, a["peak_users"] - included) * per_user / 1024
    assert math.isfinite(res) and close(res, want, 1e-12), (res, float(want))


@st.composite
def bandwidth_arguments(draw):
    return drawn(draw, {"users": (amounts(), BAD_AMOUNTS), "document_kb": (amounts(), BAD_AMOUNTS),
                        "transfer_time_s": (times(), BAD_MAGNITUDES)})


@CALC
@given(bandwidth_arguments(), st.sampled_from([None, 1000, 1024]))
def test_bandwidth_over_its_domain(arguments, bytes_per_kb):
    names = ["users", "document_kb", "transfer_time_s"]
    kb_s = call(sizing.bandwidth_kb_s, arguments, names)
    if bytes_per_kb is None:
        kbit_s = call(sizing.bandwidth_kbit_s, arguments, names)
        bytes_per_kb = 1000
    else:
        kbit_s = call(lambda **a: sizing.bandwidth_kbit_s(**a, bytes_per_kb=bytes_per_kb),
                      arguments, names)
    if kb_s is None:
        assert kbit_s is None
        return
    a, _ = unwrap(arguments)
    want = exact(a["users"]) * exact(a["document_kb"]) / exact(a["transfer_time_s"])
    assert math.isfinite(kb_s) and close(kb_s, want, 1e-12)
    assert math.isfinite(kbit_s) and close(kbit_s, want * bytes_per_kb * 8 / 1000, 1e-12)


@CALC
@given(st.data())
def test_t1_lines_over_their_domain(data):
    bad = refused_argument(data.draw, ["kbit_s", "line_kbit_s"])
    arguments = {
        "kbit_s": maybe_refused(data.draw, "kbit_s", amounts(), BAD_AMOUNTS, bad),
        "line_kbit_s": maybe_refused(data.draw, "line_kbit_s", st.one_of(st.none(), times()),
                                     optional(BAD_MAGNITUDES), bad),
    }
    lines = call(lambda kbit_s, line_kbit_s: sizing.t1_lines(kbit_s, line_kbit_s=line_kbit_s),
                 arguments, [])
    if lines is None:
        return
    a, _ = unwrap(arguments)
    line = exact(a["line_kbit_s"] or sizing.rule_constant("t1_line_kbit_s"))
    ratio = exact(a["kbit_s"]) / line
    assert isinstance(lines, int)
    if ratio == 0:
        assert lines == 0
    else:  # enough lines, and one fewer would not do (up to rounding of a whole ratio)
        assert lines >= 1 and lines >= ratio * (1 - F(1, 10**9))
        assert lines == 1 or lines - 1 < ratio


@CALC
@given(st.data())
def test_throughput_calculators_over_their_domain(data):
    time = (times(), BAD_MAGNITUDES)
    arguments = drawn(data.draw, {"threads": (counts(), BAD_INTS), "request_time_s": time})
    bound = call(sizing.max_throughput, arguments, [])
    if bound is not None:
        a, _ = unwrap(arguments)
        assert math.isfinite(bound)
        assert close(bound, F(a["threads"]) / exact(a["request_time_s"]), 1e-15)

    arguments = drawn(data.draw, {"throughput": time, "request_time_s": time})
    need = call(sizing.threads_for_throughput, arguments, [])
    if need is not None:
        a, _ = unwrap(arguments)
        busy = exact(a["throughput"]) * exact(a["request_time_s"])
        assert isinstance(need, int) and need >= 1
        assert need >= busy * (1 - F(1, 10**9))
        assert need == 1 or need - 1 < busy


# --------------------------------------------------------------------------- iplanet scaling


def factors():
    return st.one_of(st.floats(0, 1, exclude_min=True), st.sampled_from([5e-324, 1e-300, 1.0]))


BAD_FACTORS = [0.0, -0.1, 1.0000001, math.nan, math.inf, "0.65", None, True]
CPUS = st.one_of(st.integers(1, 64), st.integers(4000, 20_000),
                 st.sampled_from([10**9, MAX_INTEGER - 1, MAX_INTEGER]))


@st.composite
def segment_lists(draw):
    ends = sorted(draw(st.sets(st.one_of(st.integers(1, 5000), st.floats(1, 1e6)),
                               min_size=0, max_size=3)))
    segments = [(end, draw(factors())) for end in ends]
    if not segments or draw(st.booleans()):
        segments.append((math.inf, draw(factors())))
    return segments


def per_cpu_reference(segments, n: int) -> Fraction:
    """1 + the factor of every added CPU, CPU by CPU, in exact arithmetic."""
    total = F(1)
    for k in range(2, n + 1):
        total += next(F(f) for up_to, f in segments if k <= up_to)
    return total


@CALC
@given(segment_lists(), CPUS, st.sampled_from(scaling.READINGS), st.sampled_from(
    [None, "cpus", "segments", "reading"]))
def test_speedups_over_their_domain(segments, cpus, reading, bad):
    if bad == "cpus":
        cpus = [0, -1, 2.5, MAX_INTEGER + 2, 10**400, True, "8"][cpus % 7]
    elif bad == "segments":
        segments = [[], [(4, 0.0)], [(4, 0.5), (2, 0.5)], [(0.5, 0.5)], "65%"][cpus % 5]
    elif bad == "reading":
        reading = "linear"
    arguments = {"segments": segments, "cpus": cpus, "reading": reading}
    res = call(scaling.piecewise_speedup, arguments, ["segments", "cpus", "reading"])
    if res is None:
        return
    assert bad is None
    assert math.isfinite(res) and 0 < res <= cpus * (1 + 1e-12)
    covered = [f for up_to, f in segments if cpus <= up_to]
    if reading == "efficiency" and cpus > 1:
        assert close(res, F(covered[0]) * cpus, 1e-15)
    elif reading == "per_cpu" and cpus <= 20_000:  # CPU by CPU, also past 4096 CPUs
        assert close(res, per_cpu_reference(segments, cpus), 1e-12)
    elif reading == "per_cpu" and len(segments) == 1:
        assert close(res, 1 + F(segments[0][1]) * (cpus - 1), 1e-12)
    if len(segments) == 1 and segments[0][0] == math.inf:
        assert res == scaling.implied_speedup(segments[0][1], cpus, reading)


@CALC
@given(st.one_of(st.floats(0, 1e308, exclude_min=True), st.sampled_from([5e-324, 1e308])),
       st.one_of(CPUS, st.sampled_from([1, 0, 10**400, 2.5, MAX_INTEGER + 2])),
       st.sampled_from(scaling.READINGS), factors())
def test_implied_factor_over_its_domain(speedup, cpus, reading, factor):
    accepted = isinstance(cpus, int) and 2 <= cpus <= MAX_INTEGER
    res = call(scaling.implied_factor, {"speedup": speedup, "cpus": cpus, "reading": reading},
               ["cpus"])
    assert (res is not None) == accepted
    if res is None:
        return
    assert math.isfinite(res)
    if cpus <= 64 and factor > 1e-3:  # the inverse of implied_speedup
        s = scaling.implied_speedup(factor, cpus, reading)
        assert close(scaling.implied_factor(s, cpus, reading), factor, 1e-9)


# --------------------------------------------------------------------------- iplanet posting


@st.composite
def posting_arguments(draw):
    names = ["service_time", "horizon", "thread_increment", "check_every", "rq_throttle_min",
             "rq_throttle", "queue_limit", "seed", "phases"]
    bad = refused_argument(draw, names)
    horizon = draw(times())
    # a few hundred arrivals at most, so that a run takes milliseconds
    expected = draw(st.sampled_from([0.0, 1.0, 50.0, 300.0]))
    rate = min(max(expected / horizon, 1e-100), 1e100) if expected else 0.0
    phases = [(0.0, rate)]
    if draw(st.booleans()):
        phases.append((horizon / 2, draw(st.sampled_from([0.0, rate]))))
    low = draw(st.sampled_from([None, 1, 48, tp.MAX_THREADS]))
    high = draw(st.sampled_from([None, tp.MAX_THREADS] + ([low] if low else [])))
    if low is not None and high is None and low > 128:
        high = low
    return {
        "phases": maybe_refused(draw, "phases", st.just(phases), [
            [(0.0, -1.0)], [(0.0, 1e101)], [(0.0, 5e-324)], [(0.0, 1.0)] * (tp.MAX_PHASES + 1),
            [], "fast"], bad),
        "service_time": maybe_refused(draw, "service_time", times(), BAD_MAGNITUDES, bad),
        "horizon": maybe_refused(draw, "horizon", st.just(horizon), BAD_MAGNITUDES, bad),
        "thread_increment": maybe_refused(draw, "thread_increment", counts(), BAD_INTS, bad),
        "check_every": maybe_refused(draw, "check_every", st.one_of(st.none(), counts()),
                                     optional(BAD_INTS), bad),
        "rq_throttle_min": maybe_refused(draw, "rq_throttle_min", st.just(low),
                                         optional(BAD_INTS) + [tp.MAX_THREADS + 1], bad),
        "rq_throttle": maybe_refused(draw, "rq_throttle", st.just(high),
                                     optional(BAD_INTS) + [tp.MAX_THREADS + 1, 10**6], bad),
        "queue_limit": maybe_refused(draw, "queue_limit", st.one_of(st.none(), counts()),
                                     optional(BAD_INTS), bad),
        "seed": maybe_refused(draw, "seed", st.sampled_from([0, 1, MAX_INTEGER]),
                              [-1, 1.5, MAX_INTEGER + 1, "1", None, True], bad),
    }


@FEW
@given(posting_arguments())
def test_simulate_posting_over_its_domain(arguments):
    def run(phases, **settings):
        return tp.simulate_posting(phases, **settings)

    res = call(run, arguments, ["rq_throttle", "phases"])
    if res is None:
        return
    settings_ = res.settings
    trace = res.trace
    assert len(trace) <= tp.MAX_SAMPLES + 1
    assert np.all(np.isfinite(trace["time"])) and np.all(np.diff(trace["time"]) > 0)
    assert trace["threads"].max() <= settings_["rq_throttle"]
    assert res.summary["peak_threads"] <= settings_["rq_throttle"]
    for name in ("arrivals", "dropped", "served", "postings"):
        assert res.summary[name] >= 0


# --------------------------------------------------------------------------- domino rules


@CALC
@given(st.data())
def test_domino_initial_threads_over_its_domain(data):
    bad = refused_argument(data.draw, ["users", "percent"])
    percent = st.one_of(st.none(), st.floats(0, 100, exclude_min=True),
                        st.sampled_from([5e-324, 1e-300, 100.0]))
    arguments = {
        "users": maybe_refused(data.draw, "users", counts(), BAD_INTS, bad),
        "percent": maybe_refused(data.draw, "percent", percent,
                                 [0.0, -1.0, 100.5, math.nan, math.inf, 10**400, "10", True],
                                 bad),
    }
    res = call(lambda users, percent: threads_rule.domino_initial_threads(users,
                                                                          percent=percent),
               arguments, [])
    if res is None:
        return
    a, _ = unwrap(arguments)
    share = a["users"] * (F(10) if a["percent"] is None else F(str(a["percent"]))) / 100
    assert res == max(1, math.ceil(share)) and 1 <= res <= a["users"]


@CALC
@given(st.data())
def test_domino_curves_rules_over_their_domain(data):
    draw = data.draw
    arguments = drawn(draw, {"base": (times(), BAD_MAGNITUDES), "new": (amounts(), BAD_AMOUNTS)})
    change = call(curves.percent_change, arguments, [])
    if change is not None:
        a, _ = unwrap(arguments)
        want = 100 * (exact(a["new"]) - exact(a["base"])) / exact(a["base"])
        assert math.isfinite(change) and close(change, want, 1e-12)

    arguments = drawn(draw, {"total_processor_time_pct": (percents(), BAD_PERCENTS),
                             "processors": (counts(), BAD_INTS)})
    equivalents = call(curves.processor_equivalents, arguments, [])
    if equivalents is not None:
        a, _ = unwrap(arguments)
        assert math.isfinite(equivalents)
        assert close(equivalents, exact(a["total_processor_time_pct"]) / 100 * a["processors"],
                     1e-12)

    arguments = drawn(draw, {"cpu_pct": (percents(), BAD_PERCENTS),
                             "ceiling_pct": (st.floats(0, 100, exclude_min=True),
                                             BAD_PERCENTS + [0.0])})
    headroom = call(curves.cpu_headroom, arguments, [])
    if headroom is not None:
        assert math.isfinite(headroom) and -100 <= headroom <= 100

    arguments = drawn(draw, {"users": (times(), BAD_MAGNITUDES),
                             "cpu_pct": (percents(1e-100), BAD_PERCENTS + [0.0, 5e-324]),
                             "ceiling_pct": (percents(1e-100), BAD_PERCENTS + [0.0, 1e-300])})
    users = call(curves.users_at_cpu_ceiling, arguments, [])
    if users is not None:
        a, _ = unwrap(arguments)
        want = exact(a["users"]) * exact(a["ceiling_pct"]) / exact(a["cpu_pct"])
        assert math.isfinite(users) and close(users, want, 1e-12)

    arguments = {"response_time_s": maybe_refused(draw, "response_time_s", amounts(),
                                                  BAD_AMOUNTS, draw(st.sampled_from(
                                                      [None, None, "response_time_s"])))}
    rating = call(curves.probe_rating, arguments, [])
    if rating is not None:
        bands = curves.probe_rating_bands()
        seconds = unwrap(arguments)[0]["response_time_s"]
        assert rating in [*bands["rating"], "over the guideline"]
        assert (rating == "over the guideline") == (seconds > bands["high_s"].max())

    u = draw(st.one_of(percents(0, math.nextafter(100, 0)), st.sampled_from(
        [math.nextafter(100, 0), 100.0, -1.0, math.nan, 10**400, "50"])))
    stretch = call(curves.mm1_stretch, {"utilization_pct": u}, ["utilization_pct"])
    if stretch is not None:
        assert math.isfinite(stretch) and stretch >= 1
        assert close(stretch, 1 / (1 - exact(u) / 100), 1e-15)


# --------------------------------------------------------------------------- keep-alive


def signed_times():
    return st.one_of(times(zero=True), times().map(lambda t: -t),
                     st.sampled_from([1e300, -1e300]))


def count_or_counts():
    return st.one_of(counts(), st.lists(counts(), min_size=1, max_size=5))


@CALC
@given(st.data())
def test_amortization_over_its_domain(data):
    draw = data.draw
    bad = refused_argument(draw, ["n", "t_request", "t_setup"])
    bad_n = BAD_INTS + [[1, True], [1, 10**400], [[1, 2]]]
    arguments = {
        "n": maybe_refused(draw, "n", count_or_counts(), bad_n, bad),
        "t_request": maybe_refused(draw, "t_request", signed_times(),
                                   [math.nan, math.inf, 1.1e300, -1e308, "1", None, True], bad),
        "t_setup": maybe_refused(draw, "t_setup", signed_times(),
                                 [math.nan, -math.inf, 1e301, "1", None, True], bad),
    }
    t = call(amortization.time_per_request, arguments, [])
    if t is not None:
        a, _ = unwrap(arguments)
        for n, got in zip(np.atleast_1d(a["n"]), np.atleast_1d(t), strict=True):
            request, per_connection = exact(a["t_request"]), exact(a["t_setup"]) / int(n)
            assert math.isfinite(got)
            assert abs(F(got) - (request + per_connection)) <= F(4.5e-16) * (
                abs(request) + abs(per_connection))

    bad = refused_argument(draw, ["threads", "requests_per_thread", "n"])
    arguments = {
        "threads": maybe_refused(draw, "threads", counts(), BAD_INTS, bad),
        "requests_per_thread": maybe_refused(draw, "requests_per_thread", counts(), BAD_INTS,
                                             bad),
        "n": maybe_refused(draw, "n", count_or_counts(), bad_n, bad),
    }
    opened = call(amortization.connections_opened, arguments, ["threads"])
    if opened is not None:
        a, _ = unwrap(arguments)
        want = [a["threads"] * -(-a["requests_per_thread"] // int(n))
                for n in np.atleast_1d(a["n"])]
        assert np.atleast_1d(opened).tolist() == want

    bad = refused_argument(draw, ["connections", "run_time_s", "time_wait_s"])
    length = draw(st.integers(1, 4))
    one_or_many = st.one_of(times(), st.lists(times(), min_size=length, max_size=length))
    arguments = {
        "connections": maybe_refused(draw, "connections", one_or_many, BAD_MAGNITUDES, bad),
        "run_time_s": maybe_refused(draw, "run_time_s", one_or_many, BAD_MAGNITUDES, bad),
        "time_wait_s": maybe_refused(draw, "time_wait_s", times(), BAD_MAGNITUDES + [[1, 2]],
                                     bad),
    }
    waiting = call(amortization.time_wait_sockets, arguments, [])
    if waiting is not None:
        a, _ = unwrap(arguments)
        c, r = np.broadcast_arrays(a["connections"], a["run_time_s"])
        wait = exact(a["time_wait_s"])
        for got, ci, ri in zip(np.atleast_1d(waiting), c.ravel(), r.ravel(), strict=True):
            want = exact(ci) / exact(ri) * min(wait, exact(ri))
            assert math.isfinite(got) and close(got, want, 1e-12)


@FEW
@given(st.lists(counts(), min_size=2, max_size=6, unique=True), st.data())
def test_fit_setup_cost_over_its_domain(ns, data):
    t = data.draw(st.lists(times(), min_size=len(ns), max_size=len(ns)))
    fit = call(amortization.fit_setup_cost, {"n": ns, "t": t}, ["n", "t"])
    if fit is None:
        return
    for value in (fit.t_request, fit.t_setup):
        assert math.isfinite(value)
    assert np.all(np.isfinite(fit.residuals))
    assert np.all(np.isfinite(fit.predict(ns)))
    if fit.dof > 0:
        low, high = fit.band(ns)
        assert np.all(np.isfinite(low)) and np.all(np.isfinite(high))


# --------------------------------------------------------------------------- explorer


def grid_counts():
    # small, or far too large (refused by the estimate of the work before anything runs)
    return st.one_of(st.integers(1, 30), st.integers(1, 30), st.sampled_from([MAX_INTEGER]))


@st.composite
def grid_axes(draw):
    bad = refused_argument(draw, ["clients", "capacity", "threads", "cpu_time", "wait_time",
                                  "think_time"])

    def axis(name, values, bad_values):
        return maybe_refused(draw, name, st.lists(values, min_size=1, max_size=2, unique=True)
                             .map(sorted), bad_values, bad)

    return {
        "clients": axis("clients", grid_counts(), [[0], [2, 1], [10**400], "many"]),
        "capacity": axis("capacity", grid_counts(), [[0.5], [MAX_INTEGER + 2]]),
        "threads": axis("threads", grid_counts(), [[-1], [3, 3]]),
        "cpu_time": axis("cpu_time", times(zero=True), [[-1.0], [5e-324], [1e101]]),
        "wait_time": axis("wait_time", times(zero=True), [[math.nan], [1e-101]]),
        "think_time": axis("think_time", times(), [[0.0], [math.inf], [[1.0, 2.0]]]),
    }


GRID_NAMES = ["clients", "capacity", "threads", "cpu_time", "wait_time"]


@FEW
@given(grid_axes())
def test_explorer_grid_over_its_domain(axes):
    grid = call(lambda **a: explorer.build_grid(**a), axes, GRID_NAMES)
    if grid is None:
        return
    for metric in explorer.METRICS:
        assert np.all(np.isfinite(grid[metric])), metric


@FEW
@given(grid_axes())
def test_explorer_threads_needed_over_its_domain(axes):
    axes = {k: v for k, v in axes.items() if k != "threads"}
    sizing_ = call(lambda **a: explorer.threads_needed(**a), axes, GRID_NAMES)
    if sizing_ is None:
        return
    top = np.minimum(sizing_["clients"], sizing_["capacity"])
    assert np.all((1 <= sizing_["model_threads"]) & (sizing_["model_threads"] <= top))
    for column in ("mean_busy_threads", "response_time_unlimited", "response_time_model"):
        assert np.all(np.isfinite(sizing_[column])), column


# --------------------------------------------------------------------------- chapter helpers


@CALC
@given(st.one_of(st.floats(), st.integers(-10**20, 10**20),
                 st.sampled_from([10**400, "1", None, True, 1j])),
       st.one_of(st.integers(0, 17), st.sampled_from([18, 10**9, -1, 2.0, True, "3"])))
def test_chapter_text_over_its_domain(value, digits):
    number = not isinstance(value, bool | str | complex) and value is not None and (
        not isinstance(value, int) or abs(value) < 1e308)
    for function, name, low in ((text.significant, "digits", 1),
                                (text.signed_percent, "decimals", 0)):
        count = not isinstance(digits, bool) and isinstance(digits, int) and low <= digits <= 17
        written = call(function, {"value": value, name: digits}, ["value", name])
        assert (written is not None) == (number and count), (value, digits)
        if written is not None:
            assert isinstance(written, str) and len(written) < 400


@FEW
@given(st.lists(st.integers(1, 12), min_size=1, max_size=3, unique=True),
       st.lists(st.one_of(st.integers(1, 12), st.sampled_from([MAX_INTEGER])), min_size=1,
                max_size=2, unique=True),
       st.lists(st.integers(1, 6), min_size=1, max_size=2, unique=True),
       times(zero=True), times(), times())
def test_thread_pool_sweep_over_its_domain(clients, queues, pools, cpu, wait, think):
    frame = call(sweep, {"clients": sorted(clients), "queues": queues, "threads": pools,
                         "cpu_time": cpu, "wait_time": wait, "think_time": think},
                 ["clients", "queues", "threads"])
    if frame is None:
        return
    for column in ("throughput", "response_time", "refused", "busy_threads", "utilization"):
        assert np.all(np.isfinite(frame[column])), column
