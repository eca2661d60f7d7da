"""Input checks of the model and fit library: one idiom for every public function.

Each check takes the value as given and the parameter's name, returns the value converted
(a float64 or int64 array, a 1-d series, a Python number) and otherwise raises ``ValueError``
with a message that names the parameter and its allowed range, e.g.
``capacity must be an integer >= 1, got 0.5`` or
``service_time must be a number in [1e-100, 1e+100], got 0``. Booleans, strings, complex
numbers, ``None`` and empty arrays are refused the same way, so that no public function turns
bad input into a silent NaN, an overflow or an unrelated exception.

* arrays (the models, which broadcast): :func:`as_integer`, :func:`as_positive`,
  :func:`as_nonnegative`, :func:`as_time`, :func:`broadcast`;
* 1-d series (the fitters' measurements): :func:`as_series`, :func:`same_length`,
  :func:`not_all_equal`;
* single values: :func:`as_scalar_integer`, :func:`integer`, :func:`real`, :func:`magnitude`,
  :func:`as_choice`, :func:`as_flag`, :func:`as_mapping`.

The calculators of the source documents take single values with the same bounds as the models:
counts are integers up to :data:`MAX_INTEGER`, and times, rates, sizes and other positive
quantities lie in :data:`MAGNITUDE_RANGE` (:func:`magnitude`), so that the products and ratios
of a few of them stay finite floats.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from numbers import Real
from typing import Any

import numpy as np

__all__ = [
    "MAX_INTEGER",
    "MAGNITUDE_RANGE",
    "magnitude",
    "integer",
    "real",
    "as_integer",
    "as_positive",
    "as_nonnegative",
    "as_time",
    "as_series",
    "as_choice",
    "as_flag",
    "as_mapping",
    "as_scalar_integer",
    "broadcast",
    "same_length",
    "not_all_equal",
]

#: Largest integer argument accepted: every integer up to 2**53 is exact in float64.
MAX_INTEGER = 2**53
#: Range of the positive magnitudes (times, rates, sizes, numbers of users) of the calculators,
#: the models' range of times: a product or ratio of three of them is still a finite float.
MAGNITUDE_RANGE = (1e-100, 1e100)


def _fail(name: str, allowed: str, got: Any) -> ValueError:
    return ValueError(f"{name} must be {allowed}, got {got!r}")


def _interval(low: float, high: float, low_open: bool = False, high_open: bool = False,
              unit: str = "") -> str:
    left = "(" if low_open or low == -math.inf else "["
    right = ")" if high_open or high == math.inf else "]"
    return f"{left}{_bound(low)}, {_bound(high)}{right} {unit}".rstrip()


def _bound(value: float) -> str:
    """A bound as written in messages: an int in full (9007199254740992), a float with :g."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else f"{value:g}"


