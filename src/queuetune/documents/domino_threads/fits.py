"""The fits of the Domino HTTP-threads measurements (Demetriou 1998), shared by the fitting
chapter and ``scripts/fit_domino_models.py``.

The data are the 4 x 5 grids of :mod:`.claims`: WebMail user response
time (DT-T3), probe response time (DT-T4) and CPU utilization (DT-T5, the mean over the
server's two processors, used as a fraction). Each case fits one response-time grid, alone or
together with the utilization (Utilization Law), with M/M/1/B/K or the thread-pool model.

Modelling choices, stated once here:

* **Capacity.** The article reports no refused request, so the connection queue is taken as
  large as the largest user population (B = max users): no request is ever dropped. Under
  M/M/1/B/K every B >= K gives this same model.
* **Threads.** M/M/1/B/K has no thread pool: it predicts the same value for every thread
  setting at a given load. The thread-pool model uses the thread setting as its T.
* **Two processors as one server.** Both models have one CPU. The two processors are read as
  one server of twice the speed, so the fitted CPU time is half the processor-seconds a request
  uses, and the model's utilization is the mean over the two processors, as printed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import stated
from ..._validation import MAGNITUDE_RANGE, as_series, magnitude
from ...fit.queueing import MM1BKFit, ThreadPoolFit, fit_mm1bk, fit_thread_pool
from ...models import ThreadPoolResult, thread_pool
from . import claims as dt

__all__ = ["CASES", "THREAD_POOL_FREE", "measurements", "capacity", "script_period_s",
           "fit_case", "implied_requests_per_script", "thread_pool_at_runs", "row_change"]

#: Each case: the response-time grid, and whether the CPU utilization is fitted with it.
CASES = {
    "webmail": ("webmail_response_time", False),
    "webmail+cpu": ("webmail_response_time", True),
    "probe": ("probe_response_time", False),
    "probe+cpu": ("probe_response_time", True),
}
#: The thread-pool parameters fitted in every case.
THREAD_POOL_FREE = ("cpu_time", "wait_time", "think_time", "thread_overhead", "pool_overhead")


def measurements() -> pd.DataFrame:
    """The three grids as columns: ``users``, ``threads``, ``webmail_response_time`` (s),
    ``probe_response_time`` (s) and ``utilization`` (a fraction), ordered by users then
    threads."""
    frames = {name: dt.grid(name).stack() for name in
              ("webmail_response_time", "probe_response_time", "cpu_utilization")}
    table = pd.DataFrame(frames)
    table.index.names = ["users", "threads"]
    table = table.reset_index().sort_values(["users", "threads"], ignore_index=True)
    table["utilization"] = table.pop("cpu_utilization") / 100
    return table


def capacity() -> int:
    """B = the largest user population (no request dropped)."""
    return int(measurements()["users"].max())


def script_period_s() -> float:
    """The stated length of one iteration of the WebMail script, in seconds."""
    if stated.unit(dt.DOC, "script_length") != "min":
        raise ValueError("script_length is expected in minutes")
    return 60 * stated.number(dt.DOC, "script_length")


def fit_case(case: str, model: str, *, intervals: str = "profile") -> MM1BKFit | ThreadPoolFit:
    """Fit one of :data:`CASES` with ``model`` ``"mm1bk"`` or ``"thread_pool"`` (all five
    thread-pool parameters free, flow-equivalent server checked against the exact chain)."""
    if case not in CASES:
        raise ValueError(f"case must be one of {sorted(CASES)}, got {case!r}")
    name, with_cpu = CASES[case]
    grid = measurements()
    data = {"response_time": grid[name].to_numpy()}
    if with_cpu:
        data["utilization"] = grid["utilization"].to_numpy()
    users = grid["users"].to_numpy()
    if model == "mm1bk":
        return fit_mm1bk(clients=users, capacity=capacity(), **data, intervals=intervals)
    if model == "thread_pool":
        return fit_thread_pool(clients=users, threads=grid["threads"].to_numpy(), **data,
                               capacity=capacity(),
                               free=THREAD_POOL_FREE, intervals=intervals)
    raise ValueError(f"model must be 'mm1bk' or 'thread_pool', got {model!r}")


def implied_requests_per_script(think_time: float,
                                response_time: np.ndarray | None = None) -> float:
    """Requests one user sends per script iteration if each request is followed by one think
    time: the stated script period over (Z + mean R), R by default the measured WebMail
    response times.

    ``think_time`` (s): 0 or a number in [1e-100, 1e100]; ``response_time`` (s): a 1-d
    sequence of numbers in [1e-100, 1e100]. Outside them, ``ValueError`` naming the parameter.
    """
    z = magnitude(think_time, "think_time", zero=True, unit="s")
    if response_time is None:
        response_time = measurements()["webmail_response_time"].to_numpy()
    low, high = MAGNITUDE_RANGE
    r = as_series(response_time, "response_time", low=low, low_open=False, high=high)
    return script_period_s() / (z + float(np.mean(r)))


def thread_pool_at_runs(estimates: dict[str, float]) -> ThreadPoolResult:
    """The thread-pool model with the parameters ``estimates`` (the five of
    :data:`THREAD_POOL_FREE`) solved at the 20 runs, in the order of :func:`measurements`, by
    the flow-equivalent server."""
    missing = sorted(set(THREAD_POOL_FREE) - set(estimates))
    if missing:
        raise ValueError(f"estimates lacks parameter(s) {missing}; it needs {THREAD_POOL_FREE}")
    grid = measurements()
    return thread_pool(
        clients=grid["users"].to_numpy(), capacity=capacity(), threads=grid["threads"].to_numpy(),
        cpu_time=estimates["cpu_time"], wait_time=estimates["wait_time"],
        think_time=estimates["think_time"],
        thread_overhead=estimates["thread_overhead"],
        pool_overhead=estimates["pool_overhead"], method="fes")


def row_change(values: np.ndarray) -> pd.Series:
    """Per load: the value at the most threads against the value at the fewest, in percent;
    ``values`` holds one finite number per run, in the order of :func:`measurements`, and no 0
    at the fewest threads (the change would be infinite): else ``ValueError``."""
    grid = measurements()[["users", "threads"]]
    values = as_series(values, "values", low=-np.inf, low_open=False)
    if values.shape != (len(grid),):
        raise ValueError(f"values must hold one number per run ({len(grid)}), "
                         f"got shape {values.shape}")
    wide = grid.assign(v=values).pivot(index="users", columns="threads", values="v")
    fewest = wide[wide.columns.min()]
    if (fewest == 0).any():
        raise ValueError(f"values must not be 0 at the fewest threads "
                         f"({wide.columns.min()}); it is at {fewest.index[fewest == 0].tolist()} "
                         "users")
    return 100 * (wide[wide.columns.max()] / fewest - 1)
