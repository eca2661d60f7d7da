"""The session-thread posting policy of iPlanet Web Server 6.0 (IP-C8), simulated."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_domain import (
    BAD_INTS,
    BAD_MAGNITUDES,
    FEW,
    call,
    counts,
    maybe_refused,
    optional,
    refused_argument,
    times,
)

from queuetune._validation import MAX_INTEGER
from queuetune.documents.iplanet_tuning import thread_posting as tp

STEP = dict(phases=[(0.0, 60.0), (10.0, 270.0), (20.0, 60.0)], service_time=0.5, horizon=30.0,
            thread_increment=8, seed=3)


@pytest.fixture(scope="module")
def step_run():
    return tp.simulate_posting(**STEP)


def test_defaults_are_the_stated_ones():
    assert tp.default_setting("RqThrottleMin") == 48
    assert tp.default_setting("RqThrottle") == 128
    assert tp.stated_check_counts() == [16, 32]
    run = tp.simulate_posting([(0.0, 10.0)], service_time=0.1, horizon=1.0, thread_increment=4)
    assert run.settings["rq_throttle_min"] == 48 and run.settings["rq_throttle"] == 128
    assert run.settings["check_every"] == 16


def test_pool_never_exceeds_rq_throttle(step_run):
    cap = step_run.settings["rq_throttle"]
    assert step_run.summary["peak_threads"] == cap  # 270/s x 0.5 s = 135 threads' worth
    assert step_run.trace["threads"].max() <= cap
    assert step_run.additions["threads"].max() <= cap


def test_light_load_stays_at_the_minimum(step_run):
    light = step_run.phases.iloc[0]
    assert light["offered_threads"] < step_run.settings["rq_throttle_min"]
    assert light["threads_at_end"] == step_run.settings["rq_throttle_min"]
    early = step_run.trace[step_run.trace["time"] < 10.0]
    assert (early["threads"] == 48).all()
    assert step_run.additions["time"].min() >= 10.0


def test_pool_grows_under_backlog_in_thread_increments(step_run):
    inc = step_run.settings["thread_increment"]
    adds = step_run.additions
    assert len(adds) >= 2
    assert adds["threads"].is_monotonic_increasing
    # Every posting adds whole ThreadIncrements, unless it is cut short by RqThrottle.
    cut = adds["threads"] == step_run.settings["rq_throttle"]
    assert (adds.loc[~cut, "added"] % inc == 0).all()
    assert (adds["threads"] - adds["added"]).iloc[0] == 48


def test_pool_never_shrinks(step_run):
    assert step_run.trace["threads"].is_monotonic_increasing
    assert step_run.phases.iloc[-1]["threads_at_end"] == step_run.settings["rq_throttle"]


def test_overload_builds_a_queue_that_light_load_drains(step_run):
    light, heavy = step_run.phases.iloc[0], step_run.phases.iloc[1]
    assert heavy["peak_queue"] > 50 and light["peak_queue"] < 10
    assert heavy["mean_wait"] > 10 * light["mean_wait"]
    end = step_run.trace.iloc[-1]
    assert end["queue_length"] < 5


def test_busy_threads_never_exceed_the_pool(step_run):
    t = step_run.trace
    assert (t["busy_threads"] <= t["threads"]).all()
    # A connection waits only while every thread is busy.
    assert (t.loc[t["queue_length"] > 0, "busy_threads"] == t.loc[t["queue_length"] > 0,
                                                                   "threads"]).all()


def test_counts_add_up(step_run):
    s = step_run.summary
    assert s["arrivals"] == step_run.phases["arrivals"].sum()
    assert s["dropped"] == 0
    assert s["served"] <= s["arrivals"]
    # Poisson counts within five standard deviations of rate x duration.
    for row in step_run.phases.itertuples():
        expected = row.rate * (row.end - row.start)
        assert abs(row.arrivals - expected) < 5 * math.sqrt(expected)


def test_seeded_runs_are_reproducible_and_seeds_differ():
    a = tp.simulate_posting(**STEP)
    b = tp.simulate_posting(**STEP)
    pd.testing.assert_frame_equal(a.trace, b.trace)
    pd.testing.assert_frame_equal(a.additions, b.additions)
    assert dict(a.summary) == dict(b.summary)
    c = tp.simulate_posting(**{**STEP, "seed": 4})
    assert dict(c.summary) != dict(a.summary)


def test_no_decision_means_no_growth():
    run = tp.simulate_posting(**{**STEP, "check_every": 10**9})
    assert run.summary["final_threads"] == 48 and run.additions.empty


def test_queue_limit_drops_connections():
    run = tp.simulate_posting([(0.0, 400.0)], service_time=0.5, horizon=5.0,
                              thread_increment=8, queue_limit=20, rq_throttle=64, seed=1)
    assert run.summary["dropped"] > 0
    assert run.summary["peak_queue"] <= 20


def test_trace_is_sampled_on_a_fixed_grid():
    run = tp.simulate_posting([(0.0, 20.0)], service_time=0.1, horizon=2.0,
                              thread_increment=4, sample_interval=0.5)
    assert run.trace["time"].tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]


def test_zero_rate_phase_has_no_arrivals():
    run = tp.simulate_posting([(0.0, 0.0), (1.0, 50.0)], service_time=0.1, horizon=2.0,
                              thread_increment=4)
    assert run.phases.iloc[0]["arrivals"] == 0 and math.isnan(run.phases.iloc[0]["mean_wait"])


# ------------------------------------------------------------------ bad input

GOOD = dict(phases=[(0.0, 10.0)], service_time=0.1, horizon=1.0, thread_increment=4)


@pytest.mark.parametrize(("name", "value"), [
    ("service_time", 0), ("service_time", -1), ("service_time", math.nan), ("service_time", "1"),
    ("horizon", 0), ("horizon", math.inf),
    ("thread_increment", 0), ("thread_increment", 2.5), ("thread_increment", True),
    ("check_every", 0), ("check_every", 16.5),
    ("rq_throttle_min", 0), ("rq_throttle", 10), ("queue_limit", 0),
    ("sample_interval", 0), ("sample_interval", 5.0), ("seed", -1), ("seed", "1"),
])
def test_rejects(name, value):
    with pytest.raises(ValueError, match=name):
        tp.simulate_posting(**{**GOOD, name: value})


@pytest.mark.parametrize("phases", [[], "fast", [(1.0, 10.0)], [(0.0, -1.0)],
                                    [(0.0, 10.0), (0.0, 20.0)], [(0.0, 10.0), (5.0, 1.0)],
                                    [(0.0,)], [(0.0, math.nan)]])
def test_rejects_bad_phases(phases):
    with pytest.raises(ValueError, match="phases"):
        tp.simulate_posting(**{**GOOD, "phases": phases})


def test_rejects_runs_that_would_be_long():
    with pytest.raises(ValueError, match="phases"):
        tp.simulate_posting([(0.0, 1e6)], service_time=0.1, horizon=10.0, thread_increment=4)


def test_rejects_unknown_setting():
    with pytest.raises(ValueError, match="name"):
        tp.default_setting("ThreadIncrement")


# --- over the whole domain (property tests): iplanet posting


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
