"""queuetune.chapters.text: numbers and intervals written out as the chapters print them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_domain import (
    CALC,
    call,
)

from queuetune.chapters import text


@pytest.mark.parametrize("value, digits, written", [
    (0.123456, 3, "0.123"), (116.107359, 3, "116"), (291.233, 2, "2.9e+02"), (0.0, 3, "0"),
    (math.inf, 3, "∞"), (-math.inf, 2, "-∞"), (1.5e-5, 3, "1.5e-05"),
])
def test_significant(value, digits, written):
    assert text.significant(value, digits) == written
    if math.isfinite(value) and value:
        # the text reads back to the value within half a unit of its last significant figure
        assert abs(float(written) - value) <= 0.5 * 10 ** (math.floor(math.log10(abs(value)))
                                                            - digits + 1)


@pytest.mark.parametrize("digits", [0, -1, 2.0, "3"])
def test_significant_refuses_bad_digits(digits):
    with pytest.raises(ValueError, match="digits must be an integer >= 1"):
        text.significant(1.0, digits)


def test_span_with_a_format_string_or_a_callable():
    assert text.span((12.3, 45.6), "{:.0f}") == "12 to 46"
    assert text.span([0.001234, 0.5], "{:.2f}") == "0.00 to 0.50"
    assert text.span((1, 2, 3)) == "1 to 2 to 3"
    assert text.span((0.5, math.inf), text.significant) == "0.5 to ∞"
    # numpy scalars, as fits return them
    assert text.span(np.array([3.26, 7.74]), "{:.1f}") == "3.3 to 7.7"


@pytest.mark.parametrize("fmt", ["%d", 3, None])
def test_span_refuses_what_is_not_a_format(fmt):
    with pytest.raises(ValueError, match="fmt must be a format string"):
        text.span((1, 2), fmt)


def test_with_interval():
    assert text.with_interval(0.457728, 0.349206, 0.497158) == "0.458 (0.349 to 0.497)"
    assert text.with_interval(0.457728, 0.349206, 0.497158, 2) == "0.46 (0.35 to 0.5)"
    assert text.with_interval(93.6, -12.2, 199.4, fmt="{:.0f}") == "94 (-12 to 199)"
    assert text.with_interval(1.0, 0.5, math.inf) == "1 (0.5 to ∞)"


def test_listed_sorts_and_drops_repeats():
    assert text.listed([8, 1, 4, 2, 4, 8]) == "1, 2, 4, 8"
    assert text.listed([750.0, 750.0]) == "750"
    assert text.listed([0.1, 0.05], "{:.2f} s") == "0.05 s, 0.10 s"
    assert text.listed([]) == ""


@pytest.mark.parametrize("value, written", [
    (0.0123456, "+1.235%"), (-0.0123456, "-1.235%"), (0.0, "0.000%"), (4e-9, "0.000%"),
    (-4e-9, "0.000%"), (6e-6, "+0.001%"), (-6e-6, "-0.001%"),
])
def test_signed_percent(value, written):
    assert text.signed_percent(value) == written


def test_signed_percent_decimals():
    assert text.signed_percent(0.5, 0) == "+50%"
    assert text.signed_percent(-1e-4, 1) == "0.0%"
    with pytest.raises(ValueError, match="decimals must be an integer >= 0"):
        text.signed_percent(0.5, -1)


# --- over the whole domain (property tests): chapter helpers


@CALC
@given(st.one_of(st.floats(), st.integers(-10**20, 10**20),
                 st.sampled_from([10**400, "1", None, True, 1j])),
       st.one_of(st.integers(0, 17), st.sampled_from([18, 10**9, -1, 2.0, True, "3"])))
def test_chapter_text_over_its_domain(value, digits):
    number = not isinstance(value, bool | str | complex) and value is not None and (
        not isinstance(value, int) or abs(value) < 1e308)
    for function, name, low in ((text.significant, "digits", 1),
                                (text.signed_percent, "decimals", 0)):
        count = not isinstance(digits, bool) and isinstance(digits, int) and low <= digits <= 17
        written = call(function, {"value": value, name: digits}, ["value", name])
        assert (written is not None) == (number and count), (value, digits)
        if written is not None:
            assert isinstance(written, str) and len(written) < 400


@pytest.mark.parametrize(("value", "written"), [
    (0.0, "below 1e-12"), (-9.99e-16, "below 1e-12"), (2.22e-15, "below 1e-12"),
    (9.99e-13, "below 1e-12"), (1e-12, "1.0e-12"), (-3.1e-4, "-3.1e-04"), (math.inf, "inf"),
])
def test_difference_text_says_below_the_rounding_level(value, written):
    """A difference at rounding level prints the same on every processor (9.99e-16 here,
    2.22e-15 there: both 'below 1e-12'); one above it prints its digits."""
    assert text.difference_text(value) == written


def test_difference_text_takes_a_format_and_a_level():
    assert text.difference_text(0.0123, "{:.2%}") == "1.23%"
    assert text.difference_text(5e-7, level=1e-6) == "below 1e-06"
    with pytest.raises(ValueError, match="level must be a number > 0"):
        text.difference_text(1.0, level=0)
    with pytest.raises(ValueError, match="fmt must be a format string"):
        text.difference_text(1.0, "%g")
