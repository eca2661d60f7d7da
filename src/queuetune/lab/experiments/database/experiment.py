"""The database experiment (issue 31): Tomcat, a HikariCP pool and a real PostgreSQL behind the
test page, what is its own for the lab's runner.

Factors, in product order: ``processors`` (Tomcat's cores), ``threads`` and ``queue`` (the
Executor: ``B = threads + queue``), ``pool`` (HikariCP's C), ``settings_from`` (``design``, or
``advice``: threads, queue and pool from ``queuetune.sizing.size`` fed with the campaign's
one-client measurement), then, without a new server, ``distribution``, ``cpu_ms``, ``db_ms``,
``wait_ms`` and the load: ``clients``, ``arrival_rate`` or ``peak_multiple`` (open arrivals at
a multiple of the advice's peak).

The core layout (two processors): Tomcat on ``server.cores`` (core 1 with one processor, cores
1 and 0 with two); PostgreSQL on ``server.database_cores`` (core 0) beside the load generator
(``server.generator_cores``, core 0). Its cost: the database and the generator share a core, so
a query may wait for the core behind Locust (and with two processors Tomcat's second core is
that core too); every run stores the generator's share of the database's cores and what else
ran there, and is flagged when something other than the three took more than the margin.
"""

from __future__ import annotations

import contextlib
import csv
import http.client
import math
import os
import re
import shutil
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
from ...monitor import CpuMonitor
from ...postgres import QUERY, Cluster, postgres_version
from ...tomcat import (
    DEADLINE_HEADER,
    MAX_CPU_MS,
    MAX_HOLD_MS,
    MAX_WAIT_MS,
    ServerError,
    ServerSettings,
    Tomcat,
    free_port,
    java_version,
    tomcat_version,
    with_limits,
)
from ..today.experiment import locustfile
from .tables import TABLES

__all__ = ["NAME", "TITLE", "FACTORS", "TABLES", "PAGE", "SECRET_HEADER", "DISTRIBUTIONS",
           "LOGNORMAL_CV", "MAX_FACTOR", "JARS", "Settings", "parse_settings", "schedule",
           "estimated_seconds", "describe", "readme_lines", "preflight", "server", "prepare",
           "measure", "page", "new_secret", "locustfile", "access_pattern", "parse_access",
           "advice_for", "snippet_levels", "deployed_server_xml", "monitor_samples"]

NAME = "database"
TITLE = "A real database: Tomcat, HikariCP and PostgreSQL, with work that varies"
SECRET_HEADER = "X-Queuetune-Secret"
PAGE = "/database.jsp"
#: The distributions of the work per request (each a factor of mean 1 times the mean asked).
DISTRIBUTIONS = ("constant", "exponential", "lognormal")
#: The lognormal's coefficient of variation (heavy-tailed: the exponential's is 1).
LOGNORMAL_CV = 2.0
#: A drawn factor is cut here (lognormal, CV 2: about 0.1 % of draws; exponential: 2e-9).
MAX_FACTOR = 20.0
#: HikariCP, its logging facade and the PostgreSQL driver, from Debian's packages (make
#: database), copied into the test application's WEB-INF/lib.
JARS = (Path("/usr/share/java/HikariCP.jar"), Path("/usr/share/java/slf4j-api.jar"),
        Path("/usr/share/java/slf4j-nop.jar"), Path("/usr/share/java/postgresql.jar"))
CALIBRATION_WORK = 1_000_000
RUN_OVERHEAD_S = 2.0  # starting Locust, the last answers, stopping
SERVER_START_S = 12.0  # initdb and PostgreSQL (about 7 s here), Tomcat and the page
_HEADERS = ("X-Queuetune-Cpu-Us", "X-Queuetune-Permit-Wait-Us", "X-Queuetune-Db-Us",
            "X-Queuetune-Hold-Us", "X-Queuetune-Work", "X-Queuetune-Db-Work",
            "X-Queuetune-Sleep-Us", "X-Queuetune-Stopped")


def page(secret: str, *, connections: int, jdbc_url: str, pool_timeout_ms: int,
         rows: int) -> bytes:
    """The test page with ``secret``, a HikariCP pool of ``connections`` to ``jdbc_url``, the
    pool's ``connectionTimeout`` and the table's ``rows``."""
    if not secret or not secret.isascii() or not secret.replace("-", "").replace("_", "").isalnum():
        raise ValueError("secret must be a non-empty string of letters, digits, '-' and '_'")
    if not re.fullmatch(r"jdbc:postgresql://127\.0\.0\.1:[0-9]+/[a-z_]+\?user=[a-z_]+",
                        jdbc_url):
        raise ValueError(f"jdbc_url must be a PostgreSQL URL on 127.0.0.1, got {jdbc_url!r}")
    values = {
        b"@QUEUETUNE_SECRET@": secret,
        b"@QUEUETUNE_POOL@": str(integer(connections, "connections", low=1, high=10_000)),
        b"@QUEUETUNE_POOL_TIMEOUT_MS@": str(integer(pool_timeout_ms, "pool_timeout_ms",
                                                    low=250, high=MAX_HOLD_MS)),
        b"@QUEUETUNE_ROWS@": str(integer(rows, "rows", low=1, high=100_000_000)),
        b"@QUEUETUNE_JDBC_URL@": jdbc_url, b"@QUEUETUNE_QUERY@": QUERY,
        b"@QUEUETUNE_CV@": repr(LOGNORMAL_CV), b"@QUEUETUNE_MAX_FACTOR@": repr(MAX_FACTOR),
    }
    text = (resources.files(__package__) / "app" / "database.jsp").read_bytes()
    for placeholder, value in values.items():
        if placeholder not in text:
            raise ValueError(f"the page lacks the placeholder {placeholder.decode()}")
        text = text.replace(placeholder, value.encode("ascii"))
    return with_limits(text)


def new_secret() -> str:
    """A random secret for one deployment of the page."""
    import secrets

    return secrets.token_urlsafe(24)


