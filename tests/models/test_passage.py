"""Percentiles of the response time: the exact phase-type passage time against literature
closed forms and Little's law, the fast method against closed forms and the exact one."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

from queuetune.models import thread_pool
from queuetune.models.markov import stationary_distribution
from queuetune.models.passage import (
    PERCENTILES,
    arrival_distribution,
    exact_response_time,
    fast_cdf,
    fast_quantiles,
    holding_phases,
    tagged_state_count,
)
from queuetune.models.thread_pool_chain import build_chain

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "validate_percentiles.py"
#: The exact quantile's survival function is within (1 - q) 1e-9 of the true one; with a
#: hazard rate h(t) the quantile is within 1e-9 / (t h(t)) relative: below 1e-8 here.
EXACT_RTOL = 1e-8
#: Euler inversion (M = 15) is accurate to about 1e-8 in the distribution function.
FAST_RTOL = 1e-6
#: Little's law: the passage time's mean (a sparse solve) against the chain's L / X.
LITTLE_RTOL = 1e-9


def erlang_c(servers: int, offered: float) -> float:
    """P(wait) of M/M/c (Erlang's C formula)."""
    terms = sum(offered ** k / math.factorial(k) for k in range(servers))
    last = offered ** servers / math.factorial(servers) * servers / (servers - offered)
    return last / (terms + last)


def mmc_survival(t: float, *, servers: int, arrival: float, service: float) -> float:
    """P(R > t) of FCFS M/M/c with exponential service (Gross & Harris, Fundamentals of
    Queueing Theory, sec. 2.3): the wait is 0 with probability 1 - C and exponential of rate
    theta = c mu - lambda otherwise, plus an independent Exp(mu) service."""
    mu = 1.0 / service
    theta = servers * mu - arrival
    wait = erlang_c(servers, arrival / mu)
    both = (theta * math.exp(-mu * t) - mu * math.exp(-theta * t)) / (theta - mu)
    return (1.0 - wait) * math.exp(-mu * t) + wait * both


def mmc_quantile(q: float, **kw) -> float:
    return brentq(lambda t: mmc_survival(t, **kw) - (1.0 - q), 0.0, 1e3, xtol=1e-15,
                  rtol=1e-14)


def passage(**kw):
    chain = build_chain(**kw)
    pi = stationary_distribution(chain.generator)
    return chain, pi, exact_response_time(chain, pi, **kw)


# --------------------------------------------------------------------------- exact


def test_mm1_quantiles_are_the_exponential_closed_form():
    # T = 1, no waiting phase, B = 150 (rho^150 ~ 1e-23): M/M/1 FCFS, R ~ Exp(mu - lambda)
    res = thread_pool(arrival_rate=0.7, capacity=150, threads=1, cpu_time=1.0, wait_time=0.0)
    expected = -np.log(1 - np.array(PERCENTILES)) / 0.3
    got = [res.response_time_p50, res.response_time_p95, res.response_time_p99]
    np.testing.assert_allclose(got, expected, rtol=EXACT_RTOL)


@pytest.mark.parametrize("phase", ["wait", "cpu"])
def test_mmc_quantiles_are_the_closed_form(phase):
    # c = 4 threads, each a server: without the processor phase (no pool), or with only the
    # processor phase on p = c processors (processor sharing never slows a holder)
    c, lam = 4, 2.5  # theta = c mu - lambda differs from mu
    kw = ({"cpu_time": 0.0, "wait_time": 1.0} if phase == "wait" else
          {"cpu_time": 1.0, "wait_time": 0.0, "processors": c})
    res = thread_pool(arrival_rate=lam, capacity=200, threads=c, **kw)
    probabilities = [0.2, 0.5, 0.9, 0.95, 0.99, 0.999]
    expected = [mmc_quantile(q, servers=c, arrival=lam, service=1.0) for q in probabilities]
    np.testing.assert_allclose(res.response_time_quantile(probabilities), expected,
                               rtol=EXACT_RTOL)


CONFIGS = [
    dict(clients=30, think_time=2.0, capacity=25, threads=6, cpu_time=0.1, wait_time=0.4,
         processors=2, connections=4),
    dict(arrival_rate=5.0, capacity=40, threads=None, cpu_time=0.1, wait_time=0.3,
         processors=1, connections=3, thread_overhead=0.01),
    dict(clients=8, think_time=0.0, capacity=10, threads=3, cpu_time=0.1, wait_time=0.4,
         processors=2, connections=2),
    dict(clients=8, think_time=0.0, capacity=10, threads=3, cpu_time=0.1, wait_time=0.0,
         processors=2),
    dict(clients=8, think_time=0.0, capacity=10, threads=3, cpu_time=0.0, wait_time=0.3,
         connections=2),
    dict(clients=12, think_time=1.0, capacity=9, threads=4, cpu_time=0.0, wait_time=0.3,
         connections=2),
    dict(arrival_rate=9.0, capacity=30, threads=5, cpu_time=0.1, wait_time=0.0, processors=3,
         pool_overhead=0.01),
]


@pytest.mark.parametrize("kw", CONFIGS)
def test_mean_passage_time_is_littles_law(kw):
    chain, pi, tagged = passage(**kw)
    levels = np.bincount(chain.level, weights=pi)
    mean_in_system = levels @ np.arange(levels.size)
    response = mean_in_system / (pi @ chain.departure_rate)
    assert tagged.mean == pytest.approx(response, rel=LITTLE_RTOL)
    assert tagged.alpha.size <= tagged_state_count(
        top=int(chain.level.max()) if "clients" not in kw else min(kw["clients"],
                                                                   kw["capacity"]),
        threads=kw["threads"] or kw["capacity"],
        connections=min(kw.get("connections") or 10**9, kw["threads"] or kw["capacity"]),
        two_phases=kw["cpu_time"] > 0 and kw["wait_time"] > 0, has_cpu=kw["cpu_time"] > 0,
        batch=kw.get("think_time") == 0.0)


def test_survival_decreases_from_one():
    _, _, tagged = passage(**CONFIGS[0])
    t = np.linspace(0.0, 5.0, 30)
    tagged.quantile(0.999)
    s = np.array([tagged.survival(v) for v in t])
    assert s[0] == pytest.approx(1.0)
    assert np.all(np.diff(s) <= 1e-15)
    assert tagged.cdf(tagged.quantile(0.9)) == pytest.approx(0.9, abs=1e-9)


def test_result_percentiles_and_quantile_function():
    res = thread_pool(clients=[30, 40], think_time=2.0, capacity=25, threads=6, cpu_time=0.1,
                      wait_time=0.4, processors=2, connections=4)
    assert res.response_time_p50.shape == (2,)
    assert np.all(res.response_time_p50 < res.response_time_p95)
    assert np.all(res.response_time_p95 < res.response_time_p99)
    # a scalar probability keeps the result's shape; a sequence adds an axis
    np.testing.assert_allclose(res.response_time_quantile(0.95), res.response_time_p95,
                               rtol=1e-12)
    assert res.response_time_quantile([0.5, 0.9, 0.99]).shape == (2, 3)
    one = thread_pool(clients=30, think_time=2.0, capacity=25, threads=6, cpu_time=0.1,
                      wait_time=0.4, processors=2, connections=4)
    assert isinstance(one.response_time_p99, np.floating)
    assert one.response_time_p99 == pytest.approx(res.response_time_p99[0], rel=1e-12)
    # the metrics of as_dict are unchanged (the percentiles are computed when read)
    assert not any(key.startswith("response_time_p") for key in one.as_dict())


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.5, 1.5, float("nan"), [[0.5]]])
def test_quantile_refuses_probabilities_outside_zero_one(bad):
    res = thread_pool(clients=5, think_time=1.0, capacity=5, threads=2, cpu_time=0.1,
                      wait_time=0.1)
    with pytest.raises(ValueError, match="probabilit"):
        res.response_time_quantile(bad)


