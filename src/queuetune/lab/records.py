"""The measured data set: its tables, their schemas, and a writer that never leaves half a row.

A data set is a folder ``data/lab/<campaign>-<date>/`` holding

* ``runs.csv`` - one row per run: its settings, what the server and the generator counted, and
  how much processor time each used over the measurement window;
* ``requests.csv.gz`` - one row per request sent, every run (gzip, one member per run);
* ``calibration.csv`` - the requests that calibrated the arithmetic's iterations per ms;
* ``wire_connections.csv``, ``wire_packets.csv`` - what a client sees at Tomcat's limits;
* ``campaign.toml`` - the campaign file as run; ``datapackage.json`` (Frictionless: every
  column's type, unit and meaning, plus the machine, versions, date and pinning) and a README.

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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Field", "TABLES", "DatasetWriter", "held_signals", "new_dataset_dir", "schema"]


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


_RUN = Field("run", "integer", "Run number, in the order the runs were measured")

TABLES: dict[str, tuple[str, str, tuple[Field, ...]]] = {
    "runs": ("runs.csv", "One row per run: settings, counts, processor use", (
        _RUN,
        Field("kind", "string", "'one-client' (the service time, as the paper measured it) or "
                                "'load' (the design's runs)"),
        Field("split", "string", "Name of the request's split between processor and waiting"),
        Field("cpu_ms", "number", "Processor time of the arithmetic asked for", "ms"),
        Field("sleep_ms", "number", "Waiting (sleep) asked for, after the arithmetic", "ms"),
        Field("work", "integer", "Iterations of the arithmetic loop sent with each request"),
        Field("threads", "integer", "Tomcat Executor maxThreads: the thread pool"),
        Field("queue", "integer", "Tomcat Executor maxQueueSize: requests that may wait for "
                                  "a thread (the connection queue)"),
        Field("capacity", "integer", "Requests the server admits at once, threads + queue "
                                     "(the models' B)"),
        Field("clients", "integer", "Virtual clients (the models' K)"),
        Field("think_s", "number", "Mean of the exponential think time (the models' Z)", "s"),
        Field("keep_alive", "boolean", "Whether a client keeps its connection between "
                                       "requests"),
        Field("window_start_s", "number", "Start of the measurement window, from the run's "
                                          "start", "s"),
        Field("window_end_s", "number", "End of the window: clients send nothing later", "s"),
        Field("sent", "integer", "Requests sent in the whole run (one row each in requests)"),
        Field("locust_requests", "integer", "Requests counted by Locust's own statistics"),
        Field("ok", "integer", "Requests answered with HTTP 200 in the whole run"),
        Field("closed", "integer", "Requests whose connection closed without an answer "
                                   "(refused by Tomcat's full queue)"),
        Field("other_errors", "integer", "Requests that ended in any other error"),
        Field("server_answered", "integer", "Requests in Tomcat's access log for the run "
                                            "(empty for a server the runner did not start)"),
        Field("server_rejected", "integer", "'Executor rejected socket' lines Tomcat logged "
                                            "for the run"),
        Field("server_time_ms", "number", "Mean time Tomcat took per answered request (%D of "
                                          "its access log)", "ms"),
        Field("server_cpu", "number", "Processor time of Tomcat's JVM over the window, as a "
                                      "share of one core"),
        Field("server_core_busy", "number", "Share of time the server's core(s) were busy "
                                            "over the window (anything running on them)"),
        Field("generator_cpu", "number", "Processor time of the Locust processes over the "
                                         "window, as a share of one core"),
        Field("generator_core_busy", "number", "Share of time the generator's core(s) were "
                                               "busy over the window"),
        Field("lag_p99_ms", "number", "99th percentile of how late requests were sent against "
                                      "their planned time, in the window", "ms"),
        Field("generator_kept_up", "boolean", "generator_cpu and lag_p99_ms within the "
                                              "campaign's [checks]"),
        Field("seconds", "number", "Wall-clock length of the run, start to end", "s"),
    )),
    "requests": ("requests.csv.gz", "One row per request sent", (
        _RUN,
        Field("worker", "integer", "Locust worker that sent it (0 without distributed mode)"),
        Field("user", "integer", "Virtual client, within its worker"),
        Field("seq", "integer", "The client's request number, from 0"),
        Field("start_s", "number", "When it was sent, from the run's start", "s"),
        Field("latency_ms", "number", "Time from sending to the end of the answer or error",
              "ms"),
        Field("outcome", "string", "ok, closed (connection closed without an answer), reset, "
                                   "refused, timeout, http-<code>, or error-<type>"),
        Field("status", "integer", "HTTP status (0 when no answer came)"),
        Field("bytes", "integer", "Length of the answer's body", "bytes"),
        Field("think_s", "number", "Think time drawn before this request (empty for the "
                                   "first)", "s"),
        Field("lag_ms", "number", "How late it was sent against its planned time (the end of "
                                  "the previous answer plus the think time)", "ms"),
        Field("server_cpu_us", "integer", "Processor time the answering thread used, measured "
                                          "by the JVM (empty without an answer)", "us"),
    )),
    "calibration": ("calibration.csv", "Requests that calibrated iterations per millisecond", (
        Field("step", "integer", "Request number"),
        Field("work", "integer", "Iterations of the arithmetic loop"),
        Field("latency_ms", "number", "Time to the end of the answer (one client, no think "
                                      "time)", "ms"),
        Field("server_cpu_us", "integer", "Processor time of the answering thread", "us"),
    )),
    "wire_connections": ("wire_connections.csv", "Concurrent requests sent at Tomcat's limits", (
        Field("scenario", "string", "Which limit: 'executor-queue' or 'max-connections'"),
        Field("request", "integer", "Request number, in the order sent (10 ms apart)"),
        Field("sent_s", "number", "When the connection was opened, from the first", "s"),
        Field("connect_ms", "number", "Time for the TCP connection to open", "ms"),
        Field("total_ms", "number", "Time to the end of the answer, or to the error", "ms"),
        Field("outcome", "string", "ok, or what the client saw instead"),
        Field("bytes", "integer", "Bytes received", "bytes"),
    )),
    "wire_packets": ("wire_packets.csv", "The packets of those requests (tcpdump on loopback)", (
        Field("scenario", "string", "Which limit"),
        Field("request", "integer", "Request number (by the client's port, in order)"),
        Field("time_s", "number", "When the packet passed, from the scenario's first", "s"),
        Field("direction", "string", "'client>server' or 'server>client'"),
        Field("flags", "string", "TCP flags: S (SYN), A (ACK), P (PSH), F (FIN), R (RST)"),
        Field("length", "integer", "TCP payload length", "bytes"),
    )),
}


def schema(table: str) -> dict[str, Any]:
    """The Frictionless table schema of one table."""
    _, _, columns = TABLES[table]
    return {"fields": [f.descriptor() for f in columns], "missingValues": [""]}


def columns(table: str) -> list[str]:
    return [f.name for f in TABLES[table][2]]


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


class DatasetWriter:
    """Creates the data set folder at the first write, then appends run by run."""

    def __init__(self, directory: Path, metadata: dict[str, Any],
                 readme: Callable[[dict[str, Any]], str], files: dict[str, str] | None = None):
        self.directory = directory
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
        for path, _, cols in TABLES.values():
            header = _csv_bytes([], [f.name for f in cols])
            if path.endswith(".gz"):
                header = gzip.compress(header, mtime=0)
            _append(self.directory / path, header)
        for name, text in self.files.items():
            _replace(self.directory / name, text)
        self.created = True
        self.write_metadata(status="running")

    def append(self, table: str, rows: list[Sequence[Any]]) -> None:
        """Append complete rows to a table (all of them, or none if interrupted before)."""
        self._create()
        path, _, cols = TABLES[table]
        width = len(cols)
        bad = next((r for r in rows if len(r) != width), None)
        if bad is not None:
            raise ValueError(f"a {table} row has {len(bad)} values, the table {width}: {bad}")
        if not rows:
            return
        data = _csv_bytes(rows, None)
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
             "encoding": "utf-8", "schema": schema(table)}
            for table, (path, title, _) in TABLES.items()]}
        _replace(self.directory / "datapackage.json",
                 json.dumps(package, indent=2, ensure_ascii=False) + "\n")
        _replace(self.directory / "README.md", self.readme(self.metadata))
