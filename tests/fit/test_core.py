"""queuetune.fit._core: the machinery every fitter shares (parameters, the least-squares
problem, the fit, its intervals and information criteria), checked on a straight line, where
least squares has closed forms: the estimates, their standard errors and the Student-t
intervals of ordinary least squares."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from queuetune.fit import Fit, Parameter, information_criteria
from queuetune.fit._core import Problem, fit_problem

X = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
Y = np.array([3.1, 4.8, 7.2, 9.1, 10.7, 13.2, 14.9, 17.1])  # about 1 + 2 x


def line_problem(y=Y, *, free=("a", "b"), fixed=None, b_bounds=(-100.0, 100.0), extra=()):
    """``y = a + b x`` on the absolute scale (``extra`` parameters the line ignores)."""
    parameters = [Parameter("a", -100.0, 100.0, log=False),
                  Parameter("b", *b_bounds, log=False),
                  *(Parameter(name, -1.0, 1.0, log=False) for name in extra)]

    def predict(values, cells):
        return {"y": values["a"] + values["b"] * X[cells]}

    return Problem(parameters=parameters, free=free, fixed=fixed or {},
                   observed={"y": np.asarray(y, float)}, cells={"y": np.arange(len(X))},
                   predict=predict, scale="absolute")


def line_fit(problem=None, **kwargs):
    problem = problem or line_problem()
    return fit_problem(problem, [np.zeros(problem.p)], model="line", **kwargs)


def ols():
    """Ordinary least squares by its normal equations: estimates, standard errors, dof."""
    design = np.column_stack([np.ones_like(X), X])
    coef, rss, *_ = np.linalg.lstsq(design, Y, rcond=None)
    dof = len(X) - 2
    cov = rss[0] / dof * np.linalg.inv(design.T @ design)
    return coef, np.sqrt(np.diag(cov)), dof


# -- Parameter ---------------------------------------------------------------------------------

def test_a_log_parameter_is_optimised_on_the_log_of_its_value():
    p = Parameter("service_time", 0.001, 10.0)
    assert p.inner(math.e) == pytest.approx(1.0)
    assert p.outer(0.0) == pytest.approx(1.0)
    assert p.inner_bounds == pytest.approx((math.log(0.001), math.log(10.0)))
    linear = Parameter("sigma", 0.0, 1.0, log=False)
    assert linear.inner(0.25) == 0.25 and linear.outer(0.25) == 0.25


@pytest.mark.parametrize("low, high, log", [(1.0, 1.0, False), (2.0, 1.0, False),
                                            (0.0, 1.0, True), (-1.0, 1.0, True)])
def test_parameter_bounds_refused_naming_the_parameter(low, high, log):
    with pytest.raises(ValueError, match="think_time: bounds must satisfy"):
        Parameter("think_time", low, high, log=log)


@given(st.floats(min_value=1e-6, max_value=1e6))
def test_inner_and_outer_are_inverse(value):
    p = Parameter("x", 1e-9, 1e9)
    assert p.outer(p.inner(value)) == pytest.approx(value, rel=1e-12)


# -- Problem ----------------------------------------------------------------------------------

def test_problem_counts_and_subsets_its_observations():
    problem = line_problem()
    assert problem.n == 8 and problem.p == 2 and list(problem.cell_ids) == list(range(8))
    part = problem.subset(np.array([0, 2, 4]))
    assert part.n == 3 and list(part.observed["y"]) == [3.1, 7.2, 10.7]
    residuals = problem.raw_residuals({"a": 1.0, "b": 2.0})["y"]
    np.testing.assert_allclose(residuals, Y - (1 + 2 * X))


# -- fit_problem on a straight line: the closed forms of least squares ---------------------------

def test_estimates_and_standard_errors_are_those_of_ordinary_least_squares():
    coef, se, dof = ols()
    fit = line_fit()
    assert isinstance(fit, Fit) and fit.model == "line"
    assert [fit.estimates["a"], fit.estimates["b"]] == pytest.approx(coef, rel=1e-6)
    assert [fit.standard_errors["a"], fit.standard_errors["b"]] == pytest.approx(se, rel=1e-4)
    assert (fit.n, fit.dof, fit.k) == (8, dof, 3)  # k: two parameters and one noise level


def test_profile_intervals_of_a_line_are_the_student_t_intervals():
    coef, se, dof = ols()
    fit = line_fit(confidence=0.9)
    t = stats.t.ppf(0.95, dof)
    for name, c, s in zip(("a", "b"), coef, se, strict=True):
        assert fit.intervals[name] == pytest.approx((c - t * s, c + t * s), rel=1e-4)
    assert fit.interval_method == "profile" and fit.identifiability == "all parameters identified"


def test_a_higher_confidence_gives_wider_intervals():
    narrow, wide = line_fit(confidence=0.8), line_fit(confidence=0.99)
    for name in ("a", "b"):
        assert wide.intervals[name][0] < narrow.intervals[name][0]
        assert wide.intervals[name][1] > narrow.intervals[name][1]


def test_the_loglikelihood_is_gaussian_with_the_maximum_likelihood_variance():
    fit = line_fit()
    rss = float(np.sum(fit.residuals ** 2))
    n = len(X)
    assert fit.loglik == pytest.approx(-n / 2 * (math.log(2 * math.pi * rss / n) + 1))
    assert fit.aic == pytest.approx(2 * 3 - 2 * fit.loglik)
    assert fit.aicc == pytest.approx(fit.aic + 2 * 3 * 4 / (n - 3 - 1))
    assert fit.bic == pytest.approx(3 * math.log(n) - 2 * fit.loglik)
    assert fit.criteria() == {"n": 8, "k": 3, "loglik": fit.loglik, "aic": fit.aic,
                              "aicc": fit.aicc, "bic": fit.bic}


def test_tables_of_a_fit():
    fit = line_fit()
    summary = fit.summary()
    assert list(summary["parameter"]) == ["a", "b"] and summary["fitted"].all()
    table = fit.table()
    assert len(table) == 8 and list(table["cell"]) == list(range(8))
    np.testing.assert_allclose(table["observed"] - table["fitted"], table["residual"])
    gof = fit.goodness_of_fit().iloc[0]
    r2 = 1 - np.sum(fit.residuals ** 2) / np.sum((Y - Y.mean()) ** 2)
    assert gof["quantity"] == "y" and gof["n"] == 8 and gof["r_squared"] == pytest.approx(r2)


def test_bootstrap_intervals_are_seeded_and_cover_the_estimate():
    first = line_fit(intervals="bootstrap", n_boot=60, seed=3)
    again = line_fit(intervals="bootstrap", n_boot=60, seed=3)
    assert first.intervals == again.intervals
    for name in ("a", "b"):
        low, high = first.intervals[name]
        assert low < first.estimates[name] < high
    assert len(first.details["bootstrap"]) == 60


def test_no_intervals_when_asked_for_none():
    fit = line_fit(intervals="none")
    assert all(math.isnan(v) for pair in fit.intervals.values() for v in pair)


# -- what a fit warns about ---------------------------------------------------------------------

def test_an_estimate_at_its_bound_is_reported():
    fit = line_fit(line_problem(b_bounds=(-1.0, 1.5)))
    assert fit.estimates["b"] == 1.5
    assert "b is at its upper bound (1.5)" in fit.warnings


def test_a_parameter_the_fit_ignores_is_not_identified():
    fit = line_fit(line_problem(free=("a", "b", "c"), extra=("c",)))
    assert any(w.startswith("c does not change the fitted values") for w in fit.warnings)
    assert "not bounded by the data: c" in fit.identifiability


def test_a_fit_worse_than_the_mean_warns():
    with pytest.warns(UserWarning, match="line fit explains less than a constant"):
        fit = line_fit(line_problem(free=("a",), fixed={"b": -3.0}))
    assert fit.fixed == {"b": -3.0}


def test_an_exact_fit_has_no_interval():
    """Residuals at the level of rounding (1e-15): no scatter to form an interval from, and a
    likelihood far above a noisy fit's."""
    fit = line_fit(line_problem(y=1 + 2 * X))
    assert "no residual scatter" in " ".join(fit.warnings)
    assert all(math.isnan(v) for v in fit.intervals["a"] + fit.intervals["b"])
    assert fit.loglik > line_fit().loglik + 100


