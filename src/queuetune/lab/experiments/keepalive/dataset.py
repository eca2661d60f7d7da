"""The keep-alive data set: ``data/lab/keepalive-tomcat-<date>[-n]/`` with its provenance.

``runs.csv`` holds one row per configuration (the blog's measures and the connection counts),
``requests.csv.gz`` one row per request, ``campaign.toml`` the campaign as run, and
``datapackage.json`` the machine, every program's version and every setting.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from ... import machine, tomcat
from .run import RunResult

__all__ = ["RUN_FIELDS", "REQUEST_FIELDS", "new_folder", "write", "write_readme"]

# (name, type, unit, description)
RUN_FIELDS = [
    ("run", "integer", "", "Run number, in the order measured"),
    ("scheme", "string", "", "http, or https (TLS)"),
    ("keep_alive_requests", "integer", "",
     "Tomcat's maxKeepAliveRequests (1: keep-alive off)"),
    ("clients", "integer", "", "Client threads"),
    ("requests_per_client", "integer", "", "Requests each client sent, one after another"),
    ("requests", "integer", "", "Requests sent"),
    ("answered", "integer", "", "Answered 200 with the whole page"),
    ("errors", "integer", "", "Requests without a 200 answer"),
    ("server_answered", "integer", "", "Answers in Tomcat's access log on the measured port"),
    ("locust_requests", "integer", "", "Requests in Locust's own count"),
    ("average_request_time_ms", "number", "ms",
     "Mean time from sending a request to its answer's last byte (handshakes included)"),
    ("median_request_time_ms", "number", "ms", "Median of the same"),
    ("p99_request_time_ms", "number", "ms", "99th percentile of the same"),
    ("first_request_time_ms", "number", "ms",
     "Mean time of the requests that opened their connection"),
    ("reused_request_time_ms", "number", "ms",
     "Mean time of the requests over a connection already open (empty without any)"),
    ("total_run_time_s", "number", "s",
     "From the common start to the last answer (the slowest client)"),
    ("connections_opened", "integer", "", "Connections the clients opened"),
    ("max_requests_per_connection", "integer", "", "Most requests one connection carried"),
    ("tls_resumed", "integer", "",
     "Connections whose TLS session was resumed (empty over plain HTTP)"),
    ("time_wait_server", "integer", "",
     "Server sockets of the measured port in TIME_WAIT just after the run"),
    ("time_wait_client", "integer", "",
     "Client sockets to the measured port in TIME_WAIT just after the run"),
    ("time_wait_before_server", "integer", "", "The same, server side, just before the run"),
    ("time_wait_before_client", "integer", "", "The same, client side, just before the run"),
    ("server_cpu_share", "number", "", "Share of one core Tomcat used during the run"),
    ("generator_cpu_share", "number", "", "Share of one core Locust used during the run"),
    ("warmup_answered", "integer", "", "Warm-up requests answered on the second port"),
    ("bytes", "integer", "bytes", "Body bytes received"),
    ("tls_version", "string", "", "TLS version negotiated (empty over plain HTTP)"),
    ("tls_cipher", "string", "", "TLS cipher suite negotiated (empty over plain HTTP)"),
    ("started_utc", "string", "", "When the clients started"),
]
REQUEST_FIELDS = [
    ("run", "integer", "", "Run number"),
    ("user", "integer", "", "Client thread"),
    ("seq", "integer", "", "The client's request number, from 0"),
    ("connection", "integer", "", "The client's connection it went over, from 1"),
    ("opened", "integer", "", "1 if this request opened its connection"),
    ("resumed", "integer", "",
     "On a request that opened a TLS connection: 1 if the TLS session was resumed"),
    ("start_s", "number", "s", "When it was sent, from the common start"),
    ("latency_ms", "number", "ms", "Time from sending to the answer's last byte"),
    ("outcome", "string", "", "ok, http-<code>, or error-<type>"),
    ("status", "integer", "", "HTTP status (0 without an answer)"),
    ("bytes", "integer", "bytes", "Length of the answer's body"),
]


def _schema(fields) -> dict:
    return {"fields": [{"name": n, "type": t, "description": d, **({"unit": u} if u else {})}
                       for n, t, u, d in fields], "missingValues": [""]}


def _typed(frame: pd.DataFrame, fields) -> pd.DataFrame:
    """Columns in schema order, whole numbers written as such (empty where missing)."""
    frame = frame.reindex(columns=[n for n, *_ in fields])
    for name, kind, *_ in fields:
        if kind == "integer":
            frame[name] = pd.to_numeric(frame[name]).round().astype("Int64")
    return frame


def new_folder(root: Path, name: str, date: str) -> Path:
    """``root/<name>-<date>``, or ``-2``, ``-3`` ... when that exists: never overwritten."""
    base = Path(root) / f"{name}-{date}"
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = Path(f"{base}-{n}")
    return folder


def write(folder: Path, results: list[RunResult], *, plan: dict, campaign_file: Path,
          status: str, jvm_options: list[str], load_average: dict | None = None,
          note: str = "") -> Path:
    """Write the data set (all runs so far) into ``folder``; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    runs = _typed(pd.DataFrame([r.summary for r in results]), RUN_FIELDS)
    runs.to_csv(folder / "runs.csv", index=False)
    rows = _typed(pd.concat([r.rows for r in results]) if results else pd.DataFrame(),
                  REQUEST_FIELDS)
    rows.to_csv(folder / "requests.csv.gz", index=False,
                compression={"method": "gzip", "mtime": 0})
    if Path(campaign_file).resolve() != (folder / "campaign.toml").resolve():
        shutil.copyfile(campaign_file, folder / "campaign.toml")
    now = datetime.now(UTC)
    package = {
        "name": "lab-keepalive-tomcat",
        "title": "queuetune lab: the keep-alive test of domino-keepalive on Tomcat",
        "description": (
            "The persistent-connection test of Nashed (2023) re-run on Apache Tomcat 10.1: "
            "10 client threads x 1000 requests for a 5887-byte static page, Tomcat's "
            "maxKeepAliveRequests 1 (no keep-alive), 5, 10 and 100 over HTTP, and 100 over "
            "HTTPS with an ECDSA P-256 certificate made for the run and TLS session "
            "resumption; request time, run time, connections opened and sockets left in "
            "TIME_WAIT on each side."),
        "licenses": [{"name": "CC-BY-4.0"}],
        "measurement": {
            "experiment": "keepalive",
            "campaign": plan.get("name", "keepalive-tomcat"),
            "date": now.strftime("%Y-%m-%d"),
            "status": status,
            "runs_completed": len(results),
            "server": "Apache Tomcat started by the runner on 127.0.0.1 (a fresh "
                      "CATALINA_BASE per run; a second port of the same server takes the "
                      "warm-up)",
            "load_generator": "Locust (one process), a user class with one http.client "
                              "connection at a time per client",
            "pinning": {"server_cores": list(plan.get("server", {}).get("server_cores", [])),
                        "generator_cores": list(plan.get("server", {}).get(
                            "generator_cores", [])),
                        "tool": "taskset"},
            "jvm_options": jvm_options,
            "load_average": load_average or {},
            **({"note": note} if note else {}),
            "time_wait": ("Counted with `ss -Htan state time-wait` just after each run, on "
                          "both ends of the measured port; a socket in TIME_WAIT belongs to the "
                          "side that closed its connection first. Linux keeps it there 60 s; "
                          "a run shorter than that leaves every closed connection counted, unless "
                          "a new connection from the same client port takes its TIME_WAIT "
                          "socket over (Linux lets a SYN with a newer timestamp do so), which "
                          "happens when client and server share one host and the client's "
                          "ports come round again."),
            "settings": plan,
            "machine": machine.describe(server_versions={
                "tomcat": tomcat.tomcat_version(), "java": tomcat.java_version()}),
        },
        "resources": [
            {"name": "runs", "path": "runs.csv", "title": "One row per run",
             "format": "csv", "encoding": "utf-8", "schema": _schema(RUN_FIELDS)},
            {"name": "requests", "path": "requests.csv.gz",
             "title": "One row per request sent", "format": "csv", "compression": "gz",
             "encoding": "utf-8", "schema": _schema(REQUEST_FIELDS)},
        ],
    }
    (folder / "datapackage.json").write_text(json.dumps(package, indent=2) + "\n",
                                             encoding="utf-8")
    write_readme(folder)
    return folder


