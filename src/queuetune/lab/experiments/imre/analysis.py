"""Read a stored lab data set and turn its requests into the paper's metrics, run by run.

Only requests *sent* inside a run's measurement window count (every one of them was answered
or failed before the run ended). Per run, as Imre et al. define them:

* ``throughput`` - successful requests per second (their Figure 4);
* ``error_rate`` - the share of requests sent that failed (their Figure 3);
* ``r_all``, ``r_error``, ``r_succ`` - mean response time of all, failed and successful
  requests; ``r_succ_eq2`` recomputes ``r_succ`` from the other two by their equation (2),
  ``R_succ = (R_all - e R_error) / (1 - e)``, which JMeter's logs forced them to use;
* ``jvm_cpu_s`` - the JVM's whole processor time per answer, by the utilization law D = U / X
  (U: the JVM's share of its core over the window, X: ``throughput``), beside ``server_cpu_ms``,
  the median processor time of the answering thread alone.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...datasets import dataset_dir, datasets, load, metadata

__all__ = ["datasets", "dataset_dir", "load", "metadata", "in_window", "summarize",
           "service_time", "generator_report", "runs_of", "windows", "refusal_margin",
           "jvm_demand"]


def runs_of(dataset: str | Path) -> pd.DataFrame:
    """The runs table of an Imre data set of any format, with the columns of the newest:
    format 1 (no repeated windows, no validity checks, no maxConnections factor) gets
    ``windows`` 1, ``max_connections`` of its campaign, and ``valid`` empty (not checked)."""
    runs = load("runs", dataset)
    if "windows" not in runs:
        runs["windows"] = 1
    if "max_connections" not in runs:
        runs["max_connections"] = metadata(dataset)["settings"]["server"]["max_connections"]
    if "valid" not in runs:
        runs["valid"] = pd.Series([pd.NA] * len(runs), dtype="boolean")
        runs["invalid_reason"] = pd.Series([pd.NA] * len(runs), dtype="string")
    return runs


def in_window(requests: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """The requests sent inside their run's measurement window."""
    bounds = runs.set_index("run")[["window_start_s", "window_end_s"]]
    joined = requests.join(bounds, on="run")
    inside = (joined["start_s"] >= joined["window_start_s"]) & (
        joined["start_s"] < joined["window_end_s"])
    return requests[inside.to_numpy()]


#: Batches each run's window is cut into for the standard errors of its means (batch means),
#: when the run was not measured in repeated windows.
BATCHES = 6


def _parts(window: pd.DataFrame, runs: pd.DataFrame, parts: pd.Series) -> pd.DataFrame:
    """Per run and part (the window cut into ``parts[run]`` equal parts): the part's mean
    response time of the successful requests, its throughput, requests sent and refused."""
    bounds = runs.set_index("run")[["window_start_s", "window_end_s"]].assign(parts=parts)
    joined = window.join(bounds, on="run")
    length = (joined["window_end_s"] - joined["window_start_s"]) / joined["parts"]
    part = ((joined["start_s"] - joined["window_start_s"]) // length).clip(
        upper=joined["parts"] - 1)
    ok = joined["outcome"] == "ok"
    frame = pd.DataFrame({"run": joined["run"], "part": part.astype(int), "ok": ok,
                          "latency_s": (joined["latency_ms"] / 1000).where(ok)})
    per_part = frame.groupby(["run", "part"]).agg(
        response_time=("latency_s", "mean"), served=("ok", "sum"), sent=("ok", "size"))
    runs_index = per_part.index.get_level_values("run")
    seconds = ((bounds["window_end_s"] - bounds["window_start_s"]) / bounds["parts"])
    per_part["throughput"] = per_part["served"] / seconds.reindex(runs_index).to_numpy()
    per_part["error_rate"] = 1 - per_part["served"] / per_part["sent"]
    return per_part


