"""Exact MVA and the log-space convolution for load-dependent stations."""

from __future__ import annotations

import numpy as np
import pytest
from reference import closed_network_ld, mmm_bk

from queuetune import MVAResult, Station, mm1bk, mva, thread_pool


def naive_load_dependent_mva(population, demand, multipliers, think_time):
    """The textbook recursion: p(j|n) = D/alpha(j) X(n) p(j-1|n-1), p(0|n) = 1 - sum."""
    p = np.zeros(population + 1)
    p[0] = 1.0
    x, r, lowest = [], [], []
    for n in range(1, population + 1):
        j = np.arange(1, n + 1)
        alpha = np.array([multipliers(i) for i in j], dtype=float)
        residence = float(np.sum(j / alpha * demand * p[: n]))
        throughput = n / (think_time + residence)
        new = np.zeros(population + 1)
        new[1 : n + 1] = demand / alpha * throughput * p[:n]
        new[0] = 1.0 - new[1 : n + 1].sum()
        p = new
        x.append(throughput)
        r.append(residence)
        lowest.append(p[: n + 1].min())
    return np.array(x), np.array(r), np.array(lowest)


def test_one_queue_and_think_time_is_mm1bk_without_losses():
    """M/M/1//K = closed network of one queue and one delay station (capacity >= clients)."""
    res = mva(120, [Station.queue(0.14)], think_time=4.0)
    assert res.algorithm == "mva"
    ref = mm1bk(clients=res.population, capacity=120, service_time=0.14, think_time=4.0)
    np.testing.assert_allclose(res.throughput, ref.throughput, rtol=1e-12)
    np.testing.assert_allclose(res.response_time, ref.response_time, rtol=1e-12)
    np.testing.assert_allclose(res.queue_length[:, 0], ref.mean_in_system, rtol=1e-12)
    np.testing.assert_allclose(res.utilization[:, 0], ref.utilization, rtol=1e-12)


def test_plain_numbers_are_queues():
    a = mva(30, [0.1, 0.05], think_time=1.0)
    b = mva(30, [Station.queue(0.1), Station.queue(0.05)], think_time=1.0)
    np.testing.assert_array_equal(a.throughput, b.throughput)


def test_result_shapes_and_laws():
    stations = [Station.queue(0.05, "cpu"), Station.delay(0.2, "db"), Station.queue(0.03)]
    res = mva(50, stations, think_time=2.0)
    assert isinstance(res, MVAResult)
    assert res.population.tolist() == list(range(1, 51))
    assert res.queue_length.shape == res.residence_time.shape == res.utilization.shape == (50, 3)
    n = res.population
    # response time law and Little's law over the whole network
    np.testing.assert_allclose(res.throughput * (2.0 + res.response_time), n, rtol=1e-13)
    np.testing.assert_allclose(res.queue_length.sum(axis=1) + res.throughput * 2.0, n,
                               rtol=1e-13)
    # a delay station holds X D customers; the utilization law holds everywhere
    np.testing.assert_allclose(res.queue_length[:, 1], res.throughput * 0.2, rtol=1e-13)
    np.testing.assert_allclose(res.utilization, res.throughput[:, None] * [0.05, 0.2, 0.03])
    assert res.stations[0].name == "cpu"
    # throughput rises towards the bottleneck bound 1 / D_max
    assert np.all(np.diff(res.throughput) > 0)
    assert 0.9 / 0.05 < res.throughput[-1] < 1 / 0.05


def test_convolution_equals_mva_for_load_independent_stations():
    """A queue is a load-dependent station with alpha = 1, a delay one with alpha(j) = j."""
    plain = mva(80, [Station.queue(0.05), Station.delay(0.3), Station.queue(0.02)],
                think_time=1.5)
    as_ld = mva(
        80,
        [
            Station.load_dependent(0.05, [1.0]),
            Station.load_dependent(0.3, lambda j: j),
            Station.queue(0.02),
        ],
        think_time=1.5,
    )
    assert plain.algorithm == "mva" and as_ld.algorithm == "convolution"
    for name in ("throughput", "response_time", "queue_length", "residence_time",
                 "utilization"):
        np.testing.assert_allclose(getattr(as_ld, name), getattr(plain, name), rtol=1e-11)


def test_load_dependent_without_think_time():
    res = mva(40, [Station.multiserver(0.5, 4), Station.queue(0.1)])
    np.testing.assert_allclose(res.throughput * res.response_time, res.population, rtol=1e-12)
    assert res.throughput[-1] == pytest.approx(1 / 0.125, rel=1e-4)  # 4 servers: 0.5/4 = 0.125


def test_multiserver_station_equals_the_mmm_finite_source_model():
    """One m-server station and think time Z is M/M/m//K."""
    res = mva(60, [Station.multiserver(0.8, 5)], think_time=3.0)
    for n in (1, 7, 30, 60):
        ref = mmm_bk(n, n, 5, 0.8, 3.0)
        assert res.throughput[n - 1] == pytest.approx(float(ref["throughput"]), rel=1e-12)
        assert res.response_time[n - 1] == pytest.approx(float(ref["response_time"]), rel=1e-12)


