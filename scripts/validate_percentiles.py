"""Validate the fast percentiles of the response time against the exact ones.

On a random sample of the general server's documented domain (the sample of
``scripts/benchmark_models.py``'s ``general_sample``, with smaller chains: the tagged request's
chain grows like ``(T + 1) (B - T)^2 / 2``), it computes the median, 95th and 99th percentiles
of the response time of admitted requests exactly (``thread_pool(..., method="exact")``: the
tagged request's phase-type passage time) and by the fast method (``method="fes"``:
:func:`queuetune.models.passage.fast_quantiles` on the flow-equivalent chain), and records
the relative error of each fast percentile. Writes

* ``results/validation_percentiles.csv`` - one row per configuration: its parameters, the
  exact and fast percentiles and their relative errors, and the exact mean's agreement with
  the chain's mean response time (Little's law);
* ``results/validation_percentiles.md`` - the distribution of the absolute relative error
  (median, 95th percentile, largest, and the configuration where it is largest), overall and
  by group, and the time per computation of the fast method at 256 processors.

* ``results/validation_percentiles_overload.csv`` - past saturation (open arrivals 1.1 to 3
  times ``X_in(T)``, ``B - T`` admitted requests waiting for a thread, ``B`` from a longest
  response of 1 to 60 s): the exact, fast and simulated percentiles, and the fast method's
  before the narrow waits were evaluated in the time domain (the Euler inversion alone, and
  whether the rule of ``FAST_UNRESOLVED`` refused it); summarized in the Markdown file.

Usage: ``python scripts/validate_percentiles.py [--size N] [--seed S] [--tables-only]
[--fast-only]``. ``--fast-only`` recomputes the fast percentiles of the stored sample (the
exact ones, whose code did not change, are read from the stored CSV) and runs the overload
sample. The samples are drawn from fixed seeds, so the tables are the same on every run (the
times are not). A percentile that is not a number (NaN, None) is counted, never compared.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from queuetune.models import passage, thread_pool
from queuetune.models.passage import (
    PERCENTILES,
    arrival_distribution,
    fast_quantiles,
    tagged_state_count,
)
from queuetune.models.thread_pool_chain import state_count
from queuetune.simulation import simulate_thread_pool
from queuetune.sizing import holders_throughput

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"

SIZE = 400
SEED = 20_261_202
#: Largest tagged chain of the sample (about a second each).
MAX_TAGGED = 20_000
#: The uniformization work allowed per configuration (sparse multiply-adds; the package allows
#: more): a configuration above it is left out and listed.
WORK = 3e8
#: The bound the fast method's percentiles keep on the sample (tests/models/test_passage.py
#: holds a fixed-seed sample of the same domain to it): largest |relative error|, set from the
#: stored run of 400 configurations (largest 0.137).
FAST_BOUND = 0.14
NAMES = ("p50", "p95", "p99")


def configurations(rng: np.random.Generator, size: int) -> list[dict]:
    """Random configurations of the general server's documented domain (log-uniform unless
    said): processors 1..32; threads 1..100, or no limit (one in four); connections 1..100, or
    no pool (three in ten); CPU time 1 ms..0.2 s, wait time 0.1 to 100 times it; open (one in
    two: capacity 5..200, arrival rate) or closed (clients and capacity 5..200, think time);
    the offered load 0.2 to 5 times the server's capacity
    ``min(min(T, B) / (cpu + wait), p / cpu, C / wait)``. Configurations whose tagged chain
    exceeds :data:`MAX_TAGGED` states are redrawn."""
    out = []

    def log_uniform(low, high):
        return float(np.exp(rng.uniform(np.log(low), np.log(high))))

    def log_integer(low, high):
        return int(round(log_uniform(low, high)))

    while len(out) < size:
        is_open = bool(rng.uniform() < 0.5)
        B = log_integer(5, 200)
        K = None if is_open else log_integer(5, 200)
        T = None if rng.uniform() < 0.25 else log_integer(1, 100)
        C = None if rng.uniform() < 0.3 else log_integer(1, 100)
        p = log_integer(1, 32)
        cpu = log_uniform(1e-3, 0.2)
        wait = cpu * log_uniform(0.1, 100)
        load = log_uniform(0.2, 5)
        top = B if is_open else min(B, K)
        threads = top if T is None else min(T, top)
        pool = threads if C is None else min(C, threads)
        tagged = tagged_state_count(top=top, threads=threads, connections=pool,
                                    two_phases=True, has_cpu=True)
        if tagged > MAX_TAGGED:
            continue
        limits = {"threads": threads / (cpu + wait), "processors": p / cpu}
        if C is not None and C < threads:
            limits["connections"] = C / wait
        binding = min(limits, key=limits.get)
        rate = limits[binding]
        work = ({"arrival_rate": load * rate} if is_open else
                {"clients": K, "think_time": max(K / (load * rate) - cpu - wait,
                                                 1e-3 * (cpu + wait))})
        out.append({"workload": "open" if is_open else "closed", "clients": K, "capacity": B,
                    "threads": T, "processors": p, "connections": C, "cpu_time": cpu,
                    "wait_time": wait, "think_time": work.get("think_time"),
                    "arrival_rate": work.get("arrival_rate"), "load": load,
                    "binding": binding,
                    "states": state_count(clients=K, capacity=B, threads=T, two_phases=True),
                    "tagged_states": tagged})
    return out


def model_arguments(r: dict) -> dict:
    work = ({"arrival_rate": r["arrival_rate"]} if r["workload"] == "open" else
            {"clients": r["clients"], "think_time": r["think_time"]})
    return dict(capacity=r["capacity"], threads=r["threads"], processors=r["processors"],
                connections=r["connections"], cpu_time=r["cpu_time"],
                wait_time=r["wait_time"], **work)


class StiffChain(Exception):
    """The exact passage time needs more uniformization work than allowed."""


def measure(r: dict) -> dict:
    """The exact and fast percentiles of one configuration, and their relative errors."""
    kw = model_arguments(r)
    exact = thread_pool(**kw, method="exact")
    start = time.process_time()
    try:
        exact_q = exact.response_time_quantile(PERCENTILES)
    except ValueError as exc:
        if "uniformization steps" in str(exc):
            raise StiffChain(str(exc)) from None
        raise
    exact_s = time.process_time() - start
    fes = thread_pool(**kw, method="fes")
    start = time.process_time()
    fast_q = fes.response_time_quantile(PERCENTILES)
    fast_s = time.process_time() - start
    row = dict(r, exact_s=exact_s, fast_s=fast_s, R_exact=float(exact.response_time),
               R_fes=float(fes.response_time))
    for name, e, f in zip(NAMES, exact_q, fast_q, strict=True):
        row[f"{name}_exact"] = float(e)
        row[f"{name}_fast"] = float(f)
        row[f"err_{name}"] = float(f / e - 1)
    return row


#: Groups of the error table: (label, which configurations).
BANDS = [
    ("all", lambda r: True),
    ("open workload", lambda r: r["workload"] == "open"),
    ("closed workload", lambda r: r["workload"] == "closed"),
    ("1 processor", lambda r: r["processors"] == 1),
    ("2-32 processors", lambda r: r["processors"] >= 2),
    ("no thread limit", lambda r: pd.isna(r["threads"])),
    ("threads bind", lambda r: r["binding"] == "threads"),
    ("processors bind", lambda r: r["binding"] == "processors"),
    ("connections bind", lambda r: r["binding"] == "connections"),
    ("load below 0.7", lambda r: r["load"] < 0.7),
    ("load 0.7 to 1.5 (the knee)", lambda r: 0.7 <= r["load"] <= 1.5),
    ("load above 1.5", lambda r: r["load"] > 1.5),
]


def describe(r: dict) -> str:
    work = (f"lambda={r['arrival_rate']:.4g}" if r["workload"] == "open" else
            f"K={int(r['clients'])} Z={r['think_time']:.4g}")
    threads = None if pd.isna(r["threads"]) else int(r["threads"])
    pool = None if pd.isna(r["connections"]) else int(r["connections"])
    return (f"{work} B={r['capacity']} T={threads} p={r['processors']} C={pool} "
            f"cpu={r['cpu_time']:.4g} wait={r['wait_time']:.4g} (load {r['load']:.2f}, "
            f"{r['binding']} bind)")


def error_table(rows: list[dict]) -> pd.DataFrame:
    """Median, 95th percentile and largest |relative error| of each fast percentile, overall
    and by group, with the configuration where it is largest."""
    out = []
    for label, member in BANDS:
        chosen = [r for r in rows if member(r)]
        if not chosen:
            continue
        for name in NAMES:
            err = np.abs(np.array([r[f"err_{name}"] for r in chosen], dtype=np.float64))
            given = np.isfinite(err)
            row = {"band": label, "percentile": name, "configs": len(chosen),
                   "missing": int((~given).sum())}
            if given.any():
                worst = chosen[int(np.flatnonzero(given)[np.argmax(err[given])])]
                row.update(median=float(np.median(err[given])),
                           p95=float(np.quantile(err[given], 0.95)),
                           max=float(err[given].max()), worst=describe(worst))
            else:
                row.update(median=math.nan, p95=math.nan, max=math.nan, worst="")
            out.append(row)
    return pd.DataFrame(out)


#: A server of 256 processors as ``queuetune.sizing.size(processors=256, cpu_time=0.04,
#: wait_time=0.2, arrival_rate=0.7 * 256 / 0.04)`` sized it when this script was written
#: (1,087 threads, 904 connections, 10,803 admitted requests), at its peak load.
SERVER_256 = dict(arrival_rate=0.7 * 256 / 0.04, capacity=10_803, threads=1_087, processors=256,
                  connections=904, cpu_time=0.04, wait_time=0.2)


def timing_256(repeats: int = 20) -> dict:
    """Seconds per fast computation at 256 processors (:data:`SERVER_256`), best of
    ``repeats``: :func:`fast_quantiles` of the three percentiles from the quantities the
    sizing computes (the arrival distribution and X_in), and ``thread_pool(method="fes")``
    with ``response_time_quantile`` (the chain, X_in again and the percentiles)."""
    kw = SERVER_256
    res = thread_pool(**kw, method="fes")
    x = holders_throughput(processors=kw["processors"], cpu_time=kw["cpu_time"],
                           wait_time=kw["wait_time"], connections=kw["connections"],
                           holders=kw["threads"])
    arrivals = arrival_distribution(res.probabilities)
    fast = dict(arrivals=arrivals, holders_throughput=x, threads=kw["threads"],
                cpu_time=kw["cpu_time"], wait_time=kw["wait_time"],
                processors=kw["processors"], connections=kw["connections"])
    best_fast, best_total = math.inf, math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        quantiles = fast_quantiles(**fast)
        best_fast = min(best_fast, time.perf_counter() - start)
        start = time.perf_counter()
        thread_pool(**kw, method="fes").response_time_quantile(PERCENTILES)
        best_total = min(best_total, time.perf_counter() - start)
    return {"case": ", ".join(f"{k}={v:g}" for k, v in kw.items()),
            "quantiles": quantiles, "mean": float(res.response_time),
            "fast_s": best_fast, "total_s": best_total}


def markdown(table: pd.DataFrame, rows: pd.DataFrame, timing: dict, stiff: int,
             overload: pd.DataFrame | None = None) -> str:
    little = float(np.max(np.abs(rows["mean_exact"] / rows["R_exact"] - 1)))
    lines = [
        "# Percentiles of the response time: fast method against the exact chain", "",
        f"{len(rows)} random configurations (seed {SEED}, `configurations` of "
        "`scripts/validate_percentiles.py`); the exact percentiles come from the tagged "
        "request's phase-type passage time, the fast ones from the flow-equivalent chain. "
        f"{stiff} further configurations drawn were left out because the exact passage time "
        f"needs more than {WORK:g} multiply-adds of uniformization (rates far apart: listed in "
        "`results/validation_percentiles_stiff.csv`). "
        "Absolute relative error of the fast percentile:", "",
        "| group | percentile | configs | none given | median | 95th percentile | largest "
        "| where largest |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for _, d in table.iterrows():
        lines.append(f"| {d['band']} | {d['percentile']} | {d['configs']} | {d['missing']} | "
                     f"{d['median']:.3g} | {d['p95']:.3g} | {d['max']:.3g} | {d['worst']} |")
    lines += [
        "", f"Largest error of the whole sample: {table['max'].max():.3g} (bound "
        f"`FAST_BOUND` = {FAST_BOUND}).", "",
        f"Exact mean of the passage time against the chain's R = L / X (Little's law): largest "
        f"relative difference {little:.2g}.", "",
        "## Time per computation at 256 processors", "",
        f"{timing['case']} (mean {timing['mean'] * 1e3:.1f} ms; p50, p95, p99 "
        + ", ".join(f"{v * 1e3:.1f}" for v in timing["quantiles"]) + " ms): "
        f"`fast_quantiles` from the sizing's quantities takes {timing['fast_s'] * 1e3:.1f} ms; "
        f"`thread_pool(method='fes')` with the percentiles {timing['total_s'] * 1e3:.1f} ms "
        "(best of 20, Python, on the shared 2-core machine of this run).", "",
    ]
    if overload is not None:
        lines += overload_markdown(overload)
    large_csv = RESULTS / "validation_percentiles_large.csv"
    if large_csv.exists():
        lines += large_markdown(pd.read_csv(large_csv))
    return "\n".join(lines)


#: The overload sample: past saturation, B from a longest response of 1 to 60 s.
OVERLOAD_SIZE = 30
OVERLOAD_SEED = 20_261_203
#: Largest tagged chain of the overload sample.
MAX_OVERLOAD_TAGGED = 40_000
#: The rule before the narrow waits were evaluated in the time domain: no quantile when the
#: waits of shape above FAST_SHAPE_LIMIT weighed more than this.
FAST_UNRESOLVED = 1e-4


def overload_configurations(rng: np.random.Generator, size: int, *, waiting=(30, 250),
                            max_tagged: float = MAX_OVERLOAD_TAGGED) -> list[dict]:
    """Open servers past saturation (log-uniform unless said): processors 1..4, threads 1..4,
    no pool or 1..T connections (one in two each), wait time 0.1 to 3 times the CPU time,
    arrivals 1.1 to 3 times ``X_in(T)`` (uniform), the longest response ``R`` 1 to 60 s and
    ``B - T`` of ``waiting`` (default 30 to 250) waiting places (narrow waits: shapes of 30 to
    250 and more); the CPU time is then the one that makes ``B = T + ceil(R X_in(T))``.
    Configurations whose tagged chain exceeds ``max_tagged`` states are redrawn."""
    out = []

    def log_uniform(low, high):
        return float(np.exp(rng.uniform(np.log(low), np.log(high))))

    while len(out) < size:
        p, T = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        C = None if rng.uniform() < 0.5 else int(rng.integers(1, T + 1))
        ratio = log_uniform(0.1, 3.0)
        longest = log_uniform(1.0, 60.0)
        places = int(round(log_uniform(*waiting)))
        load = float(rng.uniform(1.1, 3.0))
        unit = float(holders_throughput(processors=p, cpu_time=1.0, wait_time=ratio,
                                        connections=C, holders=T)[T])  # X_in(T) at 1 s
        cpu = unit * longest / (places - 0.5)
        x = unit / cpu
        B = T + math.ceil(longest * x)
        tagged = tagged_state_count(top=B, threads=T, connections=T if C is None else C,
                                    two_phases=True, has_cpu=True)
        if tagged > max_tagged:
            continue
        out.append({"workload": "open", "clients": None, "capacity": B, "threads": T,
                    "processors": p, "connections": C, "cpu_time": cpu,
                    "wait_time": cpu * ratio, "think_time": None, "arrival_rate": load * x,
                    "load": load, "binding": "threads", "longest": longest,
                    "tagged_states": tagged})
    return out


def measure_overload(r: dict, *, seed: int, exact: bool = True) -> dict:
    """Exact (unless ``exact=False``), fast, the fast method before (the Euler inversion
    alone; refused or not by the former rule) and simulated percentiles (5 replications of
    20,000 completions, after the waiting places have filled)."""
    kw = model_arguments(r)
    if exact:
        row = measure(r)  # exact and fast, their errors
    else:  # too large for the exact chain: the simulation is the reference
        fast_q = thread_pool(**kw, method="fes").response_time_quantile(PERCENTILES)
        row = dict(r, **{f"{n}_fast": float(f) for n, f in zip(NAMES, fast_q, strict=True)})
    built = []
    make = passage._mixture

    def keep(*args, **kwargs):
        built.append(make(*args, **kwargs))
        return built[-1]

    passage._mixture, limit = keep, passage.FAST_SHAPE_LIMIT
    try:
        thread_pool(**kw, method="fes").response_time_quantile(PERCENTILES)
        row["refused_before"] = bool(built[-1].unresolved() > FAST_UNRESOLVED)
        passage.FAST_SHAPE_LIMIT = 1e150  # every level to the Euler inversion
        euler = thread_pool(**kw, method="fes").response_time_quantile(PERCENTILES)
    finally:
        passage._mixture, passage.FAST_SHAPE_LIMIT = make, limit
    # 20,000 completions per replication, after a warm-up that fills the B - T waiting
    # places (at lambda - X_in(T): R / (load - 1)) twice, and one longest response more
    completions = r["arrival_rate"] / r["load"]
    warmup = r["longest"] * (1.0 + 2.0 / (r["load"] - 1.0))
    sim = simulate_thread_pool(**kw, percentiles=True, seed=seed, processor_sharing=True,
                               horizon=warmup + 20_000 / completions, warmup=warmup,
                               replications=5)
    for name, f in zip(NAMES, euler, strict=True):
        key = f"response_time_{name}"
        row[f"{name}_euler"] = float(f)
        row[f"{name}_before"] = math.nan if row["refused_before"] else float(f)
        row[f"{name}_sim"] = float(sim.estimate[key])
        row[f"{name}_sim_half"] = float(sim.half_width(key))
        row[f"err_{name}_sim"] = float(row[f"{name}_fast"] / sim.estimate[key] - 1)
        row[f"err_{name}_euler_sim"] = float(f / sim.estimate[key] - 1)
        row[f"in_ci_{name}_fast"] = bool(sim.contains(key, row[f"{name}_fast"]))
        if exact:
            row[f"err_{name}_euler"] = float(f / row[f"{name}_exact"] - 1)
            row[f"in_ci_{name}_exact"] = bool(sim.contains(key, row[f"{name}_exact"]))
    return row


def overload_markdown(frame: pd.DataFrame) -> list[str]:
    def stats(values) -> str:
        v = np.abs(np.asarray(values, dtype=np.float64))
        v = v[np.isfinite(v)]
        return (f"{np.median(v):.3g} | {np.quantile(v, 0.95):.3g} | {v.max():.3g}"
                if v.size else "- | - | -")

    lines = [
        "## Past saturation: narrow waits", "",
        f"{len(frame)} open servers past saturation (seed {OVERLOAD_SEED}, "
        "`overload_configurations`): arrivals 1.1 to 3 times `X_in(T)`, B from a longest "
        f"response of 1 to 60 s (B from {frame['capacity'].min()} to "
        f"{frame['capacity'].max()}). Absolute relative error of each percentile: the fast "
        "method now (narrow waits in the time domain), the Euler inversion alone (before the "
        "rule), and before (the rule refused "
        f"{int(frame['refused_before'].sum())} of {len(frame)}: no percentile there); against "
        "the exact chain and against the simulation's estimate (5 replications of 20,000 "
        "completions, processor sharing).", "",
        "| percentile | against | method | median | 95th percentile | largest |",
        "|---|---|---|---|---|---|",
    ]
    for name in NAMES:
        exact = frame[f"{name}_exact"]
        lines.append(f"| {name} | exact | fast (now) | {stats(frame[f'err_{name}'])} |")
        lines.append(f"| {name} | exact | Euler alone | "
                     f"{stats(frame[f'{name}_euler'] / exact - 1)} |")
        lines.append(f"| {name} | exact | before (refused rows left out) | "
                     f"{stats(frame[f'{name}_before'] / exact - 1)} |")
        lines.append(f"| {name} | simulation | fast (now) | {stats(frame[f'err_{name}_sim'])} |")
        lines.append(f"| {name} | simulation | exact | "
                     f"{stats(exact / frame[f'{name}_sim'] - 1)} |")
    inside = {n: int(frame[f"in_ci_{n}_exact"].sum()) for n in NAMES}
    lines += ["", "The exact percentile lies in the simulation's 95 % interval in "
              + ", ".join(f"{inside[n]} of {len(frame)} ({n})" for n in NAMES) + ".", ""]
    return lines


def run_overload() -> pd.DataFrame:
    passage.MAX_UNIFORMIZATION_WORK = WORK
    rng = np.random.default_rng(OVERLOAD_SEED)
    rows = []
    while len(rows) < OVERLOAD_SIZE:
        r = overload_configurations(rng, 1)[0]
        try:
            rows.append(measure_overload(r, seed=len(rows)))
        except StiffChain:
            continue
        print(f"overload {len(rows)}/{OVERLOAD_SIZE}", flush=True)
    frame = pd.DataFrame(rows)
    frame.to_csv(RESULTS / "validation_percentiles_overload.csv", index=False,
                 float_format="%.17g")
    return frame


#: The large-B sample: too large for the exact chain, against the simulation only.
LARGE_SIZE = 6
LARGE_SEED = 20_261_204


def run_large() -> pd.DataFrame:
    rng = np.random.default_rng(LARGE_SEED)
    rows = []
    for i, r in enumerate(overload_configurations(rng, LARGE_SIZE, waiting=(500, 3000),
                                                  max_tagged=math.inf)):
        rows.append(measure_overload(r, seed=i, exact=False))
        print(f"large {len(rows)}/{LARGE_SIZE}", flush=True)
    frame = pd.DataFrame(rows)
    frame.to_csv(RESULTS / "validation_percentiles_large.csv", index=False,
                 float_format="%.17g")
    return frame


def large_markdown(frame: pd.DataFrame) -> list[str]:
    lines = [
        "## Past saturation with a large B: against the simulation", "",
        f"{len(frame)} servers as above but with 500 to 3,000 places waiting for a thread "
        f"(seed {LARGE_SEED}; B from {frame['capacity'].min()} to {frame['capacity'].max()}, "
        "too large for the exact chain): the fast method now and the Euler inversion alone "
        f"against the simulation (the former rule refused {int(frame['refused_before'].sum())} "
        f"of {len(frame)}). Absolute relative error:", "",
        "| percentile | method | median | 95th percentile | largest | within the simulation's "
        "95 % interval |", "|---|---|---|---|---|---|"]
    for name in NAMES:
        for label, column in (("fast (now)", f"err_{name}_sim"),
                              ("Euler alone", f"err_{name}_euler_sim")):
            v = np.abs(frame[column].to_numpy(dtype=np.float64))
            inside = (f"{int(frame[f'in_ci_{name}_fast'].sum())} of {len(frame)}"
                      if label.startswith("fast") else "")
            lines.append(f"| {name} | {label} | {np.median(v):.3g} | "
                         f"{np.quantile(v, 0.95):.3g} | {v.max():.3g} | {inside} |")
    return lines + [""]


def refresh_fast(frame: pd.DataFrame) -> pd.DataFrame:
    """The stored sample with its fast percentiles computed again (the exact ones read)."""
    out = frame.copy()
    for i, r in enumerate(frame.to_dict("records")):
        kw = model_arguments({k: (None if isinstance(v, float) and math.isnan(v) and k in (
            "threads", "connections", "clients", "think_time", "arrival_rate") else v)
            for k, v in r.items()})
        for key in ("threads", "connections", "clients"):
            if kw.get(key) is not None:
                kw[key] = int(kw[key])
        fast_q = thread_pool(**kw, method="fes").response_time_quantile(PERCENTILES)
        for name, f in zip(NAMES, fast_q, strict=True):
            out.loc[i, f"{name}_fast"] = float(f)
            out.loc[i, f"err_{name}"] = float(f / r[f"{name}_exact"] - 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=SIZE)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--fast-only", action="store_true",
                        help="recompute the fast percentiles of the stored sample and run the "
                             "overload sample")
    parser.add_argument("--large", action="store_true",
                        help="run the large-B sample against the simulation, then rewrite the "
                             "summary from the stored CSV files")
    parser.add_argument("--tables-only", action="store_true",
                        help="rewrite the Markdown summary from the stored CSV files (and time "
                             "the 256-processor case again) without solving the sample")
    args = parser.parse_args()
    overload_csv = RESULTS / "validation_percentiles_overload.csv"
    if args.large:
        run_large()
        args.tables_only = True
    if args.tables_only or args.fast_only:
        frame = pd.read_csv(RESULTS / "validation_percentiles.csv")
        stiff = pd.read_csv(RESULTS / "validation_percentiles_stiff.csv")
        if args.fast_only:
            frame = refresh_fast(frame)
            frame.to_csv(RESULTS / "validation_percentiles.csv", index=False,
                         float_format="%.17g")
            overload = run_overload()
        else:
            overload = pd.read_csv(overload_csv) if overload_csv.exists() else None
        table = error_table(frame.to_dict("records"))
        (RESULTS / "validation_percentiles.md").write_text(
            markdown(table, frame, timing_256(), len(stiff), overload))
        print(table.to_string())
        return
    passage.MAX_UNIFORMIZATION_WORK = WORK
    rng = np.random.default_rng(args.seed)
    rows, stiff = [], []
    while len(rows) < args.size:
        r = configurations(rng, 1)[0]
        try:
            row = measure(r)
        except StiffChain:
            stiff.append(r)
            continue
        row["mean_exact"] = _exact_mean(model_arguments(r))
        rows.append(row)
        if len(rows) % 10 == 0:
            print(f"{len(rows)}/{args.size}", flush=True)
    frame = pd.DataFrame(rows)
    pd.DataFrame(stiff).to_csv(RESULTS / "validation_percentiles_stiff.csv", index=False,
                               float_format="%.10g")
    RESULTS.mkdir(exist_ok=True)
    frame.to_csv(RESULTS / "validation_percentiles.csv", index=False, float_format="%.17g")
    table = error_table(rows)
    timing = timing_256()
    (RESULTS / "validation_percentiles.md").write_text(markdown(table, frame, timing,
                                                                len(stiff), run_overload()))
    print(table.to_string())


def _exact_mean(kw: dict) -> float:
    """The mean of the exact passage time (a sparse solve), for the Little's-law check."""
    from queuetune.models.markov import stationary_distribution
    from queuetune.models.passage import exact_response_time
    from queuetune.models.thread_pool_chain import build_chain

    chain = build_chain(**kw)
    pi = stationary_distribution(chain.generator)
    return exact_response_time(chain, pi, **kw).mean


if __name__ == "__main__":
    main()
