"""queuetune.fit: M/M/1/B/K, USL and Amdahl fits recover the parameters that generated the data,
their intervals cover them, bad inputs are refused and identifiability problems are reported.

Coverage rule (deterministic): with 95 % intervals and seeds 0..9, each parameter's interval
must contain the true value in at least 8 of the 10 replications. If the intervals had their
nominal coverage, fewer than 8 of 10 would happen with probability 1.2 %.
"""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest

import queuetune.fit
from queuetune import mm1bk
from queuetune.fit import (
    compare,
    fit_amdahl,
    fit_mm1bk,
    fit_usl,
    information_criteria,
    leave_one_out,
    loo_summary,
    usl,
    usl_peak,
)

CLIENTS = np.arange(10, 101, 10)
S, Z, B = 0.14, 4.0, 50
SEEDS = range(10)
MIN_COVERED = 8


@pytest.fixture(scope="module")
def truth():
    return mm1bk(clients=CLIENTS, capacity=B, service_time=S, think_time=Z)


def noisy(values, seed, sd=0.03):
    rng = np.random.default_rng(seed)
    return values * np.exp(rng.normal(0.0, sd, np.shape(values)))


def inside(interval, value):
    return interval[0] <= value <= interval[1]


# --------------------------------------------------------------------------- recovery


@pytest.mark.parametrize("series", ["response_time", "throughput", "both"])
def test_mm1bk_recovers_parameters_from_noiseless_data(truth, series):
    data = {"response_time": truth.response_time, "throughput": truth.throughput}
    if series != "both":
        data = {series: data[series]}
    fit = fit_mm1bk(clients=CLIENTS, capacity=B, **data)
    assert fit.service_time == pytest.approx(S, rel=0.01)
    assert fit.think_time == pytest.approx(Z, rel=0.01)
    assert np.max(np.abs(fit.residuals)) < 1e-6


def test_mm1bk_profiles_the_capacity_and_recovers_it(truth):
    fit = fit_mm1bk(clients=CLIENTS, capacity=None, response_time=truth.response_time,
                    throughput=truth.throughput, capacity_range=(30, 100))
    assert fit.capacity == B
    assert fit.service_time == pytest.approx(S, rel=0.01)
    profile = fit.details["capacity_profile"]
    assert list(profile["capacity"]) == list(range(30, 101))


def test_mm1bk_utilization_law_pins_the_service_time(truth):
    fit = fit_mm1bk(clients=CLIENTS, capacity=B, response_time=truth.response_time,
                    utilization=truth.utilization)
    assert fit.service_time == pytest.approx(S, rel=0.01)
    # the model's utilization is X * S
    pred = fit.predict(clients=CLIENTS)
    assert np.allclose(pred["utilization"], pred["throughput"] * fit.service_time)


def test_usl_and_amdahl_recover_parameters_from_noiseless_data():
    n = np.array([1, 2, 4, 8, 16, 32, 64])
    fit = fit_usl(cpus=n, speedup=usl(cpus=n, sigma=0.05, kappa=0.002))
    assert fit.sigma == pytest.approx(0.05, rel=0.01)
    assert fit.kappa == pytest.approx(0.002, rel=0.01)
    assert fit.peak_cpus == pytest.approx(usl_peak(0.05, 0.002), rel=0.01)
    amdahl = fit_amdahl(cpus=n, speedup=usl(cpus=n, sigma=0.1))
    assert amdahl.sigma == pytest.approx(0.1, rel=0.01)
    assert amdahl.kappa == 0 and math.isinf(amdahl.peak_cpus)


# --------------------------------------------------------------------------- coverage


def test_mm1bk_profile_intervals_cover_the_truth(truth):
    covered = np.zeros(2, dtype=int)
    for seed in SEEDS:
        fit = fit_mm1bk(clients=CLIENTS, capacity=B, response_time=noisy(truth.response_time, seed))
        covered += [inside(fit.interval("service_time"), S),
                    inside(fit.interval("think_time"), Z)]
        low, high = fit.interval("service_time")
        assert low < fit.service_time < high
    assert covered.min() >= MIN_COVERED, covered


