"""The lab's virtual clients, run by Locust (``locust -f <this file> --lab-spec '<json>'``).

Each client is a closed loop, as the paper's JMeter clients were: it sends one request, waits
for the answer (or the error), thinks for an exponentially distributed time drawn from its own
seeded random stream, and sends again. Clients start gradually over the ramp. After the
measurement window a client sends nothing more; when every client has had its last answer, the
run ends by itself.

Every request becomes one row: the client, its sequence number, when it was sent (seconds since
the run started), how long it took, what came back (``ok``, ``closed``: the connection closed
without an answer, ``reset``, ``refused``, ``timeout``, ``http-<code>``), the think time planned
before it, and how late it was sent against that plan (the generator's lag).

The runner starts this file; it is not meant to be imported. With Locust's distributed mode the
workers send their rows to the master, which writes them (``--lab-spec`` reaches the workers
with the start of the run).
"""

from __future__ import annotations

import csv
import json
import random
import time
from typing import Any

import gevent
import geventhttpclient.client as _geventhttpclient
from geventhttpclient.response import HTTPConnectionClosed
from locust import FastHttpUser, events, task
from locust.exception import StopUser
from locust.runners import MasterRunner, WorkerRunner

# geventhttpclient sends a GET again, up to (connections + 1) times, when its connection closes
# without an answer. A refused request would then vanish: one error would stand for a dozen
# refusals, or a refusal would turn into a late success (measured: 12 refusals logged by the
# server per error seen). The lab counts every attempt, so nothing is sent twice.
_geventhttpclient._may_retry_after_send_error = lambda method: False

FIELDS = ("run", "worker", "user", "seq", "start_s", "latency_ms", "outcome", "status",
          "bytes", "think_s", "lag_ms", "server_cpu_us")
_FLUSH_S = 1.0

_state: dict[str, Any] = {"rows": [], "users": 0, "t0": None, "done_workers": set()}


@events.init_command_line_parser.add_listener
def _arguments(parser) -> None:
    parser.add_argument("--lab-spec", type=str, default="{}", include_in_web_ui=False,
                        help="the run's settings as JSON (written by queuetune.lab)")


def _spec(environment) -> dict[str, Any]:
    return json.loads(environment.parsed_options.lab_spec)


def _worker_index(environment) -> int:
    runner = environment.runner
    return int(getattr(runner, "worker_index", 0) or 0) if isinstance(runner, WorkerRunner) else 0


class VirtualClient(FastHttpUser):
    """One closed-loop client with its own stream of think times."""

    concurrency = 1  # one connection per client, as a browser tab or a JMeter thread
    max_retries = 0

    def __init__(self, environment):
        spec = _spec(environment)
        self.network_timeout = self.connection_timeout = float(spec["timeout_s"])
        super().__init__(environment)
        self.spec = spec
        self.worker = _worker_index(environment)
        self.index = _state["users"]
        _state["users"] += 1
        self.rng = random.Random(f"{spec['seed']}:{spec['run']}:{self.worker}:{self.index}")
        self.think = 0.0
        self.planned: float | None = None
        self.seq = 0
        self.headers = {**(spec.get("headers") or {}),
                        **({} if spec["keep_alive"] else {"Connection": "close"})}

    def on_start(self) -> None:
        """Wait for this client's turn: the clients start evenly over the ramp, as JMeter's
        threads do (Locust itself starts users in one-second batches)."""
        spec = self.spec
        workers = max(int(spec["workers"]), 1)
        order = self.index * workers + self.worker
        start = _state["t0"] + spec["ramp_s"] * order / spec["clients"]
        gevent.sleep(max(start - time.perf_counter(), 0.0))
        self.planned = start

    def wait_time(self) -> float:
        return self.think

    @task
    def request(self) -> None:
        spec, t0 = self.spec, _state["t0"]
        now = time.perf_counter()
        if now - t0 >= spec["stop_s"]:
            raise StopUser()
        lag_ms = (now - self.planned) * 1000
        seen: dict[str, Any] = {}
        self.client.get(spec["path"], name="work", headers=self.headers, context={"lab": seen})
        end = time.perf_counter()
        outcome, status = _classify(seen.get("exception"), seen.get("status", 0))
        _state["rows"].append((
            spec["run"], self.worker, self.index, self.seq, round(now - t0, 6),
            round((end - now) * 1000, 3), outcome, status, seen.get("bytes", 0),
            round(self.think, 6) if self.seq else None, round(lag_ms, 3), seen.get("cpu_us"),
        ))
        self.seq += 1
        mean = spec["think_s"]
        self.think = self.rng.expovariate(1.0 / mean) if mean > 0 else 0.0
        self.planned = end + self.think


