"""Run a campaign, whatever its experiment: iterate its design, check and store every run.

The runner cuts the campaign's schedule (:meth:`~queuetune.lab.campaign.Campaign.schedule`)
into consecutive runs that share a server; for each group it asks the experiment to start the
server and prepare it, then, for each run, to measure it, while the runner samples the
processor time of the server's process and of every core. Each run is checked
(:mod:`queuetune.lab.validity`) and appended to the data set with its validity, as soon as it
ends. After a run that left the server dead the campaign stops, unless the campaign file says
``stop_after_dead_server = false``.

Ctrl-C, SIGTERM or any failure stops the server and the load and leaves the data set with
every run completed so far, and a status saying where it stopped; a runner killed outright
leaves ``running``, which ``python -m queuetune.lab repair DIR`` turns into the status that
the stored runs show. Each run starts by removing the ``CATALINA_BASE`` folders that a killed
runner left behind (:func:`queuetune.lab.tomcat.remove_stale_bases`), and every other
temporary folder of the lab it left, marked with its PID (the load generator's, an
experiment's: :func:`queuetune.lab.processes.remove_stale`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from . import machine, processes, records, tomcat, validity
from .campaign import Campaign, Run
from .harness import Server, Session
from .monitor import CpuMonitor

__all__ = ["Options", "preflight", "run_campaign", "status_of"]


@dataclass(frozen=True)
class Options:
    """How to run a campaign, besides what the campaign file says."""

    out_root: Path
    target: str | None = None  # a server started by the user: its base URL
    workers: int = 0  # local Locust workers (distributed mode on this machine)
    expect_workers: int = 0  # Locust workers started elsewhere by the user
    master_bind: tuple[str, int] | None = None
    secret: str | None = None  # the test page's secret on a target (``webapp`` prints it)
    wire: bool = True  # the experiment's scenarios at the server's limits, if it has any
    progress: bool = True
    date: str = field(default_factory=lambda: dt.datetime.now(dt.UTC).date().isoformat())


def preflight(plan: Campaign, options: Options) -> None:
    """Everything that can be checked before a server starts or a file is written."""
    if options.workers < 0 or options.expect_workers < 0:
        raise ValueError("workers and expect_workers must be >= 0")
    check = getattr(plan.experiment, "preflight", None)
    if check is not None:
        check(plan, options)
    root = options.out_root
    parent = next((p for p in (root, *root.parents) if p.exists()), None)
    if parent is None or not parent.is_dir():
        raise ValueError(f"the output folder {str(root)!r} cannot be created")


class _Stopped(Exception):
    """A stopping signal, turned into an exception so that every finally block runs."""


def _raise_stopped(signum, frame):  # noqa: ARG001
    raise _Stopped(f"signal {signum}")


def status_of(invalid: list[int], *, finished: bool, dead_at: int | None = None) -> str:
    """The data set's status word: ``complete`` only when every run ran and was valid."""
    if dead_at is not None:
        return "stopped-server-dead"
    if not finished:
        return "interrupted"
    return "complete-with-invalid-runs" if invalid else "complete"


@dataclass
class _Progress:
    completed: int = 0
    invalid: list[int] = field(default_factory=list)
    dead_at: int | None = None


def run_campaign(plan: Campaign, options: Options) -> Path:
    """Run every run of ``plan``; return the data set's folder."""
    preflight(plan, options)
    tomcat.remove_stale_bases()
    processes.remove_stale(processes.LAB_PREFIX)  # the generators' and the experiments'
    experiment = plan.experiment
    directory = records.new_dataset_dir(options.out_root, plan.name, options.date)
    writer = records.DatasetWriter(directory, _metadata(plan, options), _readme,
                                   tables=experiment.TABLES, files={"campaign.toml": plan.source})
    bar = _bar(plan, options)
    session = Session(plan=plan, options=options, writer=writer,
                      step=lambda label: _step(bar, label))
    done = _Progress()
    # Ctrl-C (even where a shell started the runner with SIGINT ignored), kill, or a closed
    # terminal: each stops the server and the load and keeps the completed runs.
    handled = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {sig: signal.signal(sig, _raise_stopped) for sig in handled}
    status, error = "failed", None
    try:
        before = getattr(experiment, "before_campaign", None)
        if before is not None:
            before(session)
        finished = _groups(session, done)
        status = status_of(done.invalid, finished=finished, dead_at=done.dead_at)
    except (KeyboardInterrupt, _Stopped):
        status = "interrupted"
        raise KeyboardInterrupt from None
    except Exception as exc:  # stored with the data set, then raised as it was
        error = f"{type(exc).__name__}: {exc}"
        raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        extra = {"server_dead_after_run": done.dead_at} if done.dead_at is not None else {}
        if error is not None:
            extra["error"] = error
        # the campaign's wall time is runner_finished - runner_started (seconds since the epoch)
        writer.write_metadata(status=status, runs_completed=done.completed,
                              invalid_runs=done.invalid, runner_finished=round(time.time(), 2),
                              **extra)
        bar.close()
    return directory


