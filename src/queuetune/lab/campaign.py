"""A measurement campaign, read from a small declarative TOML file.

A campaign names the server's settings to try (thread pools and connection queues), the
workload (how much processor work and how much waiting each request does, how long clients
think), the client counts, and the timing of every run. Everything is checked before anything
starts: a wrong value raises ``ValueError`` naming the key (``design.threads[0]``) and its
allowed range, and nothing is written.

>>> from queuetune.lab import campaign
>>> plan = campaign.load(campaign.builtin("smoke"))
>>> plan.name, [s.name for s in plan.splits], plan.design.clients
('smoke', ['mixed'], (2, 8))
>>> [(r.threads, r.queue, r.clients) for r in plan.runs()]
[(2, 1, 2), (2, 1, 8)]
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

from .._validation import integer, real

__all__ = [
    "Campaign",
    "Checks",
    "Design",
    "Run",
    "Server",
    "Split",
    "Timing",
    "builtin",
    "builtins",
    "load",
    "parse",
]

_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-")
# Seconds a run needs besides ramp, warm-up and measurement: starting the load generator,
# letting the last requests finish, stopping (measured: about 1 s on a 2-core machine, more
# when answers take seconds).
RUN_OVERHEAD_S = 1.5
# Seconds to start a server and compile the page (measured: about 3 s), besides the JIT
# warm-up.
SERVER_START_S = 4.0


@dataclass(frozen=True)
class Split:
    """How one request spends its service time: ``cpu_ms`` of arithmetic, then ``sleep_ms``."""

    name: str
    cpu_ms: float
    sleep_ms: float


@dataclass(frozen=True)
class Design:
    """The factors crossed in the campaign: pools x queues x clients (x splits)."""

    threads: tuple[int, ...]
    queue: tuple[int, ...]
    clients: tuple[int, ...]


@dataclass(frozen=True)
class Timing:
    """Durations of one run, in seconds, and of the one-client and calibration runs."""

    ramp_s: float
    warmup_s: float
    measure_s: float
    one_client_s: float
    calibration_requests: int
    jit_warmup_s: float


@dataclass(frozen=True)
class Server:
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
class Run:
    """One measured run: a split, a pool, a queue and a client count."""

    kind: str  # "one-client" or "load"
    split: Split
    threads: int
    queue: int
    clients: int

    @property
    def config(self) -> tuple[str, int, int]:
        """The server configuration: runs with the same one share a server start."""
        return (self.split.name, self.threads, self.queue)


@dataclass(frozen=True)
class Campaign:
    name: str
    description: str
    seed: int
    think_time_s: float
    response_bytes: int
    keep_alive: bool
    splits: tuple[Split, ...]
    design: Design
    timing: Timing
    server: Server
    checks: Checks
    source: str = field(default="", repr=False)  # the TOML text, stored with the data

    def runs(self) -> list[Run]:
        """Every load run, in the order they are measured: split, pool, queue, clients."""
        return [Run("load", split, t, q, k)
                for split in self.splits
                for t in self.design.threads
                for q in self.design.queue
                for k in self.design.clients]

    def one_client_runs(self) -> list[Run]:
        """One client per split, as the paper measured the service time (on the split's first
        server configuration: with one client the pool and the queue never fill)."""
        t, q = self.design.threads[0], self.design.queue[0]
        return [Run("one-client", split, t, q, 1) for split in self.splits]

    def schedule(self) -> list[Run]:
        """Every run in the order measured: each split's one-client run, then its load runs."""
        order = []
        for split in self.splits:
            order += [r for r in self.one_client_runs() if r.split == split]
            order += [r for r in self.runs() if r.split == split]
        return order

    def run_seconds(self, run: Run) -> float:
        """Planned length of one run, overhead included."""
        t = self.timing
        if run.kind == "one-client":
            return t.one_client_s + RUN_OVERHEAD_S
        return t.ramp_s + t.warmup_s + t.measure_s + RUN_OVERHEAD_S

    def estimated_seconds(self, *, starts_server: bool = True) -> float:
        """How long the whole campaign should take."""
        runs = self.one_client_runs() + self.runs()
        configs = {r.config for r in self.runs()}
        calibration = 3.0 + self.timing.calibration_requests * 0.04
        starts = len(configs) * (SERVER_START_S + self.timing.jit_warmup_s)
        return (sum(self.run_seconds(r) for r in runs) + calibration
                + (starts if starts_server else 0.0))


