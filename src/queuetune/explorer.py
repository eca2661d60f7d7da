"""Precomputed grids of the thread-limited server for the book's what-if explorer.

A static page has no Python at view time, so the explorer's sliders select from numbers
computed beforehand:

* :func:`build_grid` - :func:`queuetune.thread_pool` over every combination of clients,
  connection-queue capacity, threads, CPU time, wait time and think time, as a tidy table;
* :func:`threads_needed` - for every combination of clients, capacity, CPU, wait and think
  time, three answers to "how many threads?": the 10 % starting rule of the 1998 Domino
  article (:func:`queuetune.documents.domino_threads.rules.domino_initial_threads`), the
  peak-threads rule (a high percentile of the number of busy threads when the pool is not the
  limit) and the model's answer (the smallest pool whose response time is within a tolerance
  of an unlimited pool's, at this load and every smaller one).

The model has no per-thread overhead here (``thread_overhead = pool_overhead = 0``), so in it a
larger pool never hurts; what a thread costs (memory, in the Domino measurements) is why the
smallest sufficient pool is the answer worth having.

Both functions solve with ``method="fes"`` (the flow-equivalent server) by default, a fraction
of a millisecond per configuration of the explorer's size; ``method="exact"`` solves the Markov
chain (slower, limited in size). A call is refused before it starts when its estimated time
(the measured costs of
:func:`queuetune.models.thread_pool_server.estimated_seconds`, summed over every solve it
makes) exceeds :data:`MAX_SECONDS`; the message says how much work was asked for, and the way
out is fewer or smaller values on the axes (or several calls). Bad input raises
``ValueError`` naming the parameter and the allowed range.

>>> grid = build_grid(clients=[50, 100], capacity=[200], threads=[10], cpu_time=[0.02],
...                   wait_time=[0.1], think_time=[4.0])
>>> print(grid[["clients", "throughput", "busy_threads"]].round(3).to_string(index=False))
 clients  throughput  busy_threads
      50      12.118         1.529
     100      24.166         3.331
>>> sizing = threads_needed(clients=[100, 300], capacity=[200], cpu_time=[0.01],
...                         wait_time=[0.2], think_time=[4.0])
>>> print(sizing[["clients", "rule_threads", "peak_threads", "model_threads"]]
...       .to_string(index=False))
 clients  rule_threads  peak_threads  model_threads
     100            10            11              8
     300            30            29             20
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._validation import as_choice, as_integer, as_scalar_integer, as_time
from .data import results_dir
from .documents.domino_threads import rules
from .models import thread_pool
from .models.thread_pool_server import TIME_RANGE, estimated_seconds

__all__ = [
    "at_settings",
    "in_milliseconds",
    "rule_against_model",
    "AXES",
    "CLIENTS",
    "CAPACITY",
    "THREADS",
    "CPU_TIME",
    "WAIT_TIME",
    "THINK_TIME",
    "MAX_CONFIGURATIONS",
    "MAX_SECONDS",
    "METRICS",
    "BENCHMARK_CSV",
    "build_grid",
    "fes_benchmark",
    "threads_needed",
]

#: The explorer's default axes: evenly spaced, so that each can be a range slider.
CLIENTS = tuple(range(25, 401, 25))
CAPACITY = (100, 200, 300, 400)
THREADS = tuple(range(5, 41, 5))
CPU_TIME = (0.005, 0.010, 0.015, 0.020)  # s
WAIT_TIME = (0.1, 0.2, 0.3, 0.4)  # s
THINK_TIME = (2.0, 4.0, 6.0, 8.0)  # s
#: The grid's columns, in the order of the arguments of :func:`build_grid`.
AXES = ("clients", "capacity", "threads", "cpu_time", "wait_time", "think_time")
#: Metrics of :func:`queuetune.thread_pool` that :func:`build_grid` keeps.
METRICS = ("throughput", "response_time", "rejection_probability", "error_rate",
           "busy_threads", "utilization", "queue_wait")
#: Largest number of configurations of one grid (about 0.2 ms each with ``method="fes"``).
MAX_CONFIGURATIONS = 200_000
#: Largest estimated time of one call of :func:`build_grid` or :func:`threads_needed`, in
#: seconds on a 2-core machine (the estimate of every solve of the call, added up).
MAX_SECONDS = 10.0
# Configurations per call of thread_pool (bounds the zero-padded probabilities array).
_CHUNK = 4096
_METHODS = ("fes", "exact")
#: The measured accuracy of ``method="fes"`` (written by ``scripts/benchmark_models.py``).
BENCHMARK_CSV = results_dir() / "benchmark_models.csv"


def _axis(values: Any, name: str, kind: str) -> np.ndarray:
    """One axis of a grid as a 1-D array of strictly increasing values."""
    if kind == "integer":
        arr = as_integer(values, name)
    else:  # a time in TIME_RANGE, or 0 where the model allows it
        arr = as_time(values, name, TIME_RANGE, zero=kind == "time or 0")
    arr = np.atleast_1d(arr)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a number or a flat sequence of numbers, got an array "
                         f"of shape {arr.shape}")
    if arr.size > 1 and not np.all(np.diff(arr) > 0):
        raise ValueError(f"{name} must be strictly increasing (each value once), got "
                         f"{arr.tolist()}")
    return arr


def _check_size(sizes: Sequence[int]) -> int:
    total = math.prod(sizes)
    if total > MAX_CONFIGURATIONS:
        raise ValueError(f"the grid must have at most MAX_CONFIGURATIONS = {MAX_CONFIGURATIONS} "
                         f"configurations (the product of the axis lengths), got {total}")
    return total


def _check_work(K, B, T, cpu, wait, method: str, solves: int = 1) -> None:
    """Refuse a call whose estimated time, ``solves`` solves of every configuration, exceeds
    :data:`MAX_SECONDS`."""
    two_phases = (cpu > 0) & (wait > 0)
    seconds = solves * estimated_seconds(clients=K, capacity=B, threads=T, two_phases=two_phases,
                                         thread_overhead=np.zeros(K.shape), method=method)
    if seconds > MAX_SECONDS:
        raise ValueError(
            f"clients, capacity and threads must keep one call within MAX_SECONDS = "
            f"{MAX_SECONDS:g} s; these {K.size} configurations ({solves} solve(s) each, "
            f"method={method!r}) ask for about {seconds:.3g} s: use fewer or smaller values on "
            "the axes, or split the grid into several calls"
        )


def _solve(K, B, T, cpu, wait, Z, method: str):
    """thread_pool over flat arrays of configurations, in chunks."""
    parts = []
    for start in range(0, K.size, _CHUNK):
        part = slice(start, start + _CHUNK)
        parts.append(thread_pool(clients=K[part], capacity=B[part], threads=T[part],
                                 cpu_time=cpu[part], wait_time=wait[part], think_time=Z[part],
                                 method=method))
    return parts


def build_grid(
    clients: Any = CLIENTS,
    capacity: Any = CAPACITY,
    threads: Any = THREADS,
    cpu_time: Any = CPU_TIME,
    wait_time: Any = WAIT_TIME,
    think_time: Any = THINK_TIME,
    *,
    method: str = "fes",
) -> pd.DataFrame:
    """The thread-limited server solved at every combination of the six axes.

    Parameters
    ----------
    clients, capacity, threads : int or sequence of int
        Strictly increasing values, each an integer in [1, 2**53] (K clients, B most admitted
        requests, T threads).
    cpu_time, wait_time : float or sequence of float
        Strictly increasing mean CPU time and mean wait without the CPU per request, in
        seconds, each 0 or in [1e-100, 1e100] (not both 0 in one configuration).
    think_time : float or sequence of float
        Strictly increasing mean think times in seconds, each in [1e-100, 1e100].
    method : {"fes", "exact"}
        Passed to :func:`queuetune.thread_pool`.

    Returns
    -------
    pandas.DataFrame
        One row per configuration: the six axes (columns :data:`AXES`) and the metrics
        :data:`METRICS`, ordered by capacity, threads, cpu_time, wait_time, think_time and
        then clients (the x axis of the explorer varies fastest). At most
        :data:`MAX_CONFIGURATIONS` rows. A grid whose estimated time exceeds
        :data:`MAX_SECONDS` is refused (see the module's docstring).
    """
    method = as_choice(method, "method", _METHODS)
    axes = {
        "clients": _axis(clients, "clients", "integer"),
        "capacity": _axis(capacity, "capacity", "integer"),
        "threads": _axis(threads, "threads", "integer"),
        "cpu_time": _axis(cpu_time, "cpu_time", "time or 0"),
        "wait_time": _axis(wait_time, "wait_time", "time or 0"),
        "think_time": _axis(think_time, "think_time", "time"),
    }
    _check_size([a.size for a in axes.values()])
    order = ("capacity", "threads", "cpu_time", "wait_time", "think_time", "clients")
    mesh = dict(zip(order, (m.ravel() for m in np.meshgrid(*(axes[n] for n in order),
                                                            indexing="ij")), strict=True))
    _check_work(mesh["clients"], mesh["capacity"], mesh["threads"], mesh["cpu_time"],
                mesh["wait_time"], method)
    results = _solve(*(mesh[n] for n in AXES), method=method)
    frame = pd.DataFrame({name: mesh[name] for name in AXES})
    for metric in METRICS:
        # + 0.0 turns the solver's -0.0 (a probability of nothing) into 0.0
        frame[metric] = np.concatenate([np.atleast_1d(getattr(r, metric))
                                        for r in results]) + 0.0
    return frame


def threads_needed(
    clients: Any = CLIENTS,
    capacity: Any = CAPACITY,
    cpu_time: Any = CPU_TIME,
    wait_time: Any = WAIT_TIME,
    think_time: Any = THINK_TIME,
    *,
    tolerance: float = 0.10,
    percentile: float = 99.0,
    method: str = "fes",
) -> pd.DataFrame:
    """Three answers to "how many threads?" at every combination of the five axes.

    * ``rule_threads``: the 10 % starting rule of the Domino article, ten threads per hundred
      clients rounded up (:func:`queuetune.documents.domino_threads.rules.domino_initial_threads`);
    * ``peak_threads``: the peak-threads rule - set the pool to the peak number of busy
      threads. The peak is the ``percentile``-th percentile of the number of busy threads when
      the pool is not the limit (``threads = min(clients, capacity)``, where every admitted
      request holds a thread): the smallest m with P(busy threads <= m) >= percentile / 100.
      The busy threads exceed a pool of that size at most (100 - percentile) % of the time,
      the state the article's advice ("raise the setting while the active-threads peak
      reaches it") ends in;
    * ``model_threads``: the smallest pool whose mean response time is at most
      ``1 + tolerance`` times that of an unlimited pool at this load *and at every smaller
      load of* ``clients`` (the largest ``model_threads_at_load`` up to this load). A server
      passes through the smaller loads on its way to this one, and its pool must serve them
      too.
    * ``model_threads_at_load``: the same target at this load alone (found by bisection over
      1..min(clients, capacity); the response time falls as threads are added). Past the load
      where the CPU saturates it *falls* as clients are added, although the threads needed do
      not: the pool is then always full and only has to keep the CPU busy, whatever the load,
      while the unlimited pool's response time grows with the queue at the CPU, so that a
      tolerance in proportion to it admits a pool that leaves the CPU idle part of the time
      (with a long queue, about ``tolerance`` of it).

    Also returned: ``mean_busy_threads`` with an unlimited pool (Little's law: throughput times
    the time a thread is held), ``response_time_unlimited`` and ``response_time_model`` (at
    ``model_threads``, this load).

    Parameters are those of :func:`build_grid` without ``threads``; ``tolerance`` is a number
    in (0, 10] (0.10 = 10 % slower than unlimited), ``percentile`` a number in (0, 100). The
    estimated time counts one solve for the unlimited pool and one per round of the bisection;
    above :data:`MAX_SECONDS` the call is refused.
    Rows are ordered by capacity, cpu_time, wait_time, think_time, then clients.
    """
    method = as_choice(method, "method", _METHODS)
    if (isinstance(tolerance, bool) or not isinstance(tolerance, int | float)
            or not math.isfinite(tolerance) or not 0 < tolerance <= 10):
        raise ValueError(f"tolerance must be a number in (0, 10] (allowed slowdown over an "
                         f"unlimited pool, 0.1 = 10 %), got {tolerance!r}")
    if (isinstance(percentile, bool) or not isinstance(percentile, int | float)
            or not math.isfinite(percentile) or not 0 < percentile < 100):
        raise ValueError(f"percentile must be a number in (0, 100), got {percentile!r}")
    axes = {
        "clients": _axis(clients, "clients", "integer"),
        "capacity": _axis(capacity, "capacity", "integer"),
        "cpu_time": _axis(cpu_time, "cpu_time", "time or 0"),
        "wait_time": _axis(wait_time, "wait_time", "time or 0"),
        "think_time": _axis(think_time, "think_time", "time"),
    }
    _check_size([a.size for a in axes.values()])
    order = ("capacity", "cpu_time", "wait_time", "think_time", "clients")
    mesh = dict(zip(order, (m.ravel() for m in np.meshgrid(*(axes[n] for n in order),
                                                            indexing="ij")), strict=True))
    K, B = mesh["clients"], mesh["capacity"]
    cpu, wait, Z = mesh["cpu_time"], mesh["wait_time"], mesh["think_time"]
    top = np.minimum(K, B)
    # the unlimited pool, then one solve per round of the bisection over 1..max(top)
    rounds = math.ceil(math.log2(int(top.max()))) if top.max() > 1 else 0
    _check_work(K, B, top, cpu, wait, method, solves=1 + rounds)

    unlimited = _solve(K, B, top, cpu, wait, Z, method)
    r_unlimited = np.concatenate([np.atleast_1d(r.response_time) for r in unlimited])
    mean_busy = np.concatenate([np.atleast_1d(r.busy_threads) for r in unlimited])
    peak = np.concatenate([_percentile(r.probabilities, percentile) for r in unlimited])

    # Bisection on [lo, hi]: hi always meets the target (hi = min(K, B) is unlimited).
    target = (1.0 + tolerance) * r_unlimited
    lo, hi = np.ones_like(top), top.copy()
    r_at_hi = r_unlimited.copy()
    while np.any(lo < hi):
        active = np.flatnonzero(lo < hi)
        mid = (lo[active] + hi[active]) // 2
        parts = _solve(K[active], B[active], mid, cpu[active], wait[active], Z[active], method)
        r_mid = np.concatenate([np.atleast_1d(r.response_time) for r in parts])
        meets = r_mid <= target[active]
        hi[active[meets]] = mid[meets]
        r_at_hi[active[meets]] = r_mid[meets]
        lo[active[~meets]] = mid[~meets] + 1

    # The pool that serves every load up to this one: clients vary fastest in the mesh, so
    # each row of the reshaped array runs over the loads of one setting, in increasing order.
    envelope = np.maximum.accumulate(hi.reshape(-1, axes["clients"].size), axis=1).ravel()
    raised = np.flatnonzero(envelope != hi)
    r_model = r_at_hi.copy()
    if raised.size:
        parts = _solve(K[raised], B[raised], envelope[raised], cpu[raised], wait[raised],
                       Z[raised], method)
        r_model[raised] = np.concatenate([np.atleast_1d(r.response_time) for r in parts])

    rule = {int(k): rules.domino_initial_threads(int(k)) for k in axes["clients"]}
    frame = pd.DataFrame({
        "clients": K, "capacity": B, "cpu_time": cpu, "wait_time": wait, "think_time": Z,
        "rule_threads": pd.Series(K).map(rule).to_numpy(np.int64),
        "peak_threads": peak,
        "model_threads": envelope,
        "model_threads_at_load": hi,
        "mean_busy_threads": mean_busy,
        "response_time_unlimited": r_unlimited,
        "response_time_model": r_model,
    })
    return frame


def _percentile(probabilities: np.ndarray, percentile: float) -> np.ndarray:
    """Per row of ``P(n)``, the smallest n with P(N <= n) >= percentile / 100."""
    cdf = np.cumsum(np.atleast_2d(probabilities), axis=-1)
    # A small slack keeps a cumulative sum that rounds to 0.98999999 at 99 % from moving on.
    return np.argmax(cdf >= percentile / 100.0 - 1e-12, axis=-1).astype(np.int64)


def fes_benchmark(threads_low: int = 1, threads_high: int = 10**9,
                  path: str | Path | None = None) -> pd.DataFrame:
    """The measured error of ``method="fes"`` against ``method="exact"``, for pools of
    ``threads_low`` to ``threads_high`` threads.

    Read from the benchmark's tidy results (default :data:`BENCHMARK_CSV`, section
    ``thread_pool_fes_vs_exact``): one row per configuration with ``clients``, ``capacity``,
    ``threads``, ``cpu_time``, ``wait_time`` and the relative errors ``err_X`` (throughput)
    and ``err_R`` (response time), ``fes / exact - 1``. ``threads_low`` and ``threads_high``
    are integers with 1 <= threads_low <= threads_high <= 2**53.
    """
    low = as_scalar_integer(threads_low, "threads_low")
    high = as_scalar_integer(threads_high, "threads_high")
    if high < low:
        raise ValueError(f"threads_high must be an integer >= threads_low = {low}, got {high}")
    source = Path(path) if path is not None else BENCHMARK_CSV
    if not source.is_file():
        raise ValueError(f"path must name the benchmark's CSV (make benchmark writes it), "
                         f"got {str(source)!r}")
    tidy = pd.read_csv(source)
    rows = tidy[tidy["section"] == "thread_pool_fes_vs_exact"]
    wide = rows.pivot(index="case", columns="quantity", values="value")
    columns = ["clients", "capacity", "threads", "cpu_time", "wait_time", "err_X", "err_R"]
    missing = sorted(set(columns) - set(wide.columns))
    if missing:
        raise ValueError(f"the benchmark CSV lacks quantities {missing} in section "
                         f"thread_pool_fes_vs_exact")
    wide = wide[columns].astype(float)
    for name in ("clients", "capacity", "threads"):
        wide[name] = wide[name].astype(int)
    chosen = wide[(wide["threads"] >= low) & (wide["threads"] <= high)]
    return chosen.sort_values(["threads", "clients", "capacity", "cpu_time", "wait_time"]
                              ).reset_index(drop=True)


def in_milliseconds(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the CPU and wait times also in milliseconds (``cpu_ms``, ``wait_ms``,
    rounded to 0.001 ms), the unit of the explorer's sliders.

    >>> in_milliseconds(pd.DataFrame({"cpu_time": [0.01], "wait_time": [0.2]}))
       cpu_time  wait_time  cpu_ms  wait_ms
    0      0.01        0.2    10.0    200.0
    """
    missing = sorted({"cpu_time", "wait_time"} - set(frame.columns))
    if missing:
        raise ValueError(f"frame lacks column(s) {missing}; it has {list(frame.columns)}")
    return frame.assign(cpu_ms=(frame["cpu_time"] * 1000).round(3),
                        wait_ms=(frame["wait_time"] * 1000).round(3))


