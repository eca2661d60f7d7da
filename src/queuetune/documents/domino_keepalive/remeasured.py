"""The blog's keep-alive test re-measured on Apache Tomcat (the book's lab), beside the blog.

The data set is the newest complete one of the lab's keep-alive experiment under
``data/lab/`` (:func:`dataset_name`), measured by
``python -m queuetune.lab run keepalive``. Every function takes the data set's
name, so that the chapter can be pointed at another.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ...lab import datasets as lab_datasets
from . import amortization
from . import claims as dk

__all__ = ["dataset_name", "runs", "metadata", "validity", "beside_blog", "fit", "time_wait",
           "what_holds", "chart_frame", "chart_description"]

EXPERIMENT = "keepalive"
#: Linux's fixed TIME_WAIT period (s): the length of a run decides how many are still counted.
LINUX_TIME_WAIT_S = 60


def _key(name: str) -> tuple[str, int]:
    match = re.search(r"-(\d{4}-\d{2}-\d{2})(?:-(\d+))?$", name)
    if match is None:
        return ("", 0)
    return match.group(1), int(match.group(2) or 1)


def dataset_name() -> str:
    """The newest data set of the keep-alive experiment whose every planned run is stored
    (status ``complete``, or ``complete-with-invalid-runs``: the runner flagged some runs, and
    the chapter shows which and why), by date, then by the ``-2``, ``-3`` ... of a later one
    the same day."""
    found = [name for name in lab_datasets.datasets(EXPERIMENT)
             if lab_datasets.metadata(name).get("status", "").startswith("complete")]
    if not found:
        raise ValueError("no complete data set of the keep-alive experiment under data/lab/; "
                         "measure one: python -m queuetune.lab run keepalive")
    return max(found, key=_key)


def _name(dataset: str | None) -> str:
    return dataset_name() if dataset is None else dataset


def metadata(dataset: str | None = None) -> dict:
    """The data set's ``measurement`` block: date, machine, versions, settings, status."""
    return lab_datasets.metadata(_name(dataset))


def runs(dataset: str | None = None) -> pd.DataFrame:
    """One row per run of the data set (``runs.csv``), with the runner's validity columns."""
    return lab_datasets.load("runs", _name(dataset))


def validity(dataset: str | None = None) -> pd.DataFrame:
    """Per run: the test, whether the runner found it valid, and why not."""
    frame = runs(dataset)
    return pd.DataFrame({
        "test": [_test_name(s, n) for s, n in zip(frame["scheme"], frame["keep_alive_requests"],
                                                  strict=True)],
        "valid": frame["valid"].astype(bool).to_numpy(),
        "load_average_1min": frame["load_average_1min"].to_numpy(),
        "reason": frame["invalid_reason"].fillna("").to_numpy(),
    })


def _test_name(scheme: str, n: int) -> str:
    if scheme == "https":
        return f"HTTPS, {int(n)} per connection"
    return "HTTP, keep-alive off" if int(n) == 1 else f"HTTP, {int(n)} per connection"


def _http(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["scheme"] == "http"].sort_values("keep_alive_requests")


def beside_blog(dataset: str | None = None) -> pd.DataFrame:
    """Each Tomcat run beside the blog's test at the same setting (the blog's TLS test, whose
    setting is not stated, beside Tomcat's HTTPS run; the blog ran nothing at 1)."""
    blog = dk.results()
    plain = blog[blog["requests_per_connection"].notna()].set_index("requests_per_connection")
    tls = blog[blog["requests_per_connection"].isna()].iloc[0]
    rows = []
    for r in runs(dataset).itertuples():
        n = int(r.keep_alive_requests)
        name = _test_name(r.scheme, n)
        if r.scheme == "https":
            source = tls
        else:
            source = plain.loc[n] if n in plain.index else None
        rows.append({
            "test": name,
            "requests_per_connection": n,
            "blog_request_ms": float(source["average_request_time_ms"])
            if source is not None else np.nan,
            "blog_run_s": float(source["total_run_time_s"]) if source is not None else np.nan,
            "tomcat_request_ms": float(r.average_request_time_ms),
            "tomcat_run_s": float(r.total_run_time_s),
            "connections": int(r.connections_opened),
            "time_wait_server": int(r.time_wait_server),
            "time_wait_client": int(r.time_wait_client),
            "valid": bool(r.valid),
        })
    return pd.DataFrame(rows)


