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

from .. import fit as qfit
from .. import sizing
from . import datasets
from .regimes import REGIMES, bottleneck_demand, knee_clients, median_interval, regime_of

__all__ = ["observations", "service", "fits", "parameters", "fit_warnings", "ceilings",
           "misses", "predictions", "recommend", "processors_of", "runs_used", "charts",
           "text", "html", "write_html", "REGIMES"]

#: Resamples of the bootstrap intervals, and their seed.
RESAMPLES = 2000
SEED = 20061124


def _imre(dataset) -> bool:
    return datasets.experiment_of(dataset) == "imre"


def observations(dataset: str | Path, *, include_invalid: bool = False) -> pd.DataFrame:
    """The load runs (valid ones, where the runner checked, unless ``include_invalid``):
    ``group``, ``run``, ``clients``, ``threads``, ``capacity`` (nullable), ``throughput``
    (1/s), ``response_time`` (s), ``error_rate``. Servers limited by maxConnections are left
    out (their connections wait in the kernel, which neither model describes)."""
    columns = ["group", "run", "clients", "threads", "capacity", "throughput",
               "response_time", "error_rate"]
    if _imre(dataset):
        from .experiments.imre import models

        runs = models.measured(dataset)
        if "valid" in runs and not include_invalid:
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


def service(dataset: str | Path, *, include_invalid: bool = False) -> pd.DataFrame:
    """Per group: ``S`` (s), ``s_cpu`` and ``s_wait`` (NaN where the data has no processor
    time), ``think_time`` (s) and ``how`` (in words, where each number comes from). (The
    Imre experiment's one-client run is used whether or not the runner found it valid.)"""
    obs = observations(dataset, include_invalid=include_invalid)
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


def _caught(fitter, **arguments) -> qfit.Fit:
    """Run a fitter on ``arguments``; the warnings it issues go into
    ``details["report_warnings"]`` (those its ``warnings`` attribute does not already hold)
    instead of the terminal."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fitter(**arguments)
    extra = [str(w.message) for w in caught]
    result.details["report_warnings"] = [
        w for w in dict.fromkeys(extra) if not any(w in known or known in w
                                                   for known in result.warnings)]
    return result


def fits(dataset: str | Path, *, include_invalid: bool = False
         ) -> dict[str, dict[str, qfit.Fit]]:
    """Per group, per model: the fit. M/M/1/B/K fits S (and Z, when the data set does not
    give it); the thread-limited model, where the pool is known, fits s_c and s_w. A group
    measured at fewer than two client counts is not fitted (it has no entry)."""
    obs = observations(dataset, include_invalid=include_invalid)
    svc = service(dataset, include_invalid=include_invalid)
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
        models = {"M/M/1/B/K": _caught(qfit.fit_mm1bk, clients=K, capacity=B,
                                       response_time=R, throughput=X, fixed=fixed)}
        if part["threads"].notna().all():
            models["thread-limited"] = _caught(
                qfit.fit_thread_pool, clients=K, threads=part["threads"].to_numpy(dtype=int),
                capacity=B, response_time=R, throughput=X, free=("cpu_time", "wait_time"),
                fixed={"think_time": z})
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


def fit_warnings(fitted: dict[str, dict[str, qfit.Fit]]) -> pd.DataFrame:
    """What the fitters warned of (parameters that trade off, estimates at a bound, an
    exact fit, a model worse than a constant), one row per group, model and warning."""
    rows = [{"group": group, "model": name, "warning": w}
            for group, models in fitted.items() for name, f in models.items()
            for w in dict.fromkeys([*f.warnings, *f.details.get("report_warnings", [])])]
    return pd.DataFrame(rows, columns=["group", "model", "warning"])


def processors_of(dataset: str | Path) -> int | None:
    """The server's processors as the data set records them (the cores it was pinned to),
    or None when it does not say."""
    pinning = datasets.metadata(dataset).get("pinning") or {}
    cores = pinning.get("server_cores")
    return len(cores) if cores else None


def ceilings(dataset: str | Path, *, processors: int | None = None,
             include_invalid: bool = False) -> pd.DataFrame:
    """Per group and pool measured: the processors' ceiling p/s_c, the pool's T/S, one
    server's 1/S (the only one known without the processor time), and the highest
    throughput measured (1/s)."""
    obs = observations(dataset, include_invalid=include_invalid)
    svc = service(dataset, include_invalid=include_invalid)
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
        demand = bottleneck_demand(processors=p, cpu_time=float(s["s_cpu"]), service_time=S,
                                   threads=part["threads"].to_numpy(dtype=float))
    else:
        demand = np.full(len(part), S)
    return knee_clients(service_time=S, think_time=float(s["think_time"]), demand=demand)


def _regime(ratio: np.ndarray) -> np.ndarray:
    return regime_of(ratio)


def predictions(dataset: str | Path, fitted=None, *, include_invalid: bool = False
                ) -> pd.DataFrame:
    """Each load run beside each fitted model's values, its regime and relative errors."""
    obs = observations(dataset, include_invalid=include_invalid)
    svc = service(dataset, include_invalid=include_invalid)
    fitted = fits(dataset, include_invalid=include_invalid) if fitted is None else fitted
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
    if not frames:
        return pd.DataFrame(columns=[*obs.columns, "model", "regime", "x_model", "r_model",
                                     "throughput_error", "response_time_error"])
    out = pd.concat(frames, ignore_index=True)
    out["throughput_error"] = out["x_model"] / out["throughput"] - 1
    out["response_time_error"] = out["r_model"] / out["response_time"] - 1
    return out


