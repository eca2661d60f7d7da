"""Two helpers that make :func:`queuetune.fit.fit_thread_pool` usable on a measured mean
concurrency with a plain call:

* :func:`batch_holders` - the thread-pool model of a *batch* population (think time 0, every
  request admitted) in one exact MVA pass. Its K requests are all in the server, so the number
  of thread holders is ``min(K, T)`` at every instant and the throughput is the inner network's
  ``X_in(min(K, T))`` (the processors and the waiting phase with that many holders), exactly:
  no flow-equivalent approximation is involved. One recursion up to the largest K gives every
  K and every T at once, where the general solvers take one solve per configuration (about
  0.15 s for 470 configurations against about 1 ms here).
* :func:`search_profile` - the integer profile of the thread count searched by a coarse grid
  and a golden-section refinement, its likelihood-ratio interval by bisection on each side:
  some 30 fits over any range, where fitting every count costs one fit per count.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.special import gammaln, logsumexp

__all__ = ["batch_holders", "search_profile", "ProfileSearch", "GRID_POINTS"]

#: Thread counts of the coarse grid that opens the search (spaced evenly in log T).
GRID_POINTS = 13


def batch_holders(*, holders: int, cpu_time: float, wait_time: float, processors: int,
                  pool_overhead_factor: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Throughput ``X_in(m)`` and processor utilization ``U(m)`` of ``m = 0..holders`` thread
    holders cycling between the processors (mean ``cpu_time`` times ``pool_overhead_factor``,
    processor sharing over ``processors``) and the waiting phase (mean ``wait_time``, no
    processor): a closed product-form network of two stations, solved exactly.

    >>> x, u = batch_holders(holders=3, cpu_time=0.0, wait_time=0.5, processors=1)
    >>> x.tolist()
    [0.0, 2.0, 4.0, 6.0]
    """
    m = np.arange(holders + 1, dtype=np.float64)
    demand = cpu_time * pool_overhead_factor
    if demand == 0:
        return m / wait_time, np.zeros(m.size)
    busy = np.minimum(m, processors)
    if wait_time == 0:
        return busy / demand, busy / processors
    if processors == 1:
        x = _queue_and_delay(holders, demand, wait_time)
        return x, x * demand
    busy_mean = _busy_processors(holders, demand, wait_time, processors)
    return busy_mean / demand, busy_mean / processors


def _queue_and_delay(holders: int, demand: float, wait_time: float) -> np.ndarray:
    """``X(0..holders)`` of one queue (demand ``demand``) and one delay station: the exact MVA
    recursion on scalars. Written here rather than through :func:`queuetune.models.mva`, which
    solves any number of stations with array operations at each population and takes about
    6 ms for 342 holders, where this loop takes well under 1 ms; a fit evaluates it hundreds
    of times (``tests/fit/test_thread_search.py`` holds the two equal)."""
    x = np.zeros(holders + 1)
    queue = 0.0
    for n in range(1, holders + 1):
        residence = demand * (1.0 + queue)
        x[n] = n / (residence + wait_time)
        queue = x[n] * residence
    return x


#: Rows of the product-form table summed at a time by :func:`_busy_processors`.
_CHUNK = 256


def _busy_processors(holders: int, demand: float, wait_time: float, processors: int
                     ) -> np.ndarray:
    """Mean busy processors ``E[min(c, p)]`` with ``m = 0..holders`` holders, ``c`` of them on
    the processors: the product form ``P(c | m) ~ f(c) g(m - c)`` with
    ``f(c) = D^c / prod_{l<=c} min(l, p)`` and ``g(k) = w^k / k!``, summed in logarithms.

    Written here rather than through :func:`queuetune.models.mva` with a multi-server
    station: its convolution is general (any number of load-dependent stations) and takes
    seconds for a few hundred holders, where the two stations' sum over ``c`` takes
    milliseconds, and a fit evaluates it hundreds of times."""
    c = np.arange(holders + 1, dtype=np.float64)
    log_f = c * math.log(demand) - np.concatenate(
        [[0.0], np.cumsum(np.log(np.minimum(c[1:], processors)))])
    log_g = c * math.log(wait_time) - gammaln(c + 1)
    busy = np.minimum(c, processors)
    out = np.zeros(holders + 1)
    for start in range(0, holders + 1, _CHUNK):
        m = c[start:start + _CHUNK, None]
        k = m - c[None, :]
        valid = k >= 0
        terms = np.where(valid, log_f[None, :] + log_g[np.clip(k, 0, None).astype(np.int64)],
                         -np.inf)
        weights = np.exp(terms - logsumexp(terms, axis=1, keepdims=True))
        out[start:start + _CHUNK] = weights @ busy
    return out