def test_naive_recursion_fails_where_the_convolution_does_not():
    """Around 100 clients at a 30-server station the textbook recursion turns negative; the
    log-space normalizing constants match a 50-digit computation."""
    population, demand, servers, think = 150, 1.0, 30, 5.0

    def alpha(j):
        return min(j, servers)

    naive_x, naive_r, lowest = naive_load_dependent_mva(population, demand, alpha, think)
    ref_x, ref_r, ref_q = closed_network_ld(population, demand, alpha, think)
    ref_x = np.array([float(v) for v in ref_x])
    ref_r = np.array([float(v) for v in ref_r])
    ref_q = np.array([float(v) for v in ref_q])
    # the textbook recursion: negative probabilities and response times, errors of order 1
    assert lowest.min() < 0
    assert naive_r.min() < 0
    assert np.max(np.abs(naive_r / ref_r - 1)) > 1.0
    first_bad = int(np.argmax(lowest < -1e-12)) + 1
    assert 80 <= first_bad <= 110
    # the convolution in log space: exact to rounding
    res = mva(population, [Station.multiserver(demand, servers)], think_time=think)
    np.testing.assert_allclose(res.throughput, ref_x, rtol=1e-12)
    np.testing.assert_allclose(res.response_time, ref_r, rtol=1e-11)
    np.testing.assert_allclose(res.queue_length[:, 0], ref_q, rtol=1e-11)


def test_rate_function_and_held_last_value():
    by_list = mva(50, [Station.load_dependent(0.3, [1.0, 1.5, 2.0])], think_time=1.0)
    by_function = mva(50, [Station.load_dependent(0.3, lambda j: np.minimum(1 + (j - 1) / 2, 2.0))],
                      think_time=1.0)
    by_scalar_function = mva(50, [Station.load_dependent(0.3, lambda j: min(1 + (j - 1) / 2, 2))],
                             think_time=1.0)
    ref_x, ref_r, _ = closed_network_ld(50, 0.3, lambda j: min(1 + (j - 1) / 2, 2), 1.0)
    for res in (by_list, by_function, by_scalar_function):
        np.testing.assert_allclose(res.throughput, [float(v) for v in ref_x], rtol=1e-12)


def test_flow_equivalent_station_reproduces_thread_pool_fes_without_wait():
    """thread_pool(fes) with B >= K is the closed network of one load-dependent station whose
    rate with n requests is 1/cpu_eff(min(n, T)) and the think time."""
    K, T, cpu, z, theta, phi = 40, 6, 0.05, 1.0, 0.1, 0.01

    def alpha(j):  # rate multiplier relative to 1/cpu
        busy = np.minimum(j, T)
        return 1.0 / ((1 + theta * (busy - 1)) * (1 + phi * T))

    res = mva(K, [Station.load_dependent(cpu, alpha)], think_time=z)
    pool = thread_pool(clients=K, capacity=K, threads=T, cpu_time=cpu, wait_time=0.0, think_time=z,
                       thread_overhead=theta, pool_overhead=phi,
                       method="fes")
    assert pool.throughput == pytest.approx(res.throughput[-1], rel=1e-12)
    assert pool.response_time == pytest.approx(res.response_time[-1], rel=1e-12)
    exact = thread_pool(clients=K, capacity=K, threads=T, cpu_time=cpu, wait_time=0.0,
                        think_time=z, thread_overhead=theta, pool_overhead=phi,
                        method="exact")
    assert exact.throughput == pytest.approx(res.throughput[-1], rel=1e-10)


def test_flow_equivalent_station_reproduces_thread_pool_fes_with_wait():
    """The inner network (CPU queue + delay for the wait) solved by MVA for 1..T holders gives
    the rates of the flow-equivalent station."""
    K, T, cpu, wait, z = 60, 8, 0.03, 0.2, 2.0
    inner = mva(T, [Station.queue(cpu), Station.delay(wait)])
    rates = inner.throughput * cpu  # alpha(m) = X_inner(m) D, held for m > T
    res = mva(K, [Station.load_dependent(cpu, rates)], think_time=z)
    pool = thread_pool(clients=K, capacity=200, threads=T, cpu_time=cpu, wait_time=wait,
                       think_time=z, method="fes")
    assert pool.throughput == pytest.approx(res.throughput[-1], rel=1e-12)
    assert pool.mean_in_system == pytest.approx(res.queue_length[-1, 0], rel=1e-12)


def test_thread_pool_without_cpu_is_a_multiserver_station():
    K, T, wait, z = 30, 4, 0.5, 2.0
    res = mva(K, [Station.multiserver(wait, T)], think_time=z)
    for method in ("exact", "fes"):
        pool = thread_pool(clients=K, capacity=K, threads=T, cpu_time=0.0, wait_time=wait,
                           think_time=z, method=method)
        assert pool.throughput == pytest.approx(res.throughput[-1], rel=1e-11)
        assert pool.response_time == pytest.approx(res.response_time[-1], rel=1e-11)
