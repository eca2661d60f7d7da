"""The M/M/1/B/K model against independent high-precision references."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from reference import FINITE_SOURCE_METRICS, mm1bk_equations, mm1bk_incomplete_gamma

from queuetune import MM1BKResult, mm1bk
from queuetune.models import birth_death
from queuetune.models.single_server import mm1bk_probabilities

MM1BK_ARGS = ("clients", "capacity", "service_time", "think_time")

# (clients, capacity, service_time, think_time): small and mid sizes, B below, at and above K,
# light and heavy load
CASES = [
    (1, 1, 0.14, 4.0),
    (3, 2, 0.14, 4.0),
    (10, 50, 0.14, 4.0),
    (50, 50, 0.14, 4.0),
    (100, 50, 0.14, 4.0),
    (100, 200, 0.14, 4.0),
    (30, 7, 1.0, 0.5),
    (40, 40, 0.01, 100.0),
    (250, 120, 0.05, 3.0),
    (400, 400, 0.2, 1.0),
    (5, 1000, 2.0, 0.001),
    # light load over many states: t_k / t_0 reaches 1e2400, far beyond the float range
    (400, 400, 1e-6, 1.0),
    (300, 250, 1e-4, 50.0),
]


def _close(actual, expected, rel):
    expected = float(expected)
    if expected == 0.0:
        return actual == 0.0
    return abs(actual - expected) <= rel * abs(expected)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_equations_3_to_5_agree_with_mpmath(case):
    result = mm1bk(**dict(zip(MM1BK_ARGS, case, strict=True)))
    ref = mm1bk_equations(*case)
    for name in FINITE_SOURCE_METRICS:
        assert _close(float(getattr(result, name)), ref[name], 1e-12), name
    probabilities = result.probabilities
    assert probabilities.shape == (min(case[0], case[1]) + 1,)
    for got, want in zip(probabilities, ref["probabilities"], strict=True):
        assert _close(got, want, 1e-12) or (float(want) < 1e-300 and got < 1e-290)


@pytest.mark.parametrize("steps", [1, 10**9], ids=["state by state", "chunks"])
def test_both_ways_of_cutting_the_work_agree_with_mpmath(monkeypatch, steps):
    """State by state across configurations, or chunks of states per configuration."""
    monkeypatch.setattr(birth_death, "_STEP_ROWS", steps)
    monkeypatch.setattr(birth_death, "_CHUNK_ELEMENTS", 7)
    K, B, S, Z = (np.array(column) for column in zip(*CASES, strict=True))
    batch = mm1bk(clients=K, capacity=B, service_time=S, think_time=Z)
    for i, case in enumerate(CASES):
        ref = mm1bk_equations(*case)
        for name in FINITE_SOURCE_METRICS:
            assert _close(float(getattr(batch, name)[i]), ref[name], 1e-12), (case, name)


def test_the_batch_paths_agree_on_a_grid():
    """A batch large enough for the recursion equals configuration-by-configuration solves."""
    rng = np.random.default_rng(3)
    K = rng.integers(1, 300, 3000)
    B = rng.integers(1, 300, 3000)
    S = rng.uniform(0.01, 1.0, 3000)
    Z = rng.uniform(0.1, 10.0, 3000)
    batch = mm1bk(clients=K, capacity=B, service_time=S, think_time=Z)
    for i in rng.choice(3000, 40, replace=False):
        one = mm1bk(clients=K[i], capacity=B[i], service_time=S[i], think_time=Z[i])
        for name in FINITE_SOURCE_METRICS:
            assert _close(getattr(batch, name)[i], getattr(one, name), 1e-12), name


def test_the_batch_paths_agree_under_light_load():
    """Z/S up to 1e8 over hundreds of states: the recursion rescales its sums."""
    rng = np.random.default_rng(5)
    K = rng.integers(100, 400, 2000)
    B = rng.integers(50, 400, 2000)
    S = 10.0 ** rng.uniform(-6, -4, 2000)
    Z = rng.uniform(1.0, 100.0, 2000)
    batch = mm1bk(clients=K, capacity=B, service_time=S, think_time=Z)
    for i in rng.choice(2000, 40, replace=False):
        one = mm1bk(clients=K[i], capacity=B[i], service_time=S[i], think_time=Z[i])
        for name in ("throughput", "utilization", "mean_in_system", "p0", "response_time"):
            assert _close(getattr(batch, name)[i], getattr(one, name), 1e-12), name
    for i in range(3):
        ref = mm1bk_equations(int(K[i]), int(B[i]), S[i], Z[i])
        for name in ("throughput", "utilization", "mean_in_system", "response_time"):
            assert _close(getattr(batch, name)[i], ref[name], 1e-12), name


def test_the_papers_point():
    """K = 100, B = 50, S = 0.14 s, Z = 4 s: the server saturates and drops requests."""
    res = mm1bk(clients=100, capacity=50, service_time=0.14, think_time=4.0)
    assert res.utilization == pytest.approx(1.0, abs=1e-6)
    assert res.throughput == pytest.approx(1 / 0.14, rel=1e-6)
    assert res.error_rate > res.rejection_probability > 0
    # Little's law on the clients: thinking clients K - N send at rate (K - N)/Z
    assert res.attempt_rate == pytest.approx((100 - res.mean_in_system) / 4.0, rel=1e-12)
    assert res.attempt_rate - res.drop_rate == pytest.approx(res.throughput, rel=1e-12)


def test_scalars_in_scalars_out():
    res = mm1bk(clients=10, capacity=5, service_time=0.14, think_time=4.0)
    assert isinstance(res, MM1BKResult)
    for name in FINITE_SOURCE_METRICS:
        value = getattr(res, name)
        assert isinstance(value, np.float64) and np.ndim(value) == 0, name
    assert res.clients == 10 and res.capacity == 5


def test_arrays_broadcast_and_probabilities_are_padded():
    clients = np.array([[1], [10], [100]])
    capacity = np.array([5, 50])
    res = mm1bk(clients=clients, capacity=capacity, service_time=0.14, think_time=4.0)
    assert res.throughput.shape == (3, 2)
    assert res.probabilities.shape == (3, 2, 51)  # C = min(B, K) is at most 50
    for i, k in enumerate([1, 10, 100]):
        for j, b in enumerate([5, 50]):
            one = mm1bk(clients=k, capacity=b, service_time=0.14, think_time=4.0)
            top = min(k, b)
            assert res.throughput[i, j] == pytest.approx(one.throughput, rel=1e-13)
            np.testing.assert_allclose(res.probabilities[i, j, : top + 1], one.probabilities,
                                       rtol=1e-12, atol=1e-300)
            assert np.all(res.probabilities[i, j, top + 1 :] == 0.0)
    np.testing.assert_allclose(res.probabilities.sum(axis=-1), 1.0, rtol=1e-13)


def test_probabilities_match_the_scalar_metrics():
    K = np.arange(1, 120)
    res = mm1bk(clients=K, capacity=60, service_time=0.14, think_time=4.0)
    p = res.probabilities
    n = np.arange(p.shape[-1])
    np.testing.assert_allclose(p[:, 0], res.p0, rtol=1e-12)
    np.testing.assert_allclose(p @ n, res.mean_in_system, rtol=1e-12)
    np.testing.assert_allclose(p[:, 1:].sum(axis=1), res.utilization, rtol=1e-12)


def test_capacity_above_clients():
    """B > K: state B cannot be reached, nothing is dropped, the model is M/M/1//K."""
    res = mm1bk(clients=20, capacity=200, service_time=0.14, think_time=4.0)
    same = mm1bk(clients=20, capacity=20, service_time=0.14, think_time=4.0)
    assert res.error_rate == 0.0 and res.rejection_probability == 0.0 and res.drop_rate == 0.0
    assert same.error_rate > 0.0  # p_K > 0, but no arrival ever finds K requests
    assert same.rejection_probability == 0.0
    assert res.throughput == same.throughput
    assert res.probabilities.shape == (21,)