def rule_against_model(sizing: pd.DataFrame, rule: str) -> pd.Series:
    """How a rule's answers (column ``rule`` of :func:`threads_needed`) compare with the
    model's (``model_threads``): the shares of the grid where the rule gives fewer threads,
    as many or more, and more than twice as many."""
    if rule not in sizing.columns or rule == "model_threads":
        raise ValueError(f"rule must be a column of sizing other than 'model_threads', "
                         f"got {rule!r}")
    diff = sizing[rule] - sizing["model_threads"]
    return pd.Series({"fewer threads than the model": (diff < 0).mean(),
                      "as many or more": (diff >= 0).mean(),
                      "more than twice as many":
                          (sizing[rule] > 2 * sizing["model_threads"]).mean()})


def at_settings(frame: pd.DataFrame, **chosen: float) -> pd.DataFrame:
    """The rows of a grid at the ``chosen`` settings (column=value, times in seconds, compared
    with :func:`numpy.isclose`), indexed by ``clients``."""
    if not chosen:
        raise ValueError("chosen must name at least one setting")
    unknown = sorted(set(chosen) - set(frame.columns))
    if unknown:
        raise ValueError(f"chosen names column(s) {unknown} not in the grid {list(frame.columns)}")
    keep = np.logical_and.reduce([np.isclose(frame[k], v) for k, v in chosen.items()])
    return frame.loc[keep].set_index("clients")
