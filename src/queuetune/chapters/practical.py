"""The practical chapter's procedure in numbers: a thread pool and a connection queue, sized.

The chapter ``notebooks/practical.md`` sizes a server with the operational laws and the book's
thread-pool model; every number of its worked example comes from here, so that the tests pin
them. The notation is the book's (its foundations page): ``K`` clients each think ``Z`` s
between requests; a request needs ``s_c`` s of processor time and holds its thread ``s_w`` s
more without the processor (a database call, I/O); ``S = s_c + s_w`` is its service time,
what one client alone measures; ``T`` threads; at most ``B`` admitted requests (the connection
queue: those waiting for a thread and those holding one); ``X`` throughput, ``R`` response
time, ``U`` utilization of the processor. One processor, as in the book's models.

* :func:`ceilings` - the bounds on the throughput: the clients' ``K/(Z + S)``, the
  processor's ``1/s_c`` and the pool's ``T/S``, and the number of clients at the knee;
* :func:`saturation_pool` - the smallest pool that keeps the processor busy a given share of
  the time once every thread is busy (exact MVA of the thread holders);
* :func:`size` - the whole procedure for one :class:`Workload`, as a :class:`Sizing`;
* :func:`load_curves` - the model at the sized settings over a range of clients, for charts.

>>> c = ceilings(cpu_time=0.01, wait_time=0.2, think_time=4.0, threads=10)
>>> c.processor, round(c.pool, 3), c.bottleneck, round(c.knee_clients, 1)
(100.0, 47.619, 'pool', 200.5)
>>> saturation_pool(cpu_time=0.01, wait_time=0.0)
1
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import explorer
from .._validation import integer, real
from ..models import Station, mva, thread_pool

__all__ = ["Ceilings", "Workload", "Sizing", "EXAMPLE", "ceilings", "saturation_pool", "size",
           "load_curves"]


@dataclass(frozen=True)
class Ceilings:
    """The three bounds on the throughput (requests per second) and where they meet.

    ``per_client`` is ``1/(Z + S)``: one client completes at most one request per think time
    plus service time, so ``K`` clients at most ``K/(Z + S)``. ``processor`` is ``p/s_c`` on
    ``p`` processors (the utilization law with every processor busy), ``pool`` is ``T/S``
    (Little's law over the threads: each holds a request at least ``S``). ``bottleneck`` names
    the lower of the last two, ``limit`` is its value and ``knee_clients`` the number of clients
    at which the clients' bound reaches it, ``(Z + S) * limit``: below it the load, above it the
    bottleneck sets the throughput.
    """

    per_client: float
    processor: float
    pool: float
    bottleneck: str
    limit: float
    knee_clients: float


def _times(cpu_time: Any, wait_time: Any, think_time: Any) -> tuple[float, float, float]:
    s_c = real(cpu_time, "cpu_time", low=0.0, low_open=True, high=1e6, unit="s")
    s_w = real(wait_time, "wait_time", low=0.0, high=1e6, unit="s")
    z = real(think_time, "think_time", low=0.0, high=1e6, unit="s")
    return s_c, s_w, z


def ceilings(cpu_time: float, wait_time: float, think_time: float, threads: int,
             processors: int = 1) -> Ceilings:
    """The bounds on the throughput of ``threads`` threads: see :class:`Ceilings`.

    ``cpu_time`` (s_c) > 0, ``wait_time`` (s_w) >= 0 and ``think_time`` (Z) >= 0 are in
    seconds, at most 1e6; ``threads`` (T) is an integer from 1 to 10**6; ``processors`` (p),
    an integer from 1 to 10**6, multiply the processor's bound to ``p/s_c``.
    """
    s_c, s_w, z = _times(cpu_time, wait_time, think_time)
    t = integer(threads, "threads", low=1, high=10**6)
    p = integer(processors, "processors", low=1, high=10**6)
    s = s_c + s_w
    processor, pool = p / s_c, t / s
    bottleneck = "pool" if pool < processor else "processor"
    limit = min(processor, pool)
    return Ceilings(per_client=1.0 / (z + s), processor=processor, pool=pool,
                    bottleneck=bottleneck, limit=limit, knee_clients=(z + s) * limit)


def saturation_pool(cpu_time: float, wait_time: float, busy_share: float = 0.95) -> int:
    """The smallest pool that keeps the processor at least ``busy_share`` busy when every
    thread is busy.

    With every thread busy the thread holders form a closed network of the processor (a queue
    of demand ``s_c``) and the wait (a delay of ``s_w``); its throughput ``X_in(T)``, from exact
    MVA, is the most ``T`` threads can complete, and ``X_in(T) s_c`` the processor's
    utilization then (the heat map of the thread-pool-model chapter). The answer grows with
    ``s_w/s_c``: about ``1 + s_w/s_c`` threads just balance the pool's bound ``T/S`` against
    the processor's ``1/s_c``, and a few more absorb the moments when all threads wait at once.

    ``busy_share`` is a number in (0, 1).

    >>> saturation_pool(cpu_time=0.01, wait_time=0.2) > 1 + 0.2 / 0.01
    True
    """
    s_c, s_w, _ = _times(cpu_time, wait_time, 0.0)
    share = real(busy_share, "busy_share", low=0.0, high=1.0, low_open=True, high_open=True)
    if s_w == 0.0:
        return 1
    stations = [Station.queue(s_c), Station.delay(s_w)]
    population = int(math.ceil(2 * (1 + s_w / s_c))) + 10
    while True:
        x_in = mva(population, stations).throughput
        reached = np.flatnonzero(x_in * s_c >= share)
        if reached.size:
            return int(reached[0]) + 1
        population *= 2


def _pool_throughput(cpu_time: float, wait_time: float, threads: int) -> float:
    """X_in(T): the throughput of T busy threads (exact MVA of processor and wait)."""
    stations = [Station.queue(cpu_time)] + ([Station.delay(wait_time)] if wait_time > 0 else [])
    return float(mva(threads, stations).throughput[-1])


@dataclass(frozen=True)
class Workload:
    """What the procedure needs to know about a server and its load.

    Measured: ``cpu_time`` (s_c) and ``wait_time`` (s_w) of one request, in seconds, from a
    test with one client; the peak number of ``clients`` (K) and their ``think_time`` (Z).
    Chosen: ``max_response_time``, the longest response time (s) that you would rather refuse a
    request than exceed under overload; ``cpu_ceiling``, the processor utilization to stay
    under at the peak (headroom); ``busy_share``, how busy the processor should be able to get
    with every thread busy (see :func:`saturation_pool`); ``tolerance``, how much slower than
    an unlimited pool the chosen pool may answer at the peak (0.10 = 10 %); ``overload``, the
    multiple of the peak clients at which the connection queue is checked.
    """

    cpu_time: float
    wait_time: float
    think_time: float
    clients: int
    max_response_time: float
    cpu_ceiling: float = 0.70
    busy_share: float = 0.95
    tolerance: float = 0.10
    overload: float = 3.0

    def __post_init__(self) -> None:
        _times(self.cpu_time, self.wait_time, self.think_time)
        real(self.think_time, "think_time", low=0.0, low_open=True, high=1e6, unit="s")
        integer(self.clients, "clients", low=1, high=5000)
        real(self.max_response_time, "max_response_time", low=0.0, low_open=True, high=1e6,
             unit="s")
        real(self.cpu_ceiling, "cpu_ceiling", low=0.0, high=1.0, low_open=True)
        real(self.busy_share, "busy_share", low=0.0, high=1.0, low_open=True, high_open=True)
        real(self.tolerance, "tolerance", low=0.0, high=10.0, low_open=True)
        real(self.overload, "overload", low=1.0, high=100.0, low_open=True)

    @property
    def service_time(self) -> float:
        """S = s_c + s_w, what a single client measures."""
        return self.cpu_time + self.wait_time


@dataclass(frozen=True)
class Sizing:
    """The procedure's answer for one :class:`Workload`, step by step.

    Step 2, the load: ``offered`` = K/(Z + S), the most the clients can send; ``throughput``,
    ``response_time`` and ``utilization`` at the peak with the sized settings (the thread-pool
    model, exact chain); ``headroom`` is True when that utilization stays under the workload's
    ``cpu_ceiling``. Step 3, the threads: ``busy_threads`` = X S (Little's law), the mean
    number busy at the peak if nothing queued; ``balance_threads`` = 1 + s_w/s_c;
    ``saturation_threads`` from :func:`saturation_pool`; ``peak_threads``, the smallest pool
    answering within ``tolerance`` of an unlimited pool at the peak
    (:func:`queuetune.explorer.threads_needed`, exact); ``threads`` = the larger of the last two.
    Step 4, the queue: ``max_throughput`` = X_in(T), what the pool and processor complete at
    most; ``capacity`` B = the larger of T and ``ceil(max_response_time * max_throughput)``
    (Little's law: B admitted requests, served X_in(T) per second, wait about B / X_in(T)).
    Step 5, the check: at ``overload_clients`` = overload x K, the response time and share of
    requests refused with B (``overload_response_time``, ``overload_refused``) and with no
    limit on admitted requests (``unlimited_response_time``), and the throughputs of both.
    """

    workload: Workload
    offered: float
    throughput: float
    response_time: float
    utilization: float
    headroom: bool
    busy_threads: float
    balance_threads: float
    saturation_threads: int
    peak_threads: int
    threads: int
    max_throughput: float
    capacity: int
    overload_clients: int
    overload_response_time: float
    overload_refused: float
    overload_throughput: float
    unlimited_response_time: float
    unlimited_throughput: float
    ceilings: Ceilings = field(repr=False)


def size(workload: Workload) -> Sizing:
    """Size the thread pool (T) and the connection queue (B) of one workload.

    The steps are those of the practical chapter; each field of the :class:`Sizing` is one of
    their numbers. Every model solve uses the exact chain of :func:`queuetune.thread_pool` (no
    overhead: the model charges nothing for a thread, so its answer is the smallest pool that
    is enough, not a pool that is best).
    """
    if not isinstance(workload, Workload):
        raise ValueError(f"workload must be a Workload, got {type(workload).__name__}")
    w = workload
    s_c, s_w, z, k = w.cpu_time, w.wait_time, w.think_time, w.clients
    s = w.service_time
    saturation = saturation_pool(s_c, s_w, w.busy_share)
    needed = explorer.threads_needed(clients=[k], capacity=[k], cpu_time=[s_c],
                                     wait_time=[s_w], think_time=[z], tolerance=w.tolerance,
                                     method="exact")
    peak_threads = int(needed["model_threads"].iloc[0])
    threads = max(saturation, peak_threads)
    x_max = _pool_throughput(s_c, s_w, threads)
    capacity = max(threads, int(math.ceil(w.max_response_time * x_max)))
    at_peak = thread_pool(clients=k, capacity=capacity, threads=threads, cpu_time=s_c,
                          wait_time=s_w, think_time=z, method="exact")
    throughput = float(at_peak.throughput)
    utilization = float(at_peak.utilization)
    over = int(math.ceil(w.overload * k))
    bounded = thread_pool(clients=over, capacity=capacity, threads=threads, cpu_time=s_c,
                          wait_time=s_w, think_time=z, method="exact")
    unlimited = thread_pool(clients=over, capacity=over, threads=threads, cpu_time=s_c,
                            wait_time=s_w, think_time=z, method="exact")
    return Sizing(
        workload=w,
        offered=k / (z + s),
        throughput=throughput,
        response_time=float(at_peak.response_time),
        utilization=utilization,
        headroom=utilization <= w.cpu_ceiling,
        busy_threads=throughput * s,
        balance_threads=1 + s_w / s_c,
        saturation_threads=saturation,
        peak_threads=peak_threads,
        threads=threads,
        max_throughput=x_max,
        capacity=capacity,
        overload_clients=over,
        overload_response_time=float(bounded.response_time),
        overload_refused=float(bounded.rejection_probability),
        overload_throughput=float(bounded.throughput),
        unlimited_response_time=float(unlimited.response_time),
        unlimited_throughput=float(unlimited.throughput),
        ceilings=ceilings(s_c, s_w, z, threads),
    )


def load_curves(sizing: Sizing, clients: Any, small_pool: int) -> pd.DataFrame:
    """The model over a range of ``clients`` at the sized settings, for the chapter's charts.

    One row per client count and setting, with the throughput, response time, share refused
    and busy threads (exact chain): the sized pool and queue (T, B); the same pool with no
    limit on admitted requests (B = K); and a ``small_pool`` of fewer threads than the sized
    one with the sized queue, to show a pool that is the bottleneck. ``setting`` labels each.
    """
    w = sizing.workload
    ks = np.unique(np.asarray(clients, dtype=np.int64))
    if ks.size == 0 or ks[0] < 1 or ks[-1] > 5000:
        raise ValueError(f"clients must hold integers from 1 to 5000, got {clients!r}")
    small = integer(small_pool, "small_pool", low=1, high=sizing.threads - 1)
    settings = [
        (f"T = {sizing.threads}, B = {sizing.capacity}", sizing.threads, sizing.capacity),
        (f"T = {sizing.threads}, no limit on B", sizing.threads, None),
        (f"T = {small}, B = {sizing.capacity}", small, sizing.capacity),
    ]
    frames = []
    for label, t, b in settings:
        capacity = ks if b is None else np.full_like(ks, b)
        res = thread_pool(clients=ks, capacity=capacity, threads=t, cpu_time=w.cpu_time,
                          wait_time=w.wait_time, think_time=w.think_time,
                          method="exact")
        frames.append(pd.DataFrame({
            "clients": ks, "setting": label, "threads": t,
            "throughput": res.throughput, "response_time": res.response_time,
            "refused": res.rejection_probability, "busy_threads": res.busy_threads}))
    return pd.concat(frames, ignore_index=True)


#: The chapter's worked example: 10 ms of processor time and 200 ms of waiting per request,
#: 200 clients at the peak thinking 4 s, and a response time of 1 s as the most worth waiting
#: for (the what-if explorer's starting settings, so that a reader can follow on its sliders).
EXAMPLE = Workload(cpu_time=0.010, wait_time=0.200, think_time=4.0, clients=200,
                   max_response_time=1.0)
