"""Where the thread-limited model reproduces the qualitative statements of Imre et al.

The paper's measured curves are not in its text, so nothing can be fitted to them. What can be
asked is which parameters of :func:`queuetune.thread_pool` would reproduce what the paper says
about them. The stated inputs are held (Z = 4 s, S = 0.14 s, clients, thread pools and queue
sizes of Table 1, all read through :mod:`.claims`); S is split into CPU
time ``cpu_share * S`` and waiting time ``(1 - cpu_share) * S`` (so one request alone still
takes S), and contention is added with ``thread_overhead`` and ``pool_overhead``. Every
configuration is solved with the exact chain.

The six statements (:data:`STATEMENTS`) and how each is read:

* a response-time difference is *visible* when it reaches
  :data:`.claims.VISIBLE_GAP` (1 %) of the smaller value;
* a configuration *drops requests* at a client count when at least one request is expected to
  be dropped in one run of the stated length (``drop_rate`` times 20 minutes).

1. ``q200_threads_no_effect`` (IM-C1): with queue 200, 30 and 100 threads give response times
   that differ visibly at no client count;
2. ``q50_more_threads_faster`` (IM-C1): with queue 50, 100 threads respond visibly faster than
   30 at some client count and visibly slower at none;
3. ``q50_more_threads_more_errors`` (IM-C3): with queue 50, wherever either pool drops
   requests 100 threads drop a larger share (by 1 % of the smaller at least), and somewhere
   they do;
4. ``q50_faster_above_60`` (IM-C2): for one pool size at least, queue 50 responds visibly faster
   than queue 200 at every client count above 60;
5. ``q200_no_errors`` (IM-C3): with queue 200 neither pool drops requests;
6. ``q50_errors_above_50`` (IM-C3): with queue 50 both pools drop no request up to 50 clients
   and drop requests at every client count above 50.

:func:`evaluate` checks one (cpu_share, thread_overhead, pool_overhead) cell;
:func:`region_map` a grid of them (``scripts/map_imre_region.py`` stores the default grid in
``results/imre_region.csv``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ... import stated
from ..._validation import real
from ...models import thread_pool
from ...models.thread_pool_server import estimated_seconds
from . import claims as im

__all__ = ["STATEMENTS", "CPU_SHARES", "THREAD_OVERHEADS", "POOL_OVERHEADS", "metrics",
           "statements", "evaluate", "cell_seconds", "region_map", "COLUMNS",
           "REGION_MAX_SECONDS"]

STATEMENTS = {
    "q200_threads_no_effect": "IM-C1: queue 200, thread-pool size does not change R",
    "q50_more_threads_faster": "IM-C1: queue 50, 100 threads respond faster than 30",
    "q50_more_threads_more_errors": "IM-C3: queue 50, 100 threads drop more than 30",
    "q50_faster_above_60": "IM-C2: above 60 clients, queue 50 faster than queue 200",
    "q200_no_errors": "IM-C3: queue 200, no request dropped",
    "q50_errors_above_50": "IM-C3: queue 50, requests dropped once clients exceed 50",
}
#: Default grid: the CPU's share of S, 0.05 to 1 in steps of 0.05 ...
CPU_SHARES = tuple(round(0.05 * i, 2) for i in range(1, 21))
#: ... the extra CPU time per further busy thread (a fraction of the CPU time) ...
THREAD_OVERHEADS = (0.0, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2)
#: ... and the extra CPU time per configured thread.
POOL_OVERHEADS = (0.0, 1e-3, 3e-3)
#: Longest a :func:`region_map` may take, estimated before it starts (the default grid of 600
#: cells: about 200 s estimated, 70 s measured).
REGION_MAX_SECONDS = 600.0
#: Columns of :func:`evaluate` and :func:`region_map`, in order.
COLUMNS = ("cpu_share", "thread_overhead", "pool_overhead", *STATEMENTS, "statements_held",
           "q200_max_thread_gap", "q50_best_gain_100_threads", "q50_drop_share_100_vs_30",
           "throughput_at_most_clients", "im_c4_saturation_matches")


def metrics(cpu_share: float, thread_overhead: float = 0.0, pool_overhead: float = 0.0,
            *, method: str = "exact") -> pd.DataFrame:
    """The model at every (queue, threads, clients) of Table 1 for one parameter cell: one row
    each with ``response_time`` (s), ``throughput`` (1/s), ``rejection_probability`` and
    ``dropped_per_test`` (expected drops in one run).

    ``cpu_share`` in [1e-50, 1]; ``thread_overhead`` and ``pool_overhead`` numbers >= 0 that keep
    the CPU time per request within the model's range (else :func:`queuetune.thread_pool`
    refuses them by name).
    """
    cpu_share = real(cpu_share, "cpu_share", low=1e-50, high=1)
    thread_overhead = real(thread_overhead, "thread_overhead", low=0)
    pool_overhead = real(pool_overhead, "pool_overhead", low=0)
    S, Z = im.service_time(), im.think_time()
    ks = np.asarray(im.table1("clients"))
    rows = []
    for queue in im.table1("queue"):
        for threads in im.table1("threads"):
            res = thread_pool(clients=ks, capacity=queue, threads=threads, cpu_time=cpu_share * S,
                              wait_time=(1 - cpu_share) * S, think_time=Z,
                              thread_overhead=thread_overhead, pool_overhead=pool_overhead,
                              method=method)
            rows.append(pd.DataFrame({
                "queue": queue, "threads": threads, "clients": ks,
                "response_time": res.response_time, "throughput": res.throughput,
                "rejection_probability": res.rejection_probability,
                "dropped_per_test": res.drop_rate * im.test_duration_s()}))
    return pd.concat(rows, ignore_index=True)


def statements(table: pd.DataFrame) -> dict[str, Any]:
    """Which of the six statements hold in a :func:`metrics` table, and the numbers behind
    them (see the module docstring for how each statement is read)."""
    gap = im.VISIBLE_GAP
    few, many = im.table1("threads")
    small, large = im.table1("queue")
    above_q = stated.number(im.DOC, "errors_when_clients_exceed")
    above_r = stated.number(im.DOC, "clients_above")

    def col(queue, threads, name):
        sel = table[(table["queue"] == queue) & (table["threads"] == threads)]
        return sel.set_index("clients")[name]

    r = {(q, t): col(q, t, "response_time") for q in (small, large) for t in (few, many)}
    rej = {t: col(small, t, "rejection_probability") for t in (few, many)}
    drops = {(q, t): col(q, t, "dropped_per_test") for q in (small, large) for t in (few, many)}
    ks = r[(large, few)].index

    thread_gap_large = (r[(large, many)] / r[(large, few)] - 1).abs()
    faster = r[(small, few)] / r[(small, many)] - 1     # > 0: 100 threads faster
    slower = r[(small, many)] / r[(small, few)] - 1     # > 0: 100 threads slower
    dropping = (drops[(small, few)] >= 1) | (drops[(small, many)] >= 1)
    more = rej[many] > rej[few] * (1 + gap)
    above = ks[ks > above_r]
    queue_gain = {t: r[(large, t)].loc[above] / r[(small, t)].loc[above] - 1 for t in (few, many)}
    low_k, high_k = ks[ks <= above_q], ks[ks > above_q]
    out = {
        "q200_threads_no_effect": bool((thread_gap_large < gap).all()),
        "q50_more_threads_faster": bool((faster >= gap).any() and (slower < gap).all()),
        "q50_more_threads_more_errors": bool(dropping.any() and more[dropping].all()),
        "q50_faster_above_60": bool(any((g >= gap).all() for g in queue_gain.values())),
        "q200_no_errors": bool(all((drops[(large, t)] < 1).all() for t in (few, many))),
        "q50_errors_above_50": bool(all(
            (drops[(small, t)].loc[low_k] < 1).all() and (drops[(small, t)].loc[high_k] >= 1)
            .all() for t in (few, many))),
    }
    top = int(ks.max())
    share = rej[many] / rej[few]
    out |= {
        "statements_held": int(sum(out.values())),
        "q200_max_thread_gap": float(thread_gap_large.max()),
        "q50_best_gain_100_threads": float(faster.max()),
        # only where the 30-thread pool drops requests visibly: a ratio of two drop shares
        # of 1e-50 says nothing
        "q50_drop_share_100_vs_30": float(share.loc[top]) if drops[(small, few)].loc[top] >= 1
        else float("nan"),
        "throughput_at_most_clients": float(table[(table["queue"] == large)
                                                  & (table["clients"] == top)]["throughput"]
                                            .min()),
    }
    level = stated.number(im.DOC, "saturation_throughput")
    out["im_c4_saturation_matches"] = bool(abs(out["throughput_at_most_clients"] - level) <= 0.5)
    return out


def evaluate(cpu_share: float, thread_overhead: float = 0.0, pool_overhead: float = 0.0,
             *, method: str = "exact") -> dict[str, Any]:
    """One cell of the map: its parameters, the six statements (True where the model
    reproduces them), ``statements_held`` and the numbers behind them, keyed as
    :data:`COLUMNS`."""
    found = statements(metrics(cpu_share, thread_overhead, pool_overhead, method=method))
    cell = {"cpu_share": float(cpu_share), "thread_overhead": float(thread_overhead),
            "pool_overhead": float(pool_overhead)}
    return {c: (cell | found)[c] for c in COLUMNS}


def cell_seconds() -> float:
    """The admission guards' estimate of one cell's time: the exact chains of Table 1's
    queues, pools and client counts (two phases, the costlier case)."""
    ks = np.asarray(im.table1("clients"))
    return sum(estimated_seconds(clients=ks, capacity=np.full(ks.shape, queue),
                                 threads=np.full(ks.shape, threads),
                                 two_phases=np.full(ks.shape,
                                                    True), thread_overhead=0.0, method="exact")
               for queue in im.table1("queue") for threads in im.table1("threads"))


def region_map(cpu_shares: Sequence[float] = CPU_SHARES,
               thread_overheads: Sequence[float] = THREAD_OVERHEADS,
               pool_overheads: Sequence[float] = POOL_OVERHEADS,
               progress: Callable[[Iterable], Iterable] | None = None,
               max_seconds: float = REGION_MAX_SECONDS) -> pd.DataFrame:
    """:func:`evaluate` over the grid, ordered by pool overhead, thread overhead, CPU share
    (a fixed order, so the table is the same on every run). ``progress`` wraps the iteration
    (``tqdm``, say). A grid estimated (:func:`cell_seconds` per cell) to take longer than
    ``max_seconds`` (> 0) is refused before it starts, naming its size."""
    max_seconds = real(max_seconds, "max_seconds", low=0, low_open=True)
    cells = [(s, t, p) for p in pool_overheads for t in thread_overheads for s in cpu_shares]
    seconds = len(cells) * cell_seconds()
    if seconds > max_seconds:
        raise ValueError(
            f"region_map: {len(cpu_shares)} x {len(thread_overheads)} x {len(pool_overheads)} "
            f"= {len(cells)} cells would take about {seconds:.3g} s, more than max_seconds = "
            f"{max_seconds:g} s: use fewer values or raise max_seconds")
    iterator = progress(cells) if progress is not None else cells
    rows = [evaluate(s, t, p) for s, t, p in iterator]
    return pd.DataFrame(rows, columns=list(COLUMNS))
