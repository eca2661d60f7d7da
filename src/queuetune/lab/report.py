"""A lab data set turned into parameters and settings: ``python -m queuetune.lab report``.

Every function takes a data set (a name under ``data/lab`` or a folder) and works on any of
them: one measured by the Imre experiment (the runner's own Tomcat or ``--target``), or one
imported from Locust or JMeter (:mod:`queuetune.lab.importers`). The groups of a data set
are its splits (Imre) or ``"all"`` (imported).

* :func:`observations` - the load runs: clients K, threads T, capacity B (where known),
  throughput X, mean response time R, share failed;
* :func:`service` - per group, the one-client service time S and its split into processor
  time s_c and the rest s_w (where the data has the processor time), and the think time Z
  (the campaign's, or estimated from the interactive response-time law Z = K/X - R);
* :func:`fits` / :func:`parameters` - M/M/1/B/K, and the thread-limited model where the
  pool is known, fitted with :mod:`queuetune.fit` (intervals by profile likelihood);
* :func:`ceilings` - the throughput bounds: processors p/s_c, pool T/S, one server 1/S;
* :func:`misses` - the fitted models' relative errors by regime (below, at, past the knee),
  the median with a 95 % bootstrap interval over the runs;
* :func:`recommend` - the settings of :func:`queuetune.sizing.size` for the largest measured
  load, from the measured s_c and s_w;
* :func:`text` and :func:`html` - all of it printed, or as one HTML file with inline SVG
  charts (no request to another host).
"""

from __future__ import annotations

import html as _html
import math
import string
import warnings
from importlib import resources
from pathlib import Path

import altair as alt
import numpy as np
import pandas as pd
import vl_convert

from .. import fit as qfit
from .. import sizing
from . import datasets

__all__ = ["observations", "service", "fits", "parameters", "ceilings", "misses",
           "recommend", "processors_of", "text", "html", "write_html", "REGIMES"]

#: A run's regime by its clients K against the knee K*: below (K < 2/3 K*), at (up to
#: 3/2 K*), past.
REGIMES = ("below the knee", "at the knee", "past the knee")
KNEE_BAND = (2 / 3, 3 / 2)
#: Resamples of the bootstrap intervals, and their seed.
RESAMPLES = 2000
SEED = 20061124


def _imre(dataset) -> bool:
    return datasets.experiment_of(dataset) == "imre"


def observations(dataset: str | Path) -> pd.DataFrame:
    """The load runs (valid ones, where the runner checked): ``group``, ``run``, ``clients``,
    ``threads``, ``capacity`` (nullable), ``throughput`` (1/s), ``response_time`` (s),
    ``error_rate``."""
    columns = ["group", "run", "clients", "threads", "capacity", "throughput",
               "response_time", "error_rate"]
    if _imre(dataset):
        from .experiments.imre import models

        runs = models.measured(dataset)
        if "valid" in runs:
            runs = runs[runs["valid"].fillna(True).astype(bool)]
        runs = runs[runs["max_connections"] >= runs["capacity"]]
        out = runs.assign(group=runs["split"].astype(str))
    else:
        runs = datasets.load("runs", dataset)
        out = runs[runs["kind"] == "load"].assign(group="all")
    out = out[columns].reset_index(drop=True)
    return out[out["throughput"] > 0].reset_index(drop=True)


def _estimated_think(obs: pd.DataFrame) -> float:
    """Z = K/X - R (the interactive response-time law), median over the runs, at least 0."""
    z = obs["clients"] / obs["throughput"] - obs["response_time"]
    return max(float(np.median(z)), 0.0)


def service(dataset: str | Path) -> pd.DataFrame:
    """Per group: ``S`` (s), ``s_cpu`` and ``s_wait`` (NaN where the data has no processor
    time), ``think_time`` (s) and ``how`` (in words, where each number comes from)."""
    obs = observations(dataset)
    if _imre(dataset):
        from .experiments.imre import models

        out = models.service(dataset)
        runs = datasets.load("runs", dataset)
        out["think_time"] = float(runs["think_s"].iloc[0])
        out["how"] = ("S: one client's mean response time; s_c: processor time of the "
                      "answering thread; Z: the campaign's think time")
        out.index = out.index.astype(str)
        return out
    rows = {}
    for group, part in obs.groupby("group", sort=False):
        lowest = part.loc[part["clients"].idxmin()]
        k = int(lowest["clients"])
        how = ("S: the one-client run's mean response time" if k == 1 else
               f"S: the mean response time at the fewest clients measured (K = {k}), an "
               f"upper bound of the one-client service time")
        rows[group] = {"S": float(lowest["response_time"]), "s_cpu": math.nan,
                       "s_wait": math.nan, "think_time": _estimated_think(part),
                       "how": how + "; no processor time in the data (s_c, s_w unknown); "
                                    "Z estimated as K/X - R (median over the runs)"}
    return pd.DataFrame.from_dict(rows, orient="index")