def access_pattern() -> str:
    """The access log's pattern: Tomcat's counters read the first two fields (status, %D),
    then %B, the first byte (%F), the thread (%I), the end (epoch ms), the query string and
    the page's headers.

    >>> access_pattern().split()[:5]
    ['%s', '%D', '%B', '%F', '%I']
    """
    return " ".join(["%s", "%D", "%B", "%F", "%I", "%{end:msec}t", "%q",
                     *(f"%{{{h}}}o" for h in _HEADERS)])


_ACCESS_INT = ("cpu_us", "pool_wait_us", "db_us", "hold_us", "work", "db_work", "sleep_us")


def parse_access(lines: list[str]) -> list[dict[str, Any]]:
    """The page's requests among access log lines (the stats and probe requests left out:
    those with ``stats`` or an empty query), as rows of the ``access`` table.

    >>> row = parse_access(["200 5100 2048 4900 queuetune-exec-1 1700000000123 "
    ...                     "?work=1&db_work=2&sleep_us=3&dist=constant&bytes=2048 "
    ...                     "4000 10 900 3000 1 2 3 -"])[0]
    >>> row["thread"], row["db_us"], row["stopped"]
    ('queuetune-exec-1', 900, '')
    """
    rows = []
    for line in lines:
        parts = line.split()
        if len(parts) != 7 + len(_HEADERS) or "dist=" not in parts[6]:
            continue
        status, time_us, size, first, thread, end, _query, *headers = parts

        def number(text: str) -> int | None:
            return None if text == "-" else int(text)

        rows.append({"status": int(status), "time_us": int(time_us),
                     "commit_ms": number(first), "bytes": number(size), "thread": thread,
                     "end_ms": int(end),
                     **{k: number(v) for k, v in zip(_ACCESS_INT, headers[:-1], strict=True)},
                     "stopped": "" if headers[-1] == "-" else headers[-1]})
    return rows


# -- settings -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    response_bytes: int
    think_time_s: float
    keep_alive: bool
    pool_timeout_ms: int
    table_rows: int


@dataclass(frozen=True)
class Timing:
    ramp_s: float
    warmup_s: float
    measure_s: float
    one_client_s: float
    jit_warmup_s: float
    calibration_requests: int


@dataclass(frozen=True)
class ServerConfig:
    """``cores``: Tomcat's, in the order taken; ``database_cores``: PostgreSQL's;
    ``generator_cores``: Locust's."""

    port: int
    max_connections: int
    accept_count: int
    connection_timeout_ms: int
    heap_mb: int
    cores: tuple[int, ...]
    database_cores: tuple[int, ...]
    generator_cores: tuple[int, ...]


@dataclass(frozen=True)
class Checks:
    generator_cpu_max: float
    lateness_p99_max_ms: float
    request_timeout_s: float
    pool_timeouts_allowed: bool


@dataclass(frozen=True)
class Advice:
    """How the advice runs are sized: the peak is the largest of ``peak_shares`` of the
    processors' ceiling (p / s_c, measured) for which the sizing needs no more processors
    than Tomcat has; ``max_response_s`` bounds the admission (B)."""

    peak_shares: tuple[float, ...]
    max_response_s: float


@dataclass(frozen=True)
class Settings:
    workload: Workload
    timing: Timing
    server: ServerConfig
    checks: Checks
    advice: Advice | None


_SECTIONS = ("workload", "timing", "server", "checks", "advice")


def parse_settings(raw: Mapping[str, Any]) -> Settings:
    """The experiment's own tables of a campaign file, checked."""
    only(raw, _SECTIONS, "the campaign file")
    for section in _SECTIONS[:4]:
        if not isinstance(raw.get(section), Mapping):
            raise ValueError(f"the campaign file needs a [{section}] table")
    advice = raw.get("advice")
    if advice is not None and not isinstance(advice, Mapping):
        raise ValueError("[advice] must be a table")
    return Settings(workload=_workload(raw["workload"]), timing=_timing(raw["timing"]),
                    server=_server(raw["server"]), checks=_checks(raw["checks"]),
                    advice=None if advice is None else _advice(advice))


def _keys(table: Mapping[str, Any], cls: type, section: str) -> None:
    only(table, tuple(f.name for f in fields(cls)), f"[{section}]")


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
    return Workload(
        response_bytes=integer(get(table, "response_bytes", "workload"),
                               "workload.response_bytes", low=100, high=10_000_000,
                               unit="bytes"),
        think_time_s=_seconds(table, "think_time_s", "workload"),
        keep_alive=_flag(table, "keep_alive", "workload"),
        pool_timeout_ms=integer(get(table, "pool_timeout_ms", "workload"),
                                "workload.pool_timeout_ms", low=250, high=MAX_HOLD_MS,
                                unit="ms"),
        table_rows=integer(get(table, "table_rows", "workload"), "workload.table_rows",
                           low=1, high=10_000_000))


def _timing(table: Mapping[str, Any]) -> Timing:
    _keys(table, Timing, "timing")
    return Timing(ramp_s=_seconds(table, "ramp_s", "timing"),
                  warmup_s=_seconds(table, "warmup_s", "timing"),
                  measure_s=_seconds(table, "measure_s", "timing", open_low=True),
                  one_client_s=_seconds(table, "one_client_s", "timing"),
                  jit_warmup_s=_seconds(table, "jit_warmup_s", "timing"),
                  calibration_requests=integer(get(table, "calibration_requests", "timing"),
                                               "timing.calibration_requests", low=10,
                                               high=100_000))


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

    config = ServerConfig(
        port=whole("port", 0, 65535), max_connections=whole("max_connections", 1, 1_000_000),
        accept_count=whole("accept_count", 1, 65535),
        connection_timeout_ms=whole("connection_timeout_ms", 1, 3_600_000),
        heap_mb=whole("heap_mb", 64, 65536),
        cores=_cores(get(table, "cores", "server"), "server.cores"),
        database_cores=_cores(get(table, "database_cores", "server"), "server.database_cores"),
        generator_cores=_cores(get(table, "generator_cores", "server"),
                               "server.generator_cores"))
    if config.cores[0] in config.database_cores + config.generator_cores:
        raise ValueError(f"server.cores[0] ({config.cores[0]}), Tomcat's core with one "
                         f"processor, must be neither the database's nor the generator's")
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
                               low_open=True, unit="s"),
        pool_timeouts_allowed=_flag(table, "pool_timeouts_allowed", "checks"))


