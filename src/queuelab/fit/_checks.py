"""Input checks of the fitters: each raises ``ValueError`` naming the argument and what it
must be (the first offending element is quoted)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["series", "same_length", "not_all_equal", "enough_observations", "choice"]


def series(values: Any, name: str, *, low: float = 0.0, low_open: bool = True,
           high: float = np.inf, integer: bool = False) -> np.ndarray:
    """``values`` as a 1-d float array of finite numbers in the range, or ``ValueError``."""
    kind = "integers" if integer else "finite numbers"
    bound = f"{'>' if low_open else '>='} {low:g}" + (f" and <= {high:g}" if np.isfinite(high)
                                                       else "")
    allowed = f"a 1-d sequence of {kind} {bound}"
    if values is None or isinstance(values, str | bytes):
        raise ValueError(f"{name} must be {allowed}, got {values!r}")
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {allowed}, got {values!r}") from None
    if raw.ndim == 0:
        raw = raw.reshape(1)
    if raw.ndim != 1 or raw.size == 0:
        raise ValueError(f"{name} must be {allowed}, got an array of shape {raw.shape}")
    if raw.dtype.kind == "b" or (raw.dtype == object and any(
            isinstance(v, bool | np.bool_) for v in raw)):
        raise ValueError(f"{name} must be {allowed}, got booleans")
    try:
        arr = raw.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {allowed}, got {values!r}") from None
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(arr) | ((arr <= low) if low_open else (arr < low)) | (arr > high)
        if integer:
            bad |= arr != np.floor(arr)
    if bad.any():
        i = int(np.argmax(bad))
        value = raw[i].item() if isinstance(raw[i], np.generic) else raw[i]
        raise ValueError(f"{name} must be {allowed}; element {i} is {value!r}")
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


def enough_observations(n: int, free: Sequence[str], extra: int = 0) -> None:
    """More observations than estimated quantities (one residual degree of freedom at least)."""
    need = len(free) + extra + 1
    if n < need:
        listed = ", ".join(free) + (" and the capacity" if extra else "")
        raise ValueError(f"too few observations: {len(free) + extra} fitted parameters "
                         f"({listed}) need at least {need} observations, got {n}")


def choice(value: Any, name: str, options: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}, "
                         f"got {value!r}")
    return value
