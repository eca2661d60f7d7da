"""Benchmark of the analytic models: speed of the vectorized M/M/1/B/K solver, extreme sizes,
and the flow-equivalent-server approximation of the thread pool against the exact chain.

Writes ``results/benchmark_models.csv`` (every number, tidy: section, case, quantity, value)
and ``results/benchmark_models.md`` (a summary). Seeds are fixed; timings depend on the
machine and its load, which are printed.

Run: ``.venv/bin/python scripts/benchmark_models.py`` (under a minute on 2 cores,
3 GB of memory for the largest exact chain).
"""

from __future__ import annotations

import csv
import math
import os
import platform
import resource
import time
from pathlib import Path

import mpmath
import numpy as np
import scipy
import sympy
from scipy.special import gammaln, logsumexp

import queuelab
from queuelab import mm1bk, thread_pool
from queuelab.models.thread_pool import EXACT_MAX_STATES
from queuelab.models.thread_pool_chain import state_count

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
GRID_SIZE = 10**6
SAMPLE = 2_000
ROUNDS = 5  # rounds of the grid comparison (median and range of the speed-up)
SEED = 20_240_601
METRICS = ("throughput", "response_time", "utilization", "mean_in_system", "p0", "error_rate")

rows: list[dict] = []


def record(section: str, case: str, quantity: str, value) -> None:
    rows.append({"section": section, "case": case, "quantity": quantity, "value": value})


def best_time(call, repeats: int = 3) -> tuple[float, object]:
    """Smallest CPU time of the process over ``repeats`` calls (every solver here runs on one
    core, so on an idle machine this equals the wall time; on a shared one it is steadier)."""
    best, result = math.inf, None
    for _ in range(repeats):
        start = time.process_time()
        result = call()
        best = min(best, time.process_time() - start)
    return best, result


def eqs_3_to_5_numpy(K: int, B: int, S: float, Z: float) -> dict:
    """Imre et al. eqs. (3)-(5) for one configuration with gammaln and logsumexp."""
    top = min(K, B)
    k = np.arange(top + 1)
    log_t = gammaln(K + 1.0) - gammaln(K - k + 1.0) - k * np.log(Z / S)
    p = np.exp(log_t - logsumexp(log_t))
    busy = p[1:].sum()
    mean = float(k @ p)
    return _derived(p[0], busy, mean, p[-1] if B <= K else 0.0, S)


def eqs_3_to_5_python(K: int, B: int, S: float, Z: float) -> dict:
    """The same equations in plain Python (math.lgamma, one term at a time)."""
    top = min(K, B)
    log_ratio, log_fact = math.log(Z / S), math.lgamma(K + 1.0)
    log_t = [log_fact - math.lgamma(K - k + 1.0) - k * log_ratio for k in range(top + 1)]
    peak = max(log_t)
    w = [math.exp(x - peak) for x in log_t]
    total = sum(w)
    busy = sum(w[1:]) / total
    mean = sum(k * x for k, x in enumerate(w)) / total
    return _derived(w[0] / total, busy, mean, w[-1] / total if B <= K else 0.0, S)


def _derived(p0, busy, mean, last, S) -> dict:
    x = busy / S
    return {"throughput": x, "response_time": mean / x, "utilization": busy,
            "mean_in_system": mean, "p0": p0, "error_rate": last}


def max_relative_difference(batch, sample: np.ndarray, loop_results: list[dict]) -> float:
    worst = 0.0
    for name in METRICS:
        got = np.asarray(getattr(batch, name))[sample]
        want = np.array([r[name] for r in loop_results])
        scale = np.abs(want)
        mask = scale > 1e-290  # underflowed values compare as zero
        worst = max(worst, float(np.max(np.abs(got[mask] - want[mask]) / scale[mask])))
        assert np.all(np.abs(got[~mask]) < 1e-280)
    return worst


