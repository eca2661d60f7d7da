"""The thread-pool server: many processors, a pool of connections, closed or open workloads.

The server: at most ``B`` requests are admitted (waiting for a thread or holding one); a request
that finds ``B`` admitted is refused (a closed client thinks again, an open arrival is lost). An
admitted request takes a free thread (of ``T``; no limit with ``threads=None``, as with virtual
threads) or waits for one, first come first served. It then needs its processor time (mean
``s_c``, exponential, processor sharing over ``p`` processors: with ``c`` requests in that phase
they complete at rate ``min(c, p) / s_c``), and then waits (mean ``s_w``, exponential, no
processor) while its thread holds one of ``C`` connections; a thread that finds no free
connection waits for one, first come first served, holding its thread and no processor.

The workload is closed (``clients`` K with think time Z) or open (Poisson ``arrival_rate``).

Overhead: with ``a`` busy threads the mean processor time of a request is
``cpu_time (1 + thread_overhead (a - 1)) (1 + pool_overhead T)`` - contention among the busy
threads and memory pressure of the configured pool.

``method="exact"`` solves the Markov chain of :mod:`.thread_pool_chain`; ``method="fes"``
replaces the thread holders by a flow-equivalent server. With ``m`` holders, the processor
station (weights ``a(c) = s_c^c / prod_{i<=c} min(i, p)``) and the pool station (weights
``b(w) = s_w^w / prod_{i<=w} min(i, C)``, ``w = m - c``) form a closed product-form network,
whose throughput ``X_in(m)`` is the death rate ``X_in(min(n, T))`` of a birth-death chain over
the admitted requests ``n = 0..N`` (birth ``(K - n) / Z`` closed, ``lambda`` open, for ``n < N``).
The decomposition is an approximation: a thread is held for a processor phase plus a waiting
phase, which is not exponential, and its error reaches several percent (its distribution over
the documented domain is measured by ``scripts/benchmark_models.py``). It is solved for all
configurations of a call together: the inner networks across configurations, the outer chains
as rows of one array. With one processor and no pool limit (``connections`` None or at least
the holders) the inner network is solved by the MVA recursion of a queue and a delay, as before
the processors and the pool were added: the same numbers, to the last bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import gammaln

from .._validation import as_choice, as_integer, as_nonnegative, as_time, broadcast
from . import passage
from .birth_death import log_stationary_distribution
from .finite_source import MAX_STATES, solve_summary
from .fleet import fleet
from .flow_equivalent import Holders
from .markov import stationary_distribution
from .results import ThreadPoolResult, shaped
from .thread_pool_chain import (
    EXACT_MAX_STATES,
    build_chain,
    cpu_time_per_request,
    state_count,
)

__all__ = [
    "thread_pool",
    "EXACT_MAX_STATES",
    "EXACT_MAX_SECONDS",
    "FES_MAX_SECONDS",
    "FES_MAX_OVERHEAD_THREADS",
    "TIME_RANGE",
    "estimated_seconds",
]

#: Largest estimated time of one call with ``method="exact"``, which solves its configurations
#: one by one: about 0.7 ms per configuration plus 1 to 8 us per state, more in wider chains
#: (measured, 2 cores).
EXACT_MAX_SECONDS = 10.0
#: Largest estimated time of one call with ``method="fes"``: up to 80 ns per state of the outer
#: chains (400 ns in chains of more than 2**22 states), 0.3 us per inner population without
#: overhead and 15 ns per state of the inner networks with ``thread_overhead > 0``; with
#: several processors or a pool, 0.1 ms per holder count and 40 ns per term of the product-form
#: recursion (0.6 us per term with overhead) (measured, 2 cores).
FES_MAX_SECONDS = 10.0
#: Largest ``min(threads, capacity, clients)`` of ``method="fes"`` when each holder count needs
#: its own inner network (``thread_overhead > 0``, several processors or a pool of connections):
#: O(m) work each.
FES_MAX_OVERHEAD_THREADS = 20_000
#: Every non-zero time (and the CPU time with overhead) and the arrival rate must lie in this
#: range.
TIME_RANGE = (1e-100, 1e100)

_METHODS = ("exact", "fes")
# Measured costs behind the admission guards (seconds, 2 cores; see make benchmark).
_EXACT_PER_CONFIG, _EXACT_PER_STATE = 7e-4, 8e-6
_FES_PER_STATE, _FES_PER_LONG_STATE, _LONG_CHAIN = 8e-8, 4e-7, 1 << 22
_FES_PER_STEP, _FES_PER_INNER_STATE = 3e-7, 1.5e-8
# Several processors or a pool: flow_equivalent.Holders, one configuration at a time, up to
# 1.5e-5 s per holder count (fewer once it converges or past p + C) and 4e-8 s per term
# (fewer when the distributions are narrow); with thread overhead each holder count's network
# on its own, 6e-7 s per term (measured, 2 cores).
_FES_PER_HOLDER_STEP, _FES_PER_RECURSION_TERM, _FES_PER_GRID_TERM = 1.5e-5, 4e-8, 6e-7
# Rows of the outer chains solved together (about 2**21 numbers, 16 MiB per temporary).
_BLOCK_ELEMENTS = 1 << 21
# The inner recursion runs across configurations while at least this many are going, then one
# configuration at a time in plain floats (about 8 us per vectorized step against 0.25 us per
# plain step and configuration).
_VECTOR_ROWS = 32


@dataclass(frozen=True)
class _Batch:
    """The checked arguments of one call, flattened (one entry per configuration)."""

    shape: tuple[int, ...]
    open: bool  # arrival_rate given (else clients and think_time)
    K: np.ndarray  # clients (open: capacity, unused)
    B: np.ndarray
    T: np.ndarray  # threads (no limit: min(K, B) or B)
    p: np.ndarray
    C: np.ndarray  # connections, at most T (no pool: T)
    cpu: np.ndarray
    wait: np.ndarray
    Z: np.ndarray  # think time (open: 1, unused)
    lam: np.ndarray  # arrival rate (closed: 0, unused)
    theta: np.ndarray
    phi: np.ndarray
    echoes: dict

    @property
    def top(self) -> np.ndarray:
        """N, the most admitted requests: min(B, K) closed, B open."""
        return self.B if self.open else np.minimum(self.K, self.B)

    @property
    def batch(self) -> np.ndarray:
        """Closed populations with zero think time (every completion is a new request)."""
        return np.zeros(self.B.shape, bool) if self.open else self.Z == 0

    def rows(self, i) -> _Batch:
        """The configurations ``i`` alone."""
        fields = {k: getattr(self, k)[i] for k in ("K", "B", "T", "p", "C", "cpu", "wait",
                                                   "Z", "lam", "theta", "phi")}
        return _Batch(shape=np.shape(fields["K"]), open=self.open, echoes={}, **fields)


def thread_pool(
    *,
    clients: Any = None,
    capacity: Any,
    threads: Any,
    cpu_time: Any,
    wait_time: Any,
    think_time: Any = None,
    arrival_rate: Any = None,
    processors: Any = 1,
    connections: Any = None,
    thread_overhead: Any = 0.0,
    pool_overhead: Any = 0.0,
    method: str = "exact",
    instances: Any = 1,
    db_processors: Any = None,
    db_time: Any = 0.0,
    db_contention: Any = 0.0,
) -> ThreadPoolResult:
    """Solve the thread-pool server for one or many configurations.

    At most ``capacity`` requests are admitted (waiting for a thread or holding one); a request
    that finds them all admitted is refused (a closed client thinks again, an open arrival is
    lost). An admitted request takes a free thread or waits for one, first come first served.
    It then needs its processor time (mean ``cpu_time``, exponential, processor sharing over
    ``processors``: with c requests in that phase they complete at rate
    ``min(c, processors) / cpu_time``), and then waits (mean ``wait_time``, exponential, no
    processor) while its thread holds one of ``connections``; a thread that finds no free
    connection waits for one, first come first served, holding its thread and no processor.

    Every argument is keyword-only. The numeric arguments broadcast like NumPy arrays.

    Parameters
    ----------
    clients : int or array_like of int, optional
        K >= 1, number of clients (a closed workload, with ``think_time``).
    capacity : int or array_like of int
        B >= 1, most admitted requests (waiting for a thread or holding one).
    threads : int, array_like of int, or None
        T >= 1, size of the thread pool; None: no thread limit (virtual threads), the same as
        ``threads = min(capacity, clients)``.
    cpu_time : float or array_like
        Mean processor time of a request (exponential): 0 or in :data:`TIME_RANGE`.
        ``cpu_time = 0`` removes the processor phase: the server is then exactly
        M/M/min(T, C)/B/K (open: M/M/min(T, C)/B) with service time ``wait_time``.
    wait_time : float or array_like
        Mean time a thread holder waits without a processor (exponential), holding a
        connection: 0 or in :data:`TIME_RANGE`; 0 removes the waiting phase (with one processor
        and no overhead the server is then exactly M/M/1/B/K). At least one of ``cpu_time`` and
        ``wait_time`` must be > 0.
    think_time : float or array_like, optional
        Z, mean think time of a closed workload: 0 (a batch population, only with
        ``capacity >= clients``) or in :data:`TIME_RANGE`.
    arrival_rate : float or array_like, optional
        lambda, Poisson arrivals per unit time (an open workload, instead of ``clients`` and
        ``think_time``), in :data:`TIME_RANGE`.
    processors : int or array_like of int
        p >= 1, processors shared by the requests in the processor phase (default 1).
    connections : int, array_like of int, or None
        C >= 1, the pool of connections held during the waiting phase; None (default): no pool
        limit. ``connections >= threads`` is the same as no pool.
    thread_overhead, pool_overhead : float or array_like, optional
        >= 0. With ``a`` busy threads the mean processor time per request is
        ``cpu_time * (1 + thread_overhead * (a - 1)) * (1 + pool_overhead * threads)``, which
        must stay in :data:`TIME_RANGE`. ``pool_overhead`` must be 0 with ``threads=None``.
    method : {"exact", "fes"}
        ``"exact"``: the Markov chain over (admitted, in the processor phase), solved as a
        sparse linear system, one configuration at a time; refused above
        :data:`EXACT_MAX_STATES` states or an estimated :data:`EXACT_MAX_SECONDS`.
        ``"fes"``: flow-equivalent-server decomposition (approximate; all configurations
        together; refused above an estimated :data:`FES_MAX_SECONDS`).
    instances, db_processors, db_time, db_contention : optional
        A fleet of ``instances`` identical servers behind a balancer that sends each request
        to one at random, sharing a database of ``db_processors`` processors (None: no
        processor limit) where each request needs ``db_time`` (exponential, processor
        sharing, stretched by ``1 + db_contention (D - 1)`` with D requests in it) after
        taking its connection and before its ``wait_time``; ``arrival_rate`` and ``clients``
        are then the fleet's totals. Given anything but their defaults (1, None, 0, 0), the
        call is solved by :func:`queuetune.models.fleet.fleet` and returns a
        :class:`~queuetune.models.fleet.FleetResult` (the fleet's totals and
        ``database_utilization``); the overheads must then be 0.

    Returns
    -------
    ThreadPoolResult
        The metrics of :func:`queuetune.mm1bk` (``utilization`` is the mean fraction of the
        processors busy; ``p0``, ``error_rate = P(n = B)`` and ``probabilities`` are of the
        number of admitted requests; open: ``rejection_probability = P(n = B)``,
        ``attempt_rate = arrival_rate``) plus ``busy_threads``, ``queue_length`` and
        ``queue_wait`` (mean time an admitted request waits for a thread), and ``method``;
        ``response_time_p50``, ``response_time_p95``, ``response_time_p99`` and
        ``response_time_quantile(q)``, the percentiles of the response time of admitted
        requests, computed when first read (:mod:`.passage`: ``"exact"`` from the tagged
        request's phase-type passage time, ``"fes"`` by the fast method).

    Examples
    --------
    >>> res = thread_pool(clients=50, capacity=200, threads=10, cpu_time=0.02, wait_time=0.1,
    ...                   think_time=4.0)
    >>> print(f"X = {res.throughput:.3f}/s, busy threads = {res.busy_threads:.3f}")
    X = 12.118/s, busy threads = 1.529

    An open workload on 8 processors with a pool of 10 database connections:

    >>> res = thread_pool(arrival_rate=40.0, capacity=400, threads=200, processors=8,
    ...                   connections=10, cpu_time=0.04, wait_time=0.2, method="fes")
    >>> print(f"R = {res.response_time * 1000:.0f} ms")
    R = 281 ms
    """
    if _asks_fleet(instances, db_processors, db_time, db_contention):
        return _fleet(clients=clients, capacity=capacity, threads=threads, cpu_time=cpu_time,
                      wait_time=wait_time, think_time=think_time, arrival_rate=arrival_rate,
                      processors=processors, connections=connections,
                      thread_overhead=thread_overhead, pool_overhead=pool_overhead,
                      method=method, instances=instances, db_processors=db_processors,
                      db_time=db_time, db_contention=db_contention)
    method = as_choice(method, "method", _METHODS)
    cfg = _validated(clients, capacity, threads, cpu_time, wait_time, think_time, arrival_rate,
                     processors, connections, thread_overhead, pool_overhead, method)
    metrics, levels, offsets = (_solve_exact if method == "exact" else _solve_fes)(cfg)
    return ThreadPoolResult(
        **{key: shaped(value, cfg.shape) for key, value in metrics.items()},
        **cfg.echoes,
        method=method,
        levels=levels,
        level_offsets=offsets,
        quantile_function=_QuantileFunction(cfg, method, levels, offsets),
    )


# --------------------------------------------------------------------------- percentiles


class _QuantileFunction:
    """Quantiles of the response time of admitted requests, every configuration of a call:
    ``self(probabilities)`` has one row per configuration, one column per probability.
    ``"exact"``: the tagged request's phase-type passage time (:func:`.passage.
    exact_response_time`); ``"fes"``: :func:`.passage.fast_quantiles` on the flow-equivalent
    chain."""

    def __init__(self, cfg: _Batch, method: str, levels: np.ndarray, offsets: np.ndarray):
        self.cfg, self.method, self.levels, self.offsets = cfg, method, levels, offsets

    def __call__(self, probabilities) -> np.ndarray:
        cfg = self.cfg
        rows = []
        if self.method == "exact":
            for i in range(cfg.B.size):
                chain, pi = _exact_distribution(cfg, i)
                tagged = passage.exact_response_time(chain, pi, **_chain_arguments(cfg, i))
                rows.append(tagged.quantiles(probabilities))
            return np.array(rows)
        holders = np.minimum(cfg.T, cfg.top)
        inner_x, _, starts = _inner(cfg, holders)
        for i in range(cfg.B.size):
            m = np.arange(int(holders[i]) + 1)
            x = inner_x[starts[i]:starts[i] + m.size]
            arrivals = passage.arrival_distribution(
                self.levels[self.offsets[i]:self.offsets[i + 1]],
                clients=None if cfg.open else int(cfg.K[i]))
            cpu = cpu_time_per_request(float(cfg.cpu[i]), np.maximum(m, 1), int(cfg.T[i]),
                                       float(cfg.theta[i]), float(cfg.phi[i]))
            rows.append(passage.fast_quantiles(
                arrivals=arrivals, holders_throughput=x, threads=int(cfg.T[i]), cpu_time=cpu,
                wait_time=float(cfg.wait[i]), processors=int(cfg.p[i]),
                connections=int(cfg.C[i]) if cfg.C[i] < holders[i] else None,
                probabilities=probabilities))
        return np.array(rows)


def _asks_fleet(instances, db_processors, db_time, db_contention) -> bool:
    """Whether a fleet keyword is given other than its default (1, None, 0, 0)."""
    def is_scalar(value, default):
        return (isinstance(value, (int, float, np.integer, np.floating))
                and not isinstance(value, bool) and value == default)
    return not (is_scalar(instances, 1) and db_processors is None
                and is_scalar(db_time, 0) and is_scalar(db_contention, 0))


def _fleet(*, thread_overhead, pool_overhead, **arguments):
    """The fleet model, which has no overhead terms."""
    for name, value in (("thread_overhead", thread_overhead), ("pool_overhead", pool_overhead)):
        if not _is_zero(value):
            raise ValueError(f"{name} must be 0 with instances, db_processors, db_time or "
                             f"db_contention (the fleet model has no overhead), got {value!r}")
    return fleet(**arguments)


def _is_zero(value) -> bool:
    try:
        return bool(np.all(np.asarray(value, dtype=np.float64) == 0))
    except (TypeError, ValueError):
        return False


# --------------------------------------------------------------------------- exact


def _solve_exact(cfg: _Batch):
    """Each configuration's chain solved on its own; metrics from its levels."""
    rows = []
    top = cfg.top
    for i in range(cfg.B.size):
        chain, pi = _exact_distribution(cfg, i)
        levels = np.bincount(chain.level, weights=pi, minlength=int(top[i]) + 1)
        busy = np.minimum(chain.on_cpu, cfg.p[i]) / cfg.p[i]
        rows.append((levels, float(pi @ chain.departure_rate), float(pi @ busy)
                     if cfg.p[i] > 1 else float(pi[chain.on_cpu >= 1].sum())))
    width = max(levels.size for levels, _, _ in rows)
    padded = np.zeros((len(rows), width))
    for i, (levels, _, _) in enumerate(rows):
        padded[i, :levels.size] = levels
    metrics = _metrics(padded, cfg, throughput=np.array([x for _, x, _ in rows]),
                       utilization=np.array([u for _, _, u in rows]))
    flat, offsets = _ragged(padded, top)
    return metrics, flat, offsets


def _exact_distribution(cfg: _Batch, i: int):
    """Configuration i's chain and its stationary distribution."""
    chain = build_chain(**_chain_arguments(cfg, i))
    pinned = _likely_state(chain, cfg.rows(np.array([i])))
    return chain, stationary_distribution(chain.generator, pinned=pinned)


def _chain_arguments(cfg: _Batch, i: int) -> dict:
    """The scalar arguments of :func:`.thread_pool_chain.build_chain` for configuration i."""
    workload = ({"arrival_rate": float(cfg.lam[i])} if cfg.open else
                {"clients": int(cfg.K[i]), "think_time": float(cfg.Z[i])})
    return {**workload, "capacity": int(cfg.B[i]), "threads": int(cfg.T[i]),
            "processors": int(cfg.p[i]), "connections": int(cfg.C[i]),
            "cpu_time": float(cfg.cpu[i]), "wait_time": float(cfg.wait[i]),
            "thread_overhead": float(cfg.theta[i]), "pool_overhead": float(cfg.phi[i])}


def _likely_state(chain, one: _Batch) -> int:
    """A state of high probability, to pin in the linear solve: the most likely level under
    the flow-equivalent approximation, and within it the most likely number in the processor
    phase of the inner network (with one processor and no pool: a machine-repairman model,
    Imre et al. eq. (3) with think time ``wait_time``)."""
    _, approx, _ = _solve_fes(one)
    level = int(np.argmax(approx))
    states = np.flatnonzero(chain.level == level)
    if states.size == 1:
        return int(states[0])
    T, p, C = int(one.T[0]), int(one.p[0]), int(one.C[0])
    cpu, wait, theta, phi = (float(v[0]) for v in (one.cpu, one.wait, one.theta, one.phi))
    busy = min(level, T)
    demand = float(cpu_time_per_request(cpu, busy, T, theta, phi))
    if p == 1 and C >= busy:
        ratio = wait / demand
        on_cpu = int(np.clip(np.floor(busy + 1 - ratio), 0, busy))
    else:
        c = np.arange(busy + 1)
        on_cpu = int(np.argmax(_log_weights(c, busy, np.log(demand / wait), p, C)))
    return int(states[on_cpu])


# --------------------------------------------------------------------------- fes


def _solve_fes(cfg: _Batch):
    """Flow-equivalent server for every configuration: the inner networks, then the outer
    birth-death chains in row blocks of similar size. Each configuration's numbers are
    computed in the same order whatever else is solved with it."""
    K, B, T, Z = cfg.K, cfg.B, cfg.T, cfg.Z
    top = cfg.top
    holders = np.minimum(T, top)
    inner_x, inner_u, starts = _inner(cfg, holders)
    order = np.argsort(-top, kind="stable")
    metrics = {key: np.empty(B.size) for key in _METRIC_KEYS}
    levels = np.empty(int(np.sum(top + 1)))
    offsets = np.concatenate([[0], np.cumsum(top + 1)])
    batch = cfg.batch
    for rows in _row_blocks(top[order]):
        i = order[rows]
        width = int(top[i].max()) + 1
        n = np.arange(width)
        # X_in(min(n, T)) for n = 0..width-1 (held at min(T, C) past a chain's end)
        held = np.minimum(n[None, :], holders[i, None])
        x_n = inner_x[starts[i, None] + held]
        u_n = inner_u[starts[i, None] + held]
        with np.errstate(divide="ignore", invalid="ignore"):  # past a chain's end: ignored
            if cfg.open:
                log_birth = np.broadcast_to(np.log(cfg.lam[i, None]), (i.size, width - 1))
            else:
                log_birth = np.log((K[i, None] - n[None, 1:] + 1.0) / Z[i, None])
            log_ratio = log_birth - np.log(x_n[:, 1:])
        log_ratio[batch[i]] = 0.0  # replaced below
        p = np.exp(log_stationary_distribution(log_ratio, top[i]))
        if batch[i].any():
            p[batch[i]] = (n[None, :] == top[i][batch[i], None]).astype(np.float64)
        block = _metrics(p, cfg.rows(i), throughput=_row_sums(p * x_n),
                         utilization=_row_sums(p * u_n))
        for key, value in block.items():
            metrics[key][i] = value
        levels[_ranges(offsets[i], top[i] + 1)] = p[n[None, :] <= top[i, None]]
    return metrics, levels, offsets


def _plain_inner(cfg: _Batch, holders: np.ndarray) -> np.ndarray:
    """The configurations whose inner network is a queue and a delay: one processor and no
    pool limit below the holders."""
    return (cfg.p == 1) & (cfg.C >= holders)


def _inner(cfg: _Batch, holders: np.ndarray):
    """Throughput and processor utilization of the inner networks with 0..holders holders
    (flat arrays; ``starts[i]`` is configuration i's entry of 0 holders): a queue and a
    delay by :func:`_inner_networks`, the others by :func:`_inner_product_form`."""
    plain = _plain_inner(cfg, holders)
    if plain.all():
        return _inner_networks(holders, cfg.cpu, cfg.wait, cfg.T, cfg.theta, cfg.phi)
    starts = np.concatenate([[0], np.cumsum(holders + 1)[:-1]])
    x, u = np.zeros(int(np.sum(holders + 1))), np.zeros(int(np.sum(holders + 1)))
    for mask, solve in ((plain, _plain_part), (~plain, _inner_product_form)):
        idx = np.flatnonzero(mask)
        if idx.size:
            px, pu, pstarts = solve(cfg.rows(idx), holders[idx])
            where = _ranges(starts[idx], holders[idx] + 1)
            x[where], u[where] = px, pu
    return x, u, starts


def _plain_part(cfg: _Batch, holders: np.ndarray):
    return _inner_networks(holders, cfg.cpu, cfg.wait, cfg.T, cfg.theta, cfg.phi)


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``starts[0] .. starts[0] + lengths[0] - 1``, then the same for each next start."""
    first = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return first + np.arange(int(lengths.sum()))


def _row_blocks(sizes: np.ndarray):
    """Slices of rows (sorted by size, largest first) of about _BLOCK_ELEMENTS numbers."""
    start = 0
    while start < sizes.size:
        stop = min(sizes.size, start + max(1, _BLOCK_ELEMENTS // (int(sizes[start]) + 1)))
        yield slice(start, stop)
        start = stop


def _log_weights(c: np.ndarray, m: Any, log_ratio: Any, p: Any, C: Any) -> np.ndarray:
    """``log(a(c) b(m - c))`` up to a constant of each ``m``: ``c log(s_c / s_w)`` minus the
    logs of ``prod_{i<=c} min(i, p)`` and ``prod_{i<=m-c} min(i, C)`` (by ``gammaln``, exact
    to rounding and elementwise)."""
    w = m - c
    return (c * log_ratio - _log_falling(c, p) - _log_falling(w, C))


def _log_falling(k: np.ndarray, servers: Any) -> np.ndarray:
    """``log prod_{i=1..k} min(i, servers)`` = ``log min(k, s)! + (k - s)+ log s``."""
    k = np.asarray(k, dtype=np.float64)
    s = np.asarray(servers, dtype=np.float64)
    return gammaln(np.minimum(k, s) + 1.0) + np.maximum(k - s, 0.0) * np.log(s)


def _inner_product_form(cfg: _Batch, holders: np.ndarray):
    """The inner networks of several processors and a pool, for m = 0..holders of each
    configuration, in flat arrays like :func:`_inner_networks`.

    With ``m`` holders, ``c`` on the processors and ``w = m - c`` past them, the closed network
    has the product form ``P(c) ~ a(c) b(m - c)`` with ``a(c) = s_c^c / prod_{i<=c} min(i, p)``
    and ``b(w) = s_w^w / prod_{i<=w} min(i, C)``; ``X_in(m) = E[min(c, p)] / s_c(m)`` and the
    processors' utilization ``E[min(c, p)] / p``. ``s_c(m)`` carries the overhead of ``m`` busy
    threads. The terms of each ``m`` are taken from their largest (no overflow), and summed in
    order of ``c`` (so padding and the other rows change no bit). Without a processor phase
    ``X_in(m) = min(m, C) / s_w``; without a waiting phase ``X_in(m) = min(m, p) / s_c(m)``.
    O(m) work per holder count. Without overhead, by
    :class:`~queuetune.models.flow_equivalent.Holders` (the sizing's, one home), one
    configuration at a time: from its convergence on ``X_in`` is held within 1e-13 relative of
    its limit, and the metrics are within 1e-9 relative of the former batched recursion
    (measured 4e-11 at most on 2,380 random configurations)."""
    starts = np.concatenate([[0], np.cumsum(holders + 1)[:-1]])
    size = int(np.sum(holders + 1))
    owner = np.repeat(np.arange(holders.size), holders + 1)
    m = np.arange(size) - starts[owner]
    demand = cpu_time_per_request(cfg.cpu[owner], np.maximum(m, 1), cfg.T[owner],
                                  cfg.theta[owner], cfg.phi[owner])
    p, C, wait = cfg.p[owner], cfg.C[owner], cfg.wait[owner]
    x, u = np.zeros(size), np.zeros(size)
    present = m > 0
    no_wait = present & (wait == 0)
    x[no_wait] = np.minimum(m, p)[no_wait] / demand[no_wait]
    u[no_wait] = np.minimum(m, p)[no_wait] / p[no_wait]
    no_cpu = present & (cfg.cpu[owner] == 0)
    x[no_cpu] = np.minimum(m, C)[no_cpu] / wait[no_cpu]
    two = present & ~no_wait & ~no_cpu
    # with thread overhead each holder count has its own processor time: each m on its own
    loaded = np.flatnonzero(two & (cfg.theta[owner] > 0))
    if loaded.size:
        busy = _mean_busy_processors(m[loaded], np.log(demand[loaded] / wait[loaded]),
                                     p[loaded], C[loaded])
        x[loaded] = busy / demand[loaded]
        u[loaded] = busy / p[loaded]
    plain = np.flatnonzero((cfg.theta == 0) & (cfg.cpu > 0) & (cfg.wait > 0) & (holders > 0))
    for i in plain:  # the holders' throughput of the sizing: one home, .flow_equivalent
        top = int(holders[i])
        pool = None if not np.isfinite(cfg.C[i]) or cfg.C[i] >= top else int(cfg.C[i])
        values = Holders(processors=int(cfg.p[i]), cpu_time=float(cfg.cpu[i]),
                         wait_time=float(cfg.wait[i]), connections=pool).upto(top)
        x[starts[i] + 1: starts[i] + top + 1] = values[1:]
        u[starts[i] + 1: starts[i] + top + 1] = values[1:] * (cfg.cpu[i] / cfg.p[i])
    return x, u, starts


def _mean_busy_processors(m, log_ratio, p, C) -> np.ndarray:
    """``E[min(c, p)]`` under ``P(c) ~ a(c) b(m - c)``, ``c = 0..m``, one row per entry, in
    blocks of about _BLOCK_ELEMENTS numbers (rows sorted by m, longest first)."""
    order = np.argsort(-m, kind="stable")
    out = np.empty(m.size)
    for rows in _row_blocks(m[order]):
        i = order[rows]
        width = int(m[i].max()) + 1
        c = np.arange(width, dtype=np.float64)[None, :]
        mi = m[i, None].astype(np.float64)
        with np.errstate(invalid="ignore"):
            log_terms = _log_weights(c, mi, log_ratio[i, None], p[i, None], C[i, None])
        log_terms[c > mi] = -np.inf
        terms = np.exp(log_terms - log_terms.max(axis=1, keepdims=True))
        total = _row_sums(terms)
        out[i] = _row_sums(terms * np.minimum(c, p[i, None])) / total
    return out


def _inner_networks(holders, cpu, wait, T, theta, phi):
    """Throughput and CPU utilization of the closed inner network with 0..m_max holders, for
    every configuration, in flat arrays (``starts[i]`` is the entry of 0 holders of
    configuration ``i``, whose values are 0).

    The inner network is the CPU (a queue of demand ``cpu_eff(m)``) and a delay station of
    mean ``wait``. Without thread overhead the demand is the same for every m and the exact
    MVA recursion (Menasce & Almeida 2002) gives all m in one pass; with overhead each m is a
    machine-repairman model with its own demand (Imre et al. eqs. (3)-(4) with ``K = B = m``).
    """
    starts = np.concatenate([[0], np.cumsum(holders + 1)[:-1]])
    size = int(np.sum(holders + 1))
    owner = np.repeat(np.arange(holders.size), holders + 1)
    m = np.arange(size) - starts[owner]
    x, u = np.zeros(size), np.zeros(size)
    demand = cpu_time_per_request(cpu[owner], np.maximum(m, 1), T[owner], theta[owner],
                                  phi[owner])
    kind = np.select([wait == 0, cpu == 0, theta == 0], [0, 1, 2], 3)[owner]
    present = m > 0
    no_wait = present & (kind == 0)
    x[no_wait], u[no_wait] = 1.0 / demand[no_wait], 1.0
    no_cpu = present & (kind == 1)
    x[no_cpu] = m[no_cpu] / wait[owner][no_cpu]
    plain = np.flatnonzero((kind[starts] == 2) & (holders > 0))
    if plain.size:
        _mva_recursion(x, u, starts[plain], holders[plain], demand[starts[plain]],
                       wait[plain])
    loaded = present & (kind == 3)
    if loaded.any():
        mf = m[loaded].astype(np.float64)
        summary = solve_summary(mf, mf, wait[owner][loaded] / demand[loaded])
        x[loaded] = summary["busy"] / demand[loaded]
        u[loaded] = summary["busy"]
    return x, u, starts


def _mva_recursion(x, u, starts, holders, demand, wait) -> None:
    """Exact MVA of a queue of demand ``d`` and a delay of mean ``w``, for m = 1..holders:
    ``R = d (1 + Q(m - 1))``, ``X(m) = m / (w + R)``, ``Q(m) = X(m) R`` and ``U = X d``;
    written into ``x`` and ``u`` from ``starts + 1``.

    Vectorized across configurations while many are going; the longest then run on in plain
    floats (the same operations, so the same bits, and 30 times less overhead per step)."""
    order = np.argsort(-holders, kind="stable")
    starts, holders, demand, wait = starts[order], holders[order], demand[order], wait[order]
    queue = np.zeros(holders.size)
    descending = -holders
    m = 1
    while m <= holders[0]:
        going = int(np.searchsorted(descending, -m, side="right"))  # configurations with >= m
        if going < _VECTOR_ROWS:
            break
        residence = demand[:going] * (1.0 + queue[:going])
        xm = m / (wait[:going] + residence)
        queue[:going] = xm * residence
        x[starts[:going] + m] = xm
        u[starts[:going] + m] = xm * demand[:going]
        m += 1
    for i in range(int(np.searchsorted(descending, -m, side="right"))):
        # plain floats are about 30 times faster per step than 0-d arrays
        d, w, q, first = float(demand[i]), float(wait[i]), float(queue[i]), int(starts[i])
        out_x = []
        for step in range(m, int(holders[i]) + 1):
            residence = d * (1.0 + q)
            xm = step / (w + residence)
            q = xm * residence
            out_x.append(xm)
        values = np.array(out_x)
        x[first + m:first + holders[i] + 1] = values
        u[first + m:first + holders[i] + 1] = values * d


# --------------------------------------------------------------------------- metrics

_METRIC_KEYS = ("throughput", "response_time", "utilization", "mean_in_system", "p0",
                "error_rate", "rejection_probability", "attempt_rate", "drop_rate",
                "busy_threads", "queue_length", "queue_wait")


def _row_sums(values: np.ndarray) -> np.ndarray:
    """Sums along rows taken in order (not pairwise), so that zero padding past a row's end
    changes no bit of it."""
    return np.add.accumulate(values, axis=1)[:, -1]


def _metrics(levels: np.ndarray, cfg: _Batch, *, throughput, utilization) -> dict:
    """The metrics from rows of ``P(n admitted)`` (zero-padded), the throughput and the
    processors' utilization."""
    K, B, T = cfg.K, cfg.B, cfg.T
    n = np.arange(levels.shape[1])[None, :]
    held = np.minimum(n, T[:, None])
    mean = _row_sums(levels * n)
    queue_length = _row_sums(levels * (n - held))
    out = {
        "throughput": throughput,
        "response_time": mean / throughput,
        "utilization": np.minimum(utilization, 1.0),
        "mean_in_system": mean,
        "p0": levels[:, 0].copy(),
        "busy_threads": _row_sums(levels * held),
        "queue_length": queue_length,
        "queue_wait": queue_length / throughput,
    }
    rows = np.arange(B.size)
    if cfg.open:
        full = levels[rows, B]
        out.update(error_rate=full, rejection_probability=full.copy(),
                   attempt_rate=cfg.lam.copy(), drop_rate=cfg.lam * full)
        return out
    full = np.where(B <= K, levels[rows, np.minimum(K, B)], 0.0)
    lost = np.where(B <= K, (K - B) * full, 0.0)  # no -0.0 when B > K
    thinking = _row_sums(levels * (K[:, None] - n).clip(0))  # sum_n (K - n) p_n, positive
    batch = cfg.batch
    with np.errstate(divide="ignore", invalid="ignore"):
        out.update(error_rate=full,
                   rejection_probability=np.where(batch, 0.0, lost / thinking),
                   attempt_rate=np.where(batch, throughput, thinking / cfg.Z),
                   drop_rate=np.where(batch, 0.0, lost / cfg.Z))
    return out


def _ragged(padded: np.ndarray, top: np.ndarray):
    """Rows of ``padded`` cut to ``top + 1`` entries each, as one flat array with offsets."""
    offsets = np.concatenate([[0], np.cumsum(top + 1)])
    keep = np.arange(padded.shape[1])[None, :] <= top[:, None]
    return padded[keep], offsets


# --------------------------------------------------------------------------- checks


def _validated(clients, capacity, threads, cpu_time, wait_time, think_time, arrival_rate,
               processors, connections, thread_overhead, pool_overhead, method) -> _Batch:
    is_open = arrival_rate is not None
    if is_open and (clients is not None or think_time is not None):
        raise ValueError("arrival_rate must be None when clients and think_time are given: "
                         "give one workload, open (arrival_rate) or closed (clients and "
                         "think_time)")
    if not is_open and (clients is None or think_time is None):
        raise ValueError("clients and think_time must be given (a closed workload), or "
                         "arrival_rate instead of both (an open one)")
    named = {
        "clients": as_integer(clients, "clients") if not is_open else None,
        "capacity": as_integer(capacity, "capacity"),
        "threads": None if threads is None else as_integer(threads, "threads"),
        "processors": as_integer(processors, "processors"),
        "connections": None if connections is None else as_integer(connections,
                                                                   "connections"),
        "cpu_time": as_time(cpu_time, "cpu_time", TIME_RANGE, zero=True),
        "wait_time": as_time(wait_time, "wait_time", TIME_RANGE, zero=True),
        "think_time": None if is_open else as_time(think_time, "think_time", TIME_RANGE,
                                                   zero=True),
        "arrival_rate": as_time(arrival_rate, "arrival_rate", TIME_RANGE) if is_open else None,
        "thread_overhead": as_nonnegative(thread_overhead, "thread_overhead"),
        "pool_overhead": as_nonnegative(pool_overhead, "pool_overhead"),
    }
    given = [(name, value) for name, value in named.items() if value is not None]
    arrays = dict(zip([name for name, _ in given], broadcast(*given), strict=True))
    shape = arrays["capacity"].shape
    flat = {name: value.ravel() for name, value in arrays.items()}
    B = flat["capacity"]
    K = B if is_open else flat["clients"]
    top = B if is_open else np.minimum(K, B)
    T = top if threads is None else flat["threads"]
    C = T if connections is None else np.minimum(flat["connections"], T)
    Z = np.ones(B.size) if is_open else flat["think_time"]
    lam = flat["arrival_rate"] if is_open else np.zeros(B.size)
    cfg = _Batch(shape=shape, open=is_open, K=K, B=B, T=T, p=flat["processors"], C=C,
                 cpu=flat["cpu_time"], wait=flat["wait_time"], Z=Z, lam=lam,
                 theta=flat["thread_overhead"], phi=flat["pool_overhead"],
                 echoes=_echoes(arrays, shape))
    _check_model(cfg, threads is None)
    if method == "exact":
        _check_exact_work(cfg)
    else:
        _check_fes_work(cfg)
    return cfg


_ECHOED = ("clients", "capacity", "threads", "processors", "connections", "cpu_time",
           "wait_time", "think_time", "arrival_rate", "thread_overhead", "pool_overhead")


def _echoes(arrays: dict, shape: tuple[int, ...]) -> dict:
    """The arguments as given back: Python scalars, arrays of the broadcast shape, or None."""
    out = {}
    for name in _ECHOED:
        if name not in arrays:
            out[name] = None
            continue
        values = arrays[name].reshape(shape)
        kind = float if values.dtype.kind == "f" else int
        out[name] = kind(values) if shape == () else values.copy()
    return out


def _check_model(cfg: _Batch, unlimited: bool) -> None:
    if ((cfg.cpu == 0) & (cfg.wait == 0)).any():
        raise ValueError("cpu_time and wait_time must not both be 0 (one must be > 0)")
    if not cfg.open:
        short = (cfg.Z == 0) & (cfg.B < cfg.K)
        if short.any():
            i = int(np.argmax(short))
            raise ValueError(f"think_time must be > 0 when capacity < clients (0, a batch "
                             f"population, needs capacity >= clients), got think_time=0 with "
                             f"capacity={cfg.B[i]} < clients={cfg.K[i]}")
    if unlimited and (cfg.phi > 0).any():
        raise ValueError("pool_overhead must be 0 with threads=None (no pool of threads)")
    _check_overhead(cfg.cpu, cfg.T, cfg.theta, cfg.phi)
    top = cfg.top
    if top.max() > MAX_STATES:
        name = "capacity" if cfg.open else "min(capacity, clients)"
        raise ValueError(f"{name} must be <= MAX_STATES = {MAX_STATES}, got {int(top.max())}")


def _check_overhead(cpu, T, theta, phi) -> None:
    """The CPU time per request at its largest (every thread busy) within TIME_RANGE."""
    with np.errstate(over="ignore", invalid="ignore"):
        worst = cpu * (1.0 + theta * (T - 1.0)) * (1.0 + phi * T)
    high = TIME_RANGE[1]
    if not np.all(np.isfinite(worst) & (worst <= high)):
        raise ValueError(
            f"thread_overhead and pool_overhead must keep the CPU time per request "
            f"cpu_time * (1 + thread_overhead * (threads - 1)) * (1 + pool_overhead * threads) "
            f"<= {high:g}, got {np.max(worst).item():g}"
        )


def estimated_seconds(*, clients: Any = None, capacity: Any, threads: Any, two_phases: Any,
                      thread_overhead: Any = 0.0, method: str, processors: Any = 1,
                      connections: Any = None) -> float:
    """The measured-cost estimate of one call's time (seconds, 2 cores) that the admission
    guards compare with :data:`EXACT_MAX_SECONDS` and :data:`FES_MAX_SECONDS`; per
    configuration (arrays that broadcast): ``clients`` (None: an open workload), ``capacity``,
    ``threads`` (None: no limit), ``two_phases`` (cpu_time > 0 and wait_time > 0),
    ``thread_overhead``, ``processors`` and ``connections`` (None: no pool)."""
    B = np.asarray(capacity)
    top = B if clients is None else np.minimum(np.asarray(clients), B)
    T = top if threads is None else np.asarray(threads)
    C = T if connections is None else np.minimum(np.asarray(connections), T)
    top, T, C, two, theta, p = np.broadcast_arrays(top, T, C, np.asarray(two_phases, bool),
                                                   np.asarray(thread_overhead, float),
                                                   np.asarray(processors))
    return _estimate(top.ravel(), T.ravel(), C.ravel(), two.ravel(), theta.ravel(),
                     p.ravel(), method)


def _estimate(top, T, C, two_phases, theta, p, method: str) -> float:
    if method == "exact":
        sizes = _exact_sizes(top, T, two_phases)
        # the sparse LU's fill, and so the cost of a state, grows with the chain's width
        width = np.where(two_phases, np.minimum(T, top), 1).astype(np.float64)
        per_state = np.minimum(_EXACT_PER_STATE, 1e-6 + 0.7e-6 * np.sqrt(width))
        return sizes.size * _EXACT_PER_CONFIG + float(np.sum(sizes * per_state))
    holders = np.minimum(T, top)
    grid = two_phases & ((p > 1) | (C < holders))
    overhead = np.where((theta > 0) & two_phases & ~grid, holders, 0).astype(np.float64)
    plain = np.where((theta == 0) & two_phases & ~grid, holders, 0).astype(np.float64)
    gridded = np.where(grid & (theta > 0), holders, 0).astype(np.float64)
    recursed = np.where(grid & (theta == 0), holders, 0).astype(np.float64)
    states = top + 1.0
    return (float(np.sum(np.where(states > _LONG_CHAIN, _FES_PER_LONG_STATE, _FES_PER_STATE)
                         * states))
            + float(np.sum(plain)) * _FES_PER_STEP
            + float(np.sum(overhead * (overhead + 3.0) / 2)) * _FES_PER_INNER_STATE
            + float(np.sum(gridded * (gridded + 3.0) / 2)) * _FES_PER_GRID_TERM
            + float(np.sum(recursed)) * _FES_PER_HOLDER_STEP
            + float(np.sum(recursed * (recursed + 3.0) / 2)) * _FES_PER_RECURSION_TERM)


def _exact_sizes(top, T, two_phases, batch=None) -> np.ndarray:
    batch = np.zeros(np.size(top), bool) if batch is None else np.ravel(batch)
    return np.array([state_count(capacity=int(n), threads=int(t), two_phases=bool(two),
                                 batch=bool(b))
                     for n, t, two, b in zip(np.ravel(top), np.ravel(T), np.ravel(two_phases),
                                             batch, strict=True)],
                    dtype=np.float64)


def _check_exact_work(cfg: _Batch) -> None:
    two_phases = (cfg.cpu > 0) & (cfg.wait > 0)
    top = cfg.top
    sizes = _exact_sizes(top, cfg.T, two_phases, cfg.batch)
    largest = int(np.argmax(sizes))
    if sizes[largest] > EXACT_MAX_STATES:
        who = (f"capacity={cfg.B[largest]}" if cfg.open else
               f"clients={cfg.K[largest]}, capacity={cfg.B[largest]}")
        raise ValueError(
            f"the exact chain of {who}, threads={cfg.T[largest]} has {int(sizes[largest])} "
            f"states, too large: it must have at most EXACT_MAX_STATES = {EXACT_MAX_STATES} "
            "(about 8 s and 2 GB); use method='fes'"
        )
    seconds = _estimate(top, cfg.T, cfg.C, two_phases, cfg.theta, cfg.p, "exact")
    if seconds > EXACT_MAX_SECONDS:
        raise ValueError(
            f"clients, capacity and threads give {sizes.size} exact chains of "
            f"{int(sizes.sum())} states in all, about {seconds:.0f} s of work; one call must "
            f"stay within EXACT_MAX_SECONDS = {EXACT_MAX_SECONDS:g} s: split the batch or use "
            "method='fes'"
        )


def _check_fes_work(cfg: _Batch) -> None:
    top = cfg.top
    holders = np.minimum(cfg.T, top)
    two_phases = (cfg.cpu > 0) & (cfg.wait > 0)
    plain = _plain_inner(cfg, holders)
    own = np.where(two_phases & ((cfg.theta > 0) | ~plain), holders, 0)
    if own.max() > FES_MAX_OVERHEAD_THREADS:
        raise ValueError(
            "min(threads, capacity, clients) must be <= FES_MAX_OVERHEAD_THREADS = "
            f"{FES_MAX_OVERHEAD_THREADS} when thread_overhead > 0, processors > 1 or "
            f"connections < threads, got {int(own.max())}: use fewer threads or a smaller "
            "capacity"
        )
    seconds = _estimate(top, cfg.T, cfg.C, two_phases, cfg.theta, cfg.p, "fes")
    if seconds > FES_MAX_SECONDS:
        raise ValueError(
            f"clients, capacity and threads give {top.size} configurations with "
            f"{int(np.sum(top + 1.0))} states and {int(np.sum(holders, dtype=np.float64))} "
            f"thread counts in all, about {seconds:.0f} s of work; one call must stay within "
            f"FES_MAX_SECONDS = {FES_MAX_SECONDS:g} s: split the batch"
        )
