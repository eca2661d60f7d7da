"""Input checks shared by the calculators: a bad value raises ``ValueError`` that names the
parameter and the allowed range."""

from __future__ import annotations

import math
from numbers import Integral, Real

__all__ = ["integer", "real"]


def _range(low: float, high: float, low_open: bool, high_open: bool, unit: str) -> str:
    left = "(" if low_open or low == -math.inf else "["
    right = ")" if high_open or high == math.inf else "]"
    return f"{left}{low:g}, {high:g}{right} {unit}".rstrip()


def real(value, name: str, *, low: float = -math.inf, high: float = math.inf,
         low_open: bool = False, high_open: bool = False, unit: str = "") -> float:
    """``value`` as a finite float in the given interval, else ``ValueError`` naming ``name``."""
    allowed = _range(low, high, low_open, high_open, unit)
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number in {allowed}, got {value!r}")
    x = float(value)
    inside = (math.isfinite(x)
              and (x > low if low_open else x >= low)
              and (x < high if high_open else x <= high))
    if not inside:
        raise ValueError(f"{name} must be a number in {allowed}, got {value!r}")
    return x


def integer(value, name: str, *, low: int = 0, high: float = math.inf, unit: str = "") -> int:
    """``value`` as an int in [low, high], else ``ValueError`` naming ``name``.

    Booleans and floats (even 3.0) are refused: a count is a whole number.
    """
    allowed = _range(low, high, False, False, unit)
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"{name} must be an integer in {allowed}, got {value!r}")
    n = int(value)
    if not low <= n <= high:
        raise ValueError(f"{name} must be an integer in {allowed}, got {value!r}")
    return n
