"""Run a campaign: for each configuration start Tomcat, calibrate, measure, stop, store.

For each server configuration (split x thread pool x queue) the runner writes a fresh
``CATALINA_BASE``, starts Tomcat pinned to the server's cores, warms the JIT, and for each
client count runs Locust (pinned to the generator's cores): clients start evenly over the ramp,
the run warms up, the window is measured, the clients stop sending and the last answers come
in. Then the run's rows are appended to the data set, with what the server logged and how much
processor time the server and the generator used over the window. Before the load runs of a
split, one client measures the service time, as the paper did. The first server also
calibrates how many iterations of the arithmetic make a millisecond of processor time.

Ctrl-C, SIGTERM or any failure stops the server and the generator and leaves the data set with
every run completed so far, and a status saying where it stopped.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import http.client
import signal
import statistics
import sys
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from . import machine, records, wire
from .campaign import Campaign, Run, Split
from .generator import Generator, LoadSpec
from .monitor import CpuMonitor
from .tomcat import (
    APP_PAGE,
    ServerCounters,
    ServerError,
    ServerSettings,
    Tomcat,
    free_port,
    java_version,
    require_free_port,
    tomcat_version,
)

__all__ = ["Options", "run_campaign", "preflight"]

# Iterations of the arithmetic used to calibrate (about 10 ms on a 2020s x86 core).
CALIBRATION_WORK = 1_000_000


@dataclass(frozen=True)
class Options:
    """How to run a campaign, besides what the campaign file says."""

    out_root: Path
    target: str | None = None  # a server started by the user: its base URL
    workers: int = 0  # local Locust workers (distributed mode on this machine)
    expect_workers: int = 0  # Locust workers started elsewhere by the user
    master_bind: tuple[str, int] | None = None
    wire: bool = True  # the limit scenarios (only with a server the runner starts)
    progress: bool = True
    date: str = field(default_factory=lambda: dt.datetime.now(dt.UTC).date().isoformat())


# -- checks before anything starts ------------------------------------------------------------


def preflight(plan: Campaign, options: Options) -> None:
    """Everything that can be checked before a server starts or a file is written."""
    cores = set(__import__("os").sched_getaffinity(0))
    for key, wanted in (("server.server_cores", plan.server.server_cores),
                        ("server.generator_cores", plan.server.generator_cores)):
        missing = sorted(set(wanted) - cores)
        if missing and not (options.target and key == "server.server_cores"):
            raise ValueError(f"{key} lists cores {missing} that this machine does not offer "
                             f"(available: {sorted(cores)})")
    if options.workers < 0 or options.expect_workers < 0:
        raise ValueError("workers and expect_workers must be >= 0")
    if options.target is None:
        tomcat_version()  # raises ServerError naming what is missing
        if plan.server.port:
            require_free_port(plan.server.port)
    else:
        _check_target(options.target)
    root = options.out_root
    parent = next((p for p in (root, *root.parents) if p.exists()), None)
    if parent is None or not parent.is_dir():
        raise ValueError(f"the output folder {str(root)!r} cannot be created")


def _check_target(url: str) -> None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http",) or not parts.hostname:
        raise ValueError(f"target must be an http:// URL of the server, got {url!r}")
    try:
        _get(url, 0, 0, 100)
    except (OSError, http.client.HTTPException) as exc:
        raise ValueError(f"target {url} does not serve the test page {APP_PAGE} ({exc}); "
                         f"deploy it with: python -m queuetune.lab webapp DIR") from None


def _get(base: str, work: int, sleep_us: int, size: int) -> tuple[float, int]:
    """One request on a connection of its own: (latency in ms, processor time of the
    answering thread in us). (On a kept-alive connection Tomcat's queue also receives the
    connection's own events, which can be refused even with a single client.)"""
    parts = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=60)
    try:
        start = time.perf_counter()
        conn.request("GET", f"{APP_PAGE}?work={work}&sleep_us={sleep_us}&bytes={size}",
                     headers={"Connection": "close"})
        answer = conn.getresponse()
        answer.read()
        latency = (time.perf_counter() - start) * 1000
    finally:
        conn.close()
    if answer.status != 200:
        raise http.client.HTTPException(f"HTTP {answer.status}")
    return latency, int(answer.getheader("X-Queuetune-Cpu-Us") or -1)


# -- the campaign -----------------------------------------------------------------------------


