"""A fleet of servers behind a balancer, sharing one database.

The server, in the book's words. ``N`` identical instances stand behind a balancer that sends
each request to an instance at random (open arrivals at rate ``lambda`` in total, or ``K``
closed clients thinking ``Z``). Each instance is the general server of :func:`thread_pool`: at
most ``B`` requests admitted (a request that finds its instance full is refused: a closed client
thinks again, an open arrival is lost), ``T`` threads or none, ``p`` processors shared, a pool of
``C`` connections, first come first served. A request: processor time ``s_c`` on its instance
(processor sharing: with ``c`` requests in that phase they complete at rate ``min(c, p)/s_c``);
then it takes a connection (or waits for one holding its thread); then the **database**: service
of mean ``s_db`` on the database's ``p_db`` processors, shared by every request of every
instance that is in that phase (processor sharing); then an off-database wait ``s_w`` (network,
other services) still holding the connection; then it leaves, handing its connection and thread
on. Exponential times. ``N = 1`` with ``s_db = 0`` (or ``p_db`` unlimited and no contention,
where the database is a pure delay) is the model of :func:`thread_pool`. (The book's
foundations page writes the instances as ``I``: its ``N`` is a mean number in a system.)

**Contention** (``db_contention`` = ``sigma`` >= 0). With ``D`` requests in the database phase,
the database completes them at the total rate

    r(D) = min(D, p_db) / (s_db (1 + sigma (D - 1))),

shared equally among the ``D`` (processor sharing): each request's database time is stretched by
``1 + sigma (D - 1)``, the contention term of Gunther's Universal Scalability Law (the same form
as ``thread_overhead`` on an instance's processors). Below ``p_db`` the database's throughput
still grows with its concurrency, towards ``1/(sigma s_db)``; past ``p_db`` it *falls*, as
``p_db / (s_db (1 + sigma (D - 1)))``: locks, latches and buffer traffic grow with the sessions
at work while no further processor helps. This is the behaviour behind the practice of a small
pool near a few times the database's processors, with one coefficient that a fit of the
database's throughput against its concurrency gives (the USL's coherency term, kappa, which
makes the throughput fall even below ``p_db``, is left out: one coefficient is what a lab run
of a few concurrency levels can pin down). ``sigma = 0`` is plain processor sharing over
``p_db`` processors. Without ``db_processors`` the database has no processor limit
(``p_db`` = the most connections the fleet can hold, ``N min(C, T)``): it never slows down
unless ``db_contention`` says so.

Two methods.

``method="exact"``: the continuous-time Markov chain. An instance's state is ``(q, c, k, d,
o)``: requests waiting for a thread, in the processor phase, waiting for a connection, in the
database, in the off-database wait. The fleet's state is the *multiset* of its instances'
states (the instances are identical and the routing symmetric, so the chain lumps exactly over
permutations of the instances, about ``N!`` times fewer states), with the database's
concurrency ``D`` the sum of the ``d``. Neither workload is separable: the database couples the
instances (its speed depends on every instance's ``d``), and a closed population couples them
again (the arrival rate at an instance is ``(K - sum n)/(Z N)``). The chain therefore grows as
``binom(S + N - 1, N)`` for ``S`` states of one instance (``S`` grows as the cube of
``min(B, T)``: 165 states for ``B = 8`` with no thread limit, a pool that never binds and a
database phase): with no thread limit and such a pool, ``N = 2`` fits ``B`` up to about 13,
``N = 3`` about 6, ``N = 4`` about 4 (smaller ``T`` and ``C`` allow more). Above
:data:`FLEET_EXACT_MAX_STATES` states it is refused before anything is built.

``method="fes"``: an approximation, a fixed point of flow-equivalent servers, which scales
(``N = 64`` instances, ``p = 256``, ``p_db = 128``, pools of 1,000 connections: see
``results/validation_fleet.md`` for its time).

1. **The database and the off-database wait as one station.** The connection holders of the
   whole fleet, ``H`` of them, circulate between the database (rates ``r(D)``) and the
   off-database delay (mean ``s_w``): a closed product-form network whose throughput
   ``X_db(H)`` (and mean concurrency ``E[D | H]``, busy processors ``E[min(D, p_db) | H]``) is
   computed for ``H = 0..N min(C, T)`` once, by the recursion of its normalizing constants
   (probabilities below 1e-40 at either end of the support are dropped: the tables keep about
   13 digits).
2. **One instance against the others.** The other ``N - 1`` instances hold ``(N - 1) h``
   connections on average; an instance whose own ``j`` holders meet them completes its
   connection phases at the rate ``nu(j) = j X_db(j + (N - 1) h) / (j + (N - 1) h)``
   (linear in between integers): its own holders exactly (for ``N = 1`` this is the
   flow-equivalent server of the database and the wait, Norton's theorem), the others by
   their mean (for large ``N`` the fleet's total varies little about its mean).
3. **The instance** is then today's flow-equivalent server with that connection station: the
   thread holders form a product-form network of the processors (``a(c) = s_c^c / prod
   min(i, p)``) and the connection station (``b(w) = 1 / prod_{i<=w} nu(min(i, C))``), whose
   throughput ``X_in(m)`` is the death rate of a birth-death chain over the admitted requests
   ``n = 0..B`` with birth ``lambda/N`` (open; random routing splits a Poisson stream into
   ``N`` Poisson streams). Closed, the think delay and the ``N`` instances' flow-equivalent
   servers form a reversible network truncated at ``B`` per instance, solved exactly by
   convolution where it is small (:data:`CLOSED_CONVOLUTION_WORK`); above, the birth is
   ``(K - n - (N - 1) nbar)^+ / (Z N)``, the others' mean ``nbar`` admitted being the unique
   root of a decreasing function.
4. **The fixed point**: ``h`` is the mean connections held by an instance; the map from ``h``
   to the instance's held connections is increasing and maps ``[0, min(C, T)]`` into itself,
   so a root exists in the interval, found by Brent's method to 1e-12 relative.

The errors of the approximation: the thread holding time is not exponential (as in
:func:`thread_pool`'s ``"fes"``), the connection holding time (database plus wait) is not
exponential either, and for ``N > 1`` the others' connections and admitted requests enter by
their means. Their distribution against the exact chain over random configurations is
measured by ``scripts/validate_fleet.py`` (``results/validation_fleet.md``); reductions that
hold exactly are tests: ``N = 1`` with no database is today's ``"fes"`` (to 1e-12 relative), a
database with ``p_db >= N min(C, T)`` and no contention is a pure delay (today's model with
``wait_time = s_w + s_db``, to 1e-12 relative).

The metrics are the fleet's: ``throughput``, ``mean_in_system``, ``busy_threads``,
``queue_length``, ``busy_connections``, ``connection_queue_length`` and ``database_requests``
are totals over the instances; ``response_time``, ``queue_wait`` and ``connection_wait`` are
per request; ``utilization`` is the mean fraction of an instance's processors busy,
``database_utilization`` the mean fraction of the database's processors busy; ``p0``,
``error_rate`` and ``probabilities`` are of one instance's admitted requests (by symmetry the
same for every instance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq
from scipy.sparse.linalg import LinearOperator, gmres
from scipy.special import gammaln

from .._validation import as_choice, as_integer, as_nonnegative, as_time, broadcast
from .markov import RESIDUAL_TOLERANCE, stationary_distribution
from .results import ThreadPoolResult, shaped

__all__ = [
    "fleet",
    "FleetResult",
    "FLEET_EXACT_MAX_STATES",
    "FLEET_FES_MAX_HOLDERS",
    "FLEET_MAX_INSTANCES",
    "DB_TRIM",
    "fleet_state_count",
    "CLOSED_CONVOLUTION_WORK",
]

#: Largest lumped chain of ``method="exact"``. It is built state by state in Python (about
#: 0.2 ms per state of two instances) and solved by the sparse LU up to 3,000 states (about
#: 2 s there), by GMRES above (0.1 s for 7,260 states, 11 s for 13,695; measured on 2 busy
#: cores): chains near this limit take minutes.
FLEET_EXACT_MAX_STATES = 200_000
#: Largest ``min(threads, capacity, clients)`` per instance of ``method="fes"`` (its inner
#: network is O(m^2)) and largest total of connections ``N min(C, T)`` is ``64 * this``.
FLEET_FES_MAX_HOLDERS = 5_000
#: Most instances.
FLEET_MAX_INSTANCES = 4_096
#: Probabilities of the database's concurrency below this are dropped at either end of its
#: support in the recursion over the fleet's connection holders.
DB_TRIM = 1e-40
#: Every non-zero time and the arrival rate lie in this range (as :func:`thread_pool`).
TIME_RANGE = (1e-100, 1e100)
_FIXED_POINT_RTOL = 1e-12
_METHODS = ("exact", "fes")


@dataclass(frozen=True, kw_only=True)
class FleetResult(ThreadPoolResult):
    """Result of :func:`queuetune.thread_pool` with a fleet or a database.

    The fields of :class:`ThreadPoolResult` (the fleet's totals, see :mod:`.fleet`), and:

    Attributes
    ----------
    instances, db_processors, db_time, db_contention : int, float, ndarray or None
        As given (``db_processors`` None: no processor limit).
    database_utilization : float or ndarray
        Mean fraction of the database's processors busy (0 without a database phase or
        without ``db_processors``).
    database_requests : float or ndarray
        Mean number of requests in the database phase, over the fleet.
    busy_connections, connection_queue_length : float or ndarray
        Mean connections held, and threads waiting for one, over the fleet.
    connection_wait : float or ndarray
        Mean time a request waits for a connection, ``connection_queue_length / throughput``.
    """

    instances: Any
    db_processors: Any
    db_time: Any
    db_contention: Any
    database_utilization: Any
    database_requests: Any
    busy_connections: Any
    connection_queue_length: Any
    connection_wait: Any


@dataclass(frozen=True)
class _Config:
    """One configuration's scalars, checked; ``T``, ``C`` and ``pdb`` resolved."""

    N: int
    open: bool
    lam: float
    K: int
    Z: float
    B: int
    T: int
    p: int
    C: int
    cpu: float
    wait: float
    db: float
    pdb: int
    sigma: float
    limited: bool  # db_processors given (else pdb is the most connections, and the
    # database's utilization is reported as 0)

    @property
    def top(self) -> int:
        """Most admitted requests of one instance."""
        return self.B if self.open else min(self.B, self.K)

    @property
    def holders(self) -> int:
        return min(self.T, self.top)

    @property
    def has_db(self) -> bool:
        return self.db > 0

    def db_rate(self, D: np.ndarray | int) -> np.ndarray | float:
        """r(D), the database's total completion rate with D requests in it (D >= 1)."""
        return np.minimum(D, self.pdb) / (self.db * (1.0 + self.sigma * (np.asarray(D) - 1.0)))