@pytest.mark.parametrize("kwargs, name", [({"intervals": "wald"}, "intervals"),
                                          ({"confidence": 1.0}, "confidence"),
                                          ({"confidence": 0}, "confidence")])
def test_fit_problem_refuses_bad_options_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=f"^{name} must"):
        line_fit(**kwargs)


# -- information_criteria ------------------------------------------------------------------------

def test_information_criteria_of_two_groups_add_their_loglikelihoods():
    one, two = np.array([0.1, -0.2, 0.3]), np.array([1.0, -1.0])
    crit = information_criteria({"r": one, "x": two}, 2)
    expected = sum(-r.size / 2 * (math.log(2 * math.pi * np.mean(r ** 2)) + 1)
                   for r in (one, two))
    assert crit["loglik"] == pytest.approx(expected)
    assert (crit["n"], crit["k"]) == (5, 4)
    assert math.isnan(crit["aicc"])  # n - k - 1 = 0


def test_information_criteria_refuse_bad_input_naming_it():
    with pytest.raises(ValueError, match="residuals must be a mapping"):
        information_criteria({}, 1)
    with pytest.raises(ValueError, match="p"):
        information_criteria({"r": [0.1, 0.2]}, -1)
    with pytest.raises(ValueError, match=r"residuals\['r'\]"):
        information_criteria({"r": [0.1, math.nan]}, 1)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(min_value=-10, max_value=10).filter(lambda v: abs(v) > 1e-3),
                min_size=3, max_size=12),
       st.floats(min_value=0.01, max_value=100))
def test_scaling_the_residuals_shifts_the_loglikelihood_by_n_log_of_the_scale(res, factor):
    r = np.array(res)
    base = information_criteria({"g": r}, 1)["loglik"]
    scaled = information_criteria({"g": r * factor}, 1)["loglik"]
    assert scaled == pytest.approx(base - r.size * math.log(factor), rel=1e-9, abs=1e-9)
