"""queuetune.fit._inputs: the checks of the arguments every fitter shares; each returns the
argument converted or raises ValueError naming it and what it must be."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from queuetune.fit import Parameter
from queuetune.fit._inputs import (
    MAX_BOOTSTRAP,
    counts,
    enough_observations,
    free_and_fixed,
    initial_values,
    interval_args,
    observations,
    with_bounds,
)

#: service time > 0 (log scale), an overhead that may be 0, both below 10.
DOMAIN = {"service": (1e-6, 10.0, False), "overhead": (1e-6, 10.0, True)}
PARAMETERS = (Parameter("service", 1e-3, 1.0), Parameter("overhead", 0.0, 1.0, log=False))


# -- interval_args -----------------------------------------------------------------------------

def test_interval_args_pass_good_values_through():
    assert interval_args("bootstrap", "absolute", 0.9, 20, 0) == ("bootstrap", "absolute", 0.9,
                                                                 20, 0)
    assert interval_args("profile", "log", 0.5, MAX_BOOTSTRAP, 7)[3] == MAX_BOOTSTRAP


@pytest.mark.parametrize("args, name", [
    (("wald", "log", 0.95, 200, 0), "intervals"),
    (("profile", "linear", 0.95, 200, 0), "scale"),
    (("profile", "log", 1.0, 200, 0), "confidence"),
    (("profile", "log", 0.0, 200, 0), "confidence"),
    (("profile", "log", 0.95, 19, 0), "n_boot"),
    (("profile", "log", 0.95, MAX_BOOTSTRAP + 1, 0), "n_boot"),
    (("profile", "log", 0.95, 200, -1), "seed"),
    (("profile", "log", 0.95, 200.5, 0), "n_boot"),
])
def test_interval_args_refuse_naming_the_argument(args, name):
    with pytest.raises(ValueError, match=f"^{name} must"):
        interval_args(*args)


# -- observations --------------------------------------------------------------------------------

def test_observations_keep_the_series_given_as_float_arrays():
    sizes = {"clients": np.array([1, 2, 3])}
    observed = observations([0.1, 0.2, 0.4], None, [0.2, 0.5, 1.0], "clients", sizes)
    assert list(observed) == ["response_time", "utilization"]
    assert observed["utilization"].dtype == np.float64


@pytest.mark.parametrize("response_time, throughput, utilization, match", [
    (None, None, None, "give response_time or throughput"),
    ([0.1, 0.2], None, None, "response_time must have one value per element of clients"),
    ([0.1, 0.1, 0.1], None, None, "response_time must not be all equal"),
    (None, [1.0, -2.0, 3.0], None, "throughput must be"),
    ([0.1, 0.2, 0.3], None, [10, 20, 30], r"utilization \(a fraction, not percent\) must be"),
])
def test_observations_refused_naming_the_series(response_time, throughput, utilization, match):
    with pytest.raises(ValueError, match=match):
        observations(response_time, throughput, utilization, "clients",
                     {"clients": np.array([1, 2, 3])})


# -- with_bounds, free_and_fixed, initial_values --------------------------------------------------

def test_with_bounds_narrows_the_named_parameters_only():
    service, overhead = with_bounds(PARAMETERS, {"service": (0.01, 0.5)}, DOMAIN)
    assert (service.low, service.high, service.log) == (0.01, 0.5, True)
    assert overhead == PARAMETERS[1]
    assert with_bounds(PARAMETERS, None, DOMAIN) == PARAMETERS


@pytest.mark.parametrize("bounds, match", [
    ({"service": (0.5, 0.1)}, "bounds service high must be"),
    ({"service": (0.5, 0.5)}, "bounds service high must be"),
    ({"service": (0.0, 0.5)}, "bounds service low must be"),  # log: low > 0
    ({"service": (0.1, 20.0)}, "bounds service high must be"),  # outside the domain
    ({"service": 0.5}, r"bounds service must be a pair \(low, high\)"),
    ({"service": "ab"}, r"bounds service must be a pair"),
    ({"threads": (1, 2)}, "bounds must name only parameters among"),
])
def test_with_bounds_refuses_naming_the_parameter(bounds, match):
    with pytest.raises(ValueError, match=match):
        with_bounds(PARAMETERS, bounds, DOMAIN)


def test_free_defaults_to_every_parameter_not_fixed():
    names = ("service", "overhead")
    assert free_and_fixed(names, None, {"overhead": 0}, {}, DOMAIN) == (("service",),
                                                                      {"overhead": 0.0})
    # a parameter neither free nor fixed takes its default
    assert free_and_fixed(names, ["service"], None, {"overhead": 0.25}, DOMAIN) == (
        ("service",), {"overhead": 0.25})
    # the free parameters come back in the model's order
    assert free_and_fixed(names, ["overhead", "service"], None, {}, DOMAIN)[0] == names


@pytest.mark.parametrize("free, fixed, match", [
    (["threads"], None, r"free must name only parameters among \['service', 'overhead'\]"),
    ("service", None, "free must be a sequence of parameter names"),
    (["service"], {"service": 0.1}, r"cannot be both free and fixed"),
    (None, {"service": 0.1, "overhead": 0.1}, "at least one parameter must be free"),
    (["service"], None, "overhead must be fitted"),
    (None, {"service": 0}, "fixed service must be"),  # 0 only where the domain allows it
    (None, {"overhead": 20.0}, "fixed overhead must be"),
])
def test_free_and_fixed_refuse_naming_the_parameter(free, fixed, match):
    with pytest.raises(ValueError, match=match):
        free_and_fixed(("service", "overhead"), free, fixed, {}, DOMAIN)


def test_initial_values_must_lie_within_the_search_bounds():
    assert initial_values({"service": 0.5}, PARAMETERS) == {"service": 0.5}
    assert initial_values(None, PARAMETERS) == {}
    with pytest.raises(ValueError, match="initial service must be"):
        initial_values({"service": 2.0}, PARAMETERS)


# -- enough_observations, counts -----------------------------------------------------------------

def test_enough_observations_needs_one_residual_degree_of_freedom():
    enough_observations(3, ["a", "b"])
    with pytest.raises(ValueError, match=r"2 fitted parameters \(a, b\) need at least 3 "
                                         "observations, got 2"):
        enough_observations(2, ["a", "b"])
    with pytest.raises(ValueError, match=r"\(a and the capacity\) need at least 3"):
        enough_observations(2, ["a"], extra=1)


def test_counts_are_whole_numbers_from_one_and_repeat_a_single_number():
    np.testing.assert_array_equal(counts([1, 2, 30], "threads"), [1, 2, 30])
    assert counts([1, 2, 30], "threads").dtype == np.int64
    np.testing.assert_array_equal(counts(4, "threads", size=3), [4, 4, 4])


@pytest.mark.parametrize("values", [[0, 1], [1.5, 2], [1, math.nan], "12"])
def test_counts_refused_naming_the_series(values):
    with pytest.raises(ValueError, match="^threads must"):
        counts(values, "threads")


@given(st.lists(st.integers(min_value=1, max_value=2**53), min_size=1, max_size=20))
def test_counts_keep_every_whole_number_up_to_two_to_the_53(values):
    assert counts(values, "clients").tolist() == values
