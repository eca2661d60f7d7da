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

from .records import Field, Table

__all__ = ["CpuMonitor", "per_answer_ms", "thread_cpu_ms", "run_samples", "SAMPLES_TABLE",
           "run_access", "ACCESS_TABLE"]

#: The tables of a data set that stores them (an experiment puts them in its ``TABLES``): the
#: server's access log per run (:func:`run_access`) and the monitor's raw readings
#: (:func:`run_samples`).
ACCESS_TABLE = Table("access.csv.gz", "Tomcat's access log, one row per answered request of "
                     "each run (issue 31: the server's own times and threads)", (
    Field("run", "integer", "Run number"),
    Field("line", "integer", "Line of the server's access log (0: its first)"),
    Field("begin_s", "number", "When Tomcat began the request, from the run's start "
                               "(the same clock as the requests' start_s)", "s"),
    Field("status", "integer", "HTTP status Tomcat sent (%s)"),
    Field("server_us", "integer", "Time Tomcat took to process the request (%D)", "us"),
    Field("commit_ms", "integer", "Time to commit the answer (%F)", "ms"),
    Field("bytes", "integer", "Bytes of the body (%B)", "bytes"),
    Field("thread", "string", "The thread that answered (%I)"),
))
SAMPLES_TABLE = Table("cpu_samples.csv.gz", "The monitor's raw readings over each run "
                      "(four a second): cumulative processor seconds", (
    Field("run", "integer", "Run number"),
    Field("t_s", "number", "When it was read, from the run's start", "s"),
    Field("series", "string", "server or generator (their processes' processor "
                              "seconds), coreN (core N's busy seconds) or stealN (its "
                              "stolen seconds)"),
    Field("seconds", "number", "The cumulative seconds read", "s"),
))


def run_samples(monitor: CpuMonitor, t0_epoch: float, end_epoch: float, *,
                cores: tuple[int, ...] = ()) -> list[dict]:
    """A run's raw readings (:meth:`CpuMonitor.samples` from its start ``t0_epoch`` to
    ``end_epoch``), times in seconds from the run's start, as its requests' are."""
    return [{"t_s": round(r["epoch_s"] - t0_epoch, 4), "series": r["series"],
             "seconds": r["seconds"]}
            for r in monitor.samples(t0_epoch, end_epoch, cores=cores)]


def run_access(records: list[dict], t0_epoch: float) -> list[dict]:
    """A run's access log lines (``Tomcat.access_records``) with the request's start in
    seconds from the run's start (empty where the log does not give it).

    >>> row = run_access([{"line": 3, "status": 200, "server_us": 14200, "bytes": 2048,
    ...                    "begin_epoch_ms": 1000500, "commit_ms": 14, "thread": "exec-1"}],
    ...                  1000.0)[0]
    >>> row["begin_s"], row["thread"]
    (0.5, 'exec-1')
    """
    return [{"line": r["line"],
             "begin_s": (round(r["begin_epoch_ms"] / 1000 - t0_epoch, 3)
                         if r["begin_epoch_ms"] is not None else None),
             "status": r["status"], "server_us": r["server_us"], "commit_ms": r["commit_ms"],
             "bytes": r["bytes"], "thread": r["thread"]} for r in records]


def per_answer_ms(share: float | None, seconds: float, answers: int) -> float | None:
    """A process group's whole processor time per answer, in ms, by the utilization law
    D = U / X: its share of one core ``share`` over a window of ``seconds`` in which it gave
    ``answers`` answers (None when it gave none or the share is unknown).

    >>> per_answer_ms(0.73, 20.0, 1000)
    14.6
    """
    if share is None or share != share or answers <= 0 or seconds <= 0:
        return None
    return share * seconds / answers * 1000


def thread_cpu_ms(rows: list[dict], start_s: float, end_s: float, *,
                  column: str = "server_cpu_us") -> float | None:
    """The mean processor time the answering threads reported (``column``, in microseconds)
    over the answered requests sent in the window, in ms (None when none reported one).

    >>> rows = [{"start_s": "1.0", "outcome": "ok", "server_cpu_us": "14000"},
    ...         {"start_s": "2.0", "outcome": "ok", "server_cpu_us": "14500"},
    ...         {"start_s": "2.5", "outcome": "closed", "server_cpu_us": ""},
    ...         {"start_s": "9.0", "outcome": "ok", "server_cpu_us": "99000"}]
    >>> thread_cpu_ms(rows, 0.0, 5.0)
    14.25
    """
    values = [float(r[column]) for r in rows
              if start_s <= float(r["start_s"]) < end_s and r["outcome"] == "ok"
              and r.get(column) not in (None, "")]
    return sum(values) / len(values) / 1000 if values else None


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

    def samples(self, start: float, end: float, *, cores: tuple[int, ...] = ()
                ) -> list[dict]:
        """The raw readings taken between two wall-clock times, long: one row per reading
        and series (each group's cumulative processor seconds, and for each of ``cores`` its
        cumulative busy and stolen seconds), times in epoch seconds."""
        with self._lock:
            n = min([len(self.times), *(len(v) for v in self.values.values())])
            rows = []
            for i in range(n):
                at = self.times[i]
                if not start <= at <= end:
                    continue
                for name, series in self.values.items():
                    rows.append({"epoch_s": round(at, 4), "series": name,
                                 "seconds": round(series[i], 4)})
                for core in cores:
                    rows.append({"epoch_s": round(at, 4), "series": f"core{core}",
                                 "seconds": round(self.cores[i][core], 3)})
                    rows.append({"epoch_s": round(at, 4), "series": f"steal{core}",
                                 "seconds": round(self.steal[i][core], 3)})
        return rows

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
