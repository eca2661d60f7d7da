"""The measured data set: its tables, their schemas, and a writer that never leaves half a row.

A data set is a folder ``data/lab/<campaign>-<date>/`` holding the tables its experiment
declares (always ``runs.csv``, one row per run, to which the runner appends the run's validity,
:data:`VALIDITY_FIELDS`), ``campaign.toml`` (the campaign file as run), ``datapackage.json``
(Frictionless: every column's type, unit and meaning, plus the experiment, the format version,
the machine, versions, date and pinning) and a README. Rows are written by column name: a row
is a mapping, and a missing or unknown column is refused before anything is written.

Rows are appended one run at a time, each run's rows in one write with Ctrl-C held off, so an
interrupted campaign leaves complete, valid files and a ``status`` that says how far it got. An
existing data set is never written over: a new campaign gets a new folder.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import json
import os
import signal
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["Field", "Table", "FORMAT_VERSION", "VALIDITY_FIELDS", "DatasetWriter", "columns",
           "held_signals", "new_dataset_dir", "schema"]


@dataclass(frozen=True)
class Field:
    name: str
    type: str  # Frictionless: integer, number, string, boolean
    description: str
    unit: str = ""

    def descriptor(self) -> dict[str, str]:
        out = {"name": self.name, "type": self.type, "description": self.description}
        if self.unit:
            out["unit"] = self.unit
        return out


class Table(NamedTuple):
    """One table of a data set: its file, its title and its columns, in order."""

    path: str
    title: str
    fields: tuple[Field, ...]


#: Data set format written by this runner (``measurement.format_version``). Format 1: the data
#: sets written before experiments had homes of their own (no ``format_version``, no
#: ``experiment``: the Imre experiment, no validity columns); they load unchanged.
FORMAT_VERSION = 2

#: Columns the runner appends to every experiment's ``runs`` table: the validity of the run.
VALIDITY_FIELDS: tuple[Field, ...] = (
    Field("server_alive", "boolean", "The server's process was alive at the end of the run "
                                     "(empty for a server the runner did not start)"),
    Field("probe_ok", "boolean", "The server answered a probe request after the run"),
    Field("refused_by_server", "integer", "Refusals the server logged over the run (empty "
                                          "when the runner cannot read its log)"),
    Field("refused_seen", "integer", "Refusals the clients saw over the run"),
    Field("connection_errors", "integer", "Requests that ended in an error other than a "
                                          "refusal (reset, timeout, refused connection...)"),
    Field("server_process_cpu", "number", "Processor time of the server's process over the "
                                          "measurement window, as a share of one core"),
    Field("server_cores_busy", "number", "Share of time the server's core(s) were busy over "
                                         "the window (steal time excluded)"),
    Field("server_cores_steal", "number", "Share of time the hypervisor stole from the "
                                          "server's core(s) over the window"),
    Field("core_margin", "number", "Largest allowed excess of server_cores_busy over "
                                   "server_process_cpu (the campaign's [validity])"),
    Field("valid", "boolean", "Every check of the run held"),
    Field("invalid_reason", "string", "Why the run is invalid, each failed check in words "
                                      "(empty for a valid run)"),
)


def runner_fields() -> tuple[Field, ...]:
    """The columns the runner appends to an experiment's ``runs`` table."""
    return VALIDITY_FIELDS


def schema(table: Table) -> dict[str, Any]:
    """The Frictionless table schema of one table."""
    return {"fields": [f.descriptor() for f in table.fields], "missingValues": [""]}


def columns(table: Table) -> list[str]:
    """The names of a table's columns, in order."""
    return [f.name for f in table.fields]


def new_dataset_dir(root: Path, name: str, date: str) -> Path:
    """``root/<name>-<date>``, or ``-2``, ``-3``... if that exists: never an existing one."""
    candidate, n = root / f"{name}-{date}", 1
    while candidate.exists():
        n += 1
        candidate = root / f"{name}-{date}-{n}"
    return candidate


