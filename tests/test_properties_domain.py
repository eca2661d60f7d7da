"""Every public function of the model and fit library over its documented domain (hypothesis,
seeded): for every input it accepts, finite numbers that agree with an independent reference
where one is cheap, or a ValueError that names the parameter and what it must be; nothing else.

The drawn values span each documented range to its bounds (times from 1e-100 to 1e100, counts
up to 2**53, overheads, noise levels); sizes are kept small so that the whole file runs in
well under a minute.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_domain import (
    BAD_COUNTS,
    BAD_TIMES,
    assert_finite,
    call,
    close,
    counts,
    maybe_refused,
    refused_argument,
    times,
    unwrap,
)
from reference import FINITE_SOURCE_METRICS, THREAD_POOL_METRICS, mm1bk_equations

from queuetune import Station, mm1bk, mva, thread_pool
from queuetune.fit import (
    compare,
    fit_amdahl,
    fit_mm1bk,
    fit_thread_pool,
    fit_usl,
    leave_one_out,
    usl,
    usl_peak,
)
from queuetune.models.single_server import mm1bk_probabilities
from queuetune.simulation import simulate_mm1bk, simulate_thread_pool

MODEL = settings(max_examples=400, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow])
FITS = settings(max_examples=30, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])
SLACK = 1e-10
BAD_OVERHEADS = [-0.1, math.nan, math.inf, "0.1", None, True]
POOL_NAMES = ["clients", "capacity", "threads", "cpu_time", "wait_time", "think_time",
              "thread_overhead", "pool_overhead"]


# --------------------------------------------------------------------------- M/M/1/B/K


@st.composite
def mm1bk_arguments(draw):
    bad = refused_argument(draw, ["clients", "capacity", "service_time", "think_time"])
    return {
        "clients": maybe_refused(draw, "clients", counts(), BAD_COUNTS, bad),
        "capacity": maybe_refused(draw, "capacity", counts(), BAD_COUNTS, bad),
        "service_time": maybe_refused(draw, "service_time", times(), BAD_TIMES + [0.0], bad),
        "think_time": maybe_refused(draw, "think_time", times(), BAD_TIMES + [0.0], bad),
    }


@MODEL
@given(mm1bk_arguments())
def test_mm1bk_over_its_domain(arguments):
    res = call(mm1bk, arguments, ["clients", "capacity", "service_time", "think_time"])
    if res is None:
        return
    assert_finite(res, FINITE_SOURCE_METRICS)
    K, B = arguments["clients"], arguments["capacity"]
    S, Z = arguments["service_time"], arguments["think_time"]
    assert 0 <= res.p0 <= 1 and 0 <= res.utilization <= 1
    assert res.throughput <= (1 / S) * (1 + SLACK)
    assert res.response_time >= S * (1 - SLACK)
    assert res.rejection_probability <= res.error_rate * (1 + SLACK) + 1e-300
    assert close(res.mean_in_system, res.throughput * res.response_time, 1e-12)
    if min(K, B) <= 30:  # 50-digit mpmath from eqs. (3)-(5), nothing shared with the package
        ref = mm1bk_equations(K, B, S, Z)
        for name in FINITE_SOURCE_METRICS:
            assert close(getattr(res, name), ref[name], 1e-10), (name, getattr(res, name),
                                                                  ref[name])
        p = mm1bk_probabilities(clients=K, capacity=B, service_time=S, think_time=Z)
        for got, want in zip(p, ref["probabilities"], strict=True):
            assert close(got, want, 1e-9)


# --------------------------------------------------------------------------- thread pool


@st.composite
def thread_pool_arguments(draw):
    method = draw(st.sampled_from(["exact", "fes"]))
    small = method == "exact"
    cpu = draw(times(zero=True))
    wait = draw(times(zero=True))
    if cpu == 0 and wait == 0:
        wait = draw(times())
    theta = draw(st.one_of(st.just(0.0), st.just(0.0), st.floats(0, 2),
                           st.sampled_from([1e-30, 1e10])))
    phi = draw(st.one_of(st.just(0.0), st.just(0.0), st.floats(0, 0.1),
                         st.sampled_from([1e-30, 1e10])))
    bad = refused_argument(draw, POOL_NAMES)
    return {
        "clients": maybe_refused(draw, "clients", counts(25, huge=not small), BAD_COUNTS, bad),
        "capacity": maybe_refused(draw, "capacity", counts(25, huge=not small), BAD_COUNTS,
                                  bad),
        "threads": maybe_refused(draw, "threads", counts(12, huge=not small), BAD_COUNTS, bad),
        "cpu_time": maybe_refused(draw, "cpu_time", st.just(cpu), BAD_TIMES, bad),
        "wait_time": maybe_refused(draw, "wait_time", st.just(wait), BAD_TIMES, bad),
        "think_time": maybe_refused(draw, "think_time", times(), BAD_TIMES + [0.0], bad),
        "thread_overhead": maybe_refused(draw, "thread_overhead", st.just(theta),
                                         BAD_OVERHEADS, bad),
        "pool_overhead": maybe_refused(draw, "pool_overhead", st.just(phi), BAD_OVERHEADS,
                                       bad),
        "method": method,
    }


@settings(MODEL, max_examples=250)
@given(thread_pool_arguments())
def test_thread_pool_over_its_domain(arguments):
    res = call(thread_pool, arguments, POOL_NAMES)
    if res is None:
        return
    assert_finite(res, THREAD_POOL_METRICS)
    a, _ = unwrap(arguments)
    K, B, T = a["clients"], a["capacity"], a["threads"]
    cpu, wait, Z = a["cpu_time"], a["wait_time"], a["think_time"]
    assert 0 <= res.utilization <= 1 and 0 <= res.p0 <= 1
    assert close(res.mean_in_system, res.throughput * res.response_time, 1e-10)
    assert res.response_time >= (cpu + wait) * (1 - SLACK)
    assert 0 <= res.busy_threads <= min(T, K, B) * (1 + SLACK)
    if min(K, B) < 10**5:
        p = res.probabilities
        assert p.shape == (min(K, B) + 1,) and abs(p.sum() - 1) < 1e-10
    plain = a["thread_overhead"] == 0 and a["pool_overhead"] == 0
    if plain and wait == 0:  # no waiting phase: exactly M/M/1/B/K with service time cpu_time
        ref = mm1bk(clients=K, capacity=B, service_time=cpu, think_time=Z)
        for name in FINITE_SOURCE_METRICS:
            assert close(getattr(res, name), getattr(ref, name), 1e-8), name
    if a["thread_overhead"] == 0 and T >= min(K, B) and a["method"] == "exact":
        # nobody waits for a thread: the decomposition is exact
        fes = thread_pool(**{**a, "method": "fes"})
        for name in ("throughput", "response_time", "mean_in_system", "error_rate"):
            assert close(getattr(fes, name), getattr(res, name), 1e-7), name


# --------------------------------------------------------------------------- MVA


@st.composite
def stations(draw):
    kind = draw(st.sampled_from(["number", "queue", "delay", "multiserver", "rates"]))
    bad = draw(st.sampled_from([None] * 8 + ["demand", "servers"]))
    demand = maybe_refused(draw, "demand", times(), BAD_TIMES + [0.0], bad)
    if kind == "number":
        return demand
    if kind == "multiserver":
        servers = maybe_refused(draw, "servers", counts(8), BAD_COUNTS, bad)
        return ("multiserver", demand, servers)
    if kind == "rates":
        rates = draw(st.lists(times(low=1e-50, high=1e50), min_size=1, max_size=4))
        return ("rates", demand, rates)
    return (kind, demand)


def _build(station):
    if not isinstance(station, tuple):
        return station.value if hasattr(station, "value") else station
    kind, demand, *rest = station
    value = [v.value if hasattr(v, "value") else v for v in (demand, *rest)]
    if kind == "multiserver":
        return Station.multiserver(value[0], value[1])
    if kind == "rates":
        return Station.load_dependent(value[0], value[1])
    return getattr(Station, kind)(value[0])


def _refused_names(station):
    parts = station if isinstance(station, tuple) else (station,)
    return [p.name for p in parts if hasattr(p, "name") and hasattr(p, "value")]


@settings(MODEL, max_examples=200)
@given(st.lists(stations(), min_size=1, max_size=3), st.integers(1, 150),
       st.one_of(st.just(0.0), times()))
def test_mva_over_its_domain(drawn, population, think_time):
    refused = [name for s in drawn for name in _refused_names(s)]

    def run():
        return mva(population, [_build(s) for s in drawn], think_time=think_time)

    res = call(lambda: run(), {}, refused or ["population", "stations", "demand"])
    if res is None:
        return
    assert not refused
    for name in ("throughput", "response_time", "queue_length", "residence_time",
                 "utilization"):
        assert np.all(np.isfinite(getattr(res, name))), name
    np.testing.assert_allclose(res.queue_length.sum(axis=1) + res.throughput * think_time,
                               np.arange(1, population + 1), rtol=1e-9)
    single = [_build(s) for s in drawn]
    if len(single) == 1 and not isinstance(single[0], Station) and think_time > 0:
        # one queue and the clients' think time: M/M/1//N, i.e. mm1bk with B = K
        n = np.array(sorted({1, population, (population + 1) // 2}))
        ref = mm1bk(clients=n, capacity=n, service_time=single[0], think_time=think_time).throughput
        np.testing.assert_allclose(res.throughput[n - 1], ref, rtol=1e-9)


# --------------------------------------------------------------------------- fits


@st.composite
def mm1bk_fits(draw):
    service = draw(st.floats(-3, 1).map(lambda e: 10.0 ** e))
    think = service * draw(st.floats(0, 3).map(lambda e: 10.0 ** e))
    clients = np.array(sorted(draw(st.sets(st.integers(1, 80), min_size=4, max_size=9))))
    capacity = draw(st.integers(1, 300))
    truth = mm1bk(clients=clients, capacity=capacity, service_time=service, think_time=think)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    noise = draw(st.sampled_from([0.0, 1e-3, 0.05]))
    response = truth.response_time * np.exp(rng.normal(0, noise, clients.size))
    bad_mapping = [{"think_time": "4"}, {"think_time": -1.0}, {"speed": 1.0}, "think_time",
                   {"think_time": math.nan}]
    bad_bounds = [{"service_time": (1.0, 0.1)}, {"service_time": ("a", 1.0)},
                  {"service_time": (0.0, 1.0)}, {"service_time": 3.0},
                  {"think_time": (1e-300, 1.0)}]
    capacity = draw(st.one_of(st.just(capacity), st.none()))
    bad = refused_argument(draw, ["capacity", "initial", "fixed", "bounds", "confidence",
                                  "n_boot", "seed"] + (["capacity_range"] if capacity is None
                                                       else []))
    return {
        "clients": clients,
        "capacity": maybe_refused(draw, "capacity", st.just(capacity), BAD_COUNTS + [[1, 2]],
                                  bad),
        "response_time": response,
        "throughput": draw(st.one_of(st.none(), st.just(truth.throughput))),
        "initial": maybe_refused(draw, "initial", st.one_of(
            st.none(), st.just({"service_time": service})),
            [{"service_time": -1.0}, {"service_time": math.nan}, {"think_time": 0},
             {"think_time": math.inf}, {"service_time": "0.1"}], bad),
        "fixed": maybe_refused(draw, "fixed", st.one_of(st.none(),
                                                        st.just({"think_time": think})),
                               bad_mapping, bad),
        "bounds": maybe_refused(draw, "bounds", st.none(), bad_bounds, bad),
        "capacity_range": maybe_refused(draw, "capacity_range", st.one_of(
            st.none(), st.just((1, 10**7)), st.just((5, 40))) if capacity is None
            else st.none(), [(0, 5), (5, 2), ("1", 5), 7], bad),
        "intervals": draw(st.sampled_from(["profile", "bootstrap", "none"])),
        "confidence": maybe_refused(draw, "confidence", st.sampled_from([0.95, 0.5, 0.999]),
                                    [0, 1, 95, math.nan, "0.95"], bad),
        "n_boot": maybe_refused(draw, "n_boot", st.just(20), [19, 10**9, 20.5, True], bad),
        "seed": maybe_refused(draw, "seed", st.just(3), [-1, 1.5, "3", None], bad),
    }


@pytest.mark.filterwarnings("ignore:the .* fit explains less than a constant:UserWarning")
@FITS
@given(mm1bk_fits())
def test_fit_mm1bk_over_its_domain(arguments):
    fit = call(fit_mm1bk, arguments, ["clients", "capacity", "response_time", "throughput",
                                      "fixed", "capacity_range"],
               always=("clients", "response_time", "throughput"))
    if fit is None:
        return
    for name, value in fit.estimates.items():
        assert math.isfinite(value), name
    for name, (low, high) in fit.intervals.items():
        if not (math.isnan(low) and math.isnan(high)):
            assert low <= fit.estimates[name] <= high, (name, low, high)
    assert all(isinstance(w, str) for w in fit.warnings)
    assert np.all(np.isfinite(fit.residuals))


@pytest.mark.filterwarnings("ignore:the .* fit explains less than a constant:UserWarning")
@FITS
@given(st.lists(st.integers(2, 64), min_size=3, max_size=7, unique=True),
       st.floats(0.0, 0.5), st.floats(0.0, 0.01), st.sampled_from([0.0, 0.01, 0.05]),
       st.integers(0, 1000), st.sampled_from(["profile", "bootstrap", "none"]),
       st.booleans())
def test_usl_fits_over_their_domain(cpus, sigma, kappa, noise, seed, intervals, amdahl):
    rng = np.random.default_rng(seed)
    speedup = usl(cpus=cpus, sigma=sigma, kappa=kappa) * np.exp(rng.normal(0, noise, len(cpus)))
    fitter = fit_amdahl if amdahl else fit_usl
    fit = call(lambda: fitter(cpus=cpus, speedup=speedup, intervals=intervals, n_boot=20), {},
               ["cpus", "speedup"])
    if fit is None:
        return
    assert math.isfinite(fit.sigma) and math.isfinite(fit.kappa)
    peak = usl_peak(fit.sigma, fit.kappa)
    assert peak > 0
    if len(cpus) >= 4:
        table = leave_one_out(fit)
        assert np.all(np.isfinite(table["error"]))
        other = fit_amdahl(cpus=cpus, speedup=speedup, intervals="none")
        table = call(compare, {"fits": {"a": fit, "b": other}}, ["fits"])
        assert table is None or np.all(np.isfinite(table["weight"]))


@pytest.mark.filterwarnings("ignore:the .* fit explains less than a constant:UserWarning")
@settings(FITS, max_examples=10)
@given(st.floats(0.005, 0.05), st.floats(0.0, 0.2).map(lambda t: 0.0 if t < 1e-4 else t),
       st.floats(1.0, 10.0), st.integers(0, 1000), st.sampled_from(["fes", "exact"]))
def test_fit_thread_pool_over_its_domain(cpu, wait, think, seed, method):
    K = np.array([5, 10, 20, 5, 10, 20])
    T = np.array([1, 1, 1, 4, 4, 4])
    truth = thread_pool(clients=K, capacity=20, threads=T, cpu_time=cpu, wait_time=wait,
                        think_time=think)
    rng = np.random.default_rng(seed)
    response = truth.response_time * np.exp(rng.normal(0, 0.02, K.size))
    free = ("cpu_time", "think_time") if wait == 0 else ("cpu_time", "wait_time", "think_time")
    fit = fit_thread_pool(clients=K, threads=T, response_time=response, capacity=20, free=free,
                          fixed={"wait_time": 0.0} if wait == 0 else None, method=method,
                          intervals="none")
    for name, value in fit.estimates.items():
        assert math.isfinite(value), name
    assert np.all(np.isfinite(fit.residuals))


# --------------------------------------------------------------------------- simulation


@settings(MODEL, max_examples=40)
@given(counts(12, huge=False), counts(12, huge=False), counts(4, huge=False),
       times(zero=True), st.one_of(times(), times(low=0.1, high=10.0)),
       st.sampled_from([20.0, 200.0, 200.0, 1e100]), st.sampled_from(["mm1bk", "thread_pool"]))
def test_simulations_over_their_domain(K, B, T, cpu, think, horizon, model):
    # service times in a range where a short run completes requests, or refuses clearly
    if model == "mm1bk":
        arguments = {"clients": K, "capacity": B, "service_time": cpu or 0.1,
                     "think_time": think, "horizon": horizon, "warmup": 1.0,
                     "replications": 2}
        res = call(simulate_mm1bk, arguments, ["horizon", "replications", "clients"])
    else:
        arguments = {"clients": K, "capacity": B, "threads": T, "cpu_time": cpu,
                     "wait_time": 0.05, "think_time": think, "horizon": horizon,
                     "warmup": 1.0, "replications": 2}
        res = call(simulate_thread_pool, arguments, ["horizon", "replications", "clients"])
    if res is None:
        return
    for name in res.metrics:
        assert math.isfinite(res.estimate[name]), name
        assert math.isfinite(res.ci_low[name]) and math.isfinite(res.ci_high[name]), name
