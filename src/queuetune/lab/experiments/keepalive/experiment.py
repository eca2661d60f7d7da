"""What the lab's runner asks of the keep-alive experiment (see ``experiments/README.md``):
its factors and settings, its server, its load and how a run is summarized.

Factors: ``tls`` (plain HTTP or HTTPS), ``requests_per_connection`` (Tomcat's
``maxKeepAliveRequests``; 1 turns keep-alive off) and ``clients``. Each configuration gets a
fresh Tomcat (:mod:`.server_config`), warmed up on a second port; the clients are Locust users with
one connection each (:mod:`.locust_clients`); the run is summarized by :mod:`.summary`, and the
sockets left in ``TIME_WAIT`` are counted with ``ss`` on both ends of the measured port.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ...._validation import integer, real
from ... import processes
from ...campaign import Campaign, Factor, Run, get, only
from ...harness import Measured, Server, Session
from ...monitor import CpuMonitor
from ...tomcat import free_port, java_version, tomcat_version
from .server_config import PAGE, KeepAliveSettings, KeepAliveTomcat, client_context
from .summary import expected_connections, summarize_requests, time_wait_counts
from .tables import TABLES

__all__ = ["NAME", "TITLE", "FACTORS", "TABLES", "Settings", "parse_settings", "schedule",
           "estimated_seconds", "describe", "readme_lines", "server", "prepare", "measure",
           "preflight", "locustfile", "warm_up", "count_time_wait", "time_wait_now"]

NAME = "keepalive"
TITLE = "The keep-alive test of domino-keepalive: requests per connection on Tomcat"
#: Seconds to start a Tomcat, and requests per second a run sends on this kind of machine
#: (for the plan's estimate only).
SERVER_START_S = 6.0
REQUESTS_PER_S = 600.0
TIME_WAIT_NOTE = (
    "Counted with `ss -Htan state time-wait` just after each run, on both ends of the measured "
    "port; a socket in TIME_WAIT belongs to the side that closed its connection first. Linux "
    "keeps it there 60 s; a run shorter than that leaves every closed connection counted, "
    "unless a new connection from the same client port takes its TIME_WAIT socket over "
    "(Linux lets a SYN with a newer timestamp do so), which happens when client and server "
    "share one host and the client's ports come round again.")


def locustfile() -> Path:
    return Path(__file__).with_name("locust_clients.py")


@dataclass(frozen=True)
class Settings:
    requests_per_client: int
    response_bytes: int
    threads: int
    connection_timeout_ms: int
    heap_mb: int
    server_cores: tuple[int, ...]
    generator_cores: tuple[int, ...]
    warmup_requests: int
    start_delay_s: float
    timeout_s: float


_SECTIONS = ("load", "server", "timing")


def _cores(value: Any, key: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(c, int) and not isinstance(c, bool)
                                              and 0 <= c < 4096 for c in value):
        raise ValueError(f"{key} must be a list of core numbers (0 to 4095), got {value!r}")
    return tuple(value)


def parse_settings(raw: Mapping[str, Any]) -> Settings:
    """The experiment's own tables of a campaign file ([load], [server], [timing]), checked."""
    only(raw, _SECTIONS, "the campaign file")
    for section in _SECTIONS:
        if not isinstance(raw.get(section), Mapping):
            raise ValueError(f"the campaign file needs a [{section}] table")
    load, srv, timing = raw["load"], raw["server"], raw["timing"]
    only(load, ("requests_per_client", "response_bytes"), "[load]")
    only(srv, ("threads", "connection_timeout_ms", "heap_mb", "server_cores",
               "generator_cores"), "[server]")
    only(timing, ("warmup_requests", "start_delay_s", "timeout_s"), "[timing]")
    return Settings(
        requests_per_client=integer(get(load, "requests_per_client", "load"),
                                    "load.requests_per_client", low=1, high=1_000_000),
        response_bytes=integer(get(load, "response_bytes", "load"), "load.response_bytes",
                               low=100, high=10_000_000, unit="bytes"),
        threads=integer(get(srv, "threads", "server"), "server.threads", low=1, high=10_000),
        connection_timeout_ms=integer(get(srv, "connection_timeout_ms", "server"),
                                      "server.connection_timeout_ms", low=1, high=3_600_000,
                                      unit="ms"),
        heap_mb=integer(get(srv, "heap_mb", "server"), "server.heap_mb", low=32,
                        high=1_000_000, unit="MB"),
        server_cores=_cores(get(srv, "server_cores", "server"), "server.server_cores"),
        generator_cores=_cores(get(srv, "generator_cores", "server"),
                               "server.generator_cores"),
        warmup_requests=integer(get(timing, "warmup_requests", "timing"),
                                "timing.warmup_requests", low=0, high=1_000_000),
        start_delay_s=real(get(timing, "start_delay_s", "timing"), "timing.start_delay_s",
                           low=0.5, high=60.0, unit="s"),
        timeout_s=real(get(timing, "timeout_s", "timing"), "timing.timeout_s", low=1.0,
                       high=3600.0, unit="s"),
    )


