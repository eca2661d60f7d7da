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
is held for a CPU phase plus a waiting phase, which is not exponential, and its error reaches
several percent (its distribution over the documented domain is measured by
``scripts/benchmark_models.py``). It is solved for all configurations of a call together:
the inner networks across configurations, the outer chains as rows of one array.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_choice, as_integer, as_nonnegative, as_time, broadcast
from .birth_death import log_stationary_distribution
from .markov import stationary_distribution
from .results import ThreadPoolResult, shaped
from .single_server import MAX_STATES, solve_summary
from .thread_pool_chain import build_chain, cpu_time_per_request, state_count

__all__ = [
    "thread_pool",
    "EXACT_MAX_STATES",
    "EXACT_MAX_SECONDS",
    "FES_MAX_SECONDS",
    "FES_MAX_OVERHEAD_THREADS",
    "TIME_RANGE",
    "estimated_seconds",
]

#: Largest chain of ``method="exact"``. The sparse LU of a 1-million-state chain takes up to
#: about 8 s and 2 GB on a 2-core machine (two-dimensional chains, e.g. 5000 clients and 200
#: threads; ``make benchmark``); larger chains are refused before anything is allocated.
EXACT_MAX_STATES = 1_000_000
#: Largest estimated time of one call with ``method="exact"``, which solves its configurations
#: one by one: about 0.7 ms per configuration plus 1 to 8 us per state, more in wider chains
#: (measured, 2 cores).
EXACT_MAX_SECONDS = 10.0
#: Largest estimated time of one call with ``method="fes"``: up to 80 ns per state of the outer
#: chains (400 ns in chains of more than 2**22 states), 0.3 us per inner population without
#: overhead and 15 ns per state of the inner networks with ``thread_overhead > 0`` (measured,
#: 2 cores).
FES_MAX_SECONDS = 10.0
#: Largest ``min(threads, capacity, clients)`` of ``method="fes"`` with ``thread_overhead > 0``:
#: each holder count then has its own inner network, O(m) work each.
FES_MAX_OVERHEAD_THREADS = 20_000
#: Every non-zero time (and the CPU time with overhead) must lie in this range.
TIME_RANGE = (1e-100, 1e100)

_METHODS = ("exact", "fes")
_NAMES = ("clients", "capacity", "threads", "cpu_time", "wait_time", "think_time",
          "thread_overhead", "pool_overhead")
