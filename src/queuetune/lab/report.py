"""A lab data set turned into parameters and settings: ``python -m queuetune.lab report``.

Every function takes a data set (a name under ``data/lab`` or a folder) and works on any of
them, whatever its experiment: the experiment says how its runs map to the models'
quantities (its ``model_quantities``, :mod:`queuetune.lab.quantities`; an imported Locust or
JMeter file gets the importer's), and the report says plainly what a design cannot give
(:func:`cannot`). The groups of a data set are the experiment's (the Imre splits, today's
configurations, the keep-alive configurations, ``"all"`` for an imported file).

* :func:`observations` - the load runs: clients K or arrival rate, threads T, capacity B,
  processors, pool (where known), throughput X, mean response time R, share failed;
* :func:`service` - per group, the one-client service time S and its split into processor
  time s_c and the rest s_w (where the data has them), and the think time Z;
* :func:`fits` / :func:`parameters` - M/M/1/B/K, and the thread-limited model where the
  pool is known, fitted to closed loops with :mod:`queuetune.fit` (intervals by profile
  likelihood);
* :func:`ceilings` - the throughput bounds of the resources known: processors p/s_c,
  threads T/S, the pool C/s_w, and the least of them (the bottleneck);
* :func:`misses` - the fitted models' relative errors by regime (below, at, past the knee),
  the median with a 95 % bootstrap interval over the runs;
* :func:`recommend` - the settings of :func:`queuetune.sizing.size` for the largest measured
  load, from the measured s_c and s_w; a group without a measured processor time is not
  sized (:func:`not_advised` says why);
* :func:`text` and :func:`html` - all of it printed, or as one HTML file with inline SVG
  charts (no request to another host), what the data set cannot give first.
"""

from __future__ import annotations

import functools
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
from . import datasets, importers, quantities
from .regimes import REGIMES, bottleneck_demand, knee_clients, median_interval, regime_of

__all__ = ["observations", "service", "cannot", "fits", "parameters", "fit_warnings",
           "ceilings", "misses", "predictions", "recommend", "not_advised", "processors_of",
           "runs_used", "charts", "text", "html", "check_html_path", "write_html", "REGIMES"]

#: Resamples of the bootstrap intervals, and their seed.
RESAMPLES = 2000
SEED = 20061124


@functools.lru_cache(maxsize=8)
def _cached(folder: str, stamp: tuple) -> quantities.ModelQuantities | None:
    if datasets.experiment_of(folder) == importers.EXPERIMENT:
        return importers.model_quantities(folder)
    return quantities.of(folder)


def _mapping(dataset) -> quantities.ModelQuantities | None:
    """The data set's model quantities (read once per version of its files)."""
    folder = datasets.dataset_dir(dataset).resolve()
    stamp = tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size)
                  for p in sorted(folder.iterdir()) if p.is_file())
    return _cached(str(folder), stamp)


def _no_mapping(dataset) -> str:
    return (f"the experiment {datasets.experiment_of(dataset)!r} does not say how its runs "
            f"map to the models' quantities (no model_quantities in its package)")


_RUNS = pd.DataFrame({c: pd.Series(dtype=float) for c in quantities.RUN_COLUMNS})


def observations(dataset: str | Path, *, include_invalid: bool = False) -> pd.DataFrame:
    """The load runs (valid ones, where the runner checked, unless ``include_invalid``) with
    an answer, in the columns of :data:`queuetune.lab.quantities.RUN_COLUMNS`."""
    q = _mapping(dataset)
    if q is None:
        return _RUNS.copy()
    runs = q.runs.copy()
    if not include_invalid:
        runs = runs[runs["valid"].astype("boolean").fillna(True).astype(bool)]
    runs = runs[runs["throughput"] > 0]
    return runs[list(quantities.RUN_COLUMNS)].reset_index(drop=True)


