"""Strategies over the documented domain of the public functions, extremes included, and the
check that a call either returns finite numbers or raises a ValueError that names a parameter.

Each argument is drawn valid most of the time and, now and then, from values the function
documents as refused; a call with one refused argument must raise a ValueError naming that
argument. Sizes are kept small enough for the property tests to run in seconds (the largest
models are covered by the unit tests and the benchmark); values range over everything the
functions accept, including their bounds.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st

from queuetune._validation import MAX_INTEGER

#: Seeded, without deadline: the settings the calculators' property tests start from.
SEEDED = settings(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
#: Seeded, without deadline, for tests that compare a batch with single calls.
BATCH = settings(max_examples=100, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow,
                                        HealthCheck.function_scoped_fixture])
LOW, HIGH = 1e-100, 1e100
#: The bounds of the time range, just inside them, and ordinary values.
TIME_EDGES = [LOW, HIGH, math.nextafter(LOW, 1.0), math.nextafter(HIGH, 0.0), 1.0, 0.14, 4.0]
#: Values refused as a time (0 is refused unless the parameter allows it).
BAD_TIMES = [-1.0, math.nan, math.inf, -math.inf, 1e-101, 1.0000001e100, 5e-324, "0.1", None,
             True, [], 1 + 1j]
#: Values refused as a count (an integer >= 1).
# (MAX_INTEGER + 1 rounds to MAX_INTEGER as a float64: it must be refused, not rounded)
BAD_COUNTS = [0, -3, 0.5, math.nan, math.inf, MAX_INTEGER + 1, MAX_INTEGER + 2, 1e20, "40", None,
              True, []]


class Refused:
    """An argument drawn from the refused values, with its name."""

    def __init__(self, name: str, value):
        self.name, self.value = name, value

    def __repr__(self) -> str:
        return f"Refused({self.name!r}, {self.value!r})"


def times(zero: bool = False, low: float = LOW, high: float = HIGH):
    """Times over the whole accepted range (log-uniform), its edges, and 0 if allowed."""
    log_uniform = st.floats(math.log10(low), math.log10(high)).map(lambda e: 10.0 ** e)
    edges = st.sampled_from([t for t in TIME_EDGES if low <= t <= high])
    options = [log_uniform, edges] + ([st.just(0.0)] if zero else [])
    return st.one_of(*options).map(lambda t: min(max(t, low), high) if t else t)


def counts(high: int = 60, huge: bool = True):
    """Counts >= 1: small ones mostly, and the largest accepted."""
    small = st.integers(1, high)
    if not huge:
        return small
    return st.one_of(small, small, small, st.sampled_from([10**6, MAX_INTEGER - 1, MAX_INTEGER]))


def refused_argument(draw, names: list[str]) -> str | None:
    """Which argument of a call is drawn refused: none in about two calls of three."""
    return draw(st.sampled_from([None] * (2 * len(names)) + list(names)))


def maybe_refused(draw, name: str, valid, bad_values, target: str | None):
    """A valid value, or a refused one wrapped in Refused if ``name`` is the ``target``."""
    if name == target:
        return Refused(name, draw(st.sampled_from(bad_values)))
    return draw(valid)


def unwrap(arguments: dict) -> tuple[dict, list[str]]:
    """The plain arguments and the names of those drawn refused."""
    plain, refused = {}, []
    for name, value in arguments.items():
        if isinstance(value, Refused):
            plain[name] = value.value
            refused.append(name)
        else:
            plain[name] = value
    return plain, refused


def call(function, arguments: dict, names: list[str], always: tuple[str, ...] = ()):
    """``function(**arguments)``: the result, or None after checking that a ValueError names
    the refused argument (or one of ``always``, arguments checked first, such as measured
    data), or, with none refused, one of ``names``. Any other exception fails the test, and so
    does a refused argument accepted."""
    plain, refused = unwrap(arguments)
    try:
        result = function(**plain)
    except ValueError as exc:
        message = str(exc)
        expected = refused + list(always) if refused else names
        assert "must" in message, message
        assert any(name in message for name in expected), (expected, message)
        event("refused: a drawn refused value" if refused else "refused: a limit")
        return None
    assert not refused, f"{refused} accepted: {plain}"
    event("solved")
    return result


def assert_finite(result, metrics) -> None:
    for name in metrics:
        value = np.asarray(getattr(result, name), dtype=float)
        assert np.all(np.isfinite(value)), (name, value)


def close(actual: float, expected: float, rel: float) -> bool:
    """Relative agreement; values below 1e-280 (underflow) agree with anything that small."""
    expected, actual = float(expected), float(actual)
    if abs(expected) < 1e-280:
        return abs(actual) < 1e-270
    return abs(actual - expected) <= rel * abs(expected)


# --- the calculators of the source documents and the chapter helpers ----------------------

CALC = settings(SEEDED, max_examples=100)
FEW = settings(CALC, max_examples=25)
F = Fraction

#: Refused as a count of at least 1 (BAD_COUNTS) and beyond any float or C long.
BAD_INTS = BAD_COUNTS + [10**400, 2**63]
#: Refused as a count of at least 0.
BAD_INTS_FROM_ZERO = [-1, 0.5, math.nan, math.inf, MAX_INTEGER + 1, MAX_INTEGER + 2, 1e20,
                      10**400, "3", None, True]
#: Refused as 0 or a magnitude in [1e-100, 1e100].
BAD_AMOUNTS = [-1.0, math.nan, math.inf, -math.inf, 1e-101, 5e-324, 1.0000001e100, 1e308,
               10**400, "1", None, True, [], 1 + 1j]
#: Refused as a magnitude in [1e-100, 1e100] (BAD_TIMES, 0 and numbers beyond any float).
BAD_MAGNITUDES = BAD_TIMES + [0.0, 1e308, 10**400]
BAD_PERCENTS = [-1e-9, 100.0000001, math.nan, math.inf, 10**400, "50", None, True]


def optional(bad_values):
    """The refused values of a parameter whose None means its default."""
    return [v for v in bad_values if v is not None]


def drawn(draw, spec: dict) -> dict:
    """Arguments drawn from ``{name: (valid strategy, refused values)}``, at most one refused."""
    bad = refused_argument(draw, list(spec))
    return {name: maybe_refused(draw, name, valid, refused, bad)
            for name, (valid, refused) in spec.items()}


def amounts():
    """0 or a magnitude in [1e-100, 1e100]."""
    return times(zero=True)


def counts_from_zero():
    return st.one_of(st.just(0), counts())


def percents(low: float = 0.0, high: float = 100.0):
    return st.one_of(st.floats(low, high), st.sampled_from([low, high, 50.0]))


def exact(value) -> Fraction:
    return F(value)
