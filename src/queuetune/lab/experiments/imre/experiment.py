"""The Imre et al. experiment on Tomcat: what is its own, for the lab's runner.

Factors: ``split`` (how a request spends its service time, one of the ``[[workload.splits]]``),
``threads`` (Executor ``maxThreads``), ``queue`` (Executor ``maxQueueSize``),
``max_connections`` (Connector ``maxConnections``; by default ``[server] max_connections``)
and ``clients`` (closed-loop Locust clients). Runs differing in anything but ``clients`` get a
Tomcat of their own. Before the load runs of a split, one client measures the service time, as
the paper did; the first server calibrates how many iterations of the arithmetic make a
millisecond of processor time. Each load run ramps its clients up, warms up, and measures
``[timing] windows`` equal consecutive windows (repeated windows: the analysis summarizes each
on its own and gives every cell an interval over them).
"""

from __future__ import annotations

import contextlib
import csv
import http.client
import math
import os
import secrets
import statistics
import time
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ...._validation import integer, real
from ... import wire
from ...campaign import Campaign, Factor, Run, get, name_of, only
from ...generator import Generator, LoadSpec
from ...harness import Measured, Server, Session
from ...monitor import CpuMonitor, per_answer_ms, run_access, run_samples, thread_cpu_ms
from ...tomcat import (
    APP_PAGE,
    DEADLINE_HEADER,
    MAX_CPU_MS,
    MAX_HOLD_MS,
    MAX_WAIT_MS,
    ServerError,
    ServerSettings,
    Tomcat,
    free_port,
    java_version,
    require_free_port,
    tomcat_version,
    with_limits,
)
from .tables import TABLES

__all__ = ["NAME", "TITLE", "FACTORS", "TABLES", "Settings", "parse_settings", "schedule",
           "estimated_seconds", "describe", "readme_lines", "preflight", "before_campaign",
           "server", "prepare", "measure", "page", "SECRET_HEADER", "PAGE", "locustfile"]

NAME = "imre"
TITLE = "The Imre et al. experiment: thread pool x connection queue x clients on Tomcat"
SECRET_HEADER = "X-Queuetune-Secret"
#: The path of the test page, as the runner asks for it (``webapp`` writes the page there).
PAGE = APP_PAGE
_PLACEHOLDER = b"@QUEUETUNE_SECRET@"

# Iterations of the arithmetic used to calibrate (about 10 ms on a 2020s x86 core).
CALIBRATION_WORK = 1_000_000
# Seconds a run needs besides ramp, warm-up and measurement: starting the load generator,
# letting the last requests finish, stopping (measured: about 1 s on a 2-core machine, more
# when answers take seconds).
RUN_OVERHEAD_S = 1.5
# Seconds to start a server and compile the page (measured: about 3 s), besides the JIT
# warm-up.
SERVER_START_S = 4.0


def locustfile() -> Path:
    """The Locust file of this experiment's virtual clients (for workers started by hand)."""
    return Path(__file__).with_name("locust_clients.py")


def page(secret: str) -> bytes:
    """The test page with ``secret`` written into it (a new one for each deployment)."""
    if not secret or not secret.isascii() or not secret.replace("-", "").replace("_", "").isalnum():
        raise ValueError("secret must be a non-empty string of letters, digits, '-' and '_'")
    text = (resources.files(__package__) / "app" / "work.jsp").read_bytes()
    return with_limits(text.replace(_PLACEHOLDER, secret.encode("ascii")))


def new_secret() -> str:
    """A random secret for one deployment of the page."""
    return secrets.token_urlsafe(24)


# -- settings -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Split:
    """How one request spends its service time: ``cpu_ms`` of arithmetic, then ``sleep_ms``."""

    name: str
    cpu_ms: float
    sleep_ms: float


@dataclass(frozen=True)
class Timing:
    """Durations of one run, in seconds, and of the one-client and calibration runs."""

    ramp_s: float
    warmup_s: float
    measure_s: float
    one_client_s: float
    calibration_requests: int
    jit_warmup_s: float
    windows: int = 1


@dataclass(frozen=True)
class ServerConfig:
    """Settings of the Tomcat the runner starts, and the cores it and the generator use."""

    port: int
    max_connections: int
    accept_count: int
    keep_alive_requests: int
    connection_timeout_ms: int
    heap_mb: int
    server_cores: tuple[int, ...]
    generator_cores: tuple[int, ...]


