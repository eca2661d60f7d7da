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

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import pandas as pd
import simpy

from ... import data, stated
from ..._validation import integer, real

__all__ = [
    "DOC",
    "MAX_EXPECTED_ARRIVALS",
    "PostingRun",
    "default_setting",
    "simulate_posting",
    "stated_check_counts",
]

DOC = "iplanet-tuning"
# Keeps a run to seconds of wall-clock time.
MAX_EXPECTED_ARRIVALS = 200_000
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
    return sorted(int(stated.parse_number(v)) for v in rows["value"])


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
    out: list[tuple[float, float]] = []
    for i, pair in enumerate(phases):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise ValueError(f"phases[{i}] must be a pair (start_s, rate_per_s), got {pair!r}")
        start = real(pair[0], f"phases[{i}] start", low=0, high=horizon, high_open=True,
                     unit="s")
        rate = real(pair[1], f"phases[{i}] rate", low=0, unit="connections/s")
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

    ``phases``: ``[(start_s, rate_per_s), ...]``, the first starting at 0, starts strictly
    increasing and below ``horizon``; rates in [0, inf) connections/s.
    ``service_time``: mean request time in (0, inf) s (exponential).
    ``horizon``: simulated time in (0, inf) s.
    ``thread_increment``: ThreadIncrement, an integer in [1, inf).
    ``check_every``: connections between two posting decisions, an integer in [1, inf); by
    default the guide's 16.
    ``rq_throttle_min``, ``rq_throttle``: starting and maximum threads, integers with
    1 <= RqThrottleMin <= RqThrottle; by default the guide's 48 and 128.
    ``queue_limit``: most connections waiting, an integer in [1, inf), or None for no limit.
    ``sample_interval``: time between trace samples in (0, horizon] s (default horizon / 400;
    at most 5000 samples).
    ``seed``: an integer in [0, inf); equal seeds give equal runs.

    Expected arrivals (sum of rate x duration) are capped at 200,000 to keep runs short.
    """
    horizon = real(horizon, "horizon", low=0, low_open=True, unit="s")
    plan = _phases(phases, horizon)
    service_time = real(service_time, "service_time", low=0, low_open=True, unit="s")
    increment = integer(thread_increment, "thread_increment", low=1)
    check_every = integer(stated_check_counts()[0] if check_every is None else check_every,
                          "check_every", low=1)
    low = integer(default_setting("RqThrottleMin") if rq_throttle_min is None
                  else rq_throttle_min, "rq_throttle_min", low=1)
    high = integer(default_setting("RqThrottle") if rq_throttle is None else rq_throttle,
                   "rq_throttle", low=low)
    limit = math.inf if queue_limit is None else integer(queue_limit, "queue_limit", low=1)
    if sample_interval is None:
        sample_interval = horizon / 400
    step = real(sample_interval, "sample_interval", low=horizon / MAX_SAMPLES, high=horizon,
                unit="s")
    seed = integer(seed, "seed", low=0)

    ends = [s for s, _ in plan[1:]] + [horizon]
    expected = sum(rate * (end - start) for (start, rate), end in zip(plan, ends, strict=True))
    if expected > MAX_EXPECTED_ARRIVALS:
        raise ValueError(f"phases must expect at most {MAX_EXPECTED_ARRIVALS} arrivals before "
                         f"the horizon (runs stay short); these expect {expected:.0f}")

    seeds = random.Random(seed)
    arrival_rng = random.Random(seeds.getrandbits(64))
    service_rng = random.Random(seeds.getrandbits(64))
    env = simpy.Environment()
    queue = simpy.Store(env)
    st = {"threads": 0, "pending": 0, "prev_backlog": 0, "returned": 0, "busy": 0,
          "peak_threads": 0, "peak_queue": 0, "arrivals": 0, "dropped": 0, "served": 0}
    phase_stats = [{"arrivals": 0, "dropped": 0, "waits": [], "peak_queue": 0,
                    "threads_at_end": None} for _ in plan]
    additions: list[dict] = []
    trace: list[dict] = []

    def phase_of(t: float) -> int:
        i = 0
        while i + 1 < len(plan) and t >= plan[i + 1][0]:
            i += 1
        return i

    def note_queue() -> None:
        n = len(queue.items)
        st["peak_queue"] = max(st["peak_queue"], n)
        ps = phase_stats[phase_of(env.now)]
        ps["peak_queue"] = max(ps["peak_queue"], n)

    def add_threads(count: int) -> None:
        count = min(count, high - st["threads"])
        for _ in range(count):
            env.process(session())
        st["threads"] += count
        st["peak_threads"] = max(st["peak_threads"], st["threads"])
        if count:
            additions.append({"time": env.now, "added": count, "threads": st["threads"]})

    def decide() -> None:
        backlog = len(queue.items)
        if backlog > st["threads"]:
            st["pending"] += increment
        if (backlog - st["prev_backlog"] > increment
                and st["threads"] - backlog < increment):
            st["pending"] += increment
        st["prev_backlog"] = backlog

    def session():
        while True:
            arrived, index = yield queue.get()
            phase_stats[index]["waits"].append(env.now - arrived)
            st["returned"] += 1
            if st["returned"] % check_every == 0:
                decide()
            st["busy"] += 1
            yield env.timeout(service_rng.expovariate(1.0 / service_time))
            st["busy"] -= 1
            st["served"] += 1
            if st["pending"]:
                add_threads(st["pending"])
                st["pending"] = 0

    def arrivals():
        for index, ((start, rate), end) in enumerate(zip(plan, ends, strict=True)):
            if env.now < start:
                yield env.timeout(start - env.now)
            if rate == 0:
                yield env.timeout(end - env.now)
                continue
            while True:
                gap = arrival_rng.expovariate(rate)
                if env.now + gap >= end:
                    # Memoryless: the next phase starts its own clock at its start time.
                    yield env.timeout(end - env.now)
                    break
                yield env.timeout(gap)
                st["arrivals"] += 1
                phase_stats[index]["arrivals"] += 1
                if len(queue.items) >= limit:
                    st["dropped"] += 1
                    phase_stats[index]["dropped"] += 1
                    continue
                queue.put((env.now, index))
                note_queue()

    def sampler():
        k = 0
        while True:
            t = k * step
            if t > horizon + 1e-12:
                return
            if t > env.now:
                yield env.timeout(t - env.now)
            trace.append({"time": round(t, 9), "threads": st["threads"],
                          "queue_length": len(queue.items), "busy_threads": st["busy"]})
            k += 1

    def phase_ends():
        for i, end in enumerate(ends):
            if end > env.now:
                yield env.timeout(end - env.now)
            phase_stats[i]["threads_at_end"] = st["threads"]

    add_threads(low)
    additions.clear()  # the starting pool is not a posting
    env.process(arrivals())
    env.process(phase_ends())
    env.process(sampler())
    env.run(until=horizon + step / 2)

    phase_rows = []
    for (start, rate), end, ps in zip(plan, ends, phase_stats, strict=True):
        waits = ps["waits"]
        phase_rows.append({
            "start": start, "end": end, "rate": rate, "offered_threads": rate * service_time,
            "arrivals": ps["arrivals"], "dropped": ps["dropped"],
            "mean_wait": sum(waits) / len(waits) if waits else math.nan,
            "threads_at_end": ps["threads_at_end"], "peak_queue": ps["peak_queue"]})
    first_growth = additions[0]["time"] if additions else math.nan
    at_cap = next((a["time"] for a in additions if a["threads"] >= high), math.nan)
    summary = {
        "arrivals": st["arrivals"], "dropped": st["dropped"], "served": st["served"],
        "peak_threads": st["peak_threads"], "peak_queue": st["peak_queue"],
        "final_threads": st["threads"], "postings": len(additions),
        "first_posting_time": first_growth, "time_at_rq_throttle": at_cap,
    }
    settings = {"service_time": service_time, "horizon": horizon,
                "thread_increment": increment, "check_every": check_every,
                "rq_throttle_min": low, "rq_throttle": high, "queue_limit": limit,
                "sample_interval": step, "seed": seed}
    return PostingRun(
        trace=pd.DataFrame(trace, columns=["time", "threads", "queue_length", "busy_threads"]),
        additions=pd.DataFrame(additions, columns=["time", "added", "threads"]),
        phases=pd.DataFrame(phase_rows, columns=["start", "end", "rate", "offered_threads",
                                                 "arrivals", "dropped", "mean_wait",
                                                 "threads_at_end", "peak_queue"]),
        summary=MappingProxyType(summary),
        settings=MappingProxyType(settings),
    )
