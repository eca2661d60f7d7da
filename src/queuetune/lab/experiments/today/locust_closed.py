"""Closed-loop clients for today's experiment (``locust -f <this file> --lab-spec '<json>'``).

Each client sends a request, waits for its answer, thinks for an exponential time drawn from
its own seeded stream, and sends again (as the lab's Imre clients). ``lateness_ms`` is how late
a request was sent against its plan (the end of the previous answer plus the think time).
"""

from __future__ import annotations

import importlib.util
import random
import sys
import time
from pathlib import Path

import gevent
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


class Client(FastHttpUser):
    """One closed-loop client with its own stream of think times."""

    concurrency = 1
    max_retries = 0

    def __init__(self, environment):
        spec = locust_common.spec_of(environment)
        self.network_timeout = self.connection_timeout = float(spec["timeout_s"])
        super().__init__(environment)
        self.spec = spec
        self.index = locust_common.state["users"]
        locust_common.state["users"] += 1
        self.rng = random.Random(f"{spec['seed']}:{spec['run']}:{self.index}")
        self.headers = locust_common.headers_of(spec)
        self.think = 0.0
        self.planned = 0.0
        self.seq = 0

    def on_start(self) -> None:
        """The clients start evenly over the ramp."""
        spec = self.spec
        self.planned = spec["ramp_s"] * self.index / spec["clients"]
        gevent.sleep(max(locust_common.state["t0"] + self.planned - time.perf_counter(), 0.0))

    def wait_time(self) -> float:
        return self.think

    @task
    def request(self) -> None:
        spec, t0 = self.spec, locust_common.state["t0"]
        if time.perf_counter() - t0 >= spec["stop_s"]:
            raise StopUser()
        locust_common.send(self.client, spec, self.headers, user=self.index, seq=self.seq,
                        planned=self.planned)
        self.seq += 1
        mean = spec["think_s"]
        self.think = self.rng.expovariate(1.0 / mean) if mean > 0 else 0.0
        self.planned = time.perf_counter() - t0 + self.think