def _as_float_array(value: Any, name: str, allowed: str) -> tuple[np.ndarray, np.ndarray]:
    """``(as given, as float64)``, refusing what is not a real number."""
    if isinstance(value, str | bytes) or value is None:
        raise _fail(name, allowed, value)
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise _fail(name, allowed, value) from exc
    if raw.dtype.kind not in "iuf" and raw.dtype != object:
        # booleans, complex numbers, strings, dates
        first = raw.flat[0] if raw.size else value
        raise _fail(name, allowed, first.item() if hasattr(first, "item") else first)
    if raw.dtype == object:
        odd = next((v for v in raw.flat if isinstance(v, bool | np.bool_ | str | bytes)
                    or v is None), _NONE)
        if odd is not _NONE:
            raise _fail(name, allowed, odd)
    try:
        arr = raw.astype(np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise _fail(name, allowed, value) from exc
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty; it must be {allowed}")
    return raw, arr


_NONE = object()


def _first_bad(raw: np.ndarray, bad: np.ndarray) -> Any:
    """The first offending value as the caller gave it (0 stays 0, 0.5 stays 0.5)."""
    value = raw.flat[int(np.argmax(bad))]
    return value.item() if isinstance(value, np.generic) else value


def _refuse(raw: np.ndarray, bad: np.ndarray, name: str, allowed: str) -> None:
    if bad.any():
        raise _fail(name, allowed, _first_bad(raw, bad))


# --------------------------------------------------------------------------- arrays


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
    _refuse(raw, bad, name, allowed)
    _refuse(raw, _above(raw, arr, maximum), name, f"an integer between {minimum} and {maximum}")
    return arr.astype(np.int64)


def _above(raw: np.ndarray, arr: np.ndarray, top: float) -> np.ndarray:
    """Where a value exceeds ``top``, compared as given: an integer (Python, NumPy or in an
    object array) is compared exactly, not through its float64, which rounds 2**53 + 1 down to
    2**53 and would let it through as 2**53."""
    if raw.dtype.kind in "iuO":
        return np.asarray(raw > top, dtype=bool)
    return arr > top


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
        _refuse(raw, ~np.isfinite(arr) | (arr <= 0), name, allowed)
    return arr


def as_nonnegative(value: Any, name: str) -> np.ndarray:
    """``value`` as a float64 array of finite numbers >= 0."""
    allowed = "a finite number >= 0"
    raw, arr = _as_float_array(value, name, allowed)
    with np.errstate(invalid="ignore"):
        _refuse(raw, ~np.isfinite(arr) | (arr < 0), name, allowed)
    return arr


def as_time(value: Any, name: str, bounds: tuple[float, float], *,
            zero: bool = False) -> np.ndarray:
    """``value`` as a float64 array of numbers in ``[low, high]`` (or exactly 0 if ``zero``).

    The models bound their times so that every metric they return is a finite float.
    """
    low, high = bounds
    allowed = ("0 or " if zero else "") + f"a number in {_interval(low, high)}"
    raw, arr = _as_float_array(value, name, allowed)
    with np.errstate(invalid="ignore"):
        bad = ~((arr >= low) & (arr <= high))
        if zero:
            bad &= arr != 0
    _refuse(raw, bad, name, allowed)
    return arr


def broadcast(*named: tuple[str, np.ndarray]) -> list[np.ndarray]:
    """The arrays broadcast to one shape, or ``ValueError`` naming them and their shapes."""
    try:
        return np.broadcast_arrays(*(arr for _, arr in named))
    except ValueError as exc:
        names = [name for name, _ in named]
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        shapes = ", ".join(str(arr.shape) for _, arr in named)
        raise ValueError(f"{listed} must broadcast to one shape, got shapes {shapes}") from exc


# --------------------------------------------------------------------------- series


def as_series(values: Any, name: str, *, low: float = 0.0, low_open: bool = True,
              high: float = math.inf, integer: bool = False) -> np.ndarray:
    """``values`` as a 1-d float64 array of finite numbers in the range (whole numbers up to
    :data:`MAX_INTEGER` if ``integer``); a single number is a series of one."""
    kind = "integers" if integer else "finite numbers"
    top = min(high, MAX_INTEGER) if integer else high
    shown = f"{int(top)}" if integer else f"{top:g}"
    bounds = ([f"{'>' if low_open else '>='} {low:g}"] if math.isfinite(low) else []) + (
        [f"<= {shown}"] if math.isfinite(top) else [])
    allowed = " ".join([f"a 1-d sequence of {kind}", " and ".join(bounds)]).strip()
    raw, arr = _as_float_array(values, name, allowed)
    if arr.ndim == 0:
        raw, arr = raw.reshape(1), arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be {allowed}, got an array of shape {arr.shape}")
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(arr) | ((arr <= low) if low_open else (arr < low))
        bad |= _above(raw, arr, top) if integer else arr > top
        if integer:
            bad |= arr != np.floor(arr)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name} must be {allowed}; element {i} is {_first_bad(raw, bad)!r}")
    return arr