# --------------------------------------------------------------------------- public


def fleet(
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
    instances: Any = 1,
    db_processors: Any = None,
    db_time: Any = 0.0,
    db_contention: Any = 0.0,
    method: str = "exact",
) -> FleetResult:
    """Solve the fleet of :mod:`.fleet` for one or many configurations.

    Arguments as in :func:`queuetune.thread_pool` (``arrival_rate`` and ``clients`` are the
    fleet's totals; ``wait_time`` is the off-database wait), and

    Parameters
    ----------
    instances : int or array_like of int
        N >= 1 (at most :data:`FLEET_MAX_INSTANCES`), identical instances behind a balancer
        that sends each request to one at random.
    db_processors : int, array_like of int, or None
        p_db >= 1, the database's processors shared by the requests in the database phase;
        None: no processor limit.
    db_time : float or array_like
        s_db, mean database service time of a request (exponential): 0 (no database phase)
        or in :data:`TIME_RANGE`.
    db_contention : float or array_like
        sigma >= 0: with D requests in the database each one's service is stretched by
        ``1 + sigma (D - 1)``; needs ``db_time > 0``.
    method : {"exact", "fes"}
        The lumped Markov chain (at most :data:`FLEET_EXACT_MAX_STATES` states) or the fixed
        point of flow-equivalent servers.

    ``thread_overhead``, ``pool_overhead`` and a batch population (``think_time = 0``) are not
    part of the fleet model.
    """
    method = as_choice(method, "method", _METHODS)
    configs, shape, echoes = _validated(
        clients=clients, capacity=capacity, threads=threads, cpu_time=cpu_time,
        wait_time=wait_time, think_time=think_time, arrival_rate=arrival_rate,
        processors=processors, connections=connections, instances=instances,
        db_processors=db_processors, db_time=db_time, db_contention=db_contention)
    for cfg in configs:
        (_check_exact if method == "exact" else _check_fes)(cfg)
    solve = _solve_exact if method == "exact" else _solve_fes
    rows = [solve(cfg) for cfg in configs]
    metrics = {key: np.array([row[0][key] for row in rows]) for key in _KEYS}
    levels = [row[1] for row in rows]
    offsets = np.concatenate([[0], np.cumsum([lv.size for lv in levels])])
    return FleetResult(
        **{key: shaped(value, shape) for key, value in metrics.items()},
        **echoes,
        thread_overhead=shaped(np.zeros(len(configs)), shape),
        pool_overhead=shaped(np.zeros(len(configs)), shape),
        method=method,
        levels=np.concatenate(levels),
        level_offsets=offsets,
        quantile_function=_no_quantiles,
    )


