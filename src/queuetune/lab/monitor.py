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


def _core_seconds() -> tuple[list[float], list[float]]:
    """Per core: cumulative busy seconds (steal excluded) and stolen seconds."""
    times = psutil.cpu_times(percpu=True)
    busy = [t.user + t.nice + t.system + t.irq + t.softirq for t in times]
    steal = [getattr(t, "steal", 0.0) for t in times]
    return busy, steal


class CpuMonitor:
    """Samples ``groups`` (name -> function giving the group's PIDs now) and every core."""

    def __init__(self, groups: dict[str, Callable[[], list[int]]], interval_s: float = 0.25):
        self.groups = groups
        self.interval_s = interval_s
        self.times: list[float] = []
        self.values: dict[str, list[float]] = {name: [] for name in groups}
        self.cores: list[list[float]] = []
        self.steal: list[list[float]] = []
        self._last: dict[str, dict[int, float]] = {name: {} for name in groups}
        self._lock = threading.Lock()
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

    def sample(self) -> None:
        """Take one reading now (at the end of a measurement, before the group ends)."""
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
        with self._lock:
            now = time.time()
            readings = {name: self._group_seconds(name) for name in list(self.groups)}
            cores, steal = _core_seconds()
            self.times.append(now)
            for name, seconds in readings.items():
                self.values[name].append(seconds)
            self.cores.append(cores)
            self.steal.append(steal)

    def _interpolate(self, series: list[float], at: float) -> float:
        """``series`` at time ``at``, over the samples both it and the clock hold: the sampling
        thread appends the time before the readings, so a reader between the two sees one
        time more than readings (a campaign once stopped on that race)."""
        with self._lock:
            n = min(len(self.times), len(series))
            times = self.times[:n]
        return float(np.interp(at, times, series[:n]))

    def share(self, name: str, start: float, end: float) -> float:
        """Share of one core that group ``name`` used between two wall-clock times."""
        if end <= start or len(self.times) < 2:
            return float("nan")
        used = (self._interpolate(self.values[name], end)
                - self._interpolate(self.values[name], start))
        return used / (end - start)

    def add_group(self, name: str, pids: Callable[[], list[int]]) -> None:
        """Sample one more process group from now on (before the monitor starts, best)."""
        with self._lock:
            self._last[name] = {}
            self.values[name] = [0.0] * len(self.times)
            self.groups[name] = pids

    def core_share(self, core: int, start: float, end: float, *, steal: bool = False
                   ) -> float:
        """Share of time core ``core`` was busy (with anything; steal time excluded) between
        two times, or, with ``steal``, the share the hypervisor stole from it."""
        if end <= start or len(self.times) < 2:
            return float("nan")
        series = [row[core] for row in (self.steal if steal else self.cores)]
        return (self._interpolate(series, end) - self._interpolate(series, start)) / (end - start)

    def cores_share(self, cores: tuple[int, ...], start: float, end: float, *,
                    steal: bool = False) -> float:
        """The mean of :meth:`core_share` over ``cores``."""
        if not cores:
            return float("nan")
        return float(np.mean([self.core_share(c, start, end, steal=steal) for c in cores]))
