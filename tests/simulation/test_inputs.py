"""Invalid inputs raise ValueError naming the parameter (and its range)."""

from __future__ import annotations

import math

import pytest

from queuetune.simulation import simulate_mm1bk, simulate_thread_pool

MM1BK = dict(clients=5, capacity=5, service_time=0.1, think_time=1.0)
THREAD_POOL = dict(clients=5, capacity=5, threads=2, cpu_time=0.1, wait_time=0.2, think_time=1.0)
OPEN = dict(arrival_rate=3.0, capacity=5, threads=2, cpu_time=0.1, wait_time=0.2)
SHORT = dict(horizon=20.0, warmup=2.0, replications=2)

BAD_COUNTS = [0, -3, 2.5, math.nan, math.inf, True, "4", None, [3, 4]]
BAD_OPTIONAL_COUNTS = [c for c in BAD_COUNTS if c is not None]
BAD_TIMES = [0, -0.5, math.nan, math.inf, -math.inf, "1", None, True, [1.0, 2.0]]
BAD_NONNEGATIVE = [-0.1, math.nan, math.inf, "0", None, [0.1, 0.2]]


def _cases(names, values):
    return [(name, value) for name in names for value in values]


@pytest.mark.parametrize(
    ("name", "value"),
    _cases(["clients", "capacity"], BAD_COUNTS) + _cases(["service_time", "think_time"], BAD_TIMES),
)
def test_mm1bk_rejects(name, value):
    with pytest.raises(ValueError, match=name):
        simulate_mm1bk(**{**MM1BK, name: value}, **SHORT)


@pytest.mark.parametrize(
    ("name", "value"),
    _cases(["clients", "capacity", "processors"], BAD_COUNTS)
    + _cases(["threads", "connections"], BAD_OPTIONAL_COUNTS)
    + _cases(["think_time"], [t for t in BAD_TIMES if t != 0])
    + _cases(
        ["cpu_time", "wait_time", "thread_overhead", "pool_overhead"],
        BAD_NONNEGATIVE,
    ),
)
def test_thread_pool_rejects(name, value):
    with pytest.raises(ValueError, match=name):
        simulate_thread_pool(**{**THREAD_POOL, name: value}, **SHORT)


@pytest.mark.parametrize("value", [t for t in BAD_TIMES if t is not None])
def test_arrival_rate_rejected(value):
    with pytest.raises(ValueError, match="arrival_rate"):
        simulate_thread_pool(**{**OPEN, "arrival_rate": value}, **SHORT)


def test_range_is_named():
    with pytest.raises(ValueError, match=r"processors must be an integer >= 1, got 0"):
        simulate_thread_pool(**THREAD_POOL, processors=0, **SHORT)
    with pytest.raises(ValueError, match=r"connections must be an integer >= 1, got 0 \(or None\)"):
        simulate_thread_pool(**THREAD_POOL, connections=0, **SHORT)
    with pytest.raises(ValueError, match=r"threads must be an integer >= 1, got 0 \(or None\)"):
        simulate_thread_pool(**{**THREAD_POOL, "threads": 0}, **SHORT)


@pytest.mark.parametrize("name", ["clients", "think_time"])
def test_open_and_closed_workloads_exclude_each_other(name):
    with pytest.raises(ValueError, match=f"{name} must be None with arrival_rate"):
        simulate_thread_pool(**OPEN, **{name: THREAD_POOL[name]}, **SHORT)


@pytest.mark.parametrize("missing", ["clients", "think_time"])
def test_closed_workload_needs_clients_and_think_time(missing):
    kwargs = {k: v for k, v in THREAD_POOL.items() if k != missing}
    with pytest.raises(ValueError, match="clients and think_time must be given"):
        simulate_thread_pool(**kwargs, **SHORT)


def test_counts_are_keyword_only():
    with pytest.raises(TypeError):
        simulate_thread_pool(5, 5, 2, 0.1, 0.2, 1.0, **SHORT)
    with pytest.raises(TypeError):
        simulate_mm1bk(5, 5, 0.1, 1.0, **SHORT)


def test_batch_population_only_within_capacity():
    """think_time = 0 is a batch population: refused requests would be retried without end."""
    batch = simulate_thread_pool(**{**THREAD_POOL, "think_time": 0.0}, **SHORT)
    assert batch.estimate["mean_in_system"] == pytest.approx(THREAD_POOL["clients"])
    assert batch.estimate["rejection_probability"] == 0
    with pytest.raises(ValueError, match="think_time must be > 0 when clients"):
        simulate_thread_pool(**{**THREAD_POOL, "think_time": 0.0, "clients": 6}, **SHORT)


def test_pool_overhead_needs_a_thread_limit():
    with pytest.raises(ValueError, match="pool_overhead must be 0 with threads=None"):
        simulate_thread_pool(**{**THREAD_POOL, "threads": None}, pool_overhead=0.01, **SHORT)


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


def test_work_estimate_refuses_a_long_open_run():
    with pytest.raises(ValueError, match="MAX_SECONDS"):
        simulate_thread_pool(**{**OPEN, "arrival_rate": 1e6}, horizon=1e4, warmup=1.0)
