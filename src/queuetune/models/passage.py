"""The response time of admitted requests as a distribution: exact and fast percentiles.

The server is that of :mod:`.thread_pool_chain`: at most ``B`` admitted requests, ``T`` threads
taken first come first served (``T = None``: no thread limit), a processor phase (mean ``s_c``,
exponential, processor sharing over ``p`` processors) and then a waiting phase (mean ``s_w``,
exponential) holding one of ``C`` connections, taken first come first served. The response
time of an admitted request runs from its admission to its departure.

**Exact** (:func:`exact_response_time`). A tagged request's progress through the chain is a
Markov chain with one absorbing state (its departure), so its response time is phase-type.
Its transient states are

* ``W(c, j, b)``: waiting for a thread, with ``j`` requests ahead of it and ``b`` behind it in
  the thread queue, every thread busy and ``c`` holders in the processor phase (the total is
  ``n = T + j + 1 + b``);
* ``P(n, c)``: in the processor phase, with ``n`` admitted (itself included) and ``c`` holders
  in the processor phase (itself included); every waiting request is behind it;
* ``Q(k)``: past the processor, waiting for a connection with ``k`` threads ahead of it: every
  connection is held, each is released at rate ``1/s_w``, so it needs ``k + 1`` releases at
  rate ``C/s_w`` whatever the others do;
* ``S``: holding a connection, leaving at rate ``1/s_w``.

The others move as in the chain (arrivals, processor completions shared ``min(c, p)/c`` each,
releases of connections, the oldest waiting request taking a freed thread). The tagged request
starts where an admitted arrival puts it: an arrival sees the chain's stationary distribution
weighted by the arrival rate of its state (``lambda``: Poisson arrivals see time averages;
``(K - n)/Z``: the arrival theorem of a finite population), conditioned on ``n < N``; a batch
population (``Z = 0``) arrives just after a departure, where the departure flux puts it.

The distribution is computed by uniformization: with ``Lambda`` the largest exit rate of a
transient state and ``P = I + Q/Lambda``, the survival function is
``S(t) = sum_k Poisson(k; Lambda t) s_k`` with ``s_k = alpha P^k 1`` (non-increasing, no
subtraction: every entry of ``P`` is >= 0). The terms are computed until ``s_K`` is below
``(1 - q) * SURVIVAL_TOLERANCE`` for the largest probability ``q`` asked, and the terms past
``K`` are bounded by ``s_K``: the computed survival is within ``(1 - q) 1e-9`` of the exact one
(plus rounding), and the quantile, a root of ``S(t) = 1 - q`` found by Brent's method to
``1e-12`` relative, is exact to within that error divided by the density at the quantile.
A chain of at most ``DENSE_STATES`` (400) states whose largest rate times its mean passage time
exceeds ``DENSE_STEPS`` (2,000: that many uniformization steps and more) is evaluated instead
with the dense matrix exponential (``scipy.linalg.expm``, Pade approximation with scaling and
squaring, a backward error at the level of rounding).

**Fast** (:func:`fast_quantiles`). For servers too large for the exact chain, the
flow-equivalent chain of admitted requests (definition 2 of :mod:`queuetune.sizing`) gives
the number ``n`` an admitted arrival finds; then

* a request that finds ``n < T`` takes a thread at once and holds it for ``H(m)``, ``m = n + 1``
  holders;
* a request that finds ``n >= T`` waits for ``j + 1`` releases of threads, ``j = n - T``, at
  the flow-equivalent server's death rate ``X_in(T)``, and then holds a thread for ``H(T)``.
  The time between releases has the squared coefficient of variation
  ``c^2 = 1 + (c_H^2 - 1) / T`` of a superposition of ``T`` renewal processes (``c_H^2`` that
  of ``H(T)``), and the wait is a gamma variable of mean ``(j + 1) / X_in(T)`` and shape
  ``(j + 1) / c^2`` (Erlang(j + 1, X_in(T)) when ``c^2 = 1``).

``H(m)`` has three parts in series: a processor phase (exponential, mean ``r_c(m)``), a wait
for a connection of ``k(m)`` releases (each exponential of mean ``s_w / C``, all ``C`` held:
``floor(k)`` of them and one more with probability ``k - floor(k)``), and the wait itself
(exponential, mean ``s_w``). Its mean is the exact mean holding time of the inner network,
``m / X_in(m)`` (Little's law): the queueing delay ``D(m) = m / X_in(m) - s_c - s_w`` is shared
between the processors and the pool in proportion to the approximate mean waits of an M/M/k
queue at the same throughput (Sakasegawa's formula, ``s u^(sqrt(2 (k + 1)) - 1) / (k (1 - u))``
with ``u = X_in(m) s / k``; no wait when ``m <= k``): ``k = p`` for the processors, ``k = C``
for the pool; ``r_c(m) = s_c + D_c(m)`` and ``k(m) = D_w(m) C / s_w``. With ``m`` holders fixed
the queue for a connection varies little (a closed network), hence releases of nearly fixed
number rather than an exponential wait; a processor-sharing sojourn is close to exponential.

The distribution function is the inverse Laplace transform (Abate and Whitt's Euler
algorithm) of the mixture's transform, and each quantile a root of it (Brent's method). Its
error against the exact method, over a random sample of the documented domain, is measured
by ``scripts/validate_percentiles.py`` (``results/validation_percentiles.md``).

**Narrow waits, in the time domain.** The Euler algorithm with ``M = 15`` in double
precision resolves a distribution only as narrow as a gamma of shape about 100 (of a gamma of
shape ``k``, F is within 6e-6 at ``k = 100``, 3e-4 and not monotone at ``k = 200``, 0.02 at
``k = 1,000``). Under overload with ``B`` much larger than ``T`` nearly every admitted request
waits about ``B / X_in(T)`` for a thread, a wait of shape in the thousands (the 18-processor
sizing of :mod:`queuetune.sizing` at 2× its peak: shape about 10^4; the inversion gave p99 =
83.5 s for a mean of 60.0 s). The levels ``j`` that wait whose ``W_j + H(T)`` has ``mean^2 >
FAST_SHAPE_LIMIT variance`` (100; :meth:`_Mixture.first_narrow`, the levels above it are
narrower still) are therefore taken out of the transform and evaluated in the time domain:
grouped in chunks of consecutive levels (at most :data:`NARROW_CHUNKS`, each spanning about
the standard deviation of its waits in levels, the caller's geometric block summed in closed
form), each chunk a shifted gamma distribution of its mean, variance and third central moment
(wait and ``H(T)``), its distribution function by Wilson and Hilferty's cube root. F is the
sum of the Euler inversion of the other levels and of these chunks. Why this method: the
transform of the narrow part does not factor into a wide part the inversion resolves and a
narrow one (each level's wait is narrow and the levels may spread over the whole of ``[0,
B / X_in(T)]`` near saturation), a larger ``M`` needs more than double precision (the
calculator's JavaScript has only that) and its cost grows with the square root of the shape
(10^10 levels for ``B`` up to 10^12), while the moments of every chunk are sums in closed form.
Its error against a 60-digit Talbot inversion of the same transform (``mpmath``) is 2e-4 in F
at shape 100, the worst case (``tests/models/test_passage.py``), and falls as the shape grows;
against the exact chain and the simulation see ``results/validation_percentiles.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from .._validation import as_nonnegative, as_positive, integer, real

if TYPE_CHECKING:  # SciPy is imported where the exact method needs it: the fast method (the
    # sizing's percentiles, ``python -m queuetune size``) imports NumPy only
    import scipy.sparse as sp

    from .thread_pool_chain import ThreadPoolChain

__all__ = [
    "PhaseType",
    "exact_response_time",
    "tagged_state_count",
    "arrival_distribution",
    "holding_phases",
    "fast_cdf",
    "fast_quantiles",
    "PERCENTILES",
    "SURVIVAL_TOLERANCE",
    "MAX_TAGGED_STATES",
    "MAX_UNIFORMIZATION_WORK",
]

#: The probabilities of ``response_time_p50``, ``_p95`` and ``_p99``.
PERCENTILES = (0.5, 0.95, 0.99)
#: The uniformization stops at ``s_K <= (1 - q) * SURVIVAL_TOLERANCE``.
SURVIVAL_TOLERANCE = 1e-9
#: Largest chain of a tagged request that :func:`exact_response_time` builds.
MAX_TAGGED_STATES = 2_000_000
#: Largest number of sparse multiply-adds of the uniformization (about 10 s, 2 cores).
MAX_UNIFORMIZATION_WORK = 2e9
#: A chain of at most DENSE_STATES states needing more than about DENSE_STEPS uniformization
#: steps (its largest rate times its mean) uses the dense matrix exponential instead.
DENSE_STATES = 400
DENSE_STEPS = 2_000
#: The relative tolerance of Brent's method on every quantile.
QUANTILE_RTOL = 1e-12


def _probabilities(probabilities) -> np.ndarray:
    q = np.asarray(probabilities, dtype=np.float64)
    if q.ndim > 1 or q.size == 0 or not np.all((q > 0) & (q < 1)):
        raise ValueError(f"probabilities must be numbers in (0, 1), got {probabilities!r}")
    return np.atleast_1d(q)


# --------------------------------------------------------------------------- phase type


@dataclass
class PhaseType:
    """The time to absorption of a CTMC: initial distribution ``alpha`` over the transient
    states and sub-generator ``generator`` (rows: exit rates; the absorbing state omitted)."""

    alpha: np.ndarray
    generator: sp.csr_matrix

    def __post_init__(self) -> None:
        import scipy.sparse as sp

        self.rate = float(np.max(-self.generator.diagonal())) if self.alpha.size else 1.0
        # a small chain whose rates lie far apart: the dense exponential (fewer operations
        # than the many uniformization steps)
        self._dense = (self.alpha.size <= DENSE_STATES
                       and self.rate * self.mean > DENSE_STEPS)
        if self._dense:
            self._dense_generator = self.generator.toarray()
        self._step = sp.csr_matrix(self.generator.T)  # v -> v Q, as Q^T v
        self._v = self.alpha.astype(np.float64).copy()
        self._s = [float(self._v.sum())]

    @cached_property
    def mean(self) -> float:
        """E[tau] = alpha (-Q)^-1 1, by a sparse solve."""
        import scipy.sparse as sp
        from scipy.sparse.linalg import spsolve

        ones = np.ones(self.alpha.size)
        return float(self.alpha @ spsolve(sp.csc_matrix(-self.generator), ones))

    def _extend(self, target: float) -> None:
        """Uniformization terms s_k until s_K <= target."""
        if self._dense:
            return
        nnz = self._step.nnz + self.alpha.size
        while self._s[-1] > target:
            if len(self._s) * nnz > MAX_UNIFORMIZATION_WORK:
                raise ValueError(
                    f"the response-time distribution needs more than {len(self._s)} "
                    f"uniformization steps of a {self.alpha.size}-state chain (rates far "
                    "apart): use fewer states or method='fes'")
            self._v = self._v + (self._step @ self._v) / self.rate
            np.maximum(self._v, 0.0, out=self._v)  # rounding only; P has no negative entry
            self._s.append(float(self._v.sum()))

    def survival(self, t: float) -> float:
        """P(tau > t), within the tolerance reached so far (see the module docstring): the
        Poisson terms within 15 standard deviations (and 30 terms) of the mean ``Lambda t``,
        the mass below them counted as survival 1 and above them as ``s_K`` (each below
        1e-40)."""
        from scipy.linalg import expm
        from scipy.stats import poisson

        if t <= 0:
            return float(self._s[0])
        if self._dense:
            return float(max((self.alpha @ expm(self._dense_generator * t)).sum(), 0.0))
        mu = self.rate * t
        spread = 15.0 * math.sqrt(mu) + 30.0
        last = len(self._s) - 1
        lo = max(0, int(mu - spread))
        hi = min(last, int(mu + spread))
        if lo > last:
            return float(self._s[-1])
        k = np.arange(lo, hi + 1)
        s = np.asarray(self._s[lo:hi + 1])
        below = poisson.cdf(lo - 1, mu) if lo > 0 else 0.0
        return float(poisson.pmf(k, mu) @ s + poisson.sf(hi, mu) * s[-1] + below)

    def cdf(self, t: float) -> float:
        return 1.0 - self.survival(t)

    def quantile(self, probability: float) -> float:
        """The ``probability`` quantile of tau (see the module docstring for its error)."""
        q = float(_probabilities(probability)[0])
        self._extend((1.0 - q) * SURVIVAL_TOLERANCE)
        target = 1.0 - q
        high = max(self.mean if self.alpha.size < 200_000 else 1.0 / self.rate, 1e-300)
        while self.survival(high) > target:
            high *= 2.0
        from scipy.optimize import brentq

        return float(brentq(lambda t: self.survival(t) - target, 0.0, high,
                            rtol=QUANTILE_RTOL, xtol=1e-300, maxiter=500))

    def quantiles(self, probabilities: Sequence[float]) -> np.ndarray:
        q = _probabilities(probabilities)
        self._extend((1.0 - float(q.max())) * SURVIVAL_TOLERANCE)
        return np.array([self.quantile(v) for v in q])


# --------------------------------------------------------------------------- exact


def tagged_state_count(*, top: int, threads: int, connections: int, two_phases: bool,
                       has_cpu: bool, batch: bool = False) -> int:
    """An upper bound on the transient states of the tagged request's chain (those reached are
    built), computed with Python integers before anything is allocated."""
    T, N, C = threads, top, connections
    c_range = T + 1 if two_phases else 1
    Q = max(N - T, 0)
    if batch:
        waiting = c_range * Q
    else:
        waiting = c_range * Q * (Q + 1) // 2
    processing = 0
    if has_cpu:
        for_levels = (N if not batch else 1)
        processing = (min(N, T) + 1) * for_levels if two_phases else for_levels
    pool = (max(T - C, 0) + 1) if not has_cpu or two_phases else 0
    return waiting + processing + pool


def exact_response_time(chain: ThreadPoolChain, stationary: np.ndarray, **arguments
                        ) -> PhaseType:
    """The response time of an admitted request as a :class:`PhaseType`.

    ``chain`` and ``stationary`` are the chain of :func:`.thread_pool_chain.build_chain` built
    with ``arguments`` (the same keyword arguments) and its stationary distribution.
    """
    from .thread_pool_chain import _server

    s = _server(arguments.get("clients"), arguments["capacity"], arguments["threads"],
                arguments["cpu_time"], arguments["wait_time"], arguments.get("think_time"),
                arguments.get("arrival_rate"), arguments.get("processors", 1),
                arguments.get("connections"), arguments.get("thread_overhead", 0.0),
                arguments.get("pool_overhead", 0.0))
    has_cpu, has_wait = s.cpu > 0, s.wait > 0
    size = tagged_state_count(top=s.top, threads=s.T, connections=s.C,
                              two_phases=has_cpu and has_wait, has_cpu=has_cpu, batch=s.batch)
    if size > MAX_TAGGED_STATES:
        raise ValueError(f"the tagged request's chain has {size} states, too large: it must "
                         f"have at most MAX_TAGGED_STATES = {MAX_TAGGED_STATES}")
    return _Tagged(s, has_cpu, has_wait).phase_type(chain, np.asarray(stationary, float))


class _Tagged:
    """The transient states and rates of a tagged request (see the module docstring)."""

    def __init__(self, s, has_cpu: bool, has_wait: bool) -> None:
        self.s, self.has_cpu, self.has_wait = s, has_cpu, has_wait
        self.index: dict[tuple, int] = {}
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.vals: list[float] = []
        self.exit: list[float] = []

    # states are numbered on first sight, and explored breadth first from the initial ones
    def _id(self, state: tuple) -> int:
        i = self.index.get(state)
        if i is None:
            i = len(self.index)
            self.index[state] = i
            self._todo.append(state)
        return i

    def _cpu_time(self, busy: int) -> float:
        s = self.s
        return s.cpu * (1.0 + s.theta * (busy - 1.0)) * (1.0 + s.phi * s.T)

    def _to_pool(self, others_past_cpu: int) -> tuple:
        """Where the tagged request goes when it leaves the processor phase."""
        if others_past_cpu < self.s.C:
            return ("S",)
        return ("Q", others_past_cpu - self.s.C)

    def _arrive(self, n: int, c: int) -> tuple:
        """Where an admitted arrival that finds ``n`` admitted, ``c`` in the processor phase,
        is put."""
        T = self.s.T
        if n < T:
            return ("P", n + 1, c + 1) if self.has_cpu else self._to_pool(n)
        return ("W", c, n - T, 0)

    def _after_departure(self, state: tuple) -> tuple:
        """A batch population refills at once: an arrival joins the state ``state`` left by
        a departure (n one lower)."""
        if not self.s.batch:
            return state
        T = self.s.T
        if state[0] == "W":
            _, c, j, b = state
            return ("W", c, j, b + 1)
        _, n, c = state
        return ("P", n + 1, c + 1 if (n < T and self.has_cpu) else c)

    def _moves(self, state: tuple):
        """(rate, target) of every transition out of ``state``; target None is the
        departure of the tagged request."""
        s, T, p, C = self.s, self.s.T, self.s.p, self.s.C
        kind = state[0]
        if kind == "S":
            yield 1.0 / s.wait, None
            return
        if kind == "Q":
            k = state[1]
            yield C / s.wait, ("S",) if k == 0 else ("Q", k - 1)
            return
        if kind == "W":
            _, c, j, b = state
            n = T + j + 1 + b
            if n < s.top and not s.batch:
                yield s.birth[n], ("W", c, j, b + 1)
            if self.has_cpu and c >= 1:
                rate = min(c, p) / self._cpu_time(T)
                if self.has_wait:
                    yield rate, ("W", c - 1, j, b)
                elif j >= 1:
                    yield rate, self._after_departure(("W", c, j - 1, b))
                else:
                    yield rate, self._after_departure(("P", n - 1, c))
            w = T - c
            if self.has_wait and w >= 1:
                rate = min(w, C) / s.wait
                c_next = c + 1 if self.has_cpu else c
                if j >= 1:
                    yield rate, self._after_departure(("W", c_next, j - 1, b))
                elif self.has_cpu:
                    yield rate, self._after_departure(("P", n - 1, c + 1))
                else:
                    # the batch refill joins the queue behind it: it changes nothing ahead
                    yield rate, self._to_pool(T - 1)
            return
        _, n, c = state  # "P": the tagged request is in the processor phase
        a = min(n, T)
        q, w = n - a, a - c
        if n < s.top and not s.batch:
            yield s.birth[n], ("P", n + 1, c + 1 if a < T else c)
        share = min(c, p) / c / self._cpu_time(a)
        yield share, self._to_pool(w) if self.has_wait else None
        if c >= 2:
            rate = share * (c - 1)
            if self.has_wait:
                yield rate, ("P", n, c - 1)
            else:
                yield rate, self._after_departure(("P", n - 1, c if q > 0 else c - 1))
        if self.has_wait and w >= 1:
            yield min(w, C) / s.wait, self._after_departure(("P", n - 1, c + 1 if q > 0
                                                               else c))

    def _initial(self, chain: ThreadPoolChain, pi: np.ndarray) -> dict[tuple, float]:
        """Where admitted arrivals put the tagged request, with their weights."""
        s = self.s
        start: dict[tuple, float] = {}
        if not s.batch:
            n, c = chain.level, chain.on_cpu
            keep = n < s.top
            weights = pi[keep] * s.birth[n[keep]]
            for level, cpu, weight in zip(n[keep], c[keep], weights, strict=True):
                key = self._arrive(int(level), int(cpu))
                start[key] = start.get(key, 0.0) + float(weight)
            return start
        # batch: the departure flux into level K - 1, then the arrival that refills it
        T = s.T
        for level, cpu, weight in zip(chain.level, chain.on_cpu, pi, strict=True):
            n, c = int(level), int(cpu)
            a = min(n, T)
            q, w = n - a, a - c
            flows = []
            if self.has_cpu and not self.has_wait and c >= 1:
                flows.append((min(c, s.p) / self._cpu_time(a), c if q > 0 else c - 1))
            if self.has_wait and w >= 1:
                flows.append((min(w, s.C) / s.wait, c + 1 if (q > 0 and self.has_cpu) else c))
            for rate, c_after in flows:
                key = self._arrive(n - 1, c_after)
                start[key] = start.get(key, 0.0) + float(weight) * rate
        return start

    def phase_type(self, chain: ThreadPoolChain, pi: np.ndarray) -> PhaseType:
        start = self._initial(chain, pi)
        self._todo: list[tuple] = []
        for key in start:
            self._id(key)
        while self._todo:
            state = self._todo.pop()
            i = self.index[state]
            out = 0.0
            for rate, target in self._moves(state):
                if rate <= 0:
                    continue
                out += rate
                if target is None or target == state:
                    if target == state:
                        out -= rate
                    continue
                self.rows.append(i)
                self.cols.append(self._id(target))
                self.vals.append(rate)
            self.exit.append((i, out))
        size = len(self.index)
        diag_rows = [i for i, _ in self.exit]
        diag_vals = [-out for _, out in self.exit]
        import scipy.sparse as sp

        generator = sp.csr_matrix(
            (np.array(self.vals + diag_vals), (np.array(self.rows + diag_rows, dtype=np.int64),
                                               np.array(self.cols + diag_rows, dtype=np.int64))),
            shape=(size, size))
        alpha = np.zeros(size)
        for key, weight in start.items():
            alpha[self.index[key]] = weight
        total = alpha.sum()
        if not total > 0:
            raise ValueError("no request is admitted in this configuration (every arrival "
                             "finds the server full)")
        return PhaseType(alpha / total, generator)


# --------------------------------------------------------------------------- fast


def arrival_distribution(levels, *, clients: int | None = None) -> np.ndarray:
    """What an admitted arrival finds: ``a(n)``, ``n = 0..N-1``, from the stationary
    distribution ``levels`` = ``pi(n)``, ``n = 0..N`` (``N`` the most admitted: level ``N`` is
    full and refuses). Open (``clients=None``): ``a(n) = pi(n) / (1 - pi(N))``. Closed
    (``clients=K``): ``a(n)`` proportional to ``(K - n) pi(n)`` (the arrival theorem); a batch
    population (``pi`` all at ``N = K``, every weight 0) arrives after a departure: ``a(K-1)=1``.
    """
    pi = np.asarray(levels, dtype=np.float64)
    if pi.ndim != 1 or pi.size < 2 or not np.all(np.isfinite(pi) & (pi >= 0)):
        raise ValueError("levels must be a 1-d array of at least 2 probabilities >= 0")
    n = np.arange(pi.size - 1)
    weights = pi[:-1] * (1.0 if clients is None else np.maximum(clients - n, 0))
    total = weights.sum()
    if total > 0:
        return weights / total
    if clients is not None and clients == pi.size - 1:
        out = np.zeros(pi.size - 1)
        out[-1] = 1.0
        return out
    raise ValueError("levels must leave some arrival admitted (all the weight is on the full "
                     "level)")


def _sakasegawa(throughput, service, servers, holders) -> np.ndarray:
    """Approximate mean wait of an M/M/k queue (k = ``servers``) at ``throughput``; 0 where
    ``holders <= servers`` (no one waits) or ``service == 0``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        u = np.minimum(throughput * service / servers, 1.0)
        idle = np.maximum(1.0 - u, 1e-300)
        wait = service * u ** (np.sqrt(2.0 * (servers + 1.0)) - 1.0) / (servers * idle)
    return np.where((holders <= servers) | (service == 0), 0.0, wait)


