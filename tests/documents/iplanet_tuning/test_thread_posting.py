"""The session-thread posting policy of iPlanet Web Server 6.0 (IP-C8), simulated."""

from __future__ import annotations

import math

import pandas as pd
import pytest

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
