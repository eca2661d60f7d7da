"""Helpers of the lab's tests: campaigns written from the smoke campaign's settings, and the
lab's processes still running."""

from __future__ import annotations

import gc
import tomllib
import warnings
from pathlib import Path

import pandas as pd
import psutil
from frictionless import validate

from queuetune.lab import campaign, datasets


def smoke_settings() -> dict:
    return tomllib.loads(campaign.builtin("smoke").read_text(encoding="utf-8"))


def _tables(prefix: str, table: dict, array: bool = False) -> list[str]:
    """A table's lines: its plain keys, then its sub-tables and arrays of tables."""
    lines = [f"[[{prefix}]]" if array else f"[{prefix}]"]
    lines += [f"{k} = {_toml(v)}" for k, v in table.items() if not _nested(v)]
    for key, value in table.items():
        if isinstance(value, dict):
            lines += _tables(f"{prefix}.{key}", value)
        elif _nested(value):
            for item in value:
                lines += _tables(f"{prefix}.{key}", item, array=True)
    return lines


def _nested(value) -> bool:
    return isinstance(value, dict) or (isinstance(value, list) and bool(value)
                                       and all(isinstance(v, dict) for v in value))


def write_campaign(folder: Path, settings: dict, name: str = "test.toml") -> Path:
    """A campaign file from nested dictionaries (a tiny TOML writer for these tests)."""
    lines = []
    for section, table in settings.items():
        if isinstance(table, list):
            for item in table:
                lines += _tables(section, item, array=True)
        else:
            lines += _tables(section, table)
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)


def lab_processes() -> list[str]:
    """Command lines of Tomcat JVMs and Locust processes that this checkout's lab started
    (from this test process or its children; the machine may be shared with other copies)."""
    import os

    from queuetune.lab import tomcat

    lab = str(Path(campaign.__file__).parent)
    ours = {os.getpid()} | {c.pid for c in psutil.Process().children(recursive=True)}
    found = []
    for process in psutil.process_iter(["cmdline"]):
        line = " ".join(process.info["cmdline"] or [])
        if "queuetune-tomcat-" in line:
            base = line.split("-Djava.util.logging.config.file=")[-1].split("/conf/")[0]
            mark = Path(base) / tomcat.BASE_MARK
            try:
                maker = int(mark.read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue  # not made by this version of the lab
            if maker in ours or not psutil.pid_exists(maker):
                found.append(line[:200])
        elif ("locust_" in line or "locustfile.py" in line) and lab in line:
            found.append(line[:200])
    return found


def validate_package(folder: Path):
    """Frictionless' validation report of a data set. Frictionless 5.21 leaves a gzipped table
    open after reading it; its ResourceWarning (an error in these tests) is silenced here
    only, once the file is collected."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        report = validate(folder / "datapackage.json")
        gc.collect()
    return report


def check_accounting(folder):
    """Every request sent is counted once on each side: client rows, Locust, Tomcat."""
    runs = datasets.load("runs", folder)
    requests = datasets.load("requests", folder)
    per_run = requests.groupby("run").size()
    for run in runs.itertuples():
        assert run.sent == per_run.get(run.run, 0) == run.locust_requests
        assert run.ok + run.closed + run.other_errors == run.sent
        if pd.isna(run.server_answered):  # a server the runner did not start
            continue
        if getattr(run, "server_alive", True) is False:  # died during the run: flagged
            continue
        if "refusals, the server logged" in str(getattr(run, "invalid_reason", "")):
            continue  # the runner flagged this very mismatch
        if "connection error other than a refusal" in str(getattr(run, "invalid_reason", "")):
            # flagged: a client that timed out may be answered later; every answer it counted
            # is one the server logged, and the server answered no request never sent
            assert run.ok <= run.server_answered <= run.ok + run.other_errors
            continue

        assert run.server_answered == run.ok, "an answer the client did not count"
        assert run.server_rejected == run.closed, "a refusal the client did not see"
    return runs, requests