# --------------------------------------------------------------------------- fast


def test_fast_mm1_and_mmc_are_exact():
    # M/M/1: one thread, no waiting phase; M/M/c: c threads without a processor phase
    mm1 = thread_pool(arrival_rate=0.7, capacity=150, threads=1, cpu_time=1.0, wait_time=0.0,
                      method="fes")
    np.testing.assert_allclose(mm1.response_time_quantile(list(PERCENTILES)),
                               -np.log(1 - np.array(PERCENTILES)) / 0.3, rtol=FAST_RTOL)
    mmc = thread_pool(arrival_rate=2.5, capacity=200, threads=4, cpu_time=0.0, wait_time=1.0,
                      method="fes")
    expected = [mmc_quantile(q, servers=4, arrival=2.5, service=1.0) for q in PERCENTILES]
    np.testing.assert_allclose(mmc.response_time_quantile(list(PERCENTILES)), expected,
                               rtol=FAST_RTOL)


def test_fast_functions_agree():
    res = thread_pool(arrival_rate=300.0, capacity=759, threads=77, processors=18,
                      connections=65, cpu_time=0.04, wait_time=0.2, method="fes")
    from queuetune.sizing import holders_throughput

    x = holders_throughput(processors=18, cpu_time=0.04, wait_time=0.2, connections=65,
                           holders=77)
    arrivals = arrival_distribution(res.probabilities)
    kw = dict(arrivals=arrivals, holders_throughput=x, threads=77, cpu_time=0.04,
              wait_time=0.2, processors=18, connections=65)
    q = fast_quantiles(**kw)
    np.testing.assert_allclose(q, [res.response_time_p50, res.response_time_p95,
                                   res.response_time_p99], rtol=1e-6)
    np.testing.assert_allclose(fast_cdf(q, **kw), PERCENTILES, atol=1e-8)
    r_c, releases = holding_phases(holders_throughput=x, cpu_time=0.04, wait_time=0.2,
                                   processors=18, connections=65)
    m = np.arange(1, x.size)
    # the phases' means add up to the inner network's holding time (Little's law)
    np.testing.assert_allclose(r_c[1:] + 0.2 + releases[1:] * 0.2 / 65, m / x[1:],
                               rtol=1e-12)