@events.request.add_listener
def _record(response, exception, context, response_length, **_kwargs) -> None:
    seen = (context or {}).get("lab")
    if seen is None:
        return
    seen["exception"] = exception
    seen["status"] = int(getattr(response, "status_code", 0) or 0)
    seen["bytes"] = int(response_length or 0)
    headers = getattr(response, "headers", None) or {}
    try:
        seen["cpu_us"] = int(headers["X-Queuetune-Cpu-Us"])
    except (KeyError, TypeError, ValueError):
        seen["cpu_us"] = None


def _classify(exception: BaseException | None, status: int) -> tuple[str, int]:
    """What the client saw, in the words the data use."""
    if exception is None:
        return ("ok", status) if 200 <= status < 400 else (f"http-{status}", status)
    if 400 <= status:
        return f"http-{status}", status
    if isinstance(exception, HTTPConnectionClosed):
        return "closed", 0
    if isinstance(exception, ConnectionRefusedError):
        return "refused", 0
    if isinstance(exception, ConnectionResetError):
        return "reset", 0
    if isinstance(exception, TimeoutError | gevent.Timeout) or "timed out" in str(exception):
        return "timeout", 0
    return f"error-{type(exception).__name__}", 0


# -- the run's life: start, flush rows to whoever writes them, end when every client is done --


@events.test_start.add_listener
def _on_start(environment, **_kwargs) -> None:
    _state["t0"] = time.perf_counter()
    _state["t0_epoch"] = time.time()
    runner = environment.runner
    if isinstance(runner, WorkerRunner):
        gevent.spawn(_worker_loop, environment)
    elif not isinstance(runner, MasterRunner):
        gevent.spawn(_finish_when_done, environment, local=True)


@events.init.add_listener
def _on_init(environment, **_kwargs) -> None:
    runner = environment.runner
    if isinstance(runner, MasterRunner):
        runner.register_message("lab_rows", _master_rows)
        runner.register_message("lab_done", _master_done)
        environment.events.test_start.add_listener(
            lambda **kw: gevent.spawn(_finish_when_done, environment, local=False))


def _master_rows(environment, msg, **_kwargs) -> None:
    _state["rows"].extend(tuple(row) for row in msg.data["rows"])


def _master_done(environment, msg, **_kwargs) -> None:
    _state["done_workers"].add(msg.data["worker"])


def _worker_loop(environment) -> None:
    """Send rows to the master every second; say when this worker's clients are all done."""
    runner, spec = environment.runner, _spec(environment)
    while True:
        gevent.sleep(_FLUSH_S)
        _send_rows(runner)
        elapsed = time.perf_counter() - _state["t0"]
        if elapsed >= spec["stop_s"] and runner.user_count == 0:
            _send_rows(runner)
            # Locust's own count of this worker's requests goes to the master now, ahead of
            # "lab_done" on the same socket, instead of with the next periodic report (every
            # 3 s, WORKER_REPORT_INTERVAL): the master need not wait for it. Locust has no
            # public call for this; its version is pinned (requirements.txt).
            runner._send_stats()
            runner.send_message("lab_done", {"worker": _worker_index(environment)})
            return


def _send_rows(runner) -> None:
    rows, _state["rows"] = _state["rows"], []
    if rows:
        runner.send_message("lab_rows", {"rows": [list(r) for r in rows]})


def _finish_when_done(environment, *, local: bool) -> None:
    """End the run once every client has stopped (or at the deadline), then write the rows."""
    runner, spec = environment.runner, _spec(environment)
    deadline = spec["stop_s"] + spec["timeout_s"] + 5.0
    while True:
        gevent.sleep(0.2)
        elapsed = time.perf_counter() - _state["t0"]
        if elapsed < spec["stop_s"]:
            continue
        done = (runner.user_count == 0 if local
                else len(_state["done_workers"]) >= spec["workers"])
        if done or elapsed > deadline:
            break
    if not local:
        # Locust's own count comes with the workers' reports: each worker sends its last
        # before "lab_done" (_worker_loop); a worker that could not is given time to.
        patience = time.perf_counter() + 7.0
        while (environment.stats.total.num_requests < len(_state["rows"])
               and time.perf_counter() < patience):
            gevent.sleep(0.2)
    _write(spec, environment.stats.total.num_requests)
    runner.quit()


def _write(spec: dict[str, Any], locust_requests: int) -> None:
    rows = sorted(_state["rows"], key=lambda r: (r[1], r[2], r[3]))
    with open(spec["out"], "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(FIELDS)
        writer.writerows(rows)
    with open(spec["out"] + ".json", "w", encoding="utf-8") as handle:
        json.dump({"t0_epoch": _state["t0_epoch"], "rows": len(rows),
                   "locust_requests": locust_requests}, handle)
