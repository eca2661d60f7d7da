"""queuetune.fit.fit_thread_pool: recovery from data the model made, intervals that cover the
truth, the check of the flow-equivalent solution against the exact chain, identifiability
warnings and input checks.

Coverage rule (deterministic): with 95 % intervals and seeds 0..3, each parameter's interval
must contain the true value in at least 3 of the 4 replications (fewer would happen with
probability 1.4 % if the intervals had their nominal coverage).
"""

from __future__ import annotations

import numpy as np
import pytest

from queuetune import thread_pool
from queuetune.fit import fit_thread_pool

K = np.repeat([5, 10, 20, 40], 3)
T = np.tile([2, 4, 8], 4)
B = 30
TRUE = {"cpu_time": 0.02, "wait_time": 0.05, "think_time": 1.0}
FREE = ("cpu_time", "wait_time", "think_time")


def model(method="fes", **extra):
    return thread_pool(clients=K, capacity=B, threads=T, cpu_time=TRUE["cpu_time"],
                       wait_time=TRUE["wait_time"], think_time=TRUE["think_time"],
                       method=method, **extra)


def noisy(values, seed, sd=0.03):
    return values * np.exp(np.random.default_rng(seed).normal(0.0, sd, values.shape))


def test_recovers_parameters_from_noiseless_data_and_checks_against_exact():
    truth = model()
    fit = fit_thread_pool(clients=K, threads=T, response_time=truth.response_time,
                          utilization=truth.utilization,
                          capacity=B, free=FREE, intervals="none")
    for name, value in TRUE.items():
        assert fit.estimates[name] == pytest.approx(value, rel=0.01), name
    check = fit.exact_check.set_index("quantity")
    assert set(check.index) == {"response_time", "utilization"}
    # fes is an approximation: the reported difference is the real one at the estimate
    exact = model("exact")
    diff = np.max(np.abs(fit.fitted["response_time"] / exact.response_time - 1))
    assert check.loc["response_time", "max_relative_difference"] == pytest.approx(diff,
                                                                                  rel=1e-6)


def test_exact_method_recovers_overhead_from_noiseless_data():
    truth = model("exact", thread_overhead=0.05)
    fit = fit_thread_pool(clients=K, threads=T, response_time=truth.response_time,
                          throughput=truth.throughput,
                          capacity=B, free=(*FREE, "thread_overhead"), method="exact",
                          intervals="none")
    for name, value in (TRUE | {"thread_overhead": 0.05}).items():
        assert fit.estimates[name] == pytest.approx(value, rel=0.01), name
    assert fit.exact_check is None


def test_profile_intervals_cover_the_truth():
    truth = model()
    covered = np.zeros(len(FREE), dtype=int)
    for seed in range(4):
        fit = fit_thread_pool(clients=K, threads=T, response_time=noisy(truth.response_time, seed),
                              utilization=noisy(truth.utilization, 100 + seed),
                              capacity=B, free=FREE, verify=False)
        covered += [fit.intervals[n][0] <= TRUE[n] <= fit.intervals[n][1] for n in FREE]
    assert covered.min() >= 3, covered


def test_cpu_and_wait_time_trade_off_without_utilization_at_light_load():
    # one request at a time: R = cpu + wait, so only the sum is measured
    k = np.array([1, 2, 3, 4, 5, 6])
    t = np.full(k.size, 10)
    truth = thread_pool(clients=k, capacity=50, threads=t, cpu_time=0.02, wait_time=0.05,
                        think_time=5.0)
    fit = fit_thread_pool(clients=k, threads=t, response_time=noisy(truth.response_time, 0,
                                                                    sd=0.01),
                          throughput=noisy(truth.throughput, 1, sd=0.01), capacity=50,
                          free=FREE, intervals="none")
    assert "cpu_time and wait_time" in fit.identifiability


def test_large_fes_error_is_reported():
    # a single thread is where the flow-equivalent server is worst
    k = np.array([5, 10, 20, 40])
    t = np.ones(4, dtype=int)
    truth = thread_pool(clients=k, capacity=30, threads=t, cpu_time=0.02, wait_time=0.05,
                        think_time=1.0, method="fes")
    fit = fit_thread_pool(clients=k, threads=t, response_time=truth.response_time, capacity=30,
                          free=("cpu_time", "think_time"), fixed={"wait_time": 0.05},
                          intervals="none")
    assert any("refit with method='exact'" in w for w in fit.warnings)


def test_predict_returns_the_model_at_new_settings():
    truth = model()
    fit = fit_thread_pool(clients=K, threads=T, response_time=truth.response_time,
                          utilization=truth.utilization,
                          capacity=B, free=FREE, intervals="none")
    pred = fit.predict(clients=[15, 30], threads=[3, 6])
    direct = thread_pool(clients=[15, 30], capacity=B, threads=[3, 6], cpu_time=fit.cpu_time,
                         wait_time=fit.wait_time, think_time=fit.think_time,
                         method="fes")
    assert np.allclose(pred["response_time"], direct.response_time)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"threads": [1, 2]}, "threads must have one value per element of clients"),
    ({"response_time": [0.1, 0.2, -0.3]}, "response_time must be"),
    ({"fixed": {"cpu_time": 0.1}, "free": ("cpu_time", "think_time")},
     "cannot be both free and fixed"),
    ({"free": ("cpu_time", "think_time")}, "wait_time must be fitted"),
    ({"free": ("cpu", "think_time")}, "free must name only parameters among"),
    ({"capacity": 2.5}, "capacity must be"),
    ({"method": "mva"}, "method must be one of"),
    ({"clients": [5, 5, 5], "threads": [2, 2, 2]}, "must not both be all equal"),
    ({"utilization": [0.1, 0.2, 1.5]}, r"utilization .* <= 1"),
])
def test_rejects_bad_inputs(kwargs, match):
    args = {"clients": [5, 10, 20], "threads": [2, 2, 2], "response_time": [0.1, 0.2, 0.3],
            "capacity": 30, "free": FREE}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        fit_thread_pool(clients=args.pop("clients"), threads=args.pop("threads"), **args)


