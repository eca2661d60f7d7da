"""Input checks shared by the public functions of :mod:`queuelab.models`.

Each check turns its argument into a float64 or int64 array and raises ``ValueError`` at the
first value out of range, with a message that names the parameter and the allowed range, e.g.
``capacity must be an integer >= 1, got 0.5``. Booleans, strings, complex numbers and empty
arrays are rejected the same way, so that no public function returns a silent NaN.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from numbers import Real
from typing import Any

import numpy as np

__all__ = [
    "MAX_INTEGER",
    "integer",
    "real",
    "as_integer",
    "as_positive",
    "as_nonnegative",
    "as_choice",
    "as_scalar_integer",
]

#: Largest integer argument accepted: every integer up to 2**53 is exact in float64.
MAX_INTEGER = 2**53


def _fail(name: str, allowed: str, got: Any) -> ValueError:
    return ValueError(f"{name} must be {allowed}, got {got!r}")


def _as_float_array(value: Any, name: str, allowed: str) -> tuple[np.ndarray, np.ndarray]:
    """``(as given, as float64)``, rejecting what is not a real number."""
    if isinstance(value, str | bytes):
        raise _fail(name, allowed, value)
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise _fail(name, allowed, value) from exc
    if raw.dtype.kind not in "iuf" and raw.dtype != object:
        # booleans, complex numbers, strings, dates
        first = raw.flat[0] if raw.size else value
        raise _fail(name, allowed, first.item() if hasattr(first, "item") else first)
    try:
        arr = raw.astype(np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise _fail(name, allowed, value) from exc
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty; it must be {allowed}")
    if raw.dtype == object and any(isinstance(v, bool | np.bool_) for v in raw.flat):
        raise _fail(name, allowed, next(v for v in raw.flat if isinstance(v, bool | np.bool_)))
    return raw, arr


def _first_bad(raw: np.ndarray, bad: np.ndarray) -> Any:
    """The first offending value as the caller gave it (0 stays 0, 0.5 stays 0.5)."""
    value = raw.flat[int(np.argmax(bad))]
    return value.item() if isinstance(value, np.generic) else value


def as_integer(
    value: Any, name: str, *, minimum: int = 1, maximum: int = MAX_INTEGER
) -> np.ndarray:
    """``value`` as an int64 array of integers in ``[minimum, maximum]``."""
    allowed = f"an integer >= {minimum}"
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.size:
        # integer arrays need only a range check (the common, fast path for large batches)
        low, high = value.min(), value.max()
        if minimum <= low and high <= maximum:
            return value.astype(np.int64)
    raw, arr = _as_float_array(value, name, allowed)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(arr) | (arr != np.floor(arr)) | (arr < minimum)
    if bad.any():
        raise _fail(name, allowed, _first_bad(raw, bad))
    too_big = arr > maximum
    if too_big.any():
        raise _fail(name, f"an integer between {minimum} and {maximum}", _first_bad(raw, too_big))
    return arr.astype(np.int64)


def as_scalar_integer(
    value: Any, name: str, *, minimum: int = 1, maximum: int = MAX_INTEGER
) -> int:
    """``value`` as one Python int in ``[minimum, maximum]``."""
    arr = as_integer(value, name, minimum=minimum, maximum=maximum)
    if arr.ndim != 0:
        raise ValueError(
            f"{name} must be a single integer >= {minimum}, got an array of shape {arr.shape}"
        )
    return int(arr)


def as_positive(value: Any, name: str) -> np.ndarray:
    """``value`` as a float64 array of finite numbers > 0."""
    allowed = "a finite number > 0"
    raw, arr = _as_float_array(value, name, allowed)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(arr) | (arr <= 0)
    if bad.any():
        raise _fail(name, allowed, _first_bad(raw, bad))
    return arr


def as_nonnegative(value: Any, name: str) -> np.ndarray:
    """``value`` as a float64 array of finite numbers >= 0."""
    allowed = "a finite number >= 0"
    raw, arr = _as_float_array(value, name, allowed)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        raise _fail(name, allowed, _first_bad(raw, bad))
    return arr


def as_choice(value: Any, name: str, choices: Iterable[str]) -> str:
    """``value`` if it is one of ``choices``."""
    options = tuple(choices)
    if not isinstance(value, str) or value not in options:
        listed = ", ".join(repr(c) for c in options)
        raise ValueError(f"{name} must be one of {listed}, got {value!r}")
    return value


# Scalar checks of the calculators (sizing, scaling, thread posting): one number each, with an
# interval that the message spells out, e.g. "cpus must be an integer in [1, inf), got 0".


def _interval(low: float, high: float, low_open: bool, high_open: bool, unit: str) -> str:
    left = "(" if low_open or low == -math.inf else "["
    right = ")" if high_open or high == math.inf else "]"
    return f"{left}{low:g}, {high:g}{right} {unit}".rstrip()


def real(value: Any, name: str, *, low: float = -math.inf, high: float = math.inf,
         low_open: bool = False, high_open: bool = False, unit: str = "") -> float:
    """``value`` as a finite float in the given interval, else ``ValueError`` naming ``name``."""
    allowed = _interval(low, high, low_open, high_open, unit)
    if isinstance(value, bool | np.bool_) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number in {allowed}, got {value!r}")
    x = float(value)
    inside = (math.isfinite(x)
              and (x > low if low_open else x >= low)
              and (x < high if high_open else x <= high))
    if not inside:
        raise ValueError(f"{name} must be a number in {allowed}, got {value!r}")
    return x


def integer(value: Any, name: str, *, low: int = 0, high: float = math.inf,
            unit: str = "") -> int:
    """``value`` as an int in [low, high], else ``ValueError`` naming ``name``.

    Like :func:`as_integer`, a whole-valued float (3.0) counts as an integer; 3.5 does not.
    """
    allowed = _interval(low, high, False, False, unit)
    whole = (isinstance(value, Real) and not isinstance(value, bool | np.bool_)
             and math.isfinite(float(value)) and float(value).is_integer())
    if not whole or not low <= int(value) <= high:
        raise ValueError(f"{name} must be an integer in {allowed}, got {value!r}")
    return int(value)
