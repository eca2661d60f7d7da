"""The queueing fitters on what real measurements bring: an unknown thread count, a measured
(non-integer) concurrency, several processors, a pool of connections, and data a model cannot
describe."""

from __future__ import annotations

import numpy as np
import pytest

from queuetune import mm1bk, thread_pool
from queuetune.fit import fit_mm1bk, fit_thread_pool
from queuetune.fit.queueing import MAX_PROFILED_THREADS, interpolated

CLIENTS = np.array([2, 4, 8, 12, 16, 24, 32, 48])


def _pool(clients, threads, method="exact", **extra):
    return thread_pool(clients=clients, capacity=60, threads=threads, cpu_time=0.02,
                       wait_time=0.08, think_time=0.5, method=method, **extra)


def test_the_thread_count_is_profiled_like_the_capacity():
    truth = _pool(CLIENTS, 4, method="fes")
    fit = fit_thread_pool(clients=CLIENTS, response_time=truth.response_time,
                          throughput=truth.throughput, capacity=60, threads=None,
                          thread_range=(1, 12), free=("cpu_time", "wait_time"),
                          fixed={"think_time": 0.5}, intervals="none", verify=False)
    assert fit.threads == 4 and fit.estimates["threads"] == 4
    low, high = fit.intervals["threads"]
    assert low <= 4 <= high
    profile = fit.details["threads_profile"]
    assert list(profile["threads"]) == list(range(1, 13))
    assert profile.loc[profile["threads"] == 4, "loglik"].item() == profile["loglik"].max()
    assert fit.cpu_time == pytest.approx(0.02, rel=1e-4)
    assert fit.k == 2 + 2 + 1  # two times, two noise levels and the thread count
    pred = fit.predict(clients=[10, 20])
    assert list(pred["threads"]) == [4, 4]


def test_a_thread_range_beyond_the_limit_is_refused_with_the_way_out():
    truth = _pool(CLIENTS, 4)
    with pytest.raises(ValueError, match="MAX_PROFILED_THREADS.*narrower thread_range"):
        fit_thread_pool(clients=CLIENTS * 200, response_time=truth.response_time,
                        threads=None, thread_range=(1, MAX_PROFILED_THREADS + 10),
                        intervals="none")
    with pytest.raises(ValueError, match="MAX_PROFILE_SECONDS.*narrower thread_range"):
        fit_thread_pool(clients=CLIENTS * 10, response_time=truth.response_time,
                        capacity=600, threads=None, thread_range=(1, 150), intervals="none")
    with pytest.raises(ValueError, match="thread_range must be None"):
        fit_thread_pool(clients=CLIENTS, response_time=truth.response_time, capacity=60,
                        threads=4, thread_range=(1, 5), intervals="none")


def test_a_non_integer_concurrency_interpolates_between_its_neighbours():
    def solve(K, rows):
        res = mm1bk(clients=K, capacity=50, service_time=0.1, think_time=2.0)
        return {"response_time": np.atleast_1d(res.response_time)}

    got = interpolated(np.array([3.0, 3.25, 7.5]), solve)["response_time"]
    r = mm1bk(clients=[3, 4, 7, 8], capacity=50, service_time=0.1, think_time=2.0).response_time
    assert got[0] == r[0]
    assert got[1] == pytest.approx(0.75 * r[0] + 0.25 * r[1], rel=1e-15)
    assert got[2] == pytest.approx(0.5 * r[2] + 0.5 * r[3], rel=1e-15)


def test_fitters_accept_a_measured_concurrency():
    busy = np.array([1.6, 3.3, 6.9, 10.4, 15.2, 22.7])
    weights = busy - np.floor(busy)
    low = mm1bk(clients=np.floor(busy), capacity=40, service_time=0.05, think_time=0.4)
    high = mm1bk(clients=np.floor(busy) + 1, capacity=40, service_time=0.05, think_time=0.4)
    response = (1 - weights) * low.response_time + weights * high.response_time
    fit = fit_mm1bk(clients=busy, capacity=40, response_time=response, intervals="none")
    assert fit.service_time == pytest.approx(0.05, rel=1e-5)
    assert fit.think_time == pytest.approx(0.4, rel=1e-5)
    pool = fit_thread_pool(clients=busy, threads=np.full(busy.size, 3), capacity=40,
                           response_time=response, free=("cpu_time", "think_time"),
                           fixed={"wait_time": 0.0}, method="exact", intervals="none")
    assert np.all(np.isfinite(pool.residuals))


def test_the_thread_pool_fitter_takes_processors_and_connections():
    T = np.array([2, 2, 2, 8, 8, 8, 16, 16, 16])
    K = np.array([5, 20, 40] * 3)
    common = dict(capacity=60, processors=4, connections=6)
    truth = thread_pool(clients=K, threads=T, cpu_time=0.02, wait_time=0.08, think_time=0.5,
                        method="exact", **common)
    fit = fit_thread_pool(clients=K, threads=T, response_time=truth.response_time,
                          throughput=truth.throughput, utilization=truth.utilization,
                          free=("cpu_time", "wait_time"), fixed={"think_time": 0.5},
                          method="exact", intervals="none", **common)
    assert fit.processors == 4 and fit.connections == 6
    assert fit.cpu_time == pytest.approx(0.02, rel=1e-5)
    assert fit.wait_time == pytest.approx(0.08, rel=1e-5)
    one = fit_thread_pool(clients=K, threads=T, response_time=truth.response_time,
                          throughput=truth.throughput, utilization=truth.utilization,
                          capacity=60, free=("cpu_time", "wait_time"),
                          fixed={"think_time": 0.5}, method="exact", intervals="none")
    assert abs(one.cpu_time / 0.02 - 1) > 0.01  # one processor and no pool: another answer


def _decreasing():
    return np.array([10, 20, 30, 40, 50]), np.array([0.5, 0.4, 0.3, 0.2, 0.1])


def test_fit_mm1bk_warns_when_it_explains_less_than_a_constant():
    K, R = _decreasing()
    with pytest.warns(UserWarning, match=r"M/M/1/B/K fit explains less than a constant"):
        fit = fit_mm1bk(clients=K, capacity=100, response_time=R, intervals="none")
    assert any("less than a constant" in w for w in fit.warnings)
    assert fit.goodness_of_fit()["r_squared"].iloc[0] < 0


def test_fit_thread_pool_warns_when_it_explains_less_than_a_constant():
    K, R = _decreasing()
    with pytest.warns(UserWarning, match=r"thread pool fit explains less than a constant"):
        fit_thread_pool(clients=K, threads=np.full(K.size, 4), capacity=100, response_time=R,
                        free=("cpu_time", "wait_time"), fixed={"think_time": 1.0},
                        intervals="none", verify=False)


def test_a_good_fit_does_not_warn():
    truth = _pool(CLIENTS, 4)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = fit_mm1bk(clients=CLIENTS, capacity=60, response_time=truth.response_time,
                        intervals="none")
    assert not any("less than a constant" in w for w in fit.warnings)
