"""The session-thread posting policy of iPlanet Web Server 6.0 (IP-C8), simulated with simpy.

The guide describes how the server grows its pool of session (request) threads:

    "acceptor threads on a listen socket accept connections and put them onto a connection
    queue. Session threads then pick up connections from the queue and service the requests.
    The session threads post more session threads if required at the end of the request."

1. Each time a connection is returned from the queue, the backlog (connections waiting) is
   compared with the number of session threads already created; if it is greater, more threads
   are scheduled to be added the next time a request completes.
2. The previous backlog is tracked; if the backlog has grown by more than ThreadIncrement and
   threads minus backlog is less than ThreadIncrement, another ThreadIncrement threads are
   scheduled.
3. Adding threads is strictly limited by RqThrottle.
4. The decision is made only once every 16 or 32 connections.

:func:`simulate_posting` runs that policy: Poisson arrivals whose rate changes in phases (a
load step), one FIFO connection queue (arrivals that find ``queue_limit`` connections waiting
are dropped), a pool that starts with RqThrottleMin threads, and exponential request times,
each request holding one thread. Rule 1 schedules ThreadIncrement threads (the text says only
"more threads"). The text describes no removal of threads, so the pool never shrinks; CPUs are
not modelled (threads do not slow each other down).

Defaults for RqThrottleMin (48) and RqThrottle (128) are the guide's stated defaults
(``directive_defaults.csv``), ``check_every`` defaults to the first of the two stated counts
(16). ThreadIncrement has no stated default and must be given.

>>> run = simulate_posting([(0.0, 200.0)], service_time=0.1, horizon=2.0, thread_increment=8)
>>> int(run.summary["peak_threads"])
48
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import pandas as pd
import simpy

from ... import data, stated
from ..._validation import MAX_INTEGER, integer, magnitude, real

__all__ = [
    "DOC",
    "MAX_EXPECTED_ARRIVALS",
    "MAX_PHASES",
    "MAX_THREADS",
    "PostingRun",
    "default_setting",
    "simulate_posting",
    "stated_check_counts",
]

DOC = "iplanet-tuning"
#: Most expected arrivals of one run (each is a few simpy events): keeps a run to seconds.
MAX_EXPECTED_ARRIVALS = 200_000
#: Largest RqThrottle simulated: every thread is a simpy process waiting on the connection
#: queue, and each connection handed out costs time in proportion to the waiting threads.
MAX_THREADS = 10_000
#: Most load phases of one run.
MAX_PHASES = 10_000
MAX_SAMPLES = 5_000


def default_setting(name: str) -> int:
    """A directive's stated default (``RqThrottle``, ``RqThrottleMin``, ...) as an int."""
    table = data.load(DOC, "directive_defaults")
    rows = table[table["setting"] == name]
    if len(rows) != 1 or pd.isna(rows["default_number"].iloc[0]):
        known = sorted(table.loc[table["default_number"].notna(), "setting"].tolist())
        raise ValueError(f"name must be a setting with a numeric stated default, one of "
                         f"{known}; got {name!r}")
    return int(rows["default_number"].iloc[0])


def stated_check_counts() -> list[int]:
    """The connection counts between two posting decisions the guide states (16 and 32)."""
    table = stated.table(DOC)
    rows = table[table["quantity"] == "thread_check_every_connections"]
    return sorted(stated.parse_count(v) for v in rows["value"])


@dataclass(frozen=True)
class PostingRun:
    """One simulated run.

    ``trace``: the state sampled every ``sample_interval`` (columns ``time``, ``threads``,
    ``queue_length``, ``busy_threads``). ``additions``: one row per posting of threads
    (``time``, ``added``, ``threads``). ``phases``: per load phase ``start``, ``end``,
    ``rate`` (connections/s), ``offered_threads`` (rate x mean request time: threads busy on
    average if none waited), ``arrivals``, ``dropped``, ``mean_wait`` (seconds in the queue of
    the connections of that phase that were served), ``threads_at_end``, ``peak_queue``.
    ``summary``: totals and exact peaks over every event (not only the samples).
    """

    trace: pd.DataFrame
    additions: pd.DataFrame
    phases: pd.DataFrame
    summary: Mapping[str, float]
    settings: Mapping[str, float]


