"""Numbers and intervals written out as the chapters print them.

    >>> significant(0.123456)
    '0.123'
    >>> span((12.3, 45.6), "{:.0f}")
    '12 to 46'
    >>> with_interval(0.5012, 0.41, 0.6)
    '0.501 (0.41 to 0.6)'
    >>> listed([4, 2, 4, 8])
    '2, 4, 8'
    >>> signed_percent(-1e-9)
    '0.000%'
    >>> difference_text(2.2e-15), difference_text(3.1e-4)
    ('below 1e-12', '3.1e-04')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from functools import partial

__all__ = ["significant", "span", "with_interval", "listed", "signed_percent",
           "ROUNDING_LEVEL", "difference_text"]

Format = str | Callable[[float], str]
#: Most digits written: a float64 has at most 17 significant decimal digits.
MAX_DIGITS = 17

#: The relative difference below which two float64 computations of one quantity are said to
#: agree to rounding, and printed as "below 1e-12", never with their last digits (which change
#: with the processor and the build of NumPy and OpenBLAS: 9.99e-16 here is 2.22e-15 there).
#: The chapters compare solvers whose rounding error grows at most linearly with the states of
#: the chains they solve (a few roundings per state, ``u = 2**-53`` each): 1e-12 is about
#: 4,500 ``u``, above that error for the chapters' chains (at most a few hundred states per
#: level, a few thousand in all) and far below any difference a model makes (1e-6 and up).
ROUNDING_LEVEL = 1e-12


def _formatter(fmt: Format) -> Callable[[float], str]:
    if callable(fmt):
        return fmt
    if not isinstance(fmt, str) or "{" not in fmt:
        raise ValueError(f"fmt must be a format string such as '{{:.2f}}' or a callable, "
                         f"got {fmt!r}")
    return fmt.format


def _check_count(value: object, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_DIGITS:
        raise ValueError(f"{name} must be an integer >= {low} and <= {MAX_DIGITS}, got {value!r}")
    return value


def _check_number(value: object) -> None:
    """``value`` is a real number a float can hold (infinities and NaN included)."""
    if not isinstance(value, bool | str | bytes) and value is not None:
        try:
            float(value)
            return
        except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond floats
            pass
    raise ValueError(f"value must be a real number within the float range, got {value!r}")


def significant(value: float, digits: int = 3) -> str:
    """``value`` to ``digits`` significant figures (an integer in [1, 17]); infinities as "∞"
    and "-∞"."""
    _check_count(digits, "digits", 1)
    _check_number(value)
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return f"{value:.{digits}g}"


def span(values: Iterable[float], fmt: Format = "{:g}") -> str:
    """The values joined by " to ", each written with ``fmt`` (a format string or a callable)."""
    write = _formatter(fmt)
    return " to ".join(write(v) for v in values)


def with_interval(value: float, low: float, high: float, digits: int = 3,
                  fmt: Format | None = None) -> str:
    """"value (low to high)", each to ``digits`` significant figures, or written with ``fmt``."""
    write = _formatter(fmt) if fmt is not None else partial(significant, digits=digits)
    return f"{write(value)} ({span((low, high), write)})"


def listed(values: Iterable[float], fmt: Format = "{:g}") -> str:
    """The distinct values in increasing order, written with ``fmt`` and joined by ", "."""
    write = _formatter(fmt)
    return ", ".join(write(v) for v in sorted(set(values)))


def signed_percent(value: float, decimals: int = 3) -> str:
    """A share as a signed percentage with ``decimals`` decimals (an integer in [0, 17]); a value
    that rounds to zero is written without a sign."""
    _check_count(decimals, "decimals", 0)
    _check_number(value)
    text = f"{value:+.{decimals}%}"
    zero = f"{0:.{decimals}%}"
    return zero if text in (f"+{zero}", f"-{zero}") else text


def difference_text(value: float, fmt: Format = "{:.1e}", *,
                    level: float = ROUNDING_LEVEL) -> str:
    """A relative difference (or error) as a chapter prints it: ``"below 1e-12"`` when its
    magnitude is below ``level`` (rounding, whose digits are not portable), else ``fmt``'s.

    >>> difference_text(-9.99e-16), difference_text(0.0), difference_text(0.0123, "{:.2%}")
    ('below 1e-12', 'below 1e-12', '1.23%')
    """
    _check_number(value)
    if not (isinstance(level, float | int) and math.isfinite(level) and level > 0):
        raise ValueError(f"level must be a number > 0, got {level!r}")
    return f"below {level:.0e}" if abs(value) < level else _formatter(fmt)(value)
