"""Open-loop arrivals for today's experiment (``locust -f <this file> --lab-spec '<json>'``).

Why Locust, and how: Locust is the lab's load tool (the harness starts, pins, monitors and stops
it), but its users are closed loops. Open arrivals are one Locust user that walks a seeded
Poisson schedule (:func:`..arrivals.arrival_times`, rate ``1 / think_s`` of the spec: the mean
gap between arrivals) and spawns one greenlet per planned arrival, at its time, whether or not
earlier requests were answered: no coordinated omission. Each row records the planned time and
how late the send really was (``lateness_ms``: the generator falling behind shows there, and
the run is flagged when it passes the campaign's limit). Requests still unanswered at the end
wait up to the request timeout.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import gevent
from gevent.pool import Group
from locust import FastHttpUser, task
from locust.exception import StopUser


def _sibling(name: str):
    """The module ``name`` beside this file, loaded by its path: the Locust process never
    imports the queuetune package (whose import takes seconds on a busy machine)."""
    key = f"queuetune_today_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, Path(__file__).with_name(f"{name}.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


locust_common = _sibling("locust_common")
arrivals = _sibling("arrivals")


class Arrivals(FastHttpUser):
    """The whole arrival process of a run (the spec asks for one user)."""

    # connections at once: far above what a run keeps open, so that no arrival waits for a
    # free connection of the client (that wait would be a hidden closed loop)
    concurrency = 20_000
    max_retries = 0

    def __init__(self, environment):
        spec = locust_common.spec_of(environment)
        self.network_timeout = self.connection_timeout = float(spec["timeout_s"])
        super().__init__(environment)
        self.spec = spec
        self.headers = locust_common.headers_of(spec)

    @task
    def arrive(self) -> None:
        spec, t0 = self.spec, locust_common.state["t0"]
        times = arrivals.arrival_times(arrival_rate=1.0 / spec["think_s"],
                                       duration_s=spec["stop_s"],
                                       seed=spec["seed"] * 100_003 + spec["run"])
        group = Group()
        for seq, planned in enumerate(times.tolist()):
            delay = t0 + planned - time.perf_counter()
            if delay > 0:
                gevent.sleep(delay)
            group.spawn(locust_common.send, self.client, spec, self.headers, user=0, seq=seq,
                        planned=planned)
        group.join(timeout=spec["timeout_s"] + 2.0)
        group.kill(block=False)
        raise StopUser()