class _Stopped(Exception):
    """A stopping signal, turned into an exception so that every finally block runs."""


def _raise_stopped(signum, frame):  # noqa: ARG001
    raise _Stopped(f"signal {signum}")


@dataclass
class _State:
    plan: Campaign
    options: Options
    writer: records.DatasetWriter
    clock: Callable[[], float]
    work_per_ms: float | None = None
    run_number: int = 0
    completed: int = 0


def run_campaign(plan: Campaign, options: Options) -> Path:
    """Run every configuration of ``plan``; return the data set's folder."""
    preflight(plan, options)
    server_versions = ({"tomcat": tomcat_version(), "java": java_version()}
                       if options.target is None else
                       {"tomcat": "not started by the runner", "java": "unknown"})
    directory = records.new_dataset_dir(options.out_root, plan.name, options.date)
    metadata = _metadata(plan, options, server_versions)
    writer = records.DatasetWriter(directory, metadata, _readme,
                                   files={"campaign.toml": plan.source})
    state = _State(plan, options, writer, time.monotonic)
    # Ctrl-C (even where a shell started the runner with SIGINT ignored), kill, or a closed
    # terminal: each stops the server and the generator and keeps the completed runs.
    handled = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {sig: signal.signal(sig, _raise_stopped) for sig in handled}
    status = "failed"
    bar = _progress(plan, options)
    try:
        if options.wire and options.target is None:
            _wire_study(state, bar)
        for split in plan.splits:
            for threads in plan.design.threads:
                for queue in plan.design.queue:
                    _configuration(state, bar, split, threads, queue)
        status = "complete"
    except (KeyboardInterrupt, _Stopped):
        status = "interrupted"
        raise KeyboardInterrupt from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        writer.write_metadata(status=status, runs_completed=state.completed)
        bar.close()
    return directory


def _progress(plan: Campaign, options: Options):
    from tqdm import tqdm

    total = plan.estimated_seconds(starts_server=options.target is None)
    if options.wire and options.target is None:
        total += 2 * (wire.SLEEP_S * 5 + 12)
    return tqdm(total=round(total), unit="s", disable=not options.progress, file=sys.stderr,
                mininterval=1.0, dynamic_ncols=True,
                bar_format="{desc} |{bar}| {n:.0f}/{total:.0f} s, about {remaining} left")


@contextlib.contextmanager
def _step(bar, label: str) -> Iterator[None]:
    bar.set_description_str(label)
    start = time.monotonic()
    try:
        yield
    finally:
        # The estimate can fall short: the bar stops at its total rather than run past it.
        bar.update(max(0.0, min(time.monotonic() - start, bar.total - bar.n)))


def _wire_study(state: _State, bar) -> None:
    for scenario in wire.SCENARIOS:
        with _step(bar, f"limits: {scenario.name}"):
            connections, packets = wire.run_scenario(
                scenario, cores=state.plan.server.server_cores)
            state.writer.append("wire_connections", connections)
            state.writer.append("wire_packets", packets)


@contextlib.contextmanager
def _server(state: _State, threads: int, queue: int) -> Iterator[tuple[str, Tomcat | None]]:
    if state.options.target is not None:
        yield state.options.target.rstrip("/"), None
        return
    s = state.plan.server
    settings = ServerSettings(threads=threads, queue=queue, port=s.port or free_port(),
                              max_connections=s.max_connections, accept_count=s.accept_count,
                              keep_alive_requests=s.keep_alive_requests,
                              connection_timeout_ms=s.connection_timeout_ms,
                              heap_mb=s.heap_mb, cores=s.server_cores)
    with Tomcat(settings) as server:
        yield server.url, server


def _configuration(state: _State, bar, split: Split, threads: int, queue: int) -> None:
    plan = state.plan
    label = f"{split.name}, {threads} threads, queue {queue}"
    with contextlib.ExitStack() as stack:
        with _step(bar, f"{label}: starting the server"):
            url, server = stack.enter_context(_server(state, threads, queue))
        if state.work_per_ms is None:
            with _step(bar, f"{label}: calibrating"):
                _calibrate(state, url)
        work = round(split.cpu_ms * state.work_per_ms)
        with _step(bar, f"{label}: warming up"):
            _jit_warmup(url, work, plan.timing.jit_warmup_s, plan.response_bytes)
        runs = [r for r in plan.schedule()
                if r.config == (split.name, threads, queue)]
        for run in runs:
            with _step(bar, f"{label}, {run.clients} clients ({run.kind})"):
                _measure(state, url, server, run, work)