def _advice(table: Mapping[str, Any]) -> Advice:
    _keys(table, Advice, "advice")
    shares = get(table, "peak_shares", "advice")
    if not isinstance(shares, list) or not shares:
        raise ValueError(f"advice.peak_shares must be a non-empty list, got {shares!r}")
    return Advice(peak_shares=tuple(sorted((real(v, f"advice.peak_shares[{i}]", low=0.0,
                                                 high=1.0, low_open=True)
                                            for i, v in enumerate(shares)), reverse=True)),
                  max_response_s=real(get(table, "max_response_s", "advice"),
                                      "advice.max_response_s", low=0.0, high=MAX_HOLD_MS / 1000,
                                      low_open=True, unit="s"))


# -- factors --------------------------------------------------------------------------------


def _count(low: int, high: int):
    def check(value: Any, key: str, settings: Settings) -> int:  # noqa: ARG001
        return integer(value, key, low=low, high=high)
    return check


def _ms(high: float):
    def check(value: Any, key: str, settings: Settings) -> float:  # noqa: ARG001
        return real(value, key, low=0.0, high=high, unit="ms")
    return check


def _processors(value: Any, key: str, settings: Settings) -> int:
    return integer(value, key, low=1, high=len(settings.server.cores))


def _choice(words: tuple[str, ...]):
    def check(value: Any, key: str, settings: Settings) -> str:  # noqa: ARG001
        if value not in words:
            raise ValueError(f"{key} must be one of {', '.join(map(repr, words))}, got "
                             f"{value!r}")
        return value
    return check


def _settings_from(value: Any, key: str, settings: Settings) -> str:
    value = _choice(("design", "advice"))(value, key, settings)
    if value == "advice" and settings.advice is None:
        raise ValueError(f"{key} = 'advice' needs an [advice] table")
    return value


def _rate(value: Any, key: str, settings: Settings) -> float:  # noqa: ARG001
    return real(value, key, low=0.0, high=100_000.0, unit="/s")


def _multiple(value: Any, key: str, settings: Settings) -> float:  # noqa: ARG001
    return real(value, key, low=0.0, high=100.0)


FACTORS: dict[str, Factor] = {
    "processors": Factor("processors", _processors,
                         "Tomcat's cores, 1 to the length of server.cores",
                         default=lambda s: 1),
    "threads": Factor("threads", _count(1, 10_000), "Executor maxThreads T, 1 to 10000",
                      default=lambda s: 8),
    "queue": Factor("queue", _count(1, 100_000), "Executor maxQueueSize (B = T + queue), 1 "
                    "to 100000", default=lambda s: 100),
    "pool": Factor("pool", _count(1, 10_000), "HikariCP's pool C, 1 to 10000",
                   default=lambda s: 4),
    "settings_from": Factor("settings_from", _settings_from, "'design' or 'advice' (threads, "
                            "queue and pool from the sizing)", default=lambda s: "design"),
    "distribution": Factor("distribution", _choice(DISTRIBUTIONS),
                           "the works' distribution: " + ", ".join(DISTRIBUTIONS),
                           default=lambda s: "constant", server=False),
    "cpu_ms": Factor("cpu_ms", _ms(MAX_CPU_MS / MAX_FACTOR), "mean processor time of the "
                     f"request's thread, 0 to {MAX_CPU_MS / MAX_FACTOR:g} ms", server=False),
    "db_ms": Factor("db_ms", _ms(MAX_CPU_MS / MAX_FACTOR), "mean database processor time, 0 "
                    f"to {MAX_CPU_MS / MAX_FACTOR:g} ms", server=False),
    "wait_ms": Factor("wait_ms", _ms(MAX_WAIT_MS / MAX_FACTOR), "mean wait holding the "
                      f"connection, 0 to {MAX_WAIT_MS / MAX_FACTOR:g} ms",
                      default=lambda s: 0.0, server=False),
    "clients": Factor("clients", _count(0, 100_000), "closed-loop clients, 0 to 100000",
                      default=lambda s: 0, server=False),
    "arrival_rate": Factor("arrival_rate", _rate, "open-loop arrivals per second, 0 to 100000",
                           default=lambda s: 0.0, server=False),
    "peak_multiple": Factor("peak_multiple", _multiple, "open arrivals at this multiple of "
                            "the advice's peak, 0 (not an advice run) to 100",
                            default=lambda s: 0.0, server=False),
}


# -- the plan -------------------------------------------------------------------------------


def _check_load(run: Run) -> None:
    given = [k for k in ("clients", "arrival_rate", "peak_multiple") if run[k] > 0]
    if len(given) != 1:
        raise ValueError(f"each run needs exactly one of clients, arrival_rate or "
                         f"peak_multiple > 0; got {given or 'none'} (set the others to 0)")
    if (run["peak_multiple"] > 0) != (run["settings_from"] == "advice"):
        raise ValueError("peak_multiple > 0 goes with settings_from = 'advice', and only "
                         "with it")


def schedule(plan: Campaign) -> list[Run]:
    """The design's cells. Before the first run of each processors level and mean work (the
    distribution changes no mean: one run serves them all) when ``[timing] one_client_s`` >
    0, and always before the advice runs, one client in turn, without think time, on the
    design's settings, measures the service; the advice is sized from it."""
    cells = plan.cells()
    for run in cells:
        _check_load(run)
    order: list[Run] = []
    seen: set[tuple] = set()
    for run in cells:
        key = (run["processors"], run["cpu_ms"], run["db_ms"], run["wait_ms"])
        advice = run["settings_from"] == "advice"
        if (plan.settings.timing.one_client_s > 0 or advice) and key not in seen:
            seen.add(key)
            one = tuple((k, 1 if k == "clients" else "design" if k == "settings_from"
                         else 0.0 if k in ("arrival_rate", "peak_multiple") else v)
                        for k, v in run.levels)
            order.append(Run("one-client", one))
        order.append(run)
    return order


