"""Validate the analytic queueing models against the discrete-event simulation.

For every point below and every metric it records the exact analytic value, the flow-equivalent
(``fes``) approximation for the thread pool, the simulation's estimate with its 95 % interval,
whether the exact value lies inside that interval, and the relative distance of ``fes`` from
the exact value and from the simulation. Three grids: M/M/1/B/K (``mm1bk``), the paper's thread
pool on one processor (``thread_pool``), and the server with several processors, a pool of
connections, open arrivals or no thread limit (``server``: :func:`server_points`), which needs
``queuetune.thread_pool`` with the keywords ``processors``, ``connections``, ``arrival_rate``
and ``threads=None``; with a model that lacks them the ``server`` grid is skipped and the
summary says so. Writes

* ``results/validation_models.csv`` - one row per (model, point, metric) of the paper's grids,
  in a fixed order;
* ``results/validation_server.csv`` - the same for the server grid, with its columns
  ``arrival_rate``, ``processors`` and ``connections``;
* ``results/validation_models.md`` - coverage counts and every miss, of every grid.

Usage: ``python scripts/validate_models.py [--workers N] [--quick] [--grids GRID ...]``. Each
point has its own fixed seed, so the files are the same on every run and for any number of
workers; ``--grids server`` runs only that grid and keeps the other grids' rows of the stored
table (a run of them gives the same rows: their simulation and model are unchanged to the last
bit, ``tests/simulation/test_legacy.py``).
"""

from __future__ import annotations

import argparse
import inspect
import math
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import pandas as pd
from tqdm import tqdm

import queuetune
from queuetune.simulation import (
    MM1BK_METRICS,
    THREAD_POOL_METRICS,
    simulate_mm1bk,
    simulate_thread_pool,
)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"

THINK = 4.0  # s, the paper's mean think time Z
SERVICE = 0.14  # s, the paper's mean service time S
RUN = {"horizon": 6_000.0, "warmup": 300.0, "replications": 10}
QUICK_RUN = {"horizon": 1_000.0, "warmup": 100.0, "replications": 5}
# The server grid sends 20 to 50 requests/s: a third of the horizon costs as much as the others.
SERVER_RUN = {"horizon": 2_000.0, "warmup": 200.0, "replications": 10}
GRIDS = ("mm1bk", "thread_pool", "server")
PARAMETERS = (
    "clients",
    "arrival_rate",
    "capacity",
    "threads",
    "processors",
    "connections",
    "service_time",
    "cpu_time",
    "wait_time",
    "think_time",
    "thread_overhead",
    "pool_overhead",
)


def mm1bk_points() -> list[dict]:
    """The paper's grid: K = 10..100 clients, connection queue B = 50 and 200."""
    return [
        {"clients": k, "capacity": b, "service_time": SERVICE, "think_time": THINK}
        for b in (50, 200)
        for k in range(10, 101, 10)
    ]


def thread_pool_points() -> list[dict]:
    """The paper's pools (T = 30, 100) and small pools where requests queue for a thread."""
    grid = [
        # (clients, capacity, threads, cpu_time, wait_time, thread_overhead, pool_overhead)
        (40, 50, 30, 0.07, 0.07, 0.0, 0.0),
        (100, 50, 30, 0.07, 0.07, 0.0, 0.0),
        (100, 50, 30, 0.02, 0.6, 0.0, 0.0),
        (100, 200, 100, 0.1, 0.3, 0.0, 0.0),
        (60, 200, 100, 0.05, 1.0, 0.0, 0.0),
        (20, 50, 1, 0.05, 0.1, 0.0, 0.0),
        (30, 50, 2, 0.03, 0.2, 0.0, 0.0),
        (60, 50, 5, 0.02, 0.3, 0.0, 0.0),
        (60, 20, 5, 0.04, 0.2, 0.0, 0.0),
        (80, 50, 30, 0.05, 0.25, 0.02, 0.001),
        (60, 50, 5, 0.05, 0.15, 0.1, 0.01),
        (100, 200, 100, 0.1, 0.3, 0.005, 0.0005),
    ]
    keys = ("clients", "capacity", "threads", "cpu_time", "wait_time")
    return [
        {
            **dict(zip(keys, row[:5], strict=True)),
            "think_time": THINK,
            "thread_overhead": row[5],
            "pool_overhead": row[6],
        }
        for row in grid
    ]


