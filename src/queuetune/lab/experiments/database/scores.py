"""The advice deployed, scored: what the sizing promised for the settings it emitted against
what the server measured with them (the chapter *Does the advice hold?*), and the database's
times estimated apart (its processor time per answer and the wait off the database).

A promise is the sizing's own row (:func:`queuetune.sizing.promise`) for the deployed
settings at the measured load. The sizing states rows at :data:`queuetune.sizing.MULTIPLES` of
its peak: those are its *promises*; at the campaign's other loads the same computation is the
model's *prediction* for those settings, scored the same way but never called a promise.

Intervals are 95 % block-bootstrap intervals over each run's window: the window is cut into
:data:`BLOCKS` consecutive stretches of equal time and whole stretches are resampled, so that
requests close in time, which wait behind one another, stay together.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from ... import regimes
from ...datasets import load

__all__ = ["BLOCKS", "TOLERANCE", "REFUSED_TOLERANCE", "QUANTITIES", "advice", "resized",
           "scores", "kept", "measured_saturation", "database_times", "work_errors",
           "max_response"]

#: Stretches of each window the bootstrap resamples.
BLOCKS = 12
#: A promise is kept when the measured 95 % interval reaches within this share of it on the
#: promise's good side (no slower, no less throughput), ...
TOLERANCE = 0.10
#: ... and for the share refused, within this many (absolute: 0.01 is one point).
REFUSED_TOLERANCE = 0.01
#: What is scored: name, key of a sizing row, whether larger is worse, unit scale for text.
QUANTITIES = (("throughput", "throughput", False), ("mean response", "response_time", True),
              ("p50", "response_time_p50", True), ("p95", "response_time_p95", True),
              ("p99", "response_time_p99", True), ("share refused", "refused", True))


def advice(dataset: str | Path) -> dict:
    """The stored advice (``advice.csv``): numbers as floats, counts as ints, texts as they
    were deployed (the snippets verbatim)."""
    table = load("advice", dataset)
    out = {}
    for quantity, value in zip(table["quantity"], table["value"], strict=True):
        text = str(value)
        try:
            number = float(text)
        except ValueError:
            out[quantity] = text
            continue
        out[quantity] = int(number) if quantity in ("threads", "queue", "pool", "capacity",
                                                    "processors", "measured_in_run") \
            else number
    return out


def resized(dataset: str | Path):
    """The sizing of the stored advice's inputs again (:func:`queuetune.sizing.size`: the
    same function, the same inputs), for what the stored advice does not hold (its rows, the
    resource that saturates first)."""
    from .... import sizing

    a = advice(dataset)
    return sizing.size(processors=a["processors"], cpu_time=a["cpu_s"], wait_time=a["wait_s"],
                       arrival_rate=a["peak"], max_response_time=max_response(dataset))


def max_response(dataset: str | Path) -> float:
    """The longest acceptable response time (s) the advice campaign gave the sizing."""
    from ...campaign import load as load_campaign

    folder = Path(dataset)
    if not folder.is_dir():
        from ...datasets import dataset_dir
        folder = dataset_dir(dataset)
    return load_campaign(folder / "campaign.toml").settings.advice.max_response_s


def _window(requests: pd.DataFrame, run: pd.Series) -> pd.DataFrame:
    """The requests of ``run`` sent in its measurement window."""
    mine = requests[requests["run"] == run["run"]]
    start = mine["start_s"]
    return mine[(start >= run["window_start_s"]) & (start < run["window_end_s"])]


def _measures(sent: pd.DataFrame, seconds: float) -> dict[str, float]:
    ok = sent.loc[sent["outcome"] == "ok", "latency_ms"].to_numpy(dtype=float) / 1000
    measures = {"throughput": len(ok) / seconds,
                "refused": 1 - len(ok) / len(sent) if len(sent) else math.nan}
    if len(ok):
        measures["response_time"] = float(ok.mean())
        for key, q in (("response_time_p50", 50), ("response_time_p95", 95),
                       ("response_time_p99", 99)):
            measures[key] = float(np.percentile(ok, q))
    else:
        measures.update(dict.fromkeys(("response_time", "response_time_p50",
                                       "response_time_p95", "response_time_p99"), math.nan))
    return measures


def _intervals(sent: pd.DataFrame, run: pd.Series, rng: np.random.Generator,
               resamples: int) -> dict[str, tuple[float, float]]:
    start, end = float(run["window_start_s"]), float(run["window_end_s"])
    seconds = end - start
    block = np.minimum(((sent["start_s"].to_numpy() - start) / seconds * BLOCKS).astype(int),
                       BLOCKS - 1)
    pieces = [sent[block == b] for b in range(BLOCKS)]
    draws: dict[str, list[float]] = {}
    for _ in range(resamples):
        picked = pd.concat([pieces[j] for j in rng.integers(0, BLOCKS, BLOCKS)])
        for key, value in _measures(picked, seconds).items():
            draws.setdefault(key, []).append(value)
    return {key: tuple(float(v) for v in np.nanpercentile(values, [2.5, 97.5]))
            for key, values in draws.items()}


def scores(dataset: str | Path, *, seed: int = 31, resamples: int = 1000) -> pd.DataFrame:
    """One row per advice run and quantity (:data:`QUANTITIES`): the load as a multiple of
    the peak, its regime (:func:`queuetune.lab.regimes.regime_of` of the multiple over the
    stated saturation multiple), whether the sizing promised it (a row of its answer) or the
    model predicts it, the promised value, the measured one with its interval, the error
    (promised over measured, less 1) and whether the promise was kept (:func:`kept`)."""
    from .... import sizing

    a = advice(dataset)
    saturation = resized(dataset).saturation_multiple
    runs = load("runs", dataset)
    runs = runs[(runs["kind"] == "load") & (runs["settings_from"] == "advice")]
    requests = load("requests", dataset)
    rng = np.random.default_rng(seed)
    rows = []
    for _, run in runs.sort_values("peak_multiple", kind="stable").iterrows():
        multiple = float(run["peak_multiple"])
        promised = sizing.promise(processors=int(run["processors"]), cpu_time=a["cpu_s"],
                                  wait_time=a["wait_s"], threads=int(run["threads"]),
                                  capacity=int(run["threads"] + run["queue"]),
                                  connections=int(run["pool"]),
                                  arrival_rate=multiple * a["peak"])
        sent = _window(requests, run)
        seconds = float(run["window_end_s"] - run["window_start_s"])
        measured = _measures(sent, seconds)
        interval = _intervals(sent, run, rng, resamples)
        for name, key, worse_up in QUANTITIES:
            low, high = interval[key]
            value = measured[key]
            rows.append({
                "run": int(run["run"]), "multiple": multiple,
                "regime": str(regimes.regime_of([multiple / saturation])[0]),
                "kind": "promise" if multiple in sizing.MULTIPLES else "prediction",
                "quantity": name, "promised": promised[key], "measured": value,
                "low": low, "high": high,
                "error": promised[key] / value - 1 if value else math.nan,
                "kept": kept(name, promised[key], low, high, worse_up),
                "valid": bool(run["valid"])})
    return pd.DataFrame(rows)


def kept(name: str, promised: float, low: float, high: float, worse_up: bool) -> bool:
    """Whether a promise was kept: the measured 95 % interval ``[low, high]`` reaches within
    :data:`TOLERANCE` of the promise on its good side (for the share refused within
    :data:`REFUSED_TOLERANCE`, absolute): a time or a share refused no larger than promised
    by more than that, a throughput no smaller.

    >>> kept("p99", 0.100, 0.105, 0.130, True), kept("p99", 0.100, 0.115, 0.130, True)
    (True, False)
    >>> kept("throughput", 50.0, 40.0, 44.0, False)
    False
    """
    if name == "share refused":
        return bool(low <= promised + REFUSED_TOLERANCE)
    if worse_up:
        return bool(low <= promised * (1 + TOLERANCE))
    return bool(high >= promised * (1 - TOLERANCE))


def measured_saturation(dataset: str | Path) -> pd.DataFrame:
    """Per advice run, the load (a multiple of the peak) at which each resource would be
    fully busy, by the utilization law: the processors at the multiple over the share of them
    the JVM kept busy (``server_cpu`` over ``processors``); the pool at its connections over
    the time a request held one (``hold_ms``), over the peak; and the throughput measured,
    over the peak."""
    peak = advice(dataset)["peak"]
    runs = load("runs", dataset)
    runs = runs[(runs["kind"] == "load") & (runs["settings_from"] == "advice")].copy()
    busy = runs["server_cpu"] / runs["processors"]
    runs["processors busy"] = busy
    runs["processors saturate at"] = runs["peak_multiple"] / busy
    runs["hold (ms)"] = runs["hold_ms"]
    runs["pool saturates at"] = runs["pool"] / (runs["hold_ms"] / 1000) / peak
    runs["throughput (multiple)"] = runs["throughput"] / peak
    return runs[["run", "peak_multiple", "processors busy", "processors saturate at",
                 "hold (ms)", "pool saturates at", "throughput (multiple)", "valid"]
                ].reset_index(drop=True)


def database_times(dataset: str | Path, *, seed: int = 31, resamples: int = 1000
                   ) -> pd.DataFrame:
    """The database's times estimated apart, per load run: ``s_db`` its processes' processor
    time per answer (the utilization law, ``db_cpu_ms``), the query's time as the page saw it
    (``db_us``), and ``s_w`` the wait off the database while the connection is held (hold
    less query, per answered request of the run, warm-up included, from Tomcat's access log),
    each with a 95 % interval (``s_db`` over the runs of a work by
    :func:`regimes.median_interval`; the others by resampling the run's requests in blocks)."""
    runs = load("runs", dataset)
    runs = runs[runs["kind"] == "load"]
    access = load("access", dataset)
    rng = np.random.default_rng(seed)
    rows = []
    for _, run in runs.iterrows():
        # every answer of the run, its warm-up at the same load included: the access log
        # keeps epoch times, the window is kept from the run's start
        mine = access[(access["run"] == run["run"]) & (access["status"] == 200)]
        query = mine["db_us"].to_numpy(dtype=float) / 1e6
        off = (mine["hold_us"] - mine["db_us"]).to_numpy(dtype=float) / 1e6
        if not len(query):
            continue
        block = np.array_split(np.arange(len(query)), BLOCKS)
        draws = np.empty((resamples, 2))
        for i in range(resamples):
            picked = np.concatenate([block[j] for j in rng.integers(0, len(block), len(block))])
            draws[i] = query[picked].mean(), off[picked].mean()
        (q_low, w_low), (q_high, w_high) = np.percentile(draws, [2.5, 97.5], axis=0)
        rows.append({"run": int(run["run"]), "distribution": run["distribution"],
                     "processors": int(run["processors"]), "db_ms": float(run["db_ms"]),
                     "wait_ms": float(run["wait_ms"]),
                     "s_db": float(run["db_cpu_ms"]) / 1000,
                     "query": float(query.mean()), "query_low": q_low, "query_high": q_high,
                     "s_w": float(off.mean()), "s_w_low": w_low, "s_w_high": w_high,
                     "valid": bool(run["valid"])})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    interval = {}
    for key, part in out.groupby(["db_ms", "wait_ms"]):
        interval[key] = regimes.median_interval(part["s_db"].to_numpy(), groups=part["run"],
                                                rng=rng, resamples=resamples)
    out["s_db_low"] = [interval[(d, w)][0] for d, w in zip(out["db_ms"], out["wait_ms"],
                                                            strict=True)]
    out["s_db_high"] = [interval[(d, w)][1] for d, w in zip(out["db_ms"], out["wait_ms"],
                                                             strict=True)]
    return out


def work_errors(dataset: str | Path, *, resamples: int = 1000, seed: int = 31) -> pd.DataFrame:
    """Per load run of open arrivals: the model's mean response time and throughput for the
    run's settings (:func:`queuetune.sizing.promise`: exponential times), predicted from the
    one-client run of its processors (the JVM's processor time per answer and the rest of the
    response, :func:`chapter.service_times`), beside the measured ones with an interval, and
    the signed errors (model over measured, less 1), with the run's distribution of work."""
    from .... import sizing
    from .chapter import service_times

    times = service_times(dataset)
    runs = load("runs", dataset)
    runs = runs[(runs["kind"] == "load") & (runs["arrival_rate"] > 0)]
    requests = load("requests", dataset)
    rng = np.random.default_rng(seed)
    rows = []
    for _, run in runs.iterrows():
        match = times
        for key in ("processors", "cpu_ms", "db_ms", "wait_ms"):
            match = match[match[key] == run[key]]
        if match.empty:
            continue
        t = match.iloc[0]
        model = sizing.promise(processors=int(run["processors"]), cpu_time=float(t["s_cpu"]),
                               wait_time=float(t["s_wait"]), threads=int(run["threads"]),
                               capacity=int(run["threads"] + run["queue"]),
                               connections=int(run["pool"]),
                               arrival_rate=float(run["arrival_rate"]))
        sent = _window(requests, run)
        seconds = float(run["window_end_s"] - run["window_start_s"])
        measured = _measures(sent, seconds)
        interval = _intervals(sent, run, rng, resamples)["response_time"]
        rows.append({"run": int(run["run"]), "distribution": run["distribution"],
                     "processors": int(run["processors"]),
                     "arrival_rate": float(run["arrival_rate"]),
                     "response_time": measured["response_time"],
                     "low": interval[0], "high": interval[1],
                     "r_model": model["response_time"],
                     "response_time_error": model["response_time"] / measured["response_time"]
                     - 1,
                     "throughput_error": model["throughput"] / measured["throughput"] - 1,
                     "valid": bool(run["valid"])})
    return pd.DataFrame(rows)