def holding_phases(*, holders_throughput, cpu_time, wait_time, processors, connections,
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``(r_c(m), k(m))`` for ``m = 0..M``, ``M = len(holders_throughput) - 1`` (entry 0
    unused, 0): the mean of the processor phase of the holding time and the mean number of
    releases of a connection waited for (see the module docstring). ``connections`` None: no
    pool (no wait for a connection). ``cpu_time`` may be an array over ``m`` (the processor
    time with ``m`` busy threads)."""
    x = np.asarray(holders_throughput, dtype=np.float64)
    m = np.arange(x.size, dtype=np.float64)
    s_c = np.broadcast_to(np.asarray(cpu_time, dtype=np.float64), x.shape)
    s_w = float(wait_time)
    with np.errstate(divide="ignore", invalid="ignore"):
        holding = np.where(m > 0, m / x, 0.0)
    delay = np.maximum(holding - s_c - s_w, 0.0)
    d_c = _sakasegawa(x, s_c, float(processors), m)
    d_w = (np.zeros_like(x) if connections is None or s_w == 0
           else _sakasegawa(x, s_w, float(connections), m))
    total = d_c + d_w
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(total > 0, d_c / total, np.where(s_c > 0, 1.0, 0.0))
    share = np.where((s_w == 0) | (connections is None), 1.0, np.where(s_c == 0, 0.0, share))
    r_c = np.where(m > 0, s_c + delay * share, 0.0)
    pool_wait = np.where(m > 0, np.maximum(holding - r_c - s_w, 0.0), 0.0)
    releases = (np.zeros_like(x) if connections is None or s_w == 0
                else pool_wait * float(connections) / s_w)
    return r_c, releases


# Abate and Whitt's Euler algorithm (2006, "A unified framework for numerically inverting
# Laplace transforms"): f(t) ~ (10^(M/3) / t) sum_k eta_k Re fhat(beta_k / t).
_EULER_M = 15


def _euler_nodes(M: int = _EULER_M) -> tuple[np.ndarray, np.ndarray]:
    k = np.arange(2 * M + 1)
    beta = M * math.log(10.0) / 3.0 + 1j * math.pi * k
    xi = np.ones(2 * M + 1)
    xi[0] = 0.5
    xi[2 * M] = 2.0 ** -M
    for j in range(1, M):
        xi[2 * M - j] = xi[2 * M - j + 1] + 2.0 ** -M * math.comb(M, j)
    eta = 10.0 ** (M / 3.0) * (-1.0) ** k * xi
    return beta, eta


_BETA, _ETA = _euler_nodes()


def _holding_transform(s: np.ndarray, r_c, releases, wait_time: float, release_time: float
                       ) -> np.ndarray:
    """E[exp(-s H)] of the holding time: an exponential processor phase of mean ``r_c``,
    then ``releases`` exponential releases of a connection of mean ``release_time`` (a
    non-integer ``k``: ``floor(k)`` of them, and one more with probability ``k - floor(k)``),
    then the exponential wait of mean ``wait_time``."""
    out = 1.0 / ((1.0 + s * r_c) * (1.0 + s * wait_time))
    if release_time > 0 and np.any(releases > 0):
        waits = np.asarray(releases > 0)
        z = 1.0 / (1.0 + s * release_time)
        whole = np.floor(releases)
        part = releases - whole
        if waits.ndim == 0:
            return out * np.exp(whole * np.log(z)) * (1.0 - part + part * z)
        z = z[:, :1] if z.ndim == 2 else z
        pool = np.exp(whole[waits] * np.log(z)) * (1.0 - part[waits] + part[waits] * z)
        out[:, waits] *= pool
    return out


@dataclass(frozen=True)
class _Mixture:
    """The fast method's response time: holding phases of each arrival level, and the wait."""

    weight: np.ndarray  # a(n) of the levels that do not wait
    r_c: np.ndarray  # their processor phase ...
    releases: np.ndarray  # ... and releases of a connection waited for
    wait_weight: np.ndarray  # a(T + j), j = 0..
    rate: float  # X_in(T)
    shape: float  # 1 / SCV of the time between releases of a thread
    wait_r_c: float  # the holding of those who waited for a thread
    wait_releases: float
    wait_time: float  # s_w
    release_time: float  # s_w / C (0: no pool)
    tail_start: int = 0  # j0: wait_weight[j0:] is geometric, ratio tail_ratio
    tail_ratio: float = 0.0
    # a geometric block given by the caller past the explicit waits (``tail_ratio=`` of
    # :func:`fast_quantiles`): log of its first weight, ratio, and number of levels (inf: r < 1)
    block_log_first: float | None = None
    block_ratio: float = 0.0
    block_length: float = 0.0

    @property
    def mean(self) -> float:
        j = np.arange(self.wait_weight.size)
        waiting = float(self.wait_weight.sum())
        queue = float((self.wait_weight * (j + 1)).sum()) / self.rate if waiting else 0.0
        if self.block_log_first is not None:
            log_s0, index = geometric_sums(math.log(self.block_ratio), self.block_length - 1)
            count = math.exp(self.block_log_first + log_s0)
            waiting += count
            queue += count * (self.wait_weight.size + 1 + index) / self.rate
        held = self.r_c + self.wait_time + self.releases * self.release_time
        return (float((self.weight * held).sum()) + queue + waiting * (
            self.wait_r_c + self.wait_time + self.wait_releases * self.release_time))

    def transform(self, s: np.ndarray) -> np.ndarray:
        """E[exp(-s R)] at the complex points ``s``."""
        on = np.flatnonzero(self.weight)
        held = (self.weight[on] * _holding_transform(s[:, None], self.r_c[on],
                                                     self.releases[on], self.wait_time,
                                                     self.release_time)).sum(axis=1)
        if self.wait_weight.size == 0 and self.block_log_first is None:
            return held
        # sum_j a_j z^(j+1), z = (1 + s / (X_in(T) shape))^-shape (|z| < 1): the terms before
        # the geometric tail one by one, the tail a_j0 r^(j - j0) (j = j0..J-1) summed in
        # closed form, a_j0 z^(j0+1) (1 - (r z)^L) / (1 - r z), L = J - j0
        log_z = -self.shape * np.log1p(s / (self.rate * self.shape))
        head = self.wait_weight[:self.tail_start]
        j = np.flatnonzero(head)  # the levels the negligible ones dropped leave
        if j.size and float(log_z.real.min()) * (j[-1] + 1.0) > -600.0:
            # z^(j+1) on the levels lo..hi as z^(lo+1) z^(b u) z^v, v < b = ceil(sqrt(n)):
            # two small tables and their products (no underflow: |z|^(hi+1) > e^-600)
            lo, hi = int(j[0]), int(j[-1])
            n = hi - lo + 1
            b = math.isqrt(n - 1) + 1
            fine = np.exp(log_z[:, None] * np.arange(b))
            coarse = np.exp(log_z[:, None] * (lo + 1.0 + b * np.arange(-(-n // b))))
            power = (coarse[:, :, None] * fine[:, None, :]).reshape(log_z.size, -1)[:, :n]
            poly = (power * head[lo:hi + 1]).sum(axis=1)  # (complex @ real is far slower)
        else:
            power = log_z[:, None] * (j[None, :] + 1.0)
            # |z^(j+1)| below e^-700 counts as 0: subnormal numbers slow the sum a hundredfold
            small = power.real < -700.0
            power = np.exp(np.where(small, 0.0, power))
            power[small] = 0.0
            poly = (power * head[j]).sum(axis=1)
        length = self.wait_weight.size - self.tail_start
        if length:
            rz = self.tail_ratio * np.exp(log_z)
            first = self.wait_weight[self.tail_start] * np.exp(log_z * (self.tail_start + 1))
            poly = poly + first * -np.expm1(length * np.log(rz)) / (1.0 - rz)
        if self.block_log_first is not None:
            poly = poly + self._block(log_z)
        return held + poly * _holding_transform(s, self.wait_r_c, self.wait_releases,
                                                self.wait_time, self.release_time)

    def _block(self, log_z: np.ndarray) -> np.ndarray:
        """sum_{i<L} a_0 r^i z^(J+i+1) of the caller's geometric block (``J`` explicit waits
        before it, ``L`` its length): ``a_0 z^(J+1) (e^(L w) - 1) / (e^w - 1)``, ``w = log r +
        log z``, written ``e^(L w) (1 - e^(-L w)) / (e^w - 1)`` where ``Re(L w) > 0`` (``r > 1``:
        the weights grow toward B) so that nothing overflows, and ``-1 / (e^w - 1)`` for
        ``L`` infinite (``r < 1``)."""
        w = math.log(self.block_ratio) + log_z
        lead = self.block_log_first + (self.wait_weight.size + 1) * log_z
        length = self.block_length
        if math.isinf(length):
            return np.exp(lead) * -1.0 / np.expm1(w)
        lw = length * w
        grows = lw.real > 0
        out = np.empty_like(w)
        out[grows] = (np.exp(lead[grows] + lw[grows]) * -np.expm1(-lw[grows])
                      / np.expm1(w[grows]))
        out[~grows] = np.exp(lead[~grows]) * np.expm1(lw[~grows]) / np.expm1(w[~grows])
        return out

    def _holding_moments(self) -> tuple[float, float]:
        """Mean and variance of ``H(T)``, the holding time of those who waited for a thread
        (its phases as in :func:`_holding_transform`)."""
        whole = math.floor(self.wait_releases)
        part = self.wait_releases - whole
        m = self.wait_r_c + self.wait_time + self.wait_releases * self.release_time
        v = (self.wait_r_c ** 2 + self.wait_time ** 2
             + (self.wait_releases + part * (1.0 - part)) * self.release_time ** 2)
        return m, v

    def _holding_skew(self) -> float:
        """The third central moment of ``H(T)``: ``2 theta^3`` per exponential phase, and
        ``theta^3 (6 f - 6 f^2 + 2 f^3)`` for the release waited for with probability ``f``."""
        whole = math.floor(self.wait_releases)
        f = self.wait_releases - whole
        return (2.0 * self.wait_r_c ** 3 + 2.0 * self.wait_time ** 3
                + (2.0 * whole + 6.0 * f - 6.0 * f * f + 2.0 * f ** 3) * self.release_time ** 3)

    def first_narrow(self) -> float:
        """The first level ``j`` that waits for a thread whose response time ``W_j + H(T)`` has
        ``mean^2 > FAST_SHAPE_LIMIT variance`` (the shape of a gamma of the same coefficient of
        variation above the limit; the levels above it are narrower still). With ``y = (j +
        1) / X_in(T)``, ``m`` and ``v`` the mean and variance of ``H(T)`` and ``K`` the limit,
        that is ``(y + m)^2 > K (y / (X_in(T) g) + v)``: ``y`` above the larger root of ``y^2 +
        (2 m - K / (X_in(T) g)) y + m^2 - K v`` (every level when ``m^2 >= K v``, a holding
        time that narrow alone). Capped at the number of waiting levels."""
        m, v = self._holding_moments()
        b = 2.0 * m - FAST_SHAPE_LIMIT / (self.rate * self.shape)
        c = m * m - FAST_SHAPE_LIMIT * v
        if c >= 0:
            first = 0
        else:  # the first j with j + 1 > X_in(T) y+
            first = math.floor(self.rate * (-b + math.sqrt(b * b - 4.0 * c)) / 2.0)
        block = 0.0 if self.block_log_first is None else self.block_length
        return float(min(first, self.wait_weight.size + block))

    def unresolved(self) -> float:
        """The weight of the levels from :meth:`first_narrow` on: explicit levels, then the
        caller's geometric block in closed form. These are the waits the Euler inversion does
        not resolve; :meth:`cdf` evaluates them in the time domain (:func:`_narrow_chunks`)."""
        first = self.first_narrow()
        out = float(self.wait_weight[int(min(first, self.wait_weight.size)):].sum())
        if self.block_log_first is not None:
            start = max(0.0, first - self.wait_weight.size)  # its index i within the block
            if start < self.block_length:
                log_r = math.log(self.block_ratio)
                log_s0, _ = geometric_sums(log_r, self.block_length - 1 - start)
                out += math.exp(self.block_log_first + start * log_r + log_s0)
        return out

    @cached_property
    def _split(self) -> tuple[_Mixture, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(the mixture without its narrow levels, and the narrow levels' chunks: weights,
        shifts, gamma shapes and means), see :func:`_narrow_chunks`."""
        first = self.first_narrow()
        explicit = self.wait_weight.size
        if first >= explicit + (0.0 if self.block_log_first is None else self.block_length):
            return self, *(np.zeros(0),) * 4
        if first < explicit:
            keep = int(first)
            resolved = replace(self, wait_weight=self.wait_weight[:keep],
                               tail_start=min(self.tail_start, keep),
                               block_log_first=None, block_ratio=0.0, block_length=0.0)
        else:
            length = first - explicit
            resolved = (replace(self, block_length=length) if length > 0 else
                        replace(self, block_log_first=None, block_ratio=0.0, block_length=0.0))
        return resolved, *_narrow_chunks(self, first)

    def _euler(self, t: float) -> float:
        s = _BETA / t
        return float(np.real(_ETA * self.transform(s) / s).sum()) / t

    def cdf(self, t: float) -> float:
        """P(R <= t): the Euler inversion of the levels it resolves, and the narrow waits
        (from :meth:`first_narrow` on) in the time domain, each chunk a shifted gamma
        distribution with their mean, variance and third moment (:func:`_narrow_chunks`)."""
        if t <= 0:
            return 0.0
        resolved, weight, shift, shape, mean = self._split
        value = resolved._euler(t)
        if weight.size:
            value += _gamma_mixture_cdf(t, weight, shift, shape, mean)
        return min(max(value, 0.0), 1.0)


#: The narrow waits are evaluated in at most this many chunks of consecutive levels (each
#: level's wait a gamma; a chunk is one gamma of their mean and variance).
NARROW_CHUNKS = 256
#: Levels of a geometric block farther than this (in log of the weight) from its heaviest end
#: weigh below e^-40 of it (4e-18) and are left out of the chunks.
BLOCK_SPAN = 40.0


#: Above this shape the gamma distribution function is Wilson and Hilferty's cube root
#: (error below 6e-5 in F, 6e-6 from shape 1,000), at or below it the series or continued
#: fraction (a few hundred terms in pure Python: the cube root keeps a sizing's narrow rows
#: at a few milliseconds each).
CUBE_ROOT_SHAPE = 100.0


def _gamma_cdf(k: float, x: float) -> float:
    """P(k, x), the regularized lower incomplete gamma function (a gamma of shape ``k`` and
    scale 1 at ``x``). Up to :data:`CUBE_ROOT_SHAPE`: its series (``x < k + 1``) or the
    continued fraction of ``Q`` by Lentz's method (Press et al., *Numerical Recipes*, 6.2),
    each to 1e-13 in at most a few hundred terms; above it Wilson and Hilferty's cube root
    ``Phi(3 sqrt(k) ((x / k)^(1/3) - 1 + 1 / (9 k)))``, within 6e-5 of it (largest just above
    the switch, below the chunks' own error of 2e-4) and in constant time for the shapes to
    10^10 of a bound of 10^12 (tests/models/test_passage.py
    measures both against SciPy's ``gammainc``). Hand-written rather than SciPy's
    ``gammainc``: importing ``scipy.special`` takes 0.4 to 0.6 s, the whole budget of
    ``python -m queuetune size``; and the calculator's JavaScript follows it step by step."""
    if x <= 0:
        return 0.0
    if k > CUBE_ROOT_SHAPE:
        z = 3.0 * math.sqrt(k) * (math.cbrt(x / k) - 1.0 + 1.0 / (9.0 * k))
        return 0.5 * math.erfc(-z / math.sqrt(2.0))
    log_front = k * math.log(x) - x - math.lgamma(k)
    if x < k + 1.0:
        ap, term = k, 1.0 / k
        total = term
        for _ in range(_GAMMA_TERMS):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return min(total * math.exp(log_front), 1.0)
    b = x + 1.0 - k
    c, d = 1e300, 1.0 / b
    h = d
    for i in range(1, _GAMMA_TERMS):
        an = -i * (i - k)
        b += 2.0
        d = an * d + b
        d = d if abs(d) > 1e-300 else 1e-300
        c = b + an / c
        c = c if abs(c) > 1e-300 else 1e-300
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return max(1.0 - math.exp(log_front) * h, 0.0)


_GAMMA_TERMS = 2000


def _gamma_mixture_cdf(t: float, weight, shift, shape, mean) -> float:
    """sum_c w_c P(d_c + Gamma(k_c, mean m_c) <= t), each by :func:`_gamma_cdf`."""
    total = 0.0
    for w, d, k, m in zip(weight, shift, shape, mean, strict=True):
        if t > d:
            total += w * _gamma_cdf(k, (t - d) * k / m)
    return total


def _chunk_bounds(lo: float, hi: float, spread: int, *, from_top: bool) -> list[tuple]:
    """Chunks of ``[lo, hi)`` of ``spread * 2^m`` levels (``m`` the smallest that makes at
    most :data:`NARROW_CHUNKS`), laid from the heavier end (``from_top``: from ``hi`` down),
    so that the same weights given level by level or as a geometric block make the same
    chunks."""
    n = hi - lo
    step = spread
    while n / step > NARROW_CHUNKS:
        step *= 2
    count = math.ceil(n / step)
    if from_top:
        return [(max(lo, hi - (c + 1) * step), hi - c * step) for c in range(count)]
    return [(lo + c * step, min(hi, lo + (c + 1) * step)) for c in range(count)]


def _narrow_chunks(mix: _Mixture, first: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The waiting levels ``j >= first`` as chunks of consecutive levels: each chunk's weight
    and the mean and gamma shape (mean^2 / variance) of its response time ``W + H(T)``.

    Level ``j`` waits ``W_j``, a gamma of mean ``(j + 1) / X`` and variance ``(j + 1) / (X^2
    g)``; a chunk with level weights ``a_j`` has the mean ``E[j + 1] / X + m_H`` and the
    variance ``(E[j + 1] / g + Var j) / X^2 + v_H`` (``m_H``, ``v_H`` of ``H(T)``). A chunk
    spans ``floor(s) 2^m`` levels (:func:`_chunk_bounds`), ``s = sqrt((first + 1) / g)`` the
    standard deviation of the narrowest wait in levels: its own spread (``< s / sqrt(12)``
    in levels when ``m = 0``) adds at most a twelfth to the variance of its waits. Explicit
    levels are summed, the caller's geometric block in closed form
    (:func:`geometric_moments`), over the levels within :data:`BLOCK_SPAN` of the heaviest
    weight (explicit levels: those within ``e^-40`` of it)."""
    x_rate, g = mix.rate, mix.shape
    m_h, v_h = mix._holding_moments()
    spread = max(1, math.floor(math.sqrt((first + 1.0) / g)))
    weights, level, variance = [], [], []
    explicit = mix.wait_weight.size
    if first < explicit:
        a = mix.wait_weight
        heavy = np.flatnonzero(a[int(first):] >= math.exp(-BLOCK_SPAN) * a[int(first):].max())
        lo, hi = int(first) + int(heavy[0]), int(first) + int(heavy[-1]) + 1
        j1 = np.arange(lo, hi, dtype=np.float64) + 1.0
        part = a[lo:hi]
        starts = np.array(sorted(start for start, _ in _chunk_bounds(
            lo, hi, spread, from_top=a[hi - 1] >= a[lo]))) - lo
        w = np.add.reduceat(part, starts)
        on = w > 0
        safe = np.where(on, w, 1.0)
        mean = np.add.reduceat(part * j1, starts) / safe
        each = np.repeat(mean, np.diff(np.append(starts, hi - lo)))  # its chunk's mean
        dev = np.add.reduceat(part * (j1 - each) ** 2, starts) / safe
        weights += w[on].tolist()
        level += mean[on].tolist()
        variance += dev[on].tolist()
    if mix.block_log_first is not None:
        i0 = max(0.0, first - explicit)
        end = mix.block_length
        log_r = math.log(mix.block_ratio)
        if log_r > 0 and (end - i0) * log_r > BLOCK_SPAN:
            i0 = end - math.ceil(BLOCK_SPAN / log_r)
        elif log_r < 0 and (end - i0) * -log_r > BLOCK_SPAN:
            end = i0 + math.ceil(BLOCK_SPAN / -log_r)
        for start, stop in _chunk_bounds(i0, end, spread, from_top=log_r >= 0):
            log_s0, mean_i, var_i = geometric_moments(log_r, stop - start)
            w = math.exp(mix.block_log_first + start * log_r + log_s0)
            if w > 0:
                weights.append(w)
                level.append(explicit + start + mean_i + 1.0)
                variance.append(var_i)
    w = np.asarray(weights, dtype=np.float64)
    j1 = np.asarray(level, dtype=np.float64)
    spread_j = np.asarray(variance, dtype=np.float64)
    mean = j1 / x_rate + m_h
    var = (j1 / g + spread_j) / x_rate ** 2 + v_h
    # third central moment: the waits' 2 E[j + 1] / (X^3 g^2), the covariance of their variance
    # with their mean 3 Var(j) / (X^3 g), and H(T)'s (the chunk's own third moment in j, small
    # within a chunk, is left out)
    third = (2.0 * j1 / g ** 2 + 3.0 * spread_j / g) / x_rate ** 3 + mix._holding_skew()
    # the shifted gamma of these three moments: shape 4 / skewness^2 = 4 var^3 / third^2,
    # scale third / (2 var), mean 2 var^2 / third
    shape = 4.0 * var ** 3 / third ** 2
    gamma_mean = 2.0 * var * var / third
    return w, mean - gamma_mean, shape, gamma_mean


#: The Euler inversion (M = 15, double precision) of a gamma distribution of shape k: its
#: largest error in F is 6e-6 at k = 100, 3e-4 (and F not monotone) at k = 200, 0.02 at
#: k = 1,000. A level whose response time has a squared coefficient of variation below
#: 1 / FAST_SHAPE_LIMIT (that of a gamma of shape above it) is evaluated in the time domain.
FAST_SHAPE_LIMIT = 100.0

#: Arrival levels of weight below this (relative to the largest) are dropped by the fast method.
FAST_NEGLIGIBLE = 1e-16


def _mixture(arrivals, holders_throughput, threads, cpu_time, wait_time, processors,
             connections, tail_ratio=None, tail_length=0) -> _Mixture:
    a = np.asarray(arrivals, dtype=np.float64)
    if a.ndim != 1 or a.size == 0 or not np.all(np.isfinite(a) & (a >= 0)) or a.sum() <= 0:
        raise ValueError("arrivals must be a 1-d array of weights >= 0, not all 0")
    block = None
    if tail_ratio is not None and tail_length and a[-1] > 0:
        block = _block(a, threads, tail_ratio, tail_length)
        a, log_first, largest = block
        a = np.where(a >= FAST_NEGLIGIBLE * largest, a, 0.0)
    else:
        a = a / a.sum()
        a = np.where(a >= FAST_NEGLIGIBLE * a.max(), a, 0.0)
        last = int(np.flatnonzero(a)[-1])
        a = a[:last + 1] / a[:last + 1].sum()
    threads = None if threads is None else integer(threads, "threads", low=1)
    processors = integer(processors, "processors", low=1)
    connections = None if connections is None else integer(connections, "connections", low=1)
    wait_time = real(wait_time, "wait_time", low=0.0)
    x = np.asarray(as_positive(np.asarray(holders_throughput, float)[1:], "holders_throughput"))
    x = np.concatenate([[0.0], x])
    T = a.size if threads is None else int(threads)
    top = min(T, a.size)  # the largest holder count reached
    need = np.minimum(np.arange(top + 1), x.size - 1)
    x = x[need]  # X_in(0..top), past the array's end its last value (converged)
    cpu = np.asarray(as_nonnegative(cpu_time, "cpu_time"), dtype=np.float64)
    if cpu.ndim:
        cpu = cpu[np.minimum(np.arange(top + 1), cpu.size - 1)]
    r_c, releases = holding_phases(holders_throughput=x, cpu_time=cpu, wait_time=wait_time,
                                   processors=processors, connections=connections)
    free = min(T, a.size)
    m = np.arange(free) + 1
    wait_weight = a[T:] if T < a.size else np.zeros(0)
    full = min(T, top)
    release = 0.0 if connections is None else float(wait_time) / connections
    return _Mixture(weight=a[:free], r_c=r_c[m], releases=releases[m],
                    wait_weight=wait_weight, rate=float(x[full]),
                    shape=_release_shape(float(r_c[full]), float(releases[full]),
                                         float(wait_time), release, full),
                    wait_r_c=float(r_c[full]),
                    wait_releases=float(releases[full]), wait_time=float(wait_time),
                    release_time=release,
                    **(_geometric_tail(wait_weight) if block is None else
                       {"tail_start": wait_weight.size, "block_log_first": log_first,
                        "block_ratio": float(tail_ratio),
                        "block_length": float(tail_length) + 1.0}))


def _block(a: np.ndarray, threads, ratio, length) -> tuple[np.ndarray, float, float]:
    """The arrivals ``a`` (their last entry ``a[-1]``, at a level ``>= threads``, followed by
    ``length`` more of ratio ``ratio``) normalized with the geometric block in logarithms:
    ``(a[:-1] / total, log(a[-1] / total), the largest weight)``."""
    r = real(ratio, "tail_ratio", low=0.0, low_open=True)
    length = math.inf if length == math.inf else integer(length, "tail_length", low=0)
    if threads is None or a.size - 1 < int(threads):
        raise ValueError("a geometric tail (tail_ratio=) needs threads= and arrivals up to the "
                         "level threads at least: its levels wait for a thread")
    if math.isinf(length) and not r < 1.0:
        raise ValueError(f"an infinite geometric tail needs tail_ratio < 1, got {r!r}")
    log_s0, _ = geometric_sums(math.log(r), length)  # sum_{i=0}^{length} r^i
    log_block = math.log(a[-1]) + log_s0
    head = float(a[:-1].sum())
    log_total = log_block if head == 0 else float(np.logaddexp(math.log(head), log_block))
    log_first = math.log(a[-1]) - log_total
    top = log_first + (0.0 if r <= 1.0 else length * math.log(r))
    out = a[:-1] * math.exp(-log_total)
    largest = max(float(out.max()) if out.size else 0.0, math.exp(top))
    return out, log_first, largest


def geometric_sums(log_r: float, n: float) -> tuple[float, float]:
    """(log S0, S1/S0) of S0 = sum_{j=0}^{n} r^j, S1 = sum j r^j (n may be inf when r < 1),
    ``log_r = log r``: the one home of this sum (:mod:`queuetune.sizing`'s chain uses it)."""
    x = log_r
    if n == 0:
        return 0.0, 0.0
    if math.isinf(n):
        return -math.log(-math.expm1(x)), 1.0 / math.expm1(-x)
    if abs(x) * (n + 1) < 1e-4:
        return (math.log(n + 1) + x * n / 2 + x * x * n * (n + 2) / 24,
                n / 2 + x * n * (n + 2) / 12)
    if x > 0:
        log_s0, mean = geometric_sums(-x, n)
        return n * x + log_s0, n - mean
    log_s0 = math.log(-math.expm1((n + 1) * x)) - math.log(-math.expm1(x))
    far = -(n + 1) * x > 700
    return log_s0, 1.0 / math.expm1(-x) - (0.0 if far else (n + 1) / math.expm1(-(n + 1) * x))


def geometric_moments(log_r: float, n: float) -> tuple[float, float, float]:
    """(log S0, mean, variance) of the index ``i = 0..n-1`` weighted ``r^i`` (``n >= 1``; inf
    when ``r < 1``), ``log_r = log r``; near ``r = 1`` (``|log r| n < 1e-3``) the uniform
    distribution's, corrected to first order in ``log r`` (the variance is even in it: its
    error is of order ``(log r n)^2``, below 1e-6 relative)."""
    x = log_r
    if n == 1:
        return 0.0, 0.0, 0.0
    if math.isinf(n):
        u = -x
        return -math.log(-math.expm1(x)), 1.0 / math.expm1(u), 0.25 / math.sinh(u / 2) ** 2
    if abs(x) * n < 1e-3:
        return (math.log(n) + x * (n - 1) / 2 + x * x * (n * n - 1) / 24,
                (n - 1) / 2 + x * (n * n - 1) / 12, (n * n - 1) / 12)
    if x > 0:  # the mirror image: i -> n - 1 - i
        log_s0, mean, var = geometric_moments(-x, n)
        return (n - 1) * x + log_s0, n - 1 - mean, var
    u = -x
    log_s0 = math.log(-math.expm1(n * x)) - math.log(-math.expm1(x))
    far = n * u > 700  # r^n below 1e-304: the truncation's terms vanish
    mean = 1.0 / math.expm1(u) - (0.0 if far else n / math.expm1(n * u))
    var = 0.25 / math.sinh(u / 2) ** 2 - (0.0 if far else 0.25 * n * n / math.sinh(n * u / 2) ** 2)
    return log_s0, mean, var


def _brentq(f, xa: float, xb: float, *, xtol: float, rtol: float, maxiter: int) -> float:
    """A root of ``f`` in ``[xa, xb]`` (``f(xa)``, ``f(xb)`` of opposite signs) by Brent's
    method: a line-by-line port of SciPy's ``brentq`` (``scipy/optimize/Zeros/brentq.c``,
    same steps and stopping rule), so that the fast method imports no SciPy and the
    calculator's JavaScript can follow it step by step."""
    xpre, xcur = xa, xb
    xblk = fblk = spre = scur = 0.0
    fpre, fcur = f(xpre), f(xcur)
    if fpre == 0:
        return xpre
    if fcur == 0:
        return xcur
    if (fpre < 0) == (fcur < 0):
        raise ValueError("f(a) and f(b) must have different signs")
    for _ in range(maxiter):
        if fpre != 0 and fcur != 0 and (fpre < 0) != (fcur < 0):
            xblk, fblk = xpre, fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2
        sbis = (xblk - xcur) / 2
        if fcur == 0 or abs(sbis) < delta:
            return xcur
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):
                spre, scur = scur, stry
            else:
                spre = scur = sbis
        else:
            spre = scur = sbis
        xpre, fpre = xcur, fcur
        xcur += scur if abs(scur) > delta else (delta if sbis > 0 else -delta)
        fcur = f(xcur)
    return xcur


#: Consecutive ratios of waiting weights equal to this relative tolerance form a geometric tail.
GEOMETRIC_RTOL = 1e-9


def _geometric_tail(weights: np.ndarray) -> dict:
    """Where the waiting weights become geometric (``a_(j+1) / a_j`` constant to
    :data:`GEOMETRIC_RTOL`, as for open arrivals past ``T``, where the death rate is constant):
    ``tail_start`` ``j0`` and ``tail_ratio`` ``r``; no tail: ``j0`` = the number of weights."""
    if weights.size < 3 or not np.all(weights > 0):
        return {"tail_start": weights.size, "tail_ratio": 0.0}
    ratios = weights[1:] / weights[:-1]
    last = ratios[-1]
    same = np.abs(ratios / last - 1.0) <= GEOMETRIC_RTOL
    start = int(np.flatnonzero(~same)[-1]) + 1 if not same.all() else 0
    if weights.size - start < 3 or not last < 1.0 + GEOMETRIC_RTOL:
        return {"tail_start": weights.size, "tail_ratio": 0.0}
    return {"tail_start": start, "tail_ratio": float(last)}


def _release_shape(r_c: float, releases: float, wait_time: float, release_time: float,
                   threads: int) -> float:
    """``1 / c^2`` of the time between releases of ``threads`` busy threads:
    ``c^2 = 1 + (c_H^2 - 1) / threads`` (a superposition of ``threads`` renewal processes),
    ``c_H^2`` the squared coefficient of variation of the holding time."""
    whole = math.floor(releases)
    part = releases - whole
    mean = r_c + wait_time + releases * release_time
    variance = (r_c ** 2 + wait_time ** 2
                + (releases + part * (1.0 - part)) * release_time ** 2)
    scv = 1.0 + (variance / mean ** 2 - 1.0) / threads
    return 1.0 / scv


def fast_cdf(t, *, arrivals, holders_throughput, threads, cpu_time, wait_time, processors,
             connections=None, tail_ratio=None, tail_length=0) -> np.ndarray:
    """P(R <= t) of the fast method at each ``t`` (arguments as :func:`fast_quantiles`)."""
    mix = _mixture(arrivals, holders_throughput, threads, cpu_time, wait_time, processors,
                   connections, tail_ratio, tail_length)
    return np.array([mix.cdf(float(v)) for v in np.ravel(t)]).reshape(np.shape(t))


def fast_quantiles(*, arrivals, holders_throughput, threads, cpu_time, wait_time, processors,
                   connections=None, probabilities=PERCENTILES, tail_ratio=None,
                   tail_length=0) -> np.ndarray:
    """Quantiles of the response time of admitted requests by the fast method.

    Parameters (all keyword)
    ------------------------
    arrivals : 1-d array
        ``a(n)``, ``n = 0..``: the number of admitted requests an admitted arrival finds,
        e.g. :func:`arrival_distribution` of the birth-death chain's ``pi``; need not be
        normalized, and may stop where the rest is negligible. Entries below
        ``FAST_NEGLIGIBLE`` (1e-16) of the largest are dropped.
    holders_throughput : 1-d array
        ``X_in(0..M)``, the throughput of ``m`` thread holders (``X_in(0)`` is not read); for
        ``m > M`` it is ``X_in(M)`` (converged).
    threads : int or None
        ``T``; None: no thread limit (nobody waits for a thread).
    cpu_time, wait_time : float
        ``s_c`` and ``s_w`` (>= 0, not both 0); ``cpu_time`` may be an array over ``m`` (the
        processor time with ``m`` busy threads).
    processors : int
        ``p``.
    connections : int or None
        ``C``; None: no pool.
    probabilities : sequence of float in (0, 1)
        Default (0.5, 0.95, 0.99).
    tail_ratio, tail_length : float > 0 and int >= 0 (or math.inf), optional
        A geometric tail past the last entry of ``arrivals``: ``a(N + i) = a(N) r^i`` for
        ``i = 1..tail_length`` (``N = len(arrivals) - 1 >= threads``: its levels wait for a
        thread); ``tail_length = math.inf`` needs ``r < 1``. It is normalized and summed in
        closed form in logarithms (see ``_Mixture._block``), so ``tail_length`` may be 10^10
        and ``r`` above 1 (the weights then grow toward the bound): the flow-equivalent
        chain's levels past ``min(T, B)``, where its death rate is constant, as the sizing
        gives them. Entries of ``arrivals`` below ``FAST_NEGLIGIBLE`` of the largest weight,
        the tail's included, are dropped.

    Returns the quantiles (same unit as the times), as an array.

    The distribution function is inverted by the Euler algorithm with ``M = 15``
    (31 evaluations of the transform at ``s_k = beta_k / t``, ``beta_k = M ln(10)/3 +
    i pi k``, weights ``eta_k = 10^(M/3) (-1)^k xi_k``, ``xi_0 = 1/2``, ``xi_k = 1`` for
    ``1 <= k <= M``, ``xi_2M = 2^-M``, ``xi_(2M-j) = xi_(2M-j+1) + 2^-M binom(M, j)``):
    ``F(t) = (1/t) sum_k Re(eta_k L(s_k) / s_k)`` with the transform of the response time
    ``L(s) = sum_{n<T} a(n) H_{n+1}(s) + H_T(s) sum_{j>=0} a(T+j) z^(j+1)``, where
    ``z = (1 + s / (X_in(T) g))^-g`` with ``g = 1 / c^2`` (the module docstring), and
    ``H_m(s) = [(1 + s r_c(m)) (1 + s s_w)]^-1 y^floor(k(m)) (1 - f + f y)``,
    ``y = 1 / (1 + s s_w / C)``, ``f = k(m) - floor(k(m))`` (``r_c``, ``k`` from
    :func:`holding_phases`; no pool: ``y`` factors 1). Each quantile is the root of
    ``F(t) = q`` in ``(0, t_hi]``, ``t_hi`` the mean doubled until ``F(t_hi) >= q`` (each
    ``F(t)`` computed once for all the probabilities), by
    Brent's method to 1e-10 relative (``_brentq``, SciPy's ``brentq`` step by step).
    The waits for a thread too narrow for the inversion are evaluated in the time domain
    instead (the module docstring).
    """
    q = _probabilities(probabilities)
    mix = _mixture(arrivals, holders_throughput, threads, cpu_time, wait_time, processors,
                   connections, tail_ratio, tail_length)
    cache: dict[float, float] = {}

    def cdf(t: float) -> float:
        value = cache.get(t)
        if value is None:
            value = cache[t] = mix.cdf(t)
        return value

    out = []
    for value in q:
        high = mix.mean
        while cdf(high) < value:
            high *= 2.0
        out.append(_brentq(lambda t, v=value: cdf(t) - v, 0.0, high, rtol=1e-10,
                           xtol=1e-300, maxiter=200))
    return np.array(out)
