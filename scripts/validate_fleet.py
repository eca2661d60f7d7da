"""The fleet's approximation (``method="fes"``) against its exact chain, and its time at scale.

Draws random configurations of the fleet of ``queuetune.models.fleet`` from the domain where
the exact chain fits (:func:`random_configuration`, documented there), solves each exactly and
by the fixed point of flow-equivalent servers, and reports the distribution of the relative
error of each metric: median, 95th percentile, largest, and the configuration where it is
largest. Then times the approximation on the scale the issue asks for (64 instances of 256
processors, pools of 1,000, a database of 128 processors). Writes

* ``results/validation_fleet.csv`` - one row per configuration: its parameters, the exact and
  approximate metrics, their relative errors, the chain's size and both solve times;
* ``results/validation_fleet.md`` - the error distribution and the timing.

Usage: ``python scripts/validate_fleet.py [--count N] [--seed S] [--workers W]``. Each
configuration is drawn from its own seed (``seed + index``), so the table is the same on every
run and for any number of workers (the times excepted).
"""

from __future__ import annotations

import argparse
import math
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from queuetune import thread_pool
from queuetune.models import fleet as fleet_module

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
#: Relative errors are reported for these metrics ...
RELATIVE = ("throughput", "response_time", "mean_in_system", "utilization", "busy_threads",
            "busy_connections", "database_utilization", "database_requests")
#: ... and absolute ones for these probabilities.
ABSOLUTE = ("rejection_probability",)
#: Largest lumped chain drawn (seconds each on 2 cores).
MAX_STATES = 15_000
#: The configuration of the timing: the issue's scale.
SCALE = {"instances": 64, "processors": 256, "db_processors": 128, "connections": 1000,
         "threads": 1000, "capacity": 2000, "cpu_time": 0.04, "wait_time": 0.19,
         "db_time": 0.01}
SCALE_LOADS = (0.5, 0.9, 1.2)  # arrival rate as a share of the database's limit p_db / s_db


def _log_uniform(rng: np.random.Generator, low: float, high: float) -> float:
    return float(np.exp(rng.uniform(np.log(low), np.log(high))))


def random_configuration(seed: int) -> dict:
    """One configuration of the validated domain, from its own seed.

    ``instances`` N in 1..4; admission ``capacity`` B in 2..30 (N = 1), 2..8 (N = 2), 2..5
    (N = 3), 2..3 (N = 4); ``threads`` in 1..B or None (one in four); ``processors`` in
    1..4; ``connections`` in 1..6 or None (one in four); ``cpu_time`` log-uniform in [5 ms, 200 ms]
    (0 one time in ten); ``wait_time`` log-uniform in [5 ms, 500 ms] (0 one time in ten);
    ``db_time`` log-uniform in [5 ms, 200 ms]; ``db_processors`` in 1..4 or None (one in
    five); ``db_contention`` 0 (half) or uniform in [0, 0.5]. The workload is open (half)
    with an arrival rate of rho times the fleet's bound ``min(N p / s_c, N C / (s_db + s_w),
    p_db / s_db)``, rho uniform in [0.2, 1.3], or closed with K in 1..N B + 2 clients whose
    think time makes ``K / Z`` that rate. Configurations whose chain has more than
    :data:`MAX_STATES` states are drawn again (from the next seeds of the same stream)."""
    rng = np.random.default_rng(seed)
    while True:
        N = int(rng.integers(1, 5))
        B = int(rng.integers(2, {1: 31, 2: 9, 3: 6, 4: 4}[N]))
        cfg = {
            "instances": N,
            "capacity": B,
            "threads": None if rng.random() < 0.25 else int(rng.integers(1, B + 1)),
            "processors": int(rng.integers(1, 5)),
            "connections": None if rng.random() < 0.25 else int(rng.integers(1, 7)),
            "cpu_time": 0.0 if rng.random() < 0.1 else _log_uniform(rng, 0.005, 0.2),
            "wait_time": 0.0 if rng.random() < 0.1 else _log_uniform(rng, 0.005, 0.5),
            "db_time": _log_uniform(rng, 0.005, 0.2),
            "db_processors": None if rng.random() < 0.2 else int(rng.integers(1, 5)),
            "db_contention": 0.0 if rng.random() < 0.5 else float(rng.uniform(0, 0.5)),
        }
        holders = min(B, cfg["threads"] or B, cfg["connections"] or B)
        bounds = [N * holders / (cfg["db_time"] + cfg["wait_time"])]
        if cfg["cpu_time"]:
            bounds.append(N * cfg["processors"] / cfg["cpu_time"])
        if cfg["db_processors"]:
            bounds.append(cfg["db_processors"] / cfg["db_time"])
        rate = float(rng.uniform(0.2, 1.3)) * min(bounds)
        if rng.random() < 0.5:
            cfg["arrival_rate"] = rate
        else:
            cfg["clients"] = int(rng.integers(1, N * B + 3))
            cfg["think_time"] = cfg["clients"] / rate
        if _states(cfg) <= MAX_STATES:
            return cfg


