"""Discrete-event simulation of the book's queueing models of a server.

An independent check on the analytic models: the same systems are simulated event by event
(an event list ordered as ``simpy``'s, in which this simulation was first written), over
independent replications, and every metric comes with a Student-t confidence interval.

* :func:`simulate_mm1bk` - M/M/1/B/K: ``clients`` clients think, then send a request to one
  exponential server that admits at most ``capacity`` requests; an arrival finding the system
  full is dropped and its client thinks again.
* :func:`simulate_thread_pool` - the server with threads, processors and a pool of
  connections. At most B requests are admitted (waiting for a thread or holding one); a request
  that finds B admitted is refused (a closed client thinks again, an open arrival is lost). An
  admitted request takes a free thread or waits for one, first come first served. It then
  needs its processor time (mean s_c, exponential, processor sharing over p processors: with c
  requests in that phase they complete at rate min(c, p)/s_c), and then waits (mean s_w,
  exponential, no processor) while its thread holds one of C connections; a thread that finds
  no free connection waits for one, first come first served, holding its thread and no
  processor. The workload is closed (``clients`` with ``think_time``) or open (Poisson
  arrivals at ``arrival_rate``); ``threads=None`` removes the thread limit (virtual threads)
  and ``connections=None`` the pool.
* :func:`simulate_fleet` - ``instances`` such servers behind a balancer that sends each request
  to one at random, sharing a processor-sharing database (``db_processors``, ``db_time``,
  ``db_contention``) that a request uses after taking its connection and before its wait.

Every count (``clients``, ``capacity``, ``threads``, ``processors``, ``connections``,
``arrival_rate``) and every other argument is passed by keyword. All times (``service_time``,
``think_time``, ``horizon``, ...) share one unit, e.g. seconds; the model's times lie in the
range the analytic models accept (:data:`TIME_RANGE`). Each replication runs from an empty
system with every client thinking, discards the warm-up ``[0, warmup)`` and measures over
``[warmup, horizon)``. A simulation takes as long as its horizon asks: its time is estimated
first (the request rate times the horizon and the replications, at about 10 to 30 us per
request, plus 20 us per client and replication) and a call above :data:`MAX_SECONDS` is
refused, naming the way out.

>>> r = simulate_mm1bk(clients=10, capacity=50, service_time=0.14, think_time=4.0,
...                    replications=3, horizon=300.0, warmup=50.0)
>>> sorted(r.estimate) == sorted(MM1BK_METRICS)
True
>>> r = simulate_thread_pool(arrival_rate=20.0, capacity=100, threads=None, processors=4,
...                          connections=5, cpu_time=0.1, wait_time=0.2,
...                          replications=3, horizon=300.0, warmup=50.0)
>>> r.metrics == THREAD_POOL_METRICS + CONNECTION_METRICS
True
"""

from __future__ import annotations

import itertools
import math
import random
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from heapq import heappop, heappush
from types import MappingProxyType

import numpy as np
import pandas as pd
from scipy import stats

from ._validation import as_nonnegative, as_positive, as_scalar_integer, as_time
from .models import mm1bk, thread_pool
from .models.single_server import TIME_RANGE

__all__ = [
    "MM1BK_METRICS",
    "THREAD_POOL_METRICS",
    "CONNECTION_METRICS",
    "PERCENTILE_METRICS",
    "FLEET_METRICS",
    "MAX_SECONDS",
    "TIME_RANGE",
    "SimulationResult",
    "simulate_mm1bk",
    "simulate_thread_pool",
    "simulate_fleet",
]

MM1BK_METRICS = (
    "throughput",
    "response_time",
    "utilization",
    "mean_in_system",
    "error_rate",
    "rejection_probability",
)
THREAD_POOL_METRICS = MM1BK_METRICS + ("busy_threads", "queue_length", "queue_wait")
#: Metrics added with a pool of connections: connections held, threads waiting for one, and
#: their mean wait (zero for those that get one at once).
CONNECTION_METRICS = ("busy_connections", "connection_queue_length", "connection_wait")
#: Metrics added with ``percentiles=True``: the median, 95th and 99th percentiles of the
#: response time of the requests admitted and completed in the window (each replication's
#: empirical quantile; the interval is Student's over the replications, like every metric).
PERCENTILE_METRICS = ("response_time_p50", "response_time_p95", "response_time_p99")

CONFIDENCE = 0.95
# Slack for floating-point rounding when an exact value meets a zero-width interval, e.g. an
# analytic utilization of 0.9999999999999961 against a server that was never idle.
ROUNDING = 1e-9

DEFAULT_HORIZON = 2_000.0
DEFAULT_WARMUP = 200.0
DEFAULT_REPLICATIONS = 10
#: Largest estimated time of one call (seconds on a 2-core machine).
MAX_SECONDS = 120.0
# Measured costs (seconds, 2 cores): per request sent, per client and replication. Measured on
# simpy's event loop; this module's own event list takes about half of that or less, and the
# estimates are kept so that the same calls are refused.
_PER_REQUEST = {"mm1bk": 8e-6, "thread_pool": 2e-5, "thread_pool_connections": 3e-5}
_PER_CLIENT = 2e-5


# --------------------------------------------------------------------------- result


@dataclass(frozen=True)
class SimulationResult:
    """Replication means of each metric with a two-sided Student-t confidence interval.

    ``estimate``, ``ci_low`` and ``ci_high`` map a metric name to a float; ``samples`` maps it
    to the per-replication values the interval was computed from.
    """

    model: str
    parameters: Mapping[str, float]
    metrics: tuple[str, ...]
    estimate: Mapping[str, float]
    ci_low: Mapping[str, float]
    ci_high: Mapping[str, float]
    samples: Mapping[str, tuple[float, ...]]
    replications: int
    confidence: float = CONFIDENCE

    def half_width(self, name: str) -> float:
        """Half the width of the confidence interval of ``name``."""
        self._check_metric(name)
        return (self.ci_high[name] - self.ci_low[name]) / 2.0

    def contains(self, name: str, value: float) -> bool:
        """Whether ``value`` lies in the closed confidence interval of ``name``.

        The interval is widened by :data:`ROUNDING` (relative to ``max(1, |value|)``) only.
        """
        self._check_metric(name)
        slack = ROUNDING * max(1.0, abs(value))
        return bool(self.ci_low[name] - slack <= value <= self.ci_high[name] + slack)

    def to_frame(self) -> pd.DataFrame:
        """Tidy table: metric, estimate, ci_low, ci_high, half_width, replications."""
        return pd.DataFrame(
            {
                "metric": list(self.metrics),
                "estimate": [self.estimate[m] for m in self.metrics],
                "ci_low": [self.ci_low[m] for m in self.metrics],
                "ci_high": [self.ci_high[m] for m in self.metrics],
                "half_width": [self.half_width(m) for m in self.metrics],
                "replications": self.replications,
            }
        )

    def _check_metric(self, name: str) -> None:
        if name not in self.estimate:
            raise ValueError(f"unknown metric {name!r}; available metrics: {list(self.metrics)}")


