"""The keep-alive experiment's runs as the report's models see them (for
``python -m queuetune.lab report``; see :mod:`queuetune.lab.quantities`).

Each run is one configuration (the protocol and ``maxKeepAliveRequests``) at one client count,
its clients sending requests back to back (no think time). That design measures what a
connection costs, not how the server queues: it has no one-client run (so no service time S
and no split of it into processor time and waiting) and one client count per configuration
(so nothing to fit). What it does give is the server's processor time per answer (the JVM
process's processor time over the run per answer, the utilization law), hence the
processors' ceiling.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...datasets import load, metadata
from ...quantities import ModelQuantities

__all__ = ["CANNOT", "group_of", "model_quantities"]

#: What the design cannot give the report, in words.
CANNOT = (
    "the one-client service time S and its split into processor time and waiting: the "
    "design has no one-client run (its clients send back to back), so the threads' "
    "ceiling, the knee and the recommended settings are not computed",
    "fits of the models: each configuration (protocol, maxKeepAliveRequests) was measured "
    "at one client count",
)


def group_of(scheme: str, keep_alive_requests: int) -> str:
    """A configuration in words.

    >>> group_of("https", 100)
    'https, maxKeepAliveRequests 100'
    """
    return f"{scheme}, maxKeepAliveRequests {keep_alive_requests}"


def model_quantities(dataset: str | Path) -> ModelQuantities:
    """Per load run: clients, no think time, the server's threads (``maxThreads`` of the
    campaign's Tomcat) and processors (its pinned cores), throughput (answers over the total
    run time), mean request time and share failed; per configuration: the processor time per
    answer (``server_process_cpu``, a share of one core over the run's window, times the
    window over the answers), S and s_w unknown."""
    runs = load("runs", dataset)
    m = metadata(dataset)
    runs = runs[runs["kind"] == "load"]
    cores = len(m["pinning"]["server_cores"])
    seconds = runs["total_run_time_s"].astype(float)
    groups = [group_of(s, int(k)) for s, k in zip(runs["scheme"], runs["keep_alive_requests"],
                                                  strict=True)]
    out = pd.DataFrame({
        "group": groups, "run": runs["run"], "clients": runs["clients"],
        "arrival_rate": np.nan, "think_time": 0.0,
        "threads": pd.array([m["settings"]["threads"]] * len(runs), dtype="Int64"),
        "capacity": pd.array([pd.NA] * len(runs), dtype="Int64"),
        "processors": pd.array([cores] * len(runs), dtype="Int64"),
        "connections": pd.array([pd.NA] * len(runs), dtype="Int64"),
        "throughput": runs["answered"] / seconds,
        "response_time": runs["average_request_time_ms"] / 1000,
        "error_rate": runs["errors"] / runs["requests"],
        "valid": runs["valid"].astype("boolean")}).reset_index(drop=True)
    cpu = (runs["server_process_cpu"] * seconds / runs["answered"]).to_numpy(dtype=float)
    per_group = pd.Series(cpu, index=groups).groupby(level=0, sort=False).median()
    service = pd.DataFrame({"S": np.nan, "s_cpu": per_group, "s_wait": np.nan,
                            "think_time": 0.0,
                            "how": "S, s_w: unknown (no one-client run); s_c: the server "
                                   "process's processor time per answer over the run (the "
                                   "utilization law); Z: none (clients send back to back)"})
    return ModelQuantities(runs=out, service=service, think_time_known=True, cannot=CANNOT)
