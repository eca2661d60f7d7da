"""The arguments every fitter shares, checked in the idiom of :mod:`queuetune._validation`:
each check returns the argument converted or raises ``ValueError`` naming it and what it must
be."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any

import numpy as np

from .._validation import (
    as_choice,
    as_mapping,
    as_series,
    integer,
    not_all_equal,
    real,
    same_length,
)
from ._core import INTERVALS, SCALES, Parameter

__all__ = ["MAX_BOOTSTRAP", "Domain", "interval_args", "observations", "with_bounds",
           "free_and_fixed", "initial_values", "enough_observations", "counts"]

#: Largest ``n_boot``: each bootstrap replicate is a full refit.
MAX_BOOTSTRAP = 2000

#: The values a model accepts for each parameter: ``name -> (low, high, zero allowed)``.
Domain = Mapping[str, tuple[float, float, bool]]


def interval_args(intervals: Any, scale: Any, confidence: Any, n_boot: Any, seed: Any
                  ) -> tuple[str, str, float, int, int]:
    """``intervals``, ``scale``, ``confidence`` in (0, 1), ``n_boot`` in [20, MAX_BOOTSTRAP]
    and ``seed`` >= 0, checked."""
    return (as_choice(intervals, "intervals", INTERVALS), as_choice(scale, "scale", SCALES),
            real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True),
            integer(n_boot, "n_boot", low=20, high=MAX_BOOTSTRAP),
            integer(seed, "seed", low=0))


def observations(response_time, throughput, utilization, size_name: str,
                 sizes: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The measured series (response time and throughput > 0, utilization in (0, 1]), one
    value per configuration, none constant; at least one of response time and throughput."""
    observed = {}
    if response_time is not None:
        observed["response_time"] = as_series(response_time, "response_time")
    if throughput is not None:
        observed["throughput"] = as_series(throughput, "throughput")
    if utilization is not None:
        observed["utilization"] = as_series(
            utilization, "utilization (a fraction, not percent)", high=1.0)
    if "response_time" not in observed and "throughput" not in observed:
        raise ValueError("give response_time or throughput (or both): at least one measured "
                         "performance series is needed")
    same_length(size_name, {**sizes, **observed})
    for name, arr in observed.items():
        not_all_equal(arr, name, "a constant series cannot be told from noise")
    return observed


def _in_domain(value: Any, what: str, domain: Domain, name: str) -> float:
    """``value`` in the model's range for parameter ``name`` (or 0 where the model allows)."""
    low, high, zero = domain[name]
    if zero and isinstance(value, Real) and not isinstance(value, bool | np.bool_) \
            and value == 0:
        return 0.0
    return real(value, f"{what} {name}", low=low, high=high, unit="(or 0)" if zero else "")


def with_bounds(parameters: Sequence[Parameter], bounds: Any, domain: Domain
                ) -> tuple[Parameter, ...]:
    """The parameters with the search bounds of ``bounds`` (``name -> (low, high)``), each
    inside the model's domain, ``low < high``, ``low > 0`` on a log scale."""
    names = [p.name for p in parameters]
    given = as_mapping(bounds, "bounds", names)
    out = []
    for p in parameters:
        if p.name not in given:
            out.append(p)
            continue
        pair = given[p.name]
        if isinstance(pair, str | bytes) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise ValueError(f"bounds {p.name} must be a pair (low, high), got {pair!r}")
        low_d, high_d, _ = domain[p.name]
        low_d = max(low_d, math.ulp(0.0)) if p.log else low_d
        low = real(pair[0], f"bounds {p.name} low", low=low_d, high=high_d)
        high = real(pair[1], f"bounds {p.name} high", low=low, high=high_d, low_open=True)
        out.append(Parameter(p.name, low, high, p.log, p.unit))
    return tuple(out)


def free_and_fixed(names: tuple[str, ...], free: Any, fixed: Any, defaults: Mapping[str, float],
                   domain: Domain) -> tuple[tuple[str, ...], dict[str, float]]:
    """The fitted parameters (default: every one not in ``fixed``) and the values of the
    others (``fixed``, else ``defaults``); fixed values inside the model's domain."""
    fixed = {k: _in_domain(v, "fixed", domain, k)
             for k, v in as_mapping(fixed, "fixed", names).items()}
    if free is None:
        free = tuple(n for n in names if n not in fixed)
    if isinstance(free, str | bytes) or not isinstance(free, Sequence):
        raise ValueError(f"free must be a sequence of parameter names, got {free!r}")
    free = tuple(free)
    bad = [n for n in free if n not in names]
    if bad:
        raise ValueError(f"free must name only parameters among {list(names)}; unknown: {bad}")
    both = sorted(set(free) & set(fixed))
    if both:
        raise ValueError(f"parameter(s) {both} cannot be both free and fixed")
    if not free:
        raise ValueError("at least one parameter must be free")
    for n in names:
        if n not in free and n not in fixed:
            if n not in defaults:
                raise ValueError(f"{n} must be fitted (in free) or given a value in fixed")
            fixed[n] = defaults[n]
    return tuple(n for n in names if n in free), fixed


def initial_values(initial: Any, parameters: Sequence[Parameter]) -> dict[str, float]:
    """Starting values, each within its parameter's search bounds."""
    by_name = {p.name: p for p in parameters}
    return {name: real(value, f"initial {name}", low=by_name[name].low,
                       high=by_name[name].high)
            for name, value in as_mapping(initial, "initial", list(by_name)).items()}


def enough_observations(n: int, free: Sequence[str], extra: int = 0) -> None:
    """More observations than estimated quantities (one residual degree of freedom at least)."""
    need = len(free) + extra + 1
    if n < need:
        listed = ", ".join(free) + (" and the capacity" if extra else "")
        raise ValueError(f"too few observations: {len(free) + extra} fitted parameters "
                         f"({listed}) need at least {need} observations, got {n}")


def counts(values: Any, name: str, size: int | None = None) -> np.ndarray:
    """A series of integers >= 1 (clients, threads, capacities) as int64; a single number is
    repeated ``size`` times when ``size`` is given."""
    if size is not None and np.ndim(values) == 0 and not isinstance(values, str | bytes):
        values = [values] * size
    return as_series(values, name, low=1, low_open=False, integer=True).astype(np.int64)


def concurrency(values: Any, name: str, size: int | None = None, *,
                positive: bool = False) -> np.ndarray:
    """A series of numbers >= 1 (``positive``: > 0) - clients, or a measured mean concurrency,
    which may be non-integer - as float64, at most 2**53; a single number is repeated ``size``
    times when ``size`` is given."""
    if size is not None and np.ndim(values) == 0 and not isinstance(values, str | bytes):
        values = [values] * size
    if positive:
        return as_series(values, name, low=0.0, low_open=True, high=float(2**53))
    return as_series(values, name, low=1, low_open=False, high=float(2**53))