def _calibrate(state: _State, url: str) -> None:
    """Iterations per millisecond of the arithmetic's processor time (one client, in turn)."""
    size = state.plan.response_bytes
    _jit_warmup(url, CALIBRATION_WORK, state.plan.timing.jit_warmup_s, size)
    rows = []
    for step in range(state.plan.timing.calibration_requests):
        work = CALIBRATION_WORK if step % 2 else 0
        latency, cpu_us = _get(url, work, 0, size)
        rows.append((step, work, round(latency, 3), cpu_us))
    base = statistics.median(r[3] for r in rows if r[1] == 0)
    loaded = statistics.median(r[3] for r in rows if r[1] == CALIBRATION_WORK)
    if loaded <= base:
        raise ServerError("calibration failed: the arithmetic took no measurable processor "
                          "time (is the JVM's thread CPU time measurement off?)")
    state.work_per_ms = CALIBRATION_WORK / ((loaded - base) / 1000)
    state.writer.append("calibration", rows)
    state.writer.metadata["measurement"]["work_per_ms"] = round(state.work_per_ms, 1)


def _jit_warmup(url: str, work: int, seconds: float, size: int) -> None:
    """Requests in turn for a few seconds, so the JIT has compiled the page before measuring."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        _get(url, work, 0, size)


def _spec(state: _State, run: Run, work: int) -> LoadSpec:
    plan = state.plan
    one = run.kind == "one-client"
    timing = plan.timing
    return LoadSpec(
        run=state.run_number, clients=run.clients, think_s=plan.think_time_s,
        path=(f"{APP_PAGE}?work={work}&sleep_us={round(run.split.sleep_ms * 1000)}"
              f"&bytes={plan.response_bytes}"),
        seed=plan.seed, ramp_s=0.0 if one else timing.ramp_s,
        warmup_s=1.0 if one else timing.warmup_s,
        measure_s=timing.one_client_s if one else timing.measure_s,
        timeout_s=plan.checks.request_timeout_s, keep_alive=plan.keep_alive)


def _measure(state: _State, url: str, server: Tomcat | None, run: Run, work: int) -> None:
    state.run_number += 1
    spec = _spec(state, run, work)
    opts = state.options
    before = server.settle() if server else None
    started = time.monotonic()
    generator = Generator(spec, url, cores=state.plan.server.generator_cores,
                          workers=opts.workers, expect_workers=opts.expect_workers,
                          master_bind=opts.master_bind)
    groups = {"generator": generator.pids}
    if server is not None:
        groups["server"] = lambda: [server.pid]
    with generator, CpuMonitor(groups) as monitor:
        generator.wait(timeout=spec.stop_s + spec.timeout_s + 120 + 60 * opts.expect_workers)
        rows_path, meta = generator.result()
        rows = _read_rows(rows_path)
    seconds = time.monotonic() - started
    counters = server.settle().since(before) if server else None
    row = _run_row(state, run, work, spec, rows, meta, counters, monitor, seconds)
    with records.held_signals():  # a run's requests and its row are stored together or not
        state.writer.append("requests", rows)
        state.writer.append("runs", [row])
        state.completed += 1


def _read_rows(path: Path) -> list[tuple]:
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        expected = records.columns("requests")
        if header != expected:
            raise RuntimeError(f"the generator wrote columns {header}, the data set has "
                               f"{expected}")
        return [tuple(row) for row in reader]


def _run_row(state: _State, run: Run, work: int, spec: LoadSpec, rows: list[tuple],
             meta: dict, counters: ServerCounters | None, monitor: CpuMonitor,
             seconds: float) -> tuple:
    plan, server = state.plan, state.plan.server
    start_s, end_s = spec.ramp_s + spec.warmup_s, spec.stop_s
    window = (meta["t0_epoch"] + start_s, meta["t0_epoch"] + end_s)
    outcomes = [r[6] for r in rows]
    in_window = [r for r in rows if start_s <= float(r[4]) < end_s and r[10] != ""]
    lags = [float(r[10]) for r in in_window]
    lag_p99 = float(np.percentile(lags, 99)) if lags else float("nan")
    generator_cpu = monitor.share("generator", *window)
    kept_up = bool(generator_cpu <= plan.checks.generator_cpu_max
                   and lag_p99 <= plan.checks.lag_p99_max_ms)
    ok, closed = outcomes.count("ok"), outcomes.count("closed")
    server_cols: tuple = (None,) * 5
    if counters is not None:
        mean_ms = (counters.server_time_us_sum / counters.answered / 1000
                   if counters.answered else None)
        server_cols = (counters.answered, counters.rejected, _round(mean_ms, 3),
                       _round(monitor.share("server", *window), 4),
                       _round(_cores_busy(monitor, server.server_cores, window), 4))
    return (
        spec.run, run.kind, run.split.name, run.split.cpu_ms, run.split.sleep_ms, work,
        run.threads, run.queue, run.threads + run.queue, run.clients, plan.think_time_s,
        plan.keep_alive, start_s, end_s, len(rows), meta.get("locust_requests"), ok, closed,
        len(rows) - ok - closed, *server_cols, _round(generator_cpu, 4),
        _round(_cores_busy(monitor, server.generator_cores, window), 4), _round(lag_p99, 3),
        kept_up, round(seconds, 2),
    )


def _cores_busy(monitor: CpuMonitor, cores: tuple[int, ...], window: tuple[float, float]
                ) -> float:
    return float(np.mean([monitor.core_share(c, *window) for c in cores]))


def _round(value: float | None, digits: int) -> float | None:
    if value is None or value != value:
        return None
    return round(value, digits)


# -- provenance -------------------------------------------------------------------------------


def _metadata(plan: Campaign, options: Options, server_versions: dict[str, str]) -> dict:
    distributed = (f"local workers: {options.workers}" if options.workers else
                   f"remote workers: {options.expect_workers}" if options.expect_workers
                   else "one process")
    return {
        "name": f"lab-{plan.name}",
        "title": f"queuetune lab: {plan.name}",
        "description": plan.description,
        "licenses": [{"name": "CC-BY-4.0"}],
        "measurement": {
            "campaign": plan.name,
            "date": options.date,
            "status": "running",
            "server": ("Apache Tomcat started by the runner on 127.0.0.1"
                       if options.target is None else
                       f"a server started by the user at {options.target} (its settings "
                       f"are as declared in the campaign file, not applied by the runner)"),
            "load_generator": f"Locust ({distributed})",
            "pinning": {"server_cores": (list(plan.server.server_cores)
                                         if options.target is None else []),
                        "generator_cores": list(plan.server.generator_cores),
                        "tool": "taskset"},
            "jvm_options": (ServerSettings(threads=1, queue=1, port=0,
                                           heap_mb=plan.server.heap_mb,
                                           cores=plan.server.server_cores).jvm_options()
                            if options.target is None else []),
            "settings": {"server": asdict(plan.server), "timing": asdict(plan.timing),
                         "checks": asdict(plan.checks), "think_time_s": plan.think_time_s,
                         "response_bytes": plan.response_bytes,
                         "keep_alive": plan.keep_alive, "seed": plan.seed,
                         "splits": [asdict(s) for s in plan.splits],
                         "design": asdict(plan.design)},
            "machine": machine.describe(server_versions=server_versions),
        },
    }


def _readme(metadata: dict) -> str:
    m = metadata["measurement"]
    machine_ = m["machine"]
    server_cores = m["pinning"]["server_cores"] or "none (a server the runner did not start)"
    lines = [
        f"# {metadata['title']}",
        "",
        metadata["description"],
        "",
        f"Status: **{m['status']}**" + (f" ({m.get('runs_completed', 0)} runs stored)"
                                        if m["status"] != "complete" else ""),
        "",
        "Measured by `python -m queuetune.lab run` from the campaign file `campaign.toml` "
        "stored here; every column of every table is described in `datapackage.json`.",
        "",
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
        f"- Pinning (taskset): server on cores {server_cores}, generator and runner on "
        f"cores {m['pinning']['generator_cores']}",
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
        *(f"- `{path}`: {title}" for path, title, _ in records.TABLES.values()),
        "",
        "Times in `requests.csv.gz` are seconds from the start of each run; the measurement "
        "window of each run is in `runs.csv`. A data set is never overwritten: running the "
        "campaign again writes a new folder beside this one.",
        "",
    ]
    return "\n".join(lines)
