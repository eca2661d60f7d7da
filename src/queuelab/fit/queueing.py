"""Fitting the queueing models of :mod:`queuelab.models` to measurements.

* :func:`fit_mm1bk` - service time S and think time Z of the M/M/1/B/K model (and the
  capacity B, profiled over integers, when it is not given);
* :func:`fit_thread_pool` - CPU time, wait time, think time and overheads of the thread-pool
  model, over a whole clients x threads grid at once.

Both take response times and/or throughputs measured at several client counts (and, optionally,
CPU utilizations: by the Utilization Law U = X D the model's utilization is its throughput times
its CPU demand, so a measured U pins the demand). See :mod:`queuelab.fit` for the statistics:
residual scale, one noise level per measured quantity, interval methods, identifiability.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..models import mm1bk, thread_pool
from . import _checks
from ._core import INTERVALS, SCALES, Fit, Parameter, Problem, fit_problem

__all__ = ["MM1BKFit", "ThreadPoolFit", "fit_mm1bk", "fit_thread_pool",
           "MM1BK_PARAMETERS", "THREAD_POOL_PARAMETERS"]

#: Parameters of :func:`fit_mm1bk` with their default search bounds (seconds).
MM1BK_PARAMETERS = (
    Parameter("service_time", 1e-9, 1e6, unit="s"),
    Parameter("think_time", 1e-9, 1e9, unit="s"),
)
#: Parameters of :func:`fit_thread_pool` with their default search bounds. Times in seconds
#: (fitted on a log scale, so a time fitted "to zero" stops at its lower bound); overheads are
#: the dimensionless factors of :func:`queuelab.thread_pool`, fitted on a linear scale from 0.
THREAD_POOL_PARAMETERS = (
    Parameter("cpu_time", 1e-5, 1e3, unit="s"),
    Parameter("wait_time", 1e-5, 1e3, unit="s"),
    Parameter("think_time", 1e-6, 1e6, unit="s"),
    Parameter("thread_overhead", 0.0, 1.0, log=False),
    Parameter("pool_overhead", 0.0, 0.1, log=False),
)
_GROUPS = ("response_time", "throughput", "utilization")


def _with_bounds(parameters, bounds: Mapping[str, tuple[float, float]] | None):
    names = [p.name for p in parameters]
    bounds = dict(bounds or {})
    unknown = sorted(set(bounds) - set(names))
    if unknown:
        raise ValueError(f"bounds names unknown parameter(s) {unknown}; parameters: {names}")
    out = []
    for p in parameters:
        if p.name in bounds:
            low, high = (float(v) for v in bounds[p.name])
            out.append(Parameter(p.name, low, high, p.log, p.unit))
        else:
            out.append(p)
    return tuple(out)


def _observations(response_time, throughput, utilization, size_name: str,
                  sizes: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    observed = {}
    if response_time is not None:
        observed["response_time"] = _checks.series(response_time, "response_time")
    if throughput is not None:
        observed["throughput"] = _checks.series(throughput, "throughput")
    if utilization is not None:
        observed["utilization"] = _checks.series(
            utilization, "utilization (a fraction, not percent)", high=1.0)
    if "response_time" not in observed and "throughput" not in observed:
        raise ValueError("give response_time or throughput (or both): at least one measured "
                         "performance series is needed")
    _checks.same_length(size_name, {**sizes, **observed})
    for name, arr in observed.items():
        _checks.not_all_equal(arr, name, "a constant series cannot be told from noise")
    return observed


def _free_and_fixed(names: tuple[str, ...], free, fixed, defaults: Mapping[str, float]):
    fixed = {k: float(v) for k, v in dict(fixed or {}).items()}
    unknown = sorted(set(fixed) - set(names))
    if unknown:
        raise ValueError(f"fixed names unknown parameter(s) {unknown}; parameters: {list(names)}")
    if free is None:
        free = tuple(n for n in names if n not in fixed)
    free = tuple(free)
    bad = [n for n in free if n not in names]
    if bad:
        raise ValueError(f"free names unknown parameter(s) {bad}; parameters: {list(names)}")
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


def _interval_args(intervals, scale, confidence, n_boot, seed):
    _checks.choice(intervals, "intervals", INTERVALS)
    _checks.choice(scale, "scale", SCALES)
    if not isinstance(confidence, float | int) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 20:
        raise ValueError(f"n_boot must be an integer >= 20, got {n_boot!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")


# --------------------------------------------------------------------------- M/M/1/B/K


class MM1BKFit(Fit):
    """Result of :func:`fit_mm1bk` (a :class:`queuelab.fit.Fit`) with the M/M/1/B/K
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
            raise ValueError(f"{name!r} was not fitted; fitted: {sorted(self.intervals)}")
        return self.intervals[name]

    def predict(self, clients: Any, capacity: Any = None) -> pd.DataFrame:
        """The fitted model at ``clients`` (and ``capacity``, default the fitted one): a table
        of ``clients``, ``capacity``, ``response_time``, ``throughput``, ``utilization``,
        ``rejection_probability``."""
        ks = _checks.series(clients, "clients", low=1, low_open=False, integer=True)
        cap = self.capacity if capacity is None else capacity
        if capacity is None and np.ndim(cap):
            if not np.all(cap == cap[0]):
                raise ValueError("capacity must be given to predict when the fit had several "
                                 "capacities")
            cap = int(cap[0])
        bs = np.broadcast_to(np.asarray(cap), ks.shape)
        res = mm1bk(ks.astype(int), bs.astype(int), self.service_time, self.think_time)
        return pd.DataFrame({"clients": ks.astype(int), "capacity": bs.astype(int),
                             "response_time": np.atleast_1d(res.response_time),
                             "throughput": np.atleast_1d(res.throughput),
                             "utilization": np.atleast_1d(res.utilization),
                             "rejection_probability": np.atleast_1d(res.rejection_probability)})