def _no_quantiles(probability: Any) -> np.ndarray:
    raise NotImplementedError("response-time percentiles are not computed for a fleet or a "
                              "database (instances > 1 or db_time > 0)")


_KEYS = ("throughput", "response_time", "utilization", "mean_in_system", "p0", "error_rate",
         "rejection_probability", "attempt_rate", "drop_rate", "busy_threads", "queue_length",
         "queue_wait", "database_utilization", "database_requests", "busy_connections",
         "connection_queue_length", "connection_wait")


# --------------------------------------------------------------------------- checks


def _validated(**given):
    is_open = given["arrival_rate"] is not None
    if is_open and (given["clients"] is not None or given["think_time"] is not None):
        raise ValueError("arrival_rate must be None when clients and think_time are given: "
                         "give one workload, open (arrival_rate) or closed (clients and "
                         "think_time)")
    if not is_open and (given["clients"] is None or given["think_time"] is None):
        raise ValueError("clients and think_time must be given (a closed workload), or "
                         "arrival_rate instead of both (an open one)")
    named = {
        "clients": None if is_open else as_integer(given["clients"], "clients"),
        "capacity": as_integer(given["capacity"], "capacity"),
        "threads": (None if given["threads"] is None
                    else as_integer(given["threads"], "threads")),
        "processors": as_integer(given["processors"], "processors"),
        "connections": (None if given["connections"] is None
                        else as_integer(given["connections"], "connections")),
        "cpu_time": as_time(given["cpu_time"], "cpu_time", TIME_RANGE, zero=True),
        "wait_time": as_time(given["wait_time"], "wait_time", TIME_RANGE, zero=True),
        "think_time": (None if is_open
                       else as_time(given["think_time"], "think_time", TIME_RANGE)),
        "arrival_rate": (as_time(given["arrival_rate"], "arrival_rate", TIME_RANGE)
                         if is_open else None),
        "instances": as_integer(given["instances"], "instances",
                                maximum=FLEET_MAX_INSTANCES),
        "db_processors": (None if given["db_processors"] is None
                          else as_integer(given["db_processors"], "db_processors")),
        "db_time": as_time(given["db_time"], "db_time", TIME_RANGE, zero=True),
        "db_contention": as_nonnegative(given["db_contention"], "db_contention"),
    }
    present = [(name, value) for name, value in named.items() if value is not None]
    arrays = dict(zip([name for name, _ in present], broadcast(*present), strict=True))
    shape = arrays["capacity"].shape
    flat = {name: value.ravel() for name, value in arrays.items()}
    configs = [_config(flat, i, is_open) for i in range(flat["capacity"].size)]
    echoes = {}
    for name in ("clients", "capacity", "threads", "processors", "connections", "cpu_time",
                 "wait_time", "think_time", "arrival_rate", "instances", "db_processors",
                 "db_time", "db_contention"):
        if name not in arrays:
            echoes[name] = None
            continue
        values = arrays[name].reshape(shape)
        kind = float if values.dtype.kind == "f" else int
        echoes[name] = kind(values) if shape == () else values.copy()
    return configs, shape, echoes


