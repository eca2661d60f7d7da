"""Claims audit of Nashed (2023), "Tune Domino HTTP connections".

DK-C1 is the advice (the default of 5 requests per persistent connection is too low; raise it to
at least 40; the author's servers use 100), DK-C2 the internal consistency of the two tables:
the load (10 threads x 1000 requests of 5887 bytes, "56 MB") and the four tests (average
request time, total run time). Everything is read through :func:`queuetune.data.load`; the
helpers below return the tables behind each verdict so that the chapter can show them.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ... import data, stated
from ...audit import UNTESTED_MARK, check
from . import amortization

__all__ = [
    "BYTES_PER_MB",
    "BYTES_PER_MIB",
    "DOC",
    "PRINTED_S",
    "PRINTED_MS",
    "consistency",
    "load_setting",
    "measured",
    "results",
    "setting_gains",
    "setup_cost_fit",
    "transfer_readings",
]

DOC = "domino-keepalive"
BYTES_PER_MB = 10**6  # decimal megabyte
BYTES_PER_MIB = 2**20  # binary megabyte (mebibyte)
# The post prints average request times in whole milliseconds and run times in whole seconds:
# each printed value stands for anything within half a unit of it.
PRINTED_MS = 0.5
PRINTED_S = 0.5


def load_setting(name: str) -> int:
    """One value of the load table (DK-T1) by its printed label, e.g. ``"Threads"``."""
    table = data.load(DOC, "load_settings").set_index("setting")
    if name not in table.index:
        raise ValueError(f"name must be one of {table.index.tolist()}, got {name!r}")
    return int(table.loc[name, "value"])


def results() -> pd.DataFrame:
    """The four tests (DK-T2) as printed, TLS included (its setting is missing)."""
    return data.load(DOC, "persistent_connection_results")


def measured() -> pd.DataFrame:
    """The tests whose requests-per-connection setting is stated (the plain-HTTP tests)."""
    frame = results()
    return frame[frame["requests_per_connection"].notna()].reset_index(drop=True)


def setup_cost_fit(column: str = "average_request_time_ms",
                   confidence: float = 0.95) -> amortization.SetupCostFit:
    """The amortization model t(n) = t_request + t_setup / n fitted to the stated settings.

    ``column`` is ``"average_request_time_ms"`` (the client's measured request time) or
    ``"run_time_per_request_ms"`` (total run time / requests per thread, in ms: the elapsed
    time per request of one client thread).
    """
    frame = measured()
    if column == "run_time_per_request_ms":
        values = frame["total_run_time_s"].astype(float) * 1000 / load_setting(
            "Requests per thread")
    elif column == "average_request_time_ms":
        values = frame[column].astype(float)
    else:
        raise ValueError("column must be 'average_request_time_ms' or "
                         f"'run_time_per_request_ms', got {column!r}")
    return amortization.fit_setup_cost(frame["requests_per_connection"], values,
                                       confidence=confidence)


def transfer_readings() -> pd.DataFrame:
    """Threads x requests x bytes per request, read as decimal MB and as binary MiB.

    Columns: ``reading``, ``bytes_per_unit``, ``computed`` (in that unit), ``printed`` (the
    post's "56") and ``matches`` (the computed value rounds to the printed one).
    """
    total = load_setting("Threads") * load_setting("Requests per thread") * load_setting(
        "Data/Req")
    printed = load_setting("Total Transfer")
    rows = []
    for reading, unit in (("MB = 10^6 bytes", BYTES_PER_MB), ("MiB = 2^20 bytes", BYTES_PER_MIB)):
        computed = total / unit
        rows.append({"reading": reading, "bytes_per_unit": unit, "total_bytes": total,
                     "computed": computed, "printed": printed,
                     "matches": round(computed) == printed})
    return pd.DataFrame(rows)


def consistency() -> pd.DataFrame:
    """Little's law and the run-time bound for each test (DK-C2).

    The client is a closed loop: each of ``Threads`` threads sends ``Requests per thread``
    requests one after another. Per test: throughput X = all requests / run time (requests/s),
    requests in flight N = X * R (R the average request time), the run-time bound
    ``requests per thread x R`` (s) and the client time outside the measured requests per
    request and thread, ``run time / requests per thread - R`` (ms). ``n_low`` and ``n_high``
    bound N over the rounding of the printed values (R +/- 0.5 ms, run time +/- 0.5 s).
    """
    threads = load_setting("Threads")
    per_thread = load_setting("Requests per thread")
    frame = results()
    r_s = frame["average_request_time_ms"].astype(float) / 1000
    run = frame["total_run_time_s"].astype(float)
    requests = threads * per_thread
    out = pd.DataFrame({
        "test": frame["test"].astype(str),
        "throughput_per_s": requests / run,
        "in_flight": requests / run * r_s,
        "n_low": requests / (run + PRINTED_S) * (r_s - PRINTED_MS / 1000),
        "n_high": requests / (run - PRINTED_S) * (r_s + PRINTED_MS / 1000),
        "threads": threads,
        "busy_share": requests / run * r_s / threads,
        "run_time_s": run,
        "bound_s": per_thread * r_s,
        "outside_ms_per_request": (run / per_thread - r_s) * 1000,
    })
    out["within_threads"] = out["n_low"] <= threads
    out["run_time_above_bound"] = out["run_time_s"] + PRINTED_S >= per_thread * (
        r_s - PRINTED_MS / 1000)
    return out


def setting_gains() -> pd.DataFrame:
    """Each stated setting against the lowest one: average request time, run time, throughput.

    Columns: ``requests_per_connection``, ``average_request_time_ms``, ``total_run_time_s``,
    ``time_cut_pct`` and ``run_time_cut_pct`` (reduction from the lowest setting, %),
    ``throughput_ratio`` (run time at the lowest setting / run time) and ``share_of_gain_pct``
    (this setting's cut in request time as a share of the largest setting's cut).
    """
    frame = measured().sort_values("requests_per_connection").reset_index(drop=True)
    t = frame["average_request_time_ms"].astype(float)
    run = frame["total_run_time_s"].astype(float)
    full = t.iloc[0] - t.iloc[-1]
    return pd.DataFrame({
        "requests_per_connection": frame["requests_per_connection"].astype(int),
        "average_request_time_ms": t,
        "total_run_time_s": run,
        "time_cut_pct": (t.iloc[0] - t) / t.iloc[0] * 100,
        "run_time_cut_pct": (run.iloc[0] - run) / run.iloc[0] * 100,
        "throughput_ratio": run.iloc[0] / run,
        "share_of_gain_pct": (t.iloc[0] - t) / full * 100 if full else float("nan"),
    })


@check("DK-C1", document=DOC,
       statement="The default of 5 requests per persistent connection is too low; raise it to "
                 "at least 40 (the author's servers use 100)")
def _raise_the_limit() -> tuple[str, str, dict[str, Any]]:
    default = stated.count(DOC, "default_requests_per_connection")
    documented = stated.count(DOC, "documented_default_requests_per_connection")
    recommended = stated.count(DOC, "recommended_min_requests_per_connection")
    used = int(data.load(DOC, "server_settings").set_index("setting").loc[
        "Maximum requests per persistent connection", "value"])
    gains = setting_gains().set_index("requests_per_connection")
    settings = gains.index.tolist()
    falls = bool(gains["average_request_time_ms"].is_monotonic_decreasing
                 and gains["total_run_time_s"].is_monotonic_decreasing)
    fit = setup_cost_fit()
    at_rec = fit.predict(recommended)
    above = [s for s in settings if s >= recommended]
    below = [s for s in settings if s < recommended]
    bracket = (gains.loc[min(above), "average_request_time_ms"] if above else float("nan"),
               gains.loc[max(below), "average_request_time_ms"] if below else float("nan"))
    if default not in settings or used not in settings or not falls:
        verdict = "contradicted" if default in settings and not falls else "not testable"
    elif recommended in settings:
        verdict = "supported"
    else:
        verdict = "partly"  # raising the limit helps; the threshold itself was never measured
    second = settings[1] if len(settings) > 2 else used
    low, high = bracket
    if not above or not below:
        where = "outside the measured range"
    elif low <= at_rec <= high:
        where = f"inside the {low:.0f}-{high:.0f} ms the measured trend allows"
    else:
        side = "below" if at_rec < low else "above"
        where = (f"{side} the {low:.0f}-{high:.0f} ms the measured trend allows (between "
                 f"{max(below)} and {min(above)} requests per connection)")
    row = gains.loc[used]
    evidence = (
        (f"{UNTESTED_MARK}: the default or the setting used was not "
         "measured. " if verdict == "not testable" else "")
        + f"From {default} to {used} requests per connection the average request time fell "
        f"{row['time_cut_pct']:.0f} % ({gains.loc[default, 'average_request_time_ms']:.0f} to "
        f"{row['average_request_time_ms']:.0f} ms) and the run time {row['run_time_cut_pct']:.0f}"
        f" % ({row['throughput_ratio']:.2f} times the throughput); {second} already gave "
        f"{gains.loc[second, 'share_of_gain_pct']:.0f} % of that gain. {recommended} was never "
        f"measured: the fitted t_request + t_setup/n predicts {at_rec:.0f} ms there (a model "
        f"prediction), {where}."
    )
    values = {"default": default, "documented_default": documented, "recommended": recommended,
              "used": used, "settings_measured": settings, "times_fall": falls,
              "time_cut_pct": float(gains.loc[used, "time_cut_pct"]),
              "run_time_cut_pct": float(gains.loc[used, "run_time_cut_pct"]),
              "throughput_ratio": float(gains.loc[used, "throughput_ratio"]),
              "share_of_gain_pct_at_second": float(gains.loc[second, "share_of_gain_pct"]),
              "predicted_ms_at_recommended": float(at_rec),
              "bracket_ms_at_recommended": tuple(float(b) for b in bracket)}
    return verdict, evidence, values


@check("DK-C2", document=DOC,
       statement="Internal consistency: 10 x 1000 x 5887 bytes against 56 MB; Little's law "
                 "N = X R against the 10 client threads; run time >= 1000 x average request "
                 "time")
def _consistent() -> tuple[str, str, dict[str, Any]]:
    readings = transfer_readings()
    matching = readings.loc[readings["matches"], "reading"].tolist()
    table = consistency()
    little = bool(table["within_threads"].all())
    bound = bool(table["run_time_above_bound"].all())
    verdict = "supported" if matching and little and bound else "contradicted"
    mib = readings.set_index("bytes_per_unit").loc[BYTES_PER_MIB]
    mb = readings.set_index("bytes_per_unit").loc[BYTES_PER_MB]
    threads = int(table["threads"].iloc[0])
    slack = table["run_time_s"] - table["bound_s"]
    evidence = (
        f"{load_setting('Threads')} x {load_setting('Requests per thread')} x "
        f"{load_setting('Data/Req')} bytes = {mib['total_bytes'] / 1e6:.2f} x 10^6 bytes = "
        f"{mib['computed']:.1f} MiB ({mb['computed']:.1f} MB), so the printed "
        f"\"{mib['printed']} MB\" "
        + (f"matches {' and '.join(r.split(' =')[0] for r in matching)}" if matching
           else "matches neither reading")
        + f"; Little's law gives N = X R = {table['in_flight'].min():.1f} to "
        f"{table['in_flight'].max():.1f} requests in flight for {threads} client threads"
        f"{'' if little else ' (more than the threads: impossible)'}; every run time exceeds "
        f"requests per thread x average time by {slack.min():.0f} to {slack.max():.0f} s"
        f"{'' if bound else ' except where it falls short'}."
    )
    values = {"matching_readings": matching, "mib": float(mib["computed"]),
              "mb": float(mb["computed"]),
              "in_flight": dict(zip(table["test"], table["in_flight"].round(3), strict=True)),
              "outside_ms_per_request": dict(zip(table["test"],
                                                 table["outside_ms_per_request"].round(3),
                                                 strict=True)),
              "littles_law_within_threads": little, "run_time_above_bound": bound}
    return verdict, evidence, values