def _mm1bk_problem(K, B, observed, fixed, free, parameters, scale) -> Problem:
    cells = {g: np.arange(K.size) for g in observed}

    def predict(values, ids):
        res = mm1bk(K[ids], B[ids], values["service_time"], values["think_time"])
        return {g: np.atleast_1d(getattr(res, g)) for g in observed}

    return Problem(parameters, free, fixed, observed, cells, predict, scale, starts_solved=2)


def _mm1bk_starts(K, observed, fixed, free) -> list[np.ndarray]:
    """Starting points: S from the shortest response time (or the largest throughput),
    Z on a decade grid above it (and from the throughputs when given)."""
    if "response_time" in observed:
        s0 = float(np.min(observed["response_time"]))
    else:
        s0 = 0.5 / float(np.max(observed["throughput"]))
    s0 = fixed.get("service_time", s0)
    zs = [s0 * 10.0 ** e for e in range(0, 7)]
    if "throughput" in observed:
        r = observed.get("response_time", s0)
        z = np.median(K / observed["throughput"] - r)
        if z > 0:
            zs.append(float(z))
    starts = []
    for z in zs:
        values = {"service_time": s0, "think_time": fixed.get("think_time", z)}
        starts.append(np.log([values[n] for n in free]))
    # distinct starts only
    return list({tuple(np.round(s, 12)): s for s in starts}.values())