def _config(flat: dict, i: int, is_open: bool) -> _Config:
    B = int(flat["capacity"][i])
    K = B if is_open else int(flat["clients"][i])
    top = B if is_open else min(B, K)
    T = top if "threads" not in flat else int(flat["threads"][i])
    C = T if "connections" not in flat else min(int(flat["connections"][i]), T)
    N = int(flat["instances"][i])
    cpu, wait = float(flat["cpu_time"][i]), float(flat["wait_time"][i])
    db, sigma = float(flat["db_time"][i]), float(flat["db_contention"][i])
    if cpu == 0 and wait == 0 and db == 0:
        raise ValueError("cpu_time, wait_time and db_time must not all be 0 (one must be > 0)")
    if sigma > 0 and db == 0:
        raise ValueError(f"db_contention must be 0 when db_time is 0 (no database phase), got "
                         f"db_contention={sigma:g}")
    unlimited = N * min(C, T, top)
    pdb = unlimited if "db_processors" not in flat else int(flat["db_processors"][i])
    return _Config(N=N, open=is_open, lam=float(flat["arrival_rate"][i]) if is_open else 0.0,
                   K=K, Z=1.0 if is_open else float(flat["think_time"][i]), B=B, T=T,
                   p=int(flat["processors"][i]), C=C, cpu=cpu, wait=wait, db=db,
                   pdb=max(1, pdb), sigma=sigma, limited="db_processors" in flat)


def fleet_state_count(*, instances: int, local_states: int) -> int:
    """Most states of the lumped chain: multisets of ``instances`` of ``local_states``,
    ``binom(local_states + instances - 1, instances)``."""
    return math.comb(local_states + instances - 1, instances)


def _check_exact(cfg: _Config) -> None:
    local = len(_local_states(cfg)[0])
    count = fleet_state_count(instances=cfg.N, local_states=local)
    if count > FLEET_EXACT_MAX_STATES:
        raise ValueError(
            f"the exact chain of instances={cfg.N} with {local} states each has up to {count} "
            f"states: it must have at most FLEET_EXACT_MAX_STATES = {FLEET_EXACT_MAX_STATES}; "
            "use method='fes'")


def _check_fes(cfg: _Config) -> None:
    if cfg.holders > FLEET_FES_MAX_HOLDERS:
        raise ValueError(
            f"min(threads, capacity, clients) must be <= FLEET_FES_MAX_HOLDERS = "
            f"{FLEET_FES_MAX_HOLDERS} with method='fes', got {cfg.holders}: give fewer threads "
            "or a smaller capacity")
    total = cfg.N * min(cfg.C, cfg.holders)
    if cfg.has_db and total > 64 * FLEET_FES_MAX_HOLDERS:
        raise ValueError(
            f"instances * min(connections, threads) must be <= {64 * FLEET_FES_MAX_HOLDERS} "
            f"with a database phase and method='fes', got {total}")


# --------------------------------------------------------------------------- exact chain

# an instance's state: (q, c, k, d, o) = waiting for a thread, in the processor phase, waiting
# for a connection, in the database, in the off-database wait


def _leave(s, cfg):
    """The request has left (already taken out of its phase): its connection goes to the oldest
    thread waiting for one, its thread to the oldest request waiting for one."""
    q, c, k, d, o = s
    if k > 0 and d + o < cfg.C:
        s, _ = _start_db((q, c, k - 1, d, o), cfg)
        q, c, k, d, o = s
    if q > 0 and c + k + d + o < cfg.T:
        s, _ = _start_holder((q - 1, c, k, d, o), cfg)
    return s, True


def _start_off(s, cfg):
    q, c, k, d, o = s
    return ((q, c, k, d, o + 1), False) if cfg.wait > 0 else _leave(s, cfg)


def _start_db(s, cfg):
    q, c, k, d, o = s
    return ((q, c, k, d + 1, o), False) if cfg.has_db else _start_off(s, cfg)


def _start_conn(s, cfg):
    q, c, k, d, o = s
    return _start_db(s, cfg) if d + o < cfg.C else ((q, c, k + 1, d, o), False)


def _start_holder(s, cfg):
    q, c, k, d, o = s
    return ((q, c + 1, k, d, o), False) if cfg.cpu > 0 else _start_conn(s, cfg)


def _arrive(s, cfg):
    q, c, k, d, o = s
    if q + c + k + d + o >= cfg.B:
        return None
    if c + k + d + o < cfg.T:
        return _start_holder(s, cfg)
    return (q + 1, c, k, d, o), False


def _cpu_done(s, cfg):
    q, c, k, d, o = s
    return _start_conn((q, c - 1, k, d, o), cfg) if c > 0 else None


def _db_done(s, cfg):
    q, c, k, d, o = s
    return _start_off((q, c, k, d - 1, o), cfg) if d > 0 else None