def _batch_errors(window: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """Standard errors of a run's mean response time and throughput: over its repeated
    windows when it has them (``windows`` > 1), else by batch means, the window cut into
    :data:`BATCHES` equal parts; the spread of the part means over sqrt(parts).
    (Successive requests of a closed loop are correlated; parts of seconds are much less.)"""
    counts = runs.set_index("run")["windows"].astype(int)
    parts = counts.where(counts > 1, BATCHES)
    per_part = _parts(window, runs, parts)
    spread = per_part.groupby("run").agg(r_sd=("response_time", "std"),
                                         x_sd=("throughput", "std"),
                                         parts=("throughput", "size"))
    root = np.sqrt(spread["parts"])
    return pd.DataFrame({"r_succ_se": spread["r_sd"] / root,
                         "throughput_se": spread["x_sd"] / root})


def windows(dataset: str | Path) -> pd.DataFrame:
    """One row per run and repeated window (one window per run measured without repeats):
    the paper's metrics over that window alone."""
    runs = runs_of(dataset)
    window = in_window(load("requests", dataset), runs)
    per_part = _parts(window, runs, runs.set_index("run")["windows"].astype(int))
    out = per_part.reset_index().rename(columns={"part": "window"})
    return out[["run", "window", "throughput", "response_time", "error_rate", "sent"]]


def _per_run(window: pd.DataFrame) -> pd.DataFrame:
    ok = window["outcome"] == "ok"
    latency_s = window["latency_ms"] / 1000
    frame = pd.DataFrame({
        "run": window["run"], "ok": ok, "latency_s": latency_s,
        "ok_latency_s": latency_s.where(ok), "error_latency_s": latency_s.where(~ok),
        "cpu_ms": (window["server_cpu_us"] / 1000).where(ok),
    })
    grouped = frame.groupby("run")
    out = pd.DataFrame({
        "sent_in_window": grouped.size(),
        "ok_in_window": grouped["ok"].sum(),
        "r_all": grouped["latency_s"].mean(),
        "r_succ": grouped["ok_latency_s"].mean(),
        "r_error": grouped["error_latency_s"].mean(),
        "r_p50": grouped["ok_latency_s"].median(),
        "r_p95": grouped["ok_latency_s"].quantile(0.95),
        "server_cpu_ms": grouped["cpu_ms"].median(),
    })
    return out


def summarize(dataset: str | Path) -> pd.DataFrame:
    """One row per run: its settings and the paper's metrics over the measurement window."""
    runs = runs_of(dataset)
    requests = load("requests", dataset)
    window = in_window(requests, runs)
    metrics = _per_run(window).join(_batch_errors(window, runs))
    table = runs.join(metrics, on="run")
    seconds = table["window_end_s"] - table["window_start_s"]
    errors = table["sent_in_window"] - table["ok_in_window"]
    table["error_rate"] = errors / table["sent_in_window"]
    table["throughput"] = table["ok_in_window"] / seconds
    table["attempt_rate"] = table["sent_in_window"] / seconds
    e = table["error_rate"]
    # Imre et al., eq. (2): R_succ from R_all and R_error (R_error counts only where e > 0).
    table["r_succ_eq2"] = (table["r_all"] - e * table["r_error"].fillna(0.0)) / (1 - e)
    table["utilization"] = table["server_cpu"]
    table["jvm_cpu_s"] = (table["server_cpu"] / table["throughput"]).where(
        table["throughput"] > 0)
    return table.reset_index(drop=True)


def jvm_demand(dataset: str | Path) -> pd.Series:
    """Per split: the JVM's whole processor time per answer (``jvm_cpu_s``, seconds), the
    median over the split's load runs. The one-client runs are left out: at a few answers per
    second the JVM's own background work (its timers, the access log, compilation) weighs on
    each answer far more than under load. A split without a load run is NaN."""
    table = summarize(dataset)
    load_runs = table[table["kind"] == "load"]
    splits = pd.unique(table["split"])
    return load_runs.groupby("split")["jvm_cpu_s"].median().reindex(splits).rename(
        "jvm_cpu_s")


def service_time(dataset: str | Path) -> pd.DataFrame:
    """The one-client runs: the measured service time S of each split (mean response time
    of one client, as the paper measured it), beside what was asked for."""
    table = summarize(dataset)
    one = table[table["kind"] == "one-client"]
    return pd.DataFrame({
        "split": one["split"].to_numpy(),
        "cpu_ms": one["cpu_ms"].to_numpy(),
        "sleep_ms": one["sleep_ms"].to_numpy(),
        "requested_s": ((one["cpu_ms"] + one["sleep_ms"]) / 1000).to_numpy(),
        "measured_s": one["r_succ"].to_numpy(),
        "server_cpu_s": (one["server_cpu_ms"] / 1000).to_numpy(),
        "requests": one["ok_in_window"].to_numpy(),
    })


def generator_report(dataset: str | Path) -> pd.Series:
    """How the generator fared over all runs: its worst processor share and lag."""
    runs = runs_of(dataset)
    return pd.Series({
        "runs": len(runs),
        "kept_up": int(runs["generator_kept_up"].sum()),
        "generator_cpu_max": float(runs["generator_cpu"].max()),
        "lag_p99_max_ms": float(runs["lag_p99_ms"].max()),
        "server_core_busy_min": float(np.nanmin(runs["server_core_busy"].astype(float))),
    })


def _in_flight_at(starts: np.ndarray, ends: np.ndarray, at: np.ndarray) -> np.ndarray:
    """For each time of ``at``: how many requests had been sent before it and were not yet
    answered (or failed), by the clients' clocks."""
    order_s, order_e = np.sort(starts), np.sort(ends)
    return (np.searchsorted(order_s, at, side="left")
            - np.searchsorted(order_e, at, side="right"))


def refusal_margin(dataset: str | Path) -> pd.DataFrame:
    """Per configuration that refused: its capacity B = threads + queue, how many refusals,
    and how many requests were outstanding (sent and not yet answered, by the clients' clocks)
    when a refused request was sent: the fewest and the median. B minus the fewest is how far
    below its capacity the server refused."""
    runs = runs_of(dataset)
    requests = load("requests", dataset)
    rows = []
    for run in runs[runs["closed"] > 0].itertuples():
        mine = requests[requests["run"] == run.run]
        starts = mine["start_s"].to_numpy(dtype=float)
        ends = starts + mine["latency_ms"].to_numpy(dtype=float) / 1000
        refused = (mine["outcome"] == "closed").to_numpy()
        counts = _in_flight_at(starts, ends, starts[refused])
        rows.append({"split": run.split, "threads": run.threads, "queue": run.queue,
                     "capacity": run.capacity, "clients": run.clients,
                     "refusals": int(refused.sum()), "fewest": int(counts.min()),
                     "median": float(np.median(counts))})
    table = pd.DataFrame(rows, columns=["split", "threads", "queue", "capacity", "clients",
                                        "refusals", "fewest", "median"])
    grouped = table.groupby(["split", "threads", "queue", "capacity"], sort=False)
    out = grouped.agg(runs=("clients", "size"), refusals=("refusals", "sum"),
                      fewest_outstanding=("fewest", "min"),
                      median_outstanding=("median", "median"))
    out["margin"] = out.index.get_level_values("capacity") - out["fewest_outstanding"]
    return out.reset_index()
