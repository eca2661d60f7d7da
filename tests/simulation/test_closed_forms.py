"""The simulator against birth-death and product-form closed forms solved in the tests."""

from __future__ import annotations

import pytest
from agreement import coverage_shortfall, far_outside, outside
from closed_forms import mm1bk_closed_form, thread_pool_no_queue, thread_pool_no_wait

from queuetune.simulation import simulate_mm1bk, simulate_thread_pool

RUN = {"horizon": 600.0, "warmup": 60.0, "replications": 10}

MM1BK_KEYS = ("clients", "capacity", "service_time", "think_time")
MM1BK_POINTS = [
    (10, 50, 0.14, 4.0),
    (30, 50, 0.14, 4.0),
    (80, 50, 0.14, 4.0),
    (20, 5, 0.14, 4.0),
    (6, 3, 1.0, 2.0),
]

# keyword arguments of simulate_thread_pool, with wait_time = 0 or threads >= clients
NO_WAIT = dict(clients=40, capacity=10, threads=5, cpu_time=0.1, wait_time=0.0, think_time=4.0)
THREAD_POOL_POINTS = [
    dict(clients=20, capacity=20, threads=20, cpu_time=0.1, wait_time=0.3, think_time=4.0),
    dict(clients=25, capacity=30, threads=25, cpu_time=0.05, wait_time=0.5, think_time=2.0),
    NO_WAIT,
    NO_WAIT | dict(thread_overhead=0.05, pool_overhead=0.002),
    dict(clients=16, capacity=8, threads=3, cpu_time=0.2, wait_time=0.0, think_time=3.0)
    | dict(thread_overhead=0.2, pool_overhead=0.01),
]


def _thread_pool_exact(point: dict) -> dict[str, float]:
    if point["wait_time"] == 0:
        keys = ("clients", "capacity", "threads", "cpu_time", "think_time")
        return thread_pool_no_wait(
            *(point[k] for k in keys),
            thread_overhead=point.get("thread_overhead", 0.0),
            pool_overhead=point.get("pool_overhead", 0.0),
        )
    return thread_pool_no_queue(
        point["clients"], point["cpu_time"], point["wait_time"], point["think_time"]
    )


@pytest.fixture(scope="module")
def mm1bk_runs():
    return {
        point: (
            simulate_mm1bk(**dict(zip(MM1BK_KEYS, point, strict=True)), seed=i, **RUN),
            mm1bk_closed_form(*point),
        )
        for i, point in enumerate(MM1BK_POINTS)
    }


@pytest.fixture(scope="module")
def thread_pool_runs():
    """Each point with the CPU simulated as processor sharing and, without overhead, FCFS."""
    runs = {}
    for i, point in enumerate(THREAD_POOL_POINTS):
        exact = _thread_pool_exact(point)
        overhead = point.get("thread_overhead", 0) or point.get("pool_overhead", 0)
        for sharing in (True,) if overhead else (True, False):
            result = simulate_thread_pool(**point, seed=i, processor_sharing=sharing, **RUN)
            runs[(i, sharing)] = (result, exact)
    return runs


@pytest.mark.parametrize("point", MM1BK_POINTS, ids=str)
def test_mm1bk_near_birth_death(mm1bk_runs, point):
    assert not far_outside(*mm1bk_runs[point])


def test_mm1bk_coverage(mm1bk_runs):
    assert not coverage_shortfall(list(mm1bk_runs.values()), minimum_total=20)


@pytest.mark.parametrize("index", range(len(THREAD_POOL_POINTS)))
def test_thread_pool_near_closed_form(thread_pool_runs, index):
    for (i, sharing), (result, exact) in thread_pool_runs.items():
        if i == index:
            assert not far_outside(result, exact), f"processor_sharing={sharing}"


def test_thread_pool_coverage(thread_pool_runs):
    assert not coverage_shortfall(list(thread_pool_runs.values()), minimum_total=30)


def test_check_has_power_against_a_wrong_model(mm1bk_runs):
    """A 5 % error in the exact value is flagged: the intervals are narrow enough to matter."""
    point = (30, 50, 0.14, 4.0)
    result, exact = mm1bk_runs[point]
    wrong = {name: exact[name] * 1.05 for name in ("throughput", "response_time")}
    assert outside(result, wrong) == ["throughput", "response_time"]
    assert far_outside(result, wrong)
