"""A data set of today's experiment turned into per-run metrics and the models' errors.

Only requests *sent* inside a run's measurement window count. Per run:

* ``throughput`` - answers completed inside the window, per second (past the knee, requests
  sent in the window are answered long after it: counting them would give the arrival rate);
  ``offered`` - the planned arrival rate (open
  runs) or requests sent per second (closed runs);
* ``r_mean`` with ``r_low``/``r_high`` - mean response time of the answered requests and its
  95 % interval by batch means (the window cut into :data:`BATCHES` equal parts: consecutive
  requests are correlated, single requests are not independent samples);
* ``permit_wait_ms`` and ``permit_wait_p99_ms`` - time waiting for a permit of the pool;
* ``distribution`` - how the page drew the work (``constant`` in data sets measured before
  the factor existed); ``cpu_cv`` and ``wait_cv`` - the achieved coefficient of variation of
  the answering threads' processor time and of the drawn waits (NaN where not recorded);
* ``lateness_p99_ms`` - how late the generator sent, ``generator_share`` - its share of the
  busy time of Tomcat's cores (0 when it runs on cores of its own);
* ``regime`` - below, at or past the knee: the offered load against the nominal capacity of
  the configuration (:func:`capacity`);
* with the thread-pool model of the ``models`` branch (``queuetune.thread_pool`` with
  ``processors``, ``connections`` and ``arrival_rate``), its predicted throughput and mean
  response time, and their relative errors (:func:`prediction_errors`); without it, the
  analysis says so rather than fail.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ....models import thread_pool
from ...datasets import experiment_of, load
from ...regimes import REGIMES, bottleneck_demand, knee_clients, regime_of

__all__ = ["BATCHES", "VIRTUAL_CAPACITY", "runs_of", "in_window", "summarize", "service_times",
           "capacity", "regimes", "predict", "prediction_errors",
           "errors_by_regime"]

#: Equal parts of each run's window whose means give the interval of the run's mean.
BATCHES = 10


def runs_of(dataset: str | Path) -> pd.DataFrame:
    """The runs table of a data set of this experiment (``ValueError`` for another's)."""
    if experiment_of(dataset) != "today":
        raise ValueError(f"dataset must be a data set of the experiment 'today', got one of "
                         f"{experiment_of(dataset)!r}")
    return load("runs", dataset)


def in_window(requests: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """The requests sent inside their run's measurement window, with the window's bounds."""
    bounds = runs.set_index("run")[["window_start_s", "window_end_s"]]
    joined = requests.join(bounds, on="run")
    inside = (joined["start_s"] >= joined["window_start_s"]) & (
        joined["start_s"] < joined["window_end_s"])
    return joined[inside.to_numpy()]


def _interval(means: np.ndarray) -> tuple[float, float]:
    """95 % Student interval of the mean of batch means (NaN with fewer than 2 batches)."""
    means = means[np.isfinite(means)]
    if len(means) < 2:
        return float("nan"), float("nan")
    half = stats.t.ppf(0.975, len(means) - 1) * means.std(ddof=1) / np.sqrt(len(means))
    return float(means.mean() - half), float(means.mean() + half)


def _run_metrics(group: pd.DataFrame) -> pd.Series:
    start, end = group["window_start_s"].iloc[0], group["window_end_s"].iloc[0]
    ok = group[group["outcome"] == "ok"]
    batch = np.minimum(((ok["start_s"] - start) / (end - start) * BATCHES).astype(int),
                       BATCHES - 1)
    low, high = _interval(ok.groupby(batch)["latency_ms"].mean().to_numpy())
    wait = ok["permit_wait_us"].dropna() / 1000
    return pd.Series({
        "sent_in_window": len(group), "answered": len(ok),
        "refused_share": (group["outcome"] == "closed").mean(),
        "r_mean": ok["latency_ms"].mean() if len(ok) else np.nan, "r_low": low, "r_high": high,
        "permit_wait_ms": wait.mean() if len(wait) else np.nan,
        "permit_wait_p99_ms": float(np.percentile(wait, 99)) if len(wait) else np.nan,
        "cpu_cv": _cv(ok["server_cpu_us"]),
        "wait_cv": _cv(ok["drawn_wait_us"]) if "drawn_wait_us" in ok else np.nan,
    })


def _cv(values: pd.Series) -> float:
    """The coefficient of variation (sample standard deviation over the mean) of the values
    given (NaN with fewer than two, or a mean of 0)."""
    values = values.dropna().astype(float)
    if len(values) < 2 or values.mean() <= 0:
        return np.nan
    return float(values.std(ddof=1) / values.mean())


def _completions(requests: pd.DataFrame, runs: pd.DataFrame) -> pd.Series:
    """Per run: answers that ended inside the window, per second of the window."""
    bounds = runs.set_index("run")[["window_start_s", "window_end_s"]]
    joined = requests[requests["outcome"] == "ok"].join(bounds, on="run")
    end = joined["start_s"] + joined["latency_ms"] / 1000
    inside = (end >= joined["window_start_s"]) & (end < joined["window_end_s"])
    counts = joined[inside.to_numpy()].groupby("run").size()
    return (counts.reindex(bounds.index, fill_value=0)
            / (bounds["window_end_s"] - bounds["window_start_s"]))


def summarize(dataset: str | Path) -> pd.DataFrame:
    """One row per run: its levels, validity, and the metrics of the module's docstring."""
    runs = runs_of(dataset)
    requests = load("requests", dataset)
    window = in_window(requests, runs)
    metrics = window.groupby("run")[list(window.columns)].apply(_run_metrics)
    metrics["throughput"] = _completions(requests, runs)
    keep = ["run", "kind", "processors", "executor", "threads", "queue", "pool", "clients",
            "arrival_rate", "think_s", "cpu_ms", "wait_ms", "java", "server_error",
            "window_start_s", "window_end_s", "generator_cpu", "generator_share",
            "lateness_p99_ms", "virtual_share", "valid", "invalid_reason"]
    table = runs[keep].join(metrics, on="run")
    # data sets measured before the factor existed: constant work
    table["distribution"] = (runs["distribution"].fillna("constant") if "distribution" in runs
                             else "constant")
    length = table["window_end_s"] - table["window_start_s"]
    table["offered"] = np.where(table["arrival_rate"] > 0, table["arrival_rate"],
                                table["sent_in_window"] / length)
    return table


def service_times(dataset: str | Path) -> pd.DataFrame:
    """Per processors level: ``s_c`` and ``s_w`` (seconds) measured by its one-client run
    (s_c: the median processor time the server reported for the request's thread, or, on
    virtual threads, whose processor time the JVM does not report, the JVM's processor time
    per answer over the run's window, the utilization law; s_w: the mean response time less
    s_c), or the times the campaign asked for when there is no such run (``source`` says)."""
    runs = runs_of(dataset)
    window = in_window(load("requests", dataset), runs)
    rows = []
    for processors, group in runs.groupby("processors"):
        one = group[group["kind"] == "one-client"]
        asked = group.iloc[0]
        if len(one):
            run = one.iloc[0]
            ok = window[(window["run"] == run["run"]) & (window["outcome"] == "ok")]
            source = "one-client run"
            if ok["server_cpu_us"].notna().any():
                s_c = float(ok["server_cpu_us"].median()) / 1e6
            else:
                answers = len(ok) / (run["window_end_s"] - run["window_start_s"])
                s_c = float(run["server_cpu"]) / answers
                source = "one-client run (JVM processor time per answer: virtual threads)"
            s_w = float(ok["latency_ms"].mean()) / 1000 - s_c
            rows.append((processors, s_c, s_w, source))
        else:
            rows.append((processors, asked["cpu_ms"] / 1000, asked["wait_ms"] / 1000,
                         "asked for (no one-client run)"))
    return pd.DataFrame(rows, columns=["processors", "s_c", "s_w", "source"])


def capacity(*, processors: int, threads: float, connections: float, s_c: float,
             s_w: float) -> float:
    """Nominal capacity (requests per second): the least of the processors ``P / s_c``, the
    threads ``T / (s_c + s_w)`` (``inf`` for virtual threads) and the pool ``C / s_w`` (``inf``
    without one)."""
    if processors < 1 or s_c <= 0 or s_w < 0:
        raise ValueError(f"processors must be >= 1, s_c > 0 and s_w >= 0; got {processors}, "
                         f"{s_c}, {s_w}")
    return float(1 / _demand(processors, threads, connections, s_c, s_w))


def _demand(processors, threads, connections, s_c: float, s_w: float) -> float:
    return float(bottleneck_demand(processors=processors, cpu_time=s_c,
                                   service_time=s_c + s_w, threads=threads or None,
                                   connections=connections or None, wait_time=s_w))


def _knee_load(row: pd.Series, demand: float, times: pd.Series) -> float:
    """Offered load over capacity: the arrival rate times the bottleneck's demand, or the
    clients over the knee K* (:func:`queuetune.lab.regimes.knee_clients`)."""
    if row["arrival_rate"] > 0:
        return row["arrival_rate"] * demand
    knee = knee_clients(service_time=times["s_c"] + times["s_w"],
                        think_time=row["think_s"], demand=demand)
    return row["clients"] / float(knee)


def regimes(dataset: str | Path) -> pd.DataFrame:
    """Per load run: capacity, load (offered over capacity) and regime
    (:func:`queuetune.lab.regimes.regime_of`)."""
    table = summarize(dataset)
    table = table[table["kind"] == "load"].copy()
    times = service_times(dataset).set_index("processors")
    caps, loads = [], []
    for _, row in table.iterrows():
        t = times.loc[row["processors"]]
        threads = row["threads"] if row["executor"] == "platform" else 0
        demand = _demand(int(row["processors"]), threads, row["pool"], t["s_c"], t["s_w"])
        caps.append(1 / demand)
        loads.append(_knee_load(row, demand, t))
    table["capacity"], table["load"] = caps, loads
    table["regime"] = regime_of(table["load"].to_numpy())
    return table


#: The most requests the model lets a virtual-thread server hold. Tomcat's executor of virtual
#: threads has no queue bound: it admits up to ``maxConnections`` (10,000 in the campaigns),
#: then leaves connections in the kernel's backlog. The model stops at 2,000, which keeps a
#: solve under a quarter of a second (10,000 costs four times more, in every fit iteration),
#: and which no compared run approaches: their model share refused at 2,000 is 0 in double
#: precision (``test_the_virtual_thread_bound_refuses_nothing_in_the_compared_runs``). Past
#: the pool's ceiling, where no run is steady, the model's curves refuse at this bound.
VIRTUAL_CAPACITY = 2000


def predict(row: pd.Series, s_c: float, s_w: float, *,
            capacity_limit: int = VIRTUAL_CAPACITY):
    """The thread-pool model's result for one run (``queuetune.thread_pool``): admitted at
    most threads + queue (platform) or ``capacity_limit`` (virtual threads: no queue bound;
    :data:`VIRTUAL_CAPACITY`)."""
    platform = row["executor"] == "platform"
    admitted = int(row["threads"] + row["queue"]) if platform else capacity_limit
    load = ({"arrival_rate": float(row["arrival_rate"])} if row["arrival_rate"] > 0 else
            {"clients": int(row["clients"]), "think_time": float(row["think_s"])})
    return thread_pool(
        **load, capacity=admitted, threads=int(row["threads"]) if platform else None,
        cpu_time=s_c, wait_time=s_w, processors=int(row["processors"]),
        connections=int(row["pool"]) if row["pool"] > 0 else None, method="fes")


def prediction_errors(dataset: str | Path) -> pd.DataFrame:
    """Per load run: the model's throughput and mean response time, predicted from the
    one-client service times, and their relative errors against the measured ones."""
    table = regimes(dataset)
    times = service_times(dataset).set_index("processors")
    cols = ["x_model", "r_model_ms", "x_error", "r_error"]
    for i, row in table.iterrows():
        t = times.loc[row["processors"]]
        result = predict(row, t["s_c"], t["s_w"])
        x, r = float(result.throughput), float(result.response_time) * 1000
        table.loc[i, cols] = [x, r, _relative(x, row["throughput"]),
                              _relative(r, row["r_mean"])]
    return table


def _relative(predicted: float, measured: float) -> float:
    """predicted / measured - 1, or NaN where nothing was measured (a run that completed no
    answer inside its window, as a loaded machine's smoke run may: no error to state).

    >>> _relative(11.0, 10.0), _relative(1.0, 0.0)
    (0.10000000000000009, nan)
    """
    return predicted / measured - 1 if measured > 0 else float("nan")


def errors_by_regime(dataset: str | Path, *, seed: int = 1, draws: int = 2000
                     ) -> pd.DataFrame:
    """Per regime (below, at, past the knee), over the valid load runs: how many, and the
    median absolute relative error of the predicted throughput and response time with a 95 %
    bootstrap interval over runs (seeded)."""
    table = prediction_errors(dataset)
    valid = table[table["valid"].astype(bool)]
    rng = np.random.default_rng(seed)
    rows = []
    for regime in REGIMES:
        mine = valid[valid["regime"] == regime]
        row = {"regime": regime, "runs": len(mine)}
        for name in ("x_error", "r_error"):
            errors = mine[name].abs().dropna().to_numpy()
            row[f"{name}_median"] = float(np.median(errors)) if len(errors) else np.nan
            if len(errors) >= 2:
                boot = np.median(rng.choice(errors, (draws, len(errors))), axis=1)
                row[f"{name}_low"], row[f"{name}_high"] = np.percentile(boot, [2.5, 97.5])
            else:
                row[f"{name}_low"] = row[f"{name}_high"] = np.nan
        rows.append(row)
    return pd.DataFrame(rows)