def fit(dataset: str | None = None) -> amortization.SetupCostFit:
    """The chapter's model t(n) = t_request + t_setup / n fitted to Tomcat's plain-HTTP runs."""
    plain = _http(runs(dataset))
    return amortization.fit_setup_cost(plain["keep_alive_requests"].astype(int),
                                       plain["average_request_time_ms"].astype(float))


def time_wait(dataset: str | None = None) -> pd.DataFrame:
    """Per plain-HTTP run: connections opened, those the server closed (every connection that
    reached the limit; a client closes its last connection itself when its requests end
    before the limit), the sockets counted in TIME_WAIT on each side, and Little's law's
    count for a long run (closing rate x 60 s)."""
    frame = _http(runs(dataset))
    n = frame["keep_alive_requests"].astype(int)
    per_client = frame["requests_per_client"].astype(int)
    clients = frame["clients"].astype(int)
    unfinished = clients * ((per_client % n) > 0)
    opened = frame["connections_opened"].astype(int)
    run_s = frame["total_run_time_s"].astype(float)
    counted = frame["time_wait_server"].astype(int) + frame["time_wait_client"].astype(int)
    return pd.DataFrame({
        "requests_per_connection": n.to_numpy(),
        "connections": opened.to_numpy(),
        "closed_at_limit": (opened - unfinished).to_numpy(),
        "time_wait_server": frame["time_wait_server"].astype(int).to_numpy(),
        "time_wait_client": frame["time_wait_client"].astype(int).to_numpy(),
        "server_share": (frame["time_wait_server"].astype(int) / counted).to_numpy(),
        "counted_share": (counted / opened).to_numpy(),
        "run_s": run_s.to_numpy(),
        "little_60s": amortization.time_wait_sockets(
            opened.to_numpy(), run_s.to_numpy(), LINUX_TIME_WAIT_S),
    })


def _word(holds: bool) -> str:
    return "holds" if holds else "does not hold"


def _change(cut_pct: float) -> str:
    """A cut in time as words: '11 % less time' or '19 % more time'."""
    return (f"{cut_pct:.0f} % less time per request" if cut_pct >= 0
            else f"{-cut_pct:.0f} % more time per request")


def what_holds(dataset: str | None = None) -> pd.DataFrame:
    """The blog's findings, each judged on Tomcat's runs: the statement, what the blog
    measured, what Tomcat measured, whether it holds there, and whether every run it rests on
    passed the runner's checks (a run on a busy machine does not)."""
    frame = runs(dataset)
    plain = _http(frame).set_index("keep_alive_requests")
    t = plain["average_request_time_ms"].astype(float)
    ok = plain["valid"].astype(bool)
    gains = dk.setting_gains().set_index("requests_per_connection")
    tomcat_cut = (t[5] - t[100]) / t[5] * 100
    gained = t[100] < t[5]
    share_10 = (t[5] - t[10]) / (t[5] - t[100]) * 100 if gained else np.nan
    tls = frame[frame["scheme"] == "https"].iloc[0]
    tls_ms = float(tls["average_request_time_ms"])
    blog_tls = float(dk.results().query("requests_per_connection.isna()",
                                        engine="python")["average_request_time_ms"].iloc[0])
    tw = plain["time_wait_server"].astype(int)
    rows = [
        ("A limit of 100 requests per connection is faster than 5",
         _change(gains.loc[100, "time_cut_pct"]), _change(tomcat_cut), _word(gained),
         bool(ok[5] and ok[100])),
        ("Most of that gain comes by 10 requests per connection",
         f"{gains.loc[10, 'share_of_gain_pct']:.0f} % of it at 10",
         f"{share_10:.0f} % of it at 10" if gained else "no gain from 5 to 100",
         _word(bool(gained and share_10 > 50)), bool(ok[5] and ok[10] and ok[100])),
        ("Over TLS a request takes longer than over plain HTTP",
         f"{blog_tls:.0f} ms over TLS (setting not stated) against "
         f"{plain_blog_ms(100):.0f} ms at 100",
         f"{tls_ms:.1f} ms over TLS against {t[100]:.1f} ms, both at 100",
         _word(tls_ms > t[100]), bool(tls["valid"] and ok[100])),
        ("Fewer connections leave fewer sockets in TIME_WAIT",
         "observed on the author's servers, not counted in the test",
         " / ".join(f"{v}" for v in tw.to_numpy()) + " at " +
         " / ".join(str(int(n)) for n in tw.index) + " per connection",
         _word(bool(np.all(np.diff(tw.to_numpy()) < 0))), bool(ok.all())),
        ("Without keep-alive (1 per connection) is slower still",
         "not measured", f"{t[1]:.1f} ms at 1 against {t[5]:.1f} ms at 5",
         _word(t[1] > t[5]), bool(ok[1] and ok[5])),
    ]
    return pd.DataFrame(rows, columns=["finding", "blog (Domino)", "Tomcat", "on Tomcat",
                                       "from valid runs"])