def test_error_rate_differs_from_rejection_probability():
    """p_B is a time average; an arriving request sees the chain with one client fewer."""
    res = mm1bk(clients=30, capacity=5, service_time=0.5, think_time=2.0)
    ref = mm1bk_equations(29, 5, 0.5, 2.0)
    # arrival theorem: an arrival from K sources sees the time-average state of K - 1 sources
    assert res.rejection_probability == pytest.approx(float(ref["error_rate"]), rel=1e-12)
    assert res.rejection_probability < res.error_rate


def test_a_million_clients_and_capacity():
    res = mm1bk(clients=10**6, capacity=10**6, service_time=0.14, think_time=4.0)
    assert np.isfinite([getattr(res, m) for m in FINITE_SOURCE_METRICS]).all()
    assert res.utilization == pytest.approx(1.0, abs=1e-15)
    assert res.throughput == pytest.approx(1 / 0.14, rel=1e-15)
    # all but about Z/S clients are queued: N = K - X Z
    assert res.mean_in_system == pytest.approx(10**6 - 4.0 / 0.14, rel=1e-12)
    assert res.response_time == pytest.approx((10**6 - 4.0 / 0.14) * 0.14, rel=1e-12)


@pytest.mark.parametrize("ratio", [10**6, 9 * 10**5, 1.2 * 10**6])
def test_a_million_clients_against_the_incomplete_gamma_function(ratio):
    """Z/S near K: p0 is neither 0 nor 1 and every state matters; exact within 1e-10."""
    service, think = 4.0 / ratio, 4.0
    res = mm1bk(clients=10**6, capacity=10**6, service_time=service, think_time=think)
    ref = mm1bk_incomplete_gamma(10**6, mp.mpf(think) / mp.mpf(service))
    assert _close(res.p0, ref["p0"], 1e-10)
    assert _close(res.utilization, ref["utilization"], 1e-12)
    assert _close(res.mean_in_system, ref["mean_in_system"], 1e-10)
    assert _close(res.error_rate, ref["last"], 1e-9)