def _confidence_interval(values: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """Mean and Student-t interval of independent replication values."""
    n = len(values)
    mean = float(np.mean(values))
    if not np.all(np.isfinite(values)):
        return mean, math.nan, math.nan
    sd = float(np.std(values, ddof=1))
    half = float(stats.t.ppf(0.5 + confidence / 2.0, n - 1)) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def _summarize(
    model: str,
    parameters: dict[str, float],
    metrics: tuple[str, ...],
    runs: list[dict[str, float]],
) -> SimulationResult:
    estimate, low, high, samples = {}, {}, {}, {}
    for name in metrics:
        values = np.array([run[name] for run in runs], dtype=float)
        estimate[name], low[name], high[name] = _confidence_interval(values, CONFIDENCE)
        samples[name] = tuple(float(v) for v in values)
    return SimulationResult(
        model=model,
        parameters=MappingProxyType(dict(parameters)),
        metrics=metrics,
        estimate=MappingProxyType(estimate),
        ci_low=MappingProxyType(low),
        ci_high=MappingProxyType(high),
        samples=MappingProxyType(samples),
        replications=len(runs),
    )


def _replication_streams(seed: int, replications: int) -> Iterator[random.Random]:
    """One independent random stream per replication, spawned from ``seed``."""
    for child in np.random.SeedSequence(seed).spawn(replications):
        words = child.generate_state(4, dtype=np.uint64)
        yield random.Random(int.from_bytes(words.tobytes(), "little"))


# --------------------------------------------------------------------------- input checks


def _positive(value: object, name: str) -> float:
    return _scalar(as_positive(value, name), name, "a finite number > 0")


def _nonnegative(value: object, name: str) -> float:
    return _scalar(as_nonnegative(value, name), name, "a finite number >= 0")


def _time(value: object, name: str, zero: bool = False) -> float:
    return _scalar(as_time(value, name, TIME_RANGE, zero=zero), name, "a number in range")


def _check_work(model: str, clients: int, replications: int, horizon: float,
                rate: Callable[[], float], load: str = "clients") -> None:
    """Refuse a call whose estimated time exceeds MAX_SECONDS (``rate`` gives the requests
    sent per unit time; it is asked only once the clients alone fit). ``load`` names what sets
    the rate: ``clients``, or ``arrival_rate`` for an open workload."""
    seconds = replications * clients * _PER_CLIENT
    if seconds <= MAX_SECONDS:
        seconds += replications * horizon * rate() * _PER_REQUEST[model]
    if seconds > MAX_SECONDS:
        fewer = "fewer clients" if load == "clients" else "a lower arrival_rate"
        raise ValueError(
            f"horizon, replications and {load} must keep the simulation within "
            f"MAX_SECONDS = {MAX_SECONDS:g} s; these ask for about {seconds:.3g} s (fewer "
            f"replications, a shorter horizon or {fewer})"
        )


def _scalar(values: np.ndarray, name: str, allowed: str) -> float:
    if values.ndim != 0:
        raise ValueError(f"{name} must be a single {allowed[2:]}, got shape {values.shape}")
    return float(values)


def _check_run_length(horizon: object, warmup: object, replications: object, seed: object):
    horizon = _positive(horizon, "horizon")
    warmup = _nonnegative(warmup, "warmup")
    if warmup >= horizon:
        raise ValueError(f"warmup must be in [0, horizon = {horizon:g}), got {warmup!r}")
    replications = as_scalar_integer(replications, "replications", minimum=2)
    seed = as_scalar_integer(seed, "seed", minimum=0)
    return horizon, warmup, replications, seed


# --------------------------------------------------------------------------- shared machinery

# The event list is written here rather than taken from simpy (which this module used before):
# simpy's generic events, processes and resources cost several microseconds each, most of a
# simulation's time; this list keeps simpy's order of events exactly (by time, then priority,
# then the order in which they were scheduled), so a seed draws the same numbers in the same
# order and gives the same results, in a fraction of the time.
_URGENT = 0  # a process starting: before the other events due at its time (simpy's Initialize)
_NORMAL = 1  # every other event


class _Events:
    """The event list of one replication: actions run in the order of simpy's event queue.

    A process is a generator. It yields a delay (a float) to sleep that long, or ``None``
    after asking a :class:`_Slots` or a :class:`_ProcessorSharingCPU` to wake it (it is the
    :attr:`active` process while it runs). A process woken, or started, runs after the events
    already due at the same time, as a simpy event succeeding does.
    """

    __slots__ = ("now", "active", "_queue", "_order")

    def __init__(self):
        self.now = 0.0
        self.active = None  # the process running
        self._queue: list[tuple] = []
        self._order = itertools.count()

    def call(self, delay: float, action: Callable[[object], None], argument: object,
             priority: int = _NORMAL) -> None:
        """Run ``action(argument)`` ``delay`` after now."""
        heappush(self._queue, (self.now + delay, priority, next(self._order), action, argument))

    def start(self, process: Iterator) -> None:
        """Start ``process`` now, before the other events due now."""
        heappush(self._queue, (self.now + 0, _URGENT, next(self._order), self.resume, process))

    def wake(self, process: Iterator) -> None:
        """Resume ``process`` after the events already due now."""
        heappush(self._queue, (self.now + 0, _NORMAL, next(self._order), self.resume, process))

    def resume(self, process: Iterator) -> None:
        """Run ``process`` to its next ``yield``: sleep for the delay it yields."""
        self.active = process
        delay = next(process, None)
        if delay is not None:
            heappush(self._queue,
                     (self.now + delay, _NORMAL, next(self._order), self.resume, process))

    def run(self, until: float) -> None:
        """Run every action due before ``until``; the clock then reads ``until``."""
        queue = self._queue
        while queue and queue[0][0] < until:
            self.now, _, _, action, argument = heappop(queue)
            action(argument)
        self.now = until


class _Slots:
    """``capacity`` slots (threads, processors, connections) granted first come first served,
    as ``simpy.Resource`` grants them: a request is granted at once if a slot is free; a
    release frees the slot at once and, after the events already due, hands it to the first
    request waiting if a slot is still free."""

    __slots__ = ("events", "capacity", "users", "waiting")

    def __init__(self, events: _Events, capacity: int):
        self.events = events
        self.capacity = capacity
        self.users = 0
        self.waiting: deque = deque()

    def request(self) -> None:
        """Queue the active process for a slot; it is woken once granted (it yields None)."""
        self.waiting.append(self.events.active)
        self._grant()

    def release(self) -> None:
        self.users -= 1
        self.events.call(0, self._grant, None)

    def _grant(self, _unused: object = None) -> None:
        if self.users < self.capacity and self.waiting:
            self.users += 1
            self.events.wake(self.waiting.popleft())


class _Window:
    """Counts and time integrals of the system state over the window [warmup, horizon).

    ``levels`` names the state levels integrated, in the order of :attr:`areas` (to which a
    model adds each level times :meth:`elapsed` before a change of its state).
    """

    def __init__(self, events: _Events, warmup: float, horizon: float,
                 levels: tuple[str, ...]):
        self.events = events
        self.warmup = warmup
        self.length = horizon - warmup
        self.index = {name: i for i, name in enumerate(levels)}
        self.areas = [0.0] * len(levels)
        self.counts: defaultdict[str, float] = defaultdict(float)  # read with get
        self.last = 0.0  # the time of the latest mark

    def count(self, name: str, amount: float = 1.0) -> None:
        if self.events.now >= self.warmup:
            self.counts[name] += amount

    def elapsed(self) -> float:
        """The time within the window since the previous call, over which the state since then
        is to be credited to :attr:`areas` if it is > 0 (call before a change)."""
        now = self.events.now
        warmup = self.warmup
        last = self.last
        self.last = now
        return (now if now > warmup else warmup) - (last if last > warmup else warmup)

    def time_average(self, name: str) -> float:
        return self.areas[self.index[name]] / self.length

    def rate(self, name: str) -> float:
        return self.counts.get(name, 0.0) / self.length

    def ratio(self, numerator: str, denominator: str) -> float:
        total = self.counts.get(denominator, 0.0)
        return self.counts.get(numerator, 0.0) / total if total else math.nan


class _ProcessorSharingCPU:
    """``servers`` processors shared equally by their jobs, at a speed that may change with the
    system state.

    Each job brings an amount of work; each processor does ``speed()`` units of work per unit
    time, and the ``min(c, servers)`` busy processors' work is split equally among the ``c``
    jobs present. On every arrival, departure or speed change the
    remaining work of each job is brought up to date and the next departure is re-scheduled;
    a departure scheduled before the latest change is stale and ignored.
    """

    def __init__(self, events: _Events, speed: Callable[[], float], servers: int = 1):
        self.events = events
        self._speed = speed
        self.servers = servers
        self._remaining: dict[Iterator, float] = {}
        self._share = 0.0
        self._last = 0.0
        self._generation = 0
        self._next: Iterator | None = None  # the job the latest departure scheduled is for

    def serve(self, work: float) -> None:
        """Take ``work`` units of work for the active process, which is woken when they are
        done (it yields None)."""
        self._advance()
        self._remaining[self.events.active] = work
        self._reschedule()

    def speed_changed(self) -> None:
        self._advance()
        self._reschedule()

    def _advance(self) -> None:
        now = self.events.now
        done = (now - self._last) * self._share
        if done > 0:
            remaining = self._remaining
            for job in remaining:
                remaining[job] -= done
        self._last = now

    def _reschedule(self) -> None:
        self._generation += 1
        remaining = self._remaining
        if not remaining:
            self._share = 0.0
            return
        jobs = len(remaining)
        self._share = share = self._speed() * min(jobs, self.servers) / jobs
        self._next = job = min(remaining, key=remaining.__getitem__)
        work = remaining[job]
        self.events.call((work if work > 0.0 else 0.0) / share, self._finish, self._generation)

    def _finish(self, generation: int) -> None:
        if generation != self._generation:
            return
        self._advance()
        job = self._next
        del self._remaining[job]
        self.events.wake(job)
        self._reschedule()


# --------------------------------------------------------------------------- the workload


class _Replication:
    """One replication of a server that admits at most ``capacity`` requests; a request that
    finds it full is refused.

    The workload is closed (``clients`` think for ``think_time`` on average, exponential, then
    send a request; a refused client thinks again; ``think_time = 0`` sends again at once) or
    open (Poisson arrivals at ``arrival_rate``; a refused arrival is lost). A subclass models
    the server: :meth:`_serve` holds an admitted request until it leaves, :meth:`_credit`
    integrates the state levels named :attr:`LEVELS` (``n`` and ``full`` first, then at least
    ``server_busy``, whose time average is the utilization) and :meth:`run` may add metrics to
    the common ones.
    """

    LEVELS: tuple[str, ...] = ("n", "full", "server_busy")

    def __init__(
        self,
        capacity: int,
        warmup: float,
        horizon: float,
        rng: random.Random,
        clients: int | None = None,
        think_time: float | None = None,
        arrival_rate: float | None = None,
    ):
        self.events = _Events()
        self.window = _Window(self.events, warmup, horizon, self.LEVELS)
        self.clients = clients
        self.capacity = capacity
        self.think_rate = 1.0 / think_time if think_time else math.inf
        self.arrival_rate = arrival_rate
        self.rng = rng
        self.in_system = 0
        self.responses: list[float] = []  # response times completed in the window

    def _credit(self, areas: list[float], elapsed: float) -> None:
        """Add each state level named in :attr:`LEVELS` times ``elapsed`` to its area (one
        statement per level: the hottest code of the simulation)."""
        raise NotImplementedError

    def _serve(self, arrival: float) -> Iterator[float | None]:
        """Hold an admitted request (arrived at ``arrival``) until it leaves: the last step
        marks the state and takes the request out of ``in_system``."""
        raise NotImplementedError

    def _mark(self) -> None:
        """Credit the state since the previous mark up to now: call before a change."""
        window = self.window
        if self.events.now != window.last:  # else nothing to credit
            elapsed = window.elapsed()
            if elapsed > 0:
                self._credit(window.areas, elapsed)

    def _admitted(self) -> bool:
        """Count an arrival now; admit it (True) unless the server is full."""
        self.window.count("arrivals")
        if self.in_system >= self.capacity:
            self.window.count("dropped")
            return False
        self._mark()
        self.in_system += 1
        return True

    def _request(self, arrival: float) -> Iterator[float | None]:
        yield from self._serve(arrival)
        self._complete(arrival)

    def _complete(self, arrival: float) -> None:
        """Count a request (arrived at ``arrival``) that leaves now."""
        now = self.events.now
        self.window.count("completed")
        self.window.count("response", now - arrival)
        if now >= self.window.warmup:
            self.responses.append(now - arrival)

    def _think(self) -> float:
        if self.think_rate == math.inf:  # a batch population sends again at once
            return 0.0
        return self.rng.expovariate(self.think_rate)

    def _client(self) -> Iterator[float | None]:
        events = self.events
        while True:
            yield self._think()
            arrival = events.now
            if self._admitted():
                yield from self._serve(arrival)  # not _request: one generator less to resume
                self._complete(arrival)

    def _arrivals(self) -> Iterator[float | None]:
        events, expovariate, rate = self.events, self.rng.expovariate, self.arrival_rate
        while True:
            yield expovariate(rate)
            if self._admitted():
                events.start(self._request(events.now))

    def run(self, horizon: float) -> dict[str, float]:
        """Start the workload, run to ``horizon`` and return the metrics of the window."""
        if self.arrival_rate is None:
            for _ in range(self.clients):
                self.events.start(self._client())
        else:
            self.events.start(self._arrivals())
        self.events.run(until=horizon)
        self._mark()
        w = self.window
        return {
            "throughput": w.rate("completed"),
            "response_time": w.ratio("response", "completed"),
            "utilization": w.time_average("server_busy"),
            "mean_in_system": w.time_average("n"),
            "error_rate": w.time_average("full"),
            "rejection_probability": w.ratio("dropped", "arrivals"),
            **_response_percentiles(self.responses),
        }


def _response_percentiles(responses: list[float]) -> dict[str, float]:
    """The empirical quantiles of :data:`PERCENTILE_METRICS` (NaN without a response)."""
    if not responses:
        return dict.fromkeys(PERCENTILE_METRICS, math.nan)
    values = np.quantile(np.asarray(responses), [0.5, 0.95, 0.99])
    return dict(zip(PERCENTILE_METRICS, (float(v) for v in values), strict=True))


def _replicate(
    name: str,
    replication: type[_Replication],
    model: dict[str, float],
    metrics: tuple[str, ...],
    horizon: float,
    warmup: float,
    replications: int,
    seed: int,
) -> SimulationResult:
    """Run ``replication(**model)`` once per random stream spawned from ``seed`` and summarize
    ``metrics``; the result's parameters are the model's and the run length's."""
    runs = [
        replication(**model, warmup=warmup, horizon=horizon, rng=rng).run(horizon)
        for rng in _replication_streams(seed, replications)
    ]
    for i, run in enumerate(runs):
        undefined = [name for name in metrics if not math.isfinite(run[name])]
        if undefined:
            raise ValueError(
                f"horizon must leave a measurement window (horizon - warmup = "
                f"{horizon - warmup:g}) long enough for every metric: in replication {i + 1} of "
                f"{replications} nothing was counted for {', '.join(undefined)}; use a longer "
                "horizon"
            )
    parameters = {**model, "horizon": horizon, "warmup": warmup, "seed": seed}
    return _summarize(name, parameters, metrics, runs)


# --------------------------------------------------------------------------- M/M/1/B/K

class _MM1BKReplication(_Replication):
    def __init__(self, clients, capacity, service_time, think_time, warmup, horizon, rng):
        super().__init__(capacity, warmup, horizon, rng, clients=clients, think_time=think_time)
        self.service_rate = 1.0 / service_time
        self.server = _Slots(self.events, capacity=1)

    def _credit(self, areas: list[float], elapsed: float) -> None:
        n = self.in_system
        areas[0] += n * elapsed  # n
        areas[1] += float(n >= self.capacity) * elapsed  # full
        areas[2] += float(n > 0) * elapsed  # server_busy

    def _serve(self, arrival: float) -> Iterator[float | None]:
        self.server.request()
        yield None
        yield self.rng.expovariate(self.service_rate)
        self.server.release()
        self._mark()
        self.in_system -= 1


def simulate_mm1bk(
    *,
    clients: int,
    capacity: int,
    service_time: float,
    think_time: float,
    horizon: float = DEFAULT_HORIZON,
    warmup: float = DEFAULT_WARMUP,
    replications: int = DEFAULT_REPLICATIONS,
    seed: int = 0,
) -> SimulationResult:
    """Simulate the M/M/1/B/K closed loop; metrics as in :data:`MM1BK_METRICS`.

    ``throughput`` counts completed requests per unit time, ``response_time`` is their mean
    time in system, ``utilization`` the fraction of time the server is busy, ``mean_in_system``
    the time-average number of requests in the system, ``error_rate`` the fraction of time the
    system is full and ``rejection_probability`` the fraction of arriving requests dropped.
    Responses are counted when they complete inside the measurement window. Every argument is
    keyword-only.
    """
    clients = as_scalar_integer(clients, "clients")
    capacity = as_scalar_integer(capacity, "capacity")
    service_time = _time(service_time, "service_time")
    think_time = _time(think_time, "think_time")
    horizon, warmup, replications, seed = _check_run_length(horizon, warmup, replications, seed)
    _check_work("mm1bk", clients, replications, horizon, lambda: float(
        mm1bk(clients=clients, capacity=capacity, service_time=service_time,
              think_time=think_time).attempt_rate))
    model = {
        "clients": clients,
        "capacity": capacity,
        "service_time": service_time,
        "think_time": think_time,
    }
    return _replicate(
        "mm1bk", _MM1BKReplication, model, MM1BK_METRICS, horizon, warmup, replications, seed
    )


# --------------------------------------------------------------------------- thread pool

class _ThreadPoolReplication(_Replication):
    LEVELS = _Replication.LEVELS + ("busy_threads", "queue")
    LEVELS_WITH_POOL = LEVELS + ("connection_queue", "busy_connections")

    def __init__(
        self,
        capacity,
        threads,
        cpu_time,
        wait_time,
        thread_overhead,
        pool_overhead,
        warmup,
        horizon,
        rng,
        processor_sharing,
        clients=None,
        think_time=None,
        arrival_rate=None,
        processors=1,
        connections=None,
    ):
        if connections is not None:
            self.LEVELS = self.LEVELS_WITH_POOL
        super().__init__(capacity, warmup, horizon, rng, clients=clients,
                         think_time=think_time, arrival_rate=arrival_rate)
        self.threads = threads
        self.processors = processors
        self.cpu_time = cpu_time
        self.wait_time = wait_time
        self.cpu_rate = 1.0 / cpu_time if cpu_time else math.inf
        self.wait_rate = 1.0 / wait_time if wait_time else math.inf
        self.thread_overhead = thread_overhead
        self.pool_overhead = pool_overhead
        self.pool = None if threads is None else _Slots(self.events, capacity=threads)
        self.connections = (
            None if connections is None else _Slots(self.events, capacity=connections)
        )
        # With exponential demands and a processor speed that does not depend on the state, a
        # FCFS station of p servers gives the same process of the number of jobs in the
        # processor phase as processor sharing over p processors (memoryless demands: the
        # completion rate is min(c, p)/cpu_time with c jobs, whatever the order), hence the
        # same time averages and, by Little's law, the same mean times, so plain FCFS slots
        # serve. With overhead the speed changes with the busy threads and the processors are
        # simulated as true processor sharing.
        self.shared = processor_sharing
        if self.shared:
            self.cpu = _ProcessorSharingCPU(self.events, self._cpu_speed, servers=processors)
        else:
            self.fcfs_cpu = _Slots(self.events, capacity=processors)
        self.busy = 0
        self.at_cpu = 0
        self.awaiting_connection = 0
        self.holding_connection = 0

    def _cpu_speed(self) -> float:
        """Work done per unit time: the demand grows with the busy threads and the pool size."""
        busy = max(self.busy, 1)
        threads = self.threads or 0  # pool_overhead is 0 without a thread limit
        return 1.0 / (
            (1.0 + self.thread_overhead * (busy - 1)) * (1.0 + self.pool_overhead * threads)
        )

    def _credit(self, areas: list[float], elapsed: float) -> None:
        n, busy, processors, at_cpu = self.in_system, self.busy, self.processors, self.at_cpu
        areas[0] += n * elapsed  # n
        areas[1] += float(n >= self.capacity) * elapsed  # full
        areas[2] += (at_cpu if at_cpu < processors else processors) / processors * elapsed
        areas[3] += busy * elapsed  # busy_threads
        areas[4] += (n - busy) * elapsed  # queue
        if self.connections is not None:
            areas[5] += self.awaiting_connection * elapsed  # connection_queue
            areas[6] += self.holding_connection * elapsed  # busy_connections

    # The request's path is one generator (with plain functions for the bookkeeping): every
    # generator it delegates to would be resumed at each of its events.
    def _serve(self, arrival: float) -> Iterator[float | None]:
        pool = self.pool
        if pool is not None:
            pool.request()
            yield None
        self._take_thread(arrival)
        if self.cpu_time:
            self.at_cpu += 1
            work = self.rng.expovariate(self.cpu_rate)
            if self.shared:
                self.cpu.serve(work)
                yield None
            else:
                self.fcfs_cpu.request()
                yield None
                yield work
                self.fcfs_cpu.release()
            self._mark()
            self.at_cpu -= 1
        if self.wait_time:
            connections = self.connections
            if connections is None:
                yield self.rng.expovariate(self.wait_rate)
            else:  # a connection is taken first (FCFS) and held
                asked = self._ask_connection()
                connections.request()
                yield None
                self._take_connection(asked)
                yield self.rng.expovariate(self.wait_rate)
                self._mark()
                self.holding_connection -= 1
                connections.release()
        self._leave_thread()
        if pool is not None:
            pool.release()

    def _take_thread(self, arrival: float) -> None:
        window = self.window
        window.count("thread_grants")
        window.count("queue_wait", self.events.now - arrival)
        self._mark()
        self.busy += 1

    def _ask_connection(self) -> float:
        """Join the queue for a connection; the time asked."""
        self._mark()
        self.awaiting_connection += 1
        return self.events.now

    def _take_connection(self, asked: float) -> None:
        window = self.window
        window.count("connection_grants")
        window.count("connection_wait", self.events.now - asked)
        self._mark()
        self.awaiting_connection -= 1
        self.holding_connection += 1

    def _leave_thread(self) -> None:
        self._mark()
        self.busy -= 1
        self.in_system -= 1
        if self.shared:
            self.cpu.speed_changed()

    def run(self, horizon: float) -> dict[str, float]:
        w = self.window
        metrics = super().run(horizon) | {
            "busy_threads": w.time_average("busy_threads"),
            "queue_length": w.time_average("queue"),
            "queue_wait": w.ratio("queue_wait", "thread_grants"),
        }
        if self.connections is not None:
            metrics |= {
                "busy_connections": w.time_average("busy_connections"),
                "connection_queue_length": w.time_average("connection_queue"),
                "connection_wait": w.ratio("connection_wait", "connection_grants"),
            }
        return metrics


def _optional_count(value: object, name: str) -> int | None:
    """None, or an integer >= 1."""
    if value is None:
        return None
    try:
        return as_scalar_integer(value, name)
    except ValueError as exc:
        raise ValueError(f"{exc} (or None)") from None


def _workload(clients, think_time, arrival_rate, capacity) -> dict:
    """The closed (clients, think_time) or open (arrival_rate) workload, checked."""
    if arrival_rate is not None:
        for name, value in (("clients", clients), ("think_time", think_time)):
            if value is not None:
                raise ValueError(
                    f"{name} must be None with arrival_rate (an open workload), got {value!r}"
                )
        return {"arrival_rate": _time(arrival_rate, "arrival_rate")}
    if clients is None or think_time is None:
        raise ValueError(
            "clients and think_time must be given (an integer >= 1 and 0 or a number in "
            f"{list(TIME_RANGE)}) unless arrival_rate is, got clients={clients!r}, "
            f"think_time={think_time!r}"
        )
    clients = as_scalar_integer(clients, "clients")
    think_time = _time(think_time, "think_time", zero=True)
    if think_time == 0 and clients > capacity:
        raise ValueError(
            f"think_time must be > 0 when clients ({clients}) exceed capacity ({capacity}): "
            "a batch population (think_time = 0) would retry its refused requests without end"
        )
    return {"clients": clients, "think_time": think_time}


def _request_rate(model: dict) -> float:
    """Requests sent per unit time (admitted or refused), for the work estimate: the analytic
    model's where it covers the server, otherwise an upper bound."""
    if "arrival_rate" in model:
        return model["arrival_rate"]
    plain = model["processors"] == 1 and model["connections"] is None and model["threads"]
    if plain and model["think_time"] > 0:
        return float(thread_pool(
            clients=model["clients"], capacity=model["capacity"], threads=model["threads"],
            cpu_time=model["cpu_time"], wait_time=model["wait_time"],
            think_time=model["think_time"], thread_overhead=model["thread_overhead"],
            pool_overhead=model["pool_overhead"], method="fes",
        ).attempt_rate)
    if model["think_time"] > 0:
        return model["clients"] / model["think_time"]
    # a batch population sends as fast as the server completes: at most its busiest station
    bounds = [model["clients"] / (model["cpu_time"] + model["wait_time"])]
    if model["cpu_time"]:
        bounds.append(model["processors"] / model["cpu_time"])
    if model["wait_time"] and model["connections"] is not None:
        bounds.append(model["connections"] / model["wait_time"])
    return min(bounds)


def _processor_sharing(processor_sharing: object, overhead: bool) -> bool:
    if not (processor_sharing is None or isinstance(processor_sharing, bool)):
        raise ValueError(
            f"processor_sharing must be None, True or False, got {processor_sharing!r}"
        )
    if processor_sharing is False and overhead:
        raise ValueError("processor_sharing=False (FCFS CPU) is valid only with zero overhead")
    return overhead if processor_sharing is None else processor_sharing


def simulate_thread_pool(
    *,
    clients: int | None = None,
    capacity: int,
    threads: int | None = None,
    cpu_time: float,
    wait_time: float,
    think_time: float | None = None,
    arrival_rate: float | None = None,
    processors: int = 1,
    connections: int | None = None,
    thread_overhead: float = 0.0,
    pool_overhead: float = 0.0,
    horizon: float = DEFAULT_HORIZON,
    warmup: float = DEFAULT_WARMUP,
    replications: int = DEFAULT_REPLICATIONS,
    seed: int = 0,
    processor_sharing: bool | None = None,
    percentiles: bool = False,
) -> SimulationResult:
    """Simulate the server with threads, processors and a pool of connections.

    At most B = ``capacity`` requests are admitted (waiting for a thread or holding one); a
    request that finds B admitted is refused (a closed client thinks again, an open arrival is
    lost). An admitted request takes a free thread or waits for one, first come first served.
    It then needs its processor time (mean s_c = ``cpu_time``, exponential, processor sharing
    over p = ``processors``: with c requests in that phase they complete at rate
    min(c, p)/s_c), and then waits (mean s_w = ``wait_time``, exponential, no processor) while
    its thread holds one of C = ``connections``; a thread that finds no free connection waits
    for one, first come first served, holding its thread and no processor.

    Every argument is keyword-only. The workload is either closed, ``clients`` (an integer
    >= 1) with ``think_time`` (0, a batch population, only with ``capacity >= clients``, or in
    :data:`TIME_RANGE`), or open, ``arrival_rate`` (Poisson, requests per unit time, in
    :data:`TIME_RANGE`). ``threads`` (>= 1) is the size of the thread pool, None (default) no
    thread limit; ``processors`` (>= 1, default 1) the processors; ``connections`` (>= 1) the
    pool of connections, None (default) no pool. Either ``cpu_time`` or ``wait_time`` may be 0,
    which removes that phase (with ``wait_time = 0`` no connection is taken), but not both.

    Metrics: :data:`THREAD_POOL_METRICS`, and with a pool :data:`CONNECTION_METRICS`.
    ``utilization`` is the mean fraction of the processors busy, ``busy_threads`` the mean
    number of threads held (without a thread limit: of admitted requests), ``queue_length`` the
    mean number of admitted requests waiting for a thread and ``queue_wait`` their mean wait
    for a thread (zero for those that get one at once); ``busy_connections``,
    ``connection_queue_length`` and ``connection_wait`` are the same for the connections. The
    other metrics are as in :func:`simulate_mm1bk`; with an open workload
    ``rejection_probability`` is the fraction of arrivals lost.

    Overhead: with ``a`` busy threads the processor time of a request is stretched to
    ``cpu_time * (1 + thread_overhead * (a - 1)) * (1 + pool_overhead * threads)``: the
    processors run slower by that factor. ``pool_overhead`` must be 0 with ``threads=None``.

    ``processor_sharing`` picks the processor model: ``True`` simulates processor sharing,
    ``False`` a FCFS station of ``processors`` servers (valid only without overhead, see the
    class comment), ``None`` (default) uses processor sharing exactly when an overhead is set.
    With ``processors=1``, a thread limit and no pool, a closed workload gives the numbers of
    the simulation before these keywords existed, to the last bit, for the same seed.

    ``percentiles=True`` adds :data:`PERCENTILE_METRICS`, the percentiles of the response time
    of admitted requests. The analytic model's processors share (``processor_sharing=True``):
    a FCFS processor gives the same means but other percentiles.
    """
    capacity = as_scalar_integer(capacity, "capacity")
    workload = _workload(clients, think_time, arrival_rate, capacity)
    threads = _optional_count(threads, "threads")
    processors = as_scalar_integer(processors, "processors")
    connections = _optional_count(connections, "connections")
    cpu_time = _time(cpu_time, "cpu_time", zero=True)
    wait_time = _time(wait_time, "wait_time", zero=True)
    if cpu_time == 0 and wait_time == 0:
        raise ValueError("cpu_time and wait_time must not both be 0: a request needs some time")
    thread_overhead = _nonnegative(thread_overhead, "thread_overhead")
    pool_overhead = _nonnegative(pool_overhead, "pool_overhead")
    if threads is None and pool_overhead > 0:
        raise ValueError(
            f"pool_overhead must be 0 with threads=None (it grows with the pool size), got "
            f"{pool_overhead!r}"
        )
    processor_sharing = _processor_sharing(
        processor_sharing, thread_overhead > 0 or pool_overhead > 0
    )
    horizon, warmup, replications, seed = _check_run_length(horizon, warmup, replications, seed)
    model = {
        **workload,
        "capacity": capacity,
        "threads": threads,
        "processors": processors,
        "connections": connections,
        "cpu_time": cpu_time,
        "wait_time": wait_time,
        "thread_overhead": thread_overhead,
        "pool_overhead": pool_overhead,
        "processor_sharing": processor_sharing,
    }
    cost = "thread_pool" if connections is None else "thread_pool_connections"
    _check_work(cost, workload.get("clients", 0), replications, horizon,
                lambda: _request_rate(model),
                load="clients" if "clients" in workload else "arrival_rate")
    metrics = THREAD_POOL_METRICS + (CONNECTION_METRICS if connections is not None else ())
    if not isinstance(percentiles, bool):
        raise ValueError(f"percentiles must be True or False, got {percentiles!r}")
    metrics += PERCENTILE_METRICS if percentiles else ()
    return _replicate(
        "thread_pool",
        _ThreadPoolReplication,
        model,
        metrics,
        horizon,
        warmup,
        replications,
        seed,
    )


# --------------------------------------------------------------------------- fleet

#: Metrics of :func:`simulate_fleet`: the fleet's totals (see the function).
FLEET_METRICS = THREAD_POOL_METRICS + CONNECTION_METRICS + (
    "database_utilization", "database_requests")
# Measured cost of a request of the fleet (seconds, 2 cores shared with other work: 136 us
# measured; 100 us taken).
_FLEET_PER_REQUEST = 1e-4

class _FleetReplication:
    """One replication of ``instances`` servers behind a balancer that sends each request to
    one at random, sharing one processor-sharing database (see :func:`simulate_fleet`)."""

    LEVELS = ("n", "full", "server_busy", "busy_threads", "queue", "connection_queue",
              "busy_connections", "db", "db_busy")

    def __init__(self, *, instances, capacity, threads, processors, connections, cpu_time,
                 wait_time, db_processors, db_time, db_contention, warmup, horizon, rng,
                 clients=None, think_time=None, arrival_rate=None):
        self.events = events = _Events()
        self.window = _Window(events, warmup, horizon, self.LEVELS)
        self.rng = rng
        self.N, self.capacity, self.processors = instances, capacity, processors
        self.cpu_time, self.wait_time, self.db_time = cpu_time, wait_time, db_time
        self.cpu_rate, self.wait_rate, self.db_rate = (
            1.0 / t if t else math.inf for t in (cpu_time, wait_time, db_time))
        self.clients, self.arrival_rate = clients, arrival_rate
        self.think_rate = 1.0 / think_time if think_time else math.inf
        self.threads = [None if threads is None else _Slots(events, capacity=threads)
                        for _ in range(instances)]
        # exponential demands at a speed that does not depend on the state: a FCFS station of
        # p servers gives the same process of the number in the processor phase as processor
        # sharing over p processors (see _ThreadPoolReplication)
        self.cpus = [_Slots(events, capacity=processors) for _ in range(instances)]
        self.connections = [None if connections is None else _Slots(events, capacity=connections)
                            for _ in range(instances)]
        # the database: processor sharing over db_processors (None: one per request), each
        # request's work stretched by 1 + db_contention (D - 1) with D requests in it
        self.db_servers = db_processors
        servers = db_processors if db_processors is not None else 1 << 62
        self.db = _ProcessorSharingCPU(events, self._db_speed, servers=servers)
        self.db_contention = db_contention
        self.in_system = [0] * instances
        self.full = 0  # instances with capacity admitted
        self.totals = {"n": 0, "busy_threads": 0, "at_cpu": 0.0, "connection_queue": 0,
                       "busy_connections": 0, "db": 0}
        self.at_cpu = [0] * instances

    def _db_speed(self) -> float:
        jobs = len(self.db._remaining)
        return 1.0 / (1.0 + self.db_contention * (max(jobs, 1) - 1))

    def _credit(self, areas: list[float], elapsed: float) -> None:
        """Add each state level named in :attr:`LEVELS` times ``elapsed`` to its area."""
        t = self.totals
        db_busy = (0.0 if self.db_servers is None or not self.db_time
                   else min(t["db"], self.db_servers) / self.db_servers)
        for i, level in enumerate((
                t["n"], self.full / self.N, t["at_cpu"] / self.N, t["busy_threads"],
                t["n"] - t["busy_threads"], t["connection_queue"], t["busy_connections"],
                t["db"], db_busy)):
            areas[i] += level * elapsed

    def _mark(self) -> None:
        """Credit the state since the previous mark up to now: call before a change."""
        window = self.window
        if self.events.now != window.last:  # else nothing to credit
            elapsed = window.elapsed()
            if elapsed > 0:
                self._credit(window.areas, elapsed)

    def _change(self, name: str, amount: float) -> None:
        self._mark()
        self.totals[name] += amount

    def _admitted(self) -> int | None:
        """Count an arrival and route it: the instance that admits it, or None if full."""
        self.window.count("arrivals")
        i = self.rng.randrange(self.N)
        if self.in_system[i] >= self.capacity:
            self.window.count("dropped")
            return None
        self._change("n", 1)
        self.in_system[i] += 1
        self.full += self.in_system[i] == self.capacity
        return i

    def _set_cpu(self, i: int, amount: int) -> None:
        before = min(self.at_cpu[i], self.processors) / self.processors
        self.at_cpu[i] += amount
        after = min(self.at_cpu[i], self.processors) / self.processors
        self._change("at_cpu", after - before)

    # The request's path is one generator (with plain functions for the bookkeeping): every
    # generator it delegates to would be resumed at each of its events.
    def _request(self, i: int, arrival: float) -> Iterator[float | None]:
        pool = self.threads[i]
        if pool is not None:
            pool.request()
            yield None
        self._take_thread(arrival)
        if self.cpu_time:
            self._set_cpu(i, 1)
            processor = self.cpus[i]
            processor.request()
            yield None
            yield self.rng.expovariate(self.cpu_rate)
            processor.release()
            self._set_cpu(i, -1)
        if self.db_time or self.wait_time:
            connections = self.connections[i]
            if connections is None:
                self._change("busy_connections", 1)
            else:
                asked = self.events.now
                self._change("connection_queue", 1)
                connections.request()
                yield None
                self._take_connection(asked)
            if self.db_time:
                self._change("db", 1)
                self.db.serve(self.rng.expovariate(self.db_rate))
                yield None
                self._change("db", -1)
            if self.wait_time:
                yield self.rng.expovariate(self.wait_rate)
            self._change("busy_connections", -1)
            if connections is not None:
                connections.release()
        self._change("busy_threads", -1)
        if pool is not None:
            pool.release()
        self._leave(i, arrival)

    def _take_thread(self, arrival: float) -> None:
        window = self.window
        window.count("thread_grants")
        window.count("queue_wait", self.events.now - arrival)
        self._change("busy_threads", 1)

    def _take_connection(self, asked: float) -> None:
        window = self.window
        window.count("connection_grants")
        window.count("connection_wait", self.events.now - asked)
        self._change("connection_queue", -1)
        self._change("busy_connections", 1)

    def _leave(self, i: int, arrival: float) -> None:
        """Take a request (arrived at ``arrival``) out of instance ``i`` and count it."""
        self.full -= self.in_system[i] == self.capacity
        self._change("n", -1)
        self.in_system[i] -= 1
        self.window.count("completed")
        self.window.count("response", self.events.now - arrival)

    def _client(self) -> Iterator[float | None]:
        events = self.events
        while True:
            if self.think_rate == math.inf:
                yield 0.0
            else:
                yield self.rng.expovariate(self.think_rate)
            i = self._admitted()
            if i is not None:
                yield from self._request(i, events.now)

    def _arrivals(self) -> Iterator[float | None]:
        events = self.events
        while True:
            yield self.rng.expovariate(self.arrival_rate)
            i = self._admitted()
            if i is not None:
                events.start(self._request(i, events.now))

    def run(self, horizon: float) -> dict[str, float]:
        if self.arrival_rate is None:
            for _ in range(self.clients):
                self.events.start(self._client())
        else:
            self.events.start(self._arrivals())
        self.events.run(until=horizon)
        self._mark()
        w = self.window
        return {
            "throughput": w.rate("completed"),
            "response_time": w.ratio("response", "completed"),
            "utilization": w.time_average("server_busy"),
            "mean_in_system": w.time_average("n"),
            "error_rate": w.time_average("full"),
            "rejection_probability": w.ratio("dropped", "arrivals"),
            "busy_threads": w.time_average("busy_threads"),
            "queue_length": w.time_average("queue"),
            "queue_wait": w.ratio("queue_wait", "thread_grants"),
            "busy_connections": w.time_average("busy_connections"),
            "connection_queue_length": w.time_average("connection_queue"),
            "connection_wait": (w.ratio("connection_wait", "connection_grants")
                                if "connection_grants" in w.counts else 0.0),
            "database_utilization": w.time_average("db_busy"),
            "database_requests": w.time_average("db"),
        }


def _fleet_replicate(model: dict, horizon: float, warmup: float, replications: int,
                     seed: int) -> SimulationResult:
    runs = [_FleetReplication(**model, warmup=warmup, horizon=horizon, rng=rng).run(horizon)
            for rng in _replication_streams(seed, replications)]
    for i, run in enumerate(runs):
        undefined = [name for name in FLEET_METRICS if not math.isfinite(run[name])]
        if undefined:
            raise ValueError(
                f"horizon must leave a measurement window (horizon - warmup = "
                f"{horizon - warmup:g}) long enough for every metric: in replication {i + 1} of "
                f"{replications} nothing was counted for {', '.join(undefined)}; use a longer "
                "horizon")
    parameters = {**model, "horizon": horizon, "warmup": warmup, "seed": seed}
    return _summarize("fleet", parameters, FLEET_METRICS, runs)


def simulate_fleet(
    *,
    instances: int = 1,
    clients: int | None = None,
    capacity: int,
    threads: int | None = None,
    cpu_time: float,
    wait_time: float,
    think_time: float | None = None,
    arrival_rate: float | None = None,
    processors: int = 1,
    connections: int | None = None,
    db_processors: int | None = None,
    db_time: float = 0.0,
    db_contention: float = 0.0,
    horizon: float = DEFAULT_HORIZON,
    warmup: float = DEFAULT_WARMUP,
    replications: int = DEFAULT_REPLICATIONS,
    seed: int = 0,
) -> SimulationResult:
    """Simulate a fleet of servers behind a balancer, sharing one database.

    ``instances`` = N identical servers stand behind a balancer that sends each request to one
    of them at random (open arrivals at ``arrival_rate`` in total, or ``clients`` in total
    thinking ``think_time``). Each is the server of :func:`simulate_thread_pool` (at most
    ``capacity`` admitted, ``threads`` or none, ``processors`` shared, a pool of
    ``connections`` or none, first come first served; a request refused by its instance is
    lost or its client thinks again). A request: processor time (mean ``cpu_time``) on its
    instance; then it takes a connection (or waits for one holding its thread); then the
    database: service of mean ``db_time`` on the database's ``db_processors`` processors (None:
    no limit), processor sharing among every request of every instance in that phase, each
    one's work stretched by ``1 + db_contention (D - 1)`` with D requests in the database; then
    the off-database wait (mean ``wait_time``) still holding the connection; then it leaves.
    Exponential times. A request with neither database time nor wait takes no connection.

    Metrics :data:`FLEET_METRICS`, the fleet's: ``throughput``, ``mean_in_system``,
    ``busy_threads``, ``queue_length``, ``busy_connections``, ``connection_queue_length`` and
    ``database_requests`` are totals over the instances; ``response_time``, ``queue_wait`` and
    ``connection_wait`` are per request; ``utilization`` is the mean fraction of an instance's
    processors busy, ``error_rate`` the mean fraction of instances full, and
    ``database_utilization`` the mean fraction of the database's processors busy (0 without a
    processor limit). ``think_time`` must be > 0. Run length and seed as in
    :func:`simulate_thread_pool`.
    """
    instances = as_scalar_integer(instances, "instances")
    capacity = as_scalar_integer(capacity, "capacity")
    workload = _workload(clients, think_time, arrival_rate, capacity)
    if workload.get("think_time", 1.0) == 0:
        raise ValueError("think_time must be > 0 in the fleet's simulation, got 0")
    threads = _optional_count(threads, "threads")
    processors = as_scalar_integer(processors, "processors")
    connections = _optional_count(connections, "connections")
    db_processors = _optional_count(db_processors, "db_processors")
    cpu_time = _time(cpu_time, "cpu_time", zero=True)
    wait_time = _time(wait_time, "wait_time", zero=True)
    db_time = _time(db_time, "db_time", zero=True)
    if cpu_time == 0 and wait_time == 0 and db_time == 0:
        raise ValueError("cpu_time, wait_time and db_time must not all be 0: a request needs "
                         "some time")
    db_contention = _nonnegative(db_contention, "db_contention")
    if db_contention > 0 and db_time == 0:
        raise ValueError(f"db_contention must be 0 when db_time is 0 (no database phase), got "
                         f"{db_contention!r}")
    horizon, warmup, replications, seed = _check_run_length(horizon, warmup, replications, seed)
    rate = workload.get("arrival_rate") or workload["clients"] / workload["think_time"]
    seconds = replications * (horizon * rate * _FLEET_PER_REQUEST
                              + workload.get("clients", 0) * _PER_CLIENT)
    if seconds > MAX_SECONDS:
        raise ValueError(
            f"horizon, replications and the load must keep the simulation within "
            f"MAX_SECONDS = {MAX_SECONDS:g} s; these ask for about {seconds:.3g} s (fewer "
            "replications, a shorter horizon or a lower load)")
    model = {**workload, "instances": instances, "capacity": capacity, "threads": threads,
             "processors": processors, "connections": connections, "cpu_time": cpu_time,
             "wait_time": wait_time, "db_processors": db_processors, "db_time": db_time,
             "db_contention": db_contention}
    return _fleet_replicate(model, horizon, warmup, replications, seed)