def _run_seconds(settings: Settings, run: Run) -> float:
    t = settings.timing
    if run.kind == "one-client":
        return max(t.one_client_s, 2.0) + 1.0 + RUN_OVERHEAD_S
    ramp = t.ramp_s if run["clients"] else 0.0
    overload = run["peak_multiple"] > 1.0  # the backlog past the peak may drain to the timeout
    return (ramp + t.warmup_s + t.measure_s + RUN_OVERHEAD_S
            + (settings.checks.request_timeout_s / 2 if overload else 0.0))


def estimated_seconds(plan: Campaign, *, starts_server: bool = True) -> float:
    """How long the whole campaign should take."""
    settings = plan.settings
    calibration = 6.0 + settings.timing.calibration_requests * 0.05
    starts = len(plan.server_groups()) * (SERVER_START_S + settings.timing.jit_warmup_s)
    return (sum(_run_seconds(settings, r) for r in plan.schedule()) + calibration
            + (starts if starts_server else 0.0))


def preflight(plan: Campaign, options: Any) -> None:
    """What can be checked before a server starts or a file is written."""
    if options.target is not None:
        raise ValueError("the database experiment starts its own servers: run it without "
                         "--target")
    if options.workers or options.expect_workers:
        raise ValueError("the database experiment runs its load generator in one process: "
                         "run it without --workers or --expect-workers")
    s = plan.settings.server
    cores = set(os.sched_getaffinity(0))
    for key, wanted in (("server.cores", s.cores), ("server.database_cores", s.database_cores),
                        ("server.generator_cores", s.generator_cores)):
        missing = sorted(set(wanted) - cores)
        if missing:
            raise ValueError(f"{key} lists cores {missing} that this machine does not offer "
                             f"(available: {sorted(cores)})")
    tomcat_version()
    postgres_version()
    for jar in JARS:
        if not jar.is_file():
            raise ValueError(f"{jar} not found: install Debian's libhikaricp-java, "
                             f"libslf4j-java and libpostgresql-jdbc-java (make database)")


# -- provenance -----------------------------------------------------------------------------

_LAYOUT = ("Tomcat on server.cores[:processors] (1 processor: core cores[0] alone); "
           "PostgreSQL on database_cores beside the load generator (generator_cores). Cost: "
           "the database shares its core with the generator, so a query may wait behind "
           "Locust and the database processor time per answer includes none of that wait "
           "but its response does; with 2 processors Tomcat's second core is that core too. "
           "generator_share in runs.csv states the generator's share of the database's "
           "cores per run")


def describe(plan: Campaign, options: Any) -> dict[str, Any]:  # noqa: ARG001
    """The experiment's part of the data set's ``measurement`` block."""
    settings = plan.settings
    s = settings.server
    return {
        "server": "Apache Tomcat and a throwaway PostgreSQL cluster (fsync, "
                  "synchronous_commit and full_page_writes off; loopback only) started by "
                  "the runner on 127.0.0.1; HikariCP and pgJDBC in the test application",
        "load_generator": "Locust, one process: open-loop Poisson arrivals or closed-loop "
                          "clients (today's Locust files)",
        "pinning": {"server_cores": list(s.cores), "database_cores": list(s.database_cores),
                    "generator_cores": list(s.generator_cores), "tool": "taskset",
                    "rule": _LAYOUT},
        "work": {"distributions": list(DISTRIBUTIONS), "lognormal_cv": LOGNORMAL_CV,
                 "max_factor": MAX_FACTOR, "query": QUERY},
        "jars": [str(j.resolve()) for j in JARS],
        "settings": {"workload": asdict(settings.workload), "timing": asdict(settings.timing),
                     "server": asdict(s), "checks": asdict(settings.checks),
                     "advice": None if settings.advice is None else asdict(settings.advice),
                     "seed": plan.seed,
                     "design": [{k: list(v) for k, v in table.items()}
                                for table in plan.design]},
        "server_versions": {"tomcat": tomcat_version(), "java": java_version(),
                            "postgresql": postgres_version(),
                            "hikaricp": JARS[0].resolve().name,
                            "pgjdbc": JARS[3].resolve().name},
    }


def readme_lines(metadata: dict) -> list[str]:
    """The README's account of where and with what the data set was measured."""
    m = metadata["measurement"]
    machine_ = m["machine"]
    lines = [
        "## Where and with what",
        "",
        f"- Date (UTC): {m['date']}",
        f"- Machine: {machine_['cpu_model']}, {machine_['logical_cores']} logical cores, "
        f"{machine_['memory_gib']} GiB",
        f"- Server: {m['server']}",
        f"- Load generator: {m['load_generator']}",
        f"- Core layout (taskset): {m['pinning']['rule']}. Tomcat's cores "
        f"{m['pinning']['server_cores']}, PostgreSQL's {m['pinning']['database_cores']}, the "
        f"generator's {m['pinning']['generator_cores']}",
        f"- Work per request: each of the three (processor time on the request's thread, "
        f"in the database, the wait holding the connection) the mean times a factor drawn "
        f"per request: constant, exponential, or lognormal with coefficient of variation "
        f"{m['work']['lognormal_cv']}, cut at {m['work']['max_factor']} times the mean",
        "", "## Tables", "", *(f"- `{t.path}`: {t.title}" for t in TABLES.values()), "",
        "Times in `requests.csv.gz` are seconds from the start of each run; `access.csv.gz` "
        "is Tomcat's side of the same requests (its thread names show which thread served "
        "each).",
    ]
    return lines


# -- the server -----------------------------------------------------------------------------


