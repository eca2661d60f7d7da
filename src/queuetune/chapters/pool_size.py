"""The practical chapter's pool-size section: response time and throughput against the pool.

A fleet of ``I`` instances, each with a pool of ``C`` connections, all against one database of
``p_db`` processors (:mod:`queuetune.models.fleet`, through :func:`queuetune.thread_pool`,
method ``"fes"``). A request needs ``s_c`` of processor time on its instance, then a
connection, then ``s_db`` at the database (processor sharing over ``p_db``, each request's time
stretched by ``1 + sigma (D - 1)`` with ``D`` requests in the database: contention), then an
off-database wait ``s_w`` still holding the connection. Two workloads of the book's own
making, chosen to lie at the two ends:

* **database-bound** (:data:`DATABASE_BOUND`): ``s_db`` = 10 ms on ``p_db`` = 4, a 1 ms wait
  off the database; a connection is held mostly while the database works;
* **latency-bound** (:data:`LATENCY_BOUND`): ``s_db`` = 2 ms, ``s_w`` = 50 ms (a call to
  another service); a connection is held mostly while nobody works.

* :func:`pool_curves` - the fleet's mean response time, throughput and database utilization
  against the connections per instance, with and without contention;
* :func:`best_pool` - the pool of least response time on a curve, and the smallest pool
  within a tolerance of it;
* :func:`optimum_against_wait` - those pools for a range of off-database waits, beside
  Little's law ``X (s_db + s_w)`` and the rule of twice the database's processors.

>>> curve = pool_curves(DATABASE_BOUND, [2, 4, 8], contention=0.0)
>>> list(curve["total_connections"])
[4, 8, 16]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import integer, real
from ..models.thread_pool_server import thread_pool

__all__ = ["DATABASE_BOUND", "LATENCY_BOUND", "SETTING", "CONTENTION", "pool_curves",
           "best_pool", "optimum_against_wait"]

#: The fleet and its load, shared by both workloads: two instances of 4 processors each,
#: 2 ms of processor time per request, no thread limit, at most 200 admitted requests per
#: instance, 280 requests per second in total (70 % of the database-bound workload's
#: database, ``p_db / s_db`` = 400 per second).
SETTING: Mapping[str, Any] = {
    "instances": 2, "processors": 4, "cpu_time": 0.002, "capacity": 200,
    "arrival_rate": 280.0, "db_processors": 4,
}

#: The database's contention coefficient sigma of the section's contended curves (at 4
#: requests in the database each is 6 % slower than alone).
CONTENTION = 0.02
#: A pool is good enough within this share of the best response time (:func:`best_pool`).
TOLERANCE = 0.05
#: Response times within this relative difference count as equal in :func:`best_pool`. Past
#: the pool the load needs, a curve is flat to its last digits, and which of its pools is
#: least is decided by rounding (the fleet's chain solve rounds at about 1e-16 per state:
#: one processor's "best" pool of 21 was 23 on another), so the best is the first pool
#: within this of the least: a million times the rounding, far below what a reader sees.
EQUAL = 1e-9
#: The chapter draws a response time only where the fleet refuses less than this share.
CARRIED_REFUSED = 0.01

#: A request that holds its connection mostly while the database works.
DATABASE_BOUND: Mapping[str, Any] = {"name": "database-bound", "db_time": 0.010,
                                     "wait_time": 0.001}

#: A request that holds its connection mostly while waiting for another service.
LATENCY_BOUND: Mapping[str, Any] = {"name": "latency-bound", "db_time": 0.002,
                                    "wait_time": 0.050}


def _setting(overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    setting = dict(SETTING)
    for key, value in (overrides or {}).items():
        if key not in SETTING:
            raise ValueError(f"setting has no key {key!r}; known: {sorted(SETTING)}")
        setting[key] = value
    return setting


def pool_curves(workload: Mapping[str, Any], pools: Sequence[int], *, contention: float,
                setting: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The fleet at every pool of ``pools`` (connections per instance, integers >= 1).

    ``workload`` gives ``name``, ``db_time`` (s_db, s) and ``wait_time`` (s_w, s);
    ``contention`` is sigma >= 0; ``setting`` overrides keys of :data:`SETTING`. One row per
    pool: ``workload``, ``contention``, ``connections`` (C per instance),
    ``total_connections`` (``I C``), ``response_time`` and ``connection_wait`` (s, per
    request), ``throughput`` (requests/s, the fleet's), ``refused`` (the share of arrivals
    refused) and ``database_utilization``.
    """
    sigma = real(contention, "contention", low=0.0, high=1.0)
    pools = np.array([integer(c, "pools", low=1, high=10**4) for c in pools], dtype=np.int64)
    if pools.size == 0:
        raise ValueError("pools must list at least one pool size")
    s = _setting(setting)
    result = thread_pool(
        arrival_rate=s["arrival_rate"], capacity=s["capacity"], threads=None,
        cpu_time=s["cpu_time"], wait_time=workload["wait_time"], processors=s["processors"],
        connections=pools, instances=s["instances"], db_processors=s["db_processors"],
        db_time=workload["db_time"], db_contention=sigma, method="fes")
    throughput = np.atleast_1d(result.throughput)
    return pd.DataFrame({
        "workload": workload["name"],
        "contention": sigma,
        "connections": pools,
        "total_connections": pools * s["instances"],
        "response_time": np.atleast_1d(result.response_time),
        "connection_wait": np.atleast_1d(result.connection_wait),
        "throughput": throughput,
        "refused": 1.0 - throughput / s["arrival_rate"],
        "database_utilization": np.atleast_1d(result.database_utilization),
    })


