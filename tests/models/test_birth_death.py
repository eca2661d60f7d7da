"""queuetune.models.birth_death: stationary distributions of finite birth-death chains, taken
outward from the mode (run_sums) or in log space (log_stationary_distribution), checked against
the product form p_n = p_0 prod lambda_{j-1} / mu_j summed directly."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from queuetune.models.birth_death import log_stationary_distribution, run_sums


def product_form(log_ratio: np.ndarray) -> np.ndarray:
    """p_0..p_C straight from the products (fine for the small, tame chains used here)."""
    terms = np.exp(np.concatenate([[0.0], np.cumsum(log_ratio)]))
    return terms / terms.sum()


# -- log_stationary_distribution -----------------------------------------------------------------

def test_a_constant_ratio_gives_the_truncated_geometric_distribution():
    """M/M/1/K: p_n = (1 - rho) rho^n / (1 - rho^(K + 1))."""
    rho, capacity = 0.6, 5
    log_p = log_stationary_distribution(np.full((1, capacity), math.log(rho)), [capacity])
    n = np.arange(capacity + 1)
    expected = (1 - rho) * rho**n / (1 - rho ** (capacity + 1))
    np.testing.assert_allclose(np.exp(log_p[0]), expected, rtol=1e-13)


def test_erlang_loss_chain_gives_the_poisson_truncated_at_c():
    """M/M/c/c: lambda / (n mu) ratios, p_n proportional to a^n / n!."""
    a, c = 3.0, 6
    n = np.arange(1, c + 1)
    log_p = log_stationary_distribution(np.log(a / n)[None, :], [c])[0]
    terms = np.array([a**k / math.factorial(k) for k in range(c + 1)])
    np.testing.assert_allclose(np.exp(log_p), terms / terms.sum(), rtol=1e-13)
    # Erlang B: the blocking probability is the last state's
    assert math.exp(log_p[-1]) == pytest.approx(terms[-1] / terms.sum(), rel=1e-13)


def test_states_past_a_chains_end_are_minus_infinity_and_ignore_the_padding():
    ratios = np.log(np.array([[2.0, 1.0, 0.5, 7.0], [2.0, 1.0, 0.5, 99.0]]))
    log_p = log_stationary_distribution(ratios, [3, 3])
    assert np.array_equal(log_p[0], log_p[1])  # the padding changes no bit
    short = log_stationary_distribution(ratios, [1, 0])
    assert short[0, 2:].tolist() == [-math.inf] * 3
    assert short[1].tolist() == [0.0] + [-math.inf] * 4  # one state: probability 1


def test_a_row_does_not_depend_on_the_rows_beside_it():
    rng = np.random.default_rng(5)
    ratios = rng.normal(0, 2, (6, 9))
    states = np.array([9, 0, 4, 9, 2, 7])
    together = log_stationary_distribution(ratios, states)
    for i in range(6):
        alone = log_stationary_distribution(ratios[i:i + 1], states[i:i + 1])
        assert np.array_equal(alone[0], together[i])


def test_no_overflow_far_from_the_mode():
    """Ratios of 1e50 over 40 states: the products reach 1e2000, the probabilities do not."""
    log_p = log_stationary_distribution(np.full((1, 40), 50 * math.log(10)), [40])[0]
    assert np.all(np.isfinite(log_p))
    assert log_p[-1] == pytest.approx(0.0, abs=1e-40)  # the top state holds all the mass
    assert log_p[0] == pytest.approx(-2000 * math.log(10), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=-20, max_value=20), min_size=1, max_size=12))
def test_probabilities_match_the_product_form_and_sum_to_one(log_ratios):
    ratio = np.array(log_ratios)
    p = np.exp(log_stationary_distribution(ratio[None, :], [ratio.size])[0])
    assert p.sum() == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(p, product_form(ratio), rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("ratio, states, match", [
    (np.zeros((2, 3)), [1, 4], "states"),
    (np.zeros((2, 3)), [1, -1], "states"),
    (np.zeros((2, 3)), [1], r"states must have shape \(2,\)"),
    (np.zeros((1, 2, 3)), [1], "log_ratio must be 1-d or 2-d"),
    (np.array([[0.0, math.inf]]), [2], "log_ratio must be finite"),
])
def test_bad_chains_are_refused_naming_the_argument(ratio, states, match):
    with pytest.raises(ValueError, match=match):
        log_stationary_distribution(ratio, states)


def test_a_non_finite_ratio_past_the_end_is_ignored():
    log_p = log_stationary_distribution(np.array([[0.0, math.nan]]), [1])
    np.testing.assert_allclose(np.exp(log_p[0, :2]), [0.5, 0.5])


# -- run_sums ----------------------------------------------------------------------------------

def poisson_ratio(p, j):
    """T_j = a^(j + 1) / (j + 1)!: the ratio of term j to term j - 1 is a / (j + 1)."""
    return p["a"] / (j + 1.0)


def count_and_moment(p, j, terms):
    return [terms * 1.0, (j + 1.0) * terms]


def test_run_sums_of_a_known_series():
    sums, last = run_sums(np.array([4, 0, 1]), {"a": np.array([2.0, 5.0, 3.0])},
                          poisson_ratio, count_and_moment, 2)
    expected = sum(2.0**k / math.factorial(k) for k in range(1, 5))
    moment = sum(k * 2.0**k / math.factorial(k) for k in range(1, 5))
    assert sums[0].tolist() == pytest.approx([expected, 0.0, 3.0])
    assert sums[1].tolist() == pytest.approx([moment, 0.0, 3.0])
    assert last.tolist() == pytest.approx([2.0**4 / 24, 1.0, 3.0])  # an empty run's: 1


def test_a_runs_sums_do_not_depend_on_the_batch_it_is_solved_in():
    """More than 320 runs go one state per step across runs, fewer by chunks of states: the
    same products and sums in the same order, bit for bit."""
    rng = np.random.default_rng(2)
    lengths = rng.integers(0, 60, 700)
    a = rng.uniform(0.1, 30.0, 700)
    sums, last = run_sums(lengths, {"a": a}, poisson_ratio, count_and_moment, 2)
    for i in (0, 13, 350, 699):
        one, one_last = run_sums(lengths[i:i + 1], {"a": a[i:i + 1]}, poisson_ratio,
                                 count_and_moment, 2)
        assert np.array_equal(one[:, 0], sums[:, i]) and one_last[0] == last[i]


def test_run_sums_of_no_runs():
    sums, last = run_sums(np.array([], dtype=int), {"a": np.array([])}, poisson_ratio,
                          count_and_moment, 2)
    assert sums.shape == (2, 0) and last.shape == (0,)