def snippet_levels(tomcat_text: str, hikari_text: str) -> dict[str, int]:
    """Threads, queue and pool as the emitted snippets set them (``maxThreads``,
    ``maxQueueSize``, ``maximumPoolSize``).

    >>> from queuetune import snippets
    >>> t = snippets.texts(snippets.Numbers(threads=5, capacity=40, connections=3,
    ...                                     max_response_time=2.0))
    >>> snippet_levels(t["tomcat"], t["hikari"])
    {'threads': 5, 'queue': 35, 'pool': 3}
    """
    found = {}
    for key, pattern, text in (("threads", r'maxThreads="([0-9]+)"', tomcat_text),
                               ("queue", r'maxQueueSize="([0-9]+)"', tomcat_text),
                               ("pool", r"^maximumPoolSize=([0-9]+)$", hikari_text)):
        match = re.findall(pattern, text, flags=re.MULTILINE)
        if len(match) != 1:
            raise ValueError(f"the snippet must set {pattern.split('=')[0].strip('^')} once, "
                             f"found {len(match)}")
        found[key] = int(match[0])
    return found


def deployed_server_xml(xml: str, snippet: str, *, port: int, address: str) -> str:
    """``server.xml`` with its Executor and Connector replaced by the emitted ``snippet``,
    verbatim but for the Connector's port and address (the lab's: a free port, the loopback).

    >>> from queuetune import snippets
    >>> from queuetune.lab.tomcat import ServerSettings, server_xml
    >>> t = snippets.texts(snippets.Numbers(threads=5, capacity=40, connections=3,
    ...                                     max_response_time=2.0))["tomcat"]
    >>> xml = deployed_server_xml(server_xml(ServerSettings(threads=1, queue=1, port=9)), t,
    ...                           port=18080, address="127.0.0.1")
    >>> 'maxQueueSize="35"' in xml and 'port="18080" address="127.0.0.1"' in xml
    True
    """
    if snippet.count('port="8080"') != 1:
        raise ValueError("the snippet's Connector must have port=\"8080\" once")
    text = snippet.replace('port="8080"', f'port="{port}" address="{address}"')
    xml, count = re.subn(r"<!-- The thread pool.*?-->\s*<Executor [^>]*/>\s*<Connector [^>]*/>",
                         lambda _: text, xml, flags=re.DOTALL)
    if count != 1:
        raise ServerError("the server.xml written by queuetune.lab.tomcat has no Executor and "
                          "Connector to replace")
    return xml


class DatabaseTomcat(Tomcat):
    """Tomcat with the test application's jars (HikariCP, slf4j, pgJDBC) in WEB-INF/lib and an
    access log that names each request's thread (a fresh ``CATALINA_BASE``, pinned, its own
    process group, stopped on leaving); ``deployed``: an emitted Executor and Connector to run
    with, verbatim (:func:`deployed_server_xml`)."""

    def __init__(self, settings: ServerSettings, *, deployed: str | None = None,
                 **kwargs: Any):
        super().__init__(settings, **kwargs)
        self.deployed = deployed

    def write_base(self) -> None:
        """The base of :class:`Tomcat`, with the application's jars and the access log's
        pattern, and the emitted Executor and Connector when deployed."""
        super().write_base()
        lib = self.base / "webapps" / "ROOT" / "WEB-INF" / "lib"
        lib.mkdir(parents=True)
        for jar in JARS:
            shutil.copyfile(jar, lib / jar.resolve().name)
        xml = self.base / "conf" / "server.xml"
        text, count = re.subn(r'pattern="[^"]*"', f'pattern="{access_pattern()}"',
                              xml.read_text(encoding="utf-8"))
        if count != 1:
            raise ServerError("the server.xml written by queuetune.lab.tomcat has no access "
                              "log pattern to replace")
        if self.deployed is not None:
            text = deployed_server_xml(text, self.deployed, port=self.settings.port,
                                       address=self.settings.address)
        xml.write_text(text, encoding="utf-8")

    def access_lines(self) -> list[str]:
        path = self.base / "logs" / "access.log" if self.base else None
        if path is None or not path.is_file():
            return []
        return path.read_text(errors="replace").splitlines()


@dataclass
class Servers:
    """Tomcat and PostgreSQL of one server configuration (the runner's ``handle``)."""

    tomcat: DatabaseTomcat
    cluster: Cluster
    levels: dict[str, int]

    def alive(self) -> bool:
        return self.tomcat.alive() and self.cluster.alive()


def server_cores(settings: Settings, processors: int) -> tuple[int, ...]:
    return settings.server.cores[:processors]


def _levels(session: Session, run: Run) -> dict[str, int]:
    """Threads, queue and pool: the design's, or the advice's."""
    if run["settings_from"] == "advice":
        advice = session.state.get("advice")
        if advice is None:
            raise RuntimeError("an advice run without an advice: its one-client run was not "
                               "valid, or did not run")
        return snippet_levels(advice["tomcat"], advice["hikari"])
    return {"threads": run["threads"], "queue": run["queue"], "pool": run["pool"]}


def _label(run: Run, levels: dict[str, int]) -> str:
    return (f"{run['processors']} processor(s), {levels['threads']} threads, queue "
            f"{levels['queue']}, pool {levels['pool']} ({run['settings_from']})")


@contextlib.contextmanager
def server(session: Session, run: Run) -> Iterator[Server]:
    """PostgreSQL on the database's cores, then Tomcat on its own; both stopped on leaving."""
    settings = session.plan.settings
    s, w = settings.server, settings.workload
    levels = _levels(session, run)
    secret = new_secret()
    session.state["secret"] = secret
    session.state["servers_started"] = session.state.get("servers_started", 0) + 1
    cores = server_cores(settings, run["processors"])
    with contextlib.ExitStack() as stack:
        cluster = Cluster(cores=s.database_cores, rows=w.table_rows)
        with session.progress(f"{_label(run, levels)}: starting PostgreSQL"):
            stack.enter_context(cluster)
        tomcat = DatabaseTomcat(
            ServerSettings(threads=levels["threads"], queue=levels["queue"],
                           port=s.port or free_port(), max_connections=s.max_connections,
                           accept_count=s.accept_count,
                           connection_timeout_ms=s.connection_timeout_ms, heap_mb=s.heap_mb,
                           cores=cores),
            pages={"database.jsp": page(secret, connections=levels["pool"],
                                        jdbc_url=cluster.jdbc_url,
                                        pool_timeout_ms=w.pool_timeout_ms,
                                        rows=w.table_rows)},
            ready_path=f"{PAGE}?work=0&db_work=0&sleep_us=0&dist=constant",
            ready_headers={SECRET_HEADER: secret},
            deployed=session.state["advice"]["tomcat"] if run["settings_from"] == "advice"
            else None)
        with session.progress(f"{_label(run, levels)}: starting Tomcat"):
            stack.enter_context(tomcat)
        servers = Servers(tomcat, cluster, levels)
        # The runner checks Tomcat's cores against the JVM with one processor (cores of its
        # own); the database's core, shared with the generator, is checked in measure.
        yield Server(url=tomcat.url, pids=lambda: [tomcat.pid] if tomcat.alive() else [],
                     counters=tomcat.settle, alive=servers.alive, probe=tomcat.probe,
                     cores=cores if run["processors"] == 1 else (), handle=servers)