def test_a_million_clients_small_capacity():
    res = mm1bk(clients=10**6, capacity=50, service_time=0.14, think_time=4.0)
    ref = mm1bk_equations(10**6, 50, 0.14, 4.0)
    assert res.utilization == 1.0
    for name in FINITE_SOURCE_METRICS:
        assert _close(float(getattr(res, name)), ref[name], 1e-12), name
    assert res.error_rate == pytest.approx(1.0, abs=1e-4)  # nearly always full


def test_light_load_keeps_relative_accuracy():
    """U = 1 - p0 is summed directly, so a utilization of 1e-9 keeps all its digits."""
    res = mm1bk(clients=3, capacity=3, service_time=1e-6, think_time=1e3)
    ref = mm1bk_equations(3, 3, 1e-6, 1e3)
    assert float(ref["utilization"]) < 1e-8
    for name in ("utilization", "throughput", "response_time", "mean_in_system"):
        assert _close(float(getattr(res, name)), ref[name], 1e-12), name


def test_probabilities_function_matches_result():
    p = mm1bk_probabilities(clients=[5, 500], capacity=100, service_time=0.14, think_time=4.0)
    assert p.shape == (2, 101)
    np.testing.assert_allclose(p[1], mm1bk(clients=500, capacity=100, service_time=0.14,
                                           think_time=4.0).probabilities, rtol=1e-13)


def test_probabilities_refuse_a_huge_array():
    res = mm1bk(clients=np.full(2000, 70_000), capacity=70_000, service_time=0.14, think_time=4.0)
    assert res.throughput.shape == (2000,)
    with pytest.raises(ValueError, match="MAX_PROBABILITY_ELEMENTS"):
        res.probabilities  # noqa: B018


def test_too_much_work_is_refused_before_it_starts():
    with pytest.raises(ValueError, match="MAX_TOTAL_STATES"):
        mm1bk(clients=np.full(200_000, 10**6), capacity=10**6, service_time=0.14, think_time=4.0)
    with pytest.raises(ValueError, match="MAX_STATES"):
        mm1bk(clients=10**8, capacity=10**8, service_time=0.14, think_time=4.0)


def test_too_many_configurations_are_refused():
    with pytest.raises(ValueError, match="MAX_CONFIGURATIONS"):
        mm1bk(clients=np.ones((4000, 1), dtype=int), capacity=np.ones(4000, dtype=int),
              service_time=0.14, think_time=4.0)


@pytest.fixture(scope="module")
def cut_batch():
    """5,000 random configurations and their solution with the work cut the default way,
    solved once for every way of cutting it below."""
    rng = np.random.default_rng(11)
    K, B = rng.integers(1, 300, 5000), rng.integers(1, 300, 5000)
    S, Z = rng.uniform(0.01, 1.0, 5000), rng.uniform(0.1, 10.0, 5000)
    return (K, B, S, Z), mm1bk(clients=K, capacity=B, service_time=S, think_time=Z)


@pytest.mark.parametrize("rows, steps, elements", [(1500, 1, 64), (7, 10**9, 3),
                                                    (1100, 200, 1 << 12)])
def test_how_the_work_is_cut_changes_no_bit(monkeypatch, cut_batch, rows, steps, elements):
    """Blocks of configurations, steps across them or chunks of states: the same bits."""
    (K, B, S, Z), whole = cut_batch
    monkeypatch.setattr(birth_death, "_BLOCK_ROWS", rows)
    monkeypatch.setattr(birth_death, "_STEP_ROWS", steps)
    monkeypatch.setattr(birth_death, "_CHUNK_ELEMENTS", elements)
    cut = mm1bk(clients=K, capacity=B, service_time=S, think_time=Z)
    for name in FINITE_SOURCE_METRICS:
        np.testing.assert_array_equal(getattr(cut, name), getattr(whole, name))


def test_a_batch_population_is_the_limit_of_short_think_times():
    """think_time = 0 (capacity >= clients): every client is always in the server."""
    batch = mm1bk(clients=[6, 6], capacity=[6, 10], service_time=0.2, think_time=0.0)
    near = mm1bk(clients=[6, 6], capacity=[6, 10], service_time=0.2, think_time=1e-9)
    assert list(batch.mean_in_system) == [6, 6] and list(batch.error_rate) == [1, 0]
    assert list(batch.rejection_probability) == [0, 0] and list(batch.drop_rate) == [0, 0]
    assert list(batch.attempt_rate) == list(batch.throughput) == [5, 5]
    for name in ("throughput", "response_time", "utilization", "mean_in_system"):
        np.testing.assert_allclose(getattr(batch, name), getattr(near, name), rtol=1e-7)
    np.testing.assert_array_equal(batch.probabilities[0], [0, 0, 0, 0, 0, 0, 1])