def _off_done(s, cfg):
    q, c, k, d, o = s
    return _leave((q, c, k, d, o - 1), cfg) if o > 0 else None


_EVENTS = (_arrive, _cpu_done, _db_done, _off_done)


def _local_states(cfg: _Config):
    """The states of one instance reachable from empty (closed: at most ``min(B, K)``
    admitted), and per event the target index (-1: none) and whether it is a departure."""
    start = (0, 0, 0, 0, 0)
    index = {start: 0}
    states = [start]
    targets = []
    i = 0
    while i < len(states):
        row = []
        for event in _EVENTS:
            out = event(states[i], cfg)
            if out is None or (event is _arrive and sum(states[i]) >= cfg.top):
                row.append((-1, False))
                continue
            target, departed = out
            if target not in index:
                index[target] = len(states)
                states.append(target)
            row.append((index[target], departed))
        targets.append(row)
        i += 1
    return np.array(states, dtype=np.int64), targets


def _solve_exact(cfg: _Config):
    local, targets = _local_states(cfg)
    n_loc = local.sum(axis=1)
    q, c, k, d, o = local.T
    N = cfg.N
    target = np.array([[t for t, _ in row] for row in targets])
    departs = np.array([[dep for _, dep in row] for row in targets])
    cpu_rate = np.minimum(c, cfg.p) / cfg.cpu if cfg.cpu > 0 else np.zeros(len(local))
    off_rate = o / cfg.wait if cfg.wait > 0 else np.zeros(len(local))
    start = (0,) * N
    index = {start: 0}
    states = [start]
    rows, cols, vals = [], [], []
    departure = []
    i = 0
    while i < len(states):
        s = states[i]
        D = int(sum(d[j] for j in s))
        admitted = int(sum(n_loc[j] for j in s))
        share = (float(cfg.db_rate(D)) / D) if D > 0 else 0.0
        arrival = cfg.lam / N if cfg.open else (cfg.K - admitted) / (cfg.Z * N)
        out_rate = 0.0
        seen = set()
        for pos, j in enumerate(s):
            if j in seen:
                continue
            seen.add(j)
            mult = s.count(j)
            rates = (arrival, cpu_rate[j], d[j] * share, off_rate[j])
            for e in range(4):
                t = target[j, e]
                r = rates[e] * mult
                if t < 0 or r <= 0:
                    continue
                new = list(s)
                new[pos] = int(t)
                new = tuple(sorted(new))
                if new not in index:
                    index[new] = len(states)
                    states.append(new)
                rows.append(i)
                cols.append(index[new])
                vals.append(r)
                if departs[j, e]:
                    out_rate += r
        departure.append(out_rate)
        i += 1
    size = len(states)
    rows, cols, vals = np.array(rows), np.array(cols), np.array(vals)
    outflow = np.bincount(rows, weights=vals, minlength=size)
    generator = sp.csr_matrix(
        (np.concatenate([vals, -outflow]),
         (np.concatenate([rows, np.arange(size)]), np.concatenate([cols, np.arange(size)]))),
        shape=(size, size))
    pi = _stationary(generator)
    grid = np.array(states, dtype=np.int64).reshape(size, N)  # local index per instance

    def total(values):
        return pi @ np.asarray(values, dtype=np.float64)[grid].sum(axis=1)

    held = np.minimum(n_loc, cfg.T)
    X = float(pi @ np.array(departure))
    D = d[grid].sum(axis=1)
    top = cfg.top
    levels = np.zeros(top + 1)
    for instance in range(N):
        levels += np.bincount(n_loc[grid[:, instance]], weights=pi, minlength=top + 1)
    levels /= N
    metrics = {
        "throughput": X,
        "mean_in_system": total(n_loc),
        "utilization": total(np.minimum(c, cfg.p) / cfg.p) / N,
        "busy_threads": total(held),
        "queue_length": total(q),
        "busy_connections": total(d + o),
        "connection_queue_length": total(k),
        "database_requests": float(pi @ D),
        "database_utilization": (float(pi @ (np.minimum(D, cfg.pdb) / cfg.pdb))
                                 if cfg.has_db and cfg.limited else 0.0),
        "p0": float(levels[0]),
    }
    full = (n_loc == cfg.B).astype(np.float64)
    if cfg.open:
        error = float(levels[cfg.B])
        metrics.update(error_rate=error, rejection_probability=error, attempt_rate=cfg.lam,
                       drop_rate=cfg.lam * error)
    else:
        thinking = cfg.K - n_loc[grid].sum(axis=1)
        attempts = float(pi @ thinking) / cfg.Z
        lost = float(pi @ (thinking * full[grid].sum(axis=1) / N)) / cfg.Z
        metrics.update(error_rate=float(levels[cfg.B]) if cfg.B <= top else 0.0,
                       rejection_probability=lost / attempts, attempt_rate=attempts,
                       drop_rate=lost)
    return _finish(metrics), levels


#: Chains up to this size are solved by the sparse LU of :mod:`.markov`; larger ones, whose
#: many dimensions make the factors fill (6 million entries for 7,260 states), by GMRES.
_DIRECT_STATES = 3_000


