"""The thread-pool server: exact chain, flow-equivalent server, and their special cases."""

from __future__ import annotations

import numpy as np
import pytest
from reference import (
    FINITE_SOURCE_METRICS,
    THREAD_POOL_METRICS,
    birth_death,
    finite_source_metrics,
    mmm_bk,
    thread_pool_chain,
)

from queuetune import ThreadPoolResult, mm1bk, thread_pool
from queuetune.models.markov import stationary_distribution
from queuetune.models.thread_pool_chain import build_chain, state_count

METHODS = ("exact", "fes")


def _close(actual, expected, rel, tiny=1e-300):
    expected = float(expected)
    if abs(expected) < tiny:
        return abs(actual) < 1e-290
    return abs(actual - expected) <= rel * abs(expected)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("threads", [1, 2, 3, 7, 30, 100, 500])
@pytest.mark.parametrize("clients,capacity", [(100, 50), (40, 200), (60, 60), (25, 5)])
def test_no_wait_no_overhead_is_mm1bk(method, threads, clients, capacity):
    """With wait_time = 0 a thread holder only uses the one CPU: M/M/1/B/K for any T."""
    pool = thread_pool(clients=clients, capacity=capacity, threads=threads, cpu_time=0.14,
                       wait_time=0.0, think_time=4.0, method=method)
    ref = mm1bk(clients=clients, capacity=capacity, service_time=0.14, think_time=4.0)
    for name in FINITE_SOURCE_METRICS:
        assert _close(getattr(pool, name), getattr(ref, name), 1e-10), name
    np.testing.assert_allclose(pool.probabilities, ref.probabilities, rtol=1e-10, atol=1e-300)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("threads", [1, 3, 10, 40])
@pytest.mark.parametrize("clients,capacity", [(50, 30), (30, 100), (80, 80)])
def test_no_cpu_is_the_multiserver_model(method, threads, clients, capacity):
    """With cpu_time = 0 the pool is T servers of mean wait_time: M/M/T/B/K (closed form)."""
    pool = thread_pool(clients=clients, capacity=capacity, threads=threads, cpu_time=0.0,
                       wait_time=0.5, think_time=2.0, method=method)
    ref = mmm_bk(clients, capacity, threads, 0.5, 2.0)
    for name in FINITE_SOURCE_METRICS:
        if name == "utilization":
            assert pool.utilization == 0.0  # no CPU work
            continue
        assert _close(getattr(pool, name), ref[name], 1e-10), name


@pytest.mark.parametrize("method", METHODS)
def test_negligible_cpu_time_approaches_the_multiserver_model(method):
    clients, capacity, threads = 40, 30, 6
    ref = mmm_bk(clients, capacity, threads, 0.5, 2.0)
    pool = thread_pool(clients=clients, capacity=capacity, threads=threads, cpu_time=1e-9,
                       wait_time=0.5, think_time=2.0, method=method)
    for name in ("throughput", "mean_in_system", "error_rate", "rejection_probability"):
        assert _close(getattr(pool, name), ref[name], 1e-6), name
    assert pool.utilization < 1e-7


