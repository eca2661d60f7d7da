"""The continuous-time Markov chain of the thread-pool server.

The server: at most ``B`` requests are admitted (waiting for a thread or holding one); a request
that finds ``B`` admitted is refused (a closed client thinks again, an open arrival is lost). An
admitted request takes a free thread (of ``T``; no limit with ``threads=None``) or waits for one,
first come first served. It then needs its processor time (mean ``s_c``, exponential, processor
sharing over ``p`` processors: with ``c`` requests in that phase they complete at rate
``min(c, p) / s_c``), and then waits (mean ``s_w``, exponential, no processor) while its thread
holds one of ``C`` connections; a thread that finds no free connection waits for one, first come
first served, holding its thread and no processor.

A state is ``(n, c)``: ``n`` admitted requests, ``c`` thread holders in the processor phase.
With ``a = min(n, T)`` busy threads, ``q = n - a`` requests wait for a thread and ``w = a - c``
holders are past the processor: ``min(w, C)`` of them hold a connection and the rest wait for
one (a holder only waits for a connection when all ``C`` are held), so ``(n, c)`` fixes the
state. States are stored level by level (``n = 0..N``, ``N = min(B, K)`` closed, ``B`` open) and,
within a level, by ``c``. Transitions:

* arrival, rate ``(K - n) / Z`` (closed) or ``lambda`` (open) if ``n < N``: to the processor
  phase if a thread is free, else to the queue;
* processor completion, rate ``min(c, p) / cpu_eff(a)`` if ``c >= 1``: to the connection phase
  (``c - 1``); without a waiting phase it is a departure;
* wait completion, rate ``min(w, C) / wait_time``: a departure (a holder waiting for a
  connection takes the freed one); if ``q > 0`` the oldest waiting request takes the thread and
  enters the processor phase.

``cpu_eff(a) = cpu_time (1 + thread_overhead (a - 1)) (1 + pool_overhead T)``. With
``wait_time = 0`` every holder is in the processor phase (``c = a``); with ``cpu_time = 0``
every holder is past it (``c = 0``) and the server is M/M/min(T, C)/B/K (open: M/M/min(T, C)/B).
A closed population with ``think_time = 0`` (a batch: every completion is at once a new request;
it needs ``B >= K``) stays at ``n = K``: its chain is the level ``K`` alone, a departure and the
next arrival taken as one transition.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._validation import as_integer, as_nonnegative, as_scalar_integer, as_time
from .finite_source import TIME_RANGE

__all__ = ["ThreadPoolChain", "state_count", "build_chain", "cpu_time_per_request",
           "EXACT_MAX_STATES"]

#: Largest chain of ``method="exact"``. The sparse LU of a 1-million-state chain takes up to
#: about 8 s and 2 GB on a 2-core machine (two-dimensional chains, e.g. 5000 clients and 200
#: threads; ``make benchmark``); larger chains are refused before anything is allocated.
EXACT_MAX_STATES = 1_000_000


@dataclass(frozen=True)
class ThreadPoolChain:
    """States and generator of the chain; arrays are indexed by state."""

    level: np.ndarray  # n, requests in the server
    on_cpu: np.ndarray  # c, holders in the CPU phase
    holders: np.ndarray  # a = min(n, T), busy threads
    departure_rate: np.ndarray  # rate of completed requests out of the state
    generator: sp.csr_matrix


def cpu_time_per_request(
    cpu_time: float, busy: np.ndarray, threads: int, thread_overhead: float, pool_overhead: float
) -> np.ndarray:
    """Mean CPU time of a request when ``busy`` threads are held (contention and pool size)."""
    busy = as_integer(busy, "busy").astype(np.float64)
    return cpu_time * (1.0 + thread_overhead * (busy - 1.0)) * (1.0 + pool_overhead * threads)


def state_count(*, clients: int | None = None, capacity: int, threads: int | None,
                two_phases: bool, batch: bool = False) -> int:
    """Number of states, computed with Python integers before anything is allocated
    (``clients=None``: an open workload; ``threads=None``: no thread limit; ``batch``: a closed
    population with zero think time, whose chain is one level)."""
    capacity = as_scalar_integer(capacity, "capacity")
    top = capacity if clients is None else min(as_scalar_integer(clients, "clients"), capacity)
    threads = top if threads is None else as_scalar_integer(threads, "threads")
    full = min(threads, top)
    if not two_phases:
        return 1 if batch else top + 1
    if batch:
        return full + 1
    return (full + 1) * (full + 2) // 2 + (top - full) * (threads + 1)


@dataclass(frozen=True)
class _Server:
    """The scalar parameters of one chain, checked."""

    top: int
    T: int
    p: int
    C: int
    cpu: float
    wait: float
    birth: np.ndarray  # arrival rate at each level 0..top-1
    batch: bool
    theta: float
    phi: float


def _server(clients, capacity, threads, cpu_time, wait_time, think_time, arrival_rate,
            processors, connections, thread_overhead, pool_overhead) -> _Server:
    capacity = as_scalar_integer(capacity, "capacity")
    if (clients is None) == (arrival_rate is None):
        raise ValueError("arrival_rate must be given without clients, or clients (with "
                         "think_time) without arrival_rate")
    if arrival_rate is None:
        K = as_scalar_integer(clients, "clients")
        if think_time is None:
            raise ValueError("think_time must be given with clients")
        Z = float(as_time(think_time, "think_time", TIME_RANGE, zero=True))
        top = min(K, capacity)
        batch = Z == 0
        if batch and capacity < K:
            raise ValueError(f"think_time must be > 0 when capacity < clients (0, a batch "
                             f"population, needs capacity >= clients), got think_time=0 with "
                             f"capacity={capacity} < clients={K}")
        birth = np.zeros(top) if batch else (K - np.arange(top)) / Z
    else:
        if think_time is not None:
            raise ValueError("think_time must be None with arrival_rate (an open workload)")
        rate = float(as_time(arrival_rate, "arrival_rate", TIME_RANGE))
        top, batch, birth = capacity, False, np.full(capacity, rate)
    T = top if threads is None else as_scalar_integer(threads, "threads")
    p = as_scalar_integer(processors, "processors")
    C = T if connections is None else min(as_scalar_integer(connections, "connections"), T)
    cpu = float(as_time(cpu_time, "cpu_time", TIME_RANGE, zero=True))
    wait = float(as_time(wait_time, "wait_time", TIME_RANGE, zero=True))
    theta = float(as_nonnegative(thread_overhead, "thread_overhead"))
    phi = float(as_nonnegative(pool_overhead, "pool_overhead"))
    if cpu == 0 and wait == 0:
        raise ValueError("cpu_time and wait_time must not both be 0 (one must be > 0)")
    if threads is None and phi > 0:
        raise ValueError("pool_overhead must be 0 with threads=None (no pool to pay for)")
    worst = cpu * (1.0 + theta * (T - 1.0)) * (1.0 + phi * T)
    if not worst <= TIME_RANGE[1]:
        raise ValueError("thread_overhead and pool_overhead must keep the CPU time per request "
                         f"within {TIME_RANGE[1]:g} with every thread busy, got {worst:g}")
    return _Server(top, T, p, C, cpu, wait, birth, batch, theta, phi)


def build_chain(
    *,
    clients: int | None = None,
    capacity: int,
    threads: int | None,
    cpu_time: float,
    wait_time: float,
    think_time: float | None = None,
    arrival_rate: float | None = None,
    processors: int = 1,
    connections: int | None = None,
    thread_overhead: float = 0.0,
    pool_overhead: float = 0.0,
) -> ThreadPoolChain:
    """The chain's states and sparse generator (vectorized construction).

    Arguments as in :func:`queuetune.thread_pool` (scalars); at most :data:`EXACT_MAX_STATES`
    states are built.
    """
    s = _server(clients, capacity, threads, cpu_time, wait_time, think_time, arrival_rate,
                processors, connections, thread_overhead, pool_overhead)
    has_cpu, has_wait = s.cpu > 0, s.wait > 0
    size = state_count(capacity=s.top, threads=s.T, two_phases=has_cpu and has_wait,
                       batch=s.batch)
    if size > EXACT_MAX_STATES:
        raise ValueError(f"the chain has {size} states, too large for memory: it must have at "
                         f"most EXACT_MAX_STATES = {EXACT_MAX_STATES}")
    T, top = s.T, s.top
    levels = np.arange(top + 1)
    busy = np.minimum(levels, T)
    if has_cpu and has_wait:
        low, high = np.zeros_like(busy), busy
    elif has_cpu:
        low, high = busy, busy
    else:
        low, high = np.zeros_like(busy), np.zeros_like(busy)
    count = high - low + 1
    offset = np.concatenate([[0], np.cumsum(count)])
    n = np.repeat(levels, count)
    c = np.arange(offset[-1]) - offset[n] + low[n]
    a = busy[n]
    w = a - c if has_wait else np.zeros_like(c)
    q = n - a

    def index(level, cpu):
        return offset[level] + cpu - low[level]

    sources, targets, rates = [], [], []

    def add(mask, target_level, target_cpu, rate):
        sources.append(np.flatnonzero(mask))
        targets.append(index(target_level[mask], target_cpu[mask]))
        rates.append(np.broadcast_to(rate, n.shape)[mask])

    # arrivals: a free thread sends the request to the processor phase (without one: past it)
    arrive = n < top
    to_cpu = (a < T) & has_cpu
    arrival_cpu = c + to_cpu
    birth = np.concatenate([s.birth, [0.0]])[n]
    if not s.batch:
        add(arrive, n + 1, arrival_cpu, birth)
    departure = np.zeros(n.size)
    if has_cpu:
        # a >= 1 whenever c >= 1; the clip only keeps idle states out of the formula
        busy_cpu = np.maximum(a, 1)
        cpu_rate = np.minimum(c, s.p) / cpu_time_per_request(s.cpu, busy_cpu, T, s.theta,
                                                              s.phi)
        done = c >= 1
        if has_wait:
            add(done, n, c - 1, cpu_rate)
        else:
            add(done, n - 1, np.where(q > 0, c, c - 1), cpu_rate)
            departure = np.where(done, cpu_rate, 0.0)
    if has_wait:
        wait_rate = np.minimum(w, s.C) / s.wait
        leave = w >= 1
        add(leave, n - 1, np.where((q > 0) & has_cpu, c + 1, c), wait_rate)
        departure = wait_rate
    rows = np.concatenate(sources)
    cols = np.concatenate(targets)
    vals = np.concatenate(rates)
    if s.batch:
        rows, cols, vals, n, c, a, departure, offset = _one_level(
            rows, cols, vals, n, c, a, departure, offset, index, arrival_cpu, top)
    total = n.size
    outflow = np.bincount(rows, weights=vals, minlength=total)
    generator = sp.csr_matrix(
        (np.concatenate([vals, -outflow]), (np.concatenate([rows, np.arange(total)]),
                                            np.concatenate([cols, np.arange(total)]))),
        shape=(total, total),
    )
    return ThreadPoolChain(
        level=n, on_cpu=c, holders=a, departure_rate=np.asarray(departure, float),
        generator=generator,
    )


def _one_level(rows, cols, vals, n, c, a, departure, offset, index, arrival_cpu, top):
    """The chain of a batch population (zero think time): the states of level ``top`` only; a
    transition down to level ``top - 1`` continues at once with the arrival that refills it."""
    down = n[cols] == top - 1
    cols = cols.copy()
    cols[down] = index(np.full(int(down.sum()), top), arrival_cpu[cols[down]])
    keep = n[rows] == top
    first = offset[top]
    rows, cols, vals = rows[keep] - first, cols[keep] - first, vals[keep]
    at = n == top
    return rows, cols, vals, n[at], c[at], a[at], np.asarray(departure)[at], offset