def best_pool(curve: pd.DataFrame, *, tolerance: float = TOLERANCE) -> dict[str, Any]:
    """Where a curve of :func:`pool_curves` is best.

    ``best``: the row of least response time (the first of those within :data:`EQUAL`,
    relative, of the least: more connections improve on it by less); ``enough``: the
    smallest pool whose response time is within ``tolerance`` (a fraction, in [0, 1)) of that
    least, refusing no more than the best does (the pool past which more connections buy
    little). Each is given as ``connections``, ``total_connections``, ``response_time`` and
    ``throughput``; ``at_edge`` says that the least lies at the largest pool of the curve (so
    that a larger pool may be better still).
    """
    tol = real(tolerance, "tolerance", low=0.0, high=1.0, high_open=True)
    if curve.empty:
        raise ValueError("curve must have at least one row")
    ordered = curve.sort_values("connections", kind="stable").reset_index(drop=True)
    least = ordered["response_time"].min()
    best = ordered[ordered["response_time"] <= least * (1 + EQUAL)].iloc[0]
    good = ordered[(ordered["response_time"] <= (1 + tol) * best["response_time"])
                   & (ordered["refused"] <= best["refused"] + 1e-9)]
    enough = good.iloc[0]
    keys = ["connections", "total_connections", "response_time", "throughput"]
    return {
        "best": {k: best[k].item() for k in keys},
        "enough": {k: enough[k].item() for k in keys},
        "at_edge": bool(best["connections"] == ordered["connections"].iloc[-1]),
    }


def optimum_against_wait(waits: Sequence[float], pools: Sequence[int], *, db_time: float,
                         contention: float, setting: Mapping[str, Any] | None = None,
                         tolerance: float = TOLERANCE) -> pd.DataFrame:
    """For each off-database wait of ``waits`` (s), the best pools over ``pools``.

    One row per wait: ``wait_time``, ``share`` (``s_w / (s_db + s_w)``, the part of a
    connection's holding time spent off the database), ``little`` (Little's law,
    ``lambda (s_db + s_w)``, the connections the fleet keeps busy on average), ``twice_db``
    (``2 p_db``), and the total connections of :func:`best_pool`'s ``best`` and ``enough``
    with the least response time (s) and ``at_edge``.
    """
    s = _setting(setting)
    rows = []
    for w in waits:
        workload = {"name": f"s_w = {w * 1000:g} ms", "db_time": db_time, "wait_time": w}
        found = best_pool(pool_curves(workload, pools, contention=contention, setting=s),
                          tolerance=tolerance)
        rows.append({
            "wait_time": w,
            "share": w / (db_time + w),
            "little": s["arrival_rate"] * (db_time + w),
            "twice_db": 2 * s["db_processors"],
            "best": found["best"]["total_connections"],
            "enough": found["enough"]["total_connections"],
            "response_time": found["best"]["response_time"],
            "at_edge": found["at_edge"],
        })
    return pd.DataFrame(rows)