def misses(dataset: str | Path, fitted=None, *, include_invalid: bool = False
           ) -> pd.DataFrame:
    """Per group, model, regime and quantity: runs, the median relative error (fitted /
    measured - 1) with its 95 % bootstrap interval, and the largest in size. A regime the
    data did not reach has no row."""
    table = predictions(dataset, fitted, include_invalid=include_invalid)
    rng = np.random.default_rng(SEED)
    rows = []
    for (group, model, regime), part in table.groupby(["group", "model", "regime"],
                                                      sort=False):
        for quantity in ("throughput", "response_time"):
            errors = part[f"{quantity}_error"].to_numpy(dtype=float)
            low, high = median_interval(errors, groups=np.arange(len(errors)), rng=rng,
                                        resamples=RESAMPLES)
            rows.append({"group": group, "model": model, "regime": regime,
                         "quantity": quantity.replace("_", " "), "runs": len(errors),
                         "median error": float(np.median(errors)), "low": low, "high": high,
                         "largest error": float(errors[np.argmax(np.abs(errors))])})
    out = pd.DataFrame(rows, columns=["group", "model", "regime", "quantity", "runs",
                                      "median error", "low", "high", "largest error"])
    out["regime"] = pd.Categorical(out["regime"], REGIMES, ordered=True)
    return out.sort_values(["group", "model", "quantity", "regime"], kind="stable"
                           ).reset_index(drop=True)


def recommend(dataset: str | Path, *, processors: int | None = None,
              include_invalid: bool = False) -> pd.DataFrame:
    """Per group: :func:`queuetune.sizing.size` for the largest client count measured with
    the group's think time, from the measured s_c and s_w (without the processor time: all
    of S taken as processor time, which the ``assumption`` column says)."""
    obs = observations(dataset, include_invalid=include_invalid)
    svc = service(dataset, include_invalid=include_invalid)
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


def runs_used(dataset: str | Path, *, include_invalid: bool = False) -> str:
    """One sentence: how many load runs the report uses, and which it leaves out and why."""
    used = observations(dataset, include_invalid=include_invalid)
    runs = datasets.load("runs", dataset)
    load = runs[runs["kind"] == "load"]
    invalid = (load["valid"].eq(False).fillna(False).astype(bool) if "valid" in load
               else pd.Series(False, index=load.index))
    text = f"{len(used)} of the {len(load)} load runs used"
    if invalid.any():
        verb = "used anyway (include_invalid)" if include_invalid else "left out"
        text += (f"; {int(invalid.sum())} flagged invalid by the runner, {verb}: runs "
                 f"{', '.join(map(str, load.loc[invalid, 'run']))} (invalid_reason in "
                 f"runs.csv)")
    return text + "."


#: What a section says when the data cannot give it.
_EMPTY = {
    "Fitted parameters (95 % intervals)": "no group was measured at two client counts or "
                                          "more: nothing to fit",
    "Where the models miss": "nothing fitted, so nothing to compare",
    "What the fits warn of": "no warning",
}