# -- reading ---------------------------------------------------------------------------------


def builtins() -> list[str]:
    """Names of the campaigns that ship with the package."""
    folder = resources.files(__package__) / "campaigns"
    return sorted(p.name.removesuffix(".toml") for p in folder.iterdir()
                  if p.name.endswith(".toml"))


def builtin(name: str) -> Path:
    """Path of a campaign file that ships with the package (``imre``, ``smoke``)."""
    known = builtins()
    if name not in known:
        raise ValueError(f"campaign must be one of {known} or a path to a .toml file, "
                         f"got {name!r}")
    return Path(str(resources.files(__package__) / "campaigns" / f"{name}.toml"))


def load(path: str | Path) -> Campaign:
    """Read and check a campaign file."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"campaign file {str(path)!r} does not exist")
    text = path.read_text(encoding="utf-8")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"campaign file {str(path)!r} is not valid TOML: {exc}") from None
    return parse(raw, source=text)


_SECTIONS = ("campaign", "workload", "design", "timing", "server", "checks")


def parse(raw: Mapping[str, Any], *, source: str = "") -> Campaign:
    """Check a campaign given as nested dictionaries (what TOML gives)."""
    _only(raw, _SECTIONS, "the campaign file")
    for section in _SECTIONS:
        if not isinstance(raw.get(section), Mapping):
            raise ValueError(f"the campaign file needs a [{section}] table")
    head, work = raw["campaign"], raw["workload"]
    _only(head, ("name", "description", "seed"), "[campaign]")
    _only(work, ("think_time_s", "response_bytes", "keep_alive", "splits"), "[workload]")
    keep_alive = _get(work, "keep_alive", "workload")
    if not isinstance(keep_alive, bool):
        raise ValueError(f"workload.keep_alive must be true or false, got {keep_alive!r}")
    name = _name(_get(head, "name", "campaign"), "campaign.name")
    description = _get(head, "description", "campaign")
    if not isinstance(description, str):
        raise ValueError(f"campaign.description must be a string, got {description!r}")
    return Campaign(
        name=name,
        description=description.strip(),
        seed=integer(_get(head, "seed", "campaign"), "campaign.seed", low=0, high=2**32 - 1),
        think_time_s=real(_get(work, "think_time_s", "workload"), "workload.think_time_s",
                          low=0.0, high=3600.0, unit="s"),
        response_bytes=integer(_get(work, "response_bytes", "workload"),
                               "workload.response_bytes", low=100, high=10_000_000,
                               unit="bytes"),
        keep_alive=keep_alive,
        splits=_splits(work.get("splits")),
        design=_design(raw["design"]),
        timing=_timing(raw["timing"]),
        server=_server(raw["server"]),
        checks=_checks(raw["checks"]),
        source=source,
    )


def _only(table: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ValueError(f"unknown parameter {unknown[0]!r} in {where}; allowed: "
                         f"{', '.join(allowed)}")


def _get(table: Mapping[str, Any], key: str, section: str) -> Any:
    if key not in table:
        raise ValueError(f"{section}.{key} is missing")
    return table[key]


def _name(value: Any, key: str) -> str:
    if (not isinstance(value, str) or not value or not set(value) <= _NAME_CHARS
            or len(value) > 60):
        raise ValueError(f"{key} must be 1 to 60 characters of a-z, 0-9 and '-', "
                         f"got {value!r}")
    return value


def _int_list(value: Any, key: str, low: int, high: int) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError(f"{key} must be a non-empty list of integers in [{low}, {high}], "
                         f"got {value!r}")
    items = tuple(integer(v, f"{key}[{i}]", low=low, high=high) for i, v in enumerate(value))
    if len(set(items)) != len(items):
        raise ValueError(f"{key} must not repeat a value, got {list(items)}")
    return items


def _splits(value: Any) -> tuple[Split, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError("workload.splits must be a non-empty list of tables "
                         "([[workload.splits]] with name, cpu_ms, sleep_ms)")
    splits = []
    for i, item in enumerate(value):
        key = f"workload.splits[{i}]"
        if not isinstance(item, Mapping):
            raise ValueError(f"{key} must be a table with name, cpu_ms and sleep_ms")
        _only(item, ("name", "cpu_ms", "sleep_ms"), key)
        cpu = real(_get(item, "cpu_ms", key), f"{key}.cpu_ms", low=0.0, high=60_000.0,
                   unit="ms")
        sleep = real(_get(item, "sleep_ms", key), f"{key}.sleep_ms", low=0.0, high=60_000.0,
                     unit="ms")
        if cpu + sleep <= 0:
            raise ValueError(f"{key}: cpu_ms + sleep_ms must be > 0, got {cpu + sleep:g}")
        splits.append(Split(_name(_get(item, "name", key), f"{key}.name"), cpu, sleep))
    names = [s.name for s in splits]
    if len(set(names)) != len(names):
        raise ValueError(f"workload.splits names must differ, got {names}")
    return tuple(splits)


def _design(table: Mapping[str, Any]) -> Design:
    _only(table, ("threads", "queue", "clients"), "[design]")
    return Design(
        threads=_int_list(_get(table, "threads", "design"), "design.threads", 1, 10_000),
        queue=_int_list(_get(table, "queue", "design"), "design.queue", 1, 100_000),
        clients=_int_list(_get(table, "clients", "design"), "design.clients", 1, 100_000),
    )


def _timing(table: Mapping[str, Any]) -> Timing:
    keys = tuple(f.name for f in fields(Timing))
    _only(table, keys, "[timing]")

    def seconds(key: str, low: float) -> float:
        return real(_get(table, key, "timing"), f"timing.{key}", low=low, high=86_400.0,
                    unit="s")

    return Timing(
        ramp_s=seconds("ramp_s", 0.0),
        warmup_s=seconds("warmup_s", 0.0),
        measure_s=real(_get(table, "measure_s", "timing"), "timing.measure_s", low=0.0,
                       high=86_400.0, low_open=True, unit="s"),
        one_client_s=real(_get(table, "one_client_s", "timing"), "timing.one_client_s",
                          low=0.0, high=86_400.0, low_open=True, unit="s"),
        calibration_requests=integer(_get(table, "calibration_requests", "timing"),
                                     "timing.calibration_requests", low=10, high=100_000),
        jit_warmup_s=seconds("jit_warmup_s", 0.0),
    )


def _cores(value: Any, key: str) -> tuple[int, ...]:
    return _int_list(value, key, 0, 4095)


def _server(table: Mapping[str, Any]) -> Server:
    keys = tuple(f.name for f in fields(Server))
    _only(table, keys, "[server]")

    def whole(key: str, low: int, high: int) -> int:
        return integer(_get(table, key, "server"), f"server.{key}", low=low, high=high)

    server = Server(
        port=whole("port", 0, 65535),
        max_connections=whole("max_connections", 1, 1_000_000),
        accept_count=whole("accept_count", 1, 65535),
        keep_alive_requests=whole("keep_alive_requests", -1, 1_000_000),
        connection_timeout_ms=whole("connection_timeout_ms", 1, 3_600_000),
        heap_mb=whole("heap_mb", 64, 65536),
        server_cores=_cores(_get(table, "server_cores", "server"), "server.server_cores"),
        generator_cores=_cores(_get(table, "generator_cores", "server"),
                               "server.generator_cores"),
    )
    shared = sorted(set(server.server_cores) & set(server.generator_cores))
    if shared:
        raise ValueError(f"server.server_cores and server.generator_cores must not share a "
                         f"core (they would fight for it), both list {shared}")
    return server


def _checks(table: Mapping[str, Any]) -> Checks:
    keys = tuple(f.name for f in fields(Checks))
    _only(table, keys, "[checks]")
    return Checks(
        generator_cpu_max=real(_get(table, "generator_cpu_max", "checks"),
                               "checks.generator_cpu_max", low=0.0, high=1.0, low_open=True),
        lag_p99_max_ms=real(_get(table, "lag_p99_max_ms", "checks"), "checks.lag_p99_max_ms",
                            low=0.0, high=math.inf, low_open=True, unit="ms"),
        request_timeout_s=real(_get(table, "request_timeout_s", "checks"),
                               "checks.request_timeout_s", low=0.0, high=3600.0,
                               low_open=True, unit="s"),
    )
