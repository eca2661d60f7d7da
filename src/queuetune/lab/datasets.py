"""The stored data sets of the lab, whatever their experiment: where they are, what they say
about themselves, their tables, and the repair of one whose runner was killed.

A data set names its experiment and its format in ``datapackage.json``
(``measurement.experiment``, ``measurement.format_version``); one written before these existed
is format 1 of the Imre experiment (:func:`format_version`, :func:`experiment_of`). Its tables
are read with the schemas it carries itself, so an older data set loads unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import psutil

from .. import data

__all__ = ["lab_root", "datasets", "dataset_dir", "package", "metadata", "format_version",
           "experiment_of", "load", "tables", "repair"]


def lab_root() -> Path:
    """The folder of the measured data sets (``data/lab``)."""
    return data.data_dir() / "lab"


def datasets(experiment: str | None = None) -> list[str]:
    """Names of the stored data sets (of one experiment, if given), sorted."""
    names = sorted(p.parent.name for p in lab_root().glob("*/datapackage.json"))
    if experiment is None:
        return names
    return [n for n in names if experiment_of(n) == experiment]


def dataset_dir(dataset: str | Path) -> Path:
    """The folder of a data set given by name (under ``data/lab``) or by path."""
    path = Path(dataset)
    if path.is_dir() and (path / "datapackage.json").is_file():
        return path
    if path.is_file() or path.is_dir():
        kind = "a file" if path.is_file() else "a folder without datapackage.json"
        raise ValueError(f"dataset {str(dataset)!r} is {kind}, not a lab data set (a folder "
                         f"with datapackage.json, written by the runner or by import)")
    known = datasets()
    if str(dataset) not in known:
        raise ValueError(f"dataset must be one of {known} or a data set folder, got "
                         f"{str(dataset)!r}")
    return lab_root() / str(dataset)


def package(dataset: str | Path) -> dict:
    """The whole ``datapackage.json`` of a data set (read afresh each time)."""
    path = dataset_dir(dataset) / "datapackage.json"
    try:
        whole = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"file {str(path)!r} is not a data package (JSON: {exc})") from None
    missing = [k for k in ("measurement", "resources")
               if not isinstance(whole, dict) or k not in whole]
    if missing:
        raise ValueError(f"file {str(path)!r} is not a lab data package: it has no "
                         f"{missing[0]!r}")
    return whole


def metadata(dataset: str | Path) -> dict:
    """The data set's ``measurement`` block: date, machine, versions, settings, status."""
    return package(dataset)["measurement"]


def format_version(dataset: str | Path) -> int:
    """The data set's format (1 for those written before the format was recorded)."""
    return int(metadata(dataset).get("format_version", 1))


def experiment_of(dataset: str | Path) -> str:
    """The experiment that measured the data set (format 1: ``imre``)."""
    return str(metadata(dataset).get("experiment", "imre"))


def tables(dataset: str | Path) -> list[str]:
    """The names of the data set's tables."""
    return [r["name"] for r in package(dataset)["resources"]]


def load(table: str, dataset: str | Path) -> pd.DataFrame:
    """One table of a data set, typed by its own schema (integers stay nullable)."""
    folder = dataset_dir(dataset)
    resources = {r["name"]: r for r in package(folder)["resources"]}
    if table not in resources:
        raise ValueError(f"table must be one of {sorted(resources)}, got {table!r}")
    if not (folder / resources[table]["path"]).is_file():
        raise ValueError(f"table {table!r} of the data set {str(folder)!r}: its file "
                         f"{resources[table]['path']!r} is missing")
    try:
        frame = data.read_resource(folder, resources[table])
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"table {table!r} of the data set {str(folder)!r} cannot be read "
                         f"({resources[table].get('path')!r}: {exc})") from None
    frame.attrs.update(dataset=folder.name, table=table)
    return frame


def repair(folder: str | Path) -> str:
    """Set the status of a data set whose runner was killed (status ``running``, runner gone)
    from the runs on disk, and return it: ``complete`` (or ``complete-with-invalid-runs``)
    when every planned run is stored, ``killed`` otherwise; ``invalid_runs`` lists the runs
    flagged invalid. A data set whose runner still runs, or that is not ``running``, is left
    as it is (``ValueError``)."""
    from . import campaign
    from .runner import status_of

    folder = dataset_dir(folder)
    whole = package(folder)
    m = whole["measurement"]
    if m.get("status") != "running":
        raise ValueError(f"folder {str(folder)!r} has status {m.get('status')!r}; only a data "
                         f"set left 'running' by a killed runner needs repair")
    pid = m.get("runner_pid")
    if pid is not None and _still_running(int(pid), m.get("runner_started")):
        raise ValueError(f"the runner of {str(folder)!r} (PID {pid}) is still running")
    runs = load("runs", folder)
    invalid = ([int(r) for r in runs.loc[runs["valid"].eq(False).fillna(False), "run"]]
               if "valid" in runs else [])
    planned = len(campaign.load(folder / "campaign.toml").schedule())
    finished = len(runs) >= planned
    status = status_of(invalid, finished=True) if finished else "killed"
    m.update(status=status, runs_completed=len(runs), invalid_runs=invalid,
             repaired="status set by python -m queuetune.lab repair from the runs on disk")
    text = json.dumps(whole, indent=2, ensure_ascii=False) + "\n"
    tmp = folder / "datapackage.json.tmp"
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(folder / "datapackage.json")
    readme = folder / "README.md"
    if readme.is_file():
        lines = readme.read_text(encoding="utf-8").splitlines()
        lines = [f"Status: **{status}** ({len(runs)} runs stored; set by `python -m "
                 f"queuetune.lab repair` after the runner was killed)"
                 if line.startswith("Status: ") else line for line in lines]
        if invalid and not any(line.startswith("Invalid runs") for line in lines):
            lines.append(f"\nInvalid runs (see `invalid_reason` in `runs.csv`): "
                         f"{', '.join(map(str, invalid))}.")
        readme.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return status


def _still_running(pid: int, started: float | None) -> bool:
    """Whether the process that wrote the data set runs still (the same PID, started at the
    same time: a PID the system gave to another process since does not count)."""
    try:
        process = psutil.Process(pid)
        return started is None or abs(process.create_time() - float(started)) < 1e-3
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return False
