"""The practical chapter's numbers: a server with several processors and a database pool, sized.

The chapter ``notebooks/practical.md`` sizes a server with the operational laws and
:func:`queuetune.sizing.size` (the same computation as ``python -m queuetune size`` and the
site's *Size your server* page); every number of its worked example comes from here, so that the
tests pin them. The notation is the book's (its foundations page): ``p`` processors; a request
needs ``s_c`` s of processor time and then holds its thread ``s_w`` s more without the
processor, holding one of ``C`` database connections; ``S = s_c + s_w``; ``T`` threads; at most
``B`` admitted requests; ``lambda`` arrivals per second (or ``K`` clients thinking ``Z``);
``X`` throughput, ``R`` response time, ``U`` utilization of the processors.

* :func:`ceilings` - the bounds on the throughput: the clients' ``K/(Z + S)``, the
  processors' ``p/s_c`` and the threads' ``T/S``, and the number of clients at the knee;
* :data:`EXAMPLE` and :func:`example` - the worked example and its sizing;
* :func:`response_times` - ``S/(1 - U)`` against the model, with the condition under which the
  formula holds;
* :func:`load_curves` - the server at the sized settings and at others over a range of
  arrival rates, for charts.

>>> c = ceilings(cpu_time=0.01, wait_time=0.2, think_time=4.0, threads=10)
>>> c.processor, round(c.pool, 3), c.bottleneck, round(c.knee_clients, 1)
(100.0, 47.619, 'pool', 200.5)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .. import sizing
from .._validation import integer, real

__all__ = ["Ceilings", "EXAMPLE", "HIKARI_DEFAULT_POOL", "ceilings", "example",
           "response_times", "load_curves"]


@dataclass(frozen=True)
class Ceilings:
    """The bounds on the throughput (requests per second) and where they meet.

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


def ceilings(cpu_time: float, wait_time: float, think_time: float, *, threads: int,
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


#: The chapter's worked example: a service on 5 processors, each request 10 ms of processor
#: time and then 200 ms waiting for its database, 250 requests per second at the peak, and an
#: answer slower than 1 s worth less than an error page. Five processors (500 requests/s) keep
#: the processors above the pool the sizing chooses for 1.5 times the peak (80 connections,
#: 400 requests/s): the pool is the bottleneck, as the chapter says; on 4 the two ceilings
#: would tie.
EXAMPLE = {"processors": 5, "cpu_time": 0.010, "wait_time": 0.200, "arrival_rate": 250.0,
           "max_response_time": 1.0}
#: HikariCP's default ``maximumPoolSize``.
HIKARI_DEFAULT_POOL = 10


def example(**changes: Any) -> sizing.Sizing:
    """The sizing of :data:`EXAMPLE`, with ``changes`` to its inputs."""
    return sizing.size(**{**EXAMPLE, **changes})


def response_times(*, processors: int, cpu_time: float, wait_time: float,
                   arrival_rate: float) -> pd.DataFrame:
    """``S/(1 - U)`` and ``s_c/(1 - U) + s_w`` against the model, for one load.

    ``S/(1 - U)`` is the mean response time of one processor shared by every request (processor
    sharing, or first come first served with exponential times), with all of ``S`` spent on
    it, open arrivals and no limit on threads or admissions: M/M/1. With a wait off the processor
    and no pool, one processor gives ``s_c/(1 - U) + s_w`` (the wait queues for nothing).
    With ``p`` processors neither holds; the model (threads and admissions unlimited, no pool)
    answers for any ``p``. One row per formula: its value (s), and the condition under which
    it is the model's answer (``holds``).
    """
    s_c, s_w = cpu_time, wait_time
    s = s_c + s_w
    utilization = arrival_rate * s_c / processors
    model = sizing.solve(processors=processors, cpu_time=s_c, wait_time=s_w,
                         arrival_rate=arrival_rate).response_time
    one = processors == 1
    return pd.DataFrame([
        {"formula": "S/(1 - U)", "value": s / (1 - utilization),
         "holds": one and s_w == 0,
         "condition": "one processor, all of S on it, open arrivals, no limits"},
        {"formula": "s_c/(1 - U) + s_w", "value": s_c / (1 - utilization) + s_w,
         "holds": one, "condition": "one processor, no pool, open arrivals, no limits"},
        {"formula": "the model", "value": model, "holds": True,
         "condition": f"{processors} processors, no pool, open arrivals, no limits"},
    ])


def load_curves(sized: sizing.Sizing, rates: Any, *, small_pool: int) -> pd.DataFrame:
    """The server over a range of arrival ``rates`` at the sized settings and three others.

    One row per rate and setting, with the throughput, response time and share refused: the
    sized threads, pool and bound (T, C, B); the same with no bound on admitted requests; the
    same with a pool of ``small_pool`` connections; and virtual threads (no thread limit) with
    the sized pool and bound. ``setting`` labels each.
    """
    inputs = sized.inputs
    rates = np.unique(np.asarray(rates, dtype=np.float64))
    if rates.size == 0 or not np.all(np.isfinite(rates)) or rates[0] <= 0:
        raise ValueError(f"rates must hold numbers > 0, got {rates!r}")
    small = integer(small_pool, "small_pool", low=1, high=10**5)
    T, C, B = sized.threads, sized.connections, sized.capacity
    settings = [
        (f"T = {T}, C = {C}, B = {B}", T, C, B),
        (f"T = {T}, C = {C}, no bound on B", T, C, None),
        (f"T = {T}, C = {small}, B = {B}", T, small, B),
        (f"virtual threads, C = {C}, B = {B}", None, C, B),
    ]
    rows = []
    for label, threads, connections, capacity in settings:
        for rate in rates:
            st = sizing.solve(processors=inputs["processors"], cpu_time=inputs["cpu_time"],
                              wait_time=inputs["wait_time"], threads=threads,
                              connections=connections, capacity=capacity,
                              arrival_rate=float(rate))
            rows.append({"rate": float(rate), "setting": label,
                         "throughput": st.throughput if st.stable else np.nan,
                         "response_time": st.response_time if st.stable else np.nan,
                         "refused": st.refused, "utilization": st.utilization})
    return pd.DataFrame(rows)
