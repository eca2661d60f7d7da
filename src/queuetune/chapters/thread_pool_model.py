"""The helpers of the thread-pool-model chapter: sweeps of the model over pools and queues, and
summaries of the stored benchmark and validation runs.

With no request refused (a queue of 50 for 20 clients), the throughput of a closed loop is
the clients over the think time plus the response time:

>>> frame = sweep([10, 20], [50], [5], cpu_time=0.07, wait_time=0.07, think_time=4.0)
>>> x, r = (at(frame, 20, 50, 5, name) for name in ("throughput", "response_time"))
>>> round(x, 4), round(20 / (4.0 + r), 4)
(4.7942, 4.7942)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import data, stated
from .._validation import as_integer, as_time
from ..models import thread_pool
from ..models.thread_pool_server import (
    _EXACT_PER_CONFIG,
    EXACT_MAX_SECONDS,
    TIME_RANGE,
    estimated_seconds,
)
from ..tables import value_at

#: The step to which a chart's relative differences are rounded: far above rounding (a few
#: 1e-16 to 1e-13) and far below what a chart shows (0.001 % = 1e-5).
DRAWN_RESOLUTION = 1e-9

__all__ = ["stated_source", "fes_gap", "relative_difference", "benchmark_section",
           "validation_setting", "validation_coverage", "fes_distance", "sweep", "at",
           "error_spread",
           "approximation_headline", "sizing_headline"]

#: The quantities :func:`fes_gap` compares.
GAP_QUANTITIES = ("throughput", "response_time", "mean_in_system")


def stated_source(document: str, quantity: str) -> str:
    """The source of a parameter stated in the text: 'stated: "<the sentence>"'."""
    return f"stated: \"{stated.sentence(document, quantity)}\""


def fes_gap(clients: Sequence[int], think_time: float, **settings: Any) -> dict[str, float]:
    """The largest relative difference, over ``clients``, of the flow-equivalent server from
    the exact chain in throughput, response time and mean number in the server, for the
    thread-pool model with ``settings`` (capacity, threads, cpu_time, wait_time, ...)."""
    exact = thread_pool(clients=clients, think_time=think_time, method="exact", **settings)
    fes = thread_pool(clients=clients, think_time=think_time, method="fes", **settings)
    return {name: float(np.max(np.abs(getattr(fes, name) / getattr(exact, name) - 1)))
            for name in GAP_QUANTITIES}


def relative_difference(approx: Any, exact: Any, resolution: float = DRAWN_RESOLUTION
                        ) -> np.ndarray:
    """``approx / exact - 1``, elementwise, as a chart draws it: rounded to a multiple of
    ``resolution`` (so 0 at rounding level). Its last digits are rounding, which changes with
    the processor (seen: 2.21667e-12 here, 2.21645e-12 with other kernels); rounded, the chart's
    stored data and its id are the same on every processor (the rounding noise, about 1e-15,
    would have to straddle a multiple of 1e-9 to change a value)."""
    if not (isinstance(resolution, float | int) and 0 < resolution < 1):
        raise ValueError(f"resolution must be a number in (0, 1), got {resolution!r}")
    out = np.asarray(approx, dtype=np.float64) / np.asarray(exact, dtype=np.float64) - 1
    return np.round(out / resolution) * resolution + 0.0  # + 0.0: no -0.0


def benchmark_section(bench: pd.DataFrame, name: str) -> pd.DataFrame:
    """One section of the stored benchmark (``results/benchmark_models.csv``: ``section``,
    ``case``, ``quantity``, ``value``) as a table, one row per case, one column per quantity."""
    if name not in set(bench["section"]):
        raise ValueError(f"name must be one of {sorted(set(bench['section']))}, got {name!r}")
    return bench[bench["section"] == name].pivot(index="case", columns="quantity",
                                                 values="value")


def validation_setting(row: Any) -> str:
    """The setting of one validation point (a row with ``clients``, ``capacity``, ``threads``,
    ``cpu_time``, ``wait_time``, ``thread_overhead``, ``pool_overhead``) as text; the
    overheads only where one is not zero."""
    text = (f"K={row.clients:g}, B={row.capacity:g}, T={row.threads:g}, "
            f"s_c={row.cpu_time:g}, s_w={row.wait_time:g}")
    if row.thread_overhead or row.pool_overhead:
        text += f", theta={row.thread_overhead:g}, phi={row.pool_overhead:g}"
    return text


def validation_coverage(frame: pd.DataFrame) -> pd.Series:
    """How often the exact value lies inside the simulation's interval, over the metric-points
    of ``frame`` (``point``, ``exact_in_ci``, ``ci_degenerate``); zero-width (degenerate)
    intervals are counted apart."""
    proper = frame[~frame["ci_degenerate"]]
    if proper.empty:
        raise ValueError("frame has no interval of non-zero width")
    inside = int(proper["exact_in_ci"].sum())
    return pd.Series({
        "points": frame["point"].nunique(),
        "metric-points": len(frame),
        "proper intervals": len(proper),
        "exact inside": inside,
        "share inside": f"{inside / len(proper):.1%}",
        "degenerate": int(frame["ci_degenerate"].sum()),
        "degenerate and exact differs": int((frame["ci_degenerate"]
                                             & ~frame["exact_in_ci"]).sum()),
    })


def fes_distance(group: pd.DataFrame) -> pd.Series:
    """The distance of the flow-equivalent server from the exact value over the points of
    ``group`` (``fes_rel_to_exact``, ``point``, ``exact``, ``fes``): median and largest
    absolute relative difference, and the point, exact and fes value where it is largest."""
    rel = group["fes_rel_to_exact"].abs()
    worst = group.loc[rel.idxmax()]
    return pd.Series({
        "median |fes / exact - 1|": f"{rel.median():.2%}",
        "max |fes / exact - 1|": f"{rel.max():.2%}",
        "at point": int(worst["point"]),
        "exact there": f"{worst['exact']:.4g}",
        "fes there": f"{worst['fes']:.4g}",
    })


def sweep(clients: Sequence[int], queues: Sequence[int], threads: Sequence[int], *,
          cpu_time: float, wait_time: float, think_time: float,
          thread_overhead: float = 0.0, pool_overhead: float = 0.0) -> pd.DataFrame:
    """The thread-pool model solved exactly at every client count, for every connection queue
    of ``queues`` and pool size of ``threads``: one row per (queue, pool, clients) with the
    throughput, response time, share refused, error rate, busy threads and utilization.

    The arguments are those of :func:`queuetune.thread_pool` (``queues`` and ``threads`` lists
    of capacities and pool sizes); a sweep whose exact chains are estimated to take more than
    :data:`~queuetune.models.thread_pool_server.EXACT_MAX_SECONDS` in all is refused (fewer values).
    """
    _check_sweep_work(clients, queues, threads, cpu_time, wait_time)
    frames = []
    for capacity in queues:
        for pool in threads:
            res = thread_pool(clients=clients, capacity=capacity, threads=pool, cpu_time=cpu_time,
                              wait_time=wait_time, think_time=think_time,
                              thread_overhead=thread_overhead, pool_overhead=pool_overhead,
                              method="exact")
            frames.append(pd.DataFrame({
                "clients": clients, "pool": f"T = {pool}", "queue": f"B = {capacity}",
                "threads": pool, "capacity": capacity,
                "throughput": res.throughput, "response_time": res.response_time,
                "refused": res.rejection_probability, "error_rate": res.error_rate,
                "busy_threads": res.busy_threads, "utilization": res.utilization,
            }))
    return pd.concat(frames, ignore_index=True)


def _check_sweep_work(clients, queues, threads, cpu_time, wait_time) -> None:
    K, B, T = (np.ravel(as_integer(v, name)) for v, name in
               ((clients, "clients"), (queues, "queues"), (threads, "threads")))
    # an upper bound: two phases wherever some CPU time and some wait time are > 0
    two_phases = bool(np.any(as_time(cpu_time, "cpu_time", TIME_RANGE, zero=True) > 0)
                      and np.any(as_time(wait_time, "wait_time", TIME_RANGE, zero=True) > 0))
    configurations = K.size * B.size * T.size
    seconds = configurations * _EXACT_PER_CONFIG  # a lower bound, known without the mesh
    if seconds <= EXACT_MAX_SECONDS:
        K, B, T = (a.ravel() for a in np.meshgrid(K, B, T, indexing="ij"))
        seconds = estimated_seconds(clients=K, capacity=B, threads=T,
                                    two_phases=np.full(K.shape, two_phases),
                                    thread_overhead=0.0, method="exact")
    if seconds > EXACT_MAX_SECONDS:
        raise ValueError(f"clients, queues and threads must keep the sweep within "
                         f"EXACT_MAX_SECONDS = {EXACT_MAX_SECONDS:g} s of exact chains; these "
                         f"ask for about {seconds:.3g} s: use fewer or smaller values")


def at(frame: pd.DataFrame, clients: int, capacity: int, threads: int, name: str) -> float:
    """One value of a :func:`sweep`: ``name`` at ``clients`` clients, queue ``capacity`` and
    ``threads`` threads."""
    return value_at(frame, name, clients=clients, capacity=capacity, threads=threads)


def error_spread(frame: pd.DataFrame) -> dict[str, object]:
    """How far the flow-equivalent server is off in a group of sampled configurations: their
    number, and the median, 95th percentile and maximum of the absolute relative error of R
    (column ``abs_R``) and X (``abs_X``), as percentages."""
    if frame.empty:
        raise ValueError("error_spread needs at least one configuration")
    return {"configurations": len(frame),
            **{f"{name}: {label}": f"{frame[column].quantile(q):.2%}"
               for name, column in (("R", "abs_R"), ("X", "abs_X"))
               for label, q in (("median", 0.5), ("95th pct.", 0.95), ("max", 1.0))}}


def _percent(share: float) -> str:
    """A relative error as a percentage, ``< 0.01 %`` below that."""
    return "< 0.01 %" if share < 1e-4 else f"{100 * share:.2g} %"


def approximation_headline() -> str:
    """One sentence on the flow-equivalent server's error against the exact chain, read from
    ``results/fes_error_distribution.csv`` (``make benchmark``); README and the chapter print it.
    """
    spread = data.load_result("fes_error_distribution")
    row = spread[(spread["sample"] == "general server") & (spread["band"] == "all")].iloc[0]
    return (f"The flow-equivalent server of the general server (several processors, a pool of "
            f"connections, open or closed arrivals) against the exact chain, on "
            f"{int(row['configs']):,} random configurations of the documented domain: the "
            f"response time's relative error has median {_percent(row['err_R_median'])}, 95th "
            f"percentile {_percent(row['err_R_p95'])} and largest "
            f"{_percent(row['err_R_max'])}, the throughput's largest "
            f"{_percent(row['err_X_max'])} (`results/fes_error_distribution.csv`).")


def sizing_headline() -> str:
    """One sentence on the speed of the sizing, read from ``results/benchmark_sizing.csv``
    (``scripts/benchmark_sizing.py``, part of ``make benchmark``)."""
    bench = data.load_result("benchmark_sizing").set_index("case")
    sized = bench.loc["256 processors, 1e5/s, pool of 1000"]
    solved = bench.loc["solve: 256 processors, 1e5/s, 10^4 threads, pool of 1000, B = 10^5"]
    return (f"`queuetune.sizing.size` sizes a server of 256 processors at 10^5 requests/s with "
            f"a pool of 1,000 connections in {sized['seconds']:.2g} s, and solves one with "
            f"10^4 threads and B = 10^5 in {solved['seconds']:.2g} s "
            f"(`results/benchmark_sizing.csv`).")
