"""The regimes of a measured run, one definition for every experiment and the report.

A run's *load* is its offered load over the server's capacity: for a closed loop its clients K
over the knee K* (Denning and Buzen's N*, where the two asymptotes of the response time meet);
for open arrivals its rate over the capacity. Below the knee the load sets the throughput; past
it the bottleneck does, and the response time follows from the response-time law, which tests a
model little; at it, where sizing decides, a model is tested most.

>>> regime_of([0.5, 1.0, 2.0]).tolist()
['below the knee', 'at the knee', 'past the knee']
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["REGIMES", "KNEE_BAND", "regime_of", "bottleneck_demand", "knee_clients",
           "median_interval", "errors_by_regime", "QUANTITIES"]

#: The three regimes, in order of load.
REGIMES = ("below the knee", "at the knee", "past the knee")
#: Loads counted as at the knee: from 2/3 to 3/2 of it (both ends included).
KNEE_BAND = (2 / 3, 3 / 2)


def regime_of(load: Any) -> np.ndarray:
    """The regime (:data:`REGIMES`) of each load (offered load over capacity, K/K* or
    lambda/capacity), which must be finite and positive."""
    values = np.asarray(load, dtype=float)
    if values.size and not (np.all(np.isfinite(values)) and np.all(values > 0)):
        raise ValueError(f"load must hold finite numbers > 0, got {load!r}")
    low, high = KNEE_BAND
    return np.select([values < low, values <= high], REGIMES[:2], REGIMES[2])


def bottleneck_demand(*, processors: Any, cpu_time: Any, service_time: Any,
                      threads: Any = None, connections: Any = None, wait_time: Any = 0.0
                      ) -> np.ndarray:
    """The demand D (s) at a server's bottleneck, the largest of the processors'
    ``cpu_time / processors``, the threads' ``service_time / threads`` and the pool's
    ``wait_time / connections``; ``threads`` or ``connections`` None (or 0, or NaN) is no
    such limit (virtual threads, no pool). 1 / D is the server's capacity.

    >>> float(bottleneck_demand(processors=1, cpu_time=0.01, service_time=0.05, threads=2))
    0.025
    """
    p = np.asarray(processors, dtype=float)
    demand = np.asarray(cpu_time, dtype=float) / p
    for count, time in ((threads, service_time), (connections, wait_time)):
        if count is None:
            continue
        n = np.asarray(count, dtype=float)
        limited = np.isfinite(n) & (n > 0)
        share = np.divide(np.asarray(time, dtype=float), n, out=np.zeros(np.broadcast(
            n, np.asarray(time, dtype=float)).shape), where=limited)
        demand = np.maximum(demand, share)
    return demand


def knee_clients(*, service_time: Any, think_time: Any, demand: Any) -> np.ndarray:
    """The knee K* = (S + Z) / D of a closed loop (Denning and Buzen's N*): the clients where
    the response time's two asymptotes, S and K D - Z, meet.

    >>> float(knee_clients(service_time=0.05, think_time=0.45, demand=0.01))
    50.0
    """
    return (np.asarray(service_time, dtype=float) + np.asarray(think_time, dtype=float)) / \
        np.asarray(demand, dtype=float)


def median_interval(values: Any, *, groups: Any, rng: np.random.Generator,
                    resamples: int = 2000) -> tuple[float, float]:
    """A 95 % percentile bootstrap interval of the median of ``values``, resampling whole
    ``groups`` (the runs, each with its repeated windows) with replacement; with one group,
    its values (the windows of one run) are resampled instead; ``(nan, nan)`` from one value.

    >>> rng = np.random.default_rng(1)
    >>> low, high = median_interval([1.0, 2.0, 3.0, 4.0], groups=[1, 2, 3, 4], rng=rng)
    >>> 1.0 <= low <= high <= 4.0
    True
    """
    values, groups = np.asarray(values, dtype=float), np.asarray(groups)
    if values.shape != groups.shape:
        raise ValueError(f"values and groups must have the same length, got {values.shape} "
                         f"and {groups.shape}")
    if len(values) < 2:
        return float("nan"), float("nan")
    labels = np.unique(groups)
    if len(labels) < 2:
        labels, groups = np.arange(len(values)), np.arange(len(values))
    members = [values[groups == g] for g in labels]
    medians = np.empty(resamples)
    for i in range(resamples):
        picked = rng.integers(0, len(labels), len(labels))
        medians[i] = np.median(np.concatenate([members[j] for j in picked]))
    low, high = np.percentile(medians, [2.5, 97.5])
    return float(low), float(high)


#: The quantities a model is judged on: name, column of the signed error, and whether only
#: the rows where the model or the server refused anything count (the share refused).
QUANTITIES = (("throughput", "throughput_error", False),
              ("response time", "response_time_error", False),
              ("share refused (points)", "refused_error", True))


def errors_by_regime(errors: pd.DataFrame, *, by: list[str], seed: int,
                     resamples: int = 2000) -> pd.DataFrame:
    """Per group of ``by`` (its last key the regime) and quantity (:data:`QUANTITIES`): the
    runs, the median signed error with its 95 % bootstrap interval (:func:`median_interval`,
    resampling runs) and the largest in size. ``errors`` holds a row per run or per window of
    a run, with ``run``, ``e_model``, ``error_rate`` and the error columns. The share refused
    counts the rows where the model (above 1e-4) or the server refused anything. A group no
    row reached has no row; the rows are sorted by ``by``'s other keys, quantity and regime."""
    rng = np.random.default_rng(seed)
    rows = []
    for keys, part in errors.groupby(by, sort=False):
        refusing = part[(part["e_model"] > 1e-4) | (part["error_rate"] > 0)]
        for quantity, column, refusals_only in QUANTITIES:
            subset = refusing if refusals_only else part
            if subset.empty:
                continue
            values = subset[column].to_numpy(dtype=float)
            low, high = median_interval(values, groups=subset["run"].to_numpy(), rng=rng,
                                        resamples=resamples)
            rows.append({**dict(zip(by, keys, strict=True)), "quantity": quantity,
                         "runs": subset["run"].nunique(),
                         "median error": float(np.median(values)), "low": low, "high": high,
                         "largest error": float(values[np.argmax(np.abs(values))])})
    out = pd.DataFrame(rows, columns=[*by, "quantity", "runs", "median error", "low", "high",
                                      "largest error"])
    out["regime"] = pd.Categorical(out["regime"], REGIMES, ordered=True)
    return out.sort_values([*by[:-1], "quantity", "regime"], kind="stable"
                           ).reset_index(drop=True)
