"""The keep-alive experiment's clients, run by Locust (``locust -f <this file> --ka-spec JSON``).

As the blog's client did: ``clients`` threads (Locust users), each sending
``requests_per_client`` requests one after another with no think time, over one connection at
a time that it keeps open until the server closes it (Tomcat closes a connection with its
``maxKeepAliveRequests``-th answer, saying ``Connection: close``); then it opens the next.

The connection is the standard library's :class:`http.client.HTTPConnection` (made
cooperative by Locust's gevent), not Locust's own HTTP clients, because the experiment counts
connections: the user opens each one itself and knows when it does. Over HTTPS it resumes the
TLS session of its previous connection (session tickets), as the blog's client did.

Every request is one row: the client, its sequence number, the connection it went over
(numbered per client), whether it opened that connection, whether the TLS session was resumed
there, when it was sent (seconds after the common start), how long it took until the last byte
of the answer (connection and TLS handshake included, as libcurl's total time), the status and
the body's bytes. All clients start together after ``start_delay_s``; the run ends when the
last one has had its last answer. The runner starts this file; it is not meant to be imported.
"""

from __future__ import annotations

import csv
import http.client
import json
import ssl
import time
from typing import Any

import gevent
from locust import User, constant, events, task
from locust.exception import StopUser

FIELDS = ("user", "seq", "connection", "opened", "resumed", "start_s", "latency_ms", "outcome",
          "status", "bytes")

_state: dict[str, Any] = {"rows": [], "users": 0, "t0": None, "tls": {}}


@events.init_command_line_parser.add_listener
def _arguments(parser) -> None:
    parser.add_argument("--ka-spec", type=str, default="{}", include_in_web_ui=False,
                        help="the run's settings as JSON (written by queuetune.lab)")


def _spec(environment) -> dict[str, Any]:
    return json.loads(environment.parsed_options.ka_spec)


class _ResumingHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS that offers the previous connection's TLS session when it opens a new one."""

    session: ssl.SSLSession | None = None
    tls_socket: ssl.SSLSocket | None = None

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)
        self.sock = self._context.wrap_socket(self.sock, server_hostname=self.host,
                                              session=self.session)
        self.tls_socket = self.sock


class KeepAliveClient(User):
    """One client thread of the blog's test: a fixed number of requests, no think time."""

    wait_time = constant(0)

    def __init__(self, environment):
        super().__init__(environment)
        self.spec = _spec(environment)
        self.index = _state["users"]
        _state["users"] += 1
        self.seq = 0
        self.connections = 0
        self.conn = self._connection()

    def _connection(self) -> http.client.HTTPConnection:
        s = self.spec
        if s["tls"]:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE  # the run's own self-signed certificate
            return _ResumingHTTPSConnection(s["address"], s["port"], timeout=s["timeout_s"],
                                            context=context)
        return http.client.HTTPConnection(s["address"], s["port"], timeout=s["timeout_s"])

    def on_start(self) -> None:
        gevent.sleep(max(_state["t0"] + self.spec["start_delay_s"] - time.perf_counter(), 0.0))

    @task
    def request(self) -> None:
        s, conn = self.spec, self.conn
        if self.seq >= s["requests_per_client"]:
            raise StopUser()
        opened = conn.sock is None
        if opened:
            self.connections += 1
        start = time.perf_counter()
        status, size, outcome, resumed = 0, 0, "ok", None
        try:
            conn.request("GET", s["path"])
            tls = getattr(conn, "tls_socket", None)
            answer = conn.getresponse()
            if tls is not None and opened:
                resumed = int(tls.session_reused)
                _state["tls"].setdefault("version", tls.version())
                _state["tls"].setdefault("cipher", tls.cipher()[0])
            if tls is not None:
                conn.session = tls.session
            body = answer.read()
            status, size = answer.status, len(body)
            outcome = "ok" if status == 200 else f"http-{status}"
        except (OSError, http.client.HTTPException) as exc:
            outcome = f"error-{type(exc).__name__}"
            conn.close()
        end = time.perf_counter()
        t0 = _state["t0"] + s["start_delay_s"]
        _state["rows"].append((self.index, self.seq, self.connections, int(opened), resumed,
                               round(start - t0, 6), round((end - start) * 1000, 4), outcome,
                               status, size))
        events.request.fire(request_type="GET", name="page", response_time=(end - start) * 1000,
                            response_length=size, exception=None if outcome == "ok" else outcome,
                            context={})
        self.seq += 1

    def on_stop(self) -> None:
        self.conn.close()


@events.test_start.add_listener
def _on_start(environment, **_kwargs) -> None:
    _state["t0"] = time.perf_counter()
    _state["t0_epoch"] = time.time()
    gevent.spawn(_finish_when_done, environment)


def _finish_when_done(environment) -> None:
    """Write the rows and quit once every client has stopped (or at the deadline)."""
    runner, spec = environment.runner, _spec(environment)
    deadline = spec["start_delay_s"] + spec["deadline_s"]
    while True:
        gevent.sleep(0.1)
        elapsed = time.perf_counter() - _state["t0"]
        if elapsed < spec["start_delay_s"] + 0.5:
            continue
        if runner.user_count == 0 or elapsed > deadline:
            break
    rows = sorted(_state["rows"], key=lambda r: (r[0], r[1]))
    with open(spec["out"], "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(FIELDS)
        writer.writerows(rows)
    with open(spec["out"] + ".json", "w", encoding="utf-8") as handle:
        json.dump({"t0_epoch": _state["t0_epoch"] + spec["start_delay_s"], "rows": len(rows),
                   "locust_requests": environment.stats.total.num_requests,
                   "users": _state["users"], "tls": _state["tls"]}, handle)
    runner.quit()