def _tls(value: Any, key: str, settings: Settings) -> bool:  # noqa: ARG001
    if not isinstance(value, bool):
        raise ValueError(f"{key} must be true (HTTPS) or false (HTTP), got {value!r}")
    return value


def _count(low: int, high: int):
    def check(value: Any, key: str, settings: Settings) -> int:  # noqa: ARG001
        return integer(value, key, low=low, high=high)
    return check


FACTORS: dict[str, Factor] = {
    "tls": Factor("tls", _tls, "false: HTTP; true: HTTPS with a certificate made for the run",
                  default=lambda s: False),
    "requests_per_connection": Factor(
        "requests_per_connection", _count(1, 100_000),
        "Tomcat's maxKeepAliveRequests, 1 (keep-alive off) to 100000"),
    "clients": Factor("clients", _count(1, 1000),
                      "client threads, each with one connection at a time, 1 to 1000",
                      server=False),
}


def schedule(plan: Campaign) -> list[Run]:
    """The design's cells, in its order (plain HTTP first in the built-in campaign)."""
    return plan.cells()


def estimated_seconds(plan: Campaign, *, starts_server: bool = True) -> float:
    s = plan.settings
    runs = plan.schedule()
    sending = sum(r["clients"] * s.requests_per_client / REQUESTS_PER_S + s.start_delay_s + 3
                  for r in runs)
    starts = len(plan.server_groups()) * (SERVER_START_S + s.warmup_requests / REQUESTS_PER_S)
    return sending + (starts if starts_server else 0.0)


def preflight(plan: Campaign, options: Any) -> None:
    """Tools and cores, before anything is started or written."""
    if getattr(options, "target", None) is not None:
        raise ValueError("the keep-alive experiment starts its own Tomcat (its TIME_WAIT "
                         "count needs both ends on this machine): run it without --target")
    cores = set(os.sched_getaffinity(0))
    for key, wanted in (("server.server_cores", plan.settings.server_cores),
                        ("server.generator_cores", plan.settings.generator_cores)):
        missing = sorted(set(wanted) - cores)
        if missing:
            raise ValueError(f"{key} lists cores {missing} that this machine does not offer "
                             f"(available: {sorted(cores)})")
    for tool in ("ss", "keytool"):
        if shutil.which(tool) is None:
            raise ValueError(f"the keep-alive experiment needs {tool} (iproute2, and the Java "
                             f"runtime's keytool): install it")
    tomcat_version()  # raises ServerError naming what is missing


def _jvm_options(s: Settings) -> list[str]:
    return KeepAliveSettings(keep_alive_requests=1, port=1, warm_port=2, heap_mb=s.heap_mb,
                             cores=s.server_cores).jvm_options()


def describe(plan: Campaign, options: Any) -> dict[str, Any]:  # noqa: ARG001
    s = plan.settings
    return {
        "server": ("Apache Tomcat started by the runner on 127.0.0.1 (a fresh CATALINA_BASE "
                   "per configuration; a second port of the same server takes the warm-up)"),
        "load_generator": ("Locust (one process), a user class with one http.client "
                           "connection at a time per client"),
        "pinning": {"server_cores": list(s.server_cores),
                    "generator_cores": list(s.generator_cores), "tool": "taskset"},
        "jvm_options": _jvm_options(s),
        "time_wait": TIME_WAIT_NOTE,
        "settings": {**asdict(s), "seed": plan.seed,
                     "design": [{k: list(v) for k, v in table.items()}
                                for table in plan.design]},
        "server_versions": {"tomcat": tomcat_version(), "java": java_version()},
    }


