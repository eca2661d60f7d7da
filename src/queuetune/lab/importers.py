"""Measurements of another load generator turned into a lab data set.

``python -m queuetune.lab import FILE --out DIR`` reads

* a **Locust** stats history (``locust --csv PREFIX --csv-full-history`` writes
  ``PREFIX_stats_history.csv``): its ``Aggregated`` rows, one a second, carry the running
  totals of requests, failures and the mean response time; each stretch of rows at one user
  count becomes a run (the totals' differences between its first and last row), and a
  stretch shorter than :data:`MIN_SECONDS` (a ramp step) is left out;
* a **JMeter** JTL file in CSV (with its header line): one row per sample; the samples are
  grouped by ``allThreads`` (the threads active when the sample ended), and a group of fewer
  than :data:`MIN_SAMPLES` samples (a ramp step) is left out.

The data set has the lab's layout (``datapackage.json`` with the format version and the
provenance: the source file's name, its SHA-256, the tool, the date of import; ``runs.csv``;
``README.md``). What such a file cannot say (the think time, the server's pool and queue, the
processor time per request, the one-client service time) is left empty, and
``measurement.unknown`` names it. A malformed file is refused (``ValueError`` naming the
column and the line) and nothing is written.
"""

from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import io
import json
import math
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import datasets
from .quantities import ModelQuantities

__all__ = ["FORMAT_VERSION", "EXPERIMENT", "RUN_FIELDS", "read_locust_history", "read_jtl",
           "detect", "import_file", "model_quantities"]

#: The data set format written (the harness's current format).
FORMAT_VERSION = 2
#: ``measurement.experiment`` of an imported data set.
EXPERIMENT = "imported"
#: A Locust stretch at one user count shorter than this (seconds) is a ramp step, left out.
MIN_SECONDS = 2.0
#: A JMeter thread count with fewer samples than this is a ramp step, left out.
MIN_SAMPLES = 10

#: The runs table: (name, type, unit, description).
RUN_FIELDS = (
    ("run", "integer", "", "Run number, in the order measured"),
    ("kind", "string", "", "'load' (an imported file has no one-client runs of its own)"),
    ("clients", "integer", "", "Concurrent users (Locust's User Count, JMeter's allThreads)"),
    ("think_s", "number", "s", "Mean think time of a client: not in the file (empty)"),
    ("threads", "integer", "", "The server's thread pool: not in the file (empty)"),
    ("capacity", "integer", "", "Requests the server admits: not in the file (empty)"),
    ("window_start_s", "number", "s", "Start of the run's window, seconds from the first"),
    ("window_end_s", "number", "s", "End of the run's window, seconds from the first"),
    ("sent", "integer", "", "Requests completed (answered or failed) in the window"),
    ("ok", "integer", "", "Requests answered successfully in the window"),
    ("failed", "integer", "", "Requests failed in the window"),
    ("throughput", "number", "1/s", "Successful requests per second"),
    ("response_time", "number", "s", "Mean response time (Locust: of all requests, its "
                                      "totals do not separate them; JMeter: successful ones)"),
    ("error_rate", "number", "", "Share of the requests that failed"),
    ("server_cpu_ms", "number", "ms", "Processor time per request: not in the file (empty)"),
)
UNKNOWN = ("think time (estimated by the report from K / X - R)", "threads", "capacity",
           "processor time per request", "one-client service time")


@dataclass(frozen=True)
class Imported:
    """What a source file gave: its tool and one row per run (dicts keyed by RUN_FIELDS)."""

    tool: str
    runs: list[dict]


def _number(text: str, column: str, line: int, *, integer: bool = False) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ValueError(f"column {column!r} of line {line} must be a number, got "
                         f"{text!r}") from None
    if not math.isfinite(value) or value < 0 or (integer and value != int(value)):
        kind = "an integer >= 0" if integer else "a finite number >= 0"
        raise ValueError(f"column {column!r} of line {line} must be {kind}, got {text!r}")
    return value