def test_mm1bk_bootstrap_intervals_cover_the_truth(truth):
    covered = np.zeros(2, dtype=int)
    for seed in range(5):
        fit = fit_mm1bk(clients=CLIENTS, capacity=B, response_time=noisy(truth.response_time, seed),
                        intervals="bootstrap", n_boot=60, seed=seed)
        covered += [inside(fit.interval("service_time"), S),
                    inside(fit.interval("think_time"), Z)]
    assert covered.min() >= 4, covered  # 4 of 5: below that with probability 2.3 %


def test_bootstrap_is_deterministic_for_a_seed(truth):
    data = noisy(truth.response_time, 3)
    one = fit_mm1bk(clients=CLIENTS, capacity=B, response_time=data, intervals="bootstrap",
                    n_boot=30, seed=7)
    two = fit_mm1bk(clients=CLIENTS, capacity=B, response_time=data, intervals="bootstrap",
                    n_boot=30, seed=7)
    assert one.intervals == two.intervals


def test_usl_profile_intervals_cover_the_truth():
    n = np.array([1, 2, 4, 8, 16, 32, 64])
    covered = np.zeros(3, dtype=int)
    for seed in SEEDS:
        fit = fit_usl(cpus=n, speedup=noisy(usl(cpus=n, sigma=0.05, kappa=0.002), seed))
        covered += [inside(fit.intervals["sigma"], 0.05),
                    inside(fit.intervals["kappa"], 0.002),
                    inside(fit.intervals["peak_cpus"], usl_peak(0.05, 0.002))]
    assert covered.min() >= MIN_COVERED, covered


# --------------------------------------------------------------------------- identifiability


def test_trade_off_is_reported_when_only_light_load_throughput_is_measured():
    # X = K / (Z + S) at light load: only Z + S is measured
    k = np.array([1, 2, 3, 4, 5])
    x = noisy(mm1bk(clients=k, capacity=200, service_time=0.1, think_time=100.0).throughput, 0,
              sd=0.01)
    fit = fit_mm1bk(clients=k, capacity=200, throughput=x)
    assert "service_time and think_time" in fit.identifiability
    assert fit.identifiability.startswith("not identifiable")
    assert any("trade off" in w for w in fit.warnings)


def test_identified_fit_says_so(truth):
    fit = fit_mm1bk(clients=CLIENTS, capacity=B, response_time=noisy(truth.response_time, 0))
    assert fit.identifiability == "all parameters identified"
    assert fit.warnings == ()


def test_flat_capacity_profile_is_reported():
    # no request is ever dropped: every capacity >= the clients gives the same model
    k = np.arange(5, 41, 5)
    r = noisy(mm1bk(clients=k, capacity=200, service_time=0.1, think_time=2.0).response_time, 1)
    fit = fit_mm1bk(clients=k, capacity=None, response_time=r)
    low, high = fit.interval("capacity")
    assert high == k.max() and low < high
    assert "capacity" in fit.identifiability
    assert any("capacity is not pinned down" in w for w in fit.warnings)


def test_usl_reports_kappa_at_its_bound_for_amdahl_data():
    n = np.array([2, 4, 8, 16])
    fit = fit_usl(cpus=n, speedup=usl(cpus=n, sigma=0.1))
    assert fit.kappa == 0 and math.isinf(fit.peak_cpus)
    assert "kappa is at its lower bound (0)" in fit.warnings


# --------------------------------------------------------------------------- criteria


def test_information_criteria_match_their_formulas():
    r = {"a": np.array([0.1, -0.2, 0.05, 0.3]), "b": np.array([1.0, -1.0, 0.5])}
    crit = information_criteria(r, p=2)
    loglik = sum(-0.5 * v.size * (math.log(2 * math.pi * np.mean(v ** 2)) + 1)
                 for v in r.values())
    k, n = 4, 7
    assert crit["loglik"] == pytest.approx(loglik)
    assert crit["aic"] == pytest.approx(2 * k - 2 * loglik)
    assert crit["aicc"] == pytest.approx(2 * k - 2 * loglik + 2 * k * (k + 1) / (n - k - 1))


def test_compare_prefers_the_model_that_made_the_data():
    n = np.array([1, 2, 4, 8, 16, 32, 64])
    data = noisy(usl(cpus=n, sigma=0.03, kappa=0.004), 4, sd=0.02)
    table = compare({"USL": fit_usl(cpus=n, speedup=data),
                     "Amdahl": fit_amdahl(cpus=n, speedup=data)}, loo=True)
    assert table["model"].iloc[0] == "USL"
    assert table["weight"].sum() == pytest.approx(1.0)
    assert (table.set_index("model").loc["USL", "loo_rmse_speedup"]
            < table.set_index("model").loc["Amdahl", "loo_rmse_speedup"])


