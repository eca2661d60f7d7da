"""One configuration of the keep-alive experiment, measured: a fresh Tomcat, a warm-up on its
second port, the clients under Locust, then the ``TIME_WAIT`` count and the server's log.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import psutil

from ... import processes
from ...monitor import CpuMonitor
from ...tomcat import free_port
from .server import PAGE, KeepAliveSettings, KeepAliveTomcat, client_context
from .summary import summarize_requests, time_wait_counts

__all__ = ["Configuration", "RunResult", "measure", "warm_up", "count_time_wait", "locustfile"]


def locustfile() -> Path:
    return Path(__file__).with_name("locustfile.py")


@dataclass(frozen=True)
class Configuration:
    """One run: a protocol and a per-connection limit, with the campaign's load."""

    run: int
    scheme: str  # "http" or "https"
    keep_alive_requests: int
    clients: int = 10
    requests_per_client: int = 1000
    response_bytes: int = 5887
    threads: int = 20
    connection_timeout_ms: int = 20000
    heap_mb: int = 256
    server_cores: tuple[int, ...] = ()
    generator_cores: tuple[int, ...] = ()
    warmup_requests: int = 3000
    start_delay_s: float = 2.0
    timeout_s: float = 30.0

    def __post_init__(self) -> None:
        if self.scheme not in ("http", "https"):
            raise ValueError(f"scheme must be 'http' or 'https', got {self.scheme!r}")
        if not 1 <= self.clients <= 1000:
            raise ValueError(f"clients must be between 1 and 1000, got {self.clients}")
        if not 1 <= self.requests_per_client <= 1_000_000:
            raise ValueError("requests_per_client must be between 1 and 1000000, got "
                             f"{self.requests_per_client}")
        if not 0 <= self.warmup_requests <= 1_000_000:
            raise ValueError("warmup_requests must be between 0 and 1000000, got "
                             f"{self.warmup_requests}")

    def settings(self, *, port: int, warm_port: int) -> KeepAliveSettings:
        return KeepAliveSettings(
            keep_alive_requests=self.keep_alive_requests, port=port, warm_port=warm_port,
            tls=self.scheme == "https", threads=self.threads,
            connection_timeout_ms=self.connection_timeout_ms, heap_mb=self.heap_mb,
            response_bytes=self.response_bytes, cores=self.server_cores)


@dataclass
class RunResult:
    configuration: Configuration
    rows: pd.DataFrame
    summary: dict


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


def count_time_wait(port: int, address: str = "127.0.0.1") -> dict:
    """``TIME_WAIT`` sockets of the server's port now, on each side (``ss``, iproute2)."""
    ss = shutil.which("ss")
    if ss is None:
        raise RuntimeError("ss (iproute2) is needed to count TIME_WAIT sockets")
    out = subprocess.run([ss, "-Htan", "state", "time-wait"], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return time_wait_counts(out, port=port, address=address)


def _run_locust(c: Configuration, url_host: str, port: int, workdir: Path) -> tuple[Path, dict]:
    out = workdir / "requests.csv"
    spec = {"address": url_host, "port": port, "tls": c.scheme == "https",
            "path": f"/{PAGE}", "requests_per_client": c.requests_per_client,
            "start_delay_s": c.start_delay_s, "timeout_s": c.timeout_s,
            "deadline_s": c.timeout_s * 10 + c.requests_per_client, "out": str(out)}
    limit = int(spec["start_delay_s"] + spec["deadline_s"] + 60)
    command = [sys.executable, "-m", "locust", "-f", str(locustfile()), "--headless",
               "--host", f"{c.scheme}://{url_host}:{port}", "--users", str(c.clients),
               "--spawn-rate", str(c.clients * 10), "--run-time", f"{limit}s",
               "--exit-code-on-error", "0", "--only-summary", "--loglevel", "WARNING",
               "--ka-spec", json.dumps(spec)]
    if c.generator_cores:
        command = ["taskset", "-c", ",".join(map(str, c.generator_cores)), *command]
    log_path = workdir / "locust.log"
    with open(log_path, "wb") as log:
        process = processes.spawn(command, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                  log=log)
        try:
            process.wait(timeout=limit + 30)
        finally:
            processes.end(process)
    if not Path(str(out) + ".json").is_file():
        tail = log_path.read_text(errors="replace").splitlines()[-15:]
        raise RuntimeError("Locust exited without writing its rows; its log ends with:\n"
                           + "\n".join(tail))
    return out, json.loads(Path(str(out) + ".json").read_text())


def measure(c: Configuration) -> RunResult:
    """Measure one configuration on a Tomcat started for it (and stopped after)."""
    port, warm_port = free_port(), free_port()
    while warm_port == port:
        warm_port = free_port()
    settings = c.settings(port=port, warm_port=warm_port)
    with KeepAliveTomcat(settings) as server, \
            tempfile.TemporaryDirectory(prefix="queuetune-keepalive-") as tmp:
        warmed = warm_up(settings.address, warm_port, requests=c.warmup_requests,
                         tls=settings.tls, timeout_s=c.timeout_s)
        before = count_time_wait(port, settings.address)
        groups = {"server": lambda: [server.pid, *_children(server.pid)],
                  "generator": lambda: _locust_pids()}
        with CpuMonitor(groups) as monitor:
            out, meta = _run_locust(c, settings.address, port, Path(tmp))
        after = count_time_wait(port, settings.address)
        time.sleep(0.5)
        answered_server = server.answered_on(port)
        rows = pd.read_csv(out)
    summary = summarize_requests(rows)
    start = meta["t0_epoch"]
    end = start + summary["total_run_time_s"]
    summary.update({
        "run": c.run, "scheme": c.scheme, "keep_alive_requests": c.keep_alive_requests,
        "clients": c.clients, "requests_per_client": c.requests_per_client,
        "warmup_answered": warmed,
        "server_answered": answered_server,
        "locust_requests": int(meta["locust_requests"]),
        "time_wait_server": after["server"],
        "time_wait_client": after["client"],
        "time_wait_before_server": before["server"],
        "time_wait_before_client": before["client"],
        "server_cpu_share": round(monitor.share("server", start, end), 4),
        "generator_cpu_share": round(monitor.share("generator", start, end), 4),
        "tls_version": meta["tls"].get("version"),
        "tls_cipher": meta["tls"].get("cipher"),
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start)),
    })
    return RunResult(c, rows.assign(run=c.run), summary)


def _children(pid: int) -> list[int]:
    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _locust_pids() -> list[int]:
    """This process's Locust children (the generator), for the processor monitor."""
    pids = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "locust" in " ".join(child.cmdline()):
                pids.append(child.pid)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return pids
