"""What the chapter "Today's server" shows: each campaign against the thread-pool model,
predicted from one-client measurements and fitted, its error by regime, and what the sizing
procedure of the practical chapter (:func:`queuetune.sizing.size`) advised and how it fared.

A *configuration* is one combination of the factors a data set varies other than its load
(processors, executor, threads, queue, pool); its *load* is its clients (closed loop) or its
arrival rate (open). Errors are signed: the model's value over the measured one, minus one
(below zero the model predicts too little); the share refused is compared in points. Runs the
runner flagged invalid are left out of every error and fit, and listed by :func:`invalid`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import optimize

from .... import charts, sizing
from ... import datasets
from ...quantities import ModelQuantities
from ...regimes import errors_by_regime
from . import analysis

__all__ = ["FACTORS", "KEEP_UP", "EXPECTED_REFUSED", "measured", "thread_time", "bursts",
           "load_column", "invalid", "fit_times", "model_values", "errors", "by_regime",
           "curves", "advice", "setup", "error_text", "errors_shown", "advice_shown",
           "model_chart", "PREDICTED", "FITTED", "model_quantities"]

#: The names of the model's two sets of service times in the chapter's tables and charts.
PREDICTED, FITTED = "predicted from one client", "fitted"

#: The share of its peak a run must answer to have carried it (and, open, not to be growing).
KEEP_UP = 0.95

#: The share refused below which the sizing's own prediction counts as carrying the load.
EXPECTED_REFUSED = 0.01

#: The factors that may make a configuration, in the order its label names them.
FACTORS = ("processors", "executor", "threads", "queue", "pool", "distribution")
_WORDS = {"processors": "p = {}", "executor": "{}", "threads": "T = {}",
          "queue": "queue {}", "pool": "pool {}", "distribution": "{} work"}


def _label(row: pd.Series, varying: list[str]) -> str:
    parts = []
    for factor in varying:
        value = row[factor]
        if factor in ("threads", "queue") and row["executor"] == "virtual":
            continue  # a virtual-thread executor has neither
        parts.append(_WORDS[factor].format(value if factor in ("executor", "distribution")
                                           else int(value)))
    return ", ".join(parts) or "one configuration"


def load_column(table: pd.DataFrame) -> str:
    """``"clients"`` for a closed-loop data set, ``"arrival_rate"`` for an open one."""
    return "arrival_rate" if (table["arrival_rate"] > 0).any() else "clients"


def measured(dataset: str | Path) -> pd.DataFrame:
    """The load runs (:func:`analysis.regimes`) with ``configuration`` (the varying factors
    in words), ``response_time`` (s) and ``error_rate`` (the share refused)."""
    table = analysis.regimes(dataset).reset_index(drop=True)
    platform = table[table["executor"] == "platform"]
    varying = [f for f in FACTORS
               if (platform if f in ("threads", "queue") else table)[f].nunique() > 1]
    table["configuration"] = [_label(row, varying) for _, row in table.iterrows()]
    table["response_time"] = table["r_mean"] / 1000
    table["error_rate"] = table["refused_share"]
    runs = datasets.load("runs", dataset).set_index("run")[["server_cpu", "cores_busy"]]
    table = table.join(runs, on="run")
    table["steady"] = _steady(table)
    return table


def model_quantities(dataset: str | Path) -> ModelQuantities:
    """The load runs as the report's models see them (:mod:`queuetune.lab.quantities`): one
    group per configuration (:func:`measured`), its service time from the one-client run of
    its processors level (:func:`analysis.service_times`); B = threads + queue on platform
    threads, unknown on virtual threads (no queue bound); the pool held during the wait;
    closed loops with the campaign's think time, open runs with their arrival rate. Open runs
    still filling their queue through the window (not steady) are left out."""
    table = measured(dataset)
    open_ = table["arrival_rate"] > 0
    platform = table["executor"] == "platform"
    steady = table["steady"].astype(bool)
    kept = table[steady]
    nothing = pd.array([pd.NA] * len(kept), dtype="Int64")
    runs = pd.DataFrame({
        "group": kept["configuration"], "run": kept["run"],
        "clients": pd.array(kept["clients"].where(~open_[steady]), dtype="Int64"),
        "arrival_rate": kept["arrival_rate"].where(open_[steady], np.nan).astype(float),
        "think_time": kept["think_s"].where(~open_[steady], np.nan).astype(float),
        "threads": pd.array(kept["threads"].where(platform[steady]), dtype="Int64"),
        "capacity": pd.array((kept["threads"] + kept["queue"]).where(platform[steady]),
                             dtype="Int64"),
        "processors": pd.array(kept["processors"], dtype="Int64"),
        "connections": pd.array(kept["pool"].where(kept["pool"] > 0), dtype="Int64")
        if len(kept) else nothing,
        "throughput": kept["throughput"], "response_time": kept["response_time"],
        "error_rate": kept["error_rate"], "valid": kept["valid"].astype("boolean")})
    times = analysis.service_times(dataset).set_index("processors")
    rows = {}
    for group, part in kept.groupby("configuration", sort=False):
        t = times.loc[part["processors"].iloc[0]]
        closed = part[part["arrival_rate"] <= 0]
        rows[group] = {"S": float(t["s_c"] + t["s_w"]), "s_cpu": float(t["s_c"]),
                       "s_wait": float(t["s_w"]),
                       "think_time": float(closed["think_s"].iloc[0]) if len(closed)
                       else np.nan,
                       "how": f"S, s_c, s_w: {t['source']} of p = {part['processors'].iloc[0]}"
                              f"; Z: the campaign's think time (closed loop)"}
    service = pd.DataFrame.from_dict(rows, orient="index",
                                     columns=["S", "s_cpu", "s_wait", "think_time", "how"])
    cannot = []
    if open_.any():
        cannot.append("fits of open runs (arrivals at a rate): the report's fits are of "
                      "closed loops of clients; the chapter Today's server fits the open "
                      "thread-pool model to them")
    if (~platform).any():
        cannot.append("the thread-limited model on virtual threads: they have no thread "
                      "limit, and no queue bound (B) short of maxConnections")
    closed_loads = runs[runs["clients"].notna()].groupby("group")["clients"].nunique()
    if (closed_loads < 2).any():
        cannot.append("fits of a configuration measured at one client count only (a fit "
                      "needs two or more): " + ", ".join(closed_loads.index[closed_loads < 2]))
    left = int((~steady).sum())
    left_out = ((f"{left} open runs whose queue still grew through the window (never "
                 f"steady; the models describe a steady state)",) if left else ())
    return ModelQuantities(runs=runs.reset_index(drop=True), service=service,
                           think_time_known=True, cannot=tuple(cannot), left_out=left_out)


def _steady(table: pd.DataFrame) -> np.ndarray:
    """False for an open run whose queue was still growing through its window: it refused
    nothing (the bound was never reached) yet answered less than :data:`KEEP_UP` of the
    arrivals. The models describe a steady state, which such a run never reached: its
    response time is that of a queue filling for as long as the window lasted."""
    growing = ((table["arrival_rate"] > 0) & (table["error_rate"] == 0)
               & (table["throughput"] < KEEP_UP * table["arrival_rate"]))
    return ~growing.to_numpy()


def thread_time(table: pd.DataFrame) -> pd.DataFrame:
    """Where a request's time went, per valid platform-thread run whose threads were all busy
    (its clients or arrivals past the threads' ceiling: the executor's queue held requests):
    the time a request held its thread, T / X by Little's law; the JVM's processor time per
    request, its processor time over the window per answer (the utilization law); and how busy
    Tomcat's cores were, in cores."""
    valid = _valid(table)
    busy = valid[(valid["executor"] == "platform") & (valid["regime"] == "past the knee")]
    out = busy[["configuration", load_column(table), "threads", "throughput"]].copy()
    out["thread held (ms)"] = 1000 * busy["threads"] / busy["throughput"]
    out["JVM processor time per request (ms)"] = 1000 * busy["server_cpu"] / busy["throughput"]
    out["cores busy"] = busy["cores_busy"]
    return out.reset_index(drop=True)