def test_compare_refuses_fits_to_different_data(truth):
    one = fit_mm1bk(clients=CLIENTS, capacity=B, response_time=noisy(truth.response_time, 0),
                    intervals="none")
    two = fit_mm1bk(clients=CLIENTS, capacity=B, response_time=noisy(truth.response_time, 1),
                    intervals="none")
    with pytest.raises(ValueError, match="same observations"):
        compare({"one": one, "two": two})


def test_leave_one_out_of_noiseless_data_predicts_the_left_out_points(truth):
    fit = fit_mm1bk(clients=CLIENTS, capacity=B, response_time=truth.response_time,
                    intervals="none")
    table = leave_one_out(fit)
    assert len(table) == CLIENTS.size
    assert loo_summary(table)["loo_max"].iloc[0] < 1e-5


def test_summary_and_goodness_of_fit_tables(truth):
    fit = fit_mm1bk(clients=CLIENTS, capacity=B, response_time=noisy(truth.response_time, 0),
                    throughput=noisy(truth.throughput, 1))
    summary = fit.summary().set_index("parameter")
    assert summary.loc["service_time", "low"] < summary.loc["service_time", "estimate"]
    gof = fit.goodness_of_fit().set_index("quantity")
    assert set(gof.index) == {"response_time", "throughput"}
    assert (gof["r_squared"] > 0.9).all()
    assert len(fit.table()) == 2 * CLIENTS.size


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"response_time": [0.2, 0.3]}, "response_time must have one value per element of clients"),
    ({"response_time": [0.2, -0.3, 0.4]}, r"response_time must be .*> 0; element 1 is"),
    ({"response_time": [0.2, np.nan, 0.4]}, "element 1 is nan"),
    ({"response_time": [0.2, 0.2, 0.2]}, "response_time must not be all equal"),
    ({}, "give response_time or throughput"),
    ({"response_time": [0.2, 0.3, 0.4], "utilization": [0.1, 0.2, 40.0]},
     r"utilization .* <= 1"),
    ({"response_time": [0.2, 0.3, 0.4], "intervals": "wald"}, "intervals must be one of"),
    ({"response_time": [0.2, 0.3, 0.4], "fixed": {"speed": 1.0}},
     "fixed must name only parameters among"),
])
def test_fit_mm1bk_rejects_bad_inputs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        fit_mm1bk(clients=[10, 20, 30], capacity=50, **kwargs)


def test_fit_mm1bk_rejects_all_equal_clients_and_too_few_points():
    with pytest.raises(ValueError, match="clients must not be all equal"):
        fit_mm1bk(clients=[10, 10, 10], capacity=50, response_time=[0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="too few observations: 2 fitted parameters"):
        fit_mm1bk(clients=[10, 20], capacity=50, response_time=[0.2, 0.3])
    with pytest.raises(ValueError, match="clients must be"):
        fit_mm1bk(clients=[0.5, 20, 30], capacity=50, response_time=[0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="capacity_range"):
        fit_mm1bk(clients=[10, 20, 30, 40], capacity=None, response_time=[0.2, 0.3, 0.4, 0.5],
                  capacity_range=(5, 2))


@pytest.mark.parametrize(("cpus", "speedup", "match"), [
    ([1, 2, 4], [1.0, 1.8], "speedup must have one value per element of cpus"),
    ([1, 2, 4, 8], [1.0, 1.8, -3.0, 5.0], "speedup must be"),
    ([1, 1, 1], [1.0, 1.0, 1.0], "CPU counts above 1"),
    ([2, 2, 2], [1.8, 1.9, 1.7], "cpus \\(above 1\\) must not be all equal"),
    ([1, 2, 4], [1.0, 1.8, 3.1], "too few observations"),
])
def test_fit_usl_rejects_bad_inputs(cpus, speedup, match):
    with pytest.raises(ValueError, match=match):
        fit_usl(cpus=cpus, speedup=speedup)


def test_docstring_example_runs():
    failures, tried = doctest.testmod(queuetune.fit)
    assert tried > 0 and failures == 0
