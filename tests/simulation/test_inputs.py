"""Invalid inputs raise ValueError naming the parameter."""

from __future__ import annotations

import math

import pytest

from queuetune.simulation import simulate_mm1bk, simulate_thread_pool

MM1BK = dict(clients=5, capacity=5, service_time=0.1, think_time=1.0)
THREAD_POOL = dict(clients=5, capacity=5, threads=2, cpu_time=0.1, wait_time=0.2, think_time=1.0)
SHORT = dict(horizon=20.0, warmup=2.0, replications=2)

BAD_COUNTS = [0, -3, 2.5, math.nan, math.inf, True, "4", None, [3, 4]]
BAD_TIMES = [0, -0.5, math.nan, math.inf, -math.inf, "1", None, True, [1.0, 2.0]]
BAD_NONNEGATIVE = [-0.1, math.nan, math.inf, "0", None, [0.1, 0.2]]


def _cases(base, names, values):
    return [(name, value) for name in names for value in values]


@pytest.mark.parametrize(
    ("name", "value"),
    _cases(MM1BK, ["clients", "capacity"], BAD_COUNTS)
    + _cases(MM1BK, ["service_time", "think_time"], BAD_TIMES),
)
def test_mm1bk_rejects(name, value):
    with pytest.raises(ValueError, match=name):
        simulate_mm1bk(**{**MM1BK, name: value}, **SHORT)


@pytest.mark.parametrize(
    ("name", "value"),
    _cases(THREAD_POOL, ["clients", "capacity", "threads"], BAD_COUNTS)
    + _cases(THREAD_POOL, ["think_time"], BAD_TIMES)
    + _cases(
        THREAD_POOL,
        ["cpu_time", "wait_time", "thread_overhead", "pool_overhead"],
        BAD_NONNEGATIVE,
    ),
)
def test_thread_pool_rejects(name, value):
    with pytest.raises(ValueError, match=name):
        simulate_thread_pool(**{**THREAD_POOL, name: value}, **SHORT)


@pytest.mark.parametrize(
    ("name", "run"),
    [
        ("horizon", dict(horizon=0.0)),
        ("horizon", dict(horizon=math.inf)),
        ("horizon", dict(horizon=math.nan)),
        ("warmup", dict(warmup=-1.0)),
        ("warmup", dict(warmup=20.0)),
        ("warmup", dict(warmup=25.0)),
        ("replications", dict(replications=1)),
        ("replications", dict(replications=2.5)),
        ("seed", dict(seed=-1)),
        ("seed", dict(seed=1.5)),
    ],
)
def test_run_length_rejected(name, run):
    with pytest.raises(ValueError, match=name):
        simulate_mm1bk(**MM1BK, **{**SHORT, **run})
    with pytest.raises(ValueError, match=name):
        simulate_thread_pool(**THREAD_POOL, **{**SHORT, **run})


def test_fcfs_cpu_refused_with_overhead():
    with pytest.raises(ValueError, match="processor_sharing"):
        simulate_thread_pool(**THREAD_POOL, thread_overhead=0.1, processor_sharing=False, **SHORT)
    with pytest.raises(ValueError, match="processor_sharing"):
        simulate_thread_pool(**THREAD_POOL, processor_sharing=1, **SHORT)


def test_one_phase_may_be_zero_but_not_both():
    no_wait = simulate_thread_pool(**{**THREAD_POOL, "wait_time": 0.0}, **SHORT)
    no_cpu = simulate_thread_pool(**{**THREAD_POOL, "cpu_time": 0.0}, **SHORT)
    assert no_wait.estimate["throughput"] > 0
    assert no_cpu.estimate["throughput"] > 0
    assert no_cpu.estimate["utilization"] == 0
    with pytest.raises(ValueError, match="cpu_time and wait_time"):
        simulate_thread_pool(**{**THREAD_POOL, "cpu_time": 0.0, "wait_time": 0.0}, **SHORT)