def _get(url: str, secret: str, query: str) -> tuple[float, dict[str, str]]:
    """One request in turn: its latency (ms) and its headers."""
    host, port = url.split("//", 1)[1].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        start = time.perf_counter()
        conn.request("GET", f"{PAGE}?{query}", headers={"Connection": "close",
                                                        SECRET_HEADER: secret})
        answer = conn.getresponse()
        body = answer.read()
        latency = (time.perf_counter() - start) * 1000
    finally:
        conn.close()
    if answer.status != 200:
        raise http.client.HTTPException(f"HTTP {answer.status}: {body[:200]!r}")
    return latency, {k.lower(): v for k, v in answer.getheaders()} | {"body": body.decode()}


def pool_stats(url: str, secret: str) -> dict[str, int]:
    """HikariCP's counters, as the page reports them."""
    _, headers = _get(url, secret, "stats=1")
    return {name: int(value) for name, value in
            (line.split() for line in headers["body"].splitlines() if line.strip())}


def prepare(session: Session, server_: Server, run: Run) -> None:
    """Calibrate the page's arithmetic and the database's work on every server start (the
    database's cluster is new), then warm the JIT with the work."""
    servers: Servers = server_.handle
    settings = session.plan.settings
    secret = session.state["secret"]
    label = _label(run, servers.levels)
    with session.progress(f"{label}: calibrating"):
        page_per_ms = _calibrate_page(session, server_.url, secret)
        db_per_ms = servers.cluster.calibrate(iterations=1_000_000, repeats=10, rounds=3)
    session.state.update(work_per_ms=page_per_ms, db_per_ms=db_per_ms)
    number = session.state["servers_started"]
    session.writer.append("calibration", [
        {"server": number, "what": "page", "per_ms": round(page_per_ms, 1)},
        {"server": number, "what": "database", "per_ms": round(db_per_ms, 1)}])
    with session.progress(f"{label}: warming up"):
        end = time.monotonic() + settings.timing.jit_warmup_s
        while time.monotonic() < end:
            _get(server_.url, secret, _query(session, run))


def _calibrate_page(session: Session, url: str, secret: str) -> float:
    """Iterations per millisecond of the request thread's processor time: the median it
    reports for a fixed amount of arithmetic less that of an empty request."""
    settings = session.plan.settings

    def cpu_ms(work: int) -> float:
        _, headers = _get(url, secret, f"work={work}&db_work=0&sleep_us=0&dist=constant")
        return int(headers["x-queuetune-cpu-us"]) / 1000

    end = time.monotonic() + settings.timing.jit_warmup_s
    while time.monotonic() < end:
        cpu_ms(CALIBRATION_WORK)
    n = settings.timing.calibration_requests // 2
    work = statistics.median(cpu_ms(CALIBRATION_WORK) for _ in range(n))
    empty = statistics.median(cpu_ms(0) for _ in range(n))
    if work <= empty:
        raise ServerError("calibration failed: the arithmetic took no measurable time")
    return CALIBRATION_WORK / (work - empty)


def _means(session: Session, run: Run) -> tuple[int, int, int]:
    """Mean iterations of the arithmetic and of qt_work, and the mean wait (us)."""
    return (round(run["cpu_ms"] * session.state["work_per_ms"]),
            round(run["db_ms"] * session.state["db_per_ms"]), round(run["wait_ms"] * 1000))


def _query(session: Session, run: Run) -> str:
    work, db_work, sleep_us = _means(session, run)
    return (f"work={work}&db_work={db_work}&sleep_us={sleep_us}&dist={run['distribution']}"
            f"&bytes={session.plan.settings.workload.response_bytes}")


# -- one run --------------------------------------------------------------------------------


def _arrival_rate(session: Session, run: Run) -> float:
    if run["peak_multiple"] > 0:
        return run["peak_multiple"] * session.state["advice"]["peak"]
    return run["arrival_rate"]


def _spec(session: Session, run: Run) -> LoadSpec:
    settings, plan = session.plan.settings, session.plan
    timing = settings.timing
    one = run.kind == "one-client"
    rate = _arrival_rate(session, run)
    open_loop = rate > 0
    return LoadSpec(
        run=session.run_number, clients=1 if open_loop else run["clients"],
        think_s=1.0 / rate if open_loop else 0.0 if one else settings.workload.think_time_s,
        path=f"{PAGE}?{_query(session, run)}", seed=plan.seed,
        ramp_s=0.0 if open_loop or one else timing.ramp_s,
        warmup_s=1.0 if one else timing.warmup_s,
        measure_s=max(timing.one_client_s, 2.0) if one else timing.measure_s,
        timeout_s=settings.checks.request_timeout_s, keep_alive=settings.workload.keep_alive,
        headers={SECRET_HEADER: session.state["secret"],
                 DEADLINE_HEADER: str(round(settings.checks.request_timeout_s * 1000))})


