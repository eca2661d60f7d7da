"""The connection-setup amortization model t(n) = t_request + t_setup / n and its fit."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_domain import (
    BAD_INTS,
    BAD_MAGNITUDES,
    BATCH,
    CALC,
    FEW,
    F,
    call,
    close,
    counts,
    exact,
    maybe_refused,
    refused_argument,
    times,
    unwrap,
)
from scipy import stats

from queuetune.documents.domino_keepalive import amortization
from queuetune.documents.domino_keepalive.amortization import fit_setup_cost, time_per_request


@pytest.mark.parametrize(
    ("n", "t_request", "t_setup"),
    [
        ([5, 10, 100], 65.0, 527.0),
        ([1, 2, 3, 4, 8, 40], 0.004, 0.25),
        ([3, 7], 12.5, 0.0),
        ([1, 1000, 7, 7], 81.0, 1e4),
    ],
)
def test_recovers_known_parameters_from_noiseless_data(n, t_request, t_setup):
    t = t_request + t_setup / np.asarray(n, dtype=float)
    fit = fit_setup_cost(n, t)
    assert fit.t_request == pytest.approx(t_request, abs=1e-9)
    assert fit.t_setup == pytest.approx(t_setup, abs=1e-9)
    assert np.max(np.abs(fit.residuals)) < 1e-9
    assert fit.predict(40) == pytest.approx(t_request + t_setup / 40, abs=1e-9)


def test_noiseless_fit_has_r_squared_one_and_zero_width_intervals():
    fit = fit_setup_cost([5, 10, 100], time_per_request([5, 10, 100], 65.0, 527.0))
    assert fit.r_squared == pytest.approx(1.0, abs=1e-12)
    assert fit.ci_setup[1] - fit.ci_setup[0] == pytest.approx(0.0, abs=1e-6)


def test_least_squares_matches_the_normal_equations():
    """An independent computation of the same estimates, residuals and standard errors."""
    n = np.array([5, 10, 100])
    t = np.array([180.0, 97.0, 81.0])
    design = np.column_stack([np.ones(3), 1.0 / n])
    beta, *_ = np.linalg.lstsq(design, t, rcond=None)
    residuals = t - design @ beta
    s2 = residuals @ residuals / (len(t) - 2)
    cov = s2 * np.linalg.inv(design.T @ design)
    fit = fit_setup_cost(n, t)
    assert (fit.t_request, fit.t_setup) == pytest.approx(tuple(beta), rel=1e-12)
    assert (fit.se_request, fit.se_setup) == pytest.approx(tuple(np.sqrt(np.diag(cov))),
                                                           rel=1e-9)
    np.testing.assert_allclose(fit.residuals, residuals, atol=1e-9)
    assert fit.dof == 1
    assert fit.t_quantile == pytest.approx(12.7062047, rel=1e-7)
    total = np.sum((t - t.mean()) ** 2)
    assert fit.r_squared == pytest.approx(1 - residuals @ residuals / total)


def test_intervals_contain_the_truth_in_most_noisy_replications():
    rng = np.random.default_rng(20230522)
    n = np.array([2, 5, 10, 20, 50, 100])
    truth = (80.0, 500.0)
    replications, covered_request, covered_setup = 400, 0, 0
    for _ in range(replications):
        t = time_per_request(n, *truth) + rng.normal(0.0, 5.0, size=n.size)
        fit = fit_setup_cost(n, t, confidence=0.95)
        covered_request += fit.ci_request[0] <= truth[0] <= fit.ci_request[1]
        covered_setup += fit.ci_setup[0] <= truth[1] <= fit.ci_setup[1]
    # 95 % intervals: 400 replications give a binomial standard deviation of about 1.1 %.
    assert 0.91 <= covered_request / replications <= 0.99
    assert 0.91 <= covered_setup / replications <= 0.99


def test_mean_band_contains_the_true_curve_in_most_replications():
    rng = np.random.default_rng(7)
    n = np.array([5, 10, 100])
    covered = 0
    for _ in range(300):
        t = time_per_request(n, 80.0, 500.0) + rng.normal(0.0, 3.0, size=3)
        low, high = fit_setup_cost(n, t).band(40)
        covered += low <= 80.0 + 500.0 / 40 <= high
    assert 0.9 <= covered / 300 <= 0.99


def test_one_residual_degree_of_freedom_gives_wide_intervals():
    fit = fit_setup_cost([5, 10, 100], [180, 97, 81])
    assert fit.dof == 1
    # the 95 % interval is 12.7 standard errors either side of the estimate
    assert fit.ci_setup[1] - fit.t_setup == pytest.approx(12.706 * fit.se_setup, rel=1e-3)
    low, high = fit.band(40, kind="mean")
    plow, phigh = fit.band(40, kind="prediction")
    assert low < fit.predict(40) < high
    assert plow < low and phigh > high


def test_two_settings_fit_exactly_and_leave_no_scatter_to_estimate():
    fit = fit_setup_cost([10, 100], [97, 81])
    assert fit.dof == 0
    assert fit.t_setup == pytest.approx(16 / 0.09)
    assert math.isnan(fit.se_setup) and math.isnan(fit.ci_request[0])
    assert all(math.isnan(v) for v in fit.band(40))


def test_inputs_from_the_loader_work():
    results = pd.DataFrame({"n": pd.array([5, 10, 100], dtype="Int64"),
                            "t": [180.0, 97.0, 81.0]})
    fit = fit_setup_cost(results["n"], results["t"])
    assert fit.n.dtype == np.int64
    assert fit.predict(np.array([5, 10])).shape == (2,)
    assert isinstance(fit.predict(40), float)


def test_n_for_time_inverts_the_curve():
    fit = fit_setup_cost([1, 2, 4], [30.0, 20.0, 15.0])
    assert fit.n_for_time(12.5) == pytest.approx(8.0)
    with pytest.raises(ValueError, match="t must lie in"):
        fit.n_for_time(5.0)


def test_summary_has_both_parameters():
    table = fit_setup_cost([5, 10, 100], [180, 97, 81]).summary()
    assert list(table.index) == ["t_request (per request)", "t_setup (per connection)"]
    assert "95% interval, low" in table.columns


@pytest.mark.parametrize(
    ("n", "t", "match"),
    [
        ([0, 5, 10], [1, 2, 3], "n must be integers >= 1"),
        ([5, 10.5, 100], [1, 2, 3], "n must be integers >= 1"),
        ([5, -10, 100], [1, 2, 3], "n must be integers >= 1"),
        ([5, float("nan"), 100], [1, 2, 3], "n must be integers >= 1"),
        ([5, True, 100], [1, 2, 3], "n must be integers >= 1"),
        (["5", "10"], [1, 2], "n must be integers >= 1"),
        (pd.array([5, None, 100], dtype="Int64"), [1, 2, 3], "n must be integers >= 1"),
        ([5, 10, 100], [180, 0, 81], "t must be numbers in"),
        ([5, 10, 100], [180, -97, 81], "t must be numbers in"),
        ([5, 10, 100], [180, float("inf"), 81], "t must be numbers in"),
        ([5, 10, 100], [180, 97], "same length"),
        ([5, 5, 5], [180, 97, 81], "at least 2 distinct"),
        ([5], [180], "at least 2 distinct"),
    ],
)
def test_bad_inputs_are_refused(n, t, match):
    with pytest.raises(ValueError, match=match):
        fit_setup_cost(n, t)


@pytest.mark.parametrize("confidence", [0, 1, 1.5, -0.2, "95%"])
def test_bad_confidence_is_refused(confidence):
    with pytest.raises(ValueError, match="confidence must lie strictly between 0 and 1"):
        fit_setup_cost([5, 10, 100], [180, 97, 81], confidence=confidence)


def test_bad_prediction_inputs_are_refused():
    fit = fit_setup_cost([5, 10, 100], [180, 97, 81])
    with pytest.raises(ValueError, match="n must be integers >= 1"):
        fit.predict(0)
    with pytest.raises(ValueError, match="n must be integers >= 1"):
        fit.band(2.5)
    with pytest.raises(ValueError, match="kind must be"):
        fit.band(40, kind="credible")
    with pytest.raises(ValueError, match=r"t_setup must be a number in \[-1e\+300, 1e\+300\]"):
        time_per_request(5, 1.0, float("nan"))


def test_interval_level_follows_the_confidence():
    narrow = fit_setup_cost([5, 10, 100], [180, 97, 81], confidence=0.5)
    wide = fit_setup_cost([5, 10, 100], [180, 97, 81], confidence=0.95)
    assert narrow.t_quantile == pytest.approx(stats.t.ppf(0.75, 1))
    assert narrow.ci_setup[1] - narrow.ci_setup[0] < wide.ci_setup[1] - wide.ci_setup[0]


def test_connections_opened():
    assert amortization.connections_opened(10, 1000, [5, 10, 100]).tolist() == [2000, 1000, 100]
    assert amortization.connections_opened(10, 1000, 3) == 10 * 334  # a last, partial connection
    with pytest.raises(ValueError, match=r"threads must be an integer in \[1, 9007199254740992\]"):
        amortization.connections_opened(0, 1000, 5)


def test_time_wait_sockets_by_littles_law():
    assert amortization.time_wait_sockets(2000, 200, 60) == pytest.approx(600.0)
    # a run shorter than the TIME_WAIT period: every closed connection is still waiting
    assert amortization.time_wait_sockets(100, 30, 60) == pytest.approx(100.0)
    np.testing.assert_allclose(amortization.time_wait_sockets([2000, 100], [200, 83], 60),
                               [600.0, 100 / 83 * 60])
    with pytest.raises(ValueError, match="time_wait_s must be"):
        amortization.time_wait_sockets(100, 30, 0)
    with pytest.raises(ValueError, match="same length"):
        amortization.time_wait_sockets([1, 2, 3], [1, 2], 60)


# --- over the whole domain (property tests): keep-alive


def signed_times():
    return st.one_of(times(zero=True), times().map(lambda t: -t),
                     st.sampled_from([1e300, -1e300]))


def count_or_counts():
    return st.one_of(counts(), st.lists(counts(), min_size=1, max_size=5))


@CALC
@given(st.data())
def test_amortization_over_its_domain(data):
    draw = data.draw
    bad = refused_argument(draw, ["n", "t_request", "t_setup"])
    bad_n = BAD_INTS + [[1, True], [1, 10**400], [[1, 2]]]
    arguments = {
        "n": maybe_refused(draw, "n", count_or_counts(), bad_n, bad),
        "t_request": maybe_refused(draw, "t_request", signed_times(),
                                   [math.nan, math.inf, 1.1e300, -1e308, "1", None, True], bad),
        "t_setup": maybe_refused(draw, "t_setup", signed_times(),
                                 [math.nan, -math.inf, 1e301, "1", None, True], bad),
    }
    t = call(amortization.time_per_request, arguments, [])
    if t is not None:
        a, _ = unwrap(arguments)
        for n, got in zip(np.atleast_1d(a["n"]), np.atleast_1d(t), strict=True):
            request, per_connection = exact(a["t_request"]), exact(a["t_setup"]) / int(n)
            assert math.isfinite(got)
            assert abs(F(got) - (request + per_connection)) <= F(4.5e-16) * (
                abs(request) + abs(per_connection))

    bad = refused_argument(draw, ["threads", "requests_per_thread", "n"])
    arguments = {
        "threads": maybe_refused(draw, "threads", counts(), BAD_INTS, bad),
        "requests_per_thread": maybe_refused(draw, "requests_per_thread", counts(), BAD_INTS,
                                             bad),
        "n": maybe_refused(draw, "n", count_or_counts(), bad_n, bad),
    }
    opened = call(amortization.connections_opened, arguments, ["threads"])
    if opened is not None:
        a, _ = unwrap(arguments)
        want = [a["threads"] * -(-a["requests_per_thread"] // int(n))
                for n in np.atleast_1d(a["n"])]
        assert np.atleast_1d(opened).tolist() == want

    bad = refused_argument(draw, ["connections", "run_time_s", "time_wait_s"])
    length = draw(st.integers(1, 4))
    one_or_many = st.one_of(times(), st.lists(times(), min_size=length, max_size=length))
    arguments = {
        "connections": maybe_refused(draw, "connections", one_or_many, BAD_MAGNITUDES, bad),
        "run_time_s": maybe_refused(draw, "run_time_s", one_or_many, BAD_MAGNITUDES, bad),
        "time_wait_s": maybe_refused(draw, "time_wait_s", times(), BAD_MAGNITUDES + [[1, 2]],
                                     bad),
    }
    waiting = call(amortization.time_wait_sockets, arguments, [])
    if waiting is not None:
        a, _ = unwrap(arguments)
        c, r = np.broadcast_arrays(a["connections"], a["run_time_s"])
        wait = exact(a["time_wait_s"])
        for got, ci, ri in zip(np.atleast_1d(waiting), c.ravel(), r.ravel(), strict=True):
            want = exact(ci) / exact(ri) * min(wait, exact(ri))
            assert math.isfinite(got) and close(got, want, 1e-12)


@FEW
@given(st.lists(counts(), min_size=2, max_size=6, unique=True), st.data())
def test_fit_setup_cost_over_its_domain(ns, data):
    t = data.draw(st.lists(times(), min_size=len(ns), max_size=len(ns)))
    fit = call(amortization.fit_setup_cost, {"n": ns, "t": t}, ["n", "t"])
    if fit is None:
        return
    for value in (fit.t_request, fit.t_setup):
        assert math.isfinite(value)
    assert np.all(np.isfinite(fit.residuals))
    assert np.all(np.isfinite(fit.predict(ns)))
    if fit.dof > 0:
        low, high = fit.band(ns)
        assert np.all(np.isfinite(low)) and np.all(np.isfinite(high))


# --- batches equal single calls (property tests)


@settings(BATCH, max_examples=80)
@given(st.lists(counts(), min_size=1, max_size=30),
       st.one_of(times(zero=True), times().map(lambda t: -t)), times(zero=True),
       st.integers(1, 10**6), st.integers(1, 10**6),
       st.lists(st.tuples(times(), times()), min_size=1, max_size=30), times())
def test_amortization_batch_equals_single(ns, t_request, t_setup, threads, per_thread,
                                          runs, time_wait):
    """time_per_request and connections_opened over many n, and time_wait_sockets over many
    runs, equal the calls with one n or one run each."""
    batch = amortization.time_per_request(ns, t_request, t_setup)
    opened = amortization.connections_opened(threads, per_thread, ns)
    for i, n in enumerate(ns):
        assert batch[i] == amortization.time_per_request(n, t_request, t_setup)
        assert opened[i] == amortization.connections_opened(threads, per_thread, n)
    connections, run_time = (list(c) for c in zip(*runs, strict=True))
    waiting = amortization.time_wait_sockets(connections, run_time, time_wait)
    for i, (c, r) in enumerate(runs):
        assert waiting[i] == amortization.time_wait_sockets(c, r, time_wait)