def _capacity(part: pd.DataFrame) -> np.ndarray:
    """B of each run; unknown: the largest client count (a server that admits everyone)."""
    cap = part["capacity"].astype("Float64")
    return cap.fillna(float(part["clients"].max())).to_numpy(dtype=float).astype(int)


def fits(dataset: str | Path) -> dict[str, dict[str, qfit.Fit]]:
    """Per group, per model: the fit. M/M/1/B/K fits S (and Z, when the data set does not
    give it); the thread-limited model, where the pool is known, fits s_c and s_w."""
    obs, svc = observations(dataset), service(dataset)
    known_z = _imre(dataset)
    out: dict[str, dict[str, qfit.Fit]] = {}
    for group, part in obs.groupby("group", sort=False):
        K = part["clients"].to_numpy(dtype=int)
        if len(set(K)) < 2:
            continue
        R = part["response_time"].to_numpy(dtype=float)
        X = part["throughput"].to_numpy(dtype=float)
        B = _capacity(part)
        z = float(svc.loc[group, "think_time"])
        fixed = {"think_time": z} if known_z else None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            models = {"M/M/1/B/K": qfit.fit_mm1bk(clients=K, capacity=B, response_time=R,
                                                  throughput=X, fixed=fixed)}
            if part["threads"].notna().all():
                models["thread-limited"] = qfit.fit_thread_pool(
                    clients=K, threads=part["threads"].to_numpy(dtype=int), capacity=B,
                    response_time=R, throughput=X, free=("cpu_time", "wait_time"),
                    fixed={"think_time": z})
        for model in models.values():
            model.details["report_warnings"] = [str(w.message) for w in caught]
        out[str(group)] = models
    return out


def parameters(fitted: dict[str, dict[str, qfit.Fit]]) -> pd.DataFrame:
    """The fitted parameters of :func:`fits`, one row each: estimate and interval."""
    frames = []
    for group, models in fitted.items():
        for name, f in models.items():
            table = f.summary()
            table = table[table["fitted"]].drop(columns="fitted")
            frames.append(table.assign(group=group, model=name))
    if not frames:
        return pd.DataFrame(columns=["group", "model", "parameter", "estimate", "low",
                                     "high", "unit"])
    out = pd.concat(frames, ignore_index=True)
    return out[["group", "model", "parameter", "estimate", "low", "high", "unit"]]


def processors_of(dataset: str | Path) -> int | None:
    """The server's processors as the data set records them (the cores it was pinned to),
    or None when it does not say."""
    pinning = datasets.metadata(dataset).get("pinning") or {}
    cores = pinning.get("server_cores")
    return len(cores) if cores else None


def ceilings(dataset: str | Path, *, processors: int | None = None) -> pd.DataFrame:
    """Per group and pool measured: the processors' ceiling p/s_c, the pool's T/S, one
    server's 1/S (the only one known without the processor time), and the highest
    throughput measured (1/s)."""
    obs, svc = observations(dataset), service(dataset)
    p = processors or processors_of(dataset) or 1
    rows = []
    for (group, threads), part in obs.groupby(["group", obs["threads"].fillna(-1)],
                                              sort=False):
        s = svc.loc[group]
        rows.append({
            "group": group, "threads": None if threads < 0 else int(threads),
            "processors (p/s_c)": p / s["s_cpu"] if s["s_cpu"] > 0 else math.nan,
            "pool (T/S)": threads / s["S"] if threads > 0 else math.nan,
            "one server (1/S)": 1 / s["S"],
            "highest measured": float(part["throughput"].max())})
    return pd.DataFrame(rows)