def bursts(dataset: str | Path) -> pd.DataFrame:
    """How the answers of each platform-thread closed-loop load run arrived: in bursts
    separated by silences. Two consecutive answers (ends of answered requests, in the window)
    belong to one burst when less than half the requests' wait ``wait_ms`` apart; per run, the
    median burst size, and the share of the window spent in silences between bursts. Threads
    that compute at once and then all wait at once answer in bursts of about T, and their
    core idles during the silences; with no wait (``wait_ms`` 0) there is nothing to tell
    apart, and the run has no row."""
    runs = analysis.runs_of(dataset)
    runs = runs[(runs["kind"] == "load") & (runs["executor"] == "platform")
                & (runs["clients"] > 0) & (runs["wait_ms"] > 0)]
    requests = datasets.load("requests", dataset)
    rows = []
    for _, run in runs.iterrows():
        mine = requests[(requests["run"] == run["run"]) & (requests["outcome"] == "ok")]
        ends = np.sort((mine["start_s"] + mine["latency_ms"] / 1000).to_numpy())
        ends = ends[(ends >= run["window_start_s"]) & (ends < run["window_end_s"])]
        if len(ends) < 2:
            continue
        gaps = np.diff(ends)
        silent = gaps >= run["wait_ms"] / 2000
        sizes = np.diff(np.flatnonzero(np.r_[True, silent, True]))
        rows.append({"run": int(run["run"]), "processors": int(run["processors"]),
                     "threads": int(run["threads"]), "clients": int(run["clients"]),
                     "cores busy": float(run["cores_busy"]) / int(run["processors"]),
                     "median burst (answers)": float(np.median(sizes)),
                     "time in silences": float(gaps[silent].sum() / (ends[-1] - ends[0]))})
    return pd.DataFrame(rows)


