"""Benchmark of the sizing (``queuetune.sizing.size``, ``python -m queuetune size``): the time of
one sizing from a small service to the largest the sizing covers, each the best of three runs,
and the time of the command as a whole (a new Python process that imports the package, sizes
and prints: issue 29 asks for under 0.5 s; the package imported Altair and took 5 to 9 s).

Writes ``results/benchmark_sizing.csv`` (case, inputs, threads, connections, capacity, seconds,
cpu_seconds)
and ``results/benchmark_sizing.md`` (a summary with the machine). Timings depend on the machine
and its load.

Run: ``.venv/bin/python scripts/benchmark_sizing.py`` (about half a minute on 2 cores).
"""

from __future__ import annotations

import csv
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

from queuetune import sizing
from queuetune.chapters.practical import EXAMPLE

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"

CASES = [
    ("issue 21's engineer, 8 processors", dict(processors=8, cpu_time=0.04, wait_time=0.2,
                                              arrival_rate=300.0)),
    ("issue 21's engineer, 18 processors", dict(processors=18, cpu_time=0.04, wait_time=0.2,
                                               arrival_rate=300.0)),
    ("the practical chapter's example", dict(EXAMPLE)),
    ("1000 clients thinking 4 s, 4 processors", dict(processors=4, cpu_time=0.01,
                                                     wait_time=0.2, clients=1000,
                                                     think_time=4.0)),
    ("256 processors, 1e5/s, pool of 1000", dict(processors=256, cpu_time=0.002,
                                                 wait_time=0.01, arrival_rate=1e5,
                                                 connections=1000)),
    ("256 processors, 1e5/s, pool of 1000, 100 ms wait",
     dict(processors=256, cpu_time=0.002, wait_time=0.1, arrival_rate=1e5, connections=1000,
          max_response_time=1.0)),
    ("256 processors, 1e5/s, pool sized (about 10^4)",
     dict(processors=256, cpu_time=0.002, wait_time=0.1, arrival_rate=1e5)),
    ("64 processors, 10^5 clients", dict(processors=64, cpu_time=0.001, wait_time=0.05,
                                         clients=100_000, think_time=1.0)),
    ("4096 processors, 1e5/s, pool sized (about 2x10^4)",
     dict(processors=4096, cpu_time=0.04, wait_time=0.2, arrival_rate=1e5)),
]


# One solve of the server (no sizing) at the brief's scale: 256 processors, 1e5 requests/s,
# 10^4 threads, a pool of 10^3 and 10^5 admitted requests at most.
SOLVES = [
    ("solve: 256 processors, 1e5/s, 10^4 threads, pool of 1000, B = 10^5",
     dict(processors=256, cpu_time=0.002, wait_time=0.1, arrival_rate=1e5, threads=10**4,
          connections=1000, capacity=10**5)),
    ("solve: 256 processors, 1e5/s, virtual threads, pool of 10^4, no bound",
     dict(processors=256, cpu_time=0.002, wait_time=0.09, arrival_rate=1e5,
          connections=10**4)),
]


# The command as a whole, in a new process each run: the engineer's 18-core service, as text
# and as JSON with the user's own settings.
COMMANDS = [
    ("command: python -m queuetune size, 18 processors",
     ["--processors", "18", "--cpu-ms", "40", "--wait-ms", "200", "--rate", "300"]),
    ("command: python -m queuetune size --json, 18 processors, your 51 threads",
     ["--processors", "18", "--cpu-ms", "40", "--wait-ms", "200", "--rate", "300",
      "--threads", "51", "--read-timeout-s", "30", "--json"]),
]


def command_seconds(args: list[str], runs: int = 3) -> tuple[float, float]:
    """The best wall time of ``python -m queuetune size ARGS`` in a new process, and the best
    processor time (user + system) of that process: on a shared machine the wall time
    includes waiting for a processor."""
    best, best_cpu = float("inf"), float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "queuetune", "size", *args], check=True,
                       capture_output=True)
        best = min(best, time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best_cpu = min(best_cpu, after.ru_utime - before.ru_utime
                       + after.ru_stime - before.ru_stime)
    return best, best_cpu


def best_of(function, kw: dict, runs: int = 3):
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        result = function(**kw)
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    rows = []
    for name, kw in CASES:
        seconds, s = best_of(sizing.size, kw)
        rows.append({"case": name, "inputs": repr(kw), "threads": s.threads,
                     "connections": s.connections, "capacity": s.capacity,
                     "seconds": f"{seconds:.4f}", "cpu_seconds": ""})
        print(f"{seconds:8.3f} s  {name}: T = {s.threads}, C = {s.connections}, "
              f"B = {s.capacity}")
    for name, kw in SOLVES:
        seconds, st = best_of(sizing.solve, kw)
        rows.append({"case": name, "inputs": repr(kw), "threads": kw.get("threads"),
                     "connections": kw.get("connections"), "capacity": kw.get("capacity"),
                     "seconds": f"{seconds:.4f}", "cpu_seconds": ""})
        print(f"{seconds:8.3f} s  {name}: X = {st.throughput:.1f}/s, "
              f"R = {st.response_time:.4f} s")
    for name, args in COMMANDS:
        seconds, cpu = command_seconds(args)
        rows.append({"case": name, "inputs": " ".join(args), "threads": None,
                     "connections": None, "capacity": None, "seconds": f"{seconds:.4f}",
                     "cpu_seconds": f"{cpu:.4f}"})
        print(f"{seconds:8.3f} s  {name} ({cpu:.3f} s of processor time)")
    RESULTS.mkdir(exist_ok=True)
    with open(RESULTS / "benchmark_sizing.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = ["# Benchmark of the sizing", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
             f"{platform.python_version()}, load average {os.getloadavg()[0]:.1f}. "
             "Each time is the best of three runs of `queuetune.sizing.size`, which sizes the "
             "settings for the headroom and solves the server at 1, 1.1, 1.5 and 2 times the "
             "peak (or, for the rows named solve, of one `queuetune.sizing.solve`; for the "
             "rows named command, of `python -m queuetune size` as a whole, in a new "
             "process, with its processor time: on a shared machine the wall time includes "
             "waiting for a processor).", "",
             "| case | threads | connections | capacity | seconds | processor seconds |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['case']} | {r['threads']} | {r['connections']} | {r['capacity']} | "
              f"{r['seconds']} | {r['cpu_seconds']} |" for r in rows]
    (RESULTS / "benchmark_sizing.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