def _knees(part: pd.DataFrame, s: pd.Series, p: int) -> np.ndarray:
    """K* = (S + Z)/D, D the bottleneck's demand: max(s_c/p, S/T) where both are known,
    else S (one server)."""
    S = float(s["S"])
    if s["s_cpu"] > 0 and part["threads"].notna().all():
        demand = np.maximum(float(s["s_cpu"]) / p, S / part["threads"].to_numpy(dtype=float))
    else:
        demand = np.full(len(part), S)
    return (S + float(s["think_time"])) / demand


def _regime(ratio: np.ndarray) -> np.ndarray:
    low, high = KNEE_BAND
    return np.select([ratio < low, ratio <= high], REGIMES[:2], REGIMES[2])


def _interval(values: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    """95 % percentile bootstrap interval of the median (the runs resampled)."""
    picks = rng.integers(0, len(values), (RESAMPLES, len(values)))
    low, high = np.percentile(np.median(values[picks], axis=1), [2.5, 97.5])
    return float(low), float(high)


def predictions(dataset: str | Path, fitted=None) -> pd.DataFrame:
    """Each load run beside each fitted model's values, its regime and relative errors."""
    obs, svc = observations(dataset), service(dataset)
    fitted = fits(dataset) if fitted is None else fitted
    p = processors_of(dataset) or 1
    frames = []
    for group, part in obs.groupby("group", sort=False):
        if group not in fitted:
            continue
        regime = _regime(part["clients"].to_numpy(float) / _knees(part, svc.loc[group], p))
        for name, f in fitted[group].items():
            frames.append(part.assign(
                model=name, regime=regime,
                x_model=f.fitted["throughput"], r_model=f.fitted["response_time"]))
    out = pd.concat(frames, ignore_index=True)
    out["throughput_error"] = out["x_model"] / out["throughput"] - 1
    out["response_time_error"] = out["r_model"] / out["response_time"] - 1
    return out


def misses(dataset: str | Path, fitted=None) -> pd.DataFrame:
    """Per group, model, regime and quantity: runs, the median relative error (fitted /
    measured - 1) with its 95 % bootstrap interval, and the largest in size. A regime the
    data did not reach has no row."""
    table = predictions(dataset, fitted)
    rng = np.random.default_rng(SEED)
    rows = []
    for (group, model, regime), part in table.groupby(["group", "model", "regime"],
                                                      sort=False):
        for quantity in ("throughput", "response_time"):
            errors = part[f"{quantity}_error"].to_numpy(dtype=float)
            low, high = _interval(errors, rng)
            rows.append({"group": group, "model": model, "regime": regime,
                         "quantity": quantity.replace("_", " "), "runs": len(errors),
                         "median error": float(np.median(errors)), "low": low, "high": high,
                         "largest error": float(errors[np.argmax(np.abs(errors))])})
    out = pd.DataFrame(rows)
    out["regime"] = pd.Categorical(out["regime"], REGIMES, ordered=True)
    return out.sort_values(["group", "model", "quantity", "regime"], kind="stable"
                           ).reset_index(drop=True)


def recommend(dataset: str | Path, *, processors: int | None = None) -> pd.DataFrame:
    """Per group: :func:`queuetune.sizing.size` for the largest client count measured with
    the group's think time, from the measured s_c and s_w (without the processor time: all
    of S taken as processor time, which the ``assumption`` column says)."""
    obs, svc = observations(dataset), service(dataset)
    p = processors or processors_of(dataset) or 1
    rows = []
    for group, part in obs.groupby("group", sort=False):
        s = svc.loc[group]
        known = bool(s["s_cpu"] > 0)
        s_c, s_w = ((float(s["s_cpu"]), float(s["s_wait"])) if known
                    else (float(s["S"]), 0.0))
        answer = sizing.size(processors=p, cpu_time=s_c, wait_time=s_w,
                             clients=int(part["clients"].max()),
                             think_time=float(s["think_time"]))
        rows.append({"group": group, "processors": p, "clients": int(part["clients"].max()),
                     "processors needed": answer.processors_needed,
                     "threads (maxThreads)": answer.threads,
                     "queue bound B": answer.capacity,
                     "queue (B - T, maxQueueSize)": answer.capacity - answer.threads,
                     "pool (connections)": answer.connections,
                     "response time at the peak (s)": answer.response_time,
                     "utilization": answer.utilization,
                     "assumption": "" if known else
                     "no processor time in the data: all of S taken as processor time "
                     "(pass the right processors; measure s_c to size threads and pool)"})
    return pd.DataFrame(rows)


# -- output ------------------------------------------------------------------------------


def _title(dataset) -> str:
    return f"Report of the lab data set {datasets.dataset_dir(dataset).name}"


def _sections(dataset, processors, fitted) -> list[tuple[str, str, pd.DataFrame]]:
    svc = service(dataset)
    return [
        ("One-client service time and its split", "; ".join(svc["how"].unique()),
         svc.drop(columns="how")),
        ("Fitted parameters (95 % intervals)", "Units: seconds.", parameters(fitted)),
        ("Ceilings (requests per second)", "", ceilings(dataset, processors=processors)),
        ("Where the models miss", "Relative error of the fitted model, fitted / measured - 1:"
         " median over the runs of each regime, 95 % bootstrap interval.",
         misses(dataset, fitted)),
        ("Recommended settings", "From queuetune.sizing.size at the largest client count "
         "measured.", recommend(dataset, processors=processors)),
    ]


def text(dataset: str | Path, *, processors: int | None = None) -> str:
    """The whole report as plain text."""
    parts = [_title(dataset), ""]
    fitted = fits(dataset)
    with pd.option_context("display.width", 140, "display.max_columns", 20,
                           "display.float_format", "{:.5g}".format):
        for heading, note, table in _sections(dataset, processors, fitted):
            parts += [f"== {heading}", *([note] if note else []), table.to_string(), ""]
    return "\n".join(parts)


def charts(dataset: str | Path, fitted=None) -> list[str]:
    """Inline SVG charts (vl-convert renders the Vega-Lite spec; no script, no request):
    measured throughput and response time against clients, with each fitted model."""
    table = predictions(dataset, fitted)
    label = (table["group"] + (", T = " + table["threads"].astype("string")).fillna("")
             + (", B = " + table["capacity"].astype("string")).fillna(""))
    svgs = []
    for quantity, model_col, title, unit in (("throughput", "x_model", "Throughput", "1/s"),
                                             ("response_time", "r_model", "Response time",
                                              "s")):
        measured = pd.DataFrame({"clients": table["clients"], "value": table[quantity],
                                 "series": label.astype(str), "what": "measured"}
                                ).drop_duplicates()
        model = pd.DataFrame({"clients": table["clients"], "value": table[model_col],
                              "series": (label + " " + table["model"]).astype(str),
                              "what": table["model"]})
        points = alt.Chart(measured).mark_point(filled=True).encode(
            x=alt.X("clients:Q", title="clients K"),
            y=alt.Y("value:Q", title=f"{title} ({unit})"), color=alt.Color("series:N"))
        lines = alt.Chart(model).mark_line(opacity=0.7).encode(
            x="clients:Q", y="value:Q", detail="series:N",
            strokeDash=alt.StrokeDash("what:N", title="fitted"))
        chart = (points + lines).properties(width=420, height=260,
                                            title=f"{title}: measured and fitted")
        svgs.append(vl_convert.vegalite_to_svg(chart.to_dict()))
    return svgs


def html(dataset: str | Path, *, processors: int | None = None) -> str:
    """The report as one HTML page (tables and inline SVG; nothing loaded from elsewhere)."""
    body = []
    fitted = fits(dataset)
    for heading, note, table in _sections(dataset, processors, fitted):
        body.append(f"<h2>{_html.escape(heading)}</h2>")
        if note:
            body.append(f"<p>{_html.escape(note)}</p>")
        body.append(table.to_html(index=False, float_format="{:.5g}".format, na_rep="",
                                  border=0))
    body.append("<h2>Charts</h2>")
    body += [f"<figure>{svg}</figure>" for svg in charts(dataset, fitted)]
    template = resources.files("queuetune.lab").joinpath("report_template.html").read_text(
        encoding="utf-8")
    return string.Template(template).substitute(title=_html.escape(_title(dataset)),
                                                body="\n".join(body))


def write_html(dataset: str | Path, path: str | Path, *, processors: int | None = None
               ) -> Path:
    """Write :func:`html` to ``path``; returns it."""
    path = Path(path)
    path.write_text(html(dataset, processors=processors), encoding="utf-8")
    return path
