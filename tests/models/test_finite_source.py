"""queuetune.models.finite_source: the M/M/1/C/K chain's probabilities and sums, checked
against Imre et al. eq. (3) in exact rational arithmetic, p_n proportional to
K! / (K - n)! (S / Z)^n for n = 0..C."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from queuetune import mm1bk
from queuetune.models.finite_source import (
    MAX_PROBABILITY_ELEMENTS,
    MAX_STATES,
    TIME_RANGE,
    mm1bk_probabilities,
    solve_summary,
    validated,
)


def exact(clients: int, capacity: int, service_time: Fraction, think_time: Fraction):
    """p_0..p_C of eq. (3) as fractions."""
    top = min(clients, capacity)
    terms = [Fraction(math.factorial(clients), math.factorial(clients - n))
             * (service_time / think_time) ** n for n in range(top + 1)]
    total = sum(terms)
    return [t / total for t in terms]


def test_probabilities_of_a_small_chain_are_eq_3():
    p = mm1bk_probabilities(clients=4, capacity=3, service_time=0.5, think_time=2.0)
    expected = exact(4, 3, Fraction(1, 2), Fraction(2))
    assert p.tolist() == pytest.approx([float(v) for v in expected], rel=1e-14)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.fractions(Fraction(1, 100), Fraction(10)),
       st.fractions(Fraction(1, 100), Fraction(100)))
def test_probabilities_and_sums_match_exact_arithmetic(clients, capacity, service, think):
    expected = [float(v) for v in exact(clients, capacity, service, think)]
    p = mm1bk_probabilities(clients=clients, capacity=capacity, service_time=float(service),
                            think_time=float(think))
    np.testing.assert_allclose(p, expected, rtol=1e-11, atol=1e-300)
    summary = solve_summary(np.array([float(clients)]), np.array([float(min(clients, capacity))]),
                            np.array([float(think / service)]))
    mean = sum(n * v for n, v in enumerate(expected))
    assert summary["p0"][0] == pytest.approx(expected[0], rel=1e-11, abs=1e-300)
    assert summary["busy"][0] == pytest.approx(1 - expected[0], rel=1e-11)
    assert summary["mean"][0] == pytest.approx(mean, rel=1e-11)
    assert summary["last"][0] == pytest.approx(expected[-1], rel=1e-11, abs=1e-300)


def test_p0_of_the_probabilities_is_the_summarys_to_the_last_bit():
    clients, capacity = np.array([5, 50, 500]), np.array([3, 60, 400])
    service, think = np.array([0.1, 0.02, 0.005]), np.array([1.0, 1.0, 2.0])
    p = mm1bk_probabilities(clients=clients, capacity=capacity, service_time=service,
                            think_time=think)
    summary = solve_summary(clients.astype(float), np.minimum(clients, capacity).astype(float),
                            think / service)
    assert np.array_equal(p[:, 0], summary["p0"])


def test_a_batch_is_zero_padded_to_its_largest_chain():
    p = mm1bk_probabilities(clients=[2, 6], capacity=[5, 4], service_time=1.0, think_time=1.0)
    assert p.shape == (2, 5)
    assert p[0, 3:].tolist() == [0.0, 0.0]  # C = 2 for the first configuration
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=1e-14)


def test_utilization_stays_accurate_when_tiny():
    """U = 1 - p0 summed directly: K S / Z = 1e-12 (the subtraction would give 0 or 1e-12
    with a relative error of 1e-4)."""
    summary = solve_summary(np.array([1.0]), np.array([1.0]), np.array([1e12]))
    assert summary["busy"][0] == pytest.approx(1e-12 / (1 + 1e-12), rel=1e-14)


def test_an_overloaded_server_is_almost_always_full():
    p = mm1bk_probabilities(clients=100, capacity=10, service_time=1.0, think_time=0.01)
    assert p[-1] > 0.999 and np.all(np.isfinite(p))


@pytest.mark.parametrize("kwargs, match", [
    ({"clients": 0}, "clients"),
    ({"capacity": 1.5}, "capacity"),
    ({"service_time": 0.0}, "service_time"),
    ({"think_time": TIME_RANGE[1] * 10}, "think_time"),
    ({"clients": [1, 2], "capacity": [1, 2, 3]}, "must broadcast to one shape"),
    ({"clients": MAX_STATES + 1, "capacity": MAX_STATES + 1}, "MAX_STATES"),
])
def test_bad_input_is_refused_naming_it(kwargs, match):
    args = dict(clients=3, capacity=3, service_time=1.0, think_time=1.0) | kwargs
    with pytest.raises(ValueError, match=match):
        validated(args["clients"], args["capacity"], args["service_time"], args["think_time"])


def test_too_large_a_probabilities_array_is_refused_before_it_is_built():
    clients = [MAX_STATES] * 14  # 14 x (1e7 + 1) > 2**27 numbers
    with pytest.raises(ValueError, match="MAX_PROBABILITY_ELEMENTS"):
        mm1bk_probabilities(clients=clients, capacity=MAX_STATES, service_time=1.0,
                            think_time=1.0)
    assert 14 * (MAX_STATES + 1) > MAX_PROBABILITY_ELEMENTS


def test_the_result_reads_the_shared_probabilities():
    res = mm1bk(clients=[3, 40], capacity=[5, 20], service_time=0.1, think_time=[1.0, 2.0])
    np.testing.assert_array_equal(
        res.probabilities, mm1bk_probabilities(clients=[3, 40], capacity=[5, 20],
                                               service_time=0.1, think_time=[1.0, 2.0]))
    assert np.all(res.probabilities[:, 0] == res.p0)


def test_the_summary_is_the_model():
    summary = solve_summary(np.array([40.0]), np.array([20.0]), np.array([20.0]))
    res = mm1bk(clients=40, capacity=20, service_time=0.1, think_time=2.0)
    assert summary["busy"][0] == res.utilization and summary["p0"][0] == res.p0
    assert summary["mean"][0] == res.mean_in_system
