"""Benchmark of the analytic models: speed of the vectorized M/M/1/B/K solver, the cost per
state across batch sizes, the admission guards against measured times, extreme sizes, and the
flow-equivalent-server approximation of the thread pool against the exact chain, on a grid and
on a random sample of its documented domain.

Writes ``results/benchmark_models.csv`` (every number, tidy: section, case, quantity, value),
``results/benchmark_fes_sample.csv`` (the random sample, one row per configuration) and
``results/benchmark_models.md`` (a summary). Seeds are fixed; timings depend on the machine
and its load, which are printed.

Also writes ``results/benchmark_fes_general.csv`` (a random sample of the general server:
processors, pools, open workloads, no thread limit) and ``results/fes_error_distribution.csv``
(the error distribution of both samples, which the thread-pool chapter reads).

Run: ``.venv/bin/python scripts/benchmark_models.py`` (about 6 minutes on 2 cores, 2 GB of
memory for the largest exact chain); ``--fes-error`` runs only the general sample and writes
the two files above.
"""

from __future__ import annotations

import csv
import math
import os
import platform
import resource
import sys
import time
from pathlib import Path

import mpmath
import numpy as np
import scipy
import sympy
from scipy.special import gammaln, logsumexp

import queuetune
from queuetune import Station, mm1bk, mva, thread_pool
from queuetune.models.mean_value import MAX_CONVOLUTION_TERMS, MAX_POPULATION
from queuetune.models.single_server import MAX_STATES, MAX_TOTAL_STATES
from queuetune.models.thread_pool_chain import state_count
from queuetune.models.thread_pool_server import (
    EXACT_MAX_SECONDS,
    EXACT_MAX_STATES,
    FES_MAX_SECONDS,
    estimated_seconds,
)
from queuetune.simulation import MAX_SECONDS as SIMULATION_MAX_SECONDS
from queuetune.simulation import simulate_thread_pool

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
GRID_SIZE = 10**6
SAMPLE = 2_000
ROUNDS = 5  # rounds of the grid comparison (median and range of the speed-up)
SEED = 20_240_601
METRICS = ("throughput", "response_time", "utilization", "mean_in_system", "p0", "error_rate")
#: Batch sizes around the old switch of mm1bk's solver at 1,024 configurations, and the chain
#: lengths C of the per-state cost table.
PER_STATE_BATCHES = (1, 10, 100, 319, 320, 1023, 1024, 2048, 10_000)
PER_STATE_CHAINS = (1_000, 100_000)
#: The random sample of the thread pool's domain: size per case and the largest exact chain.
FES_SAMPLE = 5_000
FES_SAMPLE_MAX_STATES = 20_000

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
        "mm1bk_per_config": lambda *c: mm1bk(**dict(zip(
            ("clients", "capacity", "service_time", "think_time"), c, strict=True))).as_dict(),
    }
    vector_runs: list[float] = []
    per_config: dict[str, list[float]] = {name: [] for name in loops}
    speedups: dict[str, list[float]] = {name: [] for name in loops}
    differences = dict.fromkeys(loops, 0.0)
    for _ in range(ROUNDS):
        vector_s, batch = best_time(lambda: mm1bk(clients=K, capacity=B, service_time=S,
                                                  think_time=Z))
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
        seconds, res = best_time(lambda K=K, B=B, S=S, Z=Z: mm1bk(clients=K, capacity=B,
                                                                  service_time=S, think_time=Z))
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
                    args = dict(clients=clients, capacity=capacity, threads=threads,
                                cpu_time=cpu, wait_time=wait, think_time=4.0)
                    t_exact, exact = best_time(
                        lambda a=args: thread_pool(**a, method="exact"), 1)
                    t_fes, fes = best_time(lambda a=args: thread_pool(**a, method="fes"), 1)
                    out.append({
                        "clients": clients, "capacity": capacity, "threads": threads,
                        "cpu_time": cpu, "wait_time": wait,
                        "states": state_count(clients=clients, capacity=capacity, threads=threads,
                                              two_phases=True),
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
        (5000, 5000, 200, 0.001, 0.2, 5.5),
        (1500, 1500, 700, 0.0003, 0.2, 0.3),
    ]
    out = []
    for clients, capacity, threads, cpu, wait, think in cases:
        args = dict(clients=clients, capacity=capacity, threads=threads, cpu_time=cpu,
                    wait_time=wait, think_time=think)
        t_exact, exact = best_time(lambda a=args: thread_pool(**a, method="exact"), 1)
        t_fes, fes = best_time(lambda a=args: thread_pool(**a, method="fes"), 1)
        out.append({"clients": clients, "capacity": capacity, "threads": threads,
                    "cpu_time": cpu, "wait_time": wait, "think_time": think,
                    "states": state_count(clients=clients, capacity=capacity, threads=threads,
                                          two_phases=True),
                    "exact_s": t_exact, "fes_s": t_fes,
                    "X_exact": float(exact.throughput),
                    "err_X": float(fes.throughput / exact.throughput - 1),
                    "err_R": float(fes.response_time / exact.response_time - 1)})
    return out


def per_state_costs() -> list[dict]:
    """mm1bk's time per state for chains of C states in batches of m configurations, on both
    sides of 1,024 (where the solver used to switch from a log-space path to a recursion).
    The chains are saturated (S = Z = 1): the mode is C, every state is one step of a run."""
    out = []
    for top in PER_STATE_CHAINS:
        for m in PER_STATE_BATCHES:
            if m * (top + 1) > 2 * 10**8:
                continue
            K = np.full(m, top)
            repeats = max(1, int(2e6 // (m * (top + 1))))
            seconds, _ = best_time(lambda K=K, top=top, r=repeats: [
                mm1bk(clients=K, capacity=top, service_time=1.0,
                      think_time=1.0) for _ in range(r)], 3)
            out.append({"states_per_config": top, "configs": m,
                        "ns_per_state": seconds / repeats / (m * (top + 1)) * 1e9,
                        "ms_per_call": seconds / repeats * 1e3})
    return out


def review_cases() -> list[dict]:
    """The calls of the adversarial review, timed once each."""
    cases = [("mm1bk(np.full(1023, 10**5), 10**5, 1.0, 1.0)",
              lambda: mm1bk(clients=np.full(1023, 10**5), capacity=10**5, service_time=1.0,
                            think_time=1.0)),
             ("mm1bk(np.full(1024, 10**5), 10**5, 1.0, 1.0)",
              lambda: mm1bk(clients=np.full(1024, 10**5), capacity=10**5, service_time=1.0,
                            think_time=1.0)),
             ("mm1bk(np.full(30, 10**7), 10**7, 1.0, 1.0)",
              lambda: mm1bk(clients=np.full(30, 10**7), capacity=10**7, service_time=1.0,
                            think_time=1.0)),
             ("thread_pool(fes) on 10**5 random configurations", _fes_batch)]
    out = []
    for label, call in cases:
        seconds, _ = best_time(call, 1)
        out.append({"case": label, "seconds": seconds})
    return out


def _fes_batch():
    rng = np.random.default_rng(SEED)
    m = 10**5
    return thread_pool(clients=rng.integers(1, 300, m), capacity=rng.integers(1, 300, m),
                       threads=rng.integers(1, 60, m),
                       cpu_time=rng.uniform(0.001, 0.1, m), wait_time=rng.uniform(0.0, 0.5, m),
                       think_time=rng.uniform(0.5, 20.0, m), method="fes")


def guard_calibration() -> list[dict]:
    """Each admission guard: its limit, the estimate it is based on, and a call at or near the
    limit, timed."""
    rows = []

    def timed(guard, limit, case, call, estimate=math.nan):
        seconds, _ = best_time(call, 1)
        rows.append({"guard": guard, "limit": limit, "case": case,
                     "estimated_s": estimate, "seconds": seconds})

    timed("mm1bk MAX_TOTAL_STATES", f"{MAX_TOTAL_STATES:.0e} states",
          "49 saturated chains of 10**7 states (4.9e8 states)",
          lambda: mm1bk(clients=np.full(49, 10**7), capacity=10**7, service_time=1.0,
                        think_time=1.0))
    timed("mm1bk MAX_STATES", f"{MAX_STATES:.0e} states", "one chain of 10**7, mode inside",
          lambda: mm1bk(clients=10**7, capacity=10**7, service_time=1e-7, think_time=1.0))
    timed("thread_pool EXACT_MAX_STATES", f"{EXACT_MAX_STATES:,} states",
          "clients = capacity = 1500, 700 threads (806,851 states)",
          lambda: thread_pool(clients=1500, capacity=1500, threads=700, cpu_time=0.0003,
                              wait_time=0.2, think_time=0.3, method="exact"),
          estimated_seconds(clients=np.array([1500]), capacity=np.array([1500]),
                            threads=np.array([700]),
                            two_phases=np.array([True]), thread_overhead=np.array([0.0]),
                            method="exact"))
    K = np.full(3000, 40)
    timed("thread_pool EXACT_MAX_SECONDS", f"{EXACT_MAX_SECONDS:g} s",
          "3,000 chains of 40 clients, 5 threads",
          lambda: thread_pool(clients=K, capacity=40, threads=5, cpu_time=0.02, wait_time=0.1,
                              think_time=4.0, method="exact"),
          estimated_seconds(clients=K, capacity=K, threads=np.full(3000, 5),
                            two_phases=np.full(3000, True), thread_overhead=np.zeros(3000),
                            method="exact"))
    timed("thread_pool FES_MAX_SECONDS", f"{FES_MAX_SECONDS:g} s",
          "one chain of 10**7 states, 10 threads",
          lambda: thread_pool(clients=10**7, capacity=10**7, threads=10, cpu_time=0.01,
                              wait_time=0.1, think_time=1.0, method="fes"),
          estimated_seconds(clients=np.array([10**7]), capacity=np.array([10**7]),
                            threads=np.array([10]),
                            two_phases=np.array([True]), thread_overhead=np.array([0.0]),
                            method="fes"))
    timed("thread_pool FES_MAX_SECONDS", f"{FES_MAX_SECONDS:g} s",
          "one configuration with 10**7 threads (inner recursion)",
          lambda: thread_pool(clients=10**7, capacity=10**7, threads=10**7, cpu_time=0.01,
                              wait_time=0.1, think_time=1.0, method="fes"),
          estimated_seconds(clients=np.array([10**7]), capacity=np.array([10**7]),
                            threads=np.array([10**7]),
                            two_phases=np.array([True]), thread_overhead=np.array([0.0]),
                            method="fes"))
    timed("mva MAX_POPULATION", f"{MAX_POPULATION:.0e}", "one queue, population 10**6",
          lambda: mva(MAX_POPULATION, [0.1], think_time=1.0))
    terms = (4 * 5 + 2) * 2000**2
    timed("mva MAX_CONVOLUTION_TERMS", f"{MAX_CONVOLUTION_TERMS:.0e} terms",
          f"5 load-dependent stations, population 2000 ({terms:.1e} terms; scaled to the limit "
          "in the estimate column)",
          lambda: mva(2000, [Station.multiserver(0.1, 4)] * 5, think_time=1.0))
    rows[-1]["estimated_s"] = rows[-1]["seconds"] * MAX_CONVOLUTION_TERMS / terms
    timed("simulation MAX_SECONDS", f"{SIMULATION_MAX_SECONDS:g} s",
          "thread pool, 60 clients, horizon 2,000, 2 replications",
          lambda: simulate_thread_pool(60, 50, 5, 0.02, 0.3, 4.0, horizon=2000.0, warmup=200.0,
                                       replications=2))
    return rows


def fes_sample(rng: np.random.Generator, overhead: bool) -> list[dict]:
    """The flow-equivalent server against the exact chain on a random sample of the domain:
    clients and capacity log-uniform in 5..500, threads log-uniform in 1..100, CPU time
    log-uniform in 1 ms..0.2 s, wait time 0.1 to 100 times it (log-uniform), and the think
    time set so that the offered load (clients / (think + cpu + wait)) is 0.2 to 5 times the
    server's capacity min(T / (cpu + wait), 1 / cpu), log-uniform: light load, the knee and
    saturation alike. With overhead, thread_overhead log-uniform in 1e-4..0.1 and
    pool_overhead uniform in 0..1e-3. Configurations whose exact chain exceeds
    FES_SAMPLE_MAX_STATES states are redrawn."""
    out = []

    def log_uniform(low, high):
        return float(np.exp(rng.uniform(np.log(low), np.log(high))))

    while len(out) < FES_SAMPLE:
        K = int(round(log_uniform(5, 500)))
        B = int(round(log_uniform(5, 500)))
        T = int(round(log_uniform(1, 100)))
        cpu = log_uniform(1e-3, 0.2)
        wait = cpu * log_uniform(0.1, 100)
        load = log_uniform(0.2, 5)
        theta = log_uniform(1e-4, 0.1) if overhead else 0.0
        phi = float(rng.uniform(0, 1e-3)) if overhead else 0.0
        states = state_count(clients=K, capacity=B, threads=T, two_phases=True)
        if states > FES_SAMPLE_MAX_STATES:
            continue
        capacity = min(T / (cpu + wait), 1 / cpu)
        Z = max(K / (load * capacity) - cpu - wait, 1e-3 * (cpu + wait))
        kw = dict(clients=K, capacity=B, threads=T, cpu_time=cpu, wait_time=wait,
                  think_time=Z, thread_overhead=theta, pool_overhead=phi)
        start = time.process_time()
        exact = thread_pool(**kw, method="exact")
        exact_s = time.process_time() - start
        fes = thread_pool(**kw, method="fes")
        out.append({"overhead": overhead, "clients": K, "capacity": B, "threads": T,
                    "cpu_time": cpu, "wait_time": wait, "think_time": Z, "load": load,
                    "thread_overhead": theta, "pool_overhead": phi, "states": states,
                    "exact_s": exact_s,
                    "err_X": float(fes.throughput / exact.throughput - 1),
                    "err_R": float(fes.response_time / exact.response_time - 1)})
    return out


def _balance(r: dict) -> float:
    """Threads over the ``1 + wait / cpu`` that keep the CPU busy: below 1 the pool binds."""
    return r["threads"] / (1 + r["wait_time"] / r["cpu_time"])


#: The groups of the fes error table: (label, which configurations).
FES_BANDS = [
    ("all", lambda r: True),
    ("1 thread", lambda r: r["threads"] == 1),
    ("2-4 threads", lambda r: 2 <= r["threads"] <= 4),
    ("5-9 threads", lambda r: 5 <= r["threads"] <= 9),
    ("10-40 threads", lambda r: 10 <= r["threads"] <= 40),
    ("41-100 threads", lambda r: r["threads"] >= 41),
    ("pool binds (T < 0.5 (1 + wait/cpu))", lambda r: _balance(r) < 0.5),
    ("balanced (0.5 to 2)", lambda r: 0.5 <= _balance(r) <= 2),
    ("CPU binds (T > 2 (1 + wait/cpu))", lambda r: _balance(r) > 2),
    ("load below 0.7", lambda r: r["load"] < 0.7),
    ("load 0.7 to 1.5 (the knee)", lambda r: 0.7 <= r["load"] <= 1.5),
    ("load above 1.5", lambda r: r["load"] > 1.5),
]


def fes_distribution(sample: list[dict]) -> list[dict]:
    """Median, 95th percentile and maximum of |error| per case, overall and by group."""
    out = []
    for overhead in (False, True):
        rows = [r for r in sample if r["overhead"] == overhead]
        for label, member in FES_BANDS:
            chosen = [r for r in rows if member(r)]
            if not chosen:
                continue
            entry = {"overhead": overhead, "band": label, "configs": len(chosen)}
            for metric in ("err_R", "err_X"):
                err = np.abs([r[metric] for r in chosen])
                worst = chosen[int(np.argmax(err))]
                entry.update({f"{metric}_median": float(np.median(err)),
                              f"{metric}_p95": float(np.quantile(err, 0.95)),
                              f"{metric}_max": float(err.max()),
                              f"{metric}_worst": _config(worst)})
            out.append(entry)
    return out


def _config(r: dict) -> str:
    text = (f"K={r['clients']} B={r['capacity']} T={r['threads']} cpu={r['cpu_time']:.4g} "
            f"wait={r['wait_time']:.4g} Z={r['think_time']:.4g} (load {r['load']:.2f})")
    if r["overhead"]:
        text += f" theta={r['thread_overhead']:.3g} phi={r['pool_overhead']:.2g}"
    return text


#: The random sample of the general server (processors, pools, open workloads, no thread
#: limit): its size, seed and largest exact chain.
GENERAL_SAMPLE = 2_000
GENERAL_SEED = 20_261_127


def general_sample(rng: np.random.Generator, size: int = GENERAL_SAMPLE) -> list[dict]:
    """The flow-equivalent server against the exact chain on a random sample of the general
    server's documented domain (all log-uniform unless said): processors 1..32; threads 1..100,
    or no limit (one draw in four); connections 1..100, or no pool (three in ten); CPU time
    1 ms..0.2 s, wait time 0.1 to 100 times it; an open workload (one in two: capacity 5..500,
    arrival rate) or a closed one (clients and capacity 5..500, think time); the offered load
    0.2 to 5 times the server's capacity ``min(min(T, B) / (cpu + wait), p / cpu, C / wait)``.
    No overhead. Configurations whose exact chain exceeds FES_SAMPLE_MAX_STATES states are
    redrawn."""
    out = []

    def log_uniform(low, high):
        return float(np.exp(rng.uniform(np.log(low), np.log(high))))

    def log_integer(low, high):
        return int(round(log_uniform(low, high)))

    while len(out) < size:
        is_open = bool(rng.uniform() < 0.5)
        B = log_integer(5, 500)
        K = None if is_open else log_integer(5, 500)
        T = None if rng.uniform() < 0.25 else log_integer(1, 100)
        C = None if rng.uniform() < 0.3 else log_integer(1, 100)
        p = log_integer(1, 32)
        cpu = log_uniform(1e-3, 0.2)
        wait = cpu * log_uniform(0.1, 100)
        load = log_uniform(0.2, 5)
        top = B if is_open else min(B, K)
        threads = top if T is None else T
        states = state_count(clients=K, capacity=B, threads=T, two_phases=True)
        if states > FES_SAMPLE_MAX_STATES:
            continue
        limits = {"threads": min(threads, top) / (cpu + wait), "processors": p / cpu}
        if C is not None and C < min(threads, top):
            limits["connections"] = C / wait
        binding = min(limits, key=limits.get)
        rate = limits[binding]
        work = ({"arrival_rate": load * rate} if is_open else
                {"clients": K, "think_time": max(K / (load * rate) - cpu - wait,
                                                 1e-3 * (cpu + wait))})
        kw = dict(capacity=B, threads=T, processors=p, connections=C, cpu_time=cpu,
                  wait_time=wait, **work)
        start = time.process_time()
        exact = thread_pool(**kw, method="exact")
        exact_s = time.process_time() - start
        start = time.process_time()
        fes = thread_pool(**kw, method="fes")
        fes_s = time.process_time() - start
        out.append({"workload": "open" if is_open else "closed", "clients": K, "capacity": B,
                    "threads": T, "processors": p, "connections": C, "cpu_time": cpu,
                    "wait_time": wait, "think_time": work.get("think_time"),
                    "arrival_rate": work.get("arrival_rate"), "load": load,
                    "binding": binding, "states": states, "exact_s": exact_s, "fes_s": fes_s,
                    "err_X": float(fes.throughput / exact.throughput - 1),
                    "err_R": float(fes.response_time / exact.response_time - 1)})
    return out


#: The groups of the general sample's error table: (label, which configurations).
GENERAL_BANDS = [
    ("all", lambda r: True),
    ("open workload", lambda r: r["workload"] == "open"),
    ("closed workload", lambda r: r["workload"] == "closed"),
    ("1 processor", lambda r: r["processors"] == 1),
    ("2-4 processors", lambda r: 2 <= r["processors"] <= 4),
    ("5-32 processors", lambda r: r["processors"] >= 5),
    ("no thread limit", lambda r: r["threads"] is None),
    ("threads can run out (T < most admitted)", lambda r: r["threads"] is not None and r[
        "threads"] < (r["capacity"] if r["workload"] == "open" else min(r["capacity"],
                                                                        r["clients"]))),
    ("threads bind", lambda r: r["binding"] == "threads"),
    ("processors bind", lambda r: r["binding"] == "processors"),
    ("connections bind", lambda r: r["binding"] == "connections"),
    ("load below 0.7", lambda r: r["load"] < 0.7),
    ("load 0.7 to 1.5 (the knee)", lambda r: 0.7 <= r["load"] <= 1.5),
    ("load above 1.5", lambda r: r["load"] > 1.5),
]


def error_distribution(sample: list[dict], bands, case: str, describe) -> list[dict]:
    """Median, 95th percentile and largest |error| of fes against the exact chain, overall and
    by group, with the configuration where each is largest."""
    out = []
    for label, member in bands:
        chosen = [r for r in sample if member(r)]
        if not chosen:
            continue
        entry = {"sample": case, "band": label, "configs": len(chosen)}
        for metric in ("err_R", "err_X"):
            err = np.abs([r[metric] for r in chosen])
            worst = chosen[int(np.argmax(err))]
            entry.update({f"{metric}_median": float(np.median(err)),
                          f"{metric}_p95": float(np.quantile(err, 0.95)),
                          f"{metric}_max": float(err.max()),
                          f"{metric}_worst": describe(worst)})
        out.append(entry)
    return out


def _general_config(r: dict) -> str:
    work = (f"lambda={r['arrival_rate']:.4g}" if r["workload"] == "open" else
            f"K={r['clients']} Z={r['think_time']:.4g}")
    return (f"{work} B={r['capacity']} T={r['threads']} p={r['processors']} "
            f"C={r['connections']} cpu={r['cpu_time']:.4g} wait={r['wait_time']:.4g} "
            f"(load {r['load']:.2f}, {r['binding']} bind)")


def write_rows(path: Path, sample: list[dict]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(sample[0]))
        writer.writeheader()
        writer.writerows({k: ("" if v is None else f"{v:.10g}" if isinstance(v, float) else v)
                          for k, v in r.items()} for r in sample)


def fes_error_files(legacy: list[dict] | None = None) -> list[dict]:
    """The general sample (``results/benchmark_fes_general.csv``) and the error distribution
    of both samples (``results/fes_error_distribution.csv``, which the thread-pool chapter
    reads); ``legacy`` is the one-processor sample of :func:`fes_sample` (read back from
    ``results/benchmark_fes_sample.csv`` when not given)."""
    if legacy is None:
        with open(RESULTS / "benchmark_fes_sample.csv", newline="", encoding="utf-8") as fh:
            legacy = [{**r, "overhead": r["overhead"] == "True",
                       **{k: float(r[k]) for k in ("err_R", "err_X", "load", "wait_time",
                                                   "cpu_time", "think_time",
                                                   "thread_overhead", "pool_overhead")},
                       **{k: int(r[k]) for k in ("clients", "capacity", "threads")}}
                      for r in csv.DictReader(fh)]
    general = general_sample(np.random.default_rng(GENERAL_SEED))
    write_rows(RESULTS / "benchmark_fes_general.csv", general)
    table = []
    for overhead in (False, True):
        rows_ = [r for r in legacy if r["overhead"] == overhead]
        table += error_distribution(rows_, FES_BANDS[:1],
                                    "one processor, no pool, "
                                    + ("with" if overhead else "without") + " overhead",
                                    _config)
    table += error_distribution(general, GENERAL_BANDS, "general server", _general_config)
    with open(RESULTS / "fes_error_distribution.csv", "w", newline="",
              encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in r.items()}
                         for r in table)
    for d in table:
        print(f"fes error: {d['sample']}, {d['band']} ({d['configs']}): R median "
              f"{d['err_R_median']:.2%} p95 {d['err_R_p95']:.2%} max {d['err_R_max']:.2%}; "
              f"X max {d['err_X_max']:.2%}", flush=True)
    return table


def machine() -> dict:
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "sympy": sympy.__version__,
        "mpmath": mpmath.__version__,
        "queuetune": queuetune.__version__,
        "load_average_start": " ".join(f"{v:.2f}" for v in os.getloadavg()),
    }


def markdown(info, grid, extremes, pool, large, costs, review, guards, distribution) -> str:
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
              "mm1bk_per_config": "`queuetune.mm1bk` called per configuration"}
    for key, label in labels.items():
        g = grid[key]
        lines.append(f"| {label} | {g['per_config_s'] * 1e6:.1f} us | "
                     f"{g['extrapolated_s']:.1f} s | {g['speedup']:.0f}x | "
                     f"{g['speedup_min']:.0f}-{g['speedup_max']:.0f}x | "
                     f"{g['max_rel_diff']:.1e} |")
    lines += ["", "## M/M/1/B/K: time per state against the batch size", "",
              "Saturated chains of C states (S = Z = 1), m configurations per call; the best "
              "of 3. Up to version d3f2730 the solver switched at m = 1,024 from a log-space "
              "path to a recursion across configurations: the same harness measured 64 to 89 "
              "ns per state below 1,024 configurations of 10^5 states and 4.7 ns at 1,024 "
              "(47 to 193 and 8.6 ns for 10^3 states); "
              "now every configuration's terms are taken outward from its most likely state, "
              "state by state across the configurations while at least 320 are still going "
              "and in chunks of states otherwise, with the same bits either way.", "",
              "| C | " + " | ".join(f"m = {m:,}" for m in PER_STATE_BATCHES) + " |",
              "|---:|" + "---:|" * len(PER_STATE_BATCHES)]
    for top in PER_STATE_CHAINS:
        cells = {c["configs"]: c for c in costs if c["states_per_config"] == top}
        lines.append(f"| {top:,} | " + " | ".join(
            f"{cells[m]['ns_per_state']:.1f} ns" if m in cells else "-"
            for m in PER_STATE_BATCHES) + " |")
    lines += ["", "The calls of the review (before: 7.3 s, 0.6 s, over 20 s, over 15 s):", "",
              "| call | time |", "|---|---:|"]
    lines += [f"| `{r['case']}` | {r['seconds']:.2f} s |" for r in review]
    lines += ["", "## Admission guards against measured times", "",
              "Each guard refuses a call before any work, with a message naming the arguments "
              "and the way out; its limit is set from the measured cost so that an admitted "
              "call takes at most about 10 s on 2 cores. A call at or near each limit:", "",
              "| guard | limit | call | estimate | measured |", "|---|---|---|---:|---:|"]
    for g in guards:
        estimate = f"{g['estimated_s']:.1f} s" if math.isfinite(g["estimated_s"]) else "-"
        lines.append(f"| {g['guard']} | {g['limit']} | {g['case']} | {estimate} | "
                     f"{g['seconds']:.1f} s |")
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
    lines += ["## Thread pool: fes against the exact chain on a random sample of the domain",
              "", f"{FES_SAMPLE:,} configurations without overhead and {FES_SAMPLE:,} with "
              "(seed fixed; the sampling is described in `fes_sample` of the script: clients "
              "and capacity 5 to 500, threads 1 to 100, CPU time 1 ms to 0.2 s, wait 0.1 to 100 "
              "times the CPU time, offered load 0.2 to 5 times the server's capacity, all "
              f"log-uniform; exact chains of at most {FES_SAMPLE_MAX_STATES:,} states). |error| "
              "of fes / exact - 1; the rows are in `results/benchmark_fes_sample.csv`.", "",
              "| overhead | threads | configurations | R: median | R: 95th pct. | R: max | "
              "X: median | X: 95th pct. | X: max |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for d in distribution:
        lines.append(f"| {'yes' if d['overhead'] else 'no'} | {d['band']} | {d['configs']:,} "
                     f"| {d['err_R_median']:.2%} | {d['err_R_p95']:.2%} | {d['err_R_max']:.2%} "
                     f"| {d['err_X_median']:.2%} | {d['err_X_p95']:.2%} | "
                     f"{d['err_X_max']:.2%} |")
    lines += ["", "Where it is worst (response time): with few threads, with a pool that "
              "just keeps the CPU busy (T near 1 + wait/cpu), and near the knee of the load; "
              "the largest errors:", ""]
    for d in distribution:
        if d["band"] == "all":
            lines.append(f"* {'with' if d['overhead'] else 'without'} overhead: "
                         f"{d['err_R_max']:.2%} at {d['err_R_worst']}")
    lines += ["", f"Larger chains, pool and CPU both near saturation (close to "
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
    if sys.argv[1:] == ["--fes-error"]:
        # only the samples of the general server and the error distribution file
        fes_error_files()
        return
    info = machine()
    RESULTS.mkdir(exist_ok=True)
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
    costs = per_state_costs()
    for c in costs:
        print(f"per state: C={c['states_per_config']} m={c['configs']}: "
              f"{c['ns_per_state']:.1f} ns", flush=True)
        for q in ("ns_per_state", "ms_per_call"):
            record("mm1bk_per_state", f"C={c['states_per_config']} m={c['configs']}", q, c[q])
    review = review_cases()
    for r in review:
        print(f"review: {r['case']}: {r['seconds']:.2f} s", flush=True)
        record("review_cases", r["case"], "seconds", r["seconds"])
    guards = guard_calibration()
    for g in guards:
        print(f"guard: {g['guard']} ({g['case']}): {g['seconds']:.2f} s", flush=True)
        for q in ("limit", "estimated_s", "seconds"):
            record("guards", f"{g['guard']}: {g['case']}", q, g[q])
    rng = np.random.default_rng(SEED)
    sample = fes_sample(rng, False) + fes_sample(rng, True)
    write_rows(RESULTS / "benchmark_fes_sample.csv", sample)
    general = fes_error_files(sample)
    for d in general:
        for q, v in d.items():
            if q not in ("sample", "band"):
                record("fes_error_general", f"{d['sample']}, {d['band']}", q, v)
    distribution = fes_distribution(sample)
    for d in distribution:
        case = f"{'with' if d['overhead'] else 'without'} overhead, {d['band']}"
        print(f"fes sample: {case}: R median {d['err_R_median']:.2%} p95 {d['err_R_p95']:.2%} "
              f"max {d['err_R_max']:.2%}; X max {d['err_X_max']:.2%}", flush=True)
        for q, v in d.items():
            if q not in ("overhead", "band"):
                record("fes_error_distribution", case, q, v)
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
    summary = markdown(info, grid, extremes, pool, large, costs, review, guards, distribution)
    (RESULTS / "benchmark_models.md").write_text(summary, encoding="utf-8")
    print()
    print(summary)


if __name__ == "__main__":
    main()