def test_arrival_distribution():
    pi = np.array([0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(arrival_distribution(pi), [1 / 6, 2 / 6, 3 / 6])
    closed = arrival_distribution(pi, clients=5)
    np.testing.assert_allclose(closed, np.array([0.5, 0.8, 0.9]) / 2.2)
    np.testing.assert_allclose(arrival_distribution([0.0, 0.0, 1.0], clients=2), [0.0, 1.0])
    with pytest.raises(ValueError, match="levels"):
        arrival_distribution([0.0, 1.0])
    with pytest.raises(ValueError, match="levels"):
        arrival_distribution([0.5, float("nan")])


def test_fast_quantiles_refuse_bad_input():
    kw = dict(holders_throughput=[0.0, 1.0, 2.0], threads=2, cpu_time=0.1, wait_time=0.1,
              processors=1)
    with pytest.raises(ValueError, match="arrivals"):
        fast_quantiles(arrivals=[0.0, 0.0], **kw)
    with pytest.raises(ValueError, match="probabilities"):
        fast_quantiles(arrivals=[1.0, 1.0], probabilities=[0.5, 1.0], **kw)
    with pytest.raises(ValueError, match="holders_throughput"):
        fast_quantiles(arrivals=[1.0, 1.0], **{**kw, "holders_throughput": [0.0, -1.0]})


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("validate_percentiles", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fast_method_within_its_stated_bound(script, monkeypatch):
    # a fixed-seed sample of the validated domain, small chains (a few seconds)
    monkeypatch.setattr(script, "MAX_TAGGED", 1500)
    rng = np.random.default_rng(7)
    rows = []
    while len(rows) < 10:
        try:
            rows.append(script.measure(script.configurations(rng, 1)[0]))
        except script.StiffChain:
            continue
    errors = np.abs([[r[f"err_{name}"] for name in script.NAMES] for r in rows])
    assert errors.max() <= script.FAST_BOUND, errors.max(axis=0)


@pytest.mark.parametrize("name, value", [("threads", 0), ("processors", 0), ("processors", 1.5),
                                         ("connections", 0), ("wait_time", -1.0)])
def test_fast_quantiles_name_the_bad_count(name, value):
    kw = dict(arrivals=[1.0, 1.0], holders_throughput=[0.0, 1.0, 2.0], threads=2,
              cpu_time=0.1, wait_time=0.1, processors=1, connections=None)
    with pytest.raises(ValueError, match=name):
        fast_quantiles(**{**kw, name: value})


def test_geometric_tail_is_summed_like_the_terms():
    # open arrivals past T: the waiting weights are geometric, summed in closed form
    from dataclasses import replace

    from queuetune.models.passage import _mixture

    res = thread_pool(arrival_rate=9.0, capacity=60, threads=3, cpu_time=0.1, wait_time=0.2,
                      processors=2, method="fes")
    from queuetune.sizing import holders_throughput

    x = holders_throughput(processors=2, cpu_time=0.1, wait_time=0.2, holders=3)
    mix = _mixture(arrival_distribution(res.probabilities), x, 3, 0.1, 0.2, 2, None)
    assert mix.tail_start < mix.wait_weight.size - 10
    terms = replace(mix, tail_start=mix.wait_weight.size)
    for t in (0.1, 0.5, 2.0, 8.0):
        assert mix.cdf(t) == pytest.approx(terms.cdf(t), rel=1e-10, abs=1e-13)


# --------------------------------------------------------------------------- overload

#: Small overloaded servers (open arrivals above X_in(T), closed ones with many clients) whose
#: waits the fast method resolves: its error against the exact chain, measured 1.8 % at most
#: (p99; p50 0.5 %).
OVERLOAD_RESOLVED = [
    dict(arrival_rate=100.0, processors=4, cpu_time=0.01, wait_time=0.05, threads=6,
         capacity=60),
    dict(clients=200, think_time=0.05, processors=4, cpu_time=0.01, wait_time=0.05,
         threads=6, capacity=90),
]
#: ... and those whose waits (B / T large: a wait of many releases, narrow) it evaluates in
#: the time domain: their error against the exact chain, measured 3.8 % at most (p99; the
#: fast model's wait variance, the same error as the Euler inversion of these waits gave
#: where it held).
OVERLOAD_NARROW = [
    dict(arrival_rate=200.0, processors=2, cpu_time=0.02, wait_time=0.05, threads=4,
         capacity=100),
    dict(arrival_rate=100.0, processors=4, cpu_time=0.01, wait_time=0.05, threads=6,
         capacity=120),
    dict(clients=200, think_time=0.1, processors=2, cpu_time=0.02, wait_time=0.05, threads=4,
         capacity=100),
]


@pytest.mark.parametrize("kw", OVERLOAD_RESOLVED)
def test_fast_method_under_overload_against_the_exact_one(kw):
    exact = thread_pool(**kw, method="exact")
    fast = thread_pool(**kw, method="fes")
    want = [exact.response_time_p50, exact.response_time_p95, exact.response_time_p99]
    got = [fast.response_time_p50, fast.response_time_p95, fast.response_time_p99]
    np.testing.assert_allclose(got, want, rtol=0.025)
    assert got[0] <= got[1] <= got[2]


@pytest.mark.parametrize("kw", OVERLOAD_NARROW)
def test_narrow_waits_in_the_time_domain_against_the_exact_chain(kw):
    exact = thread_pool(**kw, method="exact")
    fast = thread_pool(**kw, method="fes")
    want = [exact.response_time_p50, exact.response_time_p95, exact.response_time_p99]
    got = [fast.response_time_p50, fast.response_time_p95, fast.response_time_p99]
    np.testing.assert_allclose(got, want, rtol=0.04)
    assert got[0] < got[1] < got[2]


def _reference_cdf(mix, t: float) -> float:
    """The fast method's F(t) by mpmath's Talbot inversion of its transform at 60 digits
    (explicit levels only): an inversion that resolves any shape here."""
    import mpmath as mp

    mp.mp.dps = 60

    def holding(s, r_c, k):
        out = 1 / ((1 + s * r_c) * (1 + s * mix.wait_time))
        if mix.release_time > 0 and k > 0:
            z = 1 / (1 + s * mix.release_time)
            whole = math.floor(k)
            out *= z ** whole * (1 - (k - whole) + (k - whole) * z)
        return out

    def transform(s):
        total = sum(mp.mpf(float(a)) * holding(s, float(r), float(k)) for a, r, k in
                    zip(mix.weight, mix.r_c, mix.releases, strict=True) if a)
        z = (1 + s / (mp.mpf(mix.rate) * mix.shape)) ** (-mp.mpf(mix.shape))
        power, poly = z, 0
        for a in mix.wait_weight:
            poly += mp.mpf(float(a)) * power
            power *= z
        return total + poly * holding(s, mix.wait_r_c, mix.wait_releases)

    return float(mp.re(mp.invertlaplace(lambda s: transform(s) / s, t, method="talbot",
                                        degree=120)))


#: The time-domain chunks' error in F against the 60-digit inversion, at shape 100 (the
#: narrowest level just past FAST_SHAPE_LIMIT, the worst case): measured 1.8e-4.
NARROW_F_ERROR = 3e-4


def test_narrow_waits_follow_the_fast_model_itself():
    """The split F (Euler for the resolved levels, shifted gammas for the narrow ones) against
    a 60-digit Talbot inversion of the same transform, around the quantiles."""
    from queuetune.models.passage import _mixture
    from queuetune.sizing import holders_throughput

    kw = OVERLOAD_NARROW[0]
    fast = thread_pool(**kw, method="fes")
    x = holders_throughput(processors=2, cpu_time=0.02, wait_time=0.05, holders=4)
    mix = _mixture(arrival_distribution(fast.probabilities), x, 4, 0.02, 0.05, 2, None)
    assert mix.unresolved() > 0.99  # nearly every request waits a narrow wait
    for t in (0.9 * fast.response_time_p50, fast.response_time_p50, fast.response_time_p95,
              fast.response_time_p99, 1.05 * fast.response_time_p99):
        assert abs(mix.cdf(float(t)) - _reference_cdf(mix, float(t))) < NARROW_F_ERROR


@pytest.mark.parametrize("k, bound", [(0.3, 1e-13), (1.0, 1e-13), (30.0, 1e-13),
                                      (100.0, 1e-13), (100.5, 6e-5), (1e3, 6e-6),
                                      (1e4, 1e-6), (1e10, 5e-6)])
def test_the_gamma_distribution_function_is_scipys(k, bound):
    """The narrow chunks' gamma distribution function against SciPy's ``gammainc``: the
    series and continued fraction to 1e-13 up to shape 100 (the roundings of some hundred
    terms), Wilson and Hilferty's cube root above it within 6e-5 (its error, largest at the
    switch: 5.4e-5 at shape 100.5, 5.2e-6 at 1,000; at 10^10 SciPy's own asymptotic series
    adds ~3e-6)."""
    from scipy.special import gammainc

    from queuetune.models.passage import _gamma_cdf

    x = k + math.sqrt(k) * np.linspace(-8, 8, 161)
    x = np.concatenate([x[x > 0], [k / 100, 100 * k + 50]])
    got = np.array([_gamma_cdf(k, float(v)) for v in x])
    assert np.abs(got - gammainc(k, x)).max() < bound


def test_geometric_moments_are_the_sums():
    from queuetune.models.passage import geometric_moments

    for log_r, n in ((-0.3, 7), (0.2, 50), (1e-6, 400), (-2e-5, 30), (-0.01, 5000), (0.5, 2),
                     (-0.7, math.inf)):
        i = np.arange(n if math.isfinite(n) else 400, dtype=np.float64)
        w = np.exp(log_r * i)
        mean = (w * i).sum() / w.sum()
        got = geometric_moments(log_r, n)
        np.testing.assert_allclose(got, [math.log(w.sum()), mean,
                                         (w * (i - mean) ** 2).sum() / w.sum()],
                                   rtol=1e-6, atol=1e-10)  # the series near r = 1


def test_the_euler_inversion_resolves_a_gamma_up_to_the_shape_limit():
    """FAST_SHAPE_LIMIT's justification: a single wait, gamma of shape k (no holding), by
    the fast method's inversion: F within 1e-5 and monotone at k = 100, not at k = 400."""
    from scipy import stats

    from queuetune.models.passage import _BETA, _ETA, FAST_SHAPE_LIMIT

    def cdf(t, k):
        s = _BETA / t
        return float(np.real(_ETA * (1 + s / k) ** -k / s).sum()) / t

    t = np.linspace(0.5, 1.5, 1001)
    for k, good in ((FAST_SHAPE_LIMIT, True), (4 * FAST_SHAPE_LIMIT, False)):
        f = np.array([cdf(v, k) for v in t])
        error = np.abs(f - stats.gamma.cdf(t, k, scale=1 / k)).max()
        assert bool(error < 1e-5 and np.all(np.diff(f) >= -1e-12)) is good, (k, error)