def _phases(phases, horizon: float) -> list[tuple[float, float]]:
    if isinstance(phases, (str, bytes)) or not isinstance(phases, Sequence) or not phases:
        raise ValueError("phases must be a non-empty sequence of (start_s, rate_per_s) pairs, "
                         f"got {phases!r}")
    if len(phases) > MAX_PHASES:
        raise ValueError(f"phases must hold at most MAX_PHASES = {MAX_PHASES} pairs, got "
                         f"{len(phases)}")
    out: list[tuple[float, float]] = []
    for i, pair in enumerate(phases):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise ValueError(f"phases[{i}] must be a pair (start_s, rate_per_s), got {pair!r}")
        start = real(pair[0], f"phases[{i}] start", low=0, high=horizon, high_open=True,
                     unit="s")
        rate = magnitude(pair[1], f"phases[{i}] rate", zero=True, unit="connections/s")
        if i == 0 and start != 0:
            raise ValueError(f"phases[0] start must be 0 s, got {pair[0]!r}")
        if out and start <= out[-1][0]:
            raise ValueError(f"phases start times must increase strictly, got {phases!r}")
        out.append((start, rate))
    return out


def simulate_posting(
    phases: Sequence[tuple[float, float]],
    *,
    service_time: float,
    horizon: float,
    thread_increment: int,
    check_every: int | None = None,
    rq_throttle_min: int | None = None,
    rq_throttle: int | None = None,
    queue_limit: int | None = None,
    sample_interval: float | None = None,
    seed: int = 1,
) -> PostingRun:
    """Simulate the thread-posting policy under a piecewise-constant Poisson load.

    ``phases``: ``[(start_s, rate_per_s), ...]``, at most :data:`MAX_PHASES` pairs, the first
    starting at 0, starts strictly increasing and below ``horizon``; rates 0 or in
    [1e-100, 1e100] connections/s.
    ``service_time``: mean request time in [1e-100, 1e100] s (exponential).
    ``horizon``: simulated time in [1e-100, 1e100] s.
    ``thread_increment``: ThreadIncrement, an integer in [1, 2**53].
    ``check_every``: connections between two posting decisions, an integer in [1, 2**53]; by
    default the guide's 16.
    ``rq_throttle_min``, ``rq_throttle``: starting and maximum threads, integers with
    1 <= RqThrottleMin <= RqThrottle <= :data:`MAX_THREADS` (10,000); by default the guide's
    48 and 128.
    ``queue_limit``: most connections waiting, an integer in [1, 2**53], or None for no limit.
    ``sample_interval``: time between trace samples in (0, horizon] s (default horizon / 400;
    at most 5000 samples).
    ``seed``: an integer in [0, 2**53]; equal seeds give equal runs.

    Expected arrivals (sum of rate x duration) are capped at :data:`MAX_EXPECTED_ARRIVALS`
    (200,000) and pools at :data:`MAX_THREADS`, which keeps a run within seconds; a longer
    study is several runs (shorter horizons, lower rates, or fewer threads).
    """
    plan, settings = _settings(phases, service_time=service_time, horizon=horizon,
                               thread_increment=thread_increment, check_every=check_every,
                               rq_throttle_min=rq_throttle_min, rq_throttle=rq_throttle,
                               queue_limit=queue_limit, sample_interval=sample_interval,
                               seed=seed)
    _check_expected_arrivals(plan, settings["horizon"])
    return _PostingSimulation(plan, settings).run()