@dataclass
class ProfileSearch:
    """The outcome of :func:`search_profile`."""

    best: int
    low: int
    high: int
    loglik: dict[int, float]
    notes: tuple[str, ...]


def _grid(low: int, high: int, points: int) -> list[int]:
    if high - low + 1 <= points:
        return list(range(low, high + 1))
    values = np.unique(np.round(np.geomspace(low, high, points)).astype(int))
    return sorted({low, high, *values.tolist()})


def search_profile(loglik: Callable[[int], float], low: int, high: int, *,
                   confidence: float) -> ProfileSearch:
    """The integer ``t`` in ``[low, high]`` of the highest ``loglik(t)`` and the range of those
    within the chi-square(1) likelihood-ratio bound at ``confidence``.

    The search assumes a profile with one peak, and checks it: a coarse grid over the whole
    range (:data:`GRID_POINTS` counts spaced evenly in log t) finds the best grid count, a
    golden-section search over the integers between its neighbours refines it, and each end of
    the interval is found by bisection between the estimate and the nearest grid count outside
    the bound. A grid count far from the peak that is inside the bound (a second peak) is
    reported in ``notes`` and widens the interval to it. Ties go to the smallest count.
    ``loglik`` is called at most once per count.
    """
    memo: dict[int, float] = {}

    def ll(t: int) -> float:
        if t not in memo:
            memo[t] = float(loglik(t))
        return memo[t]

    def better(a: int, b: int) -> bool:  # a strictly better than b, ties to the smaller
        la, lb = ll(a), ll(b)
        return la > lb or (la == lb and a < b)

    grid = _grid(low, high, GRID_POINTS)
    best = grid[0]
    for t in grid:
        if better(t, best):
            best = t
    i = grid.index(best)
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    # golden-section search over the integers of (a, b)
    phi = (math.sqrt(5) - 1) / 2
    while b - a > 3:
        c = int(round(b - phi * (b - a)))
        d = int(round(a + phi * (b - a)))
        if c == d:
            d = c + 1
        if better(d, c):
            a = c
        else:
            b = d
    for t in range(a, b + 1):
        if better(t, best):
            best = t
    top = ll(best)
    bound = stats.chi2.ppf(confidence, 1) / 2

    def inside(t: int) -> bool:
        value = ll(t)
        return value == top if math.isinf(top) else top - value <= bound

    def edge(direction: int) -> int:
        # the nearest grid count beyond the estimate that is outside, else the range's end
        beyond = [t for t in grid if (t - best) * direction > 0]
        beyond.sort(key=lambda t: abs(t - best))
        outside = next((t for t in beyond if not inside(t)), None)
        if outside is None:
            return high if direction > 0 else low
        good, bad = best, outside  # inside at good, outside at bad: bisect
        while abs(bad - good) > 1:
            mid = (good + bad) // 2
            if inside(mid):
                good = mid
            else:
                bad = mid
        return good

    lo, hi = edge(-1), edge(+1)
    notes = []
    far = [t for t in grid if (t < lo or t > hi) and inside(t)]
    if far:
        notes.append(
            f"the profile of the thread count has more than one peak: thread counts "
            f"{', '.join(str(t) for t in far)} also fit within the {confidence:.0%} bound; the "
            "interval is widened to them")
        lo, hi = min(lo, *far), max(hi, *far)
    return ProfileSearch(best, lo, hi, dict(sorted(memo.items())), tuple(notes))