def write_readme(folder: Path) -> None:
    """``README.md`` of a data set, from its ``datapackage.json``."""
    package = json.loads((Path(folder) / "datapackage.json").read_text(encoding="utf-8"))
    m, box = package["measurement"], package["measurement"]["machine"]
    lines = [
        f"# {package['title']}", "", package["description"], "",
        f"Status: **{m['status']}** ({m['runs_completed']} runs)", "",
        *([f"Note: {m['note']}", ""] if m.get("note") else []),
        "Measured by `python -m queuetune.lab.experiments.keepalive run` from the campaign "
        "file `campaign.toml` stored here; every column of every table is described in "
        "`datapackage.json`.", "",
        "## Where and with what", "",
        f"- Date (UTC): {m['date']}",
        f"- Machine: {box['cpu_model']}, {box['logical_cores']} logical cores, "
        f"{box['memory_gib']} GiB",
        f"- System: {box['os']}, Linux {box['kernel']}",
        f"- Load average (1, 5, 15 min) at the start: {m.get('load_average', {}).get('start')}"
        f"; at the end: {m.get('load_average', {}).get('end')}",
        f"- Server: {m['server']}; {box['tomcat']}; {box['java']}",
        f"- JVM options: `{' '.join(m['jvm_options'])}`",
        f"- Load generator: {m['load_generator']}; Locust {box['locust']}, "
        f"Python {box['python']}",
        f"- Pinning (taskset): server on cores {m['pinning']['server_cores']}, generator on "
        f"cores {m['pinning']['generator_cores']}",
        f"- TIME_WAIT: {m['time_wait']}", "",
        "## Tables", "",
        *[f"- `{r['path']}`: {r['title']}" for r in package["resources"]], "",
        "A data set is never overwritten: running the campaign again writes a new folder "
        "beside this one.", "",
    ]
    (Path(folder) / "README.md").write_text("\n".join(lines), encoding="utf-8")