def service(dataset: str | Path, *, include_invalid: bool = False) -> pd.DataFrame:
    """Per group: ``S`` (s), ``s_cpu`` and ``s_wait`` (NaN where the data does not give
    them), ``think_time`` (s) and ``how`` (in words, where each number comes from). (A
    one-client run is used whether or not the runner found it valid.)"""
    q = _mapping(dataset)
    if q is None:
        return pd.DataFrame(columns=list(quantities.SERVICE_COLUMNS))
    out = q.service[list(quantities.SERVICE_COLUMNS)].copy()
    out.index = out.index.astype(str)
    return out


def cannot(dataset: str | Path, *, processors: int | None = None) -> list[str]:
    """What the data set's design cannot give the report, in words (the experiment's own
    list, and what the report finds missing: processors not recorded, no group with two
    client counts)."""
    q = _mapping(dataset)
    if q is None:
        return [_no_mapping(dataset) + ": nothing computed"]
    out = list(q.cannot)
    if processors is None and q.runs["processors"].isna().any() and not any(
            "processors" in c for c in out):
        out.append("the server's processors: not recorded (taken as 1; pass --processors)")
    return out


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


def _one(values: pd.Series) -> int | None:
    """The one value of a column within a group (None when unknown or not one)."""
    known = values.dropna().unique()
    return int(known[0]) if len(known) == 1 and values.notna().all() else None


def _processors(part: pd.DataFrame, override: int | None) -> int:
    return override or _one(part["processors"]) or 1


def fits(dataset: str | Path, *, include_invalid: bool = False, processors: int | None = None
         ) -> dict[str, dict[str, qfit.Fit]]:
    """Per group, per model: the fit. M/M/1/B/K fits S (and Z, when the data set does not
    give it); the thread-limited model, where the threads are known, fits s_c and s_w with
    the group's processors and pool. Only closed loops are fitted, and a group measured at
    fewer than two client counts is not (it has no entry)."""
    obs = observations(dataset, include_invalid=include_invalid)
    svc = service(dataset, include_invalid=include_invalid)
    q = _mapping(dataset)
    known_z = bool(q and q.think_time_known)
    out: dict[str, dict[str, qfit.Fit]] = {}
    for group, part in obs.groupby("group", sort=False):
        part = part[part["clients"].notna() & part["arrival_rate"].isna()]
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
        if part["threads"].notna().all() and math.isfinite(z):
            models["thread-limited"] = _caught(
                qfit.fit_thread_pool, clients=K, threads=part["threads"].to_numpy(dtype=int),
                capacity=B, response_time=R, throughput=X, free=("cpu_time", "wait_time"),
                fixed={"think_time": z}, processors=_processors(part, processors),
                connections=_one(part["connections"]))
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
    """The server's processors as the data set records them (the same for every run), or
    None when it does not say or they vary (then each group has its own)."""
    runs = observations(dataset, include_invalid=True)
    return _one(runs["processors"]) if len(runs) else None


def _positive(value) -> float:
    return float(value) if pd.notna(value) and float(value) > 0 else math.nan


_CEILINGS = ["group", "threads", "connections", "processors (p/s_c)", "threads (T/S)",
             "pool (C/s_w)", "bottleneck", "highest measured"]