def _stationary(generator: sp.csr_matrix) -> np.ndarray:
    """``pi Q = 0``, ``sum pi = 1``: by :func:`.markov.stationary_distribution` for small
    chains; else with the empty state's weight fixed to 1 by restarted GMRES preconditioned by
    the diagonal (0.13 s against 10 s for the LU at 7,260 states), accepted when its relative
    residual ``max |pi Q| / max |Q_ii|`` is below :data:`.markov.RESIDUAL_TOLERANCE`, and
    otherwise handed to the LU."""
    size = generator.shape[0]
    if size <= _DIRECT_STATES:
        return stationary_distribution(generator, pinned=0)
    transposed = sp.csc_matrix(generator.T)
    keep = np.ones(size, dtype=bool)
    keep[0] = False
    rows = transposed[keep]
    matrix = sp.csr_matrix(rows[:, keep])
    rhs = -rows[:, [0]].toarray().ravel()
    diagonal = matrix.diagonal()
    preconditioner = LinearOperator(matrix.shape, lambda v: v / diagonal)
    x, info = gmres(matrix, rhs, M=preconditioner, rtol=1e-14, atol=0.0, restart=100,
                    maxiter=1000)
    pi = np.concatenate([[1.0], x])
    if info == 0 and np.all(np.isfinite(pi)) and pi.min() >= -1e-12 * pi.max():
        pi = np.maximum(pi, 0.0) / np.maximum(pi, 0.0).sum()
        scale = float(np.max(np.abs(generator.diagonal())))
        if float(np.max(np.abs(transposed @ pi))) / scale <= RESIDUAL_TOLERANCE:
            return pi
    return stationary_distribution(generator, pinned=0)


def _finish(metrics: dict) -> dict:
    X = metrics["throughput"]
    metrics["response_time"] = metrics["mean_in_system"] / X
    metrics["queue_wait"] = metrics["queue_length"] / X
    metrics["connection_wait"] = metrics["connection_queue_length"] / X
    metrics["utilization"] = min(metrics["utilization"], 1.0)
    return metrics


# --------------------------------------------------------------------------- approximation


class _Database:
    """The closed network of the fleet's connection holders, the database and the
    off-database delay: with H holders, ``P_H(D = j)`` is proportional to
    ``a(j) s_w^(H - j) / (H - j)!``, ``a(j) = 1 / prod_{i<=j} r(i)``; its throughput
    ``X_db(H) = E[r(D) | H]``, its mean concurrency ``E[D | H]`` and busy share
    ``E[min(D, p_db) | H] / p_db``."""

    def __init__(self, cfg: _Config, size: int):
        self.cfg = cfg
        self.size = size  # H = 0..size-1
        rates = np.asarray(cfg.db_rate(np.arange(1, size)), dtype=np.float64)
        self.rate = np.concatenate([[0.0], rates])
        self.rate_inv = np.concatenate([[0.0], 1.0 / rates])
        self.log_a = np.concatenate([[0.0], -np.cumsum(np.log(rates))])

    def _direct(self, H: int):
        """``P_H(j)`` on its support (terms below :data:`DB_TRIM` of the largest dropped)
        straight from the product form, in logs: ``(low, probabilities)``."""
        if H == 0:
            return 0, np.array([1.0])
        if self.cfg.wait == 0:
            return H, np.array([1.0])
        j = np.arange(H + 1)
        log_w = self.log_a[:H + 1] + (H - j) * math.log(self.cfg.wait) - gammaln(H - j + 1.0)
        w = np.exp(log_w - log_w.max())
        keep = np.flatnonzero(w >= DB_TRIM)
        w = w[keep[0]:keep[-1] + 1]
        return int(keep[0]), w / w.sum()

    def window(self, start: int, count: int):
        """``X_db``, ``E[D]`` and the busy share for H = start..start+count-1: the first from
        the product form, the others by the recursion of the normalizing constants,
        ``P_H(j) = X(H) P_{H-1}(j - 1) / r(j)`` for j >= 1, ``P_H(0) = X(H) P_{H-1}(0) s_w / H``,
        ``X(H) = 1 / sum``, dropping terms below :data:`DB_TRIM` at either end of the support
        (its lower end only moves up as H grows)."""
        pdb = self.cfg.pdb
        x, req, busy = np.zeros(count), np.zeros(count), np.zeros(count)
        low, dist = self._direct(start)
        for i in range(count):
            H = start + i
            if i > 0:
                terms = np.empty(dist.size + 1)
                terms[1:] = dist * self.rate_inv[low + 1:low + dist.size + 1]
                # P_H(low): with low > 0 it would come from P_{H-1}(low - 1), dropped
                terms[0] = dist[0] * self.cfg.wait / H if low == 0 else 0.0
                total = terms.sum()
                x[i] = 1.0 / total
                dist = terms / total
                keep = np.flatnonzero(dist >= DB_TRIM)
                first, last = int(keep[0]), int(keep[-1])
                dist = dist[first:last + 1]
                low += first
            values = np.arange(low, low + dist.size)
            if i == 0:
                x[i] = float(dist @ self.rate[values])
            req[i] = float(dist @ values)
            busy[i] = float(dist @ np.minimum(values, pdb)) / pdb
        return x, req, busy

    def around(self, others: float, own: int):
        """The three tables at H = others + j, j = 0..own (linear between integers)."""
        start = min(int(math.floor(others)), self.size - 1)
        count = min(own + 2, self.size - start)
        x, req, busy = self.window(start, count)
        f = others - start
        j = np.arange(own + 1)
        low, high = np.minimum(j, count - 1), np.minimum(j + 1, count - 1)
        return tuple((1 - f) * t[low] + f * t[high] for t in (x, req, busy))


