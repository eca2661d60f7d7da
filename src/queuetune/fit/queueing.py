"""Fitting the queueing models of :mod:`queuetune.models` to measurements.

* :func:`fit_mm1bk` - service time S and think time Z of the M/M/1/B/K model (and the
  capacity B, profiled over integers, when it is not given);
* :func:`fit_thread_pool` - CPU time, wait time, think time and overheads of the thread-pool
  model, over a whole clients x threads grid at once, or the thread count searched from a
  monitor's record of mean concurrency and throughput with a plain call.

Both take response times and/or throughputs measured at several client counts (and, optionally,
CPU utilizations: by the Utilization Law U = X D the model's utilization is its throughput times
its CPU demand, so a measured U pins the demand). See :mod:`queuetune.fit` for the statistics:
residual scale, one noise level per measured quantity, interval methods, identifiability.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, replace
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
from . import _inputs, thread_search
from ._core import Fit, Parameter, Problem, _estimate, fit_problem, information_criteria

__all__ = ["MM1BKFit", "ThreadPoolFit", "fit_mm1bk", "fit_thread_pool",
           "MM1BK_PARAMETERS", "THREAD_POOL_PARAMETERS", "MAX_FIT_STATES",
           "MAX_PROFILED_CAPACITIES", "MAX_PROFILED_THREADS", "MAX_PROFILE_SECONDS",
           "MAX_EVALUATION_SECONDS"]

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
#: Largest thread count searched by :func:`fit_thread_pool` with ``threads=None`` (the search
#: fits some 30 counts whatever the range, :func:`queuetune.fit.thread_search.search_profile`;
#: the bound is the largest population the MVA of several processors solves).
MAX_PROFILED_THREADS = 5000
#: Largest estimated time of the thread-count search of :func:`fit_thread_pool`: per thread
#: count fitted, 0.3 s of the fit's own work and about 40 model evaluations of at least 1 ms
#: each (measured, 2 cores).
MAX_PROFILE_SECONDS = 10.0
_SECONDS_PER_FIT, _EVALUATIONS_PER_FIT, _LEAST_EVALUATION_SECONDS = 0.3, 40, 1e-3
#: Largest estimated time of one model evaluation in :func:`fit_thread_pool` (by
#: :func:`queuetune.thread_pool`'s own cost estimate; a fit takes hundreds).
MAX_EVALUATION_SECONDS = 0.05

_TIMES = TIME_RANGE
_MM1BK_DOMAIN = {"service_time": (*_TIMES, False), "think_time": (*_TIMES, False)}
_THREAD_POOL_DOMAIN = {"cpu_time": (*_TIMES, True), "wait_time": (*_TIMES, True),
                       "think_time": (*_TIMES, True), "thread_overhead": (0.0, math.inf, False),
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

    def predict(self, *, clients: Any, capacity: Any = None) -> pd.DataFrame:
        """The fitted model at ``clients`` (and ``capacity``, default the fitted one): a table
        of ``clients``, ``capacity``, ``response_time``, ``throughput``, ``utilization``,
        ``rejection_probability``."""
        ks = _inputs.concurrency(clients, "clients")
        cap = self.capacity if capacity is None else capacity
        if capacity is None and np.ndim(cap):
            if not np.all(cap == cap[0]):
                raise ValueError("capacity must be given to predict when the fit had several "
                                 "capacities")
            cap = int(cap[0])
        bs = _inputs.counts(cap, "capacity", ks.size)
        same_length("clients", {"clients": ks, "capacity": bs})
        names = ("response_time", "throughput", "utilization", "rejection_probability")

        def solve(K, i):
            res = mm1bk(clients=K, capacity=bs[i], service_time=self.service_time,
                        think_time=self.think_time)
            return {g: np.atleast_1d(getattr(res, g)) for g in names}

        return pd.DataFrame({"clients": ks, "capacity": bs, **interpolated(ks, solve)})


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
    K = _inputs.concurrency(clients, "clients")
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
    # a non-integer concurrency is solved at the integers on both sides
    states = int(np.sum(np.minimum(np.ceil(K), widest) + 1)) * (1 + int(np.any(K % 1 != 0)))
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
        low, high = 1, int(np.ceil(K.max()))
    else:
        if isinstance(capacity_range, str | bytes) or np.ndim(capacity_range) != 1 \
                or len(capacity_range) != 2:
            raise ValueError(f"capacity_range must be (low, high) integers with 1 <= low < "
                             f"high, got {capacity_range!r}")
        low = integer(capacity_range[0], "capacity_range low", low=1)
        high = integer(capacity_range[1], "capacity_range high", low=low + 1)
        high = min(high, max(int(np.ceil(K.max())), low + 1))
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
        def solve(k, i):
            res = mm1bk(clients=k, capacity=B[ids][i], service_time=values["service_time"],
                        think_time=values["think_time"])
            return {g: np.atleast_1d(getattr(res, g)) for g in observed}

        return interpolated(K[ids], solve)

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


def fit_mm1bk(*, clients: Any, capacity: Any, response_time: Any = None,
              throughput: Any = None, utilization: Any = None,
              fixed: Mapping[str, float] | None = None,
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
        sub = fit_mm1bk(clients=K[mask], capacity=None if data.B is None else B[mask],
                        **{g: observed[g][mask] for g in observed}, fixed=fixed,
                        bounds=bounds, capacity_range=capacity_range if data.B is None
                        else None, scale=common.scale, intervals="none")
        pred = sub.predict(clients=K[~mask],
                           capacity=sub.capacity if data.B is None else B[~mask])
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
    threads_given: np.ndarray | None
    _solve_at: Any = None
    processors: int
    connections: int | None

    cpu_time = property(lambda self: self.estimates["cpu_time"])
    wait_time = property(lambda self: self.estimates["wait_time"])
    think_time = property(lambda self: self.estimates["think_time"])
    thread_overhead = property(lambda self: self.estimates["thread_overhead"])
    pool_overhead = property(lambda self: self.estimates["pool_overhead"])

    @property
    def threads(self) -> int | np.ndarray:
        """The fitted thread count (an int), or the thread counts given."""
        return self.estimates.get("threads", self.threads_given)

    def fitted_at(self, *, clients: Any) -> pd.DataFrame:
        """The fitted model at each ``clients`` as the fit solves it: a measured concurrency
        may be non-integer (interpolated between the integers on both sides; below 1 for a
        batch population), at the fitted or the one given thread count and the fit's
        capacity. Columns ``clients`` and the measured quantities of the fit."""
        if self._solve_at is None:
            raise ValueError("fitted_at needs a fit with one thread count (given or fitted)")
        return self._solve_at(clients)

    @property
    def exact_check(self) -> pd.DataFrame | None:
        """Per measured quantity, the largest relative difference between the values fitted
        with ``method="fes"`` and the exact model at the same parameters (None when the fit
        used the exact model or was not verified)."""
        return self.details.get("exact_check")

    def predict(self, *, clients: Any, threads: Any = None, capacity: Any = None,
                method: str | None = None) -> pd.DataFrame:
        """The fitted model at each (clients, threads) pair (and ``capacity``, default the
        first one given to the fit; ``threads`` default the fitted or given thread count when
        there was one), with the fit's processors and connections, solved with ``method``
        (default: the fit's). Columns
        ``clients``, ``threads``, ``capacity``, ``response_time``, ``throughput``,
        ``utilization``, ``rejection_probability``, ``busy_threads``."""
        ks = _inputs.counts(clients, "clients")
        if threads is None:
            threads = self.threads_given if self.threads_given is not None \
                else self.estimates["threads"]
        ts = _inputs.counts(threads, "threads", ks.size)
        ks = _inputs.counts(ks, "clients", ts.size) if ks.size == 1 else ks
        same_length("clients", {"clients": ks, "threads": ts})
        cap = int(self.capacity_given[0]) if capacity is None else capacity
        bs = _inputs.counts(cap, "capacity", ks.size)
        same_length("clients", {"clients": ks, "capacity": bs})
        e = self.estimates
        res = thread_pool(clients=ks, capacity=bs, threads=ts, cpu_time=e["cpu_time"],
                          wait_time=e["wait_time"], think_time=e["think_time"],
                          processors=self.processors, connections=self.connections,
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

    K: np.ndarray  # clients, float: a measured concurrency may be non-integer
    T: np.ndarray  # threads (the largest candidate when they are profiled)
    B: np.ndarray
    observed: dict[str, np.ndarray]
    free: tuple[str, ...]
    fixed: dict[str, float]
    initial: dict[str, float]
    parameters: tuple[Parameter, ...]
    method: str
    p: int
    C: int | None
    candidates: np.ndarray | None  # thread counts profiled (None: given)
    #: A batch population (think time 0, every request admitted, no thread overhead, no pool
    #: below the threads): solved exactly by :func:`thread_search.batch_holders`.
    batch: bool = False
    #: What the fitter chose for the user (parameters fixed because the data cannot separate
    #: them), as warnings.
    notes: tuple[str, ...] = ()
    #: With a plain call on a measured concurrency: cpu_time may be fixed at 0 if the data
    #: cannot tell it from wait_time (tested after the search).
    test_cpu: bool = False


#: Parameters fitted by a plain call on a measured concurrency (``capacity=None``, no
#: ``free``): the others are fixed (think time and overheads 0).
PLAIN_FREE = ("cpu_time", "wait_time")
_THINK_NOTE = (
    "think_time fixed at 0: with capacity=None the clients are read as a measured mean "
    "concurrency (requests in the server), whose think time is 0; such data cannot separate "
    "a think time from the wait time (they trade off). Give fixed={'think_time': z} and a "
    "capacity to fit clients that think")
_OVERHEAD_NOTE = (
    "thread_overhead and pool_overhead fixed at 0 (a plain call fits cpu_time and wait_time "
    "only; pass free=... to fit them)")


def _plain_call(fixed: Any, free: Any, capacity: Any) -> tuple[Any, Any, tuple[str, ...]]:
    """The defaults of a plain call on a measured concurrency (``capacity=None`` and no
    ``free``): think time 0 unless fixed, cpu_time and wait_time fitted, with notes."""
    if capacity is not None or free is not None:
        return fixed, free, ()
    given = dict(fixed or {})
    notes = []
    if "think_time" not in given:
        given["think_time"] = 0.0
        notes.append(_THINK_NOTE)
    chosen = tuple(n for n in PLAIN_FREE if n not in given)
    if not chosen:
        return given, None, tuple(notes)
    if not all(n in given for n in ("thread_overhead", "pool_overhead")):
        notes.append(_OVERHEAD_NOTE)
    return given, chosen, tuple(notes)


def _thread_pool_data(clients, threads, capacity, response_time, throughput, utilization,
                      free, fixed, initial, bounds, method, processors, connections,
                      thread_range) -> _ThreadPoolData:
    method = as_choice(method, "method", ("fes", "exact"))
    K = _inputs.concurrency(clients, "clients", positive=True)
    plain = capacity is None and free is None
    fixed, free, notes = _plain_call(fixed, free, capacity)
    if capacity is None:  # every request admitted: no capacity below the largest concurrency
        capacity = int(np.ceil(K.max()))
    B = _inputs.counts(capacity, "capacity", K.size)
    p = integer(processors, "processors", low=1)
    C = None if connections is None else integer(connections, "connections", low=1)
    if threads is None:
        candidates = _thread_candidates(thread_range, K, B)
        T = np.full(K.size, int(candidates[-1]))
    else:
        if thread_range is not None:
            raise ValueError("thread_range must be None when threads are given (it bounds the "
                             "thread counts profiled with threads=None)")
        T, candidates = _inputs.counts(threads, "threads", K.size), None
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
    _inputs.enough_observations(sum(a.size for a in observed.values()), free,
                                extra=int(candidates is not None))
    if fixed_values.get("think_time") == 0 and np.any(B < np.ceil(K)):
        raise ValueError("capacity must be at least clients with think_time fixed at 0 (a "
                         "batch population is all admitted): give capacity=None or a larger "
                         "capacity")
    batch = (fixed_values.get("think_time") == 0 and "thread_overhead" not in free
             and fixed_values["thread_overhead"] == 0 and (C is None or C >= int(T.max())))
    if not batch and np.any(K < 1):
        raise ValueError(
            f"clients must be >= 1 (got {float(K.min()):g}) unless they are a measured mean "
            "concurrency of a batch population (think_time 0, capacity=None, no "
            "thread_overhead), where a concurrency below 1 is the server idle part of the time")
    test_cpu = (plain and batch and candidates is not None and "cpu_time" in free
                and "wait_time" in free and "utilization" not in observed)
    data = _ThreadPoolData(K, T, B, observed, free, fixed_values, starts, parameters, method,
                           p, C, candidates, batch, notes, test_cpu)
    seconds = _check_thread_pool_work(data)
    if candidates is not None and not batch:
        # the search fits some tens of thread counts: each its own work and some tens of model
        # evaluations
        fits = min(candidates.size, _searched_counts(candidates.size))
        total = fits * (_SECONDS_PER_FIT + _EVALUATIONS_PER_FIT * max(
            seconds, _LEAST_EVALUATION_SECONDS))
        if total > MAX_PROFILE_SECONDS:
            raise ValueError(
                f"thread_range must keep the search of the thread count within "
                f"MAX_PROFILE_SECONDS = {MAX_PROFILE_SECONDS:g} s, got {candidates.size} "
                f"thread counts, about {fits} fits of {total:.0f} s: give a narrower "
                "thread_range (or the threads), or think_time=0 with capacity=None for a "
                "measured concurrency (solved exactly and fast)")
    return data


def _searched_counts(size: int) -> int:
    """About how many thread counts :func:`thread_search.search_profile` fits in a range of
    ``size``: the grid, the golden section and two bisections."""
    steps = math.ceil(math.log2(max(size, 2)))
    return thread_search.GRID_POINTS + 3 * steps


def _thread_candidates(thread_range: Any, K: np.ndarray, B: np.ndarray) -> np.ndarray:
    """The thread counts profiled: ``thread_range`` (default ``1 .. max(min(clients,
    capacity))``), cut where more threads change nothing (no more than the admitted
    requests)."""
    top = int(np.ceil(np.max(np.minimum(K, B))))
    if thread_range is None:
        low, high = 1, max(top, 2)
    else:
        if isinstance(thread_range, str | bytes) or np.ndim(thread_range) != 1 \
                or len(thread_range) != 2:
            raise ValueError(f"thread_range must be (low, high) integers with 1 <= low < "
                             f"high, got {thread_range!r}")
        low = integer(thread_range[0], "thread_range low", low=1)
        high = integer(thread_range[1], "thread_range high", low=low + 1)
        high = min(high, max(top, low + 1))
    if high - low + 1 > MAX_PROFILED_THREADS:
        raise ValueError(
            f"thread_range must span at most MAX_PROFILED_THREADS = {MAX_PROFILED_THREADS} "
            f"thread counts (one fit each), got {low} to {high}: give a narrower "
            "thread_range")
    return np.arange(low, high + 1)


def _extreme(data: _ThreadPoolData, name: str) -> float:
    """The largest value a parameter takes in the fit: fixed, or its upper search bound."""
    if name in data.fixed:
        return data.fixed[name]
    return next(p.high for p in data.parameters if p.name == name)


def _check_thread_pool_work(data: _ThreadPoolData) -> float:
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
    if data.batch:  # one MVA pass up to the largest concurrency
        return _LEAST_EVALUATION_SECONDS
    two = np.full(data.K.size, worst["cpu_time"] > 0 and worst["wait_time"] > 0)
    theta = np.full(data.K.size, worst["thread_overhead"])
    # a non-integer concurrency is solved at the integers on both sides
    K = np.ceil(data.K).astype(np.int64)
    interpolated = 2 if np.any(K != data.K) else 1
    seconds = interpolated * estimated_seconds(
        clients=K, capacity=data.B, threads=data.T, two_phases=two, thread_overhead=theta,
        method=data.method, processors=data.p, connections=data.C)
    if seconds > MAX_EVALUATION_SECONDS:
        raise ValueError(
            f"clients, threads and capacity must keep one model evaluation within "
            f"MAX_EVALUATION_SECONDS = {MAX_EVALUATION_SECONDS:g} s (a fit takes hundreds), "
            f"got about {seconds:.2g} s with method={data.method!r}"
            + (": use method='fes'" if data.method == "exact" else ": fit fewer or smaller "
               "configurations"))
    return seconds


def _thread_pool_problem(data: _ThreadPoolData, scale: str) -> Problem:
    observed = data.observed

    def predict(values, ids):
        return _solve_thread_pool(data, values, ids, data.method, tuple(observed))

    return Problem(data.parameters, data.free, data.fixed, observed,
                   {g: np.arange(data.K.size) for g in observed}, predict, scale,
                   tolerance=1e-8, max_evaluations=400, starts_solved=1)


def _solve_thread_pool(data: _ThreadPoolData, values, ids, method: str,
                       metrics: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The model's ``metrics`` at the configurations ``ids``; a non-integer concurrency K
    is interpolated linearly between the integers on both sides of it."""
    if data.batch:
        return interpolated(data.K[ids], lambda K, i: _solve_batch(data, values, K,
                                                                   data.T[ids][i], metrics))

    def solve(K, i):
        res = thread_pool(clients=K, capacity=data.B[ids][i], threads=data.T[ids][i],
                          cpu_time=values["cpu_time"], wait_time=values["wait_time"],
                          think_time=values["think_time"], processors=data.p,
                          connections=data.C, thread_overhead=values["thread_overhead"],
                          pool_overhead=values["pool_overhead"], method=method)
        return {g: np.atleast_1d(getattr(res, g)) for g in metrics}

    return interpolated(data.K[ids], solve)


def _solve_batch(data: _ThreadPoolData, values, K: np.ndarray, T: np.ndarray,
                 metrics: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The model of a batch population (think time 0, all admitted) at integer ``K`` with
    ``T`` threads: ``min(K, T)`` holders at every instant, exactly (see
    :func:`thread_search.batch_holders`); R = K / X by Little's law."""
    out = {g: np.empty(K.size) for g in (*metrics, "busy_threads")}
    for t in np.unique(T):
        rows = np.flatnonzero(T == t)
        held = np.minimum(K[rows], t).astype(np.int64)
        x_in, u_in = thread_search.batch_holders(
            holders=int(held.max()), cpu_time=values["cpu_time"],
            wait_time=values["wait_time"], processors=data.p,
            pool_overhead_factor=1.0 + values["pool_overhead"] * float(t))
        x = x_in[held]
        with np.errstate(divide="ignore", invalid="ignore"):
            # no request at K = 0: a lone request's response time, so that a concurrency
            # below 1 (the server idle part of the time) interpolates to it
            r = np.where(held > 0, K[rows] / x, 1.0 / x_in[min(1, x_in.size - 1)])
        found = {"throughput": x, "response_time": r, "utilization": u_in[held],
                 "busy_threads": held.astype(np.float64)}
        for g in out:
            out[g][rows] = found[g]
    return {g: out[g] for g in metrics}


def interpolated(K: np.ndarray, solve) -> dict[str, np.ndarray]:
    """``solve(integer K, rows)`` at a possibly non-integer K: at the integers below and above
    it, weighted linearly (integers are solved once, as they are)."""
    low = np.floor(K)
    frac = K - low
    whole = frac == 0
    if whole.all():
        return solve(K.astype(np.int64), np.arange(K.size))
    part = np.flatnonzero(~whole)
    rows = np.concatenate([np.arange(K.size), part])
    ks = np.concatenate([low, low[part] + 1.0]).astype(np.int64)
    both = solve(ks, rows)
    out = {}
    for g, value in both.items():
        at = value[:K.size].copy()
        at[part] = (1.0 - frac[part]) * at[part] + frac[part] * value[K.size:]
        out[g] = at
    return out


def _exact_check(fit: ThreadPoolFit, data: _ThreadPoolData) -> None:
    """The fitted values of the flow-equivalent server against the exact chain at the
    estimate (in ``details["exact_check"]``, and a warning above 1 %)."""
    try:
        exact = _solve_thread_pool(data, fit.estimates, np.arange(data.K.size), "exact",
                                   tuple(data.observed))
    except ValueError as exc:
        fit.warnings = fit.warnings + (
            f"the fit could not be checked with the exact model: {exc}",)
        return
    rows = []
    for g in data.observed:
        diff = np.abs(fit.fitted[g] / exact[g] - 1)
        rows.append({"quantity": g, "max_relative_difference": float(diff.max()),
                     "mean_relative_difference": float(diff.mean())})
    check = pd.DataFrame(rows)
    fit.details["exact_check"] = check
    worst = check["max_relative_difference"].max()
    if worst > 0.01:
        fit.warnings = fit.warnings + (
            f"the flow-equivalent solution differs from the exact model by up to {worst:.1%} "
            "at the estimate: refit with method='exact'",)


def fit_thread_pool(*, clients: Any, threads: Any = None, response_time: Any = None,
                    throughput: Any = None, utilization: Any = None, capacity: Any = None,
                    processors: int = 1, connections: int | None = None,
                    thread_range: tuple[int, int] | None = None,
                    free: tuple[str, ...] | None = None,
                    fixed: Mapping[str, float] | None = None,
                    initial: Mapping[str, float] | None = None,
                    bounds: Mapping[str, tuple[float, float]] | None = None,
                    method: str = "fes", verify: bool = True, scale: str = "log",
                    intervals: str = "profile", confidence: float = 0.95, n_boot: int = 100,
                    seed: int = 0) -> ThreadPoolFit:
    """Fit :func:`queuetune.thread_pool` to a whole grid of (clients, threads) measurements.

    Every argument is keyword-only.

    **A plain call on a monitor's record** - ``fit_thread_pool(clients=concurrency,
    throughput=x, threads=None)``, a measured mean concurrency (requests in the server, not
    whole) against throughput, no capacity and no ``free`` - fits what such data can tell:
    think time 0 (the concurrency counts requests in the server; a think time would trade off
    with the wait time), every request admitted, overheads 0, and the thread count over its
    whole range 1 to the largest concurrency. Such a batch population is solved exactly and
    fast (:func:`queuetune.fit.thread_search.batch_holders`), and the thread count is searched,
    not fitted at every count (:func:`queuetune.fit.thread_search.search_profile`: some 30
    fits, a few seconds for hundreds of points). When a fit with ``cpu_time = 0`` is within
    the likelihood-ratio bound of the free one, the data cannot tell processor time from wait
    time: cpu_time is fixed at 0. Each choice is stated in ``warnings``.

    Parameters
    ----------
    clients : sequence of float
        K >= 1 of each measurement: the clients, or a measured mean concurrency, which may be
        non-integer (the model is then interpolated linearly between the integers on both
        sides of it). A measured concurrency of a batch population (think time 0, every
        request admitted) may be below 1: the server idle part of the time, its throughput in
        proportion.
    threads : sequence of int, optional
        T >= 1 of each measurement (a grid flattened to equal-length columns with
        ``clients``). None: one thread count, unknown, searched over ``thread_range``: a
        coarse grid, a golden-section refinement and the ends of its likelihood-ratio interval
        by bisection, which assumes one peak and reports a second one the grid sees
        (``estimates["threads"]``, its interval and ``details["threads_profile"]``, the counts
        fitted).
    response_time, throughput : sequence of float, optional
        Measured R (s) and X (1/s); at least one is needed.
    utilization : sequence of float, optional
        Measured utilization of the processors as a fraction in (0, 1]. The model's equals its
        throughput times the mean processor time per request (overhead included) over
        ``processors`` (the Utilization Law U = X D / p), so measured U pins the demand.
    capacity : int or sequence of int, optional
        B, the most admitted requests (one value or one per measurement); not fitted (data
        without refusals cannot identify it). None (default): every request admitted (B the
        largest concurrency), and, without ``free``, the plain call above. One model
        evaluation may take at most :data:`MAX_EVALUATION_SECONDS` by the model's own cost
        estimate (a batch population is not limited: one MVA pass).
    processors : int
        p >= 1, the server's processors (default 1); not fitted.
    connections : int, optional
        C >= 1, the pool of connections held during the wait (default None: no pool); not
        fitted.
    thread_range : (int, int), optional
        With ``threads=None``, the thread counts searched (default 1 to the most admitted
        requests; up to :data:`MAX_PROFILED_THREADS`; outside a batch population, the search
        must stay within :data:`MAX_PROFILE_SECONDS` by the model's cost estimate).
    free : tuple of str, optional
        The parameters to fit, from ``cpu_time``, ``wait_time``, ``think_time``,
        ``thread_overhead``, ``pool_overhead`` (default: every one not in ``fixed``). Times are
        fitted on a log scale within :data:`THREAD_POOL_PARAMETERS`' bounds; an overhead not
        fitted and not fixed is 0.
    fixed : mapping, optional
        Values of parameters not fitted (``wait_time`` may be fixed at 0, for example), in the
        range :func:`queuetune.thread_pool` accepts (``think_time`` 0 needs every request
        admitted: a capacity of at least the clients, or None).
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
        default, or a residual bootstrap with the fixed ``seed`` (``n_boot`` refits). With
        profiled threads, the other intervals hold the thread count at its estimate.

    Returns
    -------
    ThreadPoolFit
        The estimates as attributes, ``intervals``, ``residuals``, :meth:`ThreadPoolFit.predict`,
        goodness of fit, ``warnings`` (and a ``UserWarning`` when the fit explains less than a
        constant), ``identifiability`` and ``exact_check``.
    """
    common = _common(intervals, scale, confidence, n_boot, seed)
    verify = as_flag(verify, "verify")
    data = _thread_pool_data(clients, threads, capacity, response_time, throughput,
                             utilization, free, fixed, initial, bounds, method, processors,
                             connections, thread_range)
    starts = _batch_starts(data, data.T) if data.batch else _thread_pool_starts(data)
    if data.candidates is not None:
        data, search, starts = _search_threads(data, starts, common)
    K, T, B, observed = data.K, data.T, data.B, data.observed
    held = {n: v for n, v in data.fixed.items() if n not in data.free}

    def train_and_predict(mask: np.ndarray) -> dict[str, np.ndarray]:
        sub = fit_thread_pool(clients=K[mask], threads=T[mask],
                              **{g: observed[g][mask] for g in observed},
                              capacity=B[mask], processors=data.p, connections=data.C,
                              free=data.free, fixed=held,
                              initial=_inside(fit.estimates, data), bounds=bounds,
                              method=data.method, verify=False, scale=common.scale,
                              intervals="none")
        pred = _solve_thread_pool(replace(data, K=K[~mask], T=T[~mask], B=B[~mask]),
                                  sub.estimates, np.arange(int((~mask).sum())), data.method,
                                  tuple(observed))
        return {g: pred[g] for g in observed}

    fit = fit_problem(_thread_pool_problem(data, common.scale), starts,
                      model="thread pool", intervals=common.intervals,
                      confidence=common.confidence, n_boot=common.n_boot, seed=common.seed,
                      extra_k=int(data.candidates is not None),
                      units={"cpu_time": "s", "wait_time": "s", "think_time": "s",
                             "threads": "threads"},
                      fit_class=ThreadPoolFit, train_and_predict=train_and_predict)
    fit.method = data.method
    fit.capacity_given = B
    fit.processors, fit.connections = data.p, data.C
    fit.threads_given = None if data.candidates is not None else T
    fit.warnings = data.notes + fit.warnings
    if np.all(T == T[0]) and np.all(B == B[0]):
        fit._solve_at = _solver_at(data, fit.estimates)
    if data.batch:
        fit.details["solver"] = ("batch population (think time 0, every request admitted): "
                                 "solved exactly by one MVA pass")
    if data.candidates is not None:
        _with_threads(fit, data, search, common.confidence)
    if data.method == "fes" and verify and not data.batch:
        _exact_check(fit, data)
    return fit


def _solver_at(data: _ThreadPoolData, estimates: Mapping[str, float]):
    """``clients -> table of the fitted quantities`` at the fit's one thread count and
    capacity (a batch population's capacity grows with the clients asked for: all are
    admitted)."""

    def solve_at(clients: Any) -> pd.DataFrame:
        K = _inputs.concurrency(clients, "clients", positive=data.batch)
        B = max(int(data.B[0]), int(np.ceil(K.max()))) if data.batch else int(data.B[0])
        at = replace(data, K=K, T=np.full(K.size, int(data.T[0])), B=np.full(K.size, B))
        found = _solve_thread_pool(at, dict(estimates), np.arange(K.size), data.method,
                                   tuple(data.observed))
        return pd.DataFrame({"clients": K, **found})

    return solve_at


def _search_threads(data: _ThreadPoolData, starts, common: _Common):
    """The thread count of the highest likelihood and its interval
    (:func:`thread_search.search_profile`); on a plain call, cpu_time fixed at 0 with a note
    when the data cannot tell it from wait_time (a fit with cpu_time = 0 lies within the
    likelihood-ratio bound of the free fit), and the search repeated. Returns the data with
    the thread count set, the search and the starts of the final fit."""
    search, rows = _profile_threads(data, starts, common.scale, common.confidence)
    if data.test_cpu:
        best = rows[search.best]
        reduced = replace(data, free=tuple(n for n in data.free if n != "cpu_time"),
                          fixed={**data.fixed, "cpu_time": 0.0}, test_cpu=False)
        problem = _thread_pool_problem(replace(reduced, T=np.full(data.K.size, search.best)),
                                       common.scale)
        x, _, _ = _estimate(problem, _batch_starts(reduced, search.best))
        ll = information_criteria(problem.raw_residuals(problem.values(x)),
                                  len(reduced.free) + 1)["loglik"]
        statistic = 2 * (best["loglik"] - ll)
        if statistic <= stats.chi2.ppf(common.confidence, 1):
            note = (f"cpu_time fixed at 0: these data cannot separate processor time from wait "
                    f"time (a fit with cpu_time = 0 is within the {common.confidence:.0%} "
                    f"likelihood-ratio bound of the free fit, statistic "
                    f"{'below 0.01' if statistic < 0.01 else format(statistic, '.2f')}); "
                    "give utilization to separate them")
            data = replace(reduced, notes=data.notes + (note,))
            search, rows = _profile_threads(data, None, common.scale, common.confidence)
    data = replace(data, T=np.full(data.K.size, search.best))
    row = rows[search.best]
    by = {p.name: p for p in data.parameters}
    first = [np.array([by[n].inner(row[n]) for n in data.free])]
    more = _batch_starts(data, search.best) if data.batch else (starts or [])
    return data, search, first + more


def _profile_threads(data: _ThreadPoolData, starts, scale: str, confidence: float):
    """The other parameters fitted at the thread counts :func:`thread_search.search_profile`
    asks for, each fit starting where the fit of the nearest count already fitted ended.
    Returns (the search, its rows by thread count)."""
    rows: dict[int, dict] = {}
    ends: dict[int, np.ndarray] = {}

    def loglik(t: int) -> float:
        problem = _thread_pool_problem(replace(data, T=np.full(data.K.size, t)), scale)
        own = _batch_starts(data, t) if data.batch else list(starts)
        if ends:
            near = min(ends, key=lambda u: (abs(u - t), u))
            own = [ends[near]] + own
            if data.batch:
                # the neighbour's end and a fresh start with a small processor share, both
                # solved: the neighbour's end may start closest and still lead to a local
                # optimum (a flat throughput, R² < 0, where the threads bound the data)
                own = own[:1] + own[1 + int(bool(data.initial)):][:1]
                problem.starts_solved = None
        x, _, _ = _estimate(problem, own)
        ends[t] = x
        values = problem.values(x)
        crit = information_criteria(problem.raw_residuals(values), len(data.free) + 1)
        rows[t] = {"threads": int(t), "loglik": crit["loglik"],
                   **{n: values[n] for n in data.free}}
        return crit["loglik"]

    search = thread_search.search_profile(loglik, int(data.candidates[0]),
                                          int(data.candidates[-1]), confidence=confidence)
    return search, rows


def _with_threads(fit: ThreadPoolFit, data: _ThreadPoolData, search, confidence: float
                  ) -> None:
    """The fitted thread count, its interval, the searched profile and warnings added to
    ``fit``."""
    low_t, high_t = search.low, search.high
    fit.estimates["threads"] = int(data.T[0])
    fit.intervals["threads"] = (low_t, high_t)
    upper_open = high_t == int(data.candidates[-1])
    fit.open_sides["threads"] = (low_t == int(data.candidates[0]) and low_t > 1, upper_open)
    fit.details["threads_profile"] = pd.DataFrame(
        [{"threads": t, "loglik": ll} for t, ll in search.loglik.items()])
    fit.warnings = fit.warnings + search.notes
    if high_t > low_t and any(fit.open_sides["threads"]):
        ends = " and ".join(side for side, is_open in zip(
            ("below", "above"), fit.open_sides["threads"], strict=True) if is_open)
        fit.warnings = fit.warnings + (
            f"threads is not pinned down: every thread count from {low_t} to {high_t} fits "
            f"within the {confidence:.0%} likelihood-ratio bound, and the data do not bound it "
            f"{ends} (a near-flat profile)",)


def _batch_starts(data: _ThreadPoolData, t: Any) -> list[np.ndarray]:
    """Starts of a batch population with ``t`` threads: the service time S = min(K, t) / X
    by Little's law (the median over the measurements), split between processor and wait
    time in a few shares, the processor share small first (a large one makes the processors
    the bottleneck: a local optimum that explains nothing); ``initial`` first when given."""
    by = {p.name: p for p in data.parameters}
    held = np.minimum(data.K, t)
    if "throughput" in data.observed:
        s = float(np.median(held / data.observed["throughput"]))
    else:
        s = float(np.median(held * data.observed["response_time"] / data.K))
    shares = [0.02, 0.3]
    if "utilization" in data.observed:
        x = data.observed.get("throughput", data.K / data.observed.get("response_time", s))
        shares.insert(0, float(np.median(data.observed["utilization"] * data.p / x)) / s)
    starts = []
    if data.initial:
        guess = {"cpu_time": 0.02 * s, "wait_time": 0.98 * s, **data.fixed, **data.initial}
        starts.append(np.array([by[n].inner(min(max(guess[n], by[n].low), by[n].high))
                                for n in data.free]))
    for share in shares:
        share = min(max(share, 1e-3), 0.98)
        guess = {"cpu_time": share * s, "wait_time": (1 - share) * s, "pool_overhead": 0.0,
                 **data.fixed}
        starts.append(np.array([by[n].inner(min(max(guess[n], by[n].low), by[n].high))
                                for n in data.free]))
    return starts


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
        shares.append(float(np.median(observed["utilization"] * data.p / x))
                      / max(r_min, 1e-12))
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
        with warnings.catch_warnings():  # a rough start only: its fit may be poor
            warnings.simplefilter("ignore", UserWarning)
            base = fit_mm1bk(clients=data.K, capacity=data.B, **series, intervals="none")
        return base.service_time, base.think_time
    except ValueError:
        r = float(np.min(data.observed.get("response_time", np.array([1.0]))))
        return r, 100 * r