def plain_blog_ms(n: int) -> float:
    """The blog's average request time at ``n`` requests per connection (5, 10 or 100)."""
    blog = dk.measured().set_index("requests_per_connection")
    if n not in blog.index:
        raise ValueError(f"n must be one of {blog.index.astype(int).tolist()}, got {n!r}")
    return float(blog.loc[n, "average_request_time_ms"])


def chart_frame(dataset: str | None = None) -> pd.DataFrame:
    """The runs as the chapter's chart draws them: plain HTTP placed at its limit, HTTPS as a
    line across (its own protocol, not a point of the same curve)."""
    frame = runs(dataset)
    return pd.DataFrame({
        "test": [f"{s.upper()}, {int(n)} per connection" for s, n in
                 zip(frame["scheme"], frame["keep_alive_requests"], strict=True)],
        "requests_per_connection": [float(n) if s == "http" else np.nan for s, n in
                                    zip(frame["scheme"], frame["keep_alive_requests"],
                                        strict=True)],
        "average_request_time_ms": frame["average_request_time_ms"].astype(float).round(3),
        "total_run_time_s": frame["total_run_time_s"].astype(float).round(3),
    })


def chart_description(dataset: str | None = None) -> str:
    """The screen-reader description of the chart, from the data it draws."""
    frame = chart_frame(dataset)
    plain = frame[frame["requests_per_connection"].notna()]
    tls = frame[frame["requests_per_connection"].isna()]
    points = ", ".join(f"{t:.1f} ms at {int(n)}" for n, t in zip(
        plain["requests_per_connection"], plain["average_request_time_ms"], strict=True))
    runs_s = ", ".join(f"{s:.1f} s" for s in plain["total_run_time_s"])
    lines = "; ".join(f"{row.test}: {row.average_request_time_ms:.1f} ms and "
                      f"{row.total_run_time_s:.1f} s" for row in tls.itertuples())
    return (f"Two stacked panels sharing a logarithmic x axis of Tomcat's "
            f"maxKeepAliveRequests. Top: average request time, {points}. Bottom: total run "
            f"time, {runs_s}. A dashed line in each panel marks the HTTPS run ({lines}).")


def provenance(dataset: str | None = None) -> str:
    """One line naming the data set, its date, machine and versions."""
    m = metadata(dataset)
    box = m["machine"]
    return (f"data/lab/{_name(dataset)}: {m['date']}, {box['cpu_model']} "
            f"({box['logical_cores']} cores), {box['tomcat']}, "
            f"{box['java'].split(' / ')[0]}, Locust {box['locust']}; status {m['status']}")


def note(dataset: str | None = None) -> str:
    """The data set's own note on how it was measured ('' if none)."""
    return metadata(dataset).get("note", "")