def measure(session: Session, server_: Server, run: Run, monitor: CpuMonitor) -> Measured:
    """One run against Tomcat and PostgreSQL; every request a row on each side."""
    settings = session.plan.settings
    servers: Servers = server_.handle
    spec = _spec(session, run)
    lines_before = len(servers.tomcat.access_lines())
    pool_before = pool_stats(server_.url, session.state["secret"])
    before = servers.tomcat.settle()
    started = time.monotonic()
    monitor.add_group("database", servers.cluster.pids)
    open_loop = run.kind != "one-client" and _arrival_rate(session, run) > 0
    generator = Generator(spec, server_.url, locustfile("open" if open_loop else "closed"),
                          cores=settings.server.generator_cores)
    monitor.add_group("generator", generator.pids)
    with session.progress(f"{_label(run, servers.levels)}: {run.kind}"), generator:
        generator.wait(timeout=spec.stop_s + spec.timeout_s + 120)
        rows_path, meta = generator.result()
        rows = _read_rows(rows_path)
    monitor.sample()
    counters = servers.tomcat.settle().since(before)
    access = parse_access(servers.tomcat.access_lines()[lines_before:])
    alive = servers.cluster.alive()
    pool_after = pool_stats(server_.url, session.state["secret"]) if server_.probe(
        5.0) else None
    window = (meta["t0_epoch"] + spec.ramp_s + spec.warmup_s, meta["t0_epoch"] + spec.stop_s)
    row, failed = _run_row(session, run, spec, rows, meta, access, monitor, window)
    row.update(server_rejected=counters.rejected, database_alive=alive,
               seconds=round(time.monotonic() - started, 2))
    if pool_after is not None:
        row.update(pool_timeouts=pool_after["timeouts"] - pool_before["timeouts"],
                   database_failures=pool_after["failures"] - pool_before["failures"])
    failed += _database_checks(settings, row, alive, pool_after)
    if run.kind == "one-client" and run["settings_from"] == "design":
        _size_advice(session, run, row, failed)
    tables = {"requests": rows, "access": access, "samples": monitor_samples(monitor)}
    if pool_after is not None:
        tables["pool"] = [pool_after]
    return Measured(row=row, window=window, refused_seen=row["closed"],
                    connection_errors=row["other_errors"], tables=tables,
                    failed_checks=failed)


def monitor_samples(monitor: CpuMonitor) -> list[dict[str, Any]]:
    """The monitor's readings so far, one row per sample and series (long format)."""
    n = len(monitor.times)
    rows = []
    for i, t in enumerate(monitor.times[:n]):
        for name, series in list(monitor.values.items()):
            if i < len(series):
                rows.append({"t": round(t, 3), "what": name, "seconds": round(series[i], 3)})
        if i < len(monitor.cores):
            rows += [{"t": round(t, 3), "what": f"core-{c}", "seconds": round(v, 3)}
                     for c, v in enumerate(monitor.cores[i])]
    return rows


def _database_checks(settings: Settings, row: dict, alive: bool, pool: dict | None
                     ) -> list[str]:
    failed = []
    if not alive:
        failed.append("PostgreSQL's postmaster was not running at the end of the run")
    if pool is None:
        failed.append("the pool's counters could not be read after the run")
    elif row["pool_timeouts"] and not settings.checks.pool_timeouts_allowed:
        failed.append(f"{row['pool_timeouts']} requests found no connection within "
                      f"HikariCP's connectionTimeout")
    if row["database_failures"]:
        failed.append(f"{row['database_failures']} database errors")
    if row["ok"] != row["server_answered_ok"]:
        failed.append(f"the clients saw {row['ok']} answers, Tomcat's access log has "
                      f"{row['server_answered_ok']}")
    row.pop("server_answered_ok")
    return failed


def _read_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        expected = [f.name for f in TABLES["requests"].fields]
        if reader.fieldnames != expected:
            raise RuntimeError(f"the generator wrote columns {reader.fieldnames}, the data "
                               f"set has {expected}")
        return list(reader)


def _cpu_row(session: Session, run: Run, monitor: CpuMonitor, window: tuple[float, float]
             ) -> tuple[dict[str, Any], list[str]]:
    """Processor time over the window: Tomcat, PostgreSQL, the generator, their cores, and
    what else ran on them (checked here: the database's core is shared)."""
    settings, policy = session.plan.settings, session.plan.validity
    s = settings.server
    tomcat_cores = server_cores(settings, run["processors"])
    all_cores = tuple(sorted(set(tomcat_cores) | set(s.database_cores) |
                             set(s.generator_cores)))
    server_cpu = monitor.share("server", *window)
    database_cpu = monitor.share("database", *window)
    generator_cpu = monitor.share("generator", *window)
    db_busy = monitor.cores_share(s.database_cores, *window) * len(s.database_cores)
    tomcat_busy = monitor.cores_share(tomcat_cores, *window) * len(tomcat_cores)
    busy = monitor.cores_share(all_cores, *window) * len(all_cores)
    other = busy - server_cpu - database_cpu - generator_cpu
    failed = []
    if not generator_cpu <= settings.checks.generator_cpu_max * len(s.generator_cores):
        failed.append(f"the load generator used {generator_cpu:.2f} cores (limit "
                      f"{settings.checks.generator_cpu_max:g} per core of its own)")
    if other / len(all_cores) > policy.core_margin:
        failed.append(f"the servers' cores were busy {busy:.2f} cores of the window, Tomcat, "
                      f"PostgreSQL and the generator {busy - other:.2f}: another process took "
                      f"more than the {policy.core_margin:.0%} margin")
    return {"server_cpu": _round(server_cpu, 4), "database_cpu": _round(database_cpu, 4),
            "generator_cpu": _round(generator_cpu, 4),
            "database_cores_busy": _round(db_busy, 4),
            "generator_share": _round(generator_cpu / db_busy if db_busy > 0 else None, 4),
            "tomcat_cores_busy": _round(tomcat_busy, 4), "other_cpu": _round(other, 4)}, failed


def _mean_ms(values: list[float]) -> float | None:
    return _round(float(np.mean(values)) / 1000, 3) if values else None


def _p99_ms(values: list[float]) -> float | None:
    return _round(float(np.percentile(values, 99)) / 1000, 3) if values else None