def fit_mm1bk(clients: Any, capacity: Any, response_time: Any = None, throughput: Any = None,
              *, utilization: Any = None, fixed: Mapping[str, float] | None = None,
              initial: Mapping[str, float] | None = None,
              bounds: Mapping[str, tuple[float, float]] | None = None,
              capacity_range: tuple[int, int] | None = None, scale: str = "log",
              intervals: str = "profile", confidence: float = 0.95, n_boot: int = 200,
              seed: int = 0) -> MM1BKFit:
    """Fit the service time S and think time Z of :func:`queuelab.mm1bk` to measurements.

    Parameters
    ----------
    clients : sequence of int
        K >= 1 of each measurement; at least two different values.
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
        Parameters held at a value instead of fitted, e.g. ``{"think_time": 4.0}``.
    initial : mapping, optional
        Starting values (default: S from the data, Z on a grid of starts, the best kept).
    bounds : mapping, optional
        ``name -> (low, high)`` search bounds (defaults in :data:`MM1BK_PARAMETERS`).
    capacity_range : (int, int), optional
        Smallest and largest capacity profiled when ``capacity`` is None.
    scale : {"log", "absolute"}
        Residuals as ``log(observed) - log(fitted)`` (relative errors, the default) or as
        differences.
    intervals : {"profile", "bootstrap", "none"}
        ``"profile"``: profile-likelihood intervals - the values of one parameter for which the
        best fit over the others raises the weighted residual sum of squares by at most
        ``F(1, n - p; confidence)`` times its mean square (exact for a linear model, where it is
        the Student-t interval). ``"bootstrap"``: residual bootstrap with the fixed ``seed``,
        ``n_boot`` refits to the fitted values plus residuals resampled within each quantity,
        percentile intervals. With a fitted capacity, S and Z's intervals hold B at its
        estimate.
    confidence : float
        Level of the intervals (0.95).

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
        Naming the argument: lengths that differ, times <= 0, NaN, utilization outside (0, 1],
        all-equal clients or measurements, fewer observations than fitted parameters plus one.
    """
    _interval_args(intervals, scale, confidence, n_boot, seed)
    K = _checks.series(clients, "clients", low=1, low_open=False, integer=True).astype(int)
    observed = _observations(response_time, throughput, utilization, "clients",
                             {"clients": K})
    _checks.not_all_equal(K, "clients", "the load must vary to separate service and think time")
    names = tuple(p.name for p in MM1BK_PARAMETERS)
    free, fixed_values = _free_and_fixed(names, None, fixed, {})
    for name, value in fixed_values.items():
        if not value > 0:
            raise ValueError(f"fixed {name} must be a number > 0, got {value!r}")
    parameters = _with_bounds(MM1BK_PARAMETERS, bounds)
    n = sum(a.size for a in observed.values())
    fit_capacity = capacity is None
    _checks.enough_observations(n, free, extra=int(fit_capacity))
    if fit_capacity:
        low, high = (1, int(K.max())) if capacity_range is None else capacity_range
        if (isinstance(low, bool) or isinstance(high, bool) or int(low) != low
                or int(high) != high or not 1 <= low < high):
            raise ValueError(f"capacity_range must be (low, high) integers with 1 <= low < high,"
                             f" got {capacity_range!r}")
        candidates = np.arange(int(low), int(high) + 1)
    else:
        B = _checks.series(np.broadcast_to(np.asarray(capacity), K.shape)
                           if np.ndim(capacity) == 0 else capacity, "capacity", low=1,
                           low_open=False, integer=True).astype(int)
        _checks.same_length("clients", {"clients": K, "capacity": B})
    starts = _mm1bk_starts(K, observed, fixed_values, free)
    if initial:
        unknown = sorted(set(initial) - set(names))
        if unknown:
            raise ValueError(f"initial names unknown parameter(s) {unknown}")
        first = {"service_time": math.exp(starts[0][0]) if "service_time" in free else 1.0,
                 "think_time": math.exp(starts[0][-1])}
        first.update({k: float(v) for k, v in initial.items()})
        starts = [np.log([first[n] for n in free])] + starts

    common = dict(model="M/M/1/B/K", confidence=confidence, n_boot=n_boot, seed=seed,
                  units={"service_time": "s", "think_time": "s", "capacity": "requests"},
                  fit_class=MM1BKFit)
    profile = None
    if fit_capacity:
        from ._core import _estimate, information_criteria
        rows, previous = [], None
        # from the largest capacity (no drops) down, each fit starting where the last ended
        for b in candidates[::-1]:
            prob = _mm1bk_problem(K, np.full(K.size, b), observed, fixed_values, free,
                                  parameters, scale)
            x, _, _ = _estimate(prob, starts if previous is None else [previous])
            previous = x
            values = prob.values(x)
            crit = information_criteria(prob.raw_residuals(values), len(free) + 1)
            rows.append({"capacity": int(b), "loglik": crit["loglik"],
                         "service_time": values["service_time"],
                         "think_time": values["think_time"]})
        profile = pd.DataFrame(rows[::-1])
        ll = profile["loglik"].to_numpy()
        best = ll.max()
        if math.isinf(best):  # an exact fit at some capacities
            tie = inside_mask = ll == best
        else:
            tie = ll >= best - 1e-9 * max(1.0, abs(best))
            inside_mask = 2 * (best - ll) <= stats.chi2.ppf(confidence, 1)
        b_hat = int(profile.loc[tie, "capacity"].min())
        inside = profile[inside_mask]
        B = np.full(K.size, b_hat)
        row = profile.set_index("capacity").loc[b_hat]
        starts = [np.log([row[n] for n in free])] + starts
    problem = _mm1bk_problem(K, B, observed, fixed_values, free, parameters, scale)

    def train_and_predict(mask: np.ndarray) -> dict[str, np.ndarray]:
        sub = fit_mm1bk(K[mask], None if fit_capacity else B[mask],
                        **{g: observed[g][mask] for g in observed}, fixed=fixed,
                        bounds=bounds, capacity_range=capacity_range if fit_capacity else None,
                        scale=scale, intervals="none")
        cap = sub.capacity if fit_capacity else B[~mask]
        pred = sub.predict(K[~mask], cap)
        return {g: pred[g].to_numpy() for g in observed}

    fit = fit_problem(problem, starts, intervals=intervals, extra_k=int(fit_capacity),
                      train_and_predict=train_and_predict, **common)
    fit.clients = K
    fit.capacity_given = None if fit_capacity else B
    if fit_capacity:
        low_b, high_b = int(inside["capacity"].min()), int(inside["capacity"].max())
        fit.estimates["capacity"] = b_hat
        fit.intervals["capacity"] = (low_b, high_b)
        upper_open = high_b == int(candidates[-1])
        fit.open_sides["capacity"] = (low_b == int(candidates[0]) and low_b > 1, upper_open)
        fit.details["capacity_profile"] = profile
        notes = list(fit.warnings)
        if high_b > low_b:
            more = " (and every larger one)" if upper_open and high_b >= K.max() else ""
            notes.append(f"capacity is not pinned down: every capacity from {low_b} to "
                         f"{high_b}{more} fits within the {confidence:.0%} likelihood-ratio "
                         "bound (a near-flat profile)")
            fit.identifiability = (
                ("not identifiable from these data - capacity: " if fit.identifiability
                 == "all parameters identified" else fit.identifiability + "; capacity: ")
                + f"{low_b} to {high_b}{more} fit equally well")
        fit.warnings = tuple(notes)
    return fit