@contextlib.contextmanager
def held_signals():
    """Hold SIGINT and SIGTERM until the block is done (a write is never cut in half): the
    handlers are swapped for ones that only note the signal, which is raised again after.
    Blocks nest: an inner one hands what it noted to the outer one."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.signal(sig, lambda signum, frame: noted.append(signum))
                for sig in held}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for signum in noted:
            signal.raise_signal(signum)


def _csv_bytes(rows: Iterable[Sequence[Any]], header: Sequence[str] | None) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if header is not None:
        writer.writerow(header)
    for row in rows:
        writer.writerow(["" if _missing(v) else _text(v) for v in row])
    return buffer.getvalue().encode("utf-8")


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _text(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _append(path: Path, data: bytes) -> None:
    with held_signals():
        with open(path, "ab") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())


def _replace(path: Path, text: str) -> None:
    """Write a whole file atomically (a temporary file renamed over it)."""
    tmp = path.with_name(path.name + ".tmp")
    with held_signals():
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)


def _ordered(row: Mapping[str, Any], names: list[str], table: str) -> list[Any]:
    """A row's values in the table's column order; a missing or unknown column is refused."""
    if not isinstance(row, Mapping):
        raise ValueError(f"a {table} row must be a mapping of column name to value, got "
                         f"{type(row).__name__}")
    missing = [n for n in names if n not in row]
    unknown = sorted(set(row) - set(names))
    if missing or unknown:
        raise ValueError(f"a {table} row lacks columns {missing} and has unknown columns "
                         f"{unknown}")
    return [row[n] for n in names]


class DatasetWriter:
    """Creates the data set folder at the first write, then appends run by run."""

    def __init__(self, directory: Path, metadata: dict[str, Any],
                 readme: Callable[[dict[str, Any]], str], tables: Mapping[str, Table],
                 files: dict[str, str] | None = None):
        self.directory = directory
        self.tables = dict(tables)
        self.metadata = metadata
        self.readme = readme
        self.files = files or {}  # written once, with the folder (the campaign file)
        self.created = False

    def _create(self) -> None:
        if self.created:
            return
        if self.directory.exists():
            raise FileExistsError(f"{self.directory} exists; a data set is never written over")
        self.directory.mkdir(parents=True)
        for path, _, cols in self.tables.values():
            header = _csv_bytes([], [f.name for f in cols])
            if path.endswith(".gz"):
                header = gzip.compress(header, mtime=0)
            _append(self.directory / path, header)
        for name, text in self.files.items():
            _replace(self.directory / name, text)
        self.created = True
        self.write_metadata(status="running")

    def append(self, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Append complete rows, each a mapping of column name to value, to a table (all of
        them, or none if interrupted before)."""
        if table not in self.tables:
            raise ValueError(f"table must be one of {sorted(self.tables)}, got {table!r}")
        path, _, cols = self.tables[table]
        names = [f.name for f in cols]
        ordered = [_ordered(row, names, table) for row in rows]
        self._create()
        if not ordered:
            return
        data = _csv_bytes(ordered, None)
        if path.endswith(".gz"):
            data = gzip.compress(data, mtime=0)
        _append(self.directory / path, data)

    def write_text(self, name: str, text: str) -> None:
        self._create()
        _replace(self.directory / name, text)

    def write_metadata(self, *, status: str, **extra: Any) -> None:
        """``datapackage.json`` and ``README.md``, with how far the campaign got."""
        if not self.created:
            return
        self.metadata["measurement"].update(status=status, **extra)
        package = {**self.metadata, "resources": [
            {"name": table, "path": path, "title": title, "format": "csv",
             **({"compression": "gz"} if path.endswith(".gz") else {}),
             "encoding": "utf-8", "schema": schema(self.tables[table])}
            for table, (path, title, _) in self.tables.items()]}
        _replace(self.directory / "datapackage.json",
                 json.dumps(package, indent=2, ensure_ascii=False) + "\n")
        _replace(self.directory / "README.md", self.readme(self.metadata))