def _groups(session: Session, done: _Progress) -> bool:
    """Every group of runs on its server; False when the campaign stopped early."""
    experiment, plan = session.plan.experiment, session.plan
    for group in plan.server_groups():
        with contextlib.ExitStack() as stack:
            server = stack.enter_context(experiment.server(session, group[0]))
            experiment.prepare(session, server, group[0])
            for run in group:
                if not _run(session, server, run, done):
                    return False
    return True


def _run(session: Session, server: Server, run: Run, done: _Progress) -> bool:
    """Measure, check and store one run; False when the campaign must stop after it."""
    session.run_number += 1
    number = session.run_number
    before = server.counters() if server.counters is not None else None
    groups = {"server": server.pids} if server.pids is not None else {}
    started = time.monotonic()
    with CpuMonitor(groups) as monitor:
        measured = session.plan.experiment.measure(session, server, run, monitor)
    counters = (server.counters().since(before)
                if server.counters is not None and before is not None else None)
    checked = validity.check_run(measured, server, counters, monitor, session.plan.validity)
    row = {"run": number, "kind": run.kind, **measured.row, **checked}
    if "seconds" in records.columns(session.plan.experiment.TABLES["runs"]):
        row.setdefault("seconds", round(time.monotonic() - started, 2))
    with records.held_signals():  # a run's rows are stored together or not at all
        for table, rows in measured.tables.items():
            session.writer.append(table, [{"run": number, **r} for r in rows])
        session.writer.append("runs", [row])
        done.completed += 1
        if not checked["valid"]:
            done.invalid.append(number)
    dead = (checked["invalid_reason"] or "").startswith(validity.DEAD)
    if dead and session.plan.validity.stop_after_dead_server:
        done.dead_at = number
        return False
    return True


# -- progress ---------------------------------------------------------------------------------


def _bar(plan: Campaign, options: Options):
    from tqdm import tqdm

    total = plan.estimated_seconds(starts_server=options.target is None)
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


# -- provenance -------------------------------------------------------------------------------


def _metadata(plan: Campaign, options: Options) -> dict:
    experiment = plan.experiment
    own = dict(experiment.describe(plan, options))
    versions = own.pop("server_versions", None)
    return {
        "name": f"lab-{plan.name}",
        "title": f"queuetune lab: {plan.name}",
        "description": plan.description,
        "licenses": [{"name": "CC-BY-4.0"}],
        "measurement": {
            "format_version": records.FORMAT_VERSION,
            "experiment": experiment.NAME,
            "campaign": plan.name,
            "date": options.date,
            "status": "running",
            "runner_pid": os.getpid(),
            "runner_started": psutil.Process().create_time(),
            "validity": {"core_margin": plan.validity.core_margin,
                         "probe_timeout_s": plan.validity.probe_timeout_s,
                         "stop_after_dead_server": plan.validity.stop_after_dead_server},
            **own,
            **({"class_data_sharing": tomcat.CLASS_DATA_SHARING} if options.target is None
               else {}),
            "machine": machine.describe(server_versions=versions),
        },
    }


def _readme(metadata: dict) -> str:
    m = metadata["measurement"]
    invalid = m.get("invalid_runs") or []
    lines = [
        f"# {metadata['title']}",
        "",
        metadata["description"],
        "",
        f"Status: **{m['status']}**" + (f" ({m.get('runs_completed', 0)} runs stored)"
                                        if m["status"] != "complete" else ""),
    ]
    if invalid:
        lines += ["", f"Invalid runs (see `invalid_reason` in `runs.csv`): "
                      f"{', '.join(map(str, invalid))}."]
    if m.get("server_dead_after_run") is not None:
        lines += ["", f"The campaign stopped after run {m['server_dead_after_run']}: the "
                      f"server was dead."]
    lines += ["", f"Experiment: `{m['experiment']}` (data set format "
                  f"{m['format_version']}). Measured by `python -m queuetune.lab run` from "
                  f"the campaign file `campaign.toml` stored here; every column of every "
                  f"table is described in `datapackage.json`.", ""]
    from . import experiments

    lines += experiments.get(m["experiment"]).readme_lines(metadata)
    return "\n".join(lines) + "\n"