def _sections(dataset, processors, fitted, include_invalid
              ) -> list[tuple[str, str, pd.DataFrame]]:
    svc = service(dataset, include_invalid=include_invalid)
    kw = {"include_invalid": include_invalid}
    return [
        ("One-client service time and its split", "; ".join(svc["how"].unique()),
         svc.drop(columns="how").rename_axis("group").reset_index()),
        ("Fitted parameters (95 % intervals)", "Units: seconds.", parameters(fitted)),
        ("What the fits warn of", "", fit_warnings(fitted)),
        ("Ceilings (requests per second)", "", ceilings(dataset, processors=processors,
                                                         **kw)),
        ("Where the models miss", "Relative error of the fitted model, fitted / measured - 1:"
         " median over the runs of each regime, 95 % bootstrap interval.",
         misses(dataset, fitted, **kw)),
        ("Recommended settings", "From queuetune.sizing.size at the largest client count "
         "measured.", recommend(dataset, processors=processors, **kw)),
    ]


def _body(table: pd.DataFrame, heading: str) -> pd.DataFrame | str:
    if table.empty:
        return "Not shown: " + _EMPTY.get(heading, "no load run to compute it from") + "."
    return table


def text(dataset: str | Path, *, processors: int | None = None,
         include_invalid: bool = False) -> str:
    """The whole report as plain text."""
    parts = [_title(dataset), runs_used(dataset, include_invalid=include_invalid), ""]
    fitted = fits(dataset, include_invalid=include_invalid)
    with pd.option_context("display.width", 140, "display.max_columns", 20,
                           "display.float_format", "{:.5g}".format):
        for heading, note, table in _sections(dataset, processors, fitted, include_invalid):
            body = _body(table, heading)
            parts += [f"== {heading}", *([note] if note else []),
                      body if isinstance(body, str) else body.to_string(), ""]
    return "\n".join(parts)


def charts(dataset: str | Path, fitted=None, *, include_invalid: bool = False) -> list[str]:
    """Inline SVG charts (vl-convert renders the Vega-Lite spec; no script, no request):
    measured throughput and response time against clients, with each fitted model (none
    when nothing was fitted)."""
    import vl_convert  # the lab extra: only the charts need it

    table = predictions(dataset, fitted, include_invalid=include_invalid)
    if table.empty:
        return []
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
                              "series": label.astype(str),
                              "line": (label + " " + table["model"]).astype(str),
                              "what": table["model"]})
        points = alt.Chart(measured).mark_point(filled=True).encode(
            x=alt.X("clients:Q", title="clients K"),
            y=alt.Y("value:Q", title=f"{title} ({unit})"), color=alt.Color("series:N"))
        lines = alt.Chart(model).mark_line(opacity=0.7).encode(
            x="clients:Q", y="value:Q", detail="line:N", color="series:N",
            strokeDash=alt.StrokeDash("what:N", title="fitted"))
        chart = (points + lines).properties(width=420, height=260,
                                            title=f"{title}: measured and fitted")
        svgs.append(vl_convert.vegalite_to_svg(chart.to_dict()))
    return svgs


def html(dataset: str | Path, *, processors: int | None = None,
         include_invalid: bool = False) -> str:
    """The report as one HTML page (tables and inline SVG; nothing loaded from elsewhere)."""
    fitted = fits(dataset, include_invalid=include_invalid)
    body = [f"<p>{_html.escape(runs_used(dataset, include_invalid=include_invalid))}</p>"]
    for heading, note, table in _sections(dataset, processors, fitted, include_invalid):
        body.append(f"<h2>{_html.escape(heading)}</h2>")
        if note:
            body.append(f"<p>{_html.escape(note)}</p>")
        shown = _body(table, heading)
        body.append(f"<p>{_html.escape(shown)}</p>" if isinstance(shown, str) else
                    shown.to_html(index=False, float_format="{:.5g}".format, na_rep="",
                                  border=0))
    svgs = charts(dataset, fitted, include_invalid=include_invalid)
    if svgs:
        body.append("<h2>Charts</h2>")
        body += [f"<figure>{svg}</figure>" for svg in svgs]
    template = resources.files("queuetune.lab").joinpath("report_template.html").read_text(
        encoding="utf-8")
    return string.Template(template).substitute(title=_html.escape(_title(dataset)),
                                                body="\n".join(body))


def write_html(dataset: str | Path, path: str | Path, *, processors: int | None = None,
               include_invalid: bool = False) -> Path:
    """Write :func:`html` to ``path``; returns it."""
    path = Path(path)
    path.write_text(html(dataset, processors=processors, include_invalid=include_invalid),
                    encoding="utf-8")
    return path