def ceilings(dataset: str | Path, *, processors: int | None = None,
             include_invalid: bool = False) -> pd.DataFrame:
    """Per group, thread and pool size measured: the throughput ceiling of each resource
    whose size and demand are known, the processors' p/s_c, the threads' T/S and the pool's
    C/s_w, the least of them (``bottleneck``: the server's capacity, NaN when no resource is
    known; nothing is assumed of a resource the data does not give, so that no ceiling is
    below what a server that runs requests side by side can do), and the highest throughput
    measured (1/s)."""
    obs = observations(dataset, include_invalid=include_invalid)
    svc = service(dataset, include_invalid=include_invalid)
    rows = []
    keys = ["group", obs["threads"].astype("Float64").fillna(-1),
            obs["connections"].astype("Float64").fillna(-1)]
    for (group, threads, pool), part in obs.groupby(keys, sort=False):
        s = svc.loc[group]
        p = _processors(part, processors)
        bounds = {"processors (p/s_c)": p / _positive(s["s_cpu"]),
                  "threads (T/S)": threads / _positive(s["S"]) if threads > 0 else math.nan,
                  "pool (C/s_w)": pool / _positive(s["s_wait"]) if pool > 0 else math.nan}
        known = [b for b in bounds.values() if math.isfinite(b)]
        rows.append({"group": group, "threads": None if threads < 0 else int(threads),
                     "connections": None if pool < 0 else int(pool), **bounds,
                     "bottleneck": min(known) if known else math.nan,
                     "highest measured": float(part["throughput"].max())})
    return pd.DataFrame(rows, columns=_CEILINGS)


def _knees(part: pd.DataFrame, s: pd.Series, p: int, fitted: dict[str, qfit.Fit]
           ) -> np.ndarray:
    """K* = (S + Z)/D, D the bottleneck's demand: the largest of s_c/p, S/T and s_w/C over
    the resources known; where none is (an imported file), the demand the data show, the
    service time of the fitted M/M/1/B/K (its capacity 1/S is what the server carried)."""
    S, z = float(s["S"]), float(s["think_time"])
    threads = part["threads"].astype("Float64").fillna(np.nan).to_numpy(dtype=float)
    pool = part["connections"].astype("Float64").fillna(np.nan).to_numpy(dtype=float)
    if s["s_cpu"] > 0 and math.isfinite(S):
        demand = bottleneck_demand(processors=p, cpu_time=float(s["s_cpu"]), service_time=S,
                                   threads=threads, connections=pool,
                                   wait_time=float(s["s_wait"]))
    elif math.isfinite(S) and np.isfinite(threads).all():
        demand = S / threads
    else:
        one = fitted["M/M/1/B/K"].estimates
        demand = np.full(len(part), float(one["service_time"]))
        S = S if math.isfinite(S) else float(one["service_time"])
        z = float(one["think_time"])
    return knee_clients(service_time=S, think_time=z, demand=demand)


def predictions(dataset: str | Path, fitted=None, *, include_invalid: bool = False,
                processors: int | None = None) -> pd.DataFrame:
    """Each fitted load run beside each fitted model's values, its regime and relative
    errors."""
    obs = observations(dataset, include_invalid=include_invalid)
    svc = service(dataset, include_invalid=include_invalid)
    fitted = (fits(dataset, include_invalid=include_invalid, processors=processors)
              if fitted is None else fitted)
    frames = []
    for group, part in obs.groupby("group", sort=False):
        if group not in fitted:
            continue
        part = part[part["clients"].notna() & part["arrival_rate"].isna()]
        knees = _knees(part, svc.loc[group], _processors(part, processors), fitted[group])
        regime = regime_of(part["clients"].to_numpy(float) / knees)
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