def invalid(table: pd.DataFrame) -> pd.DataFrame:
    """The runs the runner flagged invalid, with its reason."""
    bad = table[~table["valid"].astype(bool)]
    return bad[["run", "configuration", load_column(table), "invalid_reason"]]


def _valid(table: pd.DataFrame) -> pd.DataFrame:
    ok = table[table["valid"].astype(bool) & (table["answered"] > 0)]
    return ok[np.isfinite(ok["r_mean"].to_numpy(dtype=float))]


def _compared(table: pd.DataFrame) -> pd.DataFrame:
    """The runs a steady-state model is compared with: valid, and steady (:func:`_steady`)."""
    valid = _valid(table)
    return valid[valid["steady"].astype(bool)] if "steady" in valid else valid


def model_values(table: pd.DataFrame, times: pd.DataFrame) -> pd.DataFrame:
    """Per run: the model's throughput ``x_model`` (1/s), response time ``r_model`` (s) and
    share refused ``e_model``, from the service times ``times`` (indexed by processors,
    columns ``s_c`` and ``s_w`` in seconds)."""
    rows = []
    for _, row in table.iterrows():
        t = times.loc[row["processors"]]
        result = analysis.predict(row, float(t["s_c"]), float(t["s_w"]))
        rows.append((float(result.throughput), float(result.response_time),
                     float(result.rejection_probability)))
    return pd.DataFrame(rows, index=table.index, columns=["x_model", "r_model", "e_model"])


def _residuals(log_times: np.ndarray, part: pd.DataFrame) -> np.ndarray:
    s_c, s_w = np.exp(log_times)
    times = pd.DataFrame({"s_c": [s_c], "s_w": [s_w]},
                         index=[part["processors"].iloc[0]])
    model = model_values(part, times)
    return np.concatenate([np.log(model["x_model"] / part["throughput"]),
                           np.log(model["r_model"] / part["response_time"])])


