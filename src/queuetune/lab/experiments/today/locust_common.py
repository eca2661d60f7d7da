"""What the two Locust files of today's experiment share (imported by them only: it registers
Locust event listeners): the run's spec, the rows of the requests, and the run's end.

Every request becomes one row: who sent it, when it was planned and when it was sent (its
lateness), how long it took, what came back, and what the server said in its headers: the
processor time of the arithmetic, the time spent waiting for a permit of the pool, whether
a virtual thread ran it, and, where the page draws the work (``dist``), the drawn iterations and
wait and how many of them its bounds capped. Each request carries the seed of its draws
(``draw_seed``: from the campaign's seed, the run, the client and the request's number).
"""

from __future__ import annotations

import csv
import hashlib
import json
import time
from typing import Any

import gevent
import geventhttpclient.client as _geventhttpclient
from geventhttpclient.response import HTTPConnectionClosed
from locust import events
from locust.runners import MasterRunner, WorkerRunner

# geventhttpclient sends a GET again when its connection closes without an answer: a refusal
# would vanish or turn into a late success. Every attempt is counted: nothing is sent twice.
_geventhttpclient._may_retry_after_send_error = lambda method: False

FIELDS = ("run", "user", "seq", "planned_s", "start_s", "lateness_ms", "latency_ms", "outcome",
          "status", "bytes", "server_cpu_us", "permit_wait_us", "virtual", "drawn_work",
          "drawn_wait_us", "capped")
DRAW_SEED_HEADER = "X-Queuetune-Draw-Seed"

state: dict[str, Any] = {"rows": [], "users": 0, "t0": None, "t0_epoch": None}


@events.init_command_line_parser.add_listener
def _arguments(parser) -> None:
    parser.add_argument("--lab-spec", type=str, default="{}", include_in_web_ui=False,
                        help="the run's settings as JSON (written by queuetune.lab)")


@events.init.add_listener
def _refuse_distributed(environment, **_kwargs) -> None:
    if isinstance(environment.runner, MasterRunner | WorkerRunner):
        raise SystemExit("today's experiment runs its load generator in one process")


def spec_of(environment) -> dict[str, Any]:
    return json.loads(environment.parsed_options.lab_spec)


def headers_of(spec: dict[str, Any]) -> dict[str, str]:
    return {**(spec.get("headers") or {}),
            **({} if spec["keep_alive"] else {"Connection": "close"})}


def _header(headers, name: str) -> int | None:
    try:
        value = int(headers[name])
    except (KeyError, TypeError, ValueError):
        return None
    return value if value >= 0 else None


@events.request.add_listener
def _record(response, exception, context, response_length, **_kwargs) -> None:
    seen = (context or {}).get("lab")
    if seen is None:
        return
    seen["exception"] = exception
    seen["status"] = int(getattr(response, "status_code", 0) or 0)
    seen["bytes"] = int(response_length or 0)
    headers = getattr(response, "headers", None) or {}
    seen["cpu_us"] = _header(headers, "X-Queuetune-Cpu-Us")
    seen["wait_us"] = _header(headers, "X-Queuetune-Permit-Wait-Us")
    seen["virtual"] = _header(headers, "X-Queuetune-Virtual")
    seen["drawn_work"] = _header(headers, "X-Queuetune-Drawn-Work")
    seen["drawn_wait_us"] = _header(headers, "X-Queuetune-Drawn-Wait-Us")
    seen["capped"] = _header(headers, "X-Queuetune-Capped")


def draw_seed(seed: int, run: int, user: int, seq: int) -> int:
    """The seed of one request's draws on the page: a 63-bit hash of who sent it (the same
    request of the same campaign draws the same values; distinct requests, distinct streams;
    tested in a process of its own, as this module patches the process for gevent)."""
    digest = hashlib.blake2b(f"{seed}:{run}:{user}:{seq}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def classify(exception: BaseException | None, status: int) -> tuple[str, int]:
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


def send(client, spec: dict[str, Any], headers: dict[str, str], *, user: int, seq: int,
         planned: float) -> None:
    """Send one request now (``planned``: when it should have gone, from the run's start) and
    keep its row."""
    t0 = state["t0"]
    now = time.perf_counter()
    seen: dict[str, Any] = {}
    headers = {**headers, DRAW_SEED_HEADER: str(draw_seed(spec["seed"], spec["run"], user, seq))}
    client.get(spec["path"], name="today", headers=headers, context={"lab": seen})
    end = time.perf_counter()
    outcome, status = classify(seen.get("exception"), seen.get("status", 0))
    state["rows"].append((
        spec["run"], user, seq, round(planned, 6), round(now - t0, 6),
        round((now - t0 - planned) * 1000, 3), round((end - now) * 1000, 3), outcome, status,
        seen.get("bytes", 0), seen.get("cpu_us"), seen.get("wait_us"), seen.get("virtual"),
        seen.get("drawn_work"), seen.get("drawn_wait_us"), seen.get("capped"),
    ))


@events.test_start.add_listener
def _on_start(environment, **_kwargs) -> None:
    state["t0"] = time.perf_counter()
    state["t0_epoch"] = time.time()
    gevent.spawn(_finish_when_done, environment)


def _finish_when_done(environment) -> None:
    """End the run once every user has stopped (or at the deadline), then write the rows."""
    runner, spec = environment.runner, spec_of(environment)
    deadline = spec["stop_s"] + spec["timeout_s"] + 5.0
    while True:
        gevent.sleep(0.2)
        elapsed = time.perf_counter() - state["t0"]
        if elapsed >= spec["stop_s"] and (runner.user_count == 0 or elapsed > deadline):
            break
    _write(spec, environment.stats.total.num_requests)
    runner.quit()


def _write(spec: dict[str, Any], locust_requests: int) -> None:
    rows = sorted(state["rows"], key=lambda r: (r[1], r[2]))
    with open(spec["out"], "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(FIELDS)
        writer.writerows(rows)
    with open(spec["out"] + ".json", "w", encoding="utf-8") as handle:
        json.dump({"t0_epoch": state["t0_epoch"], "rows": len(rows),
                   "locust_requests": locust_requests}, handle)