def server_points() -> list[dict]:
    """The server of today: several processors, a pool of connections, open arrivals, no
    thread limit, a batch population, and overhead on two processors."""
    grid = [
        # (clients or None, arrival_rate or None, think_time, capacity, threads, processors,
        #  connections, cpu_time, wait_time, thread_overhead, pool_overhead)
        (200, None, THINK, 50, 30, 4, None, 0.07, 0.07, 0.0, 0.0),
        (220, None, THINK, 60, 20, 2, 5, 0.02, 0.1, 0.0, 0.0),
        (100, None, THINK, 50, None, 2, 8, 0.03, 0.3, 0.0, 0.0),
        (20, None, 0.0, 20, 10, 2, 4, 0.05, 0.1, 0.0, 0.0),
        (60, None, THINK, 50, 5, 2, None, 0.05, 0.15, 0.1, 0.01),
        (None, 40.0, None, 40, 200, 8, 10, 0.04, 0.2, 0.0, 0.0),
        (None, 20.0, None, 50, None, 4, None, 0.1, 0.5, 0.0, 0.0),
        (None, 45.0, None, 30, 10, 2, None, 0.04, 0.1, 0.0, 0.0),
        (None, 30.0, None, 12, None, 1, 4, 0.01, 0.1, 0.0, 0.0),
        # issue 21's service scaled to its pool: 8 processors, 40 ms of processor time, 200 ms
        # of database wait, 10 connections (50 requests/s at most), virtual threads
        (None, 48.0, None, 100, None, 8, 10, 0.04, 0.2, 0.0, 0.0),
    ]
    keys = ("clients", "arrival_rate", "think_time", "capacity", "threads", "processors",
            "connections", "cpu_time", "wait_time", "thread_overhead", "pool_overhead")
    points = []
    for row in grid:
        point = dict(zip(keys, row, strict=True))
        if point["arrival_rate"] is None:
            del point["arrival_rate"]
        else:
            del point["clients"], point["think_time"]
        points.append(point)
    return points


def model_supports_server() -> bool:
    """Whether ``queuetune.thread_pool`` takes the server's keywords (processors, ...)."""
    parameters = inspect.signature(queuetune.thread_pool).parameters
    return all(name in parameters for name in ("processors", "connections", "arrival_rate"))


def _mm1bk_task(index: int, point: dict, run: dict) -> list[dict]:
    exact = queuetune.mm1bk(**point)
    sim = simulate_mm1bk(**point, seed=index, **run)
    return _rows("mm1bk", index, point, MM1BK_METRICS, exact, None, sim)


def _thread_pool_task(index: int, point: dict, run: dict) -> list[dict]:
    exact = queuetune.thread_pool(**point, method="exact")
    fes = queuetune.thread_pool(**point, method="fes")
    sim = simulate_thread_pool(**point, seed=1_000 + index, **run)
    return _rows("thread_pool", index, point, THREAD_POOL_METRICS, exact, fes, sim)


def _server_task(index: int, point: dict, run: dict) -> list[dict]:
    exact = queuetune.thread_pool(**point, method="exact")
    fes = queuetune.thread_pool(**point, method="fes")
    sim = simulate_thread_pool(**point, seed=2_000 + index, **run)
    return _rows("server", index, point, THREAD_POOL_METRICS, exact, fes, sim)


def _relative(value: float, reference: float) -> float:
    if reference == 0:
        return 0.0 if value == 0 else math.inf
    return (value - reference) / abs(reference)


# the parameters of the server grid alone (columns of validation_server.csv only)
SERVER_PARAMETERS = ("arrival_rate", "processors", "connections")
# the value of a server's parameter that a point leaves out
_DEFAULTS = {"processors": 1.0, "thread_overhead": 0.0, "pool_overhead": 0.0}


def _parameter(point: dict, name: str, model: str) -> float:
    """A parameter as a number: its default in a server's row, otherwise NaN where the point
    has none (or None: no limit)."""
    value = point.get(name)
    if value is None:
        return _DEFAULTS.get(name, math.nan) if model != "mm1bk" else math.nan
    return value


