"""Fitting the queueing models of :mod:`queuetune.models` to measurements.

* :func:`fit_mm1bk` - service time S and think time Z of the M/M/1/B/K model (and the
  capacity B, profiled over integers, when it is not given);
* :func:`fit_thread_pool` - CPU time, wait time, think time and overheads of the thread-pool
  model, over a whole clients x threads grid at once.

Both take response times and/or throughputs measured at several client counts (and, optionally,
CPU utilizations: by the Utilization Law U = X D the model's utilization is its throughput times
its CPU demand, so a measured U pins the demand). See :mod:`queuetune.fit` for the statistics:
residual scale, one noise level per measured quantity, interval methods, identifiability.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._validation import (
    as_choice,
    as_flag,
    integer,
    not_all_equal,
    same_length,
)
from ..models import mm1bk, thread_pool
from ..models.single_server import TIME_RANGE
from ..models.thread_pool_server import _check_overhead, estimated_seconds
from . import _inputs
from ._core import Fit, Parameter, Problem, _estimate, fit_problem, information_criteria

__all__ = ["MM1BKFit", "ThreadPoolFit", "fit_mm1bk", "fit_thread_pool",
           "MM1BK_PARAMETERS", "THREAD_POOL_PARAMETERS", "MAX_FIT_STATES",
           "MAX_PROFILED_CAPACITIES", "MAX_EVALUATION_SECONDS"]

#: Parameters of :func:`fit_mm1bk` with their default search bounds (seconds).
MM1BK_PARAMETERS = (
    Parameter("service_time", 1e-9, 1e6, unit="s"),
    Parameter("think_time", 1e-9, 1e9, unit="s"),
)
#: Parameters of :func:`fit_thread_pool` with their default search bounds. Times in seconds
#: (fitted on a log scale, so a time fitted "to zero" stops at its lower bound); overheads are
#: the dimensionless factors of :func:`queuetune.thread_pool`, fitted on a linear scale from 0.
THREAD_POOL_PARAMETERS = (
    Parameter("cpu_time", 1e-5, 1e3, unit="s"),
    Parameter("wait_time", 1e-5, 1e3, unit="s"),
    Parameter("think_time", 1e-6, 1e6, unit="s"),
    Parameter("thread_overhead", 0.0, 1.0, log=False),
    Parameter("pool_overhead", 0.0, 0.1, log=False),
)
#: Largest ``sum (min(B, K) + 1)`` of one M/M/1/B/K evaluation in :func:`fit_mm1bk` (a fit
#: takes hundreds of evaluations, its intervals thousands; 10**5 states take about 1 ms).
MAX_FIT_STATES = 10**5
#: Largest number of capacities profiled by :func:`fit_mm1bk` (one fit each, 10-50 ms).
MAX_PROFILED_CAPACITIES = 1000
#: Largest estimated time of one model evaluation in :func:`fit_thread_pool` (by
#: :func:`queuetune.thread_pool`'s own cost estimate; a fit takes hundreds).
MAX_EVALUATION_SECONDS = 0.05

_TIMES = TIME_RANGE
_MM1BK_DOMAIN = {"service_time": (*_TIMES, False), "think_time": (*_TIMES, False)}
_THREAD_POOL_DOMAIN = {"cpu_time": (*_TIMES, True), "wait_time": (*_TIMES, True),
                       "think_time": (*_TIMES, False), "thread_overhead": (0.0, math.inf, False),
                       "pool_overhead": (0.0, math.inf, False)}


@dataclass(frozen=True)
class _Common:
    """The arguments every fitter shares, checked."""

    intervals: str
    scale: str
    confidence: float
    n_boot: int
    seed: int


def _common(intervals, scale, confidence, n_boot, seed) -> _Common:
    return _Common(*_inputs.interval_args(intervals, scale, confidence, n_boot, seed))


# --------------------------------------------------------------------------- M/M/1/B/K


class MM1BKFit(Fit):
    """Result of :func:`fit_mm1bk` (a :class:`queuetune.fit.Fit`) with the M/M/1/B/K
    parameters as attributes and :meth:`predict`."""

    clients: np.ndarray
    capacity_given: np.ndarray | None

    @property
    def service_time(self) -> float:
        return self.estimates["service_time"]

    @property
    def think_time(self) -> float:
        return self.estimates["think_time"]

    @property
    def capacity(self) -> int | np.ndarray:
        """The fitted capacity (an int), or the capacities given."""
        return self.estimates["capacity"] if "capacity" in self.estimates \
            else self.capacity_given

    def interval(self, name: str) -> tuple[float, float]:
        """The interval of one fitted parameter (``service_time``, ``think_time``,
        ``capacity``)."""
        if name not in self.intervals:
            raise ValueError(f"name must be one of the fitted parameters {sorted(self.intervals)},"
                             f" got {name!r}")
        return self.intervals[name]

    def predict(self, clients: Any, capacity: Any = None) -> pd.DataFrame:
        """The fitted model at ``clients`` (and ``capacity``, default the fitted one): a table
        of ``clients``, ``capacity``, ``response_time``, ``throughput``, ``utilization``,
        ``rejection_probability``."""
        ks = _inputs.counts(clients, "clients")
        cap = self.capacity if capacity is None else capacity
        if capacity is None and np.ndim(cap):
            if not np.all(cap == cap[0]):
                raise ValueError("capacity must be given to predict when the fit had several "
                                 "capacities")
            cap = int(cap[0])
        bs = _inputs.counts(cap, "capacity", ks.size)
        same_length("clients", {"clients": ks, "capacity": bs})
        res = mm1bk(ks, bs, self.service_time, self.think_time)
        return pd.DataFrame({"clients": ks, "capacity": bs,
                             "response_time": np.atleast_1d(res.response_time),
                             "throughput": np.atleast_1d(res.throughput),
                             "utilization": np.atleast_1d(res.utilization),
                             "rejection_probability": np.atleast_1d(res.rejection_probability)})


@dataclass(frozen=True)
class _MM1BKData:
    """The checked inputs of :func:`fit_mm1bk`."""

    K: np.ndarray
    B: np.ndarray | None  # None: the capacity is fitted
    candidates: np.ndarray | None  # capacities profiled
    observed: dict[str, np.ndarray]
    free: tuple[str, ...]
    fixed: dict[str, float]
    initial: dict[str, float]
    parameters: tuple[Parameter, ...]


def _mm1bk_data(clients, capacity, response_time, throughput, utilization, fixed, initial,
                bounds, capacity_range) -> _MM1BKData:
    K = _inputs.counts(clients, "clients")
    observed = _inputs.observations(response_time, throughput, utilization, "clients",
                                    {"clients": K})
    not_all_equal(K, "clients", "the load must vary to separate service and think time")
    names = tuple(p.name for p in MM1BK_PARAMETERS)
    free, fixed_values = _inputs.free_and_fixed(names, None, fixed, {}, _MM1BK_DOMAIN)
    parameters = _inputs.with_bounds(MM1BK_PARAMETERS, bounds, _MM1BK_DOMAIN)
    starts = _inputs.initial_values(initial, parameters)
    _inputs.enough_observations(sum(a.size for a in observed.values()), free,
                                extra=int(capacity is None))
    if capacity is None:
        candidates = _capacity_candidates(capacity_range, K)
        B, widest = None, int(candidates[-1])
    else:
        B = _inputs.counts(capacity, "capacity", K.size)
        same_length("clients", {"clients": K, "capacity": B})
        candidates, widest = None, int(B.max())
    states = int(np.sum(np.minimum(K, widest) + 1))
    if states > MAX_FIT_STATES:
        raise ValueError(
            f"clients and capacity must keep one model evaluation within MAX_FIT_STATES = "
            f"{MAX_FIT_STATES} states (sum of min(capacity, clients) + 1), got {states}: fit "
            "fewer or smaller configurations")
    return _MM1BKData(K, B, candidates, observed, free, fixed_values, starts, parameters)


def _capacity_candidates(capacity_range: Any, K: np.ndarray) -> np.ndarray:
    """The capacities profiled: ``capacity_range`` (default ``1 .. max(clients)``), cut at
    ``max(clients)`` (every larger capacity gives the same model)."""
    if capacity_range is None:
        low, high = 1, int(K.max())
    else:
        if isinstance(capacity_range, str | bytes) or np.ndim(capacity_range) != 1 \
                or len(capacity_range) != 2:
            raise ValueError(f"capacity_range must be (low, high) integers with 1 <= low < "
                             f"high, got {capacity_range!r}")
        low = integer(capacity_range[0], "capacity_range low", low=1)
        high = integer(capacity_range[1], "capacity_range high", low=low + 1)
        high = min(high, max(int(K.max()), low + 1))
    if high - low + 1 > MAX_PROFILED_CAPACITIES:
        raise ValueError(
            f"capacity_range must span at most MAX_PROFILED_CAPACITIES = "
            f"{MAX_PROFILED_CAPACITIES} capacities (one fit each), got {low} to {high}: give a "
            "narrower capacity_range")
    return np.arange(low, high + 1)


def _mm1bk_problem(data: _MM1BKData, B: np.ndarray, scale: str) -> Problem:
    K, observed = data.K, data.observed
    cells = {g: np.arange(K.size) for g in observed}

    def predict(values, ids):
        res = mm1bk(K[ids], B[ids], values["service_time"], values["think_time"])
        return {g: np.atleast_1d(getattr(res, g)) for g in observed}

    return Problem(data.parameters, data.free, data.fixed, observed, cells, predict, scale,
                   starts_solved=2)


def _mm1bk_starts(data: _MM1BKData) -> list[np.ndarray]:
    """Starting points: ``initial`` first; S from the shortest response time (or the largest
    throughput), Z on a decade grid above it (and from the throughputs when given)."""
    observed, fixed, free = data.observed, data.fixed, data.free
    if "response_time" in observed:
        s0 = float(np.min(observed["response_time"]))
    else:
        s0 = 0.5 / float(np.max(observed["throughput"]))
    s0 = fixed.get("service_time", s0)
    zs = [s0 * 10.0 ** e for e in range(0, 7)]
    if "throughput" in observed:
        r = observed.get("response_time", s0)
        z = np.median(data.K / observed["throughput"] - r)
        if z > 0:
            zs.append(float(z))
    starts = [np.log([{"service_time": s0, "think_time": fixed.get("think_time", z)}[n]
                      for n in free]) for z in zs]
    if data.initial:
        first = {"service_time": s0, "think_time": zs[0], **data.initial}
        starts.insert(0, np.log([first[n] for n in free]))
    # distinct starts only
    return list({tuple(np.round(x, 12)): x for x in starts}.values())


def _profile_capacity(data: _MM1BKData, scale: str, confidence: float):
    """S and Z fitted at every candidate capacity, from the largest (no drops) down, each fit
    starting where the last ended. Returns (profile table, B of the highest likelihood (the
    smallest on a tie), the capacities inside the likelihood-ratio bound)."""
    rows, previous = [], None
    starts = _mm1bk_starts(data)
    for b in data.candidates[::-1]:
        problem = _mm1bk_problem(data, np.full(data.K.size, b), scale)
        x, _, _ = _estimate(problem, starts if previous is None else [previous])
        previous = x
        values = problem.values(x)
        crit = information_criteria(problem.raw_residuals(values), len(data.free) + 1)
        rows.append({"capacity": int(b), "loglik": crit["loglik"],
                     "service_time": values["service_time"],
                     "think_time": values["think_time"]})
    profile = pd.DataFrame(rows[::-1])
    ll = profile["loglik"].to_numpy()
    best = ll.max()
    if math.isinf(best):  # an exact fit at some capacities
        tie = inside = ll == best
    else:
        tie = ll >= best - 1e-9 * max(1.0, abs(best))
        inside = 2 * (best - ll) <= stats.chi2.ppf(confidence, 1)
    return profile, int(profile.loc[tie, "capacity"].min()), profile[inside]


def _with_capacity(fit: MM1BKFit, data: _MM1BKData, profile, b_hat, inside,
                   confidence: float) -> None:
    """The fitted capacity, its interval, profile and warnings added to ``fit``."""
    low_b, high_b = int(inside["capacity"].min()), int(inside["capacity"].max())
    fit.estimates["capacity"] = b_hat
    fit.intervals["capacity"] = (low_b, high_b)
    upper_open = high_b == int(data.candidates[-1])
    fit.open_sides["capacity"] = (low_b == int(data.candidates[0]) and low_b > 1, upper_open)
    fit.details["capacity_profile"] = profile
    if high_b > low_b:
        more = " (and every larger one)" if upper_open and high_b >= data.K.max() else ""
        fit.warnings = fit.warnings + (
            f"capacity is not pinned down: every capacity from {low_b} to {high_b}{more} fits "
            f"within the {confidence:.0%} likelihood-ratio bound (a near-flat profile)",)
        fit.identifiability = (
            ("not identifiable from these data - capacity: " if fit.identifiability
             == "all parameters identified" else fit.identifiability + "; capacity: ")
            + f"{low_b} to {high_b}{more} fit equally well")


def fit_mm1bk(clients: Any, capacity: Any, response_time: Any = None, throughput: Any = None,
              *, utilization: Any = None, fixed: Mapping[str, float] | None = None,
              initial: Mapping[str, float] | None = None,
              bounds: Mapping[str, tuple[float, float]] | None = None,
              capacity_range: tuple[int, int] | None = None, scale: str = "log",
              intervals: str = "profile", confidence: float = 0.95, n_boot: int = 200,
              seed: int = 0) -> MM1BKFit:
    """Fit the service time S and think time Z of :func:`queuetune.mm1bk` to measurements.

    Parameters
    ----------
    clients : sequence of int
        K >= 1 of each measurement; at least two different values. One model evaluation may
        hold at most :data:`MAX_FIT_STATES` states (``sum min(B, K) + 1``).
    capacity : int, sequence of int, or None
        B >= 1, the connection-queue size (one value, or one per measurement). ``None`` fits it:
        B is an integer, so it is profiled - S and Z are fitted for every B in
        ``capacity_range`` (default ``1 .. max(clients)``; every B >= max(clients) gives the
        same model, one without drops) and the B of the highest Gaussian likelihood is kept
        (the smallest on a tie). Its interval is the set of B whose likelihood-ratio statistic
        ``2 (l_max - l(B))`` stays within the chi-square(1) quantile, reported as (min, max).
    response_time, throughput : sequence of float, optional
        Measured R (s) and X (1/s), one per element of ``clients``; at least one is needed.
    utilization : sequence of float, optional
        Measured utilization of the server as a fraction in (0, 1]. In M/M/1/B/K the one server
        is busy ``U = X S`` of the time (the Utilization Law), so U pins S given X.
    fixed : mapping, optional
        Parameters held at a value instead of fitted, e.g. ``{"think_time": 4.0}`` (a number
        in the range :func:`queuetune.mm1bk` accepts).
    initial : mapping, optional
        Starting values, each within its search bounds (default: S from the data, Z on a grid
        of starts, the best kept).
    bounds : mapping, optional
        ``name -> (low, high)`` search bounds (defaults in :data:`MM1BK_PARAMETERS`), within the
        range :func:`queuetune.mm1bk` accepts.
    capacity_range : (int, int), optional
        Smallest and largest capacity profiled when ``capacity`` is None (at most
        :data:`MAX_PROFILED_CAPACITIES` of them; capacities above ``max(clients)`` all give the
        same model and are not profiled twice).
    scale : {"log", "absolute"}
        Residuals as ``log(observed) - log(fitted)`` (relative errors, the default) or as
        differences.
    intervals : {"profile", "bootstrap", "none"}
        ``"profile"``: profile-likelihood intervals - the values of one parameter for which the
        best fit over the others raises the weighted residual sum of squares by at most
        ``F(1, nu; confidence)`` times its mean square (exact for a linear model, where it is
        the Student-t interval); ``nu = n - p`` with one measured quantity, fewer (Welch-
        Satterthwaite) when several quantities each have their own noise level.
        ``"bootstrap"``: residual bootstrap with the fixed ``seed``, ``n_boot`` refits (each
        estimating its own noise levels) to the fitted values plus residuals resampled within
        each quantity. With a fitted capacity, S and Z's intervals hold B at its estimate. The
        coverage these intervals reach in a simulation study is in the fitting chapter and
        ``results/coverage_study.md``.
    confidence : float
        Level of the intervals, in (0, 1) (0.95).
    n_boot, seed : int
        Bootstrap refits (20 to :data:`~queuetune.fit._inputs.MAX_BOOTSTRAP`) and the seed.

    Returns
    -------
    MM1BKFit
        ``service_time``, ``think_time``, ``capacity``, ``intervals`` (and :meth:`interval`),
        ``residuals``, :meth:`~MM1BKFit.predict`, goodness of fit (``goodness_of_fit()``,
        ``loglik``, ``aic``, ``aicc``, ``bic``), ``warnings`` and ``identifiability``. With a
        fitted capacity, ``details["capacity_profile"]`` holds the profile.

    Raises
    ------
    ValueError
        Naming the argument and what it must be: lengths that differ, times <= 0, NaN,
        utilization outside (0, 1], all-equal clients or measurements, fewer observations than
        fitted parameters plus one, a string or a value out of range in ``fixed``, ``initial``
        or ``bounds``, more work than the limits above allow.
    """
    common = _common(intervals, scale, confidence, n_boot, seed)
    data = _mm1bk_data(clients, capacity, response_time, throughput, utilization, fixed,
                       initial, bounds, capacity_range)
    starts = _mm1bk_starts(data)
    B = data.B
    if B is None:
        profile, b_hat, inside = _profile_capacity(data, common.scale, common.confidence)
        B = np.full(data.K.size, b_hat)
        row = profile.set_index("capacity").loc[b_hat]
        starts = [np.log([row[n] for n in data.free])] + starts
    K, observed = data.K, data.observed

    def train_and_predict(mask: np.ndarray) -> dict[str, np.ndarray]:
        sub = fit_mm1bk(K[mask], None if data.B is None else B[mask],
                        **{g: observed[g][mask] for g in observed}, fixed=fixed,
                        bounds=bounds, capacity_range=capacity_range if data.B is None
                        else None, scale=common.scale, intervals="none")
        pred = sub.predict(K[~mask], sub.capacity if data.B is None else B[~mask])
        return {g: pred[g].to_numpy() for g in observed}

    fit = fit_problem(_mm1bk_problem(data, B, common.scale), starts, model="M/M/1/B/K",
                      intervals=common.intervals, confidence=common.confidence,
                      n_boot=common.n_boot, seed=common.seed, extra_k=int(data.B is None),
                      units={"service_time": "s", "think_time": "s", "capacity": "requests"},
                      fit_class=MM1BKFit, train_and_predict=train_and_predict)
    fit.clients = K
    fit.capacity_given = data.B
    if data.B is None:
        _with_capacity(fit, data, profile, b_hat, inside, common.confidence)
    return fit


# --------------------------------------------------------------------------- thread pool


class ThreadPoolFit(Fit):
    """Result of :func:`fit_thread_pool` (a :class:`queuetune.fit.Fit`) with the parameters as
    attributes, the check against the exact model and :meth:`predict`."""

    method: str
    capacity_given: np.ndarray

    cpu_time = property(lambda self: self.estimates["cpu_time"])
    wait_time = property(lambda self: self.estimates["wait_time"])
    think_time = property(lambda self: self.estimates["think_time"])
    thread_overhead = property(lambda self: self.estimates["thread_overhead"])
    pool_overhead = property(lambda self: self.estimates["pool_overhead"])

    @property
    def exact_check(self) -> pd.DataFrame | None:
        """Per measured quantity, the largest relative difference between the values fitted
        with ``method="fes"`` and the exact model at the same parameters (None when the fit
        used the exact model or was not verified)."""
        return self.details.get("exact_check")

    def predict(self, clients: Any, threads: Any, capacity: Any = None,
                method: str | None = None) -> pd.DataFrame:
        """The fitted model at each (clients, threads) pair (and ``capacity``, default the
        first one given to the fit), solved with ``method`` (default: the fit's). Columns
        ``clients``, ``threads``, ``capacity``, ``response_time``, ``throughput``,
        ``utilization``, ``rejection_probability``, ``busy_threads``."""
        ks = _inputs.counts(clients, "clients")
        ts = _inputs.counts(threads, "threads", ks.size)
        ks = _inputs.counts(ks, "clients", ts.size) if ks.size == 1 else ks
        same_length("clients", {"clients": ks, "threads": ts})
        cap = int(self.capacity_given[0]) if capacity is None else capacity
        bs = _inputs.counts(cap, "capacity", ks.size)
        same_length("clients", {"clients": ks, "capacity": bs})
        e = self.estimates
        res = thread_pool(ks, bs, ts, e["cpu_time"], e["wait_time"], e["think_time"],
                          thread_overhead=e["thread_overhead"],
                          pool_overhead=e["pool_overhead"], method=method or self.method)
        return pd.DataFrame({
            "clients": ks, "threads": ts, "capacity": bs,
            **{m: np.atleast_1d(getattr(res, m)) for m in (
                "response_time", "throughput", "utilization", "rejection_probability",
                "busy_threads")}})


@dataclass(frozen=True)
class _ThreadPoolData:
    """The checked inputs of :func:`fit_thread_pool`."""

    K: np.ndarray
    T: np.ndarray
    B: np.ndarray
    observed: dict[str, np.ndarray]
    free: tuple[str, ...]
    fixed: dict[str, float]
    initial: dict[str, float]
    parameters: tuple[Parameter, ...]
    method: str


def _thread_pool_data(clients, threads, capacity, response_time, throughput, utilization,
                      free, fixed, initial, bounds, method) -> _ThreadPoolData:
    method = as_choice(method, "method", ("fes", "exact"))
    K = _inputs.counts(clients, "clients")
    T = _inputs.counts(threads, "threads")
    B = _inputs.counts(capacity, "capacity", K.size)
    observed = _inputs.observations(response_time, throughput, utilization, "clients",
                                    {"clients": K, "threads": T, "capacity": B})
    if np.all(K == K[0]) and np.all(T == T[0]):
        raise ValueError("clients and threads must not both be all equal: the grid needs at "
                         "least two configurations")
    names = tuple(p.name for p in THREAD_POOL_PARAMETERS)
    free, fixed_values = _inputs.free_and_fixed(
        names, free, fixed, {"thread_overhead": 0.0, "pool_overhead": 0.0}, _THREAD_POOL_DOMAIN)
    if fixed_values.get("cpu_time") == 0 and fixed_values.get("wait_time") == 0:
        raise ValueError("fixed cpu_time and wait_time must not both be 0")
    parameters = _inputs.with_bounds(THREAD_POOL_PARAMETERS, bounds, _THREAD_POOL_DOMAIN)
    starts = _inputs.initial_values(initial, parameters)
    _inputs.enough_observations(sum(a.size for a in observed.values()), free)
    data = _ThreadPoolData(K, T, B, observed, free, fixed_values, starts, parameters, method)
    _check_thread_pool_work(data)
    return data


def _extreme(data: _ThreadPoolData, name: str) -> float:
    """The largest value a parameter takes in the fit: fixed, or its upper search bound."""
    if name in data.fixed:
        return data.fixed[name]
    return next(p.high for p in data.parameters if p.name == name)


def _check_thread_pool_work(data: _ThreadPoolData) -> None:
    """The model at its most expensive corner: valid (the CPU time with overhead in range) and
    one evaluation within MAX_EVALUATION_SECONDS by the model's own estimate."""
    worst = {name: _extreme(data, name) for name in ("cpu_time", "wait_time",
                                                     "thread_overhead", "pool_overhead")}
    try:
        _check_overhead(np.array([worst["cpu_time"]]), data.T.astype(float),
                                            np.array([worst["thread_overhead"]]),
                                            np.array([worst["pool_overhead"]]))
    except ValueError as exc:
        raise ValueError(f"bounds (or fixed values) of cpu_time, thread_overhead and "
                         f"pool_overhead must keep the model valid: {exc}") from None
    two = np.full(data.K.size, worst["cpu_time"] > 0 and worst["wait_time"] > 0)
    theta = np.full(data.K.size, worst["thread_overhead"])
    seconds = estimated_seconds(data.K, data.B, data.T, two, theta, data.method)
    if seconds > MAX_EVALUATION_SECONDS:
        raise ValueError(
            f"clients, threads and capacity must keep one model evaluation within "
            f"MAX_EVALUATION_SECONDS = {MAX_EVALUATION_SECONDS:g} s (a fit takes hundreds), "
            f"got about {seconds:.2g} s with method={data.method!r}"
            + (": use method='fes'" if data.method == "exact" else ": fit fewer or smaller "
               "configurations"))


def _thread_pool_problem(data: _ThreadPoolData, scale: str) -> Problem:
    observed = data.observed

    def predict(values, ids):
        res = _solve_thread_pool(data, values, ids, data.method)
        return {g: np.atleast_1d(getattr(res, g)) for g in observed}

    return Problem(data.parameters, data.free, data.fixed, observed,
                   {g: np.arange(data.K.size) for g in observed}, predict, scale,
                   tolerance=1e-8, max_evaluations=400, starts_solved=1)


def _solve_thread_pool(data: _ThreadPoolData, values, ids, method: str):
    return thread_pool(data.K[ids], data.B[ids], data.T[ids], values["cpu_time"],
                       values["wait_time"], values["think_time"],
                       thread_overhead=values["thread_overhead"],
                       pool_overhead=values["pool_overhead"], method=method)


def _exact_check(fit: ThreadPoolFit, data: _ThreadPoolData) -> None:
    """The fitted values of the flow-equivalent server against the exact chain at the
    estimate (in ``details["exact_check"]``, and a warning above 1 %)."""
    try:
        exact = _solve_thread_pool(data, fit.estimates, np.arange(data.K.size), "exact")
    except ValueError as exc:
        fit.warnings = fit.warnings + (
            f"the fit could not be checked with the exact model: {exc}",)
        return
    rows = []
    for g in data.observed:
        diff = np.abs(fit.fitted[g] / np.atleast_1d(getattr(exact, g)) - 1)
        rows.append({"quantity": g, "max_relative_difference": float(diff.max()),
                     "mean_relative_difference": float(diff.mean())})
    check = pd.DataFrame(rows)
    fit.details["exact_check"] = check
    worst = check["max_relative_difference"].max()
    if worst > 0.01:
        fit.warnings = fit.warnings + (
            f"the flow-equivalent solution differs from the exact model by up to {worst:.1%} "
            "at the estimate: refit with method='exact'",)


def fit_thread_pool(clients: Any, threads: Any, response_time: Any = None,
                    throughput: Any = None, *, utilization: Any = None, capacity: Any,
                    free: tuple[str, ...] | None = None,
                    fixed: Mapping[str, float] | None = None,
                    initial: Mapping[str, float] | None = None,
                    bounds: Mapping[str, tuple[float, float]] | None = None,
                    method: str = "fes", verify: bool = True, scale: str = "log",
                    intervals: str = "profile", confidence: float = 0.95, n_boot: int = 100,
                    seed: int = 0) -> ThreadPoolFit:
    """Fit :func:`queuetune.thread_pool` to a whole grid of (clients, threads) measurements.

    Parameters
    ----------
    clients, threads : sequence of int
        K >= 1 and T >= 1 of each measurement (a grid flattened to two equal-length columns).
    response_time, throughput : sequence of float, optional
        Measured R (s) and X (1/s); at least one is needed.
    utilization : sequence of float, optional
        Measured CPU utilization as a fraction in (0, 1]. The model's CPU utilization equals
        its throughput times the mean CPU time per request, overhead included (the Utilization
        Law U = X D), so measured U pins the CPU demand.
    capacity : int or sequence of int
        B, the most admitted requests (one value or one per measurement); not fitted. One
        model evaluation may take at most :data:`MAX_EVALUATION_SECONDS` by the model's own
        cost estimate.
    free : tuple of str, optional
        The parameters to fit, from ``cpu_time``, ``wait_time``, ``think_time``,
        ``thread_overhead``, ``pool_overhead`` (default: every one not in ``fixed``). Times are
        fitted on a log scale within :data:`THREAD_POOL_PARAMETERS`' bounds; an overhead not
        fitted and not fixed is 0.
    fixed : mapping, optional
        Values of parameters not fitted (``wait_time`` may be fixed at 0, for example), in the
        range :func:`queuetune.thread_pool` accepts.
    initial, bounds : mapping, optional
        Starting values (within the search bounds) and ``name -> (low, high)`` search bounds
        (within the range the model accepts).
    method : {"fes", "exact"}
        The solver used inside the optimizer: the flow-equivalent server (fast, approximate)
        or the exact chain. With ``"fes"`` and ``verify=True`` the final point is solved
        exactly too and the largest relative difference per quantity is reported in
        ``exact_check`` (and in ``warnings`` above 1 %).
    scale, intervals, confidence, n_boot, seed
        As in :func:`fit_mm1bk`: log residuals by default; profile-likelihood intervals by
        default, or a residual bootstrap with the fixed ``seed`` (``n_boot`` refits).

    Returns
    -------
    ThreadPoolFit
        The estimates as attributes, ``intervals``, ``residuals``, :meth:`ThreadPoolFit.predict`,
        goodness of fit, ``warnings``, ``identifiability`` and ``exact_check``.
    """
    common = _common(intervals, scale, confidence, n_boot, seed)
    verify = as_flag(verify, "verify")
    data = _thread_pool_data(clients, threads, capacity, response_time, throughput,
                             utilization, free, fixed, initial, bounds, method)
    K, T, B, observed = data.K, data.T, data.B, data.observed

    def train_and_predict(mask: np.ndarray) -> dict[str, np.ndarray]:
        sub = fit_thread_pool(K[mask], T[mask], **{g: observed[g][mask] for g in observed},
                              capacity=B[mask], free=data.free, fixed=fixed,
                              initial=_inside(fit.estimates, data), bounds=bounds,
                              method=data.method, verify=False, scale=common.scale,
                              intervals="none")
        pred = sub.predict(K[~mask], T[~mask], B[~mask])
        return {g: pred[g].to_numpy() for g in observed}

    fit = fit_problem(_thread_pool_problem(data, common.scale), _thread_pool_starts(data),
                      model="thread pool", intervals=common.intervals,
                      confidence=common.confidence, n_boot=common.n_boot, seed=common.seed,
                      units={"cpu_time": "s", "wait_time": "s", "think_time": "s"},
                      fit_class=ThreadPoolFit, train_and_predict=train_and_predict)
    fit.method = data.method
    fit.capacity_given = B
    if data.method == "fes" and verify:
        _exact_check(fit, data)
    return fit


def _inside(estimates: Mapping[str, float], data: _ThreadPoolData) -> dict[str, float]:
    """The free parameters' estimates as starting values (within their bounds)."""
    by = {p.name: p for p in data.parameters}
    return {n: min(max(estimates[n], by[n].low), by[n].high) for n in data.free}


def _thread_pool_starts(data: _ThreadPoolData) -> list[np.ndarray]:
    """Starts from an M/M/1/B/K fit of the same data: its think time; a CPU time from the
    Utilization Law when utilization is given (else a share of S), the rest of the shortest
    response time as wait time. ``initial`` replaces them."""
    observed, fixed = data.observed, data.fixed
    by = {p.name: p for p in data.parameters}
    if data.initial:
        guess = {"thread_overhead": 0.0, "pool_overhead": 0.0, "cpu_time": 0.0,
                 "wait_time": 0.0, "think_time": 0.0, **fixed, **data.initial}
        missing = [n for n in data.free if n not in data.initial]
        if not missing:
            return [np.array([by[n].inner(guess[n]) for n in data.free])]
    s, z = _mm1bk_start(data)
    z = fixed.get("think_time", z)
    r_min = float(np.min(observed["response_time"])) if "response_time" in observed else s
    shares = []
    if "utilization" in observed:
        x = observed.get("throughput", data.K / (z + observed.get("response_time", s)))
        shares.append(float(np.median(observed["utilization"] / x)) / max(r_min, 1e-12))
    starts = []
    for share in shares + [0.5, 0.95]:
        share = min(max(share, 0.02), 0.98)
        g = {"thread_overhead": 0.0, "pool_overhead": 0.0, "cpu_time": share * r_min,
             "wait_time": (1 - share) * r_min, "think_time": z, **fixed, **data.initial}
        starts.append(np.array([by[n].inner(min(max(g[n], by[n].low), by[n].high))
                                for n in data.free]))
    return starts


def _mm1bk_start(data: _ThreadPoolData) -> tuple[float, float]:
    """S and Z of an M/M/1/B/K fit of the same data (or guesses from the response times)."""
    series = {g: data.observed[g] for g in ("response_time", "throughput") if g in data.observed}
    try:
        base = fit_mm1bk(data.K, data.B, **series, intervals="none")
        return base.service_time, base.think_time
    except ValueError:
        r = float(np.min(data.observed.get("response_time", np.array([1.0]))))
        return r, 100 * r