def same_length(reference: str, arrays: Mapping[str, np.ndarray]) -> None:
    """Every array in ``arrays`` has the length of ``arrays[reference]``."""
    size = arrays[reference].size
    for name, arr in arrays.items():
        if arr.size != size:
            raise ValueError(f"{name} must have one value per element of {reference} "
                             f"({size}), got {arr.size}")


def not_all_equal(arr: np.ndarray, name: str, why: str) -> None:
    """``ValueError`` when every element of ``arr`` is the same."""
    if arr.size > 1 and np.all(arr == arr[0]):
        raise ValueError(f"{name} must not be all equal (all are {arr[0]:g}): {why}")


# --------------------------------------------------------------------------- single values


def as_choice(value: Any, name: str, choices: Iterable[str]) -> str:
    """``value`` if it is one of ``choices``."""
    options = tuple(choices)
    if not isinstance(value, str) or value not in options:
        listed = ", ".join(repr(c) for c in options)
        raise ValueError(f"{name} must be one of {listed}, got {value!r}")
    return value


def as_flag(value: Any, name: str) -> bool:
    """``value`` if it is ``True`` or ``False`` (NumPy booleans included)."""
    if not isinstance(value, bool | np.bool_):
        raise _fail(name, "True or False", value)
    return bool(value)


def as_mapping(value: Any, name: str, keys: Iterable[str]) -> dict[str, Any]:
    """``value`` (``None`` for none) as a dict whose keys are all among ``keys``."""
    if value is None:
        return {}
    allowed = list(keys)
    if not isinstance(value, Mapping):
        raise _fail(name, f"a mapping with keys among {allowed}", value)
    unknown = sorted(str(k) for k in value if k not in allowed)
    if unknown:
        raise ValueError(f"{name} must name only parameters among {allowed}; unknown: {unknown}")
    return dict(value)


def real(value: Any, name: str, *, low: float = -math.inf, high: float = math.inf,
         low_open: bool = False, high_open: bool = False, unit: str = "") -> float:
    """``value`` as a finite float in the given interval, else ``ValueError`` naming ``name``."""
    allowed = _interval(low, high, low_open, high_open, unit)
    if isinstance(value, bool | np.bool_) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number in {allowed}, got {value!r}")
    try:
        x = float(value)
    except OverflowError:  # an int beyond the float range
        raise ValueError(f"{name} must be a number in {allowed}, got {value!r}") from None
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
    A float above :data:`MAX_INTEGER` in size does not either: a float that large holds only
    every second integer or fewer, so it may already be a rounded count (pass an int).
    """
    allowed = _interval(low, high, False, False, unit)
    whole = isinstance(value, Real) and not isinstance(value, bool | np.bool_)
    if whole and not isinstance(value, int | np.integer):
        try:
            whole = (math.isfinite(float(value)) and float(value).is_integer()
                     and abs(float(value)) <= MAX_INTEGER)
        except OverflowError:
            whole = False
    if not whole or not low <= int(value) <= high:
        raise ValueError(f"{name} must be an integer in {allowed}, got {value!r}")
    return int(value)


def magnitude(value: Any, name: str, *, zero: bool = False, unit: str = "") -> float:
    """``value`` as a float in :data:`MAGNITUDE_RANGE` (or exactly 0 if ``zero``), else
    ``ValueError`` naming ``name``: the times, rates and sizes of the calculators.

    Like :func:`as_time` for one value: no accepted value is subnormal or close to it, so that
    products and ratios of a few of them keep their relative precision.
    """
    low, high = MAGNITUDE_RANGE
    if (zero and isinstance(value, Real) and not isinstance(value, bool | np.bool_)
            and value == 0):
        return 0.0
    try:
        return real(value, name, low=low, high=high, unit=unit)
    except ValueError:
        if not zero:
            raise
        raise ValueError(f"{name} must be 0 or a number in {_interval(low, high, unit=unit)}, "
                         f"got {value!r}") from None