def fit_times(table: pd.DataFrame, start: pd.DataFrame) -> pd.DataFrame:
    """Per processors level: the ``s_c`` and ``s_w`` (s) that make the model closest to the
    valid, steady load runs, in the least squares of the log ratios of throughput and response time,
    started from ``start`` (the one-client times).

    ``queuetune.fit.fit_thread_pool`` fits closed loops of clients only; these campaigns mix
    open arrivals, pools and virtual threads, so the two service times are fitted here with
    scipy's least squares over the same model (:func:`analysis.predict`)."""
    rows = []
    for processors, part in _compared(table).groupby("processors"):
        t = start.loc[processors]
        x0 = np.log([float(t["s_c"]), max(float(t["s_w"]), 1e-4)])
        found = optimize.least_squares(_residuals, x0, args=(part,),
                                       bounds=(np.log([1e-4, 1e-5]), np.log([1.0, 10.0])),
                                       x_scale=1.0, diff_step=1e-3)
        s_c, s_w = np.exp(found.x)
        rows.append((processors, s_c, s_w, len(part), "fitted to the valid, steady load runs"))
    return pd.DataFrame(rows, columns=["processors", "s_c", "s_w", "runs", "source"]
                        ).set_index("processors")


def errors(table: pd.DataFrame, times: pd.DataFrame, model: str) -> pd.DataFrame:
    """Per valid, steady load run: the model's values from ``times`` and its signed errors
    (``throughput_error``, ``response_time_error``; ``refused_error`` in points), labelled
    ``model``."""
    valid = _compared(table)
    out = valid.join(model_values(valid, times))
    out["model"] = model
    out["throughput_error"] = out["x_model"] / out["throughput"] - 1
    out["response_time_error"] = out["r_model"] / out["response_time"] - 1
    out["refused_error"] = out["e_model"] - out["error_rate"]
    return out


def by_regime(errors_table: pd.DataFrame, *, seed: int = 22, resamples: int = 2000
              ) -> pd.DataFrame:
    """Per model, regime and quantity: runs, the median signed error with a 95 % bootstrap
    interval over runs, and the largest in size. The share refused counts the runs where the
    model or the server refused anything. A regime no run reached has no row."""
    return errors_by_regime(errors_table, by=["model", "regime"], seed=seed,
                            resamples=resamples)


def _grid(values: pd.Series, closed: bool, points: int) -> np.ndarray:
    high = float(values.max())
    if closed:
        return np.unique(np.linspace(1, high, points).round().astype(int))
    return np.linspace(float(values.min()) * 0.5, high, points)


def curves(table: pd.DataFrame, models: dict[str, pd.DataFrame], *, points: int = 40
           ) -> pd.DataFrame:
    """Per configuration, per model (name: service times indexed by processors), the model's
    throughput, response time and share refused over a grid of the load."""
    x = load_column(table)
    closed = x == "clients"
    frames = []
    for configuration, part in table.groupby("configuration", sort=False):
        grid = _grid(part[x], closed, points)
        rows = pd.DataFrame([part.iloc[0]] * len(grid)).reset_index(drop=True)
        rows[x] = grid
        for name, times in models.items():
            values = model_values(rows, times)
            frames.append(pd.DataFrame({
                "configuration": configuration, "model": name, x: grid,
                "throughput": values["x_model"], "response_time": values["r_model"],
                "error_rate": values["e_model"]}))
    return pd.concat(frames, ignore_index=True)


def _advised(row: pd.Series, t: pd.Series) -> dict:
    load = ({"arrival_rate": float(row["arrival_rate"])} if row["arrival_rate"] > 0 else
            {"clients": int(row["clients"]), "think_time": float(row["think_s"])})
    pool = int(row["pool"]) if row["pool"] > 0 else None
    plan = sizing.size(processors=int(row["processors"]), cpu_time=float(t["s_c"]),
                       wait_time=float(t["s_w"]), connections=pool, **load)
    return {"processors needed": plan.processors_needed, "advised threads": plan.threads,
            "advised B": plan.capacity, "advised R (s)": plan.response_time,
            "advised share refused": plan.refused,
            "advised share of the peak answered": plan.throughput / plan.peak,
            "saturation multiple": plan.saturation_multiple}