def test_too_few_observations_for_the_free_parameters():
    with pytest.raises(ValueError, match="too few observations: 5 fitted parameters"):
        fit_thread_pool(clients=[5, 10, 20], threads=[2, 2, 2], response_time=[0.1, 0.2, 0.3],
                        capacity=30)


# --------------------------------------------------------------------------- a plain call


def _measured_concurrency(seed, cpu_time=0.002, wait_time=0.2, threads=60, size=300,
                          least=10.0, most=110.0):
    """A day of a server's samples as a monitor gives them: the mean concurrency (not whole)
    and the throughput of a batch population (think time 0), with 5 % noise."""
    rng = np.random.default_rng(seed)
    concurrency = rng.uniform(least, most, size)
    low = np.floor(concurrency)
    frac = concurrency - low
    # the flow-equivalent server is exact here: with think time 0 and every request admitted,
    # min(K, T) threads are held at every instant
    at = [thread_pool(clients=k.astype(int), capacity=int(most) + 1, threads=threads,
                      cpu_time=cpu_time, wait_time=wait_time, think_time=0.0,
                      method="fes").throughput
          for k in (low, low + 1)]
    x = (1 - frac) * at[0] + frac * at[1]
    return concurrency, x * np.exp(rng.normal(0.0, 0.05, size))


def test_a_plain_call_on_a_measured_concurrency_finds_the_thread_count():
    concurrency, throughput = _measured_concurrency(seed=1)
    fit = fit_thread_pool(clients=concurrency, throughput=throughput, threads=None)
    low, high = fit.intervals["threads"]
    assert low <= 60 <= high and high - low <= 10
    assert fit.cpu_time + fit.wait_time == pytest.approx(0.202, rel=0.02)
    # the whole range 1..110 was open to the search, and it fitted few of the counts
    profile = fit.details["threads_profile"]
    assert profile["threads"].min() == 1 and profile["threads"].max() == 110
    assert len(profile) < 50
    assert fit.fixed["think_time"] == 0.0 and "batch population" in fit.details["solver"]


def test_a_plain_call_says_which_parameters_the_data_cannot_separate():
    # processor time of 0.1 % of the service time: no processor contention to see
    concurrency, throughput = _measured_concurrency(seed=2, cpu_time=0.0002)
    fit = fit_thread_pool(clients=concurrency, throughput=throughput, threads=None)
    said = " ".join(fit.warnings)
    assert "think_time fixed at 0" in said and "trade off" in said
    assert "cpu_time fixed at 0" in said and fit.cpu_time == 0.0
    assert "cpu_time" not in fit.free


def test_a_plain_call_keeps_the_processor_time_the_data_show():
    # the processor is the bottleneck before the threads: its time is identified
    concurrency, throughput = _measured_concurrency(seed=3, cpu_time=0.01, wait_time=0.1,
                                                    threads=40, least=1.0)
    fit = fit_thread_pool(clients=concurrency, throughput=throughput, threads=None)
    assert "cpu_time" in fit.free
    assert not any("cpu_time fixed" in w for w in fit.warnings)
    assert fit.cpu_time == pytest.approx(0.01, rel=0.1)


def test_think_time_zero_is_accepted_and_needs_every_request_admitted():
    concurrency, throughput = _measured_concurrency(seed=4)
    fit = fit_thread_pool(clients=concurrency, throughput=throughput, threads=60,
                          fixed={"think_time": 0, "cpu_time": 0}, free=("wait_time",),
                          intervals="none")
    assert fit.wait_time == pytest.approx(0.202, rel=0.02)
    with pytest.raises(ValueError, match="capacity must be at least clients"):
        fit_thread_pool(clients=concurrency, throughput=throughput, threads=60, capacity=50,
                        fixed={"think_time": 0, "cpu_time": 0}, free=("wait_time",),
                        intervals="none")


def test_fitted_at_gives_the_model_between_the_measurements():
    concurrency, throughput = _measured_concurrency(seed=5)
    fit = fit_thread_pool(clients=concurrency, throughput=throughput, threads=None,
                          intervals="none")
    at = fit.fitted_at(clients=concurrency)
    np.testing.assert_allclose(at["throughput"], fit.fitted["throughput"], rtol=1e-12)
    # below 1: the server idle part of the time, the throughput in proportion
    low = fit.fitted_at(clients=[0.25, 1.0])["throughput"].to_numpy()
    assert low[0] == pytest.approx(0.25 * low[1], rel=1e-12)


def test_freeing_processor_and_wait_time_does_not_land_on_a_flat_fit():
    # the threads bound these data; a processor-bound flat throughput (R² < 0, a UserWarning
    # that the tests turn into an error) is the local optimum a neighbour's start led to
    concurrency, throughput = _measured_concurrency(seed=6, cpu_time=0.0005, wait_time=0.37,
                                                    threads=260, size=234, least=130.0,
                                                    most=342.0)
    fit = fit_thread_pool(clients=concurrency, throughput=throughput, threads=None,
                          free=("cpu_time", "wait_time"), fixed={"think_time": 0},
                          intervals="none")
    low, high = fit.intervals["threads"]
    assert low <= 260 <= high
    assert fit.goodness_of_fit().set_index("quantity").loc["throughput", "r_squared"] > 0.5