def _rows(text: str, required: tuple[str, ...], what: str) -> list[tuple[int, dict]]:
    """The CSV's rows as (line number, row), after checking the header names ``required``.
    Python's csv module reads quoted fields; a row of the wrong width is refused."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if not header:
        raise ValueError(f"the {what} is empty (no header line)")
    missing = [c for c in required if c not in header]
    if missing:
        raise ValueError(f"the {what} has no column {missing[0]!r} (line 1 has "
                         f"{header[:8]}...)")
    rows = []
    for values in reader:
        line = reader.line_num
        if not values:
            continue
        if len(values) != len(header):
            raise ValueError(f"line {line} of the {what} has {len(values)} fields, its header "
                             f"{len(header)}")
        rows.append((line, dict(zip(header, values, strict=True))))
    return rows


LOCUST_COLUMNS = ("Timestamp", "User Count", "Name", "Total Request Count",
                  "Total Failure Count", "Total Average Response Time")


def _stretches(points: list[tuple[int, float, float, float, float]]) -> list[list]:
    """Consecutive points (users, t, requests, failures, summed ms) at one user count."""
    groups: list[list] = []
    for point in points:
        if groups and groups[-1][-1][0] == point[0]:
            groups[-1].append(point)
        else:
            groups.append([point])
    return groups


def read_locust_history(text: str) -> Imported:
    """The runs of a Locust ``*_stats_history.csv`` (see the module)."""
    points = []
    for line, row in _rows(text, LOCUST_COLUMNS, "Locust stats history"):
        if row["Name"] != "Aggregated":
            continue
        users = int(_number(row["User Count"], "User Count", line, integer=True))
        t = _number(row["Timestamp"], "Timestamp", line)
        count = _number(row["Total Request Count"], "Total Request Count", line, integer=True)
        failures = _number(row["Total Failure Count"], "Total Failure Count", line,
                           integer=True)
        mean_ms = _number(row["Total Average Response Time"], "Total Average Response Time",
                          line)
        if points and (t < points[-1][1] or count < points[-1][2]):
            raise ValueError(f"line {line} of the Locust stats history goes back in time or "
                             f"in its totals (Timestamp, Total Request Count)")
        if failures > count:
            raise ValueError(f"column 'Total Failure Count' of line {line} exceeds its "
                             f"'Total Request Count'")
        points.append((users, t, count, failures, mean_ms * count))
    if not points:
        raise ValueError("the Locust stats history has no 'Aggregated' row (column 'Name')")
    start = points[0][1]
    runs = []
    for stretch in _stretches(points):
        first, last = stretch[0], stretch[-1]
        seconds = last[1] - first[1]
        sent = int(last[2] - first[2])
        if first[0] == 0 or seconds < MIN_SECONDS or sent == 0:
            continue
        failed = int(last[3] - first[3])
        runs.append(_run(len(runs) + 1, first[0], first[1] - start, last[1] - start, sent,
                         failed, (last[4] - first[4]) / sent / 1000))
    if not runs:
        raise ValueError(f"the Locust stats history holds no stretch of at least "
                         f"{MIN_SECONDS} s at one user count with requests")
    return Imported("Locust (stats history, --csv-full-history)", runs)


JTL_COLUMNS = ("timeStamp", "elapsed", "success", "allThreads")


def read_jtl(text: str) -> Imported:
    """The runs of a JMeter JTL file in CSV (see the module)."""
    samples = []
    for line, row in _rows(text, JTL_COLUMNS, "JTL file"):
        start_ms = _number(row["timeStamp"], "timeStamp", line, integer=True)
        elapsed = _number(row["elapsed"], "elapsed", line, integer=True)
        threads = int(_number(row["allThreads"], "allThreads", line, integer=True))
        success = row["success"].strip().lower()
        if success not in ("true", "false"):
            raise ValueError(f"column 'success' of line {line} must be true or false, got "
                             f"{row['success']!r}")
        samples.append((threads, start_ms / 1000, (start_ms + elapsed) / 1000,
                        elapsed / 1000, success == "true"))
    if not samples:
        raise ValueError("the JTL file has no sample (only its header line)")
    frame = pd.DataFrame(samples, columns=["threads", "start", "end", "elapsed", "ok"])
    origin = frame["start"].min()
    runs = []
    for threads, part in frame.groupby("threads", sort=True):
        seconds = part["end"].max() - part["start"].min()
        if threads == 0 or len(part) < MIN_SAMPLES or seconds <= 0:
            continue
        ok = part["ok"]
        r = float(part.loc[ok, "elapsed"].mean()) if ok.any() else math.nan
        runs.append(_run(len(runs) + 1, int(threads), part["start"].min() - origin,
                         part["end"].max() - origin, len(part), int((~ok).sum()), r))
    if not runs:
        raise ValueError(f"the JTL file holds no thread count (column 'allThreads') with at "
                         f"least {MIN_SAMPLES} samples")
    return Imported("JMeter (JTL, CSV)", runs)


def _run(number: int, clients: int, start: float, end: float, sent: int, failed: int,
         response_time: float) -> dict:
    seconds = end - start
    return {"run": number, "kind": "load", "clients": int(clients), "think_s": None,
            "threads": None, "capacity": None, "window_start_s": round(start, 6),
            "window_end_s": round(end, 6), "sent": sent, "ok": sent - failed,
            "failed": failed, "throughput": (sent - failed) / seconds,
            "response_time": response_time, "error_rate": failed / sent,
            "server_cpu_ms": None}


def detect(path: Path, text: str) -> str:
    """``"locust"`` or ``"jtl"``, from the header line."""
    header = next(csv.reader(io.StringIO(text)), [])
    if "Total Request Count" in header:
        return "locust"
    if "timeStamp" in header and "elapsed" in header:
        return "jtl"
    raise ValueError(f"file {path.name!r} is neither a Locust stats history (no column "
                     f"'Total Request Count') nor a JMeter JTL in CSV (no columns "
                     f"'timeStamp', 'elapsed')")


def _package(name: str, source: Path, digest: str, imported: Imported, today: str) -> dict:
    fields = [{"name": n, "type": t, "description": d, **({"unit": u} if u else {})}
              for n, t, u, d in RUN_FIELDS]
    return {
        "name": f"lab-{name}",
        "title": f"queuetune lab: {source.name}, imported",
        "description": f"Measurements of {imported.tool} imported from {source.name}.",
        "measurement": {
            "experiment": EXPERIMENT, "format_version": FORMAT_VERSION, "status": "complete",
            "campaign": name, "date": today, "load_generator": imported.tool,
            "source": {"file": source.name, "sha256": digest, "tool": imported.tool,
                       "imported": today},
            "unknown": list(UNKNOWN), "settings": {}, "machine": {},
            "runs_completed": len(imported.runs)},
        "resources": [{"name": "runs", "path": "runs.csv", "format": "csv",
                       "encoding": "utf-8", "title": "One row per load level",
                       "schema": {"fields": fields}}],
    }


def _readme(package: dict) -> str:
    m = package["measurement"]
    unknown = "\n".join(f"- {u}" for u in m["unknown"])
    return (f"# {package['title']}\n\nStatus: **{m['status']}**\n\n"
            f"Imported by `python -m queuetune.lab import` on {m['date']} from "
            f"`{m['source']['file']}` (SHA-256 `{m['source']['sha256']}`), written by "
            f"{m['source']['tool']}.\n\nNot in the file, left empty:\n\n{unknown}\n\n"
            f"## Tables\n\n- `runs.csv`: one row per load level (see `datapackage.json`)\n")


def import_file(source: str | Path, out: str | Path, *, today: str | None = None) -> Path:
    """Read ``source`` (a Locust stats history or a JMeter JTL) and write the data set folder
    ``out`` (which must not exist, or be empty); returns ``out``. Nothing is written when the
    file is refused."""
    source, out = Path(source), Path(out)
    if not source.is_file():
        raise ValueError(f"file {str(source)!r} does not exist")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"out {str(out)!r} exists and is not an empty folder")
    raw = source.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"file {source.name!r} is not UTF-8 text ({exc})") from None
    kind = detect(source, text)
    imported = read_locust_history(text) if kind == "locust" else read_jtl(text)
    today = today or _dt.datetime.now(_dt.UTC).date().isoformat()
    package = _package(out.name, source, hashlib.sha256(raw).hexdigest(), imported, today)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        columns = [f[0] for f in RUN_FIELDS]
        pd.DataFrame(imported.runs, columns=columns).to_csv(tmp / "runs.csv", index=False)
        (tmp / "datapackage.json").write_text(json.dumps(package, indent=2) + "\n",
                                              encoding="utf-8")
        (tmp / "README.md").write_text(_readme(package), encoding="utf-8")
        if out.exists():
            out.rmdir()
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


# -- the models' quantities (for the report) ------------------------------------------------

#: What an imported file cannot give the report, in words.
CANNOT = (
    "the processor time per request (s_c): the file has none, so the service time cannot be "
    "split into processor time and waiting; the report advises no processors, threads or "
    "pool from it (measure s_c, for instance with the lab's test page and --target)",
    "the server's threads, queue bound and processors: not in the file, so the pool's and "
    "the processors' ceilings and the thread-limited model are not computed",
    "the think time: not in the file, estimated as K/X - R (the interactive response-time "
    "law, median over the runs) and fitted",
)


def model_quantities(dataset: str | Path) -> ModelQuantities:
    """The runs of an imported data set as the models see them (one group, ``"all"``): the
    service time S is the mean response time at the fewest clients measured (an upper bound
    of the one-client service time unless that is 1), the processor time unknown, the think
    time estimated by the interactive response-time law."""
    runs = datasets.load("runs", dataset)
    load = runs[(runs["kind"] == "load") & (runs["throughput"] > 0)]
    out = pd.DataFrame({
        "group": "all", "run": load["run"], "clients": load["clients"],
        "arrival_rate": math.nan, "think_time": math.nan,
        "threads": pd.array([pd.NA] * len(load), dtype="Int64"),
        "capacity": pd.array([pd.NA] * len(load), dtype="Int64"),
        "processors": pd.array([pd.NA] * len(load), dtype="Int64"),
        "connections": pd.array([pd.NA] * len(load), dtype="Int64"),
        "throughput": load["throughput"], "response_time": load["response_time"],
        "error_rate": load["error_rate"],
        "valid": pd.array([pd.NA] * len(load), dtype="boolean")}).reset_index(drop=True)
    rows = {}
    if len(out):
        lowest = out.loc[out["clients"].idxmin()]
        k = int(lowest["clients"])
        z = out["clients"] / out["throughput"] - out["response_time"]
        think = max(float(np.median(z)), 0.0)
        out["think_time"] = think
        how = ("S: the one-client run's mean response time" if k == 1 else
               f"S: the mean response time at the fewest clients measured (K = {k}), an "
               f"upper bound of the one-client service time")
        rows["all"] = {"S": float(lowest["response_time"]), "s_cpu": math.nan,
                       "s_wait": math.nan, "think_time": think,
                       "how": how + "; no processor time in the data (s_c, s_w unknown); "
                                    "Z estimated as K/X - R (median over the runs)"}
    service = pd.DataFrame.from_dict(rows, orient="index",
                                     columns=["S", "s_cpu", "s_wait", "think_time", "how"])
    left = len(runs[runs["kind"] == "load"]) - len(load)
    return ModelQuantities(
        runs=out, service=service, think_time_known=False, cannot=CANNOT,
        left_out=(f"{left} load runs without a successful answer",) if left else ())
