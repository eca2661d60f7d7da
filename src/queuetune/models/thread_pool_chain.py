"""The continuous-time Markov chain of the thread-pool server.

A state is ``(q, c, w)``: ``q`` admitted requests wait for a thread, ``c`` thread holders use
the CPU (processor sharing), ``w`` thread holders wait without the CPU (I/O, a database call).
With ``n = q + c + w`` requests in the server and ``a = c + w = min(n, T)`` busy threads the
state is fixed by ``(n, c)``: ``q = n - a``, ``w = a - c``. States are stored level by level
(``n = 0..C``, ``C = min(B, K)``) and, within a level, by ``c``. Transitions:

* arrival, rate ``(K - n) / Z`` if ``n < C``: to the CPU phase if a thread is free, else to
  the queue (``q + 1``);
* CPU completion, rate ``1 / cpu_eff(a)`` if ``c >= 1``: to the waiting phase (``c - 1``,
  ``w + 1``); without a waiting phase it is a departure;
* wait completion, rate ``w / wait_time``: a departure; if ``q > 0`` the oldest waiting
  request takes the thread and enters the CPU phase.

``cpu_eff(a) = cpu_time (1 + thread_overhead (a - 1)) (1 + pool_overhead T)``. With
``wait_time = 0`` every holder is in the CPU phase (``c = a``); with ``cpu_time = 0`` every
holder is in the waiting phase (``c = 0``) and the server is M/M/T/B/K.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._validation import as_integer, as_nonnegative, as_scalar_integer, as_time
from .single_server import TIME_RANGE

__all__ = ["ThreadPoolChain", "state_count", "build_chain", "cpu_time_per_request"]


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


def state_count(clients: int, capacity: int, threads: int, two_phases: bool) -> int:
    """Number of states, computed with Python integers before anything is allocated."""
    clients = as_scalar_integer(clients, "clients")
    capacity = as_scalar_integer(capacity, "capacity")
    threads = as_scalar_integer(threads, "threads")
    top = min(clients, capacity)
    if not two_phases:
        return top + 1
    full = min(threads, top)
    return (full + 1) * (full + 2) // 2 + (top - full) * (threads + 1)


def build_chain(
    clients: int,
    capacity: int,
    threads: int,
    cpu_time: float,
    wait_time: float,
    think_time: float,
    thread_overhead: float = 0.0,
    pool_overhead: float = 0.0,
) -> ThreadPoolChain:
    """The chain's states and sparse generator (vectorized construction).

    Arguments as in :func:`queuetune.thread_pool` (scalars); at most
    :data:`queuetune.models.thread_pool_server.EXACT_MAX_STATES` states are built.
    """
    from .thread_pool_server import EXACT_MAX_STATES

    clients = as_scalar_integer(clients, "clients")
    capacity = as_scalar_integer(capacity, "capacity")
    threads = as_scalar_integer(threads, "threads")
    cpu_time = float(as_time(cpu_time, "cpu_time", TIME_RANGE, zero=True))
    wait_time = float(as_time(wait_time, "wait_time", TIME_RANGE, zero=True))
    think_time = float(as_time(think_time, "think_time", TIME_RANGE))
    thread_overhead = float(as_nonnegative(thread_overhead, "thread_overhead"))
    pool_overhead = float(as_nonnegative(pool_overhead, "pool_overhead"))
    if cpu_time == 0 and wait_time == 0:
        raise ValueError("cpu_time and wait_time must not both be 0 (one must be > 0)")
    worst = cpu_time * (1.0 + thread_overhead * (threads - 1.0)) * (1.0 + pool_overhead * threads)
    if not worst <= TIME_RANGE[1]:
        raise ValueError("thread_overhead and pool_overhead must keep the CPU time per request "
                         f"within {TIME_RANGE[1]:g} with every thread busy, got {worst:g}")
    size = state_count(clients, capacity, threads, cpu_time > 0 and wait_time > 0)
    if size > EXACT_MAX_STATES:
        raise ValueError(f"the chain has {size} states, too large for memory: it must have at "
                         f"most EXACT_MAX_STATES = {EXACT_MAX_STATES}")
    K, T = clients, threads
    top = min(clients, capacity)
    has_cpu, has_wait = cpu_time > 0, wait_time > 0
    levels = np.arange(top + 1)
    busy = np.minimum(levels, T)
    if has_cpu and has_wait:
        low, high = np.zeros_like(busy), busy
    elif has_cpu:
        low, high = busy, busy
    else:
        low, high = np.zeros_like(busy), np.zeros_like(busy)
    size = high - low + 1
    offset = np.concatenate([[0], np.cumsum(size)])
    n = np.repeat(levels, size)
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

    # arrivals: a free thread sends the request to the CPU phase (or, without one, to waiting)
    arrive = n < top
    to_cpu = (a < T) & has_cpu
    add(arrive, n + 1, c + to_cpu, (K - n) / think_time)
    departure = np.zeros(n.size)
    if has_cpu:
        # a >= 1 whenever c >= 1; the clip only keeps idle states out of the formula
        busy_cpu = np.maximum(a, 1)
        cpu_rate = 1.0 / cpu_time_per_request(cpu_time, busy_cpu, T, thread_overhead,
                                              pool_overhead)
        done = c >= 1
        if has_wait:
            add(done, n, c - 1, cpu_rate)
        else:
            add(done, n - 1, np.where(q > 0, c, c - 1), cpu_rate)
            departure = np.where(done, cpu_rate, 0.0)
    if has_wait:
        wait_rate = w / wait_time
        leave = w >= 1
        add(leave, n - 1, np.where((q > 0) & has_cpu, c + 1, c), wait_rate)
        departure = wait_rate
    rows = np.concatenate(sources)
    cols = np.concatenate(targets)
    vals = np.concatenate(rates)
    total = offset[-1]
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