# Measured costs behind the admission guards (seconds, 2 cores; see make benchmark).
_EXACT_PER_CONFIG, _EXACT_PER_STATE = 7e-4, 8e-6
_FES_PER_STATE, _FES_PER_LONG_STATE, _LONG_CHAIN = 8e-8, 4e-7, 1 << 22
_FES_PER_STEP, _FES_PER_INNER_STATE = 3e-7, 1.5e-8
# Rows of the outer chains solved together (about 2**21 numbers, 16 MiB per temporary).
_BLOCK_ELEMENTS = 1 << 21
# The inner recursion runs across configurations while at least this many are going, then one
# configuration at a time in plain floats (about 8 us per vectorized step against 0.25 us per
# plain step and configuration).
_VECTOR_ROWS = 32


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
        Mean CPU time of a request (exponential): 0 or in :data:`TIME_RANGE`.
        ``cpu_time = 0`` removes the CPU phase: the server is then exactly M/M/T/B/K with
        service time ``wait_time``.
    wait_time : float or array_like
        Mean time a thread holder waits without the CPU (exponential): 0 or in
        :data:`TIME_RANGE`; 0 removes the waiting phase (with no overhead the server is then
        exactly M/M/1/B/K). At least one of ``cpu_time`` and ``wait_time`` must be > 0.
    think_time : float or array_like
        Z, mean think time, in :data:`TIME_RANGE`.
    thread_overhead, pool_overhead : float or array_like, optional
        >= 0. With ``a`` busy threads the mean CPU time per request is
        ``cpu_time * (1 + thread_overhead * (a - 1)) * (1 + pool_overhead * threads)``, which
        must stay in :data:`TIME_RANGE`.
    method : {"exact", "fes"}
        ``"exact"``: the Markov chain over (waiting, on CPU, waiting without CPU), solved as a
        sparse linear system, one configuration at a time; refused above
        :data:`EXACT_MAX_STATES` states or an estimated :data:`EXACT_MAX_SECONDS`.
        ``"fes"``: flow-equivalent-server decomposition (approximate; all configurations
        together; refused above an estimated :data:`FES_MAX_SECONDS`).

    The numeric arguments broadcast like NumPy arrays.

    Returns
    -------
    ThreadPoolResult
        The metrics of :func:`queuetune.mm1bk` (``utilization`` is the CPU's; ``p0``,
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
    metrics, levels, offsets = (_solve_exact if method == "exact" else _solve_fes)(*flat)
    echoes = {}
    for i, (name, values) in enumerate(zip(_NAMES, flat, strict=True)):
        kind = int if i < 3 else float
        echoes[name] = kind(values[0]) if shape == () else values.reshape(shape).copy()
    return ThreadPoolResult(
        **{key: shaped(value, shape) for key, value in metrics.items()},
        **echoes,
        method=method,
        levels=levels,
        level_offsets=offsets,
    )


# --------------------------------------------------------------------------- exact


def _solve_exact(K, B, T, cpu, wait, Z, theta, phi):
    """Each configuration's chain solved on its own; metrics from its levels."""
    rows = []
    for cfg in zip(K, B, T, cpu, wait, Z, theta, phi, strict=True):
        k, b, t = (int(v) for v in cfg[:3])
        c, w, z, th, ph = (float(v) for v in cfg[3:])
        chain = build_chain(k, b, t, c, w, z, th, ph)
        pinned = _likely_state(chain, k, b, t, c, w, z, th, ph)
        pi = stationary_distribution(chain.generator, pinned=pinned)
        levels = np.bincount(chain.level, weights=pi, minlength=min(k, b) + 1)
        rows.append((levels, float(pi @ chain.departure_rate),
                     float(pi[chain.on_cpu >= 1].sum())))
    width = max(levels.size for levels, _, _ in rows)
    padded = np.zeros((len(rows), width))
    for i, (levels, _, _) in enumerate(rows):
        padded[i, :levels.size] = levels
    metrics = _metrics(padded, K, B, T, Z,
                       throughput=np.array([x for _, x, _ in rows]),
                       utilization=np.array([u for _, _, u in rows]))
    flat, offsets = _ragged(padded, np.minimum(K, B))
    return metrics, flat, offsets


def _likely_state(chain, K, B, T, cpu, wait, Z, theta, phi) -> int:
    """A state of high probability, to pin in the linear solve: the most likely level under
    the flow-equivalent approximation, and within it the most likely number on the CPU of
    the inner network (a machine-repairman model, Imre et al. eq. (3) with think time
    ``wait_time``)."""
    one = [np.array([v]) for v in (K, B, T, cpu, wait, Z, theta, phi)]
    _, approx, _ = _solve_fes(*one)
    level = int(np.argmax(approx))
    states = np.flatnonzero(chain.level == level)
    if states.size == 1:
        return int(states[0])
    busy = min(level, T)
    ratio = wait / cpu_time_per_request(cpu, busy, T, theta, phi)
    on_cpu = int(np.clip(np.floor(busy + 1 - ratio), 0, busy))
    return int(states[on_cpu])


# --------------------------------------------------------------------------- fes


def _solve_fes(K, B, T, cpu, wait, Z, theta, phi):
    """Flow-equivalent server for every configuration: the inner networks, then the outer
    birth-death chains in row blocks of similar size. Each configuration's numbers are
    computed in the same order whatever else is solved with it."""
    top = np.minimum(K, B)
    holders = np.minimum(T, top)
    inner_x, inner_u, starts = _inner_networks(holders, cpu, wait, T, theta, phi)
    order = np.argsort(-top, kind="stable")
    metrics = {key: np.empty(K.size) for key in _METRIC_KEYS}
    levels = np.empty(int(np.sum(top + 1)))
    offsets = np.concatenate([[0], np.cumsum(top + 1)])
    for rows in _row_blocks(top[order]):
        i = order[rows]
        width = int(top[i].max()) + 1
        n = np.arange(width)
        # X_in(min(n, T)) for n = 0..width-1 (held at min(T, C) past a chain's end)
        held = np.minimum(n[None, :], holders[i, None])
        x_n = inner_x[starts[i, None] + held]
        u_n = inner_u[starts[i, None] + held]
        with np.errstate(divide="ignore", invalid="ignore"):  # past a chain's end: ignored
            log_ratio = (np.log((K[i, None] - n[None, 1:] + 1.0) / Z[i, None])
                         - np.log(x_n[:, 1:]))
        p = np.exp(log_stationary_distribution(log_ratio, top[i]))
        block = _metrics(p, K[i], B[i], T[i], Z[i], throughput=_row_sums(p * x_n),
                         utilization=_row_sums(p * u_n))
        for key, value in block.items():
            metrics[key][i] = value
        levels[_ranges(offsets[i], top[i] + 1)] = p[n[None, :] <= top[i, None]]
    return metrics, levels, offsets


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


def _metrics(levels: np.ndarray, K, B, T, Z, *, throughput, utilization) -> dict:
    """The finite-source metrics from rows of ``P(n in system)`` (zero-padded), the
    throughput and the CPU's utilization."""
    n = np.arange(levels.shape[1])[None, :]
    held = np.minimum(n, T[:, None])
    full = np.where(B <= K, levels[np.arange(K.size), np.minimum(K, B)], 0.0)
    lost = np.where(B <= K, (K - B) * full, 0.0)  # no -0.0 when B > K
    mean = _row_sums(levels * n)
    thinking = _row_sums(levels * (K[:, None] - n).clip(0))  # sum_n (K - n) p_n, positive
    queue_length = _row_sums(levels * (n - held))
    return {
        "throughput": throughput,
        "response_time": mean / throughput,
        "utilization": np.minimum(utilization, 1.0),
        "mean_in_system": mean,
        "p0": levels[:, 0].copy(),
        "error_rate": full,
        "rejection_probability": lost / thinking,
        "attempt_rate": thinking / Z,
        "drop_rate": lost / Z,
        "busy_threads": _row_sums(levels * held),
        "queue_length": queue_length,
        "queue_wait": queue_length / throughput,
    }


def _ragged(padded: np.ndarray, top: np.ndarray):
    """Rows of ``padded`` cut to ``top + 1`` entries each, as one flat array with offsets."""
    offsets = np.concatenate([[0], np.cumsum(top + 1)])
    keep = np.arange(padded.shape[1])[None, :] <= top[:, None]
    return padded[keep], offsets


# --------------------------------------------------------------------------- checks


def _validated(clients, capacity, threads, cpu_time, wait_time, think_time, thread_overhead,
               pool_overhead, method):
    K = as_integer(clients, "clients")
    B = as_integer(capacity, "capacity")
    T = as_integer(threads, "threads")
    cpu = as_time(cpu_time, "cpu_time", TIME_RANGE, zero=True)
    wait = as_time(wait_time, "wait_time", TIME_RANGE, zero=True)
    Z = as_time(think_time, "think_time", TIME_RANGE)
    theta = as_nonnegative(thread_overhead, "thread_overhead")
    phi = as_nonnegative(pool_overhead, "pool_overhead")
    K, B, T, cpu, wait, Z, theta, phi = broadcast(*zip(_NAMES, (K, B, T, cpu, wait, Z, theta,
                                                                phi), strict=True))
    if ((cpu == 0) & (wait == 0)).any():
        raise ValueError("cpu_time and wait_time must not both be 0 (one must be > 0)")
    _check_overhead(cpu, T, theta, phi)
    top = np.minimum(K, B)
    if top.max() > MAX_STATES:
        raise ValueError(f"min(capacity, clients) must be <= MAX_STATES = {MAX_STATES}, got "
                         f"{int(top.max())}")
    if method == "exact":
        _check_exact_work(K, B, T, cpu, wait)
    else:
        _check_fes_work(K, B, T, cpu, wait, theta)
    return K, B, T, cpu, wait, Z, theta, phi


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


def estimated_seconds(K, B, T, two_phases, theta, method: str) -> float:
    """The measured-cost estimate of one call's time (seconds, 2 cores) that the admission
    guards compare with :data:`EXACT_MAX_SECONDS` and :data:`FES_MAX_SECONDS`; ``two_phases``
    (cpu_time > 0 and wait_time > 0) and ``theta`` (thread_overhead) per configuration."""
    if method == "exact":
        sizes = _exact_sizes(K, B, T, two_phases)
        # the sparse LU's fill, and so the cost of a state, grows with the chain's width
        width = np.where(two_phases, np.minimum(T, np.minimum(K, B)), 1).astype(np.float64)
        per_state = np.minimum(_EXACT_PER_STATE, 1e-6 + 0.7e-6 * np.sqrt(width))
        return sizes.size * _EXACT_PER_CONFIG + float(np.sum(sizes * per_state))
    top = np.minimum(K, B)
    holders = np.minimum(T, top)
    overhead = np.where((theta > 0) & two_phases, holders, 0).astype(np.float64)
    plain = np.where((theta == 0) & two_phases, holders, 0).astype(np.float64)
    states = top + 1.0
    return (float(np.sum(np.where(states > _LONG_CHAIN, _FES_PER_LONG_STATE, _FES_PER_STATE)
                         * states))
            + float(np.sum(plain)) * _FES_PER_STEP
            + float(np.sum(overhead * (overhead + 3.0) / 2)) * _FES_PER_INNER_STATE)


def _exact_sizes(K, B, T, two_phases) -> np.ndarray:
    return np.array([state_count(int(k), int(b), int(t), bool(two))
                     for k, b, t, two in zip(np.ravel(K), np.ravel(B), np.ravel(T),
                                             np.ravel(two_phases), strict=True)],
                    dtype=np.float64)


def _check_exact_work(K, B, T, cpu, wait) -> None:
    two_phases = (cpu > 0) & (wait > 0)
    sizes = _exact_sizes(K, B, T, two_phases)
    largest = int(np.argmax(sizes))
    if sizes[largest] > EXACT_MAX_STATES:
        raise ValueError(
            f"the exact chain of clients={K.flat[largest]}, capacity={B.flat[largest]}, "
            f"threads={T.flat[largest]} has {int(sizes[largest])} states, too large: it must "
            f"have at most EXACT_MAX_STATES = {EXACT_MAX_STATES} (about 8 s and 2 GB); use "
            "method='fes'"
        )
    seconds = estimated_seconds(K, B, T, two_phases, 0.0, "exact")
    if seconds > EXACT_MAX_SECONDS:
        raise ValueError(
            f"clients, capacity and threads give {sizes.size} exact chains of "
            f"{int(sizes.sum())} states in all, about {seconds:.0f} s of work; one call must "
            f"stay within EXACT_MAX_SECONDS = {EXACT_MAX_SECONDS:g} s: split the batch or use "
            "method='fes'"
        )


def _check_fes_work(K, B, T, cpu, wait, theta) -> None:
    top = np.minimum(K, B)
    holders = np.minimum(T, top)
    two_phases = (cpu > 0) & (wait > 0)
    overhead = np.where((theta > 0) & two_phases, holders, 0)
    if overhead.max() > FES_MAX_OVERHEAD_THREADS:
        raise ValueError(
            "min(threads, capacity, clients) must be <= FES_MAX_OVERHEAD_THREADS = "
            f"{FES_MAX_OVERHEAD_THREADS} when thread_overhead > 0, got {int(overhead.max())}"
        )
    seconds = estimated_seconds(K, B, T, two_phases, theta, "fes")
    if seconds > FES_MAX_SECONDS:
        raise ValueError(
            f"clients, capacity and threads give {top.size} configurations with "
            f"{int(np.sum(top + 1.0))} states and {int(np.sum(holders, dtype=np.float64))} "
            f"thread counts in all, about {seconds:.0f} s of work; one call must stay within "
            f"FES_MAX_SECONDS = {FES_MAX_SECONDS:g} s: split the batch"
        )
