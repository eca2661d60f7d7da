"""The exact solution of a batch population and the search of an integer profile."""

from __future__ import annotations

import math

import numpy as np
import pytest

from queuetune import thread_pool
from queuetune.fit.thread_search import GRID_POINTS, batch_holders, search_profile


@pytest.mark.parametrize("processors", [1, 3, 20])
@pytest.mark.parametrize(("cpu", "wait"), [(0.02, 0.1), (0.0, 0.3), (0.05, 0.0)])
def test_batch_holders_is_the_thread_pool_model_of_a_batch_population(processors, cpu, wait):
    # K requests, think time 0, all admitted: min(K, T) holders at every instant
    clients = np.arange(1, 13)
    threads = 5
    exact = thread_pool(clients=clients, capacity=12, threads=threads, cpu_time=cpu,
                        wait_time=wait, think_time=0.0, processors=processors, method="exact")
    x, u = batch_holders(holders=threads, cpu_time=cpu, wait_time=wait, processors=processors)
    held = np.minimum(clients, threads)
    np.testing.assert_allclose(x[held], exact.throughput, rtol=1e-9)
    np.testing.assert_allclose(u[held], exact.utilization, rtol=1e-9, atol=1e-15)


def test_search_finds_the_peak_and_its_likelihood_ratio_interval_with_few_evaluations():
    calls = []

    def loglik(t):
        calls.append(t)
        return -0.5 * ((t - 613) / 4.0) ** 2

    found = search_profile(loglik, 1, 5000, confidence=0.95)
    assert found.best == 613
    # 2 (l_max - l(t)) <= 3.84: |t - 613| <= 4 * 1.96
    assert (found.low, found.high) == (606, 620)
    assert len(calls) == len(set(calls)) < GRID_POINTS + 3 * math.ceil(math.log2(5000))
    assert found.notes == ()


def test_search_reports_a_second_peak_and_widens_the_interval():
    # a broad second peak near 300, which the grid (..., 243, 400) sees within the bound
    def loglik(t):
        return max(-0.5 * ((t - 300) / 60.0) ** 2, -0.5 * ((t - 2) / 0.5) ** 2 + 0.5)

    found = search_profile(loglik, 1, 400, confidence=0.95)
    assert found.best == 2
    assert found.notes and "more than one peak" in found.notes[0]
    assert found.low <= 2 and found.high >= 300


def test_search_breaks_a_plateau_towards_the_smallest_count():
    found = search_profile(lambda t: -abs(min(t, 50) - 50) / 10.0, 1, 200, confidence=0.95)
    assert found.best == 50
    assert found.high == 200  # every count from 50 up fits equally


def test_the_queue_and_delay_recursion_is_the_models_mva():
    from queuetune import mva
    from queuetune.models import Station

    x, _ = batch_holders(holders=300, cpu_time=0.0013, wait_time=0.36, processors=1)
    res = mva(300, [Station.queue(0.0013), Station.delay(0.36)])
    np.testing.assert_allclose(x[1:], res.throughput, rtol=1e-12)