# --------------------------------------------------------------------------- thread pool


class ThreadPoolFit(Fit):
    """Result of :func:`fit_thread_pool` (a :class:`queuelab.fit.Fit`) with the parameters as
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
        ks = _checks.series(clients, "clients", low=1, low_open=False, integer=True)
        ts = _checks.series(threads, "threads", low=1, low_open=False, integer=True)
        ks, ts = np.broadcast_arrays(ks, ts)
        cap = int(self.capacity_given[0]) if capacity is None else capacity
        bs = np.broadcast_to(np.asarray(cap), ks.shape)
        e = self.estimates
        res = thread_pool(ks.astype(int), bs.astype(int), ts.astype(int), e["cpu_time"],
                          e["wait_time"], e["think_time"], thread_overhead=e["thread_overhead"],
                          pool_overhead=e["pool_overhead"], method=method or self.method)
        return pd.DataFrame({
            "clients": ks.astype(int), "threads": ts.astype(int), "capacity": bs.astype(int),
            **{m: np.atleast_1d(getattr(res, m)) for m in (
                "response_time", "throughput", "utilization", "rejection_probability",
                "busy_threads")}})


def fit_thread_pool(clients: Any, threads: Any, response_time: Any = None,
                    throughput: Any = None, *, utilization: Any = None, capacity: Any,
                    free: tuple[str, ...] | None = None,
                    fixed: Mapping[str, float] | None = None,
                    initial: Mapping[str, float] | None = None,
                    bounds: Mapping[str, tuple[float, float]] | None = None,
                    method: str = "fes", verify: bool = True, scale: str = "log",
                    intervals: str = "profile", confidence: float = 0.95, n_boot: int = 100,
                    seed: int = 0) -> ThreadPoolFit:
    """Fit :func:`queuelab.thread_pool` to a whole grid of (clients, threads) measurements.

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
        B, the most admitted requests (one value or one per measurement); not fitted.
    free : tuple of str, optional
        The parameters to fit, from ``cpu_time``, ``wait_time``, ``think_time``,
        ``thread_overhead``, ``pool_overhead`` (default: every one not in ``fixed``). Times are
        fitted on a log scale within :data:`THREAD_POOL_PARAMETERS`' bounds; an overhead not
        fitted and not fixed is 0.
    fixed : mapping, optional
        Values of parameters not fitted (``wait_time`` may be fixed at 0, for example).
    initial, bounds : mapping, optional
        Starting values and ``name -> (low, high)`` search bounds.
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
    _interval_args(intervals, scale, confidence, n_boot, seed)
    method = _checks.choice(method, "method", ("fes", "exact"))
    K = _checks.series(clients, "clients", low=1, low_open=False, integer=True).astype(int)
    T = _checks.series(threads, "threads", low=1, low_open=False, integer=True).astype(int)
    B = _checks.series(np.broadcast_to(np.asarray(capacity), K.shape)
                       if np.ndim(capacity) == 0 else capacity, "capacity", low=1,
                       low_open=False, integer=True).astype(int)
    observed = _observations(response_time, throughput, utilization, "clients",
                             {"clients": K, "threads": T, "capacity": B})
    if np.all(K == K[0]) and np.all(T == T[0]):
        raise ValueError("clients and threads must not both be all equal: the grid needs at "
                         "least two configurations")
    names = tuple(p.name for p in THREAD_POOL_PARAMETERS)
    free, fixed_values = _free_and_fixed(names, free, fixed,
                                         {"thread_overhead": 0.0, "pool_overhead": 0.0})
    for name, value in fixed_values.items():
        if not (value >= 0 and math.isfinite(value)):
            raise ValueError(f"fixed {name} must be a finite number >= 0, got {value!r}")
    if "think_time" in fixed_values and not fixed_values["think_time"] > 0:
        raise ValueError("fixed think_time must be > 0")
    parameters = _with_bounds(THREAD_POOL_PARAMETERS, bounds)
    n = sum(a.size for a in observed.values())
    _checks.enough_observations(n, free)
    cells = {g: np.arange(K.size) for g in observed}

    def solve(values, ids, how):
        return thread_pool(K[ids], B[ids], T[ids], values["cpu_time"], values["wait_time"],
                           values["think_time"], thread_overhead=values["thread_overhead"],
                           pool_overhead=values["pool_overhead"], method=how)

    def predict(values, ids):
        res = solve(values, ids, method)
        return {g: np.atleast_1d(getattr(res, g)) for g in observed}

    problem = Problem(parameters, free, fixed_values, observed, cells, predict, scale,
                      tolerance=1e-8, max_evaluations=400, starts_solved=1)
    starts = _thread_pool_starts(K, T, B, observed, free, fixed_values, parameters, initial)

    def train_and_predict(mask: np.ndarray) -> dict[str, np.ndarray]:
        sub = fit_thread_pool(K[mask], T[mask], **{g: observed[g][mask] for g in observed},
                              capacity=B[mask], free=free, fixed=fixed,
                              initial=fit.estimates, bounds=bounds, method=method,
                              verify=False, scale=scale, intervals="none")
        pred = sub.predict(K[~mask], T[~mask], B[~mask])
        return {g: pred[g].to_numpy() for g in observed}

    fit = fit_problem(problem, starts, model="thread pool", intervals=intervals,
                      confidence=confidence, n_boot=n_boot, seed=seed,
                      units={"cpu_time": "s", "wait_time": "s", "think_time": "s"},
                      fit_class=ThreadPoolFit, train_and_predict=train_and_predict)
    fit.method = method
    fit.capacity_given = B
    if method == "fes" and verify:
        notes = list(fit.warnings)
        try:
            exact = solve(fit.estimates, np.arange(K.size), "exact")
        except ValueError as exc:
            notes.append(f"the fit could not be checked with the exact model: {exc}")
        else:
            rows = []
            for g in observed:
                e = np.atleast_1d(getattr(exact, g))
                diff = np.abs(fit.fitted[g] / e - 1)
                rows.append({"quantity": g, "max_relative_difference": float(diff.max()),
                             "mean_relative_difference": float(diff.mean())})
            check = pd.DataFrame(rows)
            fit.details["exact_check"] = check
            worst = check["max_relative_difference"].max()
            if worst > 0.01:
                notes.append(f"the flow-equivalent solution differs from the exact model by up "
                             f"to {worst:.1%} at the estimate: refit with method='exact'")
        fit.warnings = tuple(notes)
    return fit


