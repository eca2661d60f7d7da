"""The server's simulation over its documented domain, the new keywords included: every call
returns finite estimates and intervals, or raises a ValueError naming a parameter.

Each argument is drawn valid most of the time and now and then from the values the simulation
documents as refused (``tests/helpers/property_domain.py``).
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from property_domain import (
    BAD_COUNTS,
    BAD_TIMES,
    SEEDED,
    counts,
    maybe_refused,
    refused_argument,
    times,
)
from property_domain import call as checked_call

from queuetune.simulation import simulate_thread_pool

#: Refused as an optional count (None means no limit there).
BAD_OPTIONAL = [c for c in BAD_COUNTS if c is not None]
LIMITS = ["horizon", "replications", "clients", "arrival_rate", "think_time"]


def _optional_counts(high: int):
    return st.one_of(st.none(), st.integers(1, high), st.sampled_from([10**6]))


@st.composite
def servers(draw):
    open_workload = draw(st.booleans())
    names = ["capacity", "threads", "processors", "connections", "cpu_time", "wait_time"]
    names += ["arrival_rate"] if open_workload else ["clients", "think_time"]
    target = refused_argument(draw, names)
    arguments = {
        "capacity": maybe_refused(draw, "capacity", counts(12, huge=False), BAD_COUNTS, target),
        "threads": maybe_refused(draw, "threads", _optional_counts(6), BAD_OPTIONAL, target),
        "processors": maybe_refused(draw, "processors", st.one_of(
            st.integers(1, 8), st.just(10**6)), BAD_COUNTS, target),
        "connections": maybe_refused(draw, "connections", _optional_counts(6), BAD_OPTIONAL,
                                     target),
        "cpu_time": maybe_refused(draw, "cpu_time", st.one_of(
            times(zero=True), times(low=0.01, high=0.2), times(low=0.01, high=0.2)),
                                  [t for t in BAD_TIMES if t is not None], target),
        "wait_time": maybe_refused(draw, "wait_time", st.sampled_from([0.0, 0.05, 0.3]),
                                   [t for t in BAD_TIMES if t is not None], target),
    }
    if open_workload:
        arguments["arrival_rate"] = maybe_refused(
            draw, "arrival_rate", st.one_of(times(), times(low=0.5, high=50.0)), BAD_TIMES,
            target)
    else:
        arguments["clients"] = maybe_refused(draw, "clients", counts(12, huge=False),
                                             BAD_COUNTS, target)
        arguments["think_time"] = maybe_refused(
            draw, "think_time", st.one_of(times(zero=True), times(low=0.1, high=10.0)),
            [t for t in BAD_TIMES if t is not None], target)
    return arguments


@settings(SEEDED, max_examples=80)
@given(servers(), st.sampled_from([20.0, 200.0, 200.0, 1e100]))
def test_simulation_over_its_domain(arguments, horizon):
    run = {"horizon": horizon, "warmup": 1.0, "replications": 2}
    names = LIMITS + ["cpu_time", "wait_time", "capacity"]
    result = checked_call(simulate_thread_pool, arguments | run, names)
    if result is None:
        return
    for name in result.metrics:
        assert math.isfinite(result.estimate[name]), name
        assert math.isfinite(result.ci_low[name]) and math.isfinite(result.ci_high[name]), name
    assert 0 <= result.estimate["utilization"] <= 1 + 1e-12
