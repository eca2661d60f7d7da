"""Sizing a fleet: instances, a pool per instance and threads, against one database.

The server is the fleet of :mod:`queuetune.models.fleet`: ``N`` identical instances behind a
balancer that sends each request to one at random, each with ``p`` processors, ``T`` threads,
a pool of ``C`` connections and an admission bound ``B``; a request takes processor time
``s_c``, then a connection, then the database (``s_db`` on ``p_db`` processors shared by every
request of every instance in that phase, stretched by ``1 + sigma (D - 1)`` with ``D`` of them
there: ``db_contention``), then an off-database wait ``s_w`` still holding the connection.

:func:`size_fleet` chooses, in this order (every evaluation is the fleet model,
``method="fes"``):

1. **Instances**: the given ``N``, else the fewest instances of ``p`` processors each of
   which carries ``lambda/N`` with the single-server criterion of :func:`queuetune.sizing.size`
   (a request waits for a processor at most ``tolerance`` of its service time at the headroom).
2. **One instance alone**: :func:`queuetune.sizing.size` at ``lambda/N`` (or ``ceil(K/N)``
   clients) with the connection held ``s_db + s_w`` and the database taken as never slowing
   down. Its pool ``C_1``, threads ``T_1`` and bound ``B_1`` are the starting point.
3. **The connection limit**: the fleet may hold at most ``M - r`` connections in total, ``M``
   the database's ``max_connections`` (default 100, PostgreSQL's default, the limit a fleet
   meets unless someone raised it) less ``r`` reserved for administrators (default 3,
   PostgreSQL's ``superuser_reserved_connections``: ordinary roles are refused above
   ``M - r``); per instance ``C_lim = floor((M - r)/N)``. A pool is never recommended above
   it (``C_lim < 1`` is refused: too many instances for the limit).
4. **The database's knee**. Where the database cannot queue (no contention, and ``p_db``
   at least the ``N min(C_1, T_1)`` connections: it is then a pure delay) the fleet is ``N``
   independent copies of one instance at ``lambda/N`` (random routing splits a Poisson
   stream into Poisson streams; closed clients, ``ceil(K/N)`` each, approximately), which
   step 2 sized: its settings are kept, the pool cut to ``C_lim`` if need be. Otherwise
   pools ``C = 1..min(C_1, C_lim)`` are solved at the peak (response time) and under
   overload (the fleet's ceiling, as in step 5). A pool must let the fleet carry the headroom,
   ``h`` times the peak, or, where the database (or the limit) cannot, at least ``busy_share``
   of the best ceiling of these pools. Without contention a larger pool never makes the mean
   response time worse, nor the ceiling lower, but past the database's knee it only moves the
   waiting from the pool into the database: the pool chosen is the smallest whose response
   time at the peak is within ``tolerance S`` (``S = s_c + s_db + s_w``) of that of
   ``min(C_1, C_lim)``, found by bisection (both criteria are monotone in the pool). With
   contention (``sigma > 0``) the database's throughput falls past its knee and the pool
   chosen is the one with the best response time at the peak: the best of a geometric grid of
   :data:`POOL_GRID` pools, refined by a ternary search between its neighbours (the response
   time taken as unimodal in the pool).
5. **Threads and bound** (with the pool of step 4 when the database queues or the pool was
   cut; else ``T_1`` and ``B_1``): ``T = max(T_1, C)``; the fleet's ceiling ``X_max`` is its
   throughput under a load ten times any ceiling (open arrivals, admission bound ``B_1``), and
   ``B = max(T, ceil(R_max X_max / N))`` (Little's law, as :func:`queuetune.sizing.size`).
6. **The limiting resource** at that ceiling: ``"instance processors"`` or ``"database
   processors"`` if at least ``busy_share`` busy (the busier of the two), else ``"pools"`` if
   the connections are that busy (``"connection limit"`` when the pool was cut by the limit of
   step 3), else ``"threads"``.

The answer's ``pools`` table solves the fleet at the peak for pools below and above the
choice (``C``, ``C_1``, ``C_lim`` and the powers of two from ``C/8`` to twice the largest of
them; rows above ``C_lim`` are marked ``within_limit`` False, their threads raised to the
pool; ``ceiling`` is the fleet's throughput under overload with that pool): its
``connection_wait`` (waiting for a connection, in the pool) and ``database_time`` (time in
the database phase, ``s_db`` plus its queueing) show where the waiting goes as the pool
grows.
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass, field

import numpy as np

from ._validation import integer, real
from .models.fleet import FLEET_MAX_INSTANCES, fleet
from .sizing import HEADROOM, LIMITS, erlang_c_servers, size

__all__ = ["size_fleet", "FleetSizing", "DB_MAX_CONNECTIONS", "DB_RESERVED_CONNECTIONS",
           "POOL_GRID", "RESOURCES"]

#: PostgreSQL's default ``max_connections``.
DB_MAX_CONNECTIONS = 100
#: PostgreSQL's default ``superuser_reserved_connections``: slots ordinary roles cannot take.
DB_RESERVED_CONNECTIONS = 3
#: Pools of the geometric grid searched with contention.
POOL_GRID = 16
#: The names of the limiting resource.
RESOURCES = ("instance processors", "threads", "pools", "database processors",
             "connection limit")
_OVERLOAD = 10.0


@dataclass(frozen=True)
class FleetSizing:
    """The answer of :func:`size_fleet`; :meth:`as_dict` is the JSON of
    ``python -m queuetune size`` with a fleet or a database.

    Settings per instance: ``connections`` (C), ``threads`` (T), ``capacity`` (B), for
    ``instances`` (N); ``total_connections`` N C, never above ``connection_limit`` (``M - r``).
    At the peak with these settings (the fleet model, ``method="fes"``): ``throughput`` (1/s,
    the fleet's), ``response_time`` (s, mean), ``connection_wait`` and ``database_time`` (s per
    request), ``utilization`` (an instance's processors), ``database_utilization``,
    ``refused``. ``ceiling`` (1/s) the fleet's throughput under overload and
    ``saturation_multiple`` its ratio to the peak; ``limiting_resource`` one of
    :data:`RESOURCES`. ``single_server``: what :func:`queuetune.sizing.size` advises per
    instance with the database taken as never slowing down (its pool, threads, bound, and that
    pool times N). ``pools``: the table of pools (see the module). ``inputs`` echoes the
    inputs (SI units).
    """

    inputs: dict
    headroom: float
    instances: int
    connections: int
    total_connections: int
    connection_limit: int
    threads: int
    capacity: int
    peak: float
    throughput: float
    response_time: float
    connection_wait: float
    database_time: float
    utilization: float
    database_utilization: float
    refused: float
    ceiling: float
    saturation_multiple: float
    limiting_resource: str
    single_server: dict
    pools: list = field(default_factory=list)
    warnings: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def size_fleet(*, processors: int, cpu_time: float, wait_time: float, db_time: float,
               db_processors: int | None = None, arrival_rate: float | None = None,
               clients: int | None = None, think_time: float | None = None,
               instances: int | None = None, db_max_connections: int = DB_MAX_CONNECTIONS,
               db_reserved_connections: int = DB_RESERVED_CONNECTIONS,
               db_contention: float = 0.0, headroom: float = HEADROOM,
               max_response_time: float | None = None, read_timeout: float | None = None,
               busy_share: float = 0.95, tolerance: float = 0.10) -> FleetSizing:
    """Size instances, pool per instance, threads and admission bound of a fleet sharing one
    database (see the module for the steps and :class:`FleetSizing` for the answer).

    ``processors`` p per instance, ``cpu_time`` s_c, ``wait_time`` s_w (the off-database
    wait, s, holding a connection), ``db_time`` s_db (s, > 0), ``db_processors`` p_db (None:
    no processor limit), ``arrival_rate`` (the fleet's, 1/s) or ``clients`` with
    ``think_time``, ``instances`` N (None: found from p), ``db_max_connections`` M and
    ``db_reserved_connections`` r, ``db_contention`` sigma (0 to 10), ``headroom``,
    ``max_response_time`` or ``read_timeout`` (bound B as in :func:`queuetune.sizing.size`).
    Raises ``ValueError`` naming the input and its range.
    """
    p = integer(processors, "processors", low=1, high=LIMITS["processors"][1])
    s_c = real(cpu_time, "cpu_time", low=LIMITS["cpu_time"][0], high=LIMITS["cpu_time"][1],
               unit="s")
    s_w = real(wait_time, "wait_time", low=0.0, high=LIMITS["wait_time"][1], unit="s")
    s_db = real(db_time, "db_time", low=1e-6, high=1e3, unit="s")
    p_db = None if db_processors is None else integer(db_processors, "db_processors", low=1,
                                                      high=4096)
    r = integer(db_reserved_connections, "db_reserved_connections", low=0, high=10**5 - 1)
    M = integer(db_max_connections, "db_max_connections", low=r + 1, high=10**5)
    sigma = real(db_contention, "db_contention", low=0.0, high=10.0)
    h = real(headroom, "headroom", low=LIMITS["headroom"][0], high=LIMITS["headroom"][1])
    share = real(busy_share, "busy_share", low=0.0, high=1.0, low_open=True, high_open=True)
    tol = real(tolerance, "tolerance", low=0.0, high=10.0, low_open=True)
    if arrival_rate is not None and (clients is not None or think_time is not None):
        raise ValueError("give either arrival_rate or clients with think_time, not both")
    if arrival_rate is None and (clients is None or think_time is None):
        raise ValueError("give arrival_rate, or clients with think_time")
    rate = None if arrival_rate is None else real(
        arrival_rate, "arrival_rate", low=LIMITS["arrival_rate"][0],
        high=LIMITS["arrival_rate"][1], unit="1/s")
    K = None if clients is None else integer(clients, "clients", low=1,
                                             high=LIMITS["clients"][1])
    Z = None if think_time is None else real(think_time, "think_time", low=0.0,
                                             low_open=True, high=LIMITS["think_time"][1],
                                             unit="s")
    S = s_c + s_db + s_w
    peak = rate if rate is not None else K / (Z + S)
    N = (_instances(p, s_c, S, h * peak, tol) if instances is None
         else integer(instances, "instances", low=1, high=FLEET_MAX_INSTANCES))
    limit = M - r
    C_lim = limit // N
    if C_lim < 1:
        raise ValueError(f"db_max_connections must leave at least one connection per instance: "
                         f"{M} less {r} reserved is {limit}, fewer than instances={N}")
    inputs = {"processors": p, "cpu_time": s_c, "wait_time": s_w, "db_time": s_db,
              "db_processors": p_db, "arrival_rate": rate, "clients": K, "think_time": Z,
              "instances": instances, "db_max_connections": M,
              "db_reserved_connections": r, "db_contention": sigma, "headroom": h,
              "max_response_time": max_response_time, "read_timeout": read_timeout,
              "busy_share": share, "tolerance": tol}
    one = size(processors=p, cpu_time=s_c, wait_time=s_db + s_w,
               arrival_rate=None if rate is None else rate / N,
               clients=None if K is None else math.ceil(K / N), think_time=Z, headroom=h,
               max_response_time=max_response_time, read_timeout=read_timeout,
               busy_share=share, tolerance=tol)
    C_1, T_1, B_1 = one.connections, one.threads, one.capacity
    model = _Model(p=p, s_c=s_c, s_w=s_w, s_db=s_db, p_db=p_db, sigma=sigma, N=N, rate=rate,
                   K=K, Z=Z)
    queues = sigma > 0 or (p_db is not None and p_db < N * min(C_1, T_1))
    if queues:
        C = _choose_pool(model, min(C_1, C_lim), T_1, B_1, sigma > 0, tol * S, h * peak,
                         share)
    else:
        C = min(C_1, C_lim)
    T = max(T_1, C)
    ceiling, busy = model.ceiling(C, T, max(B_1, T))
    if queues or C < C_1:
        B = max(T, math.ceil(one.max_response_time * ceiling / N - 1e-9))
    else:
        B = B_1
    at_peak = model.row(C, T, B)
    resource = _limiting(busy, share, cut=C_1 > C_lim and C == C_lim)
    pools = [model.row(c, max(T, c), max(B, c), limit=C_lim)
             for c in _table_pools(C, C_1, C_lim)]
    warnings = []
    if C_1 > C_lim:
        warnings.append(
            f"one instance alone would take a pool of {C_1} ({C_1 * N} for {N} instances), "
            f"more than the {limit} connections the database allows ordinary roles "
            f"({M} less {r} reserved): the pool is at most {C_lim} per instance")
    if one.processors_needed > p:
        warnings.append(f"each instance needs {one.processors_needed} processors for "
                        f"{h:g}× its share of the peak, more than its {p}: add instances")
    if peak <= ceiling < h * peak * (1 - 1e-9):
        warnings.append(
            f"the fleet saturates at {ceiling / peak:.3g}× the peak, short of the headroom of "
            f"{h:g}×: the {resource} limit it")
    if at_peak["refused"] > 1e-3 or ceiling < peak:
        warnings.append(
            f"the fleet cannot carry the peak: it refuses {at_peak['refused']:.1%} of it and "
            f"completes at most {ceiling:.4g} requests/s ({resource} limit it)")
    return FleetSizing(
        inputs=inputs, headroom=h, instances=N, connections=C, total_connections=N * C,
        connection_limit=limit, threads=T, capacity=B, peak=peak,
        throughput=at_peak["throughput"], response_time=at_peak["response_time"],
        connection_wait=at_peak["connection_wait"], database_time=at_peak["database_time"],
        utilization=at_peak["utilization"],
        database_utilization=at_peak["database_utilization"], refused=at_peak["refused"],
        ceiling=ceiling, saturation_multiple=ceiling / peak, limiting_resource=resource,
        single_server={"connections": C_1, "threads": T_1, "capacity": B_1,
                       "total_connections": N * C_1,
                       "processors_needed": one.processors_needed},
        pools=pools, warnings=warnings)


def _instances(p: int, s_c: float, S: float, load: float, tol: float) -> int:
    """The fewest N whose instances of p processors each meet the single-server criterion at
    ``load / N``."""
    N = max(1, math.ceil(load * s_c / p))
    while N <= FLEET_MAX_INSTANCES:
        if erlang_c_servers(load=load * s_c / N, tolerance=tol * S / s_c,
                            what="processors") <= p:
            return N
        N += 1
    raise ValueError(f"the load needs more than FLEET_MAX_INSTANCES = {FLEET_MAX_INSTANCES} "
                     f"instances of {p} processors: give more processors per instance")


@dataclass(frozen=True)
class _Model:
    """The fleet's inputs but the settings; solves one setting at the peak or under
    overload."""

    p: int
    s_c: float
    s_w: float
    s_db: float
    p_db: int | None
    sigma: float
    N: int
    rate: float | None
    K: int | None
    Z: float | None

    def solve(self, C, T, B, rate=None, open_=False):
        load = ({"arrival_rate": rate if rate is not None else self.rate}
                if open_ or self.rate is not None
                else {"clients": self.K, "think_time": self.Z})
        return fleet(**load, capacity=B, threads=T, connections=C, processors=self.p,
                     cpu_time=self.s_c, wait_time=self.s_w, instances=self.N,
                     db_processors=self.p_db, db_time=self.s_db,
                     db_contention=self.sigma, method="fes")

    def row(self, C: int, T: int, B: int, limit: int | None = None) -> dict:
        f = self.solve(C, T, B)
        X = float(f.throughput)
        row = {"connections": C, "total_connections": self.N * C, "threads": T,
               "capacity": B, "throughput": X, "response_time": float(f.response_time),
               "connection_wait": float(f.connection_wait),
               "database_time": float(f.database_requests) / X if X > 0 else math.nan,
               "utilization": float(f.utilization),
               "database_utilization": float(f.database_utilization),
               "refused": float(f.error_rate)}
        if limit is not None:
            row["within_limit"] = C <= limit
            row["ceiling"] = self.ceiling(C, T, B)[0]
        return row

    def ceiling(self, C: int, T: int, B: int) -> tuple[float, dict]:
        """The fleet's throughput under a load :data:`_OVERLOAD` times its smallest bound,
        and the busy shares of the instances' processors, the database and the pools."""
        bounds = [self.N * self.p / self.s_c, self.N * C / (self.s_db + self.s_w)]
        if self.p_db is not None:
            bounds.append(self.p_db / self.s_db)
        f = self.solve(C, T, B, rate=_OVERLOAD * min(bounds), open_=True)
        X = float(f.throughput)
        busy = {"instance processors": float(f.utilization),
                "database processors": (float(f.database_utilization)
                                        if self.p_db is not None else 0.0),
                "pools": float(f.busy_connections) / (self.N * C)}
        return X, busy


def _choose_pool(model: _Model, top: int, T: int, B: int, contention: bool,
                 slack: float, carry: float, share: float) -> int:
    """Step 4 of the module, among the pools 1..top."""
    @functools.cache
    def time_and_ceiling(c: int) -> tuple[float, float]:
        R = model.row(c, max(T, c), max(B, c))["response_time"]
        return (R if math.isfinite(R) else math.inf), model.ceiling(c, max(T, c), max(B, c))[0]

    if not contention:  # both monotone in the pool: the smallest good one by bisection
        best, most = time_and_ceiling(top)
        need = min(carry, share * most) * (1 - 1e-9)

        def good(c: int) -> bool:
            R, X = time_and_ceiling(c)
            return X >= need and R <= best + slack

        lo, hi = 1, top  # good(hi)
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if good(mid) else (mid + 1, hi)
        return hi
    pools = sorted({int(c) for c in np.round(np.geomspace(1, top, min(top, POOL_GRID)))})
    values = [time_and_ceiling(c) for c in pools]
    need = min(carry, share * max(X for _, X in values)) * (1 - 1e-9)
    times = [R if X >= need else math.inf for R, X in values]
    i = int(np.argmin(times))
    lo, hi = pools[max(i - 1, 0)], pools[min(i + 1, len(pools) - 1)]
    while hi - lo > 2:  # the best response time between the grid's neighbours (unimodal)
        a, b = lo + (hi - lo) // 3, hi - (hi - lo) // 3
        ra = time_and_ceiling(a)[0] if time_and_ceiling(a)[1] >= need else math.inf
        rb = time_and_ceiling(b)[0] if time_and_ceiling(b)[1] >= need else math.inf
        lo, hi = (lo, b) if ra <= rb else (a, hi)
    near = [c for c in range(lo, hi + 1) if time_and_ceiling(c)[1] >= need] or [pools[i]]
    return min(near + [pools[i]], key=lambda c: (time_and_ceiling(c)[0], c))


def _limiting(busy: dict, share: float, cut: bool) -> str:
    """Step 6 of the module."""
    first = max(("instance processors", "database processors"), key=lambda k: busy[k])
    if busy[first] >= share * (1 - 1e-9):
        return first
    if busy["pools"] >= share * (1 - 1e-9):
        return "connection limit" if cut else "pools"
    return "threads"


def _table_pools(chosen: int, single: int, limit: int) -> list[int]:
    """Pools of the table: powers of two up to twice the largest of interest, with the
    chosen pool, the single-server pool and the limit per instance."""
    top = max(chosen, single, limit)
    pools = {chosen, single, limit}
    c = 1
    while c <= 2 * top and c <= 10**5:
        if c >= max(1, chosen // 8):
            pools.add(c)
        c *= 2
    return sorted(pools)