def bench_grid() -> dict:
    """The vectorized call against three loops, in ROUNDS rounds: on a shared machine the
    ratio of two timings moves from round to round, so the median and the range are kept."""
    rng = np.random.default_rng(SEED)
    K = rng.integers(1, 101, GRID_SIZE)
    B = rng.integers(1, 201, GRID_SIZE)
    S = rng.uniform(0.01, 1.0, GRID_SIZE)
    Z = rng.uniform(0.5, 10.0, GRID_SIZE)
    sample = rng.choice(GRID_SIZE, SAMPLE, replace=False)
    configs = [(int(K[i]), int(B[i]), float(S[i]), float(Z[i])) for i in sample]
    loops = {
        "numpy_per_config": eqs_3_to_5_numpy,
        "python_per_config": eqs_3_to_5_python,
        "mm1bk_per_config": lambda *c: mm1bk(*c).as_dict(),
    }
    vector_runs: list[float] = []
    per_config: dict[str, list[float]] = {name: [] for name in loops}
    speedups: dict[str, list[float]] = {name: [] for name in loops}
    differences = dict.fromkeys(loops, 0.0)
    for _ in range(ROUNDS):
        vector_s, batch = best_time(lambda: mm1bk(K, B, S, Z))
        vector_runs.append(vector_s)
        for name, solve in loops.items():
            # best of 3, like the vectorized call, so that both sides get the same treatment
            seconds, results = best_time(lambda solve=solve: [solve(*c) for c in configs])
            per_config[name].append(seconds / SAMPLE)
            speedups[name].append(seconds / SAMPLE * GRID_SIZE / vector_s)
            differences[name] = max(differences[name],
                                    max_relative_difference(batch, sample, results))
    out = {"vectorized_s": float(np.median(vector_runs)), "vectorized_min_s": min(vector_runs),
           "vectorized_max_s": max(vector_runs),
           "states": int(np.minimum(K, B).sum() + GRID_SIZE)}
    for name in loops:
        out[name] = {
            "per_config_s": float(np.median(per_config[name])),
            "extrapolated_s": float(np.median(per_config[name])) * GRID_SIZE,
            "speedup": float(np.median(speedups[name])),
            "speedup_min": min(speedups[name]),
            "speedup_max": max(speedups[name]),
            "max_rel_diff": differences[name],
        }
    return out


def bench_extremes() -> list[dict]:
    cases = [
        ("K = B = 10^6, S = 0.14, Z = 4", 10**6, 10**6, 0.14, 4.0),
        ("K = B = 10^6, Z/S = 10^6", 10**6, 10**6, 4e-6, 4.0),
        ("K = 10^6, B = 50, S = 0.14, Z = 4", 10**6, 50, 0.14, 4.0),
    ]
    out = []
    for label, K, B, S, Z in cases:
        seconds, res = best_time(lambda K=K, B=B, S=S, Z=Z: mm1bk(K, B, S, Z))
        out.append({"case": label, "seconds": seconds, "throughput": float(res.throughput),
                    "utilization": float(res.utilization),
                    "mean_in_system": float(res.mean_in_system),
                    "response_time": float(res.response_time)})
    return out


def bench_thread_pool() -> list[dict]:
    splits = [(0.03, 0.01), (0.02, 0.02), (0.02, 0.1), (0.01, 0.5)]
    out = []
    for clients in (50, 100, 300):
        for capacity in (50, 200):
            for threads in (1, 2, 5, 10, 30, 100):
                for cpu, wait in splits:
                    args = (clients, capacity, threads, cpu, wait, 4.0)
                    t_exact, exact = best_time(lambda a=args: thread_pool(*a, method="exact"), 1)
                    t_fes, fes = best_time(lambda a=args: thread_pool(*a, method="fes"), 1)
                    out.append({
                        "clients": clients, "capacity": capacity, "threads": threads,
                        "cpu_time": cpu, "wait_time": wait,
                        "states": state_count(clients, capacity, threads, True),
                        "exact_s": t_exact, "fes_s": t_fes,
                        "X_exact": float(exact.throughput), "X_fes": float(fes.throughput),
                        "R_exact": float(exact.response_time),
                        "R_fes": float(fes.response_time),
                        "err_X": float(fes.throughput / exact.throughput - 1),
                        "err_R": float(fes.response_time / exact.response_time - 1),
                    })
    return out


def bench_large_exact() -> list[dict]:
    """Large chains where the pool and the CPU are both near saturation (T / (cpu + wait)
    close to 1 / cpu), up to the largest chain method="exact" accepts."""
    cases = [
        (2000, 2000, 100, 0.002, 0.2, 4.0),
        (1000, 1000, 500, 0.0004, 0.2, 0.2),
        (10000, 10000, 200, 0.001, 0.2, 11.0),
    ]
    out = []
    for clients, capacity, threads, cpu, wait, think in cases:
        args = (clients, capacity, threads, cpu, wait, think)
        t_exact, exact = best_time(lambda a=args: thread_pool(*a, method="exact"), 1)
        t_fes, fes = best_time(lambda a=args: thread_pool(*a, method="fes"), 1)
        out.append({"clients": clients, "capacity": capacity, "threads": threads,
                    "cpu_time": cpu, "wait_time": wait, "think_time": think,
                    "states": state_count(clients, capacity, threads, True),
                    "exact_s": t_exact, "fes_s": t_fes,
                    "X_exact": float(exact.throughput),
                    "err_X": float(fes.throughput / exact.throughput - 1),
                    "err_R": float(fes.response_time / exact.response_time - 1)})
    return out


