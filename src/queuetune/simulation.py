"""Discrete-event simulation of the book's two closed-loop queueing models.

An independent check on the analytic models: the same systems are simulated with ``simpy``,
over independent replications, and every metric comes with a Student-t confidence interval.

* :func:`simulate_mm1bk` - M/M/1/B/K: ``clients`` clients think, then send a request to one
  exponential server that admits at most ``capacity`` requests; an arrival finding the system
  full is dropped and its client thinks again.
* :func:`simulate_thread_pool` - the thread-limited server: at most ``capacity`` admitted
  requests, at most ``threads`` of them hold a thread; a thread holder needs an exponential
  CPU demand on one processor-sharing CPU, then an exponential wait without CPU (I/O, database),
  then frees its thread for the oldest waiting request.

All times (``service_time``, ``think_time``, ``horizon``, ...) share one unit, e.g. seconds;
the model's times lie in the range the analytic models accept (:data:`TIME_RANGE`). Each
replication runs from an empty system with every client thinking, discards the warm-up
``[0, warmup)`` and measures over ``[warmup, horizon)``. A simulation takes as long as its
horizon asks: its time is estimated first (the analytic model's request rate times the horizon
and the replications, at about 10 to 20 us per request, plus 20 us per client and replication)
and a call above :data:`MAX_SECONDS` is refused, naming the way out.

>>> r = simulate_mm1bk(10, 50, 0.14, 4.0, replications=3, horizon=300.0, warmup=50.0)
>>> sorted(r.estimate) == sorted(MM1BK_METRICS)
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import pandas as pd
import simpy
from scipy import stats

from ._validation import as_nonnegative, as_positive, as_scalar_integer, as_time
from .models import mm1bk, thread_pool
from .models.single_server import TIME_RANGE

__all__ = [
    "MM1BK_METRICS",
    "THREAD_POOL_METRICS",
    "MAX_SECONDS",
    "TIME_RANGE",
    "SimulationResult",
    "simulate_mm1bk",
    "simulate_thread_pool",
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

CONFIDENCE = 0.95
# Slack for floating-point rounding when an exact value meets a zero-width interval, e.g. an
# analytic utilization of 0.9999999999999961 against a server that was never idle.
ROUNDING = 1e-9

DEFAULT_HORIZON = 2_000.0
DEFAULT_WARMUP = 200.0
DEFAULT_REPLICATIONS = 10
#: Largest estimated time of one call (seconds on a 2-core machine).
MAX_SECONDS = 120.0
# Measured costs (seconds, 2 cores): per request sent, per client and replication.
_PER_REQUEST = {"mm1bk": 8e-6, "thread_pool": 2e-5}
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
                rate: Callable[[], float]) -> None:
    """Refuse a call whose estimated time exceeds MAX_SECONDS (``rate`` gives the analytic
    model's requests sent per unit time; it is asked only once the clients alone fit)."""
    seconds = replications * clients * _PER_CLIENT
    if seconds <= MAX_SECONDS:
        seconds += replications * horizon * rate() * _PER_REQUEST[model]
    if seconds > MAX_SECONDS:
        raise ValueError(
            f"horizon, replications and clients must keep the simulation within "
            f"MAX_SECONDS = {MAX_SECONDS:g} s; these ask for about {seconds:.3g} s (fewer "
            f"replications, a shorter horizon or fewer clients)"
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


class _Window:
    """Counts and time integrals of the system state over the window [warmup, horizon)."""

    def __init__(self, env: simpy.Environment, warmup: float, horizon: float):
        self.env = env
        self.warmup = warmup
        self.length = horizon - warmup
        self.areas: dict[str, float] = {}
        self.counts: dict[str, float] = {}
        self._last = 0.0

    def count(self, name: str, amount: float = 1.0) -> None:
        if self.env.now >= self.warmup:
            self.counts[name] = self.counts.get(name, 0.0) + amount

    def integrate(self, levels: Mapping[str, float]) -> None:
        """Credit ``levels`` (the state since the last call) up to now; call before a change."""
        now = self.env.now
        elapsed = max(now, self.warmup) - max(self._last, self.warmup)
        if elapsed > 0:
            for name, level in levels.items():
                self.areas[name] = self.areas.get(name, 0.0) + level * elapsed
        self._last = now

    def time_average(self, name: str) -> float:
        return self.areas.get(name, 0.0) / self.length

    def rate(self, name: str) -> float:
        return self.counts.get(name, 0.0) / self.length

    def ratio(self, numerator: str, denominator: str) -> float:
        total = self.counts.get(denominator, 0.0)
        return self.counts.get(numerator, 0.0) / total if total else math.nan


class _ProcessorSharingCPU:
    """One CPU shared equally by its jobs, at a speed that may change with the system state.

    Each job brings an amount of work; the CPU does ``speed()`` units of work per unit time,
    split equally among the jobs present. On every arrival, departure or speed change the
    remaining work of each job is brought up to date and the next departure is re-scheduled;
    a departure scheduled before the latest change is stale and ignored.
    """

    def __init__(self, env: simpy.Environment, speed: Callable[[], float]):
        self.env = env
        self._speed = speed
        self._remaining: dict[simpy.Event, float] = {}
        self._share = 0.0
        self._last = 0.0
        self._generation = 0

    def serve(self, work: float) -> simpy.Event:
        """An event that succeeds when ``work`` units of work have been done for this job."""
        self._advance()
        done = self.env.event()
        self._remaining[done] = work
        self._reschedule()
        return done

    def speed_changed(self) -> None:
        self._advance()
        self._reschedule()

    def _advance(self) -> None:
        done = (self.env.now - self._last) * self._share
        if done > 0:
            for job in self._remaining:
                self._remaining[job] -= done
        self._last = self.env.now

    def _reschedule(self) -> None:
        self._generation += 1
        if not self._remaining:
            self._share = 0.0
            return
        self._share = self._speed() / len(self._remaining)
        job = min(self._remaining, key=self._remaining.__getitem__)
        delay = max(self._remaining[job], 0.0) / self._share
        generation = self._generation
        timer = self.env.timeout(delay)
        timer.callbacks.append(lambda _event: self._finish(job, generation))

    def _finish(self, job: simpy.Event, generation: int) -> None:
        if generation != self._generation:
            return
        self._advance()
        del self._remaining[job]
        job.succeed()
        self._reschedule()


# --------------------------------------------------------------------------- closed loop


class _ClosedLoopReplication:
    """One replication of a closed loop: clients think, then send a request to a server that
    admits at most ``capacity`` requests; an arrival finding it full is dropped.

    A subclass models the server: :meth:`_serve` holds an admitted request until it leaves,
    :meth:`_levels` gives the state levels besides ``n`` and ``full`` (at least
    ``server_busy``, whose time average is the utilization) and :meth:`run` may add metrics to
    the common ones.
    """

    def __init__(
        self,
        clients: int,
        capacity: int,
        think_time: float,
        warmup: float,
        horizon: float,
        rng: random.Random,
    ):
        self.env = simpy.Environment()
        self.window = _Window(self.env, warmup, horizon)
        self.clients = clients
        self.capacity = capacity
        self.think_rate = 1.0 / think_time
        self.rng = rng
        self.in_system = 0

    def _levels(self) -> dict[str, float]:
        """The server's own state levels, integrated by :meth:`_mark`."""
        raise NotImplementedError

    def _serve(self, arrival: float) -> Iterator[simpy.Event]:
        """Hold an admitted request (arrived at ``arrival``) until it leaves: the last step
        marks the state and takes the request out of ``in_system``."""
        raise NotImplementedError

    def _mark(self) -> None:
        n = self.in_system
        self.window.integrate({"n": n, "full": float(n >= self.capacity), **self._levels()})

    def _client(self) -> Iterator[simpy.Event]:
        env, window = self.env, self.window
        while True:
            yield env.timeout(self.rng.expovariate(self.think_rate))
            arrival = env.now
            window.count("arrivals")
            if self.in_system >= self.capacity:
                window.count("dropped")
                continue
            self._mark()
            self.in_system += 1
            yield from self._serve(arrival)
            window.count("completed")
            window.count("response", env.now - arrival)

    def run(self, horizon: float) -> dict[str, float]:
        """Start the clients, run to ``horizon`` and return the metrics of the window."""
        for _ in range(self.clients):
            self.env.process(self._client())
        self.env.run(until=horizon)
        self._mark()
        w = self.window
        return {
            "throughput": w.rate("completed"),
            "response_time": w.ratio("response", "completed"),
            "utilization": w.time_average("server_busy"),
            "mean_in_system": w.time_average("n"),
            "error_rate": w.time_average("full"),
            "rejection_probability": w.ratio("dropped", "arrivals"),
        }


def _replicate(
    name: str,
    replication: type[_ClosedLoopReplication],
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


class _MM1BKReplication(_ClosedLoopReplication):
    def __init__(self, clients, capacity, service_time, think_time, warmup, horizon, rng):
        super().__init__(clients, capacity, think_time, warmup, horizon, rng)
        self.service_rate = 1.0 / service_time
        self.server = simpy.Resource(self.env, capacity=1)

    def _levels(self) -> dict[str, float]:
        return {"server_busy": float(self.in_system > 0)}

    def _serve(self, arrival: float) -> Iterator[simpy.Event]:
        with self.server.request() as request:
            yield request
            yield self.env.timeout(self.rng.expovariate(self.service_rate))
        self._mark()
        self.in_system -= 1


def simulate_mm1bk(
    clients: int,
    capacity: int,
    service_time: float,
    think_time: float,
    *,
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
    Responses are counted when they complete inside the measurement window.
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


class _ThreadPoolReplication(_ClosedLoopReplication):
    def __init__(
        self,
        clients,
        capacity,
        threads,
        cpu_time,
        wait_time,
        think_time,
        thread_overhead,
        pool_overhead,
        warmup,
        horizon,
        rng,
        processor_sharing,
    ):
        super().__init__(clients, capacity, think_time, warmup, horizon, rng)
        self.threads = threads
        self.cpu_time = cpu_time
        self.wait_time = wait_time
        self.thread_overhead = thread_overhead
        self.pool_overhead = pool_overhead
        self.pool = simpy.Resource(self.env, capacity=threads)
        # With exponential demands and a CPU speed that does not depend on the state, a FCFS
        # single server gives the same process of the number of jobs at the CPU as processor
        # sharing (memoryless demands: the completion rate is 1/cpu_time whenever the CPU is
        # busy, whatever the order), hence the same time averages and, by Little's law, the
        # same mean times, so a plain simpy Resource serves. With overhead the speed changes
        # with the busy threads and the CPU is simulated as true processor sharing.
        self.shared = processor_sharing
        if self.shared:
            self.cpu = _ProcessorSharingCPU(self.env, self._cpu_speed)
        else:
            self.fcfs_cpu = simpy.Resource(self.env, capacity=1)
        self.busy = 0
        self.at_cpu = 0

    def _cpu_speed(self) -> float:
        """Work done per unit time: the demand grows with the busy threads and the pool size."""
        busy = max(self.busy, 1)
        return 1.0 / (
            (1.0 + self.thread_overhead * (busy - 1)) * (1.0 + self.pool_overhead * self.threads)
        )

    def _levels(self) -> dict[str, float]:
        busy = self.busy
        return {
            "server_busy": float(self.at_cpu > 0),
            "busy_threads": busy,
            "queue": self.in_system - busy,
        }

    def _use_cpu(self) -> Iterator[simpy.Event]:
        work = self.rng.expovariate(1.0 / self.cpu_time)
        if self.shared:
            yield self.cpu.serve(work)
        else:
            with self.fcfs_cpu.request() as request:
                yield request
                yield self.env.timeout(work)

    def _serve(self, arrival: float) -> Iterator[simpy.Event]:
        env, window = self.env, self.window
        with self.pool.request() as thread:
            yield thread
            window.count("thread_grants")
            window.count("queue_wait", env.now - arrival)
            self._mark()
            self.busy += 1
            if self.cpu_time:
                self.at_cpu += 1
                yield from self._use_cpu()
                self._mark()
                self.at_cpu -= 1
            if self.wait_time:
                yield env.timeout(self.rng.expovariate(1.0 / self.wait_time))
            self._mark()
            self.busy -= 1
            self.in_system -= 1
            if self.shared:
                self.cpu.speed_changed()

    def run(self, horizon: float) -> dict[str, float]:
        w = self.window
        return super().run(horizon) | {
            "busy_threads": w.time_average("busy_threads"),
            "queue_length": w.time_average("queue"),
            "queue_wait": w.ratio("queue_wait", "thread_grants"),
        }


def simulate_thread_pool(
    clients: int,
    capacity: int,
    threads: int,
    cpu_time: float,
    wait_time: float,
    think_time: float,
    *,
    thread_overhead: float = 0.0,
    pool_overhead: float = 0.0,
    horizon: float = DEFAULT_HORIZON,
    warmup: float = DEFAULT_WARMUP,
    replications: int = DEFAULT_REPLICATIONS,
    seed: int = 0,
    processor_sharing: bool | None = None,
) -> SimulationResult:
    """Simulate the thread-limited server; metrics as in :data:`THREAD_POOL_METRICS`.

    With ``a`` busy threads the CPU demand of a request is stretched to
    ``cpu_time * (1 + thread_overhead * (a - 1)) * (1 + pool_overhead * threads)``: the CPU
    runs slower by that factor while it is shared by the jobs at it. ``utilization`` is the
    fraction of time the CPU is busy, ``busy_threads`` the mean number of threads held,
    ``queue_length`` the mean number of admitted requests waiting for a thread and
    ``queue_wait`` their mean wait for a thread (zero for those that get one at once).
    The other metrics are as in :func:`simulate_mm1bk`. Either ``cpu_time`` or ``wait_time``
    may be 0, which removes that phase, but not both.

    ``processor_sharing`` picks the CPU model: ``True`` simulates processor sharing,
    ``False`` a FCFS server (valid only without overhead, see the class comment), ``None``
    (default) uses processor sharing exactly when an overhead is set.
    """
    clients = as_scalar_integer(clients, "clients")
    capacity = as_scalar_integer(capacity, "capacity")
    threads = as_scalar_integer(threads, "threads")
    cpu_time = _time(cpu_time, "cpu_time", zero=True)
    wait_time = _time(wait_time, "wait_time", zero=True)
    if cpu_time == 0 and wait_time == 0:
        raise ValueError("cpu_time and wait_time must not both be 0: a request needs some time")
    think_time = _time(think_time, "think_time")
    thread_overhead = _nonnegative(thread_overhead, "thread_overhead")
    pool_overhead = _nonnegative(pool_overhead, "pool_overhead")
    if not (processor_sharing is None or isinstance(processor_sharing, bool)):
        raise ValueError(
            f"processor_sharing must be None, True or False, got {processor_sharing!r}"
        )
    if processor_sharing is False and (thread_overhead > 0 or pool_overhead > 0):
        raise ValueError("processor_sharing=False (FCFS CPU) is valid only with zero overhead")
    horizon, warmup, replications, seed = _check_run_length(horizon, warmup, replications, seed)
    # the analytic model gives the request rate (and checks the overhead's range)
    _check_work("thread_pool", clients, replications, horizon, lambda: float(thread_pool(
        clients=clients, capacity=capacity, threads=threads, cpu_time=cpu_time,
        wait_time=wait_time, think_time=think_time,
        thread_overhead=thread_overhead, pool_overhead=pool_overhead, method="fes"
    ).attempt_rate))
    if processor_sharing is None:
        processor_sharing = thread_overhead > 0 or pool_overhead > 0
    model = {
        "clients": clients,
        "capacity": capacity,
        "threads": threads,
        "cpu_time": cpu_time,
        "wait_time": wait_time,
        "think_time": think_time,
        "thread_overhead": thread_overhead,
        "pool_overhead": pool_overhead,
        "processor_sharing": processor_sharing,
    }
    return _replicate(
        "thread_pool",
        _ThreadPoolReplication,
        model,
        THREAD_POOL_METRICS,
        horizon,
        warmup,
        replications,
        seed,
    )