@dataclass(frozen=True)
class _Instance:
    """One instance's inner networks (m = 0..holders thread holders) for a given connection
    station: per m its throughput, processors' utilization, connections held, threads waiting
    for a connection, and the fleet's database requests and busy share seen with them."""

    x: np.ndarray
    u: np.ndarray
    conn: np.ndarray
    conn_queue: np.ndarray
    db_requests: np.ndarray
    db_busy: np.ndarray


def _instance(cfg: _Config, nu_inv: np.ndarray, db_requests: np.ndarray,
              db_busy: np.ndarray) -> _Instance:
    """The product-form networks of the processors and the connection station, by the
    recursion over m: ``P_m(c) = X(m) (s_c / min(c, p)) P_{m-1}(c - 1)`` for c >= 1,
    ``P_m(0) = X(m) P_{m-1}(0) / nu(min(m, C))`` and ``X(m) = 1 / sum``, all terms kept.
    ``nu_inv[j]`` is ``1 / nu(j)`` for j = 0..min(C, holders) (0 where the connection phase
    takes no time); ``db_requests[j]`` and ``db_busy[j]`` are the database's with j own
    holders. The distribution is kept by ``w = m - c`` (past the processors), so that each
    step multiplies it by the processors' factors and appends the entry ``w = m``."""
    M, Cc = cfg.holders, min(cfg.C, cfg.holders)
    x = np.zeros(M + 1)
    w = np.arange(M + 1)
    held = np.minimum(w, Cc)
    # per w: connections held, threads waiting for one, the database's requests and busy share
    table = np.stack([held, w - held, db_requests[held], db_busy[held]], axis=1).astype(float)
    sums = np.zeros((M + 1, 4))
    sums[0] = table[0]
    # s_c / min(c, p) for c = M..1, so that c = m - w for w = 0..m-1 is a slice
    cpu_steps = (cfg.cpu / np.minimum(np.arange(1, M + 1), cfg.p))[::-1]
    dist = np.zeros(M + 1)
    dist[0] = 1.0
    for m in range(1, M + 1):
        last = dist[m - 1] * nu_inv[min(m, Cc)]
        dist[:m] *= cpu_steps[M - m:]
        dist[m] = last
        total = dist[:m + 1].sum()
        x[m] = 1.0 / total
        dist[:m + 1] /= total
        sums[m] = dist[:m + 1] @ table[:m + 1]
    u = x * cfg.cpu / cfg.p
    return _Instance(x, u, sums[:, 0], sums[:, 1], sums[:, 2], sums[:, 3])


def _outer(cfg: _Config, inst: _Instance, others: float) -> np.ndarray:
    """P(n admitted) of one instance, n = 0..top: a birth-death chain with death
    ``X_in(min(n, T))`` and birth ``lambda/N`` or ``(K - n - others)^+ / (Z N)``."""
    top = cfg.top
    n = np.arange(top)
    if cfg.open:
        birth = np.full(top, cfg.lam / cfg.N)
    else:
        birth = np.maximum(cfg.K - n - others, 0.0) / (cfg.Z * cfg.N)
    death = inst.x[np.minimum(np.arange(1, top + 1), cfg.T)]
    with np.errstate(divide="ignore"):
        log_terms = np.concatenate([[0.0], np.cumsum(np.log(birth) - np.log(death))])
    p = np.exp(log_terms - log_terms.max())
    return p / p.sum()


def _levels(cfg: _Config, inst: _Instance):
    """P(n) of one instance, and (closed) the mean clients thinking with it at each n."""
    n = np.arange(cfg.top + 1)
    if cfg.open:
        return _outer(cfg, inst, 0.0), None
    if cfg.N == 1:
        levels = _outer(cfg, inst, 0.0)
        return levels, (cfg.K - n).astype(np.float64)
    if _convolution_work(cfg) <= CLOSED_CONVOLUTION_WORK:
        return _closed_product_form(cfg, inst)

    def gap(others: float) -> float:  # decreasing in others
        return float(_outer(cfg, inst, others) @ n) * (cfg.N - 1) - others

    high = float(min(cfg.top, cfg.K) * (cfg.N - 1))
    others = high if gap(high) >= 0 else brentq(gap, 0.0, high, xtol=1e-12,
                                                rtol=_FIXED_POINT_RTOL)
    return _outer(cfg, inst, others), np.maximum(cfg.K - n - others, 0.0)


#: Largest work (``N min(K, N B) (B + 1)`` terms) of the closed fleet's product form; above
#: it the others enter by their mean admitted.
CLOSED_CONVOLUTION_WORK = 20_000_000


def _convolution_work(cfg: _Config) -> int:
    return cfg.N * min(cfg.K, cfg.N * cfg.top) * (cfg.top + 1)