def readme_lines(metadata: dict) -> list[str]:
    m = metadata["measurement"]
    box = m["machine"]
    lines = [
        "## Where and with what", "",
        f"- Date (UTC): {m['date']}",
        f"- Machine: {box['cpu_model']}, {box['logical_cores']} logical cores, "
        f"{box['memory_gib']} GiB",
        f"- System: {box['os']}, Linux {box['kernel']}",
        f"- Server: {m['server']}; {box['tomcat']}; {box['java']}",
        f"- JVM options: `{' '.join(m['jvm_options'])}`",
        f"- Load generator: {m['load_generator']}; Locust {box['locust']}, "
        f"Python {box['python']}",
        f"- Pinning (taskset): server on cores {m['pinning']['server_cores']}, generator on "
        f"cores {m['pinning']['generator_cores']}",
        f"- TIME_WAIT: {m['time_wait']}",
    ]
    if m.get("note"):
        lines += ["", f"Note: {m['note']}"]
    lines += ["", "## Tables", "", *(f"- `{t.path}`: {t.title}" for t in TABLES.values()), "",
              "A data set is never overwritten: running the campaign again writes a new "
              "folder beside this one."]
    return lines


# -- running --------------------------------------------------------------------------------


def _label(run: Run) -> str:
    scheme = "HTTPS" if run["tls"] else "HTTP"
    return f"{scheme}, maxKeepAliveRequests {run['requests_per_connection']}"


@contextlib.contextmanager
def server(session: Session, run: Run) -> Iterator[Server]:
    """A Tomcat for one configuration: the page on a measured and a warm-up port."""
    s: Settings = session.plan.settings
    port = free_port()
    warm_port = free_port()
    while warm_port == port:
        warm_port = free_port()
    settings = KeepAliveSettings(
        keep_alive_requests=run["requests_per_connection"], port=port, warm_port=warm_port,
        tls=run["tls"], threads=s.threads, connection_timeout_ms=s.connection_timeout_ms,
        heap_mb=s.heap_mb, response_bytes=s.response_bytes, cores=s.server_cores)
    with session.progress(f"{_label(run)}: starting the server"):
        tomcat = KeepAliveTomcat(settings)
        tomcat.start()
    try:
        yield Server(url=tomcat.url, pids=lambda: [tomcat.pid] if tomcat.alive() else [],
                     counters=tomcat.settle, alive=tomcat.alive, probe=tomcat.probe,
                     cores=s.server_cores, handle=tomcat)
    finally:
        tomcat.stop()


def warm_up(host: str, port: int, *, requests: int, tls: bool, timeout_s: float = 30.0) -> int:
    """Send ``requests`` requests for the page (reconnecting when the server closes), so that
    the JIT has compiled the request path before the measured run; returns those answered."""
    answered, conn = 0, None
    for _ in range(requests):
        if conn is None:
            conn = (http.client.HTTPSConnection(host, port, timeout=timeout_s,
                                                context=client_context()) if tls
                    else http.client.HTTPConnection(host, port, timeout=timeout_s))
        try:
            conn.request("GET", f"/{PAGE}")
            answer = conn.getresponse()
            answer.read()
            answered += answer.status == 200
            if answer.will_close:
                conn.close()
                conn = None
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = None
    if conn is not None:
        conn.close()
    return answered


def prepare(session: Session, server_: Server, run: Run) -> None:
    """Warm the JIT on the server's second port (its connections are not counted)."""
    tomcat = server_.handle
    s: Settings = session.plan.settings
    with session.progress(f"{_label(run)}: warming up"):
        session.state["warmup_answered"] = warm_up(
            tomcat.settings.address, tomcat.settings.warm_port, requests=s.warmup_requests,
            tls=tomcat.settings.tls, timeout_s=s.timeout_s)


def count_time_wait(port: int, address: str = "127.0.0.1") -> dict:
    """``TIME_WAIT`` sockets of the server's port now, on each side (``ss``, iproute2)."""
    return time_wait_counts(time_wait_now(), port=port, address=address)


def time_wait_now() -> str:
    """The machine's TCP sockets in ``TIME_WAIT`` now: ``ss -Htan state time-wait``."""
    ss = shutil.which("ss")
    if ss is None:
        raise RuntimeError("ss (iproute2) is needed to count TIME_WAIT sockets")
    return subprocess.run([ss, "-Htan", "state", "time-wait"], capture_output=True, text=True,
                          timeout=60, check=True).stdout