def _kept_up(run: pd.Series, t: pd.Series, keep_up: float) -> bool:
    """Whether a run carried its load: nothing refused, and at least ``keep_up`` of the peak
    answered (the peak as the sizing defines it: the arrival rate, or K / (Z + S) with the
    one-client S = s_c + s_w)."""
    if run["error_rate"] > 0:
        return False
    peak = (run["arrival_rate"] if run["arrival_rate"] > 0 else
            run["clients"] / (run["think_s"] + float(t["s_c"]) + float(t["s_w"])))
    return bool(run["throughput"] >= keep_up * peak)


def _nearest(platform: pd.DataFrame, threads: int, capacity: int) -> pd.Series:
    """The platform configuration nearest to the advice: threads first, then B = T + Q."""
    key = pd.DataFrame({"t": (platform["threads"] - threads).abs(),
                        "b": (platform["threads"] + platform["queue"] - capacity).abs(),
                        "threads": platform["threads"]}, index=platform.index)
    return platform.loc[key.sort_values(["t", "b", "threads"], kind="stable").index[0]]


def advice(table: pd.DataFrame, times: pd.DataFrame, *, tolerance: float = 0.10,
           keep_up: float = KEEP_UP) -> pd.DataFrame:
    """Per load point (processors, pool and load, measured under several configurations):
    what :func:`queuetune.sizing.size` advises from the one-client ``times`` (processors
    needed for the sizing's headroom, threads T, bound B, its predicted response time and
    share refused at that load with the processors measured, and the saturation multiple of
    its settings), and how it fared against the valid runs.

    * ``capacity call`` - *right* when the advice expected the load to be carried (its
      settings on the processors measured refuse under :data:`EXPECTED_REFUSED` of it at the
      peak and answer ``keep_up`` of the peak, the same test as the measured runs'; the
      ``processors needed`` are sized for the headroom, 1.5 times the peak by default, and do
      not decide whether the peak itself is carried) and some measured configuration
      carried it (refused nothing and answered
      ``keep_up`` of the peak: the arrival rate, or K / (Z + S)), or expected it not to be and
      none did; *wrong* otherwise;
    * ``nearest measured`` - the platform-thread configuration nearest to the advice (threads,
      then B), with its response time and share refused; ``best measured`` - the shortest
      response time among the configurations that refused no more than it;
    * ``threads held`` - the nearest configuration answered within ``tolerance`` of the best;
    * ``promise judged`` - the advised response time is a promise worth checking against the
      nearest configuration's: the advice expected to carry the load, and that configuration's
      run was steady (``steady``, :func:`measured`) and refused nothing.
    """
    x = load_column(table)
    rows = []
    for (processors, pool, load), part in _valid(table).groupby(["processors", "pool", x]):
        t = times.loc[processors]
        rec = _advised(part.iloc[0], t)
        platform = part[part["executor"] == "platform"]
        if platform.empty:
            continue
        carried = any(_kept_up(run, t, keep_up) for _, run in part.iterrows())
        expected = bool(rec["advised share refused"] < EXPECTED_REFUSED
                        and rec["advised share of the peak answered"] >= keep_up)
        nearest = _nearest(platform, rec["advised threads"], rec["advised B"])
        rivals = part[part["error_rate"] <= nearest["error_rate"]]
        best = rivals.loc[rivals["response_time"].idxmin()]
        rows.append({
            "processors": processors, "pool": pool, x: load, **rec,
            "expected to carry it": expected, "a configuration carried it": carried,
            "capacity call": "right" if expected == carried else "wrong",
            "nearest measured": nearest["configuration"],
            "its R (s)": nearest["response_time"], "its share refused": nearest["error_rate"],
            "best measured": best["configuration"], "best R (s)": best["response_time"],
            "threads held": bool(nearest["response_time"]
                                 <= (1 + tolerance) * best["response_time"]),
            "promise judged": bool(expected and nearest["steady"]
                                   and nearest["error_rate"] == 0)})
    return pd.DataFrame(rows)


