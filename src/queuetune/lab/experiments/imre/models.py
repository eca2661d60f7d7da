"""The book's two models against the lab's measurements.

* **Predicted, nothing fitted.** M/M/1/B/K with the paper's recipe: the service time S measured
  with one client, the think time Z of the campaign, B = the requests Tomcat admits (threads +
  queue). The thread-limited model with the same S split into the processor time the JVM
  measured per request (``s_c``) and the rest (``s_w = S - s_c``), and the pool's T.
* **Fitted** with :mod:`queuetune.fit` to the measured response times and throughputs of each
  split (Z held at the campaign's value): M/M/1/B/K's S, and the thread-limited model's
  ``s_c`` and ``s_w`` (optionally a contention overhead), compared by AICc and leave-one-out
  prediction error.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .... import fit as qfit
from ....models import mm1bk, thread_pool
from ...datasets import metadata
from ...quantities import ModelQuantities
from . import analysis

__all__ = ["measured", "service", "predict", "fit_split", "compare_split",
           "model_quantities", "DEMANDS"]

#: What the models are compared on, as named in the fits.
QUANTITIES = ("response_time", "throughput")


def measured(dataset: str | Path) -> pd.DataFrame:
    """The load runs with the paper's metrics: one row per split x pool x queue x clients."""
    table = analysis.summarize(dataset)
    load = table[table["kind"] == "load"].copy()
    load["response_time"] = load["r_succ"]
    return load.reset_index(drop=True)


#: Where the processor time per request s_c comes from: ``thread``, the JVM's measure of the
#: answering thread with one client; ``jvm``, the JVM's whole processor time per answer under
#: load by the utilization law (:func:`analysis.jvm_demand`: the thread's time plus the
#: server's own work for each answer, the accepting and polling threads, the access log, the
#: collector and the compiler).
DEMANDS = ("thread", "jvm")


def service(dataset: str | Path, *, demand: str = "thread") -> pd.DataFrame:
    """Per split: S measured with one client, and its split into processor time ``s_cpu``
    (by ``demand``, one of :data:`DEMANDS`) and the rest (waiting, and the server's other
    work), ``s_wait = S - s_cpu``."""
    if demand not in DEMANDS:
        raise ValueError(f"demand must be one of {DEMANDS}, got {demand!r}")
    one = analysis.service_time(dataset).set_index("split")
    cpu = (one["server_cpu_s"] if demand == "thread"
           else analysis.jvm_demand(dataset).reindex(one.index))
    out = pd.DataFrame({"S": one["measured_s"], "s_cpu": cpu})
    out["s_wait"] = (out["S"] - out["s_cpu"]).clip(lower=0.0)
    return out


def model_quantities(dataset: str | Path) -> ModelQuantities:
    """The load runs as the report's models see them (:mod:`queuetune.lab.quantities`): one
    group per split; B = min(threads + queue, maxConnections); the processors are the cores
    the server was pinned to; the think time is the campaign's. Runs whose maxConnections is
    below threads + queue are left out: their connections wait in the kernel, which neither
    model describes. A server the user started (``--target``) has no known processors; its
    threads and queue are unknown in data sets that record them so (empty)."""
    runs = measured(dataset)
    cores = (metadata(dataset).get("pinning") or {}).get("server_cores") or []
    # (capacity is already min(threads + queue, maxConnections): compare with the pool's own)
    kernel = (runs["max_connections"] < runs["threads"] + runs["queue"]).fillna(False
                                                                             ).astype(bool)
    kept = runs[~kernel]
    out = pd.DataFrame({
        "group": kept["split"].astype(str), "run": kept["run"], "clients": kept["clients"],
        "arrival_rate": np.nan, "think_time": kept["think_s"].astype(float),
        "threads": kept["threads"].astype("Int64"), "capacity": kept["capacity"].astype("Int64"),
        "processors": pd.array([len(cores) or pd.NA] * len(kept), dtype="Int64"),
        "connections": pd.array([pd.NA] * len(kept), dtype="Int64"),
        "throughput": kept["throughput"], "response_time": kept["response_time"],
        "error_rate": kept["error_rate"], "valid": kept["valid"].astype("boolean")})
    svc = service(dataset)
    svc.index = svc.index.astype(str)
    every = analysis.runs_of(dataset)
    svc["think_time"] = float(every["think_s"].iloc[0])
    svc["how"] = ("S: one client's mean response time; s_c: processor time of the answering "
                  "thread; Z: the campaign's think time")
    cannot = []
    if not cores:
        cannot.append("the server's processors: a server the user started (--target), not "
                      "pinned by the runner (pass --processors)")
    if kept["threads"].isna().any():
        cannot.append("the server's threads and queue: a server the user started "
                      "(--target) does not say them, so the pool's ceiling and the "
                      "thread-limited model are not computed")
    left = ((f"{int(kernel.sum())} load runs whose maxConnections is below threads + queue "
             f"(their connections wait in the kernel, which neither model describes)",)
            if kernel.any() else ())
    return ModelQuantities(runs=out.reset_index(drop=True), service=svc,
                           think_time_known=True, cannot=tuple(cannot), left_out=left)