def _run_row(session: Session, run: Run, spec: LoadSpec, rows: list[dict], meta: dict,
             access: list[dict], monitor: CpuMonitor, window: tuple[float, float]
             ) -> tuple[dict, list[str]]:
    checks = session.plan.settings.checks
    start_s, end_s = spec.ramp_s + spec.warmup_s, spec.stop_s
    length = end_s - start_s
    inside = [r for r in rows if start_s <= float(r["start_s"]) < end_s]
    ok_inside = [r for r in inside if r["outcome"] == "ok"]
    lateness = [float(r["lateness_ms"]) for r in inside]
    late_p99 = float(np.percentile(lateness, 99)) if lateness else float("nan")
    cpu, failed = _cpu_row(session, run, monitor, window)
    if run.kind != "one-client" and not late_p99 <= checks.lateness_p99_max_ms:
        failed.append(f"99 % of requests were sent within {late_p99:.1f} ms of their plan "
                      f"(limit {checks.lateness_p99_max_ms:g} ms)")
    outcomes = [r["outcome"] for r in rows]
    ok, closed = outcomes.count("ok"), outcomes.count("closed")
    answered = [a for a in access if a["status"] == 200]
    latencies = [float(r["latency_ms"]) for r in ok_inside]
    per_answer = length / len(ok_inside) * 1000 if ok_inside else None
    work, db_work, _ = _means(session, run)
    levels = _levels(session, run)
    row = {
        "processors": run["processors"], **levels, "settings_from": run["settings_from"],
        "peak_multiple": run["peak_multiple"], "distribution": run["distribution"],
        "cpu_ms": run["cpu_ms"], "db_ms": run["db_ms"], "wait_ms": run["wait_ms"],
        "clients": run["clients"],
        "arrival_rate": _round(_arrival_rate(session, run), 4),
        "think_s": None if run["clients"] == 0 else spec.think_s,
        "work": work, "db_work": db_work, "window_start_s": start_s, "window_end_s": end_s,
        "sent": len(rows), "sent_in_window": len(inside),
        "locust_requests": meta.get("locust_requests"), "ok": ok,
        "ok_in_window": len(ok_inside), "closed": closed,
        "other_errors": len(rows) - ok - closed, "server_answered": len(access),
        "server_answered_ok": len(answered),
        "throughput": _round(len(ok_inside) / length, 4),
        "response_ms": _round(float(np.mean(latencies)), 3) if latencies else None,
        "response_p99_ms": _round(float(np.percentile(latencies, 99)), 3) if latencies
        else None,
        "thread_cpu_ms": _mean_ms([float(r["server_cpu_us"]) for r in ok_inside
                                   if r["server_cpu_us"] != ""]),
        "jvm_cpu_ms": _round(cpu["server_cpu"] * per_answer, 4) if per_answer else None,
        "db_cpu_ms": _round(cpu["database_cpu"] * per_answer, 4) if per_answer else None,
        "db_time_ms": _mean_ms([a["db_us"] for a in answered if a["db_us"] is not None]),
        "hold_ms": _mean_ms([a["hold_us"] for a in answered if a["hold_us"] is not None]),
        "pool_wait_ms": _mean_ms([float(r["permit_wait_us"]) for r in ok_inside
                                  if r["permit_wait_us"] != ""]),
        "pool_wait_p99_ms": _p99_ms([float(r["permit_wait_us"]) for r in ok_inside
                                     if r["permit_wait_us"] != ""]),
        "pool_timeouts": None, "database_failures": None,
        **cpu, "lateness_p99_ms": _round(late_p99, 3),
    }
    return row, failed


def _round(value: float | None, digits: int) -> float | None:
    if value is None or value != value:
        return None
    return round(value, digits)


# -- the advice -----------------------------------------------------------------------------


def advice_for(*, processors: int, cpu_s: float, wait_s: float, shares: tuple[float, ...],
               max_response_s: float) -> dict[str, Any]:
    """The sizing (``queuetune.sizing.size``, the calculator's function) at the largest peak,
    a share of the processors' ceiling ``processors / cpu_s``, whose advice needs no more
    processors than Tomcat has; its settings and the snippets it emits, verbatim.

    ``wait_s``: the time a connection is held (the query, the database's work, and the wait);
    the database's processor time is Tomcat's wait, on a core of its own."""
    from .... import sizing, snippets

    if not cpu_s > 0:
        raise ValueError(f"cpu_s must be > 0 (s), got {cpu_s!r}")
    for share in shares:
        peak = share * processors / cpu_s
        result = sizing.size(processors=processors, cpu_time=cpu_s, wait_time=wait_s,
                             arrival_rate=peak, max_response_time=max_response_s)
        if result.processors_needed <= processors:
            break
    else:
        raise ValueError(f"no peak of the shares {list(shares)} fits {processors} "
                         f"processor(s): the sizing asks for {result.processors_needed}")
    numbers = snippets.from_sizing(result)
    texts = snippets.texts(numbers)
    return {"peak": peak, "share": share, "threads": result.threads,
            "queue": snippets.queue(numbers), "pool": snippets.pool(numbers) or 1,
            "capacity": result.capacity, "cpu_s": cpu_s, "wait_s": wait_s,
            "processors": processors, "tomcat": texts["tomcat"], "hikari": texts["hikari"],
            "response_time": result.response_time, "response_time_p95":
            result.response_time_p95, "response_time_p99": result.response_time_p99,
            "saturation_multiple": result.saturation_multiple}


def _size_advice(session: Session, run: Run, row: dict, failed: list[str]) -> None:
    """After a one-client run: the advice for its service, kept for the advice runs and
    stored (once) with the data set, with the run it came from and that run's failed checks
    (the runner's own checks of it are in runs.csv)."""
    settings = session.plan.settings
    if settings.advice is None or "advice" in session.state:
        return
    if not row["jvm_cpu_ms"] or row["hold_ms"] is None:
        return
    advice = advice_for(processors=run["processors"], cpu_s=row["jvm_cpu_ms"] / 1000,
                        wait_s=row["hold_ms"] / 1000, shares=settings.advice.peak_shares,
                        max_response_s=settings.advice.max_response_s)
    snippet_levels(advice["tomcat"], advice["hikari"])  # refused here if unreadable
    session.state["advice"] = advice
    session.writer.append("advice", [{"quantity": k, "value": str(v)} for k, v in {
        **advice, "measured_in_run": session.run_number,
        "measured_run_failed_checks": "; ".join(failed) or "none"}.items()])