def _run_locust(s: Settings, run: Run, tomcat: KeepAliveTomcat, workdir: Path,
                monitor: CpuMonitor) -> tuple[Path, dict]:
    out = workdir / "requests.csv"
    ks = tomcat.settings
    spec = {"address": ks.address, "port": ks.port, "tls": ks.tls, "path": f"/{PAGE}",
            "requests_per_client": s.requests_per_client, "start_delay_s": s.start_delay_s,
            "timeout_s": s.timeout_s,
            "deadline_s": s.timeout_s * 10 + s.requests_per_client, "out": str(out)}
    limit = int(spec["start_delay_s"] + spec["deadline_s"] + 60)
    command = [sys.executable, "-m", "locust", "-f", str(locustfile()), "--headless",
               "--host", tomcat.url, "--users", str(run["clients"]),
               "--spawn-rate", str(run["clients"] * 10), "--run-time", f"{limit}s",
               "--exit-code-on-error", "0", "--only-summary", "--loglevel", "WARNING",
               "--ka-spec", json.dumps(spec)]
    if s.generator_cores:
        command = ["taskset", "-c", ",".join(map(str, s.generator_cores)), *command]
    log_path = workdir / "locust.log"
    with open(log_path, "wb") as log:
        process = processes.spawn(command, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                  log=log)
        monitor.add_group("generator", lambda: [process.pid] if process.poll() is None else [])
        try:
            process.wait(timeout=limit + 30)
        finally:
            monitor.sample()
            processes.end(process)
    if not Path(str(out) + ".json").is_file():
        tail = log_path.read_text(errors="replace").splitlines()[-15:]
        raise RuntimeError("Locust exited without writing its rows; its log ends with:\n"
                           + "\n".join(tail))
    return out, json.loads(Path(str(out) + ".json").read_text())


def measure(session: Session, server_: Server, run: Run, monitor: CpuMonitor) -> Measured:
    """One run: the clients under Locust, then the TIME_WAIT count and the server's log."""
    s: Settings = session.plan.settings
    tomcat: KeepAliveTomcat = server_.handle
    port = tomcat.settings.port
    load_1min = round(os.getloadavg()[0], 2)
    before = count_time_wait(port, tomcat.settings.address)
    answered_before = tomcat.answered_on(port)
    with session.progress(f"{_label(run)}, {run['clients']} clients"), \
            processes.temporary_folder("queuetune-keepalive-") as tmp:
        out, meta = _run_locust(s, run, tomcat, Path(tmp), monitor)
        after = count_time_wait(port, tomcat.settings.address)
        rows = pd.read_csv(out, keep_default_na=False, na_values=[""],
                           dtype={"resumed": "Int64"})
    tomcat.settle()
    summary = summarize_requests(rows)
    start = meta["t0_epoch"]
    window = (start, start + summary["total_run_time_s"])
    expected = expected_connections(clients=run["clients"], requests=s.requests_per_client,
                                    keep_alive_requests=run["requests_per_connection"])
    row = {
        "scheme": "https" if run["tls"] else "http",
        "keep_alive_requests": run["requests_per_connection"], "clients": run["clients"],
        "requests_per_client": s.requests_per_client, **summary,
        "server_answered": tomcat.answered_on(port) - answered_before,
        "locust_requests": int(meta["locust_requests"]),
        "expected_connections": expected,
        "time_wait_server": after["server"], "time_wait_client": after["client"],
        "time_wait_before_server": before["server"],
        "time_wait_before_client": before["client"],
        "generator_cpu": round(monitor.share("generator", *window), 4),
        "warmup_answered": session.state.get("warmup_answered"),
        "tls_version": meta["tls"].get("version"), "tls_cipher": meta["tls"].get("cipher"),
        "load_average_1min": load_1min,
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start)),
    }
    failed = _failed_checks(row, run["clients"] * s.requests_per_client)
    requests = [{k: (None if pd.isna(v) else v) for k, v in r.items()}
                for r in rows.to_dict("records")]
    return Measured(row=row, window=window, refused_seen=0,
                    connection_errors=int(summary["errors"]), tables={"requests": requests},
                    failed_checks=failed)


def _failed_checks(row: Mapping[str, Any], sent: int) -> list[str]:
    """The experiment's own checks: every request accounted for on both sides, and the
    connections the server's limit implies."""
    failed = []
    for name in ("requests", "server_answered", "locust_requests"):
        if row[name] != sent:
            failed.append(f"{name} is {row[name]}, not the {sent} requests sent")
    if row["connections_opened"] != row["expected_connections"]:
        failed.append(f"the clients opened {row['connections_opened']} connections where the "
                      f"limit implies {row['expected_connections']}")
    return failed