def machine() -> dict:
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "sympy": sympy.__version__,
        "mpmath": mpmath.__version__,
        "queuelab": queuelab.__version__,
        "load_average_start": " ".join(f"{v:.2f}" for v in os.getloadavg()),
    }


def markdown(info, grid, extremes, pool, large) -> str:
    lines = ["# Benchmark of the analytic models", ""]
    lines += [f"Machine: {info['nproc']} cores ({info['cpu']}), Python {info['python']}, "
              f"NumPy {info['numpy']}, SciPy {info['scipy']}, SymPy {info['sympy']}, "
              f"mpmath {info['mpmath']}. Times are CPU times of the process (single-threaded "
              f"solvers). Load average at start {info['load_average_start']}, "
              f"at end {info['load_average_end']}; peak memory {info['peak_rss_gib']:.2f} GiB.",
              ""]
    lines += ["## M/M/1/B/K over a grid of 10^6 configurations", ""]
    lines += [f"Clients 1..100, capacity 1..200, S ~ U(0.01, 1) s, Z ~ U(0.5, 10) s (seed "
              f"{SEED}); {grid['states']:,} states in all. `mm1bk` on the whole grid: "
              f"**{grid['vectorized_s']:.3f} s** (median over {ROUNDS} rounds of the best of "
              f"3; {grid['vectorized_min_s']:.3f}-{grid['vectorized_max_s']:.3f} s). In each "
              f"round each loop was timed (best of 3) on a random sample of {SAMPLE} "
              f"configurations and extrapolated to 10^6; the speed-up is the median of the "
              f"rounds' ratios, with their range.", ""]
    lines += ["| per-configuration loop | per config | extrapolated to 10^6 | speed-up | "
              "range over rounds | max rel. difference |", "|---|---:|---:|---:|---:|---:|"]
    labels = {"python_per_config": "plain Python (math.lgamma), eqs. (3)-(5)",
              "numpy_per_config": "NumPy/SciPy (gammaln, logsumexp), eqs. (3)-(5)",
              "mm1bk_per_config": "`queuelab.mm1bk` called per configuration"}
    for key, label in labels.items():
        g = grid[key]
        lines.append(f"| {label} | {g['per_config_s'] * 1e6:.1f} us | "
                     f"{g['extrapolated_s']:.1f} s | {g['speedup']:.0f}x | "
                     f"{g['speedup_min']:.0f}-{g['speedup_max']:.0f}x | "
                     f"{g['max_rel_diff']:.1e} |")
    lines += ["", "## Extreme sizes", "", "| case | time | X | U | N | R |",
              "|---|---:|---:|---:|---:|---:|"]
    for e in extremes:
        lines.append(f"| {e['case']} | {e['seconds'] * 1e3:.0f} ms | {e['throughput']:.6g} | "
                     f"{e['utilization']:.6g} | {e['mean_in_system']:.7g} | "
                     f"{e['response_time']:.6g} |")
    lines += ["", "## Thread pool: flow-equivalent server (fes) against the exact chain", ""]
    lines += ["Grid: clients 50, 100, 300; capacity 50, 200; (cpu_time, wait_time) in "
              "(0.03, 0.01), (0.02, 0.02), (0.02, 0.1), (0.01, 0.5) s; think time 4 s; no "
              "overhead. Relative error of fes = fes / exact - 1; time per solve.", ""]
    lines += ["| threads | max abs. error X | max abs. error R | worst case (K, B, cpu, wait) "
              "| mean time exact | mean time fes | largest chain |",
              "|---:|---:|---:|---|---:|---:|---:|"]
    for threads in sorted({p["threads"] for p in pool}):
        sub = [p for p in pool if p["threads"] == threads]
        worst = max(sub, key=lambda p: abs(p["err_R"]))
        lines.append(
            f"| {threads} | {max(abs(p['err_X']) for p in sub):.2%} | "
            f"{max(abs(p['err_R']) for p in sub):.2%} | "
            f"({worst['clients']}, {worst['capacity']}, {worst['cpu_time']}, "
            f"{worst['wait_time']}) | {np.mean([p['exact_s'] for p in sub]) * 1e3:.1f} ms | "
            f"{np.mean([p['fes_s'] for p in sub]) * 1e3:.1f} ms | "
            f"{max(p['states'] for p in sub):,} states |")
    lines += ["", f"Over all {len(pool)} configurations: largest |error| of fes "
              f"{max(abs(p['err_X']) for p in pool):.2%} in throughput and "
              f"{max(abs(p['err_R']) for p in pool):.2%} in response time.", ""]
    lines += [f"Larger chains, pool and CPU both near saturation (the last is close to "
              f"EXACT_MAX_STATES = {EXACT_MAX_STATES:,}):", "",
              "| clients = capacity | threads | cpu, wait, think (s) | states | exact | fes | "
              "error X | error R |", "|---:|---:|---|---:|---:|---:|---:|---:|"]
    for e in large:
        lines.append(f"| {e['clients']} | {e['threads']} | {e['cpu_time']:g}, "
                     f"{e['wait_time']:g}, {e['think_time']:g} | {e['states']:,} | "
                     f"{e['exact_s']:.2f} s | {e['fes_s'] * 1e3:.1f} ms | {e['err_X']:.2e} | "
                     f"{e['err_R']:.2e} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    info = machine()
    print(f"machine: nproc={info['nproc']} python={info['python']} numpy={info['numpy']} "
          f"scipy={info['scipy']} sympy={info['sympy']} mpmath={info['mpmath']} "
          f"load={info['load_average_start']}", flush=True)
    grid = bench_grid()
    print(f"grid: vectorized {grid['vectorized_s']:.3f} s", flush=True)
    for key in ("python_per_config", "numpy_per_config", "mm1bk_per_config"):
        g = grid[key]
        print(f"  {key}: {g['per_config_s'] * 1e6:.1f} us/config, extrapolated "
              f"{g['extrapolated_s']:.1f} s, speed-up {g['speedup']:.0f}x "
              f"({g['speedup_min']:.0f}-{g['speedup_max']:.0f}x), "
              f"max rel diff {g['max_rel_diff']:.2e}", flush=True)
        for q in ("per_config_s", "extrapolated_s", "speedup", "speedup_min", "speedup_max",
                  "max_rel_diff"):
            record("mm1bk_grid", key, q, g[q])
    record("mm1bk_grid", "vectorized", "seconds", grid["vectorized_s"])
    record("mm1bk_grid", "vectorized", "seconds_min", grid["vectorized_min_s"])
    record("mm1bk_grid", "vectorized", "seconds_max", grid["vectorized_max_s"])
    record("mm1bk_grid", "vectorized", "states", grid["states"])
    extremes = bench_extremes()
    for e in extremes:
        print(f"extreme: {e['case']}: {e['seconds'] * 1e3:.0f} ms, X={e['throughput']:.6g} "
              f"U={e['utilization']:.6g} N={e['mean_in_system']:.7g}", flush=True)
        for q, v in e.items():
            if q != "case":
                record("mm1bk_extreme", e["case"], q, v)
    pool = bench_thread_pool()
    for p in pool:
        case = (f"K={p['clients']} B={p['capacity']} T={p['threads']} "
                f"cpu={p['cpu_time']} wait={p['wait_time']}")
        for q, v in p.items():
            record("thread_pool_fes_vs_exact", case, q, v)
    large = bench_large_exact()
    for e in large:
        case = f"K=B={e['clients']} T={e['threads']}"
        print(f"large exact: {case}: {e['states']} states, exact {e['exact_s']:.2f} s, fes "
              f"{e['fes_s'] * 1e3:.1f} ms, err X {e['err_X']:.2e}, err R {e['err_R']:.2e}",
              flush=True)
        for q, v in e.items():
            record("thread_pool_large", case, q, v)
    info["load_average_end"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    info["peak_rss_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    for q, v in info.items():
        record("machine", "this run", q, v)
    RESULTS.mkdir(exist_ok=True)
    with open(RESULTS / "benchmark_models.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["section", "case", "quantity", "value"])
        writer.writeheader()
        writer.writerows(rows)
    summary = markdown(info, grid, extremes, pool, large)
    (RESULTS / "benchmark_models.md").write_text(summary, encoding="utf-8")
    print()
    print(summary)


if __name__ == "__main__":
    main()