def _settings(phases, *, service_time, horizon, thread_increment, check_every, rq_throttle_min,
              rq_throttle, queue_limit, sample_interval, seed) -> tuple[list, dict]:
    """The checked phases and settings of :func:`simulate_posting`, defaults from the guide."""
    horizon = magnitude(horizon, "horizon", unit="s")
    plan = _phases(phases, horizon)
    service_time = magnitude(service_time, "service_time", unit="s")
    increment = integer(thread_increment, "thread_increment", low=1, high=MAX_INTEGER)
    check_every = integer(stated_check_counts()[0] if check_every is None else check_every,
                          "check_every", low=1, high=MAX_INTEGER)
    low = integer(default_setting("RqThrottleMin") if rq_throttle_min is None
                  else rq_throttle_min, "rq_throttle_min", low=1, high=MAX_THREADS)
    high = integer(default_setting("RqThrottle") if rq_throttle is None else rq_throttle,
                   "rq_throttle", low=low, high=MAX_THREADS)
    limit = math.inf if queue_limit is None else integer(queue_limit, "queue_limit", low=1,
                                                         high=MAX_INTEGER)
    if sample_interval is None:
        sample_interval = horizon / 400
    step = real(sample_interval, "sample_interval", low=horizon / MAX_SAMPLES, high=horizon,
                unit="s")
    seed = integer(seed, "seed", low=0, high=MAX_INTEGER)
    return plan, {"service_time": service_time, "horizon": horizon,
                  "thread_increment": increment, "check_every": check_every,
                  "rq_throttle_min": low, "rq_throttle": high, "queue_limit": limit,
                  "sample_interval": step, "seed": seed}


def _phase_ends(plan: list[tuple[float, float]], horizon: float) -> list[float]:
    return [s for s, _ in plan[1:]] + [horizon]


def _check_expected_arrivals(plan: list[tuple[float, float]], horizon: float) -> None:
    ends = _phase_ends(plan, horizon)
    expected = sum(rate * (end - start) for (start, rate), end in zip(plan, ends, strict=True))
    if expected > MAX_EXPECTED_ARRIVALS:
        raise ValueError(f"phases must expect at most {MAX_EXPECTED_ARRIVALS} arrivals before "
                         f"the horizon (runs stay short); these expect {expected:.0f}")