def _states(cfg: dict) -> int:
    """The lumped chain's bound on states (as the exact method's check counts them)."""
    checked, _, _ = fleet_module._validated(
        clients=cfg.get("clients"), capacity=cfg["capacity"], threads=cfg["threads"],
        cpu_time=cfg["cpu_time"], wait_time=cfg["wait_time"], think_time=cfg.get("think_time"),
        arrival_rate=cfg.get("arrival_rate"), processors=cfg["processors"],
        connections=cfg["connections"], instances=cfg["instances"],
        db_processors=cfg["db_processors"], db_time=cfg["db_time"],
        db_contention=cfg["db_contention"])
    local = len(fleet_module._local_states(checked[0])[0])
    return fleet_module.fleet_state_count(instances=cfg["instances"], local_states=local)


def _error(approx: float, exact: float) -> float:
    if exact == 0:
        return 0.0 if approx == 0 else math.inf
    return abs(approx - exact) / abs(exact)


def compare(index: int, seed: int) -> dict:
    """The row of one configuration: parameters, both solutions, the errors, the times."""
    cfg = random_configuration(seed + index)
    start = time.perf_counter()
    exact = thread_pool(**cfg, method="exact")
    exact_seconds = time.perf_counter() - start
    start = time.perf_counter()
    approx = thread_pool(**cfg, method="fes")
    fes_seconds = time.perf_counter() - start
    row = {"configuration": index, "seed": seed + index,
           **{k: (math.nan if cfg.get(k) is None else cfg.get(k))
              for k in ("instances", "arrival_rate", "clients", "think_time", "capacity",
                        "threads", "processors", "connections", "cpu_time", "wait_time",
                        "db_time", "db_processors", "db_contention")},
           "states": _states(cfg)}
    for metric in RELATIVE + ABSOLUTE:
        e, a = float(getattr(exact, metric)), float(getattr(approx, metric))
        row[f"exact_{metric}"] = e
        row[f"fes_{metric}"] = a
        row[f"error_{metric}"] = abs(a - e) if metric in ABSOLUTE else _error(a, e)
    row["exact_seconds"] = exact_seconds
    row["fes_seconds"] = fes_seconds
    return row


def run(count: int, seed: int, workers: int) -> pd.DataFrame:
    if workers == 1:
        rows = [compare(i, seed) for i in range(count)]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            rows = list(pool.map(compare, range(count), [seed] * count, chunksize=4))
    return pd.DataFrame(rows).sort_values("configuration").reset_index(drop=True)


def describe(row: pd.Series) -> str:
    """A configuration in one line."""
    def value(name, fmt="g"):
        v = row[name]
        return "none" if isinstance(v, float) and math.isnan(v) else format(v, fmt)
    load = (f"λ={row['arrival_rate']:.4g}/s" if not math.isnan(row["arrival_rate"])
            else f"K={row['clients']:g}, Z={row['think_time']:.4g} s")
    return (f"#{row['configuration']}: N={row['instances']:g}, {load}, B={row['capacity']:g}, "
            f"T={value('threads')}, p={row['processors']:g}, C={value('connections')}, "
            f"s_c={row['cpu_time'] * 1000:.3g} ms, s_db={row['db_time'] * 1000:.3g} ms, "
            f"p_db={value('db_processors')}, σ={row['db_contention']:.3g}, "
            f"s_w={row['wait_time'] * 1000:.3g} ms")


