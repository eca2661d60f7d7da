"""Processor time of the server, the load generator and each core, sampled during a run.

A background thread reads cumulative processor times (``psutil``) four times a second, with
the wall-clock time of each reading. After the run, :meth:`CpuMonitor.share` gives the share of
one core a process group used over any interval (the measurement window), interpolating
between readings.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np
import psutil

__all__ = ["CpuMonitor"]


def _process_seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            times = psutil.Process(pid).cpu_times()
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
        total += times.user + times.system
    return total


def _core_busy_seconds() -> list[float]:
    return [t.user + t.nice + t.system + t.irq + t.softirq + t.steal
            for t in psutil.cpu_times(percpu=True)]


class CpuMonitor:
    """Samples ``groups`` (name -> function giving the group's PIDs now) and every core."""

    def __init__(self, groups: dict[str, Callable[[], list[int]]], interval_s: float = 0.25):
        self.groups = groups
        self.interval_s = interval_s
        self.times: list[float] = []
        self.values: dict[str, list[float]] = {name: [] for name in groups}
        self.cores: list[list[float]] = []
        self._last: dict[str, dict[int, float]] = {name: {} for name in groups}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="queuetune-cpu", daemon=True)

    def __enter__(self) -> CpuMonitor:
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._sample()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._sample()

    def _group_seconds(self, name: str) -> float:
        """Cumulative seconds of a group, keeping the last reading of processes that ended."""
        last = self._last[name]
        for pid in self.groups[name]():
            seconds = _process_seconds([pid])
            if seconds or pid not in last:
                last[pid] = seconds
        return sum(last.values())

    def _sample(self) -> None:
        now = time.time()
        readings = {name: self._group_seconds(name) for name in self.groups}
        cores = _core_busy_seconds()
        self.times.append(now)
        for name, seconds in readings.items():
            self.values[name].append(seconds)
        self.cores.append(cores)

    def _interpolate(self, series: list[float], at: float) -> float:
        return float(np.interp(at, self.times, series))

    def share(self, name: str, start: float, end: float) -> float:
        """Share of one core that group ``name`` used between two wall-clock times."""
        if end <= start or len(self.times) < 2:
            return float("nan")
        used = (self._interpolate(self.values[name], end)
                - self._interpolate(self.values[name], start))
        return used / (end - start)

    def core_share(self, core: int, start: float, end: float) -> float:
        """Share of time core ``core`` was busy (with anything) between two times."""
        if end <= start or len(self.times) < 2:
            return float("nan")
        series = [row[core] for row in self.cores]
        return (self._interpolate(series, end) - self._interpolate(series, start)) / (end - start)
