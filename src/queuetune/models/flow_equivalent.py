"""The flow-equivalent server's thread holders: the throughput ``X_in(m)`` of ``m`` requests
holding threads, one processor/pool configuration at a time, extended on demand.

The one home of this computation: :mod:`queuetune.sizing` (the sizing and its solver) and
:func:`queuetune.models.thread_pool` (``method="fes"``, several processors or a pool, no
overhead) both call :class:`Holders`.

With ``m`` holders, the holders form a closed product-form network of the processor (weights
``a(c) = s_c^c / prod_{i<=c} min(i, p)``) and the pool (``b(w) = s_w^w / prod_{i<=w} min(i,
C)``; no pool: ``b(w) = s_w^w / w!``). Their throughput is ``X_in(m) = sum_c pi_m(c) min(c,
p)/s_c = G(m-1)/G(m)`` with ``pi_m(c)`` proportional to ``a(c) b(m - c)`` and ``G(m) = sum_c
a(c) b(m - c)``; ``X_in(0) = 0``; ``s_w = 0`` gives ``min(m, p)/s_c``. Its limit is ``X_lim =
min(p/s_c, C/s_w)`` (``p/s_c`` without a pool). It is computed stably: ``pi_m`` is kept
normalized and updated from ``m`` to ``m + 1`` (``q(c) = pi_m(c) s_w / min(m + 1 - c, C)``,
``q(m + 1) = pi_m(m) s_c / min(m + 1, p)``, ``X_in(m + 1) = 1 / sum q``, ``pi_{m+1} = q
X_in(m + 1)``), and the entries below :data:`TRIM` at either end of its support are dropped
(an effect below 1e-28 relative): ``O(width)`` per step, no overflow. With a pool, ``G`` has
the rational generating function ``N(z) / ((1 - z s_c/p)(1 - z s_w/C))`` with a numerator of
degree ``p + C``, so for ``m > p + C`` the ratio follows the two-term recurrence ``1/X_in(m)
= s_c/p + s_w/C - (s_c/p)(s_w/C) X_in(m - 1)``: ``O(1)`` per step. ``X_in`` has
**converged** at the first ``m*`` with ``X_in(m*) >= (1 - CONVERGED) X_lim`` (:data:`CONVERGED`
= 1e-13); from there on ``X_in(m) = X_in(m*)``, within 1e-13 relative of the exact value.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import integer, real

__all__ = ["TRIM", "CONVERGED", "MAX_WORK", "MAX_HOLDERS", "Holders", "holders_throughput"]

#: Entries of the normalized holder distribution dropped at either end of its support.
TRIM = 1e-30
#: Relative distance to X_lim at which X_in counts as converged.
CONVERGED = 1e-13
#: Work of the thread holders' recursion counted as it goes, in units of about 20 ns (one
#: entry of a holder distribution updated; a step of the recursion costs 1250 units more, about
#: 25 us, and one of the two-term recurrence 25), and refused above about 10 s of it (measured
#: on the 2-core machine of scripts/benchmark_sizing.py).
MAX_WORK = 5e8
STEP_WORK = 1250
RECURRENCE_WORK = 25
#: Largest number of holders for which X_in is computed before it converges.
MAX_HOLDERS = 4 * 10**6


class Holders:
    """X_in(m) of one processor/pool configuration, extended on demand (definition 1)."""

    def __init__(self, *, processors: int, cpu_time: float, wait_time: float,
                 connections: int | None) -> None:
        self.p, self.s_c, self.s_w, self.C = processors, cpu_time, wait_time, connections
        no_pool = connections is None or wait_time == 0
        pool_limit = math.inf if no_pool else connections / wait_time
        self.limit = min(processors / cpu_time, pool_limit)
        self.values = [0.0]
        self.converged: int | None = None  # m*, once reached
        self.work = 0.0
        self._pi = np.ones(1)
        self._lo = 0
        self._pool_ratio = np.zeros(0)

    def upto(self, m: int) -> np.ndarray:
        """X_in(0..m) as an array (computing what is missing)."""
        while len(self.values) <= m and self.converged is None:
            self._step()
        out = np.asarray(self.values[: m + 1], dtype=np.float64)
        if len(out) <= m:
            out = np.concatenate([out, np.full(m + 1 - len(out), self.values[-1])])
        return out

    def at(self, m: int) -> float:
        """X_in(m)."""
        while len(self.values) <= m and self.converged is None:
            self._step()
        return self.values[min(m, len(self.values) - 1)]

    def until_converged(self, cap: int) -> int:
        """m*, or ``cap`` if X_in has not converged by then."""
        while self.converged is None and len(self.values) <= cap:
            self._step()
        return self.converged if self.converged is not None else cap

    def _step(self) -> None:
        m = len(self.values) - 1  # the last computed population
        if m + 1 > MAX_HOLDERS:
            raise ValueError(
                f"the thread holders' throughput has not converged after {MAX_HOLDERS} "
                "holders (a pool nearly as fast as the processors, or no pool with a wait "
                "far longer than the processor time): give threads= or connections=")
        if self.s_w == 0.0:
            x = min(m + 1, self.p) / self.s_c
        elif self.C is not None and m >= self.p + self.C:
            ra, rb = self.s_c / self.p, self.s_w / self.C
            x = 1.0 / (ra + rb - ra * rb * self.values[-1])
            self.work += RECURRENCE_WORK
        else:
            x = self._window_step(m)
        self.values.append(x)
        if x >= (1.0 - CONVERGED) * self.limit:
            self.converged = m + 1

    def _window_step(self, m: int) -> float:
        pi, lo, k = self._pi, self._lo, len(self._pi)
        top = m + 1 - lo  # requests in the pool at m + 1 when lo are at the processor
        while len(self._pool_ratio) <= top:
            self._extend_pool_ratio()
        q = np.empty(k + 1)
        np.multiply(pi, self._pool_ratio[top - k + 1: top + 1][::-1], out=q[:-1])
        q[-1] = pi[-1] * (self.s_c / min(lo + k, self.p))
        total = float(q.sum())
        q *= 1.0 / total
        first, last = 0, k
        while q[first] < TRIM:
            first += 1
        while q[last] < TRIM:
            last -= 1
        self._pi = q[first: last + 1]
        self._lo = lo + first
        self.work += k + 1 + STEP_WORK
        if self.work > MAX_WORK:
            raise ValueError(
                "the thread holders' throughput needs more than an estimated 10 s "
                f"(beyond {m} holders): give fewer threads= or connections=, or a shorter "
                "wait_time")
        return 1.0 / total

    def _extend_pool_ratio(self) -> None:
        """s_w / min(w, C) for w = 0, 1, ... (entry 0 unused), doubled in length."""
        w = np.arange(max(64, 2 * len(self._pool_ratio)), dtype=np.float64)
        w[0] = 1.0
        self._pool_ratio = self.s_w / (w if self.C is None else np.minimum(w, self.C))


def holders_throughput(*, processors: int, cpu_time: float, wait_time: float,
                       connections: int | None = None, holders: int) -> np.ndarray:
    """X_in(0..holders): the throughput of ``m`` thread holders (see the module's docstring).

    >>> x = holders_throughput(processors=1, cpu_time=0.02, wait_time=0.0, holders=2)
    >>> x.tolist()
    [0.0, 50.0, 50.0]
    """
    p = integer(processors, "processors", low=1, high=4096)
    s_c = real(cpu_time, "cpu_time", low=1e-6, high=1e3, unit="s")
    s_w = 0.0 if (isinstance(wait_time, int | float) and not isinstance(wait_time, bool)
                  and wait_time == 0) else real(wait_time, "wait_time", low=1e-6, high=1e3,
                                                unit="s (or 0)")
    C = None if connections is None else integer(connections, "connections", low=1,
                                                 high=10**5)
    m = integer(holders, "holders", low=0, high=MAX_HOLDERS)
    return Holders(processors=p, cpu_time=s_c, wait_time=s_w, connections=C).upto(m)