@dataclass(frozen=True)
class Checks:
    """Limits that say the load generator kept up (checked in the data of every run)."""

    generator_cpu_max: float
    lag_p99_max_ms: float
    request_timeout_s: float


@dataclass(frozen=True)
class Settings:
    think_time_s: float
    response_bytes: int
    keep_alive: bool
    splits: tuple[Split, ...]
    timing: Timing
    server: ServerConfig
    checks: Checks

    def split(self, name: str) -> Split:
        return next(s for s in self.splits if s.name == name)


_SECTIONS = ("workload", "timing", "server", "checks")


def parse_settings(raw: Mapping[str, Any]) -> Settings:
    """The experiment's own tables of a campaign file, checked."""
    only(raw, _SECTIONS, "the campaign file")
    for section in _SECTIONS:
        if not isinstance(raw.get(section), Mapping):
            raise ValueError(f"the campaign file needs a [{section}] table")
    work = raw["workload"]
    only(work, ("think_time_s", "response_bytes", "keep_alive", "splits"), "[workload]")
    keep_alive = get(work, "keep_alive", "workload")
    if not isinstance(keep_alive, bool):
        raise ValueError(f"workload.keep_alive must be true or false, got {keep_alive!r}")
    return Settings(
        think_time_s=real(get(work, "think_time_s", "workload"), "workload.think_time_s",
                          low=0.0, high=3600.0, unit="s"),
        response_bytes=integer(get(work, "response_bytes", "workload"),
                               "workload.response_bytes", low=100, high=10_000_000,
                               unit="bytes"),
        keep_alive=keep_alive,
        splits=_splits(work.get("splits")),
        timing=_timing(raw["timing"]),
        server=_server(raw["server"]),
        checks=_checks(raw["checks"]),
    )