def setup(meta: dict) -> pd.DataFrame:
    """A data set's settings and provenance (its ``measurement`` metadata) as a table."""
    s, machine = meta["settings"], meta["machine"]
    workload, timing = s["workload"], s["timing"]
    rows = [("campaign", meta["campaign"]), ("measured on", meta["date"]),
            ("status", meta["status"]),
            ("processor time per request asked for (ms)", f"{workload['cpu_ms']:g}"),
            ("wait per request, holding a permit (ms)", f"{workload['wait_ms']:g}"),
            ("answer (bytes)", f"{workload['response_bytes']}"),
            ("think time of closed-loop clients (s)", f"{workload['think_time_s']:g}"),
            ("measurement window per run (s)", f"{timing['measure_s']:g}"),
            ("server", machine["tomcat"]),
            ("Java", f"{meta['java_runtime']['version']} ({meta['java_runtime']['source']})"),
            ("load generator", f"Locust {machine['locust']}"),
            ("machine", f"{machine['cpu_model']}, {machine['logical_cores']} cores, "
                        f"{machine['os']}")]
    return pd.DataFrame(rows, columns=["setting", "value"]).set_index("setting")


def _percent(value: float) -> str:
    return f"{value:+.0%}" if abs(value) >= 0.1 else f"{value:+.1%}"


def error_text(frame: pd.DataFrame, model: str, regime: str, quantity: str) -> str:
    """One row of :func:`by_regime` in words: ``"-37% [-47%, -20%]"``, in points for the
    share refused, ``"(one run, no interval)"`` without an interval, ``"not measured"``
    where no run reached that regime."""
    row = frame[(frame["model"] == model) & (frame["regime"] == regime)
                & (frame["quantity"] == quantity)]
    if row.empty:
        return "not measured"
    r = row.iloc[0]
    share = quantity.startswith("share")
    if np.isnan(r["low"]):
        value = f"{r['median error'] * 100:+.1f} points" if share else _percent(
            r["median error"])
        return f"{value} (one run, no interval)"
    if share:
        return (f"{r['median error'] * 100:+.1f} points [{r['low'] * 100:+.1f}, "
                f"{r['high'] * 100:+.1f}]")
    return f"{_percent(r['median error'])} [{_percent(r['low'])}, {_percent(r['high'])}]"


def errors_shown(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`by_regime` for reading: errors as signed percentages (points for the share
    refused), indexed by model, quantity and regime."""
    out = frame.copy()
    for column in ("median error", "low", "high", "largest error"):
        out[column] = ["no interval (one run)" if np.isnan(v) else
                       f"{v * 100:+.1f} pt" if q.startswith("share") else f"{v:+.1%}"
                       for v, q in zip(out[column], out["quantity"], strict=True)]
    return out.set_index(["model", "quantity", "regime"])


def advice_shown(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`advice` for reading: the load in words and the columns a reader compares."""
    load = (frame["clients"].map("{:.0f} clients".format) if "clients" in frame
            else frame["arrival_rate"].map("{:g}/s".format))
    pool = frame["pool"].map(lambda c: f", pool {c:.0f}" if c else "")
    return pd.DataFrame({
        "load": load + pool, "advised T": frame["advised threads"],
        "advised B": frame["advised B"], "advised R (s)": frame["advised R (s)"].round(3),
        "capacity call": frame["capacity call"], "nearest measured": frame["nearest measured"],
        "its R (s)": frame["its R (s)"].round(3), "best measured": frame["best measured"],
        "best R (s)": frame["best R (s)"].round(3), "threads held": frame["threads held"],
        "promise judged": frame["promise judged"]})


def model_chart(table: pd.DataFrame, models: dict[str, pd.DataFrame], *, title: str,
                description: str, x_title: str, panels: list[tuple[str, str, str]],
                width: int = 150):
    """The model's curves (:func:`curves`, one line per entry of ``models``) against the
    valid measured runs, one column of panels per configuration."""
    x = load_column(table)
    points = table[table["valid"].astype(bool)]
    return charts.curve_panels_chart(
        curves(table, models), x=x, series="model", column="configuration", panels=panels,
        title=title, description=description, x_title=x_title, series_title="Model",
        column_title="Configuration", x_format="d" if x == "clients" else ".0f",
        measured=points[["configuration", x] + [p[0] for p in panels]],
        measured_name="measured on Tomcat", panel_width=width, panel_height=120)