def _rows(model, index, point, metrics, exact, fes, sim) -> list[dict]:
    rows, has_fes = [], fes is not None
    for metric in metrics:
        exact_value = float(getattr(exact, metric))
        fes_value = float(getattr(fes, metric)) if fes is not None else math.nan
        estimate = sim.estimate[metric]
        rows.append(
            {
                "model": model,
                "point": index,
                **{name: _parameter(point, name, model) for name in PARAMETERS},
                "metric": metric,
                "exact": exact_value,
                "fes": fes_value,
                "sim_estimate": estimate,
                "sim_ci_low": sim.ci_low[metric],
                "sim_ci_high": sim.ci_high[metric],
                "sim_half_width": sim.half_width(metric),
                "replications": sim.replications,
                # every replication gave the same value: the interval has no width
                "ci_degenerate": sim.half_width(metric) == 0,
                "exact_in_ci": sim.contains(metric, exact_value),
                "exact_rel_to_sim": _relative(exact_value, estimate),
                "fes_rel_to_exact": _relative(fes_value, exact_value) if has_fes else math.nan,
                "fes_rel_to_sim": _relative(fes_value, estimate) if has_fes else math.nan,
            }
        )
    return rows


def run_all(
    run: dict,
    workers: int,
    mm1bk_grid: list[dict] | None = None,
    thread_pool_grid: list[dict] | None = None,
    server_grid: list[dict] | None = None,
    server_run: dict | None = None,
) -> pd.DataFrame:
    """Every point of the grids (the module's grids by default; the server grid only where
    the model takes its keywords), one row per metric; the server grid's runs are
    ``server_run`` (``run`` if None)."""
    mm1bk_grid = mm1bk_points() if mm1bk_grid is None else mm1bk_grid
    thread_pool_grid = thread_pool_points() if thread_pool_grid is None else thread_pool_grid
    if server_grid is None:
        server_grid = server_points() if model_supports_server() else []
    # the longer runs first, so that the workers finish together
    server_run = run if server_run is None else server_run
    tasks = [(_server_task, i, p, server_run) for i, p in enumerate(server_grid)]
    tasks += [(_thread_pool_task, i, p, run) for i, p in enumerate(thread_pool_grid)]
    tasks += [(_mm1bk_task, i, p, run) for i, p in enumerate(mm1bk_grid)]
    rows = []
    progress = tqdm(total=len(tasks), desc="points", unit="pt")
    if workers == 1:
        for task, i, point, length in tasks:
            rows.extend(task(i, point, length))
            progress.update()
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(task, i, point, length) for task, i, point, length in tasks]
            for future in as_completed(futures):
                rows.extend(future.result())
                progress.update()
    progress.close()
    return _ordered(pd.DataFrame(rows))