def _splits(value: Any) -> tuple[Split, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError("workload.splits must be a non-empty list of tables "
                         "([[workload.splits]] with name, cpu_ms, sleep_ms)")
    splits = []
    for i, item in enumerate(value):
        key = f"workload.splits[{i}]"
        if not isinstance(item, Mapping):
            raise ValueError(f"{key} must be a table with name, cpu_ms and sleep_ms")
        only(item, ("name", "cpu_ms", "sleep_ms"), key)
        # bounded as the test page bounds a request (queuetune.lab.tomcat.MAX_CPU_MS...)
        cpu = real(get(item, "cpu_ms", key), f"{key}.cpu_ms", low=0.0, high=MAX_CPU_MS,
                   unit="ms")
        sleep = real(get(item, "sleep_ms", key), f"{key}.sleep_ms", low=0.0,
                     high=MAX_WAIT_MS, unit="ms")
        if cpu + sleep <= 0:
            raise ValueError(f"{key}: cpu_ms + sleep_ms must be > 0, got {cpu + sleep:g}")
        splits.append(Split(name_of(get(item, "name", key), f"{key}.name"), cpu, sleep))
    names = [s.name for s in splits]
    if len(set(names)) != len(names):
        raise ValueError(f"workload.splits names must differ, got {names}")
    return tuple(splits)


def _timing(table: Mapping[str, Any]) -> Timing:
    keys = tuple(f.name for f in fields(Timing))
    only(table, keys, "[timing]")

    def seconds(key: str, low: float) -> float:
        return real(get(table, key, "timing"), f"timing.{key}", low=low, high=86_400.0,
                    unit="s")

    return Timing(
        ramp_s=seconds("ramp_s", 0.0),
        warmup_s=seconds("warmup_s", 0.0),
        measure_s=real(get(table, "measure_s", "timing"), "timing.measure_s", low=0.0,
                       high=86_400.0, low_open=True, unit="s"),
        one_client_s=real(get(table, "one_client_s", "timing"), "timing.one_client_s",
                          low=0.0, high=86_400.0, low_open=True, unit="s"),
        calibration_requests=integer(get(table, "calibration_requests", "timing"),
                                     "timing.calibration_requests", low=10, high=100_000),
        jit_warmup_s=seconds("jit_warmup_s", 0.0),
        windows=integer(table.get("windows", 1), "timing.windows", low=1, high=100),
    )


def _cores(value: Any, key: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError(f"{key} must be a non-empty list of core numbers, got {value!r}")
    cores = tuple(integer(v, f"{key}[{i}]", low=0, high=4095) for i, v in enumerate(value))
    if len(set(cores)) != len(cores):
        raise ValueError(f"{key} must not repeat a core, got {list(cores)}")
    return cores


def _server(table: Mapping[str, Any]) -> ServerConfig:
    keys = tuple(f.name for f in fields(ServerConfig))
    only(table, keys, "[server]")

    def whole(key: str, low: int, high: int) -> int:
        return integer(get(table, key, "server"), f"server.{key}", low=low, high=high)

    server = ServerConfig(
        port=whole("port", 0, 65535),
        max_connections=whole("max_connections", 1, 1_000_000),
        accept_count=whole("accept_count", 1, 65535),
        keep_alive_requests=whole("keep_alive_requests", -1, 1_000_000),
        connection_timeout_ms=whole("connection_timeout_ms", 1, 3_600_000),
        heap_mb=whole("heap_mb", 64, 65536),
        server_cores=_cores(get(table, "server_cores", "server"), "server.server_cores"),
        generator_cores=_cores(get(table, "generator_cores", "server"),
                               "server.generator_cores"),
    )
    shared = sorted(set(server.server_cores) & set(server.generator_cores))
    if shared:
        raise ValueError(f"server.server_cores and server.generator_cores must not share a "
                         f"core (they would fight for it), both list {shared}")
    return server


def _checks(table: Mapping[str, Any]) -> Checks:
    keys = tuple(f.name for f in fields(Checks))
    only(table, keys, "[checks]")
    return Checks(
        generator_cpu_max=real(get(table, "generator_cpu_max", "checks"),
                               "checks.generator_cpu_max", low=0.0, high=1.0, low_open=True),
        lag_p99_max_ms=real(get(table, "lag_p99_max_ms", "checks"), "checks.lag_p99_max_ms",
                            low=0.0, high=math.inf, low_open=True, unit="ms"),
        request_timeout_s=real(get(table, "request_timeout_s", "checks"),
                               "checks.request_timeout_s", low=0.0,
                               high=MAX_HOLD_MS / 1000,
                               low_open=True, unit="s"),
    )


# -- factors --------------------------------------------------------------------------------


def _count(low: int, high: int):
    def check(value: Any, key: str, settings: Settings) -> int:  # noqa: ARG001
        return integer(value, key, low=low, high=high)
    return check


def _split_name(value: Any, key: str, settings: Settings) -> str:
    names = [s.name for s in settings.splits]
    if value not in names:
        raise ValueError(f"{key} must be one of the splits {names}, got {value!r}")
    return value


FACTORS: dict[str, Factor] = {
    "split": Factor("split", _split_name, "a [[workload.splits]] name"),
    "threads": Factor("threads", _count(1, 10_000), "Executor maxThreads, 1 to 10000"),
    "queue": Factor("queue", _count(1, 100_000), "Executor maxQueueSize, 1 to 100000"),
    "max_connections": Factor("max_connections", _count(1, 1_000_000),
                              "Connector maxConnections, 1 to 1000000",
                              default=lambda s: s.server.max_connections),
    "clients": Factor("clients", _count(1, 100_000), "closed-loop clients, 1 to 100000",
                      server=False),
}


# -- the plan -------------------------------------------------------------------------------


def schedule(plan: Campaign) -> list[Run]:
    """Per split (in the order of ``[[workload.splits]]``), one client on the split's first
    server configuration (with one client the pool and the queue never fill), then the split's
    load runs in the design's order."""
    cells = plan.cells()
    order: list[Run] = []
    for split in plan.settings.splits:
        mine = [c for c in cells if c["split"] == split.name]
        if not mine:
            continue
        one = tuple((k, 1 if k == "clients" else v) for k, v in mine[0].levels)
        order.append(Run("one-client", one))
        order += mine
    return order


def _run_seconds(settings: Settings, run: Run) -> float:
    t = settings.timing
    if run.kind == "one-client":
        return t.one_client_s + RUN_OVERHEAD_S
    return t.ramp_s + t.warmup_s + t.measure_s + RUN_OVERHEAD_S


def estimated_seconds(plan: Campaign, *, starts_server: bool = True) -> float:
    """How long the whole campaign should take (the wire scenarios included)."""
    settings = plan.settings
    runs = plan.schedule()
    calibration = 3.0 + settings.timing.calibration_requests * 0.04
    starts = len(plan.server_groups()) * (SERVER_START_S + settings.timing.jit_warmup_s)
    scenarios = wire.SERVER_START_S + sum(wire.scenario_seconds(s) for s in wire.SCENARIOS)
    return (sum(_run_seconds(settings, r) for r in runs) + calibration
            + ((starts + scenarios) if starts_server else 0.0))


def preflight(plan: Campaign, options: Any) -> None:
    """What can be checked before a server starts or a file is written."""
    s = plan.settings.server
    cores = set(os.sched_getaffinity(0))
    for key, wanted in (("server.server_cores", s.server_cores),
                        ("server.generator_cores", s.generator_cores)):
        missing = sorted(set(wanted) - cores)
        if missing and not (options.target and key == "server.server_cores"):
            raise ValueError(f"{key} lists cores {missing} that this machine does not offer "
                             f"(available: {sorted(cores)})")
    if options.target is None:
        tomcat_version()  # raises ServerError naming what is missing
        if s.port:
            require_free_port(s.port)
    else:
        _check_target(options.target, getattr(options, "secret", None))


def _check_target(url: str, secret: str | None) -> None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http",) or not parts.hostname:
        raise ValueError(f"target must be an http:// URL of the server, got {url!r}")
    if not secret:
        raise ValueError("a target needs the secret of its test page (--secret, printed by "
                         "python -m queuetune.lab webapp DIR)")
    try:
        _get(url, secret, 0, 0, 100)
    except (OSError, http.client.HTTPException) as exc:
        raise ValueError(f"target {url} does not serve the test page {APP_PAGE} with this "
                         f"secret ({exc}); deploy it with: python -m queuetune.lab webapp "
                         f"DIR") from None


def _get(base: str, secret: str, work: int, sleep_us: int, size: int) -> tuple[float, int]:
    """One request on a connection of its own: (latency in ms, processor time of the
    answering thread in us). (On a kept-alive connection Tomcat's queue also receives the
    connection's own events, which can be refused even with a single client.)"""
    parts = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=60)
    try:
        start = time.perf_counter()
        conn.request("GET", f"{APP_PAGE}?work={work}&sleep_us={sleep_us}&bytes={size}",
                     headers={"Connection": "close", SECRET_HEADER: secret})
        answer = conn.getresponse()
        answer.read()
        latency = (time.perf_counter() - start) * 1000
    finally:
        conn.close()
    if answer.status != 200:
        raise http.client.HTTPException(f"HTTP {answer.status}")
    return latency, int(answer.getheader("X-Queuetune-Cpu-Us") or -1)


# -- provenance -----------------------------------------------------------------------------


def describe(plan: Campaign, options: Any) -> dict[str, Any]:
    """The experiment's part of the data set's ``measurement`` block."""
    settings = plan.settings
    s = settings.server
    distributed = (f"local workers: {options.workers}" if options.workers else
                   f"remote workers: {options.expect_workers}" if options.expect_workers
                   else "one process")
    started = options.target is None
    return {
        "server": ("Apache Tomcat started by the runner on 127.0.0.1" if started else
                   f"a server started by the user at {options.target} (its threads, queue "
                   f"and maxConnections are unknown to the runner: runs.csv leaves them "
                   f"empty; the campaign file's levels were not applied)"),
        "load_generator": f"Locust ({distributed})",
        "pinning": {"server_cores": list(s.server_cores) if started else [],
                    "generator_cores": list(s.generator_cores), "tool": "taskset"},
        "jvm_options": (ServerSettings(threads=1, queue=1, port=0, heap_mb=s.heap_mb,
                                       cores=s.server_cores).jvm_options() if started else []),
        "settings": {"server": asdict(s), "timing": asdict(settings.timing),
                     "checks": asdict(settings.checks), "think_time_s": settings.think_time_s,
                     "response_bytes": settings.response_bytes,
                     "keep_alive": settings.keep_alive, "seed": plan.seed,
                     "splits": [asdict(x) for x in settings.splits],
                     "design": [{k: list(v) for k, v in table.items()}
                                for table in plan.design]},
        "server_versions": ({"tomcat": tomcat_version(), "java": java_version()} if started
                            else {"tomcat": "not started by the runner", "java": "unknown"}),
    }


def readme_lines(metadata: dict) -> list[str]:
    """The README's account of where and with what the data set was measured."""
    m = metadata["measurement"]
    machine_ = m["machine"]
    server_cores = m["pinning"]["server_cores"] or "none (a server the runner did not start)"
    lines = [
        "## Where and with what",
        "",
        f"- Date (UTC): {m['date']}",
        f"- Machine: {machine_['cpu_model']}, {machine_['logical_cores']} logical cores, "
        f"{machine_['memory_gib']} GiB",
        f"- System: {machine_['os']}, Linux {machine_['kernel']}",
        f"- Server: {m['server']}; {machine_['tomcat']}; {machine_['java']}",
        f"- JVM options: `{' '.join(m['jvm_options']) or 'not set by the runner'}`",
        f"- Load generator: {m['load_generator']}, Locust {machine_['locust']} "
        f"(geventhttpclient {machine_['geventhttpclient']}), Python {machine_['python']}",
        f"- Pinning (taskset): server on cores {server_cores}, generator on cores "
        f"{m['pinning']['generator_cores']}; the runner's own process (its processor monitor "
        f"and the clients' bookkeeping) is not pinned",
        "- Kernel settings: " + ", ".join(f"{k} = {v}" for k, v in machine_["sysctl"].items()),
    ]
    if "work_per_ms" in m:
        lines.append(f"- Calibration: {m['work_per_ms']} iterations of the arithmetic per "
                     f"millisecond of processor time (`calibration.csv`)")
    if m.get("note"):
        lines += ["", f"Note: {m['note']}"]
    lines += [
        "",
        "## Tables",
        "",
        *(f"- `{t.path}`: {t.title}" for t in TABLES.values()),
        "",
        "Times in `requests.csv.gz` are seconds from the start of each run; the measurement "
        "window of each run is in `runs.csv`. A data set is never overwritten: running the "
        "campaign again writes a new folder beside this one.",
    ]
    return lines


# -- running --------------------------------------------------------------------------------


def before_campaign(session: Session) -> None:
    """The scenarios at Tomcat's limits (only with a server the runner starts)."""
    if not session.options.wire or session.options.target is not None:
        return
    secret = new_secret()
    headers = {SECRET_HEADER: secret}
    server = wire.ScenarioTomcat(wire.SCENARIOS, pages={"work.jsp": page(secret)},
                                 headers=headers,
                                 cores=session.plan.settings.server.server_cores)
    with session.progress("limits: starting the server"):
        server.start()
    try:
        for scenario in wire.SCENARIOS:
            with session.progress(f"limits: {scenario.name}"):
                connections, packets = wire.run_scenario(scenario, server, headers=headers)
                session.writer.append("wire_connections", [
                    dict(zip(wire.CONNECTION_COLUMNS, row, strict=True))
                    for row in connections])
                session.writer.append("wire_packets", [
                    dict(zip(wire.PACKET_COLUMNS, row, strict=True)) for row in packets])
    finally:
        server.stop()


def _label(run: Run) -> str:
    label = f"{run['split']}, {run['threads']} threads, queue {run['queue']}"
    if run["max_connections"] != 10000:
        label += f", maxConnections {run['max_connections']}"
    return label


@contextlib.contextmanager
def server(session: Session, run: Run) -> Iterator[Server]:
    """The Tomcat of one server configuration (or the user's target)."""
    options = session.options
    if options.target is not None:
        secret = options.secret
        session.state["secret"] = secret
        yield Server(url=options.target.rstrip("/"),
                     probe=lambda timeout: _probe(options.target, secret, timeout))
        return
    s = session.plan.settings.server
    secret = new_secret()
    session.state["secret"] = secret
    settings = ServerSettings(threads=run["threads"], queue=run["queue"],
                              port=s.port or free_port(),
                              max_connections=run["max_connections"],
                              accept_count=s.accept_count,
                              keep_alive_requests=s.keep_alive_requests,
                              connection_timeout_ms=s.connection_timeout_ms,
                              heap_mb=s.heap_mb, cores=s.server_cores,
                              access_log_detail=True)
    with session.progress(f"{_label(run)}: starting the server"):
        tomcat = Tomcat(settings, pages={"work.jsp": page(secret)},
                        ready_headers={SECRET_HEADER: secret})
        tomcat.start()
    try:
        yield Server(url=tomcat.url, pids=lambda: [tomcat.pid] if tomcat.alive() else [],
                     counters=tomcat.settle, alive=tomcat.alive, probe=tomcat.probe,
                     cores=s.server_cores, handle=tomcat)
    finally:
        tomcat.stop()


def _probe(url: str, secret: str, timeout: float) -> bool:
    try:
        _get(url, secret, 0, 0, 100)
        return True
    except (OSError, http.client.HTTPException):
        return False


def prepare(session: Session, server_: Server, run: Run) -> None:
    """Calibrate once (on the first server), then warm the JIT with the split's work."""
    settings = session.plan.settings
    secret = session.state["secret"]
    if "work_per_ms" not in session.state:
        with session.progress(f"{_label(run)}: calibrating"):
            _calibrate(session, server_.url, secret)
    work = round(settings.split(run["split"]).cpu_ms * session.state["work_per_ms"])
    with session.progress(f"{_label(run)}: warming up"):
        _jit_warmup(server_.url, secret, work, settings.timing.jit_warmup_s,
                    settings.response_bytes)


def _calibrate(session: Session, url: str, secret: str) -> None:
    """Iterations per millisecond of the arithmetic's processor time (one client, in turn)."""
    settings = session.plan.settings
    size = settings.response_bytes
    _jit_warmup(url, secret, CALIBRATION_WORK, settings.timing.jit_warmup_s, size)
    rows = []
    for step in range(settings.timing.calibration_requests):
        work = CALIBRATION_WORK if step % 2 else 0
        latency, cpu_us = _get(url, secret, work, 0, size)
        rows.append({"step": step, "work": work, "latency_ms": round(latency, 3),
                     "server_cpu_us": cpu_us})
    base = statistics.median(r["server_cpu_us"] for r in rows if r["work"] == 0)
    loaded = statistics.median(r["server_cpu_us"] for r in rows
                               if r["work"] == CALIBRATION_WORK)
    if loaded <= base:
        raise ServerError("calibration failed: the arithmetic took no measurable processor "
                          "time (is the JVM's thread CPU time measurement off?)")
    work_per_ms = CALIBRATION_WORK / ((loaded - base) / 1000)
    session.state["work_per_ms"] = work_per_ms
    session.writer.append("calibration", rows)
    session.writer.metadata["measurement"]["work_per_ms"] = round(work_per_ms, 1)


def _jit_warmup(url: str, secret: str, work: int, seconds: float, size: int) -> None:
    """Requests in turn for a few seconds, so the JIT has compiled the page before measuring."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        _get(url, secret, work, 0, size)


def _spec(session: Session, run: Run, work: int) -> LoadSpec:
    settings, plan = session.plan.settings, session.plan
    one = run.kind == "one-client"
    timing = settings.timing
    split = settings.split(run["split"])
    return LoadSpec(
        run=session.run_number, clients=run["clients"], think_s=settings.think_time_s,
        path=(f"{APP_PAGE}?work={work}&sleep_us={round(split.sleep_ms * 1000)}"
              f"&bytes={settings.response_bytes}"),
        seed=plan.seed, ramp_s=0.0 if one else timing.ramp_s,
        warmup_s=1.0 if one else timing.warmup_s,
        measure_s=timing.one_client_s if one else timing.measure_s,
        timeout_s=settings.checks.request_timeout_s, keep_alive=settings.keep_alive,
        headers={SECRET_HEADER: session.state["secret"],
                 DEADLINE_HEADER: str(round(settings.checks.request_timeout_s * 1000))})


def measure(session: Session, server_: Server, run: Run, monitor: CpuMonitor) -> Measured:
    """One run: Locust's clients against the server, every request a row."""
    settings = session.plan.settings
    opts = session.options
    split = settings.split(run["split"])
    work = round(split.cpu_ms * session.state["work_per_ms"])
    spec = _spec(session, run, work)
    tomcat = server_.handle
    before = tomcat.settle() if tomcat else None
    started = time.monotonic()
    generator = Generator(spec, server_.url, locustfile(),
                          cores=settings.server.generator_cores, workers=opts.workers,
                          expect_workers=opts.expect_workers, master_bind=opts.master_bind)
    monitor.add_group("generator", generator.pids)
    with session.progress(f"{_label(run)}, {run['clients']} clients ({run.kind})"), generator:
        generator.wait(timeout=spec.stop_s + spec.timeout_s + 120 + 60 * opts.expect_workers)
        rows_path, meta = generator.result()
        rows = _read_rows(rows_path)
    monitor.sample()
    ended = time.time()
    seconds = time.monotonic() - started
    counters = tomcat.settle().since(before) if tomcat else None
    access = tomcat.access_records(before.answered) if tomcat else []
    window = (meta["t0_epoch"] + spec.ramp_s + spec.warmup_s, meta["t0_epoch"] + spec.stop_s)
    row, failed = _run_row(settings, run, split, work, spec, rows, meta, counters, monitor,
                           window, seconds)
    if opts.target is not None:  # the user's server: its pool and queue are not the design's
        row.update(threads=None, queue=None, max_connections=None, capacity=None)
    cores = tuple(sorted(set(settings.server.server_cores) | set(settings.server.generator_cores)))
    tables = {"requests": rows, "access": run_access(access, meta["t0_epoch"]),
              "cpu_samples": run_samples(monitor, meta["t0_epoch"], ended, cores=cores)}
    return Measured(row=row, window=window, refused_seen=row["closed"],
                    connection_errors=row["other_errors"], tables=tables,
                    failed_checks=failed)


def _read_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        expected = [f.name for f in TABLES["requests"].fields]
        if reader.fieldnames != expected:
            raise RuntimeError(f"the generator wrote columns {reader.fieldnames}, the data "
                               f"set has {expected}")
        return list(reader)


def _run_row(settings: Settings, run: Run, split: Split, work: int, spec: LoadSpec,
             rows: list[dict], meta: dict, counters, monitor: CpuMonitor,
             window: tuple[float, float], seconds: float) -> tuple[dict, list[str]]:
    server, checks = settings.server, settings.checks
    start_s, end_s = spec.ramp_s + spec.warmup_s, spec.stop_s
    outcomes = [r["outcome"] for r in rows]
    lags = [float(r["lag_ms"]) for r in rows
            if start_s <= float(r["start_s"]) < end_s and r["lag_ms"] != ""]
    lag_p99 = float(np.percentile(lags, 99)) if lags else float("nan")
    generator_cpu = monitor.share("generator", *window)
    failed = []
    if not generator_cpu <= checks.generator_cpu_max:
        failed.append(f"the load generator used {generator_cpu:.0%} of its core (limit "
                      f"{checks.generator_cpu_max:.0%})")
    if not lag_p99 <= checks.lag_p99_max_ms:
        failed.append(f"99 % of requests were sent within {lag_p99:.1f} ms of their plan "
                      f"(limit {checks.lag_p99_max_ms:g} ms)")
    ok, closed = outcomes.count("ok"), outcomes.count("closed")
    answered = rejected = mean_ms = server_cpu = core_busy = None
    if counters is not None:
        answered, rejected = counters.answered, counters.rejected
        mean_ms = _round(counters.server_time_us_sum / answered / 1000 if answered else None, 3)
        server_cpu = _round(monitor.share("server", *window), 4)
        core_busy = _round(monitor.cores_share(server.server_cores, *window), 4)
    threads, queue, limit = run["threads"], run["queue"], run["max_connections"]
    row = {
        "split": split.name, "cpu_ms": split.cpu_ms, "sleep_ms": split.sleep_ms, "work": work,
        "threads": threads, "queue": queue, "max_connections": limit,
        "capacity": min(threads + queue, limit), "clients": run["clients"],
        "think_s": settings.think_time_s, "keep_alive": settings.keep_alive,
        "window_start_s": start_s, "window_end_s": end_s,
        "windows": 1 if run.kind == "one-client" else settings.timing.windows,
        "sent": len(rows), "locust_requests": meta.get("locust_requests"), "ok": ok,
        "closed": closed, "other_errors": len(rows) - ok - closed,
        "server_answered": answered, "server_rejected": rejected, "server_time_ms": mean_ms,
        "server_cpu": server_cpu, "server_core_busy": core_busy,
        "thread_cpu_ms": _round(thread_cpu_ms(rows, start_s, end_s), 4),
        "jvm_cpu_ms": _round(per_answer_ms(server_cpu, end_s - start_s, sum(
            1 for r in rows if r["outcome"] == "ok" and start_s <= float(r["start_s"]) < end_s)
        ), 4),
        "generator_cpu": _round(generator_cpu, 4),
        "generator_core_busy": _round(monitor.cores_share(server.generator_cores, *window), 4),
        "lag_p99_ms": _round(lag_p99, 3), "generator_kept_up": not failed,
        "seconds": round(seconds, 2),
    }
    return row, failed


def _round(value: float | None, digits: int) -> float | None:
    if value is None or value != value:
        return None
    return round(value, digits)
