"""How often the fitters' 95 % intervals cover the parameters that generated the data.

A seeded simulation study: data are generated from known parameters with 2 % multiplicative
(log-normal) noise, fitted, and each parameter's interval checked against the truth.

* ``mm1bk R+X`` and ``mm1bk R``: M/M/1/B/K with S = 0.09 s, Z = 6 s, B = 40 at ten client
  counts (5 to 200), response time and throughput measured (or response time only);
  :func:`queuetune.fit.fit_mm1bk` with profile and with bootstrap intervals.
* ``thread pool (fes)`` and ``thread pool (exact)``: the thread-pool model with cpu_time
  0.02 s, wait_time 0.08 s, think_time 6 s, capacity 40 over clients 10, 20, 40, 80 x threads
  1, 2, 4, 8 (data from the exact chain), response time and throughput measured;
  :func:`queuetune.fit.fit_thread_pool` fitting cpu_time, wait_time and think_time with the
  flow-equivalent server (profile and bootstrap intervals) or the exact chain (profile).

Writes ``results/coverage_study_<label>.csv`` (one row per design, interval method, seed and
parameter) and ``results/coverage_study.md`` (coverage per design, method and parameter with
its Wilson 95 % interval, for every label whose CSV is present).

Usage: ``python scripts/coverage_study.py [--label after] [--seeds 200] [--exact-seeds 100]
[--workers 2]``. The rows do not depend on the number of workers. The label ``before`` was
produced by the same script run against the package as it was at commit d3f2730 (``git archive
d3f2730 src | tar -x -C DIR`` and ``PYTHONPATH=DIR/src``), whose intervals were plug-in profile
and percentile bootstrap intervals; about an hour on 2 cores per label.
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
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
NOISE = 0.02
MM1BK_TRUTH = {"service_time": 0.09, "think_time": 6.0}
MM1BK_CLIENTS = np.array([5, 10, 20, 30, 40, 60, 80, 100, 140, 200])
CAPACITY = 40
POOL_TRUTH = {"cpu_time": 0.02, "wait_time": 0.08, "think_time": 6.0}
POOL_CLIENTS, POOL_THREADS = (a.ravel() for a in np.meshgrid([10, 20, 40, 80], [1, 2, 4, 8]))
#: (design, interval method): how many seeds each gets (``exact`` from --exact-seeds).
STUDIES = [("mm1bk R+X", "profile"), ("mm1bk R+X", "bootstrap"), ("mm1bk R", "profile"),
           ("mm1bk R", "bootstrap"), ("thread pool (fes)", "profile"),
           ("thread pool (fes)", "bootstrap"), ("thread pool (exact)", "profile")]


def noisy(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return values * np.exp(rng.normal(0.0, NOISE, values.shape))


def one_fit(task: tuple[str, str, int]) -> list[dict]:
    """Generate the data of one seed, fit, and say whether each interval covers the truth."""
    from queuetune import mm1bk, thread_pool
    from queuetune.fit import fit_mm1bk, fit_thread_pool

    design, method, seed = task
    rng = np.random.default_rng(seed)
    if design.startswith("mm1bk"):
        truth = MM1BK_TRUTH
        model = mm1bk(clients=MM1BK_CLIENTS, capacity=CAPACITY, service_time=truth["service_time"],
                      think_time=truth["think_time"])
        data = {"response_time": noisy(model.response_time, rng)}
        x = noisy(model.throughput, rng)
        if design == "mm1bk R+X":
            data["throughput"] = x
        fit = fit_mm1bk(clients=MM1BK_CLIENTS, capacity=CAPACITY, **data, intervals=method)
    else:
        truth = POOL_TRUTH
        model = thread_pool(clients=POOL_CLIENTS, capacity=CAPACITY, threads=POOL_THREADS,
                            cpu_time=truth["cpu_time"],
                            wait_time=truth["wait_time"], think_time=truth["think_time"],
                            method="exact")
        data = {"response_time": noisy(model.response_time, rng),
                "throughput": noisy(model.throughput, rng)}
        solver = "exact" if "exact" in design else "fes"
        fit = fit_thread_pool(clients=POOL_CLIENTS, threads=POOL_THREADS, **data, capacity=CAPACITY,
                              free=tuple(truth), method=solver, verify=False,
                              intervals=method)
    rows = []
    for name, value in truth.items():
        low, high = fit.intervals[name]
        rows.append({"design": design, "intervals": method, "seed": seed, "parameter": name,
                     "truth": value, "estimate": fit.estimates[name], "low": low,
                     "high": high, "covered": bool(low <= value <= high),
                     "relative_width": (high - low) / value})
    return rows


def wilson(hits: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion."""
    z = stats.norm.ppf(0.5 + level / 2)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def summary(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    rows = []
    for label, frame in frames.items():
        for (design, method, name), group in frame.groupby(["design", "intervals",
                                                             "parameter"], sort=False):
            hits, n = int(group["covered"].sum()), len(group)
            low, high = wilson(hits, n)
            rows.append({"label": label, "design": design, "intervals": method,
                         "parameter": name, "seeds": n, "coverage": hits / n,
                         "coverage_low": low, "coverage_high": high,
                         "median_relative_width": float(group["relative_width"].median())})
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    lines = ["# Coverage of the fitters' 95 % intervals", "",
             f"Seeded simulation study (`scripts/coverage_study.py`): data from known parameters "
             f"with {NOISE:.0%} log-normal noise, fitted, and each interval checked against the "
             "truth. Coverage with its Wilson 95 % interval (binomial: with 200 seeds a true "
             "95 % is measured within about +-3 points); width: the median interval width "
             "relative to the true value. `before`: the package at commit d3f2730 (plug-in "
             "profile intervals, percentile bootstrap); `after`: this version.", "",
             "| design | intervals | parameter | label | seeds | coverage | Wilson 95 % | "
             "median width |", "|---|---|---|---|---:|---:|---|---:|"]
    order = {label: i for i, label in enumerate(["before", "after"])}
    table = table.assign(_o=table["label"].map(lambda v: order.get(v, 9)))
    for _, r in table.sort_values(["design", "intervals", "parameter", "_o"],
                                  kind="stable").iterrows():
        lines.append(f"| {r['design']} | {r['intervals']} | {r['parameter']} | {r['label']} "
                     f"| {r['seeds']} | {r['coverage']:.1%} | {r['coverage_low']:.1%} to "
                     f"{r['coverage_high']:.1%} | {r['median_relative_width']:.3f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--label", default="after")
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--exact-seeds", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    tasks = [(design, method, seed) for design, method in STUDIES
             for seed in range(args.exact_seeds if "exact" in design else args.seeds)]
    start = time.time()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(one_fit, tasks, chunksize=4))
    else:
        results = [one_fit(task) for task in tasks]
    frame = pd.DataFrame([row for rows in results for row in rows])
    RESULTS.mkdir(exist_ok=True)
    frame.to_csv(RESULTS / f"coverage_study_{args.label}.csv", index=False)
    print(f"{len(tasks)} fits in {time.time() - start:.0f} s "
          f"(load average {' '.join(f'{v:.1f}' for v in os.getloadavg())})")
    frames = {path.stem.removeprefix("coverage_study_"): pd.read_csv(path)
              for path in sorted(RESULTS.glob("coverage_study_*.csv"))}
    table = summary(frames)
    table.to_csv(RESULTS / "coverage_study.csv", index=False)
    text = markdown(table)
    (RESULTS / "coverage_study.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