def _ordered(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows by grid, point and metric, in the fixed order of the files."""
    frame = frame.copy()
    frame["_model"] = frame["model"].map({"mm1bk": 0, "thread_pool": 1, "server": 2})
    frame["_metric"] = [
        (MM1BK_METRICS if m == "mm1bk" else THREAD_POOL_METRICS).index(name)
        for m, name in zip(frame["model"], frame["metric"], strict=True)
    ]
    frame = frame.sort_values(["_model", "point", "_metric"]).drop(columns=["_model", "_metric"])
    return frame.reset_index(drop=True)


def with_stored_rows(frame: pd.DataFrame, stored: pd.DataFrame, grids: list[str]) -> pd.DataFrame:
    """``frame`` (the grids run now) with the rows of the other grids taken from ``stored``
    (a table this script wrote, perhaps before some of its columns existed: a missing
    parameter column is filled as the script fills it)."""
    kept = stored[~stored["model"].isin(grids)].copy()
    for name in PARAMETERS:
        if name not in kept.columns:
            kept[name] = [_parameter({}, name, model) for model in kept["model"]]
    kept = kept[list(frame.columns)] if not frame.empty else kept
    return _ordered(pd.concat([frame, kept], ignore_index=True))


def write_tables(frame: pd.DataFrame, out: Path) -> None:
    """The paper's grids to ``validation_models.csv`` in their own columns (the thread-pool
    chapter reads it), the server grid to ``validation_server.csv`` with every column."""
    paper = frame[frame["model"] != "server"].drop(columns=list(SERVER_PARAMETERS))
    paper.to_csv(out / "validation_models.csv", index=False, float_format="%.10g")
    server = frame[frame["model"] == "server"]
    if not server.empty:
        server.to_csv(out / "validation_server.csv", index=False, float_format="%.10g")


def read_tables(out: Path) -> pd.DataFrame:
    """The stored rows of every grid (the server grid's where stored)."""
    tables = [pd.read_csv(out / "validation_models.csv")]
    if (out / "validation_server.csv").exists():
        tables.append(pd.read_csv(out / "validation_server.csv"))
    return pd.concat(tables, ignore_index=True)


def _describe_point(row: pd.Series) -> str:
    if math.isnan(row["arrival_rate"]):
        text = f"K={row['clients']:g}, B={row['capacity']:g}"
    else:
        text = f"λ={row['arrival_rate']:g}, B={row['capacity']:g}"
    if row["model"] == "mm1bk":
        return text + f", S={row['service_time']:g}"
    threads = "none" if math.isnan(row["threads"]) else f"{row['threads']:g}"
    text += f", T={threads}, cpu={row['cpu_time']:g}, wait={row['wait_time']:g}"
    if row["model"] == "server":
        pool = "none" if math.isnan(row["connections"]) else f"{row['connections']:g}"
        text += f", p={row['processors']:g}, C={pool}"
        if row["think_time"] == 0:
            text += ", Z=0"
    if row["thread_overhead"] or row["pool_overhead"]:
        text += f", overheads {row['thread_overhead']:g} / {row['pool_overhead']:g}"
    return text


def _miss_table(misses: pd.DataFrame) -> list[str]:
    if misses.empty:
        return ["None."]
    lines = [
        "| model | point | parameters | metric | exact | simulated | 95 % CI "
        "| off by (half-widths) |",
        "| --- | ---: | --- | --- | ---: | ---: | --- | ---: |",
    ]
    for _, row in misses.iterrows():
        half = row["sim_half_width"]
        distance = f"{abs(row['exact'] - row['sim_estimate']) / half:.2f}" if half else "-"
        lines.append(
            f"| {row['model']} | {row['point']} | {_describe_point(row)} | {row['metric']} | "
            f"{row['exact']:.6g} | {row['sim_estimate']:.6g} | "
            f"[{row['sim_ci_low']:.6g}, {row['sim_ci_high']:.6g}] | {distance} |"
        )
    return lines


def _points_missing(frame: pd.DataFrame) -> int:
    proper_misses = frame[~frame["ci_degenerate"] & ~frame["exact_in_ci"]]
    return proper_misses.groupby(["model", "point"]).ngroups


def _fes_table(pool: pd.DataFrame, title: str) -> list[str]:
    lines = [
        f"## Flow-equivalent approximation (fes) of {title}",
        "",
        "Relative distance |fes - x| / |x| over the points, for x the exact value and, where "
        "the interval is proper, the simulation estimate. Where the exact value is tiny "
        "(a rare drop) a large relative distance is a small absolute one: the values at the "
        "worst point are shown.",
        "",
        "| metric | median from exact | max from exact | at point | exact there | fes there "
        "| max from simulation |",
        "| --- | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    for metric in THREAD_POOL_METRICS:
        part = pool[pool["metric"] == metric]
        from_exact = part["fes_rel_to_exact"].abs()
        worst = part.loc[from_exact.idxmax()]
        proper = part.loc[~part["ci_degenerate"], "fes_rel_to_sim"].abs()
        from_sim = f"{proper.max():.2%}" if len(proper) else "-"
        lines.append(
            f"| {metric} | {from_exact.median():.2%} | {from_exact.max():.2%} | "
            f"{worst['point']}: {_describe_point(worst)} | {worst['exact']:.4g} | "
            f"{worst['fes']:.4g} | {from_sim} |"
        )
    return lines


def _run_text(run: dict) -> str:
    return (f"{run['replications']} independent replications of {run['horizon']:g} s, "
            f"the first {run['warmup']:g} s discarded")


def summary(frame: pd.DataFrame, run: dict, server_run: dict | None = None) -> str:
    server_run = run if server_run is None else server_run
    lengths = f"Simulation: {_run_text(run)}"
    if "server" in set(frame["model"]) and server_run != run:
        lengths += f" (the server grid: {_run_text(server_run)})"
    lines = [
        "# Analytic models against simulation",
        "",
        f"{lengths}; 95 % Student-t intervals. "
        f"Think time Z = {THINK:g} s in every closed workload but the server grid's batch "
        "population (Z = 0).",
        "",
        "## Coverage",
        "",
        "| model | points | metric-points | exact inside the 95 % CI | degenerate CIs |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for model, part in frame.groupby("model", sort=False):
        wide = part[~part["ci_degenerate"]]
        lines.append(
            f"| {model} | {part['point'].nunique()} | {len(wide)} | "
            f"{int(wide['exact_in_ci'].sum())} ({wide['exact_in_ci'].mean():.1%}) | "
            f"{int(part['ci_degenerate'].sum())} |"
        )
    wide = frame[~frame["ci_degenerate"]]
    lines += [
        f"| all | | {len(wide)} | {int(wide['exact_in_ci'].sum())} "
        f"({wide['exact_in_ci'].mean():.1%}) | {int(frame['ci_degenerate'].sum())} |",
        "",
        "The coverage counts only intervals of positive width; about 95 % is expected, but "
        "the metrics of one point miss together (throughput, response time and the means move "
        f"as one), so misses come in clusters: {_points_missing(frame)} of "
        f"{frame.groupby(['model', 'point']).ngroups} points have at least one. A degenerate "
        "interval has zero width: every replication gave the same value (no request dropped, "
        "or a server never idle), which happens when the exact value is within a rare event "
        "of 0 or 1.",
        "",
        "## Misses: exact value outside a proper interval",
        "",
        *_miss_table(frame[~frame["ci_degenerate"] & ~frame["exact_in_ci"]]),
        "",
        "## Degenerate intervals that differ from the exact value",
        "",
        "The simulation never saw the event (or never saw its absence); the exact value is "
        "listed to show how rare it is.",
        "",
        *_miss_table(frame[frame["ci_degenerate"] & ~frame["exact_in_ci"]]),
    ]
    for model, title in (("thread_pool", "the thread pool"), ("server", "the server")):
        part = frame[frame["model"] == model]
        if not part.empty:
            lines += ["", *_fes_table(part, title)]
    if "server" not in set(frame["model"]):
        lines += [
            "",
            "The server grid (several processors, a pool of connections, open arrivals, no "
            "thread limit) was not compared: this `queuetune.thread_pool` does not take "
            "`processors`, `connections` and `arrival_rate`.",
        ]
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--quick", action="store_true", help="short runs, to check the script; not the results"
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--grids", nargs="+", choices=GRIDS, default=list(GRIDS),
        help="run only these grids and keep the other grids' rows of the stored table "
        "(same seeds: a run of them gives the same rows)",
    )
    args = parser.parse_args()
    run = QUICK_RUN if args.quick else RUN
    server_run = QUICK_RUN if args.quick else SERVER_RUN
    started = time.perf_counter()
    grids = {name: (None if name in args.grids else []) for name in GRIDS}
    frame = run_all(run, max(1, args.workers), grids["mm1bk"], grids["thread_pool"],
                    grids["server"], server_run=server_run)
    if set(args.grids) != set(GRIDS):
        frame = with_stored_rows(frame, read_tables(args.out), args.grids)
    args.out.mkdir(parents=True, exist_ok=True)
    write_tables(frame, args.out)
    (args.out / "validation_models.md").write_text(summary(frame, run, server_run),
                                                   encoding="utf-8")
    wide = frame[~frame["ci_degenerate"]]
    print(
        f"{int(wide['exact_in_ci'].sum())}/{len(wide)} metric-points inside the 95 % CI "
        f"(proper intervals), {int((~frame['exact_in_ci']).sum())} misses in all; "
        f"wrote {args.out}/validation_models.csv, .md and validation_server.csv in "
        f"{time.perf_counter() - started:.0f} s with {args.workers} workers"
    )


if __name__ == "__main__":
    main()