def error_table(frame: pd.DataFrame) -> list[str]:
    lines = ["| metric | kind | median | 95th percentile | largest | where largest "
             "(exact, fes there) |",
             "| --- | --- | ---: | ---: | ---: | --- |"]
    for metric in RELATIVE + ABSOLUTE:
        errors = frame[f"error_{metric}"]
        worst = frame.loc[errors.idxmax()]
        kind = "absolute" if metric in ABSOLUTE else "relative"
        fmt = (lambda v: f"{v:.2e}") if metric in ABSOLUTE else (lambda v: f"{v:.2%}")
        lines.append(
            f"| {metric} | {kind} | {fmt(errors.median())} | {fmt(errors.quantile(0.95))} | "
            f"{fmt(errors.max())} | {describe(worst)} ({worst[f'exact_{metric}']:.5g}, "
            f"{worst[f'fes_{metric}']:.5g}) |")
    return lines


def timing() -> list[dict]:
    """The approximation at the issue's scale, at three loads (best of three runs each)."""
    rows = []
    for share in SCALE_LOADS:
        rate = share * SCALE["db_processors"] / SCALE["db_time"]
        best = math.inf
        for _ in range(3):
            start = time.perf_counter()
            result = thread_pool(**SCALE, arrival_rate=rate, method="fes")
            best = min(best, time.perf_counter() - start)
        rows.append({"arrival_rate": rate, "seconds": best,
                     "throughput": float(result.throughput),
                     "response_time": float(result.response_time),
                     "database_utilization": float(result.database_utilization),
                     "busy_connections": float(result.busy_connections)})
    return rows


def summary(frame: pd.DataFrame, seed: int, timed: list[dict]) -> str:
    by_n = frame.groupby("instances")
    lines = [
        "# The fleet's approximation against its exact chain",
        "",
        f"{len(frame)} random configurations (seeds {seed}..{seed + len(frame) - 1}) of the "
        "domain of `scripts/validate_fleet.py` (`random_configuration`): 1 to 4 instances, "
        "admission limits of 2 to 30, threads up to the limit, processors and database "
        "processors of 1 to 4, pools of 1 to 6 or none, database contention 0 or up to 0.5, "
        "open or closed loads from 0.2 to 1.3 times the fleet's bound. Chains of "
        f"{int(frame['states'].min())} to {int(frame['states'].max())} states (drawn up to "
        f"{MAX_STATES}); configurations "
        "per number of instances: "
        + ", ".join(f"N = {n}: {len(part)}" for n, part in by_n) + ".",
        "",
        "Error of `method=\"fes\"` against `method=\"exact\"` (relative, or absolute for "
        "probabilities):",
        "",
        *error_table(frame),
        "",
        "Relative error of the response time by number of instances (median, 95th "
        "percentile, largest):",
        "",
        "| instances | configurations | median | 95th percentile | largest |",
        "| ---: | ---: | ---: | ---: | ---: |",
    ]
    for n, part in by_n:
        e = part["error_response_time"]
        lines.append(f"| {n} | {len(part)} | {e.median():.2%} | {e.quantile(0.95):.2%} | "
                     f"{e.max():.2%} |")
    cfg = ", ".join(f"{k}={v}" for k, v in SCALE.items())
    lines += [
        "",
        "## Time at scale",
        "",
        f"`thread_pool({cfg}, arrival_rate=..., method=\"fes\")`, best of three runs on this "
        f"machine ({os.cpu_count()} cores, shared with other work):",
        "",
        "| arrival rate (1/s) | seconds | throughput (1/s) | response time (ms) "
        "| database utilization | connections held |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in timed:
        lines.append(f"| {row['arrival_rate']:.0f} | {row['seconds']:.2f} | "
                     f"{row['throughput']:.1f} | {row['response_time'] * 1000:.1f} | "
                     f"{row['database_utilization']:.3f} | {row['busy_connections']:.0f} |")
    lines += ["", f"The exact chains of the sample took {frame['exact_seconds'].sum():.0f} s "
              f"in all, the approximation {frame['fes_seconds'].sum():.1f} s."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=30_000)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--max-states", type=int, default=MAX_STATES,
                        help="largest exact chain drawn (default %(default)s)")
    args = parser.parse_args()
    globals()["MAX_STATES"] = args.max_states  # read by random_configuration (and workers)
    frame = run(args.count, args.seed, args.workers)
    timed = timing()
    RESULTS.mkdir(exist_ok=True)
    frame.to_csv(RESULTS / "validation_fleet.csv", index=False, float_format="%.10g")
    (RESULTS / "validation_fleet.md").write_text(summary(frame, args.seed, timed),
                                                 encoding="utf-8")
    print((RESULTS / "validation_fleet.md").read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
