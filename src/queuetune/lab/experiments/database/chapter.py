"""The database experiment's runs as the models see them (``python -m queuetune.lab report``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...datasets import load
from ...quantities import ModelQuantities

__all__ = ["WORK", "group_of", "model_quantities", "service_times"]

#: What makes two runs share one service: Tomcat's cores and the mean work asked (the
#: distribution changes no mean).
WORK = ("processors", "cpu_ms", "db_ms", "wait_ms")


def group_of(row: pd.Series) -> str:
    """A run's configuration, in words.

    >>> group_of(pd.Series({"processors": 1, "threads": 8, "queue": 100, "pool": 4,
    ...                     "distribution": "constant", "cpu_ms": 2.0, "db_ms": 1.0,
    ...                     "wait_ms": 5.0, "settings_from": "design"}))
    'p = 1, T = 8, B = 108, C = 4, constant work (cpu 2 ms, db 1 ms, wait 5 ms), design'
    """
    return (f"p = {row['processors']}, T = {row['threads']}, B = "
            f"{row['threads'] + row['queue']}, C = {row['pool']}, {row['distribution']} work "
            f"(cpu {row['cpu_ms']:g} ms, db {row['db_ms']:g} ms, wait {row['wait_ms']:g} ms), "
            f"{row['settings_from']}")


def service_times(dataset: str | Path) -> pd.DataFrame:
    """Per work (:data:`WORK`), from its one-client run (a valid one first; ``valid`` says
    which): ``S`` its mean response time,
    ``s_cpu`` the JVM's whole processor time per answer, ``s_wait`` the rest of ``S``, and
    apart: ``s_thread_cpu`` (the request thread's own), ``s_db_cpu`` (the database's
    processes' processor time per answer), ``s_db`` (the query as the page saw it),
    ``s_hold`` (the connection held: query and wait), in seconds."""
    runs = load("runs", dataset)
    one = runs[runs["kind"] == "one-client"].copy()
    one["valid"] = one["valid"].astype(bool)
    one = one.sort_values(["valid", "run"], ascending=[False, True], kind="stable")
    frame = pd.DataFrame({
        **{k: one[k] for k in WORK},
        "S": one["response_ms"] / 1000, "s_cpu": one["jvm_cpu_ms"] / 1000,
        "s_wait": (one["response_ms"] - one["jvm_cpu_ms"]) / 1000,
        "s_thread_cpu": one["thread_cpu_ms"] / 1000, "s_db_cpu": one["db_cpu_ms"] / 1000,
        "s_db": one["db_time_ms"] / 1000, "s_hold": one["hold_ms"] / 1000,
        "run": one["run"], "valid": one["valid"]})
    return frame.drop_duplicates(list(WORK), keep="first").reset_index(drop=True)


def model_quantities(dataset: str | Path) -> ModelQuantities:
    """The load runs (one group per configuration, :func:`group_of`), B = threads + queue,
    the pool C held for the query and the wait; each group's service from the one-client run
    of its work (:func:`service_times`; NaN where the design has none), with the database's
    processor time and the query's time as columns of their own."""
    runs = load("runs", dataset)
    kept = runs[runs["kind"] == "load"].copy()
    kept["group"] = [group_of(r) for _, r in kept.iterrows()]
    open_ = kept["arrival_rate"] > 0
    sent = kept["sent_in_window"].where(kept["sent_in_window"] > 0)
    quantities = pd.DataFrame({
        "group": kept["group"], "run": kept["run"],
        "clients": pd.array(kept["clients"].where(~open_), dtype="Int64"),
        "arrival_rate": kept["arrival_rate"].where(open_, np.nan).astype(float),
        "think_time": kept["think_s"].where(~open_, np.nan).astype(float),
        "threads": pd.array(kept["threads"], dtype="Int64"),
        "capacity": pd.array(kept["threads"] + kept["queue"], dtype="Int64"),
        "processors": pd.array(kept["processors"], dtype="Int64"),
        "connections": pd.array(kept["pool"], dtype="Int64"),
        "throughput": kept["throughput"].astype(float),
        "response_time": (kept["response_ms"] / 1000).astype(float),
        "error_rate": (1 - kept["ok_in_window"] / sent).astype(float),
        "valid": kept["valid"].astype("boolean")}).reset_index(drop=True)
    times = service_times(dataset)
    columns = ["S", "s_cpu", "s_wait", "think_time", "how", "s_thread_cpu", "s_db_cpu",
               "s_db", "s_hold"]
    rows = {}
    for group, part in kept.groupby("group", sort=False):
        first = part.iloc[0]
        match = times
        for k in WORK:
            match = match[match[k] == first[k]]  # exact: levels of the design, not measures
        closed = part[part["arrival_rate"] <= 0]
        think = float(closed["think_s"].iloc[0]) if len(closed) else np.nan
        if len(match):
            t = match.iloc[0]
            rows[group] = {**{k: float(t[k]) for k in ("S", "s_cpu", "s_wait", "s_thread_cpu",
                                                       "s_db_cpu", "s_db", "s_hold")},
                           "think_time": think,
                           "how": f"the one-client run {int(t['run'])} of the same mean work"
                                  f"{'' if t['valid'] else ' (flagged invalid by the runner)'}"
                                  f": S its "
                                  f"mean response, s_cpu the JVM's processor time per answer, "
                                  f"s_wait the rest (the query, the database's work, the "
                                  f"wait); Z the campaign's think time"}
        else:
            rows[group] = {**dict.fromkeys(columns, np.nan), "think_time": think,
                           "how": "no one-client run of this work in the design"}
    service = pd.DataFrame.from_dict(rows, orient="index", columns=columns)
    cannot = []
    if open_.any():
        cannot.append("fits of open runs (arrivals at a rate): the report's fits are of "
                      "closed loops of clients")
    if (kept["distribution"] != "constant").any():
        cannot.append("the models' exact shape for variable work: their service times are "
                      "means; runs with exponential or lognormal work test that assumption")
    if service["S"].isna().any():
        cannot.append("a service time for the groups whose work had no one-client run")
    return ModelQuantities(runs=quantities, service=service, think_time_known=True,
                           cannot=tuple(cannot))
