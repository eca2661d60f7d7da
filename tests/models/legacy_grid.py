"""The configurations of the single-processor server without a pool whose numbers are held, to
within the rounding error the algorithms guarantee, to those of the code before processors,
pools and open workloads were added (commit 18f0b49): ``tests/models/data/thread_pool_18f0b49.csv``
holds that code's outputs as ``float.hex`` (every bit of them), written by :func:`rows` with the
old ``thread_pool(K, B, T, cpu, wait, Z, ...)``.
"""

from __future__ import annotations

import itertools

import numpy as np

METRICS = ("throughput", "response_time", "utilization", "mean_in_system", "p0", "error_rate",
           "rejection_probability", "attempt_rate", "drop_rate", "busy_threads",
           "queue_length", "queue_wait")


def configurations() -> list[tuple]:
    """(clients, capacity, threads, cpu_time, wait_time, think_time, thread_overhead,
    pool_overhead) over a small grid that crosses every branch of the old code."""
    grid = itertools.product((1, 7, 60), (1, 5, 80), (1, 4, 30), (0.0, 0.02), (0.0, 0.1),
                             (0.5, 4.0), (0.0, 0.01), (0.0, 0.002))
    return [g for g in grid if g[3] + g[4] > 0]


def rows(solve, method: str) -> list[dict]:
    """The metrics of every configuration, solved one batch: ``solve(K, B, T, cpu, wait, Z,
    theta, phi, method)`` returns a result with the metrics as arrays."""
    cols = np.array(configurations(), dtype=object).T
    K, B, T = (np.array(c, dtype=np.int64) for c in cols[:3])
    cpu, wait, Z, theta, phi = (np.array(c, dtype=np.float64) for c in cols[3:])
    res = solve(K, B, T, cpu, wait, Z, theta, phi, method)
    out = []
    for i in range(K.size):
        row = {"method": method, "index": i}
        row.update({m: float(np.asarray(getattr(res, m))[i]).hex() for m in METRICS})
        out.append(row)
    return out