def _thread_pool_starts(K, T, B, observed, free, fixed, parameters, initial):
    """Starts from an M/M/1/B/K fit of the same data: its think time; a CPU time from the
    Utilization Law when utilization is given (else a share of S), the rest of the shortest
    response time as wait time."""
    names = [p.name for p in parameters]
    guess = {"thread_overhead": 0.0, "pool_overhead": 0.0}
    data = {g: observed[g] for g in ("response_time", "throughput") if g in observed}
    try:
        base = fit_mm1bk(K, np.maximum(B, 1), **data, intervals="none")
        s, z = base.service_time, base.think_time
    except ValueError:
        r = observed.get("response_time", np.array([1.0]))
        s, z = float(np.min(r)), 100 * float(np.min(r))
    z = fixed.get("think_time", z)
    r_min = float(np.min(observed["response_time"])) if "response_time" in observed else s
    shares = []
    if "utilization" in observed:
        x = observed.get("throughput", K / (z + observed.get("response_time", s)))
        shares.append(float(np.median(observed["utilization"] / x)) / max(r_min, 1e-12))
    shares += [0.5, 0.95]
    starts = []
    for share in shares:
        share = min(max(share, 0.02), 0.98)
        g = dict(guess, cpu_time=share * r_min, wait_time=(1 - share) * r_min, think_time=z)
        g.update({k: v for k, v in fixed.items()})
        if initial:
            unknown = sorted(set(initial) - set(names))
            if unknown:
                raise ValueError(f"initial names unknown parameter(s) {unknown}")
            g.update({k: float(v) for k, v in initial.items() if k in names})
        by = {p.name: p for p in parameters}
        x = []
        for n in free:
            lo, hi = by[n].low, by[n].high
            v = min(max(g[n], lo), hi)
            x.append(by[n].inner(v) if not (by[n].log and v <= 0) else by[n].inner(lo))
        starts.append(np.array(x))
        if initial:
            break
    return starts