class _PostingSimulation:
    """One run of the thread-posting policy: the simpy processes and what they record."""

    def __init__(self, plan: list[tuple[float, float]], settings: dict) -> None:
        self.plan, self.settings = plan, settings
        self.ends = _phase_ends(plan, settings["horizon"])
        self.starts = [start for start, _ in plan]
        seeds = random.Random(settings["seed"])
        self.arrival_rng = random.Random(seeds.getrandbits(64))
        self.service_rng = random.Random(seeds.getrandbits(64))
        self.env = simpy.Environment()
        self.queue = simpy.Store(self.env)
        self.st = {"threads": 0, "pending": 0, "prev_backlog": 0, "returned": 0, "busy": 0,
                   "peak_threads": 0, "peak_queue": 0, "arrivals": 0, "dropped": 0,
                   "served": 0}
        self.phase_stats = [{"arrivals": 0, "dropped": 0, "waits": [], "peak_queue": 0,
                             "threads_at_end": None} for _ in plan]
        self.additions: list[dict] = []
        self.trace: list[dict] = []

    def phase_of(self, t: float) -> int:
        """The phase that holds time ``t``: the last whose start is not after it."""
        return bisect.bisect_right(self.starts, t) - 1

    def note_queue(self) -> None:
        n = len(self.queue.items)
        self.st["peak_queue"] = max(self.st["peak_queue"], n)
        ps = self.phase_stats[self.phase_of(self.env.now)]
        ps["peak_queue"] = max(ps["peak_queue"], n)

    def add_threads(self, count: int) -> None:
        st = self.st
        count = min(count, self.settings["rq_throttle"] - st["threads"])
        for _ in range(count):
            self.env.process(self.session())
        st["threads"] += count
        st["peak_threads"] = max(st["peak_threads"], st["threads"])
        if count:
            self.additions.append({"time": self.env.now, "added": count,
                                   "threads": st["threads"]})

    def decide(self) -> None:
        """The posting rule, applied every check_every returned connections."""
        st, increment = self.st, self.settings["thread_increment"]
        backlog = len(self.queue.items)
        if backlog > st["threads"]:
            st["pending"] += increment
        if (backlog - st["prev_backlog"] > increment
                and st["threads"] - backlog < increment):
            st["pending"] += increment
        st["prev_backlog"] = backlog

    def session(self):
        st, env = self.st, self.env
        while True:
            arrived, index = yield self.queue.get()
            self.phase_stats[index]["waits"].append(env.now - arrived)
            st["returned"] += 1
            if st["returned"] % self.settings["check_every"] == 0:
                self.decide()
            st["busy"] += 1
            yield env.timeout(self.service_rng.expovariate(1.0 / self.settings["service_time"]))
            st["busy"] -= 1
            st["served"] += 1
            if st["pending"]:
                self.add_threads(st["pending"])
                st["pending"] = 0

    def arrivals(self):
        env, st = self.env, self.st
        for index, ((start, rate), end) in enumerate(zip(self.plan, self.ends, strict=True)):
            if env.now < start:
                yield env.timeout(start - env.now)
            if rate == 0:
                yield env.timeout(end - env.now)
                continue
            while True:
                gap = self.arrival_rng.expovariate(rate)
                if env.now + gap >= end:
                    # Memoryless: the next phase starts its own clock at its start time.
                    yield env.timeout(end - env.now)
                    break
                yield env.timeout(gap)
                st["arrivals"] += 1
                self.phase_stats[index]["arrivals"] += 1
                if len(self.queue.items) >= self.settings["queue_limit"]:
                    st["dropped"] += 1
                    self.phase_stats[index]["dropped"] += 1
                    continue
                self.queue.put((env.now, index))
                self.note_queue()

    def sampler(self):
        env, step, horizon = self.env, self.settings["sample_interval"], self.settings["horizon"]
        # sample times to 1e-9 s, or to a millionth of a step for steps below a millisecond
        digits = max(9, 6 - math.floor(math.log10(step)))
        k = 0
        while True:
            t = k * step
            if t > horizon + 1e-9 * step:  # past the horizon by more than rounding
                return
            if t > env.now:
                yield env.timeout(t - env.now)
            self.trace.append({"time": round(t, digits), "threads": self.st["threads"],
                               "queue_length": len(self.queue.items),
                               "busy_threads": self.st["busy"]})
            k += 1

    def record_phase_ends(self):
        for i, end in enumerate(self.ends):
            if end > self.env.now:
                yield self.env.timeout(end - self.env.now)
            self.phase_stats[i]["threads_at_end"] = self.st["threads"]

    def run(self) -> PostingRun:
        self.add_threads(self.settings["rq_throttle_min"])
        self.additions.clear()  # the starting pool is not a posting
        self.env.process(self.arrivals())
        self.env.process(self.record_phase_ends())
        self.env.process(self.sampler())
        self.env.run(until=self.settings["horizon"] + self.settings["sample_interval"] / 2)
        return self.report()

    def report(self) -> PostingRun:
        st, high = self.st, self.settings["rq_throttle"]
        service_time = self.settings["service_time"]
        phase_rows = []
        for (start, rate), end, ps in zip(self.plan, self.ends, self.phase_stats, strict=True):
            waits = ps["waits"]
            phase_rows.append({
                "start": start, "end": end, "rate": rate,
                "offered_threads": rate * service_time,
                "arrivals": ps["arrivals"], "dropped": ps["dropped"],
                "mean_wait": sum(waits) / len(waits) if waits else math.nan,
                "threads_at_end": ps["threads_at_end"], "peak_queue": ps["peak_queue"]})
        first_growth = self.additions[0]["time"] if self.additions else math.nan
        at_cap = next((a["time"] for a in self.additions if a["threads"] >= high), math.nan)
        summary = {
            "arrivals": st["arrivals"], "dropped": st["dropped"], "served": st["served"],
            "peak_threads": st["peak_threads"], "peak_queue": st["peak_queue"],
            "final_threads": st["threads"], "postings": len(self.additions),
            "first_posting_time": first_growth, "time_at_rq_throttle": at_cap,
        }
        return PostingRun(
            trace=pd.DataFrame(self.trace,
                               columns=["time", "threads", "queue_length", "busy_threads"]),
            additions=pd.DataFrame(self.additions, columns=["time", "added", "threads"]),
            phases=pd.DataFrame(phase_rows, columns=["start", "end", "rate", "offered_threads",
                                                     "arrivals", "dropped", "mean_wait",
                                                     "threads_at_end", "peak_queue"]),
            summary=MappingProxyType(summary),
            settings=MappingProxyType(dict(self.settings)),
        )