def predict(runs: pd.DataFrame, services: pd.DataFrame, think_time: float) -> pd.DataFrame:
    """Both models' predictions for each run, from the one-client service time alone."""
    S = services.loc[runs["split"], "S"].to_numpy()
    s_cpu = services.loc[runs["split"], "s_cpu"].to_numpy()
    s_wait = services.loc[runs["split"], "s_wait"].to_numpy()
    K = runs["clients"].to_numpy(dtype=int)
    B = runs["capacity"].to_numpy(dtype=int)
    T = runs["threads"].to_numpy(dtype=int)
    single = mm1bk(clients=K, capacity=B, service_time=S, think_time=think_time)
    pool = thread_pool(clients=K, capacity=B, threads=T, cpu_time=s_cpu, wait_time=s_wait,
                       think_time=think_time, method="exact")
    frames = []
    for name, result in (("M/M/1/B/K", single), ("thread-limited", pool)):
        frames.append(pd.DataFrame({
            "run": runs["run"].to_numpy(), "model": name,
            "throughput": np.asarray(result.throughput, dtype=float),
            "response_time": np.asarray(result.response_time, dtype=float),
            "share_refused": np.asarray(result.rejection_probability, dtype=float),
            "utilization": np.asarray(result.utilization, dtype=float)}))
    return pd.concat(frames, ignore_index=True)


def fit_split(runs: pd.DataFrame, think_time: float, *, contention: bool = False
              ) -> dict[str, qfit.Fit]:
    """Fits of both models to the response times and throughputs of one split's runs. A fit
    that explains a quantity less well than its mean says so in its ``warnings`` (the
    ``UserWarning`` it also raises is not repeated here)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "the .* fit explains less than a constant",
                                UserWarning)
        return _fit_split(runs, think_time, contention)


def _fit_split(runs: pd.DataFrame, think_time: float, contention: bool
               ) -> dict[str, qfit.Fit]:
    K = runs["clients"].to_numpy(dtype=int)
    B = runs["capacity"].to_numpy(dtype=int)
    T = runs["threads"].to_numpy(dtype=int)
    R = runs["response_time"].to_numpy(dtype=float)
    X = runs["throughput"].to_numpy(dtype=float)
    fits: dict[str, qfit.Fit] = {
        "M/M/1/B/K": qfit.fit_mm1bk(clients=K, capacity=B, response_time=R, throughput=X,
                                    fixed={"think_time": think_time}),
        "thread-limited": qfit.fit_thread_pool(
            clients=K, threads=T, response_time=R, throughput=X, capacity=B,
            free=("cpu_time", "wait_time"), fixed={"think_time": think_time}),
    }
    if contention:
        fits["thread-limited + contention"] = qfit.fit_thread_pool(
            clients=K, threads=T, response_time=R, throughput=X, capacity=B,
            free=("cpu_time", "wait_time", "thread_overhead"),
            fixed={"think_time": think_time})
    return fits


def compare_split(fits: Mapping[str, qfit.Fit]) -> pd.DataFrame:
    """AICc, Akaike weights and leave-one-out errors of the fits of one split."""
    return qfit.compare(dict(fits), loo=True)