@pytest.mark.parametrize(
    "case",
    [
        # clients, capacity, threads, cpu, wait, think, thread_overhead, pool_overhead
        (6, 4, 2, 0.3, 0.5, 1.0, 0.0, 0.0),
        (8, 8, 3, 0.1, 0.7, 0.5, 0.0, 0.0),
        (7, 10, 3, 0.2, 0.2, 1.0, 0.0, 0.0),
        (9, 5, 1, 0.4, 0.1, 2.0, 0.0, 0.0),
        (8, 6, 4, 0.3, 0.0, 1.0, 0.2, 0.05),
        (8, 6, 2, 0.0, 0.6, 1.0, 0.0, 0.0),
        (10, 7, 3, 0.25, 0.4, 1.5, 0.3, 0.1),
        (5, 5, 5, 0.2, 1.0, 0.3, 0.0, 0.0),
    ],
    ids=str,
)
def test_exact_chain_equals_a_state_by_state_construction(case):
    """The vectorized generator equals a chain enumerated over (q, c, w) from the model's
    description and solved densely."""
    ref = thread_pool_chain(*case)
    K, B, T, cpu, wait, z, theta, phi = case
    pool = thread_pool(clients=K, capacity=B, threads=T, cpu_time=cpu, wait_time=wait,
                       think_time=z, thread_overhead=theta, pool_overhead=phi)
    assert pool.method == "exact"
    for name in THREAD_POOL_METRICS:
        if name in ("attempt_rate", "drop_rate"):
            continue
        assert _close(getattr(pool, name), ref[name], 1e-10), name
    np.testing.assert_allclose(pool.probabilities, ref["probabilities"], rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("theta,phi", [(0.0, 0.0), (0.2, 0.0), (0.05, 0.02)])
def test_overhead_without_wait_is_a_birth_death_chain(theta, phi):
    """wait_time = 0: death rate 1 / (cpu (1 + theta (min(n,T) - 1)) (1 + phi T))."""
    K, B, T, cpu, z = 30, 20, 4, 0.1, 1.0
    top = min(K, B)
    births = [(K - n) / z for n in range(top)]
    deaths = [1 / (cpu * (1 + theta * (min(n, T) - 1)) * (1 + phi * T)) for n in range(1, top + 1)]
    ref = finite_source_metrics(birth_death(births, deaths), K, B, z, [0] + deaths)
    for method in METHODS:
        pool = thread_pool(clients=K, capacity=B, threads=T, cpu_time=cpu, wait_time=0.0,
                           think_time=z, thread_overhead=theta, pool_overhead=phi,
                           method=method)
        for name in FINITE_SOURCE_METRICS:
            assert _close(getattr(pool, name), ref[name], 1e-10), (method, name)


def test_overhead_slows_the_server():
    base = thread_pool(clients=60, capacity=50, threads=10, cpu_time=0.05, wait_time=0.2,
                       think_time=2.0)
    slower = thread_pool(clients=60, capacity=50, threads=10, cpu_time=0.05, wait_time=0.2,
                         think_time=2.0, thread_overhead=0.05, pool_overhead=0.01)
    assert slower.throughput < base.throughput
    assert slower.response_time > base.response_time


@pytest.mark.parametrize("method", METHODS)
def test_flow_balance_and_little(method):
    res = thread_pool(clients=70, capacity=40, threads=5, cpu_time=0.03, wait_time=0.2,
                      think_time=2.0, method=method)
    n = np.arange(res.probabilities.size)
    admitted = np.sum(res.probabilities[:40] * (70 - n[:40]) / 2.0)
    assert res.throughput == pytest.approx(admitted, rel=1e-10)
    assert res.attempt_rate - res.drop_rate == pytest.approx(res.throughput, rel=1e-10)
    assert res.mean_in_system == pytest.approx(res.throughput * res.response_time, rel=1e-12)
    assert res.busy_threads + res.queue_length == pytest.approx(res.mean_in_system, rel=1e-12)
    assert res.queue_wait == pytest.approx(res.queue_length / res.throughput, rel=1e-12)
    # the CPU is busy X * cpu_time of the time (utilization law)
    assert res.utilization == pytest.approx(res.throughput * 0.03, rel=1e-10)


def test_fes_is_an_approximation_with_few_threads():
    """A thread is held for a CPU phase plus a waiting phase (not exponential): with one
    thread the decomposition misses the response time by several percent."""
    exact = thread_pool(clients=100, capacity=50, threads=1, cpu_time=0.03, wait_time=0.01,
                        think_time=4.0, method="exact")
    fes = thread_pool(clients=100, capacity=50, threads=1, cpu_time=0.03, wait_time=0.01,
                      think_time=4.0, method="fes")
    error = abs(fes.response_time / exact.response_time - 1)
    assert 0.02 < error < 0.2
    # with threads to spare the pool never queues and both methods agree
    exact = thread_pool(clients=100, capacity=50, threads=100, cpu_time=0.03, wait_time=0.01,
                        think_time=4.0, method="exact")
    fes = thread_pool(clients=100, capacity=50, threads=100, cpu_time=0.03, wait_time=0.01,
                      think_time=4.0, method="fes")
    assert fes.response_time == pytest.approx(exact.response_time, rel=1e-10)


def test_scalars_and_broadcasting():
    one = thread_pool(clients=50, capacity=200, threads=10, cpu_time=0.02, wait_time=0.1,
                      think_time=4.0)
    assert isinstance(one, ThreadPoolResult)
    for name in THREAD_POOL_METRICS:
        assert isinstance(getattr(one, name), np.float64), name
    assert one.clients == 50 and one.threads == 10 and one.method == "exact"
    many = thread_pool(clients=[[10], [50]], capacity=[5, 200], threads=[1, 10], cpu_time=0.02,
                       wait_time=0.1, think_time=4.0, method="fes")
    assert many.throughput.shape == (2, 2)
    assert many.probabilities.shape == (2, 2, 51)
    assert many.method == "fes"
    single = thread_pool(clients=10, capacity=5, threads=1, cpu_time=0.02, wait_time=0.1,
                         think_time=4.0, method="fes")
    assert many.throughput[0, 0] == single.throughput
    np.testing.assert_array_equal(many.probabilities[0, 0, :6], single.probabilities)
    assert np.all(many.probabilities[0, 0, 6:] == 0)


def test_state_count_matches_the_chain():
    for args in [(10, 8, 3), (100, 200, 30), (5, 5, 10), (1, 1, 1)]:
        counts = dict(zip(("clients", "capacity", "threads"), args, strict=True))
        chain = build_chain(**counts, cpu_time=0.1, wait_time=0.2, think_time=1.0)
        assert chain.level.size == state_count(**counts, two_phases=True)
        chain = build_chain(**counts, cpu_time=0.1, wait_time=0.0, think_time=1.0)
        assert chain.level.size == state_count(**counts, two_phases=False)
    assert state_count(clients=10**5, capacity=10**5, threads=1000,
                       two_phases=True) > 10**7  # counted without allocating


def test_stationary_solver_recovers_from_a_poor_pinned_state():
    """Pinning a state of probability ~1e-200 would overflow the others; the solver re-pins."""
    chain = build_chain(clients=400, capacity=400, threads=1, cpu_time=1.0, wait_time=1e-3,
                        think_time=1e-3)  # heavy load: level 0 is very unlikely
    pi_bad = stationary_distribution(chain.generator, pinned=0)
    good = int(np.argmax(pi_bad))
    pi_good = stationary_distribution(chain.generator, pinned=good)
    assert pi_bad[0] < 1e-200
    np.testing.assert_allclose(pi_bad, pi_good, rtol=1e-9, atol=1e-300)


def test_a_large_fes_is_fast_and_sensible():
    res = thread_pool(clients=10**6, capacity=10**6, threads=200, cpu_time=0.001, wait_time=0.05,
                      think_time=4.0, method="fes")
    # the CPU saturates: X = 1 / cpu_time, nearly every client waits in the server
    assert res.throughput == pytest.approx(1000.0, rel=1e-9)
    assert res.utilization == pytest.approx(1.0, rel=1e-9)
    assert res.busy_threads == pytest.approx(200.0, rel=1e-9)
    assert res.mean_in_system == pytest.approx(10**6 - 4.0 * 1000.0, rel=1e-6)


def test_no_negative_zero_when_capacity_exceeds_clients():
    import math

    from queuetune import thread_pool

    result = thread_pool(clients=10, capacity=20, threads=3, cpu_time=0.07, wait_time=0.07,
                         think_time=4.0)
    for name in ("rejection_probability", "drop_rate", "error_rate"):
        value = float(getattr(result, name))
        assert value == 0.0 and math.copysign(1.0, value) == 1.0, name