def _log_convolve(log_a: np.ndarray, log_b: np.ndarray, cap: int) -> np.ndarray:
    """``log sum_k exp(log_a[m - k] + log_b[k])`` for m = 0..min(cap, len_a + len_b - 2)."""
    size = min(cap + 1, log_a.size + log_b.size - 1)
    padded = np.concatenate([np.full(log_b.size - 1, -np.inf), log_a,
                             np.full(log_b.size, -np.inf)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, log_b.size)[:size]
    terms = windows + log_b[::-1][None, :]
    return _logsumexp_rows(terms)


def _logsumexp_rows(terms: np.ndarray) -> np.ndarray:
    top = terms.max(axis=1)
    finite = np.isfinite(top)
    out = np.full(terms.shape[0], -np.inf)
    out[finite] = top[finite] + np.log(
        np.exp(terms[finite] - top[finite, None]).sum(axis=1))
    return out


def _closed_product_form(cfg: _Config, inst: _Instance):
    """The closed fleet with each instance replaced by its flow-equivalent server: the think
    delay and N load-dependent stations (rate ``X_in(min(n, T))``, visited with probability
    1/N) form a reversible network, and refusing an arrival at a full instance (its client
    thinks again, memoryless) truncates it, so ``P(n_1, .., n_N)`` is proportional to
    ``Z^k / k! prod_i N^(-n_i) / prod_{j<=n_i} X_in(j)`` with ``k = K - sum n_i`` thinking and
    every ``n_i <= B``. One instance's marginal comes from the (N - 1)-fold convolution of the
    others, in logs."""
    top, K, N = cfg.top, cfg.K, cfg.N
    n = np.arange(top + 1)
    death = inst.x[np.minimum(n[1:], cfg.T)]
    log_f = np.concatenate([[0.0], np.cumsum(-np.log(death) - math.log(N))])
    others = np.array([0.0])
    for _ in range(N - 1):
        others = _log_convolve(others, log_f, K)
    s = np.arange(K + 1)
    log_think = (K - s) * math.log(cfg.Z) - gammaln(K - s + 1.0)
    m = np.arange(others.size)
    total = n[:, None] + m[None, :]
    with np.errstate(invalid="ignore"):
        joint = np.where(total <= K, log_f[:, None] + others[None, :]
                         + log_think[np.minimum(total, K)], -np.inf)
    weights = np.exp(joint - joint.max())
    levels = weights.sum(axis=1)
    thinking = (weights @ m.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        thinking = np.where(levels > 0, K - n - thinking / levels, 0.0)
    return levels / levels.sum(), thinking


def _connection_station(cfg: _Config, db: _Database | None, mean_held: float):
    """``1/nu(j)`` and the database's requests and busy share with j = 0..min(C, holders) own
    connection holders, the others holding ``(N - 1) mean_held``."""
    Cc = min(cfg.C, cfg.holders)
    j = np.arange(Cc + 1, dtype=np.float64)
    if db is None:
        inv = np.full(Cc + 1, cfg.wait) / np.maximum(j, 1.0)
        return inv, np.zeros(Cc + 1), np.zeros(Cc + 1)
    others = (cfg.N - 1) * mean_held
    x, requests, busy = db.around(others, Cc)
    H = j + others
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(j > 0, H / (j * x), 0.0)  # nu(j) = j X_db(H) / H
    return inv, requests, busy


def _solve_fes(cfg: _Config):
    Cc = min(cfg.C, cfg.holders)
    db = _Database(cfg, cfg.N * Cc + 1) if cfg.has_db else None

    def solve(mean_held: float):
        inst = _instance(cfg, *_connection_station(cfg, db, mean_held))
        levels, thinking = _levels(cfg, inst)
        held = inst.conn[np.minimum(np.arange(cfg.top + 1), cfg.T)]
        return inst, (levels, thinking), float(levels @ held)

    if db is None or cfg.N == 1:
        inst, levels, _ = solve(0.0)
    else:
        def gap(h: float) -> float:
            return solve(h)[2] - h

        high = float(Cc)
        mean_held = high if gap(high) >= 0 else brentq(gap, 0.0, high, xtol=1e-13,
                                                      rtol=_FIXED_POINT_RTOL)
        inst, levels, _ = solve(mean_held)
    return _fes_metrics(cfg, inst, *levels), levels[0]


def _fes_metrics(cfg: _Config, inst: _Instance, levels: np.ndarray, thinking) -> dict:
    """The fleet's metrics from one instance's P(n) and (closed) the mean clients thinking
    with each n."""
    N, top = cfg.N, cfg.top
    n = np.arange(top + 1)
    m = np.minimum(n, cfg.T)
    X = N * float(levels @ inst.x[m])
    metrics = {
        "throughput": X,
        "mean_in_system": N * float(levels @ n),
        "utilization": float(levels @ inst.u[m]),
        "busy_threads": N * float(levels @ m),
        "queue_length": N * float(levels @ (n - m)),
        "busy_connections": N * float(levels @ inst.conn[m]),
        "connection_queue_length": N * float(levels @ inst.conn_queue[m]),
        "database_requests": float(levels @ inst.db_requests[m]) if cfg.has_db else 0.0,
        "database_utilization": (min(float(levels @ inst.db_busy[m]), 1.0)
                                 if cfg.has_db and cfg.limited else 0.0),
        "p0": float(levels[0]),
    }
    if cfg.open:
        full = float(levels[cfg.B])
        metrics.update(error_rate=full, rejection_probability=full, attempt_rate=cfg.lam,
                       drop_rate=cfg.lam * full)
    else:
        attempts = float(levels @ thinking) / cfg.Z
        lost = float(levels[top] * thinking[top]) / cfg.Z if cfg.B <= top else 0.0
        metrics.update(error_rate=float(levels[cfg.B]) if cfg.B <= top else 0.0,
                       rejection_probability=lost / attempts if attempts > 0 else 0.0,
                       attempt_rate=attempts, drop_rate=lost)
    return _finish(metrics)
