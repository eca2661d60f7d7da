"""The simulator against the analytic models of :mod:`queuetune.models`."""

from __future__ import annotations

import pytest
from agreement import coverage_shortfall, far_outside
from closed_forms import mm1bk_closed_form

from queuetune.models import mm1bk, thread_pool
from queuetune.simulation import (
    MM1BK_METRICS,
    THREAD_POOL_METRICS,
    simulate_mm1bk,
    simulate_thread_pool,
)

RUN = {"horizon": 600.0, "warmup": 60.0, "replications": 10}

# (clients, capacity, service_time, think_time): the paper's Z and S, both connection queues
MM1BK_POINTS = [
    (20, 50, 0.14, 4.0),
    (40, 200, 0.14, 4.0),
    (70, 50, 0.14, 4.0),
    (100, 50, 0.14, 4.0),
    (25, 8, 0.14, 4.0),
]


_POOL_KEYS = ("clients", "capacity", "threads", "cpu_time", "wait_time", "think_time")
# (clients, capacity, threads, cpu_time, wait_time, think_time[, thread_overhead, pool_overhead])
THREAD_POOL_POINTS = [
    (30, 50, 30, 0.07, 0.07, 4.0),  # no request waits for a thread
    (100, 40, 30, 0.05, 0.25, 4.0),  # the paper's 30 threads, full queue, drops
    (20, 50, 1, 0.05, 0.1, 4.0),  # one thread
    (60, 10, 3, 0.03, 0.2, 4.0),  # few threads and a short queue
    (30, 10, 3, 0.0, 0.3, 4.0),  # no CPU phase: M/M/3/10/30
    (60, 15, 5, 0.05, 0.15, 4.0, 0.1, 0.01),  # overhead: processor sharing at varying speed
]


def _pool_kwargs(point: tuple) -> dict:
    kwargs = dict(zip(_POOL_KEYS, point[:6], strict=True))
    if len(point) > 6:
        kwargs.update(thread_overhead=point[6], pool_overhead=point[7])
    return kwargs


def _exact(result, metrics) -> dict[str, float]:
    return {name: float(getattr(result, name)) for name in metrics}


def _mm1bk(point):
    K, B, S, Z = point
    return mm1bk(clients=K, capacity=B, service_time=S, think_time=Z)


@pytest.fixture(scope="module")
def mm1bk_runs():
    return {
        point: (
            simulate_mm1bk(*point, seed=100 + i, **RUN),
            _exact(_mm1bk(point), MM1BK_METRICS),
        )
        for i, point in enumerate(MM1BK_POINTS)
    }


@pytest.mark.parametrize("point", MM1BK_POINTS, ids=str)
def test_analytic_mm1bk_agrees_with_the_birth_death_chain(point):
    """Both sides of the comparison are checked: the closed form of the tests is exact too."""
    exact = _exact(_mm1bk(point), MM1BK_METRICS)
    assert exact == pytest.approx(mm1bk_closed_form(*point), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("point", MM1BK_POINTS, ids=str)
def test_mm1bk_near_analytic(mm1bk_runs, point):
    assert not far_outside(*mm1bk_runs[point])


def test_mm1bk_analytic_coverage(mm1bk_runs):
    assert not coverage_shortfall(list(mm1bk_runs.values()), minimum_total=20)


@pytest.fixture(scope="module")
def thread_pool_runs():
    runs = {}
    for i, point in enumerate(THREAD_POOL_POINTS):
        kwargs = _pool_kwargs(point)
        exact = _exact(thread_pool(**kwargs, method="exact"), THREAD_POOL_METRICS)
        runs[point] = (simulate_thread_pool(**kwargs, seed=200 + i, **RUN), exact)
    return runs


@pytest.mark.parametrize("point", THREAD_POOL_POINTS, ids=str)
def test_thread_pool_near_analytic(thread_pool_runs, point):
    assert not far_outside(*thread_pool_runs[point])


def test_thread_pool_analytic_coverage(thread_pool_runs):
    assert not coverage_shortfall(list(thread_pool_runs.values()), minimum_total=40)