def misses(dataset: str | Path, fitted=None, *, include_invalid: bool = False,
           processors: int | None = None) -> pd.DataFrame:
    """Per group, model, regime and quantity: runs, the median relative error (fitted /
    measured - 1) with its 95 % bootstrap interval
    (:func:`queuetune.lab.regimes.median_interval`, resampling runs), and the largest in
    size. A regime the data did not reach has no row."""
    table = predictions(dataset, fitted, include_invalid=include_invalid,
                        processors=processors)
    rng = np.random.default_rng(SEED)
    rows = []
    for (group, model, regime), part in table.groupby(["group", "model", "regime"],
                                                      sort=False):
        for quantity in ("throughput", "response_time"):
            errors = part[f"{quantity}_error"].to_numpy(dtype=float)
            low, high = median_interval(errors, groups=part["run"].to_numpy(), rng=rng,
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


def _peak(part: pd.DataFrame, s: pd.Series) -> dict | None:
    """The largest load measured, as :func:`queuetune.sizing.size` takes it."""
    closed = part[part["clients"].notna() & part["arrival_rate"].isna()]
    if len(closed) and math.isfinite(float(s["think_time"])):
        return {"clients": int(closed["clients"].max()), "think_time": float(s["think_time"])}
    rates = part["arrival_rate"].dropna()
    return {"arrival_rate": float(rates.max())} if len(rates) else None


def _why_not(s: pd.Series) -> str | None:
    """Why a group's settings cannot be advised (None: they can)."""
    if not _positive(s["s_cpu"]) > 0:
        return ("no processor time per request in the data: the service time cannot be "
                "split into processor time and waiting, and sizing from a time that is not "
                "processor time would advise processors and threads for work the server may "
                "not do")
    if not (math.isfinite(float(s["S"])) and float(s["s_wait"]) >= 0):
        return "no one-client service time in the data: the waiting part s_w is unknown"
    return None


def not_advised(dataset: str | Path, *, include_invalid: bool = False) -> dict[str, str]:
    """The groups :func:`recommend` does not size, and why."""
    obs = observations(dataset, include_invalid=include_invalid)
    svc = service(dataset, include_invalid=include_invalid)
    out = {}
    for group in obs["group"].unique():
        why = _why_not(svc.loc[group])
        if why is not None:
            out[str(group)] = why
    return out


def recommend(dataset: str | Path, *, processors: int | None = None,
              include_invalid: bool = False) -> pd.DataFrame:
    """Per group whose processor time and one-client service time were measured:
    :func:`queuetune.sizing.size` for the largest load measured (clients with the group's
    think time, or arrival rate) on the group's processors, from the measured s_c and s_w,
    with the group's pool where it had one. The other groups are not sized
    (:func:`not_advised`)."""
    obs = observations(dataset, include_invalid=include_invalid)
    svc = service(dataset, include_invalid=include_invalid)
    rows = []
    for group, part in obs.groupby("group", sort=False):
        s = svc.loc[group]
        peak = _peak(part, s)
        if _why_not(s) is not None or peak is None:
            continue
        p = _processors(part, processors)
        answer = sizing.size(processors=p, cpu_time=float(s["s_cpu"]),
                             wait_time=float(s["s_wait"]),
                             connections=_one(part["connections"]), **peak)
        load = (f"{peak['clients']} clients" if "clients" in peak else
                f"{peak['arrival_rate']:.4g}/s")
        rows.append({"group": group, "processors": p, "peak": load,
                     "processors needed": answer.processors_needed,
                     "threads (maxThreads)": answer.threads,
                     "queue bound B": answer.capacity,
                     "queue (B - T, maxQueueSize)": answer.capacity - answer.threads,
                     "pool (connections)": answer.connections,
                     "response time at the peak (s)": answer.response_time,
                     "utilization": answer.utilization})
    return pd.DataFrame(rows, columns=["group", "processors", "peak", "processors needed",
                                       "threads (maxThreads)", "queue bound B",
                                       "queue (B - T, maxQueueSize)", "pool (connections)",
                                       "response time at the peak (s)", "utilization"])


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
    q = _mapping(dataset)
    for reason in (q.left_out if q is not None else ()):
        text += f"; left out: {reason}"
    return text + "."


#: What a section says when the data cannot give it.
_EMPTY = {
    "Fitted parameters (95 % intervals)": "no group has a closed loop measured at two client "
                                          "counts or more: nothing to fit",
    "Where the models miss": "nothing fitted, so nothing to compare",
    "What the fits warn of": "no warning",
    "Recommended settings": "no group could be sized (see the note above)",
}

#: The heading of the section of what the data set cannot give (first in the report).
CANNOT_HEADING = "What this data set cannot give"


def _sizing_note(dataset, include_invalid) -> str:
    note = ("From queuetune.sizing.size at the largest load measured, with the measured "
            "processor time s_c and waiting s_w.")
    reasons: dict[str, list[str]] = {}
    for group, why in not_advised(dataset, include_invalid=include_invalid).items():
        reasons.setdefault(why, []).append(group)
    for why, groups in reasons.items():
        note += f" Not sized ({'; '.join(groups)}): {why}."
    return note


def _sections(dataset, processors, fitted, include_invalid
              ) -> list[tuple[str, str, pd.DataFrame]]:
    svc = service(dataset, include_invalid=include_invalid)
    kw = {"include_invalid": include_invalid}
    return [
        ("One-client service time and its split", "; ".join(svc["how"].unique()),
         svc.drop(columns="how").rename_axis("group").reset_index()),
        ("Fitted parameters (95 % intervals)", "Units: seconds.", parameters(fitted)),
        ("What the fits warn of", "", fit_warnings(fitted)),
        ("Ceilings (requests per second)", "The ceiling of each resource whose size and "
         "demand the data give; the bottleneck is the least of them (empty: no resource "
         "known, no ceiling claimed).", ceilings(dataset, processors=processors, **kw)),
        ("Where the models miss", "Relative error of the fitted model, fitted / measured - 1:"
         " median over the runs of each regime, 95 % bootstrap interval.",
         misses(dataset, fitted, processors=processors, **kw)),
        ("Recommended settings", _sizing_note(dataset, include_invalid),
         recommend(dataset, processors=processors, **kw)),
    ]


def _body(table: pd.DataFrame, heading: str) -> pd.DataFrame | str:
    if table.empty:
        return "Not shown: " + _EMPTY.get(heading, "no load run to compute it from") + "."
    return table


def text(dataset: str | Path, *, processors: int | None = None,
         include_invalid: bool = False, fitted=None) -> str:
    """The whole report as plain text, what the data set cannot give first (``fitted``:
    :func:`fits` of the same arguments, when already computed)."""
    parts = [_title(dataset), runs_used(dataset, include_invalid=include_invalid), ""]
    missing = cannot(dataset, processors=processors)
    if missing:
        parts += [f"== {CANNOT_HEADING}", *(f"!! {m}" for m in missing), ""]
    if fitted is None:
        fitted = fits(dataset, include_invalid=include_invalid, processors=processors)
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
    table = table.assign(group=table["group"].astype(str))
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
    fitted = fits(dataset, include_invalid=include_invalid, processors=processors)
    body = [f"<p>{_html.escape(runs_used(dataset, include_invalid=include_invalid))}</p>"]
    missing = cannot(dataset, processors=processors)
    if missing:
        body.append(f'<div class="caveat" role="note"><h2>{_html.escape(CANNOT_HEADING)}'
                    f'</h2><ul>' + "".join(f"<li>{_html.escape(m)}</li>" for m in missing)
                    + "</ul></div>")
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


def check_html_path(path: str | Path) -> Path:
    """``path`` if an HTML report can be written there (``ValueError`` naming it otherwise:
    a folder, or a file in a folder that does not exist)."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"html {str(path)!r} is a folder; give the path of the file to write")
    if not path.parent.is_dir():
        raise ValueError(f"html {str(path)!r}: its folder {str(path.parent)!r} does not exist")
    return path


def write_html(dataset: str | Path, path: str | Path, *, processors: int | None = None,
               include_invalid: bool = False) -> Path:
    """Write :func:`html` to ``path``; returns it. A folder that does not exist, a path that
    is a folder or a file that cannot be written is refused (``ValueError`` naming it)
    before the report is computed; nothing half-written is left."""
    path = check_html_path(path)
    page = html(dataset, processors=processors, include_invalid=include_invalid)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(page, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ValueError(f"html {str(path)!r} cannot be written: {exc.strerror}") from None
    return path
