"""The M/M/1/B/K model extended with a thread pool (the future work of Imre et al.).

``K`` clients (think time ``Z``) send requests to a server that admits at most ``B`` of them
(the connection queue; ``B`` counts every admitted request, waiting for a thread or holding
one); an arrival that finds ``B`` is dropped and its client thinks again. At most ``T``
requests hold a thread. A thread holder first needs an exponential CPU time (one
processor-sharing CPU), then holds its thread without the CPU for an exponential wait (I/O,
a database call, the paper's ``sleep()``), then releases the thread to the oldest waiting
request.

Overhead: with ``a`` busy threads the mean CPU time of a request is
``cpu_time (1 + thread_overhead (a - 1)) (1 + pool_overhead T)`` - contention among the busy
threads and memory pressure of the configured pool.

``method="exact"`` solves the Markov chain of :mod:`.thread_pool_chain`; ``method="fes"``
replaces the thread pool by a flow-equivalent server: the closed inner network (CPU queue
plus a delay station for the wait) is solved exactly with ``m = 1..T`` holders, and its
throughput ``X_in(m)`` is the death rate ``X_in(min(n, T))`` of a finite-source birth-death
chain (birth ``(K - n) / Z`` for ``n < B``). The decomposition is an approximation: a thread
is held for a CPU phase plus a waiting phase, which is not exponential, and with few threads
its error reaches several percent (see ``scripts/benchmark_models.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_choice, as_integer, as_nonnegative, as_positive
from .birth_death import log_stationary_distribution
from .markov import stationary_distribution
from .mm1bk import MAX_STATES, solve_summary
from .results import ThreadPoolResult, shaped
from .thread_pool_chain import build_chain, cpu_time_per_request, state_count

__all__ = [
    "thread_pool",
    "EXACT_MAX_STATES",
    "FES_MAX_OVERHEAD_THREADS",
    "TIME_RANGE",
]

#: Largest chain of ``method="exact"``. The sparse LU of a 2-million-state chain takes about
#: 30 s and 4 GB on a 2-core machine (two-dimensional chains, e.g. 10**4 clients and 200
#: threads); larger chains are refused before anything is allocated.
EXACT_MAX_STATES = 2_000_000
#: Largest ``min(threads, capacity, clients)`` of ``method="fes"`` with ``thread_overhead > 0``:
#: each holder count then has its own inner network, O(m) work each.
FES_MAX_OVERHEAD_THREADS = 20_000
#: Every non-zero time (and the CPU time with overhead) must lie in this range.
TIME_RANGE = (1e-100, 1e100)

_METHODS = ("exact", "fes")


def thread_pool(
    clients: Any,
    capacity: Any,
    threads: Any,
    cpu_time: Any,
    wait_time: Any,
    think_time: Any,
    *,
    thread_overhead: Any = 0.0,
    pool_overhead: Any = 0.0,
    method: str = "exact",
) -> ThreadPoolResult:
    """Solve the thread-pool server for one or many configurations.

    Parameters
    ----------
    clients : int or array_like of int
        K >= 1, number of clients.
    capacity : int or array_like of int
        B >= 1, most admitted requests (waiting for a thread or holding one).
    threads : int or array_like of int
        T >= 1, size of the thread pool.
    cpu_time : float or array_like
        Mean CPU time of a request (exponential), >= 0. ``cpu_time = 0`` removes the CPU
        phase: the server is then exactly M/M/T/B/K with service time ``wait_time``.
    wait_time : float or array_like
        Mean time a thread holder waits without the CPU (exponential), >= 0; 0 removes the
        waiting phase (with no overhead the server is then exactly M/M/1/B/K). At least one of
        ``cpu_time`` and ``wait_time`` must be > 0.
    think_time : float or array_like
        Z > 0, mean think time.
    thread_overhead, pool_overhead : float or array_like, optional
        >= 0. With ``a`` busy threads the mean CPU time per request is
        ``cpu_time * (1 + thread_overhead * (a - 1)) * (1 + pool_overhead * threads)``.
    method : {"exact", "fes"}
        ``"exact"``: the Markov chain over (waiting, on CPU, waiting without CPU), solved as a
        sparse linear system; refused above :data:`EXACT_MAX_STATES` states.
        ``"fes"``: flow-equivalent-server decomposition (approximate; fast at any size).

    The numeric arguments broadcast like NumPy arrays; configurations are solved one by one.

    Returns
    -------
    ThreadPoolResult
        The metrics of :func:`queuelab.mm1bk` (``utilization`` is the CPU's; ``p0``,
        ``error_rate = P(n = B)`` and ``probabilities`` are of the number of admitted
        requests) plus ``busy_threads``, ``queue_length`` and ``queue_wait`` (mean time an
        admitted request waits for a thread), and ``method``.

    Examples
    --------
    >>> res = thread_pool(50, 200, threads=10, cpu_time=0.02, wait_time=0.1, think_time=4.0)
    >>> print(f"X = {res.throughput:.3f}/s, busy threads = {res.busy_threads:.3f}")
    X = 12.118/s, busy threads = 1.529
    """
    method = as_choice(method, "method", _METHODS)
    args = _validated(
        clients, capacity, threads, cpu_time, wait_time, think_time, thread_overhead,
        pool_overhead, method,
    )
    shape = args[0].shape
    flat = [a.ravel() for a in args]
    solve = _solve_exact if method == "exact" else _solve_fes
    rows = [solve(*(int(v) if i < 3 else float(v) for i, v in enumerate(cfg)))
            for cfg in zip(*flat, strict=True)]
    width = max(row["probabilities"].size for row in rows)
    probabilities = np.zeros((len(rows), width))
    for i, row in enumerate(rows):
        probabilities[i, : row["probabilities"].size] = row["probabilities"]
    metrics = {
        key: shaped(np.array([row[key] for row in rows]), shape)
        for key in rows[0]
        if key != "probabilities"
    }
    names = ("clients", "capacity", "threads", "cpu_time", "wait_time", "think_time",
             "thread_overhead", "pool_overhead")
    echoes = {
        name: (values.reshape(shape)[()] if shape == () else values.reshape(shape).copy())
        for name, values in zip(names, flat, strict=True)
    }
    for name in names[:3]:
        if shape == ():
            echoes[name] = int(echoes[name])
    return ThreadPoolResult(
        **metrics,
        **echoes,
        probabilities=probabilities.reshape(shape + (width,)),
        method=method,
    )


def _solve_exact(K, B, T, cpu, wait, Z, theta, phi) -> dict:
    """Metrics from the stationary distribution of the full chain."""
    chain = build_chain(K, B, T, cpu, wait, Z, theta, phi)
    pinned = _likely_state(chain, K, B, T, cpu, wait, Z, theta, phi)
    pi = stationary_distribution(chain.generator, pinned=pinned)
    levels = np.bincount(chain.level, weights=pi, minlength=min(K, B) + 1)
    return _metrics(
        levels, K, B, T, Z,
        throughput=float(pi @ chain.departure_rate),
        utilization=float(pi[chain.on_cpu >= 1].sum()),
    )


def _likely_state(chain, K, B, T, cpu, wait, Z, theta, phi) -> int:
    """A state of high probability, to pin in the linear solve: the most likely level under
    the flow-equivalent approximation, and within it the most likely number on the CPU of
    the inner network (a machine-repairman model, Imre et al. eq. (3) with think time
    ``wait_time``)."""
    approx = _solve_fes(K, B, T, cpu, wait, Z, theta, phi)["probabilities"]
    level = int(np.argmax(approx))
    states = np.flatnonzero(chain.level == level)
    if states.size == 1:
        return int(states[0])
    busy = min(level, T)
    ratio = wait / cpu_time_per_request(cpu, busy, T, theta, phi)
    on_cpu = int(np.clip(np.floor(busy + 1 - ratio), 0, busy))
    return int(states[on_cpu])


def _solve_fes(K, B, T, cpu, wait, Z, theta, phi) -> dict:
    """Flow-equivalent server: inner network per holder count, outer birth-death chain."""
    top = min(K, B)
    inner_x, inner_u = _inner_network(min(T, top), cpu, wait, T, theta, phi)
    n = np.arange(1, top + 1)
    holders = np.minimum(n, T)
    death = inner_x[holders - 1]
    log_ratio = np.log((K - n + 1) / Z) - np.log(death)
    levels = np.exp(log_stationary_distribution(log_ratio[None, :], np.array([top]))[0])
    return _metrics(
        levels, K, B, T, Z,
        throughput=float(levels[1:] @ death),
        utilization=float(levels[1:] @ inner_u[holders - 1]),
    )


def _inner_network(m_max: int, cpu, wait, T, theta, phi):
    """Throughput and CPU utilization of the closed inner network with 1..m_max holders.

    The inner network is the CPU (a queue of demand ``cpu_eff(m)``) and a delay station of
    mean ``wait``. Without thread overhead the demand is the same for every m and the exact
    MVA recursion (Menascé & Almeida 2002) gives all m at once; with overhead each m is a
    machine-repairman model with its own demand (Imre et al. eqs. (3)-(4) with ``K = B = m``).
    """
    m = np.arange(1, m_max + 1)
    demand = cpu_time_per_request(cpu, m, T, theta, phi)
    if wait == 0:
        return 1.0 / demand, np.ones(m_max)
    if cpu == 0:
        return m / wait, np.zeros(m_max)
    if theta == 0:
        d = float(demand[0])
        x = np.empty(m_max)
        queue = 0.0
        # plain floats: this scalar recursion is about 20 times faster than on 0-d arrays
        for i in range(m_max):
            residence = d * (1.0 + queue)
            x[i] = (i + 1) / (wait + residence)
            queue = x[i] * residence
        return x, x * d
    summary = solve_summary(m, m, wait / demand)
    return summary["busy"] / demand, summary["busy"]


def _metrics(levels: np.ndarray, K, B, T, Z, *, throughput: float, utilization: float) -> dict:
    """The finite-source metrics from ``P(n in system)``, the throughput and the CPU's
    utilization."""
    n = np.arange(levels.size)
    held = np.minimum(n, T)
    mean = float(levels @ n)
    thinking = float(levels @ (K - n))  # sum_n (K - n) p_n, positive terms
    full = float(levels[-1]) if B <= K else 0.0
    lost = (K - B) * full if B <= K else 0.0  # no -0.0 when B > K
    queue_length = float(levels @ (n - held))
    return {
        "throughput": throughput,
        "response_time": mean / throughput,
        "utilization": min(utilization, 1.0),
        "mean_in_system": mean,
        "p0": float(levels[0]),
        "error_rate": full,
        "rejection_probability": lost / thinking,
        "attempt_rate": thinking / Z,
        "drop_rate": lost / Z,
        "busy_threads": float(levels @ held),
        "queue_length": queue_length,
        "queue_wait": queue_length / throughput,
        "probabilities": levels,
    }


def _validated(clients, capacity, threads, cpu_time, wait_time, think_time, thread_overhead,
               pool_overhead, method):
    K = as_integer(clients, "clients")
    B = as_integer(capacity, "capacity")
    T = as_integer(threads, "threads")
    cpu = as_nonnegative(cpu_time, "cpu_time")
    wait = as_nonnegative(wait_time, "wait_time")
    Z = as_positive(think_time, "think_time")
    theta = as_nonnegative(thread_overhead, "thread_overhead")
    phi = as_nonnegative(pool_overhead, "pool_overhead")
    values = (K, B, T, cpu, wait, Z, theta, phi)
    try:
        values = np.broadcast_arrays(*values)
    except ValueError as exc:
        shapes = ", ".join(str(v.shape) for v in values)
        raise ValueError(
            "clients, capacity, threads, cpu_time, wait_time, think_time, thread_overhead and "
            f"pool_overhead must broadcast to one shape, got shapes {shapes}"
        ) from exc
    K, B, T, cpu, wait, Z, theta, phi = values
    both_zero = (cpu == 0) & (wait == 0)
    if both_zero.any():
        raise ValueError("cpu_time and wait_time must not both be 0 (one must be > 0)")
    low, high = TIME_RANGE
    for name, arr in (("cpu_time", cpu), ("wait_time", wait), ("think_time", Z)):
        out = (arr != 0) & ((arr < low) | (arr > high))
        if out.any():
            raise ValueError(
                f"{name} must be 0 or lie in [{low:g}, {high:g}], got "
                f"{arr.flat[int(np.argmax(out))].item()!r}"
            )
    worst = cpu_time_per_request(cpu, np.maximum(T, 1), T, theta, phi)
    if not np.all(np.isfinite(worst) & (worst <= high)):
        raise ValueError(
            f"thread_overhead and pool_overhead must keep the CPU time per request "
            f"cpu_time * (1 + thread_overhead * (threads - 1)) * (1 + pool_overhead * threads) "
            f"<= {high:g}, got {np.max(worst).item():g}"
        )
    top = np.minimum(K, B)
    if method == "exact":
        two_phases = (cpu > 0) & (wait > 0)
        sizes = [state_count(int(k), int(b), int(t), bool(two))
                 for k, b, t, two in zip(K.flat, B.flat, T.flat, two_phases.flat, strict=True)]
        largest = int(np.argmax(sizes))
        if sizes[largest] > EXACT_MAX_STATES:
            raise ValueError(
                f"the exact chain of clients={K.flat[largest]}, capacity={B.flat[largest]}, "
                f"threads={T.flat[largest]} has {sizes[largest]} states, too large for memory: "
                f"it must have at most EXACT_MAX_STATES = {EXACT_MAX_STATES}; use method='fes'"
            )
    else:
        if top.max() > MAX_STATES:
            raise ValueError(
                f"min(capacity, clients) must be <= MAX_STATES = {MAX_STATES} for "
                f"method='fes', got {int(top.max())}"
            )
        inner = np.where(theta > 0, np.minimum(T, top), 0)
        if inner.max() > FES_MAX_OVERHEAD_THREADS:
            raise ValueError(
                "min(threads, capacity, clients) must be <= FES_MAX_OVERHEAD_THREADS = "
                f"{FES_MAX_OVERHEAD_THREADS} when thread_overhead > 0, got {int(inner.max())}"
            )
    return K, B, T, cpu, wait, Z, theta, phi
