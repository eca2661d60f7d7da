"""What the lab's chapter shows: the re-measured figures, the models' curves beside them, and
the paper's claims judged against the new measurements.

Two measured means *differ* when they are further apart than twice the standard error of
their difference (batch means, :func:`queuetune.lab.analysis.summarize`) **and** by at least
:data:`MIN_RELATIVE` of the smaller one: a difference a reader tuning a server would notice,
that the run's own noise does not explain. The verdict words are the book's, defined once in
:data:`queuetune.audit.DEFINITIONS`, with these measurements in the place of the source's
numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from ....audit import UNTESTED_MARK
from ....chapters.practical import ceilings
from ....models import mm1bk, thread_pool
from ...regimes import REGIMES, bottleneck_demand, errors_by_regime, knee_clients, regime_of
from . import analysis, models

__all__ = ["REGIMES", "BOOK_DATASET", "accuracy_headline", "accuracy_by_regime_of",
           "accuracy_by_regime", "configurations", "invalid_runs", "knee",
           "regimes", "validity_table", "MIN_RELATIVE", "config_label", "split_label",
           "remeasured", "model_curves",
           "differs", "claims", "processor_demand", "accuracy_by_demand", "at_clients",
           "prediction_errors",
           "pool_bounds", "pool_effect", "repeatability"]

#: The data set the lab chapter and README read (any Imre data set under data/lab/ works in
#: its place: every function takes the data set as an argument).
BOOK_DATASET = "imre-tomcat-2026-11-27-2"

#: The smallest relative difference between two measured means that counts as a difference.
MIN_RELATIVE = 0.10


def config_label(threads: int, queue: int, max_connections: int | None = None) -> str:
    """``"30 threads, queue 50"``, with ``", maxConnections 50"`` when that setting admits
    fewer requests than threads + queue."""
    label = f"{threads} threads, queue {queue}"
    if max_connections is not None and max_connections < threads + queue:
        label += f", maxConnections {max_connections}"
    return label


def split_label(cpu_ms: float, sleep_ms: float) -> str:
    """``"14 ms processor"`` or ``"14 ms processor + 700 ms wait"``."""
    label = f"{cpu_ms:g} ms processor"
    return label + (f" + {sleep_ms:g} ms wait" if sleep_ms else "")


def _labelled(table: pd.DataFrame) -> pd.DataFrame:
    out = table.copy()
    out["configuration"] = [config_label(t, q, c) for t, q, c in zip(
        out["threads"], out["queue"], out["max_connections"], strict=True)]
    out["work"] = [split_label(c, s) for c, s in zip(out["cpu_ms"], out["sleep_ms"],
                                                     strict=True)]
    return out


def remeasured(dataset: str | Path) -> pd.DataFrame:
    """The load runs, labelled, with the paper's three metrics and their standard errors."""
    table = _labelled(models.measured(dataset))
    order = sorted(table["configuration"].unique(),
                   key=lambda c: tuple(int(w.strip(",")) for w in c.split()
                                     if w.strip(",").isdigit()))
    table["configuration"] = pd.Categorical(table["configuration"], order, ordered=True)
    return table.sort_values(["split", "configuration", "clients"], kind="stable").assign(
        configuration=lambda f: f["configuration"].astype(str)).reset_index(drop=True)


def model_curves(runs: pd.DataFrame, services: pd.DataFrame, think_time: float,
                 clients: Iterable[int] = range(1, 101)) -> pd.DataFrame:
    """Both models' curves from the one-client service time, for every configuration measured:
    one row per split x configuration x model x client count."""
    K = np.asarray(list(clients), dtype=int)
    settings = runs.drop_duplicates(["split", "threads", "queue", "max_connections"])
    frames = []
    for row in settings.itertuples():
        S, s_cpu, s_wait = services.loc[row.split, ["S", "s_cpu", "s_wait"]]
        B = row.capacity
        single = mm1bk(clients=K, capacity=B, service_time=S, think_time=think_time)
        pool = thread_pool(clients=K, capacity=B, threads=row.threads, cpu_time=s_cpu,
                           wait_time=s_wait, think_time=think_time, method="exact")
        for name, result in (("M/M/1/B/K", single), ("thread-limited", pool)):
            frames.append(pd.DataFrame({
                "split": row.split, "work": row.work,
                "configuration": config_label(row.threads, row.queue, row.max_connections),
                "model": name,
                "clients": K, "throughput": result.throughput,
                "response_time": result.response_time,
                "error_rate": result.rejection_probability}))
    return pd.concat(frames, ignore_index=True)


def differs(a: float, b: float, se_a: float, se_b: float) -> bool:
    """Whether two measured means differ by the chapter's definition (see the module)."""
    gap = abs(a - b)
    noise = 2 * float(np.hypot(np.nan_to_num(se_a), np.nan_to_num(se_b)))
    smaller = min(abs(a), abs(b))
    return bool(gap > noise and gap >= MIN_RELATIVE * smaller)


# -- the claims -------------------------------------------------------------------------------


def _pair(table: pd.DataFrame, metric: str, *, fixed: dict, vary: str, a, b
          ) -> pd.DataFrame:
    """Per client count: the metric (and its error) at ``vary == a`` and at ``vary == b``."""
    part = table
    for key, value in fixed.items():
        part = part[part[key] == value]
    se = {"response_time": "r_succ_se", "throughput": "throughput_se"}.get(metric)
    cols = [metric] + ([se] if se else [])
    left = part[part[vary] == a].set_index("clients")[cols]
    right = part[part[vary] == b].set_index("clients")[cols]
    out = left.join(right, suffixes=("_a", "_b"), how="inner")
    if se is None:
        out[f"{metric}_se_a"] = out[f"{metric}_se_b"] = 0.0
    else:
        out = out.rename(columns={f"{se}_a": f"{metric}_se_a", f"{se}_b": f"{metric}_se_b"})
    return out


def _directions(pair: pd.DataFrame, metric: str) -> pd.Series:
    """Per client count: -1 where a is lower than b, +1 where higher, 0 where they do not
    differ."""
    signs = []
    for row in pair.itertuples():
        a, b = getattr(row, f"{metric}_a"), getattr(row, f"{metric}_b")
        same = not differs(a, b, getattr(row, f"{metric}_se_a"), getattr(row, f"{metric}_se_b"))
        signs.append(0 if same else (-1 if a < b else 1))
    return pd.Series(signs, index=pair.index)


def _verdict(parts: list[bool | None]) -> str:
    """All parts hold: supported; none: contradicted; some: partly."""
    tested = [p for p in parts if p is not None]
    if not tested:
        return "not testable"
    if all(tested):
        return "supported"
    return "contradicted" if not any(tested) else "partly"


def _clients(series: pd.Series) -> str:
    """The client counts where ``series`` is true: ``"70, 80 clients"`` or ``"no client
    count"``."""
    values = [int(k) for k in series[series].index] if len(series) else []
    return f"{', '.join(map(str, values))} clients" if values else "no client count"


def _untested(parts: list[bool | None], notes: list[str]) -> str:
    """The evidence of a claim none of whose parts the design can test."""
    return f"{UNTESTED_MARK} in this design: " + "; ".join(notes)


def configurations(table: pd.DataFrame) -> pd.DataFrame:
    """One row per server configuration of ``table``: its pool, queue, maxConnections, the
    capacity B it admits, whether it refuses past B (an Executor's full queue; a server whose
    maxConnections is below threads + queue makes the connections past it wait in the kernel
    instead), and the client counts measured."""
    keys = ["threads", "queue", "max_connections", "capacity"]
    rows = []
    for values, part in table.groupby(keys, sort=True):
        threads, queue, limit, capacity = (int(v) for v in values)
        rows.append({"threads": threads, "queue": queue, "max_connections": limit,
                     "capacity": capacity, "refuses": limit >= threads + queue,
                     "clients": tuple(sorted(int(k) for k in part["clients"]))})
    return pd.DataFrame(rows, columns=[*keys, "refuses", "clients"])


def _runs_of(table: pd.DataFrame, config) -> pd.DataFrame:
    part = table
    for key in ("threads", "queue", "max_connections"):
        part = part[part[key] == getattr(config, key)]
    return part.set_index("clients")


def _executor_pairs(table: pd.DataFrame) -> tuple[tuple[int, int] | None, list[int]]:
    """The smallest and largest pool, and the queues both hold (Executor-limited
    configurations only), for comparisons at the same maxQueueSize."""
    configs = configurations(table)
    configs = configs[configs["refuses"]]
    pools = sorted(configs["threads"].unique())
    if len(pools) < 2:
        return None, []
    few, many = int(pools[0]), int(pools[-1])
    queues = sorted(set(configs.loc[configs["threads"] == few, "queue"])
                    & set(configs.loc[configs["threads"] == many, "queue"]))
    usable = [int(q) for q in queues
              if len(_pair(table[table["max_connections"] >= table["threads"] + q],
                           "response_time", fixed={"queue": q}, vary="threads", a=many,
                           b=few))]
    return (few, many), usable


def _executor_only(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["max_connections"] >= table["threads"] + table["queue"]]


def _c1(table: pd.DataFrame) -> tuple:
    pools, queues = _executor_pairs(table)
    if pools is None or not queues:
        return "not testable", _untested([], ["no two pools were measured at one queue"])
    few, many = pools
    table = _executor_only(table)
    small_q, large_q = queues[0], queues[-1]
    at_large = _directions(_pair(table, "response_time", fixed={"queue": large_q},
                                 vary="threads", a=many, b=few), "response_time")
    same = bool((at_large == 0).all())
    if small_q == large_q:
        return _verdict([same, None]), (
            f"queue {large_q}: the pools' response times differ at {_clients(at_large != 0)}; "
            f"only one queue was measured with both pools, so the part about a short queue is "
            f"not tested")
    at_small = _directions(_pair(table, "response_time", fixed={"queue": small_q},
                                 vary="threads", a=many, b=few), "response_time")
    faster = bool((at_small < 0).any() and not (at_small > 0).any())
    evidence = (f"queue {large_q}: the pools' response times differ at "
                f"{_clients(at_large != 0)}; queue {small_q}: {many} threads answer faster at "
                f"{_clients(at_small < 0)}, slower at {_clients(at_small > 0)}")
    return _verdict([same, faster]), evidence


def _c2(table: pd.DataFrame) -> tuple:
    """Per pool: its refusing configuration of the smallest capacity B against its
    configuration of the largest, above 60 clients and only where the first can refuse
    (K > B); a pool with no such client count cannot test the claim."""
    configs = configurations(table)
    parts, notes = [], []
    for pool, mine in configs.groupby("threads"):
        refusing = mine[mine["refuses"]].sort_values("capacity")
        largest = mine.sort_values("capacity").iloc[-1]
        if refusing.empty or len(mine) < 2:
            notes.append(f"{pool} threads: one configuration only, nothing to compare")
            parts.append(None)
            continue
        small = refusing.iloc[0]
        counts = [k for k in small["clients"] if k > 60 and k > small["capacity"]
                  and k in largest["clients"]]
        if small["capacity"] == largest["capacity"] or not counts:
            notes.append(f"{pool} threads: queue {small['queue']} (B = {small['capacity']}) "
                         f"cannot refuse at any client count above 60 measured with both, "
                         f"so this pool does not test the claim")
            parts.append(None)
            continue
        a = _runs_of(table, small).loc[counts]
        b = _runs_of(table, largest).loc[counts]
        pair = pd.DataFrame({"response_time_a": a["response_time"],
                             "response_time_b": b["response_time"],
                             "response_time_se_a": a["r_succ_se"],
                             "response_time_se_b": b["r_succ_se"]})
        dirs = _directions(pair, "response_time")
        parts.append(bool((dirs < 0).all()))
        notes.append(f"{pool} threads: B = {small['capacity']} faster than B = "
                     f"{largest['capacity']} at {_clients(dirs < 0)} (of {len(dirs)} client "
                     f"counts above 60 where it can refuse)")
    if all(p is None for p in parts):
        return "not testable", _untested(parts, notes)
    return _verdict(parts), "; ".join(notes)


def _equal_capacity_pairs(table: pd.DataFrame) -> list[tuple[int, pd.DataFrame]]:
    """Per capacity B at which the smallest and the largest pool were both measured with
    refusing configurations: their runs side by side at the common client counts above B
    (columns ``<metric>_few``, ``<metric>_many``)."""
    configs = configurations(table)
    configs = configs[configs["refuses"]]
    pools = sorted(configs["threads"].unique())
    if len(pools) < 2:
        return []
    few, many = pools[0], pools[-1]
    found = []
    for capacity, group in configs.groupby("capacity"):
        a, b = group[group["threads"] == few], group[group["threads"] == many]
        if a.empty or b.empty:
            continue
        runs_a, runs_b = _runs_of(table, a.iloc[0]), _runs_of(table, b.iloc[0])
        counts = sorted(k for k in set(runs_a.index) & set(runs_b.index) if k > capacity)
        if counts:
            joined = runs_a.loc[counts].add_suffix("_few").join(
                runs_b.loc[counts].add_suffix("_many"))
            found.append((int(capacity), joined))
    return found


def _c3(table: pd.DataFrame) -> tuple:
    configs = configurations(table)
    executor = configs[configs["refuses"]]
    parts, notes = [], []
    # (a) a queue that K never exceeds: no errors
    roomy = executor[[max(c) <= b for c, b in zip(executor["clients"], executor["capacity"],
                                                  strict=True)]]
    if roomy.empty:
        parts.append(None)
        notes.append("no configuration admits every client measured")
    else:
        runs = pd.concat([_runs_of(table, c) for c in roomy.itertuples()])
        parts.append(bool((runs["error_rate"] == 0).all()))
        notes.append(f"configurations that admit every client (B = "
                     f"{', '.join(map(str, sorted(set(roomy['capacity']))))}): errors in "
                     f"{int((runs['error_rate'] > 0).sum())} of {len(runs)} runs")
    # (b) errors once the clients exceed B, none before
    tight = executor[[max(c) > b for c, b in zip(executor["clients"], executor["capacity"],
                                                 strict=True)]]
    if tight.empty:
        parts.append(None)
        notes.append("no configuration was measured with more clients than it admits, so "
                     "where errors start is not tested")
    else:
        over_ok, under_ok, pieces = True, True, []
        for c in tight.itertuples():
            runs = _runs_of(table, c)
            over, under = runs[runs.index > c.capacity], runs[runs.index <= c.capacity]
            over_ok &= bool((over["error_rate"] > 0).all())
            under_ok &= bool((under["error_rate"] == 0).all())
            first = runs.index[runs["error_rate"] > 0]
            pieces.append(f"{c.threads} threads, B = {c.capacity}: errors from "
                          f"{int(first.min()) if len(first) else 'no'} clients")
        parts.append(over_ok and under_ok)
        notes.append("; ".join(pieces))
    # (c) more errors with the larger pool, at one capacity
    pairs = _equal_capacity_pairs(table)
    if not pairs:
        parts.append(None)
        notes.append("no two pools refuse at one capacity, so whether the larger pool refuses "
                     "more is not tested (an Executor of T threads admits at least T + 1)")
    else:
        more, pieces = [], []
        for capacity, joined in pairs:
            with_errors = joined[(joined["error_rate_few"] > 0)
                                 | (joined["error_rate_many"] > 0)]
            wins = int((with_errors["error_rate_many"] > with_errors["error_rate_few"]).sum())
            more.append(bool(len(with_errors)) and wins == len(with_errors))
            pieces.append(f"B = {capacity}: the larger pool refuses more at {wins} of "
                          f"{len(with_errors)} client counts with errors")
        parts.append(all(more))
        notes.append("; ".join(pieces))
    return _verdict(parts), "; ".join(notes)


def _c4(table: pd.DataFrame) -> tuple:
    """The level: each configuration's mean throughput at its largest client counts (from 80
    clients, or its largest one); the same when within :data:`MIN_RELATIVE` of the mean."""
    levels, short = {}, {}
    for name, part in table.groupby("configuration"):
        largest = part["clients"].max()
        top = part[part["clients"] >= min(80, largest)]
        levels[name] = top["throughput"].mean()
        if largest < 80:
            short[name] = f" (measured up to {largest} clients only)"
    top = pd.Series(levels)
    near = (top / top.mean() - 1).abs() <= MIN_RELATIVE
    evidence = ("mean throughput at 80 clients or more: " + "; ".join(
        f"{c}: {x:.1f}/s{short.get(c, '')}" for c, x in top.items())
        + f" (their mean {top.mean():.1f}/s)")
    return _verdict([bool(v) for v in near]), evidence


def _c5(table: pd.DataFrame, predicted: pd.DataFrame) -> tuple:
    model = predicted[predicted["model"] == "M/M/1/B/K"].set_index("run")
    joined = table.join(model, on="run", suffixes=("", "_model"))
    over_x = joined["throughput_model"] > joined["throughput"]
    slight = (joined["throughput_model"] / joined["throughput"] - 1).abs() <= MIN_RELATIVE
    over_r = joined["response_time_model"] > joined["response_time"]
    share = model["share_refused"]
    inside, counted = 0, 0
    for _, pair in _equal_capacity_pairs(table):
        with_errors = pair[(pair["error_rate_few"] > 0) | (pair["error_rate_many"] > 0)]
        for row in with_errors.itertuples():
            p = share.loc[row.run_few]
            counted += 1
            inside += int(min(row.error_rate_few, row.error_rate_many) <= p
                          <= max(row.error_rate_few, row.error_rate_many))
    parts = [bool((over_x & slight).mean() >= 0.5), bool(over_r.mean() >= 0.5),
             (inside == counted) if counted else None]
    between = (f"its share refused lies between the two pools' error rates at {inside} of "
               f"{counted} client counts where pools of one capacity refuse" if counted else
               "whether its share refused lies between the two pools' is not tested: no two "
               "pools refuse at one capacity")
    evidence = (f"the model's throughput is higher in {int(over_x.sum())} of {len(joined)} "
                f"runs (within {MIN_RELATIVE:.0%} in {int(slight.sum())}), its response time "
                f"higher in {int(over_r.sum())}; {between}")
    return _verdict(parts), evidence


STATEMENTS = {
    "IM-C1": "queue 200: the pool does not change response time; queue 50: 100 threads "
             "answer faster than 30",
    "IM-C2": "above 60 clients, queue 50 answers faster than queue 200",
    "IM-C3": "queue 200: no errors; queue 50: errors once clients exceed 50; more errors "
             "with 100 threads than with 30",
    "IM-C4": "throughput saturates at the same level in every configuration",
    "IM-C5": "M/M/1/B/K slightly overestimates throughput, overestimates response time, and "
             "its error rate lies between the 30- and 100-thread measurements",
}


def claims(table: pd.DataFrame, predicted: pd.DataFrame) -> pd.DataFrame:
    """The paper's claims IM-C1 to IM-C5 judged against each split's measurements, on any
    design: each part of a claim on the configurations that can test it (a queue of 50 is the
    paper's capacity B; a part no configuration can test is named in the evidence and makes
    no verdict worse, as :data:`queuetune.audit.DEFINITIONS` says). Runs flagged invalid are
    left out."""
    if "valid" in table:
        table = table[table["valid"].fillna(True).astype(bool)]
    rows = []
    for split, part in table.groupby("split", sort=False):
        checks = {"IM-C1": _c1(part), "IM-C2": _c2(part), "IM-C3": _c3(part),
                  "IM-C4": _c4(part), "IM-C5": _c5(part, predicted)}
        for claim, (verdict, evidence) in checks.items():
            rows.append({"id": claim, "work": part["work"].iloc[0], "split": split,
                         "statement": STATEMENTS[claim], "verdict": verdict,
                         "evidence": evidence})
    return pd.DataFrame(rows).sort_values(["id", "split"], kind="stable").reset_index(drop=True)


# -- the limits, on the wire -----------------------------------------------------------------

_PHASES = ("waiting to connect", "connected, waiting for the answer", "refused")


def wire_phases(connections: pd.DataFrame) -> pd.DataFrame:
    """Each request of the limit scenarios as phases on a time line (seconds from the first
    request): waiting for the connection to open, then waiting for the answer, or refused."""
    rows = []
    for r in connections.itertuples():
        start = float(r.sent_s)
        opened = start + float(r.connect_ms) / 1000
        end = start + float(r.total_ms) / 1000
        label = f"request {int(r.request) + 1}"
        if opened - start >= 0.001:
            rows.append((r.scenario, label, _PHASES[0], start, opened, r.outcome))
        phase = _PHASES[1] if r.outcome == "ok" else _PHASES[2]
        rows.append((r.scenario, label, phase, opened, end, r.outcome))
    return pd.DataFrame(rows, columns=["scenario", "request", "phase", "from_s", "to_s",
                                       "outcome"])


_FLAGS = {"S": "SYN", "SA": "SYN-ACK", "A": "ACK", "AP": "data", "AF": "FIN", "AR": "RST",
          "R": "RST", "F": "FIN"}


def packets_of(packets: pd.DataFrame, scenario: str, request: int) -> pd.DataFrame:
    """The packets of one request of a limit scenario, in words, times from its first."""
    part = packets[(packets["scenario"] == scenario) & (packets["request"] == request)]
    if part.empty:
        raise ValueError(f"no packets stored for {scenario!r} request {request}")
    start = float(part["time_s"].iloc[0])
    return pd.DataFrame({
        "time (ms)": ((part["time_s"] - start) * 1000).round(1).to_numpy(),
        "from": part["direction"].str.split(">").str[0].to_numpy(),
        "packet": [_FLAGS.get(f, f) + (f", {n} bytes" if n else "")
                   for f, n in zip(part["flags"], part["length"], strict=True)],
    })


# -- tables of the chapter ---------------------------------------------------------------------


def setup_table(meta: dict) -> pd.DataFrame:
    """Where, with what and how the data set was measured, one line per item."""
    m, s = meta["machine"], meta["settings"]
    timing = s["timing"]
    tables = s["design"] if isinstance(s["design"], list) else [s["design"]]

    def levels(factor: str) -> str:
        found = sorted({v for t in tables for v in t.get(factor, [])})
        return ", ".join(map(str, found)) or "the campaign's default"

    splits = "; ".join(f"{x['name']}: {split_label(x['cpu_ms'], x['sleep_ms'])}"
                       for x in s["splits"])
    rows = [
        ("date (UTC)", meta["date"]),
        ("machine", f"{m['cpu_model']}, {m['logical_cores']} logical cores, "
                    f"{m['memory_gib']} GiB"),
        ("system", f"{m['os']}, Linux {m['kernel']}"),
        ("server", f"{m['tomcat']}, {m['java']}"),
        ("JVM options", " ".join(meta["jvm_options"]) or "not set by the runner"),
        ("load generator", f"{meta['load_generator']}, Locust {m['locust']}"),
        ("pinning (taskset)", f"server on core(s) {meta['pinning']['server_cores']}, "
                              f"generator on core(s) {meta['pinning']['generator_cores']}"),
        ("thread pools (maxThreads)", levels("threads")),
        ("connection queues (maxQueueSize)", levels("queue")),
        ("maxConnections", levels("max_connections") if any("max_connections" in t
                                                             for t in tables)
         else f"{s['server']['max_connections']} (never the limit)"),
        ("clients", levels("clients")),
        ("work per request", splits),
        ("think time", f"exponential, mean {s['think_time_s']:g} s"),
        ("each run", f"clients start over {timing['ramp_s']:g} s, warm up "
                     f"{timing['warmup_s']:g} s, measured {timing['measure_s']:g} s"
                     + (f" in {timing['windows']} windows" if timing.get("windows", 1) > 1
                        else "")),
        ("connections", "a new one per request" if not s["keep_alive"] else "kept alive"),
    ]
    return pd.DataFrame(rows, columns=["", "value"]).set_index("")


def processor_demand(dataset: str | Path) -> pd.DataFrame:
    """Per split: the processor time per answered request, measured three ways: the answering
    thread's own measure and the JVM's by the utilization law D = U / X (U: the JVM's share of
    its core over the window, X: answers per second), with one client and under load (median
    and range over the load runs)."""
    table = analysis.summarize(dataset)
    table = table[table["throughput"] > 0].copy()
    table["demand_ms"] = 1000 * table["jvm_cpu_s"]
    rows = []
    for split, part in table.groupby("split", sort=False):
        one, load = part[part["kind"] == "one-client"], part[part["kind"] == "load"]
        if one.empty or load.empty:
            raise ValueError(f"split {split!r} needs a one-client run and load runs to compare")
        rows.append({
            "split": split, "work per request": split_label(one["cpu_ms"].iloc[0],
                                                            one["sleep_ms"].iloc[0]),
            "thread, one client (ms)": float(one["server_cpu_ms"].iloc[0]),
            "thread under load, median (ms)": float(load["server_cpu_ms"].median()),
            "JVM, one client (ms)": float(one["demand_ms"].iloc[0]),
            "JVM under load, median (ms)": float(load["demand_ms"].median()),
            "JVM under load, lowest (ms)": float(load["demand_ms"].min()),
            "JVM under load, highest (ms)": float(load["demand_ms"].max()),
        })
    return pd.DataFrame(rows).set_index("split")


def at_clients(table: pd.DataFrame, clients: int) -> pd.DataFrame:
    """The paper's three metrics of every split and configuration at one client count."""
    if clients not in set(table["clients"]):
        raise ValueError(f"clients must be one of the measured counts "
                         f"{sorted(set(table['clients']))}; got {clients}")
    part = table[table["clients"] == clients]
    return part.set_index(["split", "configuration"])[
        ["threads", "queue", "throughput", "response_time", "error_rate"]]


def _median_and_largest(grouped, count: str, word: str) -> pd.DataFrame:
    """Per group: how many runs (column ``count``), and the median and the largest of their
    relative ``throughput`` and ``response_time`` (columns "throughput, median <word>", ...)."""
    columns = {count: grouped.size()}
    for metric, name in (("throughput", "throughput"), ("response_time", "response time")):
        columns[f"{name}, median {word}"] = grouped[metric].median()
        columns[f"{name}, largest {word}"] = grouped[metric].max()
    return pd.DataFrame(columns)


def repeatability(first: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """Per split: how far two campaigns of the same design measured the same runs apart.

    ``first`` and ``second`` are :func:`remeasured` tables; a run of one is the same run of the
    other when split, pool, queue, maxConnections and client count agree. Returned per split:
    how many runs both hold, and the median and the largest relative difference
    |second / first - 1| of the throughput and of the response time over them."""
    keys = ["split", "threads", "queue", "max_connections", "clients"]
    metrics = ["throughput", "response_time"]
    joined = first[keys + metrics].merge(second[keys + metrics], on=keys,
                                         suffixes=("_first", "_second"), validate="one_to_one")
    if joined.empty:
        raise ValueError("first and second hold no run in common (same split, threads, queue, "
                         "max_connections and clients)")
    for metric in metrics:
        joined[metric] = (joined[f"{metric}_second"] / joined[f"{metric}_first"] - 1).abs()
    return _median_and_largest(joined.groupby("split", sort=False), "runs in both", "difference")


def prediction_errors(table: pd.DataFrame, predicted: pd.DataFrame) -> pd.DataFrame:
    """Per split and model: how far the predictions (from the one-client measurements, nothing
    fitted) fall from the measured throughput and response time, as relative errors |p/m - 1|:
    their median and the largest over the runs."""
    joined = table[["run", "split", "throughput", "response_time"]].merge(
        predicted[["run", "model", "throughput", "response_time"]], on="run",
        suffixes=("", "_model"), validate="one_to_many")
    for metric in ("throughput", "response_time"):
        joined[metric] = (joined[f"{metric}_model"] / joined[metric] - 1).abs()
    return _median_and_largest(joined.groupby(["split", "model"], sort=False), "runs", "error")


def pool_effect(table: pd.DataFrame) -> pd.DataFrame:
    """Per split and queue: at how many client counts the larger pool's response time is lower,
    higher, or not different (by :func:`differs`) from the smaller pool's, and the largest
    relative gap (servers limited by maxConnections left out; a queue measured with one pool
    only, or at no client count in common, has no row)."""
    table = _executor_only(table)
    pools = sorted(table["threads"].unique())
    few, many = pools[0], pools[-1]
    rows = []
    for (split, queue), part in table.groupby(["split", "queue"], sort=False):
        pair = _pair(part, "response_time", fixed={}, vary="threads", a=many, b=few)
        if pair.empty:
            continue
        signs = _directions(pair, "response_time")
        gap = (pair["response_time_a"] / pair["response_time_b"] - 1).abs()
        rows.append({"split": split, "queue": int(queue), "client counts": len(pair),
                     f"{many} threads faster": int((signs < 0).sum()),
                     f"{many} threads slower": int((signs > 0).sum()),
                     "no difference": int((signs == 0).sum()),
                     "largest gap": float(gap.max())})
    return pd.DataFrame(rows).set_index(["split", "queue"])


def pool_bounds(services: pd.DataFrame, threads: Iterable[int], cores: int = 1
                ) -> pd.DataFrame:
    """Per split and pool size, the two ceilings of :func:`queuetune.chapters.practical.ceilings`,
    T / S (every thread busy for a whole service time S) and p / s_c on p = ``cores`` (every
    core busy; ``s_cpu`` in ``services``), which one binds, and the pool that makes them equal,
    T* = p S / s_c = p (1 + s_w / s_c): the fewest threads that can keep the cores busy."""
    if not isinstance(cores, int | np.integer) or cores < 1:
        raise ValueError(f"cores must be an integer >= 1; got {cores!r}")
    rows = []
    for split, row in services.iterrows():
        for t in threads:
            c = ceilings(row["s_cpu"], row["S"] - row["s_cpu"], 0.0, threads=int(t),
                         processors=cores)
            rows.append({"split": split, "threads": int(t), "pool bound (1/s)": c.pool,
                         "core bound (1/s)": c.processor,
                         "threads that fill the cores": c.processor * row["S"],
                         "what limits": f"the {'pool' if c.bottleneck == 'pool' else 'cores'}"})
    return pd.DataFrame(rows).set_index(["split", "threads"])

def service_table(dataset: str | Path) -> pd.DataFrame:
    """The one-client runs: the service time asked for, measured, and its processor part."""
    one = analysis.service_time(dataset)
    return pd.DataFrame({
        "work per request": [split_label(c, s) for c, s in zip(one["cpu_ms"], one["sleep_ms"],
                                                               strict=True)],
        "asked for (ms)": (one["requested_s"] * 1000).round(1),
        "S measured with one client (ms)": (one["measured_s"] * 1000).round(1),
        "processor time of the answering thread (ms)": (one["server_cpu_s"] * 1000).round(2),
        "requests": one["requests"],
    }).set_index("work per request")


# -- accuracy where sizing needs it ------------------------------------------------------------



def knee(services: pd.DataFrame, think_time: float, runs: pd.DataFrame,
         cores: int = 1) -> pd.Series:
    """Per run: the knee K* = (S + Z) / D, where the bottleneck's demand D is the larger of
    the core's s_c / p and the pool's S / T (Denning and Buzen's N*, the client count where
    the two asymptotes of the response time meet). With all processor work and a large pool,
    D = s_c and K* = (S + Z) / s_c."""
    S = services.loc[runs["split"], "S"].to_numpy()
    s_cpu = services.loc[runs["split"], "s_cpu"].to_numpy()
    demand = bottleneck_demand(processors=cores, cpu_time=s_cpu, service_time=S,
                               threads=runs["threads"].to_numpy(dtype=float))
    return pd.Series(knee_clients(service_time=S, think_time=think_time, demand=demand),
                     index=runs.index, name="knee")


def regimes(clients: pd.Series, knees: pd.Series) -> pd.Series:
    """Each run's regime (:data:`REGIMES`) from its clients and its knee."""
    return pd.Series(regime_of(clients.astype(float) / knees), index=clients.index,
                     name="regime")


def accuracy_by_regime(table: pd.DataFrame, predicted: pd.DataFrame, services: pd.DataFrame,
                       think_time: float, per_window: pd.DataFrame | None = None, *,
                       seed: int = 20061124, resamples: int = 2000) -> pd.DataFrame:
    """Per split, model, regime and quantity: how far the predictions (nothing fitted) fall
    from the measurements, with a 95 % bootstrap interval.

    Throughput and response time: the relative error p / m - 1 (its median, signed: below
    zero the model predicts too little, and the largest in size). The share refused: the
    difference p - m in points, over the runs where the model or the server refused anything.
    Each run's measurement is one value, or, with repeated windows (``per_window``, from
    :func:`queuetune.lab.experiments.imre.analysis.windows`), one value per window; the
    interval resamples whole runs. Left out: runs flagged invalid, and servers limited by
    maxConnections (their connections wait in the kernel, which neither model describes).
    A regime the design did not measure has no row."""
    runs = table.copy()
    if "valid" in runs:
        runs = runs[runs["valid"].fillna(True).astype(bool)]
    runs = runs[runs["max_connections"] >= runs["threads"] + runs["queue"]]
    runs["regime"] = regimes(runs["clients"], knee(services, think_time, runs))
    if per_window is not None and (per_window.groupby("run").size() > 1).any():
        values = per_window.merge(runs[["run", "split", "regime"]], on="run")
    else:
        values = runs[["run", "split", "regime", "throughput", "response_time",
                       "error_rate"]]
    model = predicted.rename(columns={"throughput": "x_model", "response_time": "r_model",
                                      "share_refused": "e_model"})
    joined = values.merge(model[["run", "model", "x_model", "r_model", "e_model"]], on="run")
    joined["throughput_error"] = joined["x_model"] / joined["throughput"] - 1
    joined["response_time_error"] = joined["r_model"] / joined["response_time"] - 1
    joined["refused_error"] = joined["e_model"] - joined["error_rate"]
    return errors_by_regime(joined, by=["split", "model", "regime"], seed=seed,
                            resamples=resamples)


def validity_table(table: pd.DataFrame) -> pd.DataFrame:
    """Per split and kind of run: how many runs are valid, invalid, or were not checked (a
    data set written before the runner checked every run), by the runner's checks."""
    word = table["valid"].map({True: "valid", False: "invalid"}).fillna("not checked")
    counts = pd.crosstab([table["split"], table["kind"]], word)
    for column in ("valid", "invalid", "not checked"):
        if column not in counts:
            counts[column] = 0
    counts = counts[["valid", "invalid", "not checked"]]
    counts.columns.name = None
    return counts


def invalid_runs(table: pd.DataFrame) -> pd.DataFrame:
    """The runs flagged invalid, with the runner's reasons."""
    bad = table[table["valid"].eq(False).fillna(False).astype(bool)]
    return bad[["run", "split", "threads", "queue", "max_connections", "clients",
                "invalid_reason"]].reset_index(drop=True)


def error_text(by_regime: pd.DataFrame, split: str, model: str, regime: str,
               quantity: str) -> str:
    """One row of :func:`accuracy_by_regime` as text: ``"-7.7% (-12.0% to -3.8%)"``, or in
    points for the share refused; ``"not measured"`` where the design has no such row."""
    found = by_regime[(by_regime["split"] == split) & (by_regime["model"] == model)
                      & (by_regime["regime"] == regime) & (by_regime["quantity"] == quantity)]
    if found.empty:
        return "not measured"
    row = found.iloc[0]
    if np.isnan(row["low"]):
        value = (f"{row['median error'] * 100:+.1f} points" if quantity.startswith("share")
                 else f"{row['median error']:+.1%}")
        return f"{value} (one value, no interval)"
    if quantity.startswith("share"):
        return (f"{row['median error'] * 100:+.1f} points ({row['low'] * 100:+.1f} to "
                f"{row['high'] * 100:+.1f})")
    return f"{row['median error']:+.1%} ({row['low']:+.1%} to {row['high']:+.1%})"


def accuracy_by_regime_of(dataset: str | Path, *, demand: str = "thread") -> pd.DataFrame:
    """:func:`accuracy_by_regime` of a data set, from its one-client service times and its
    repeated windows, as the lab chapter computes it; the processor time per request by
    ``demand`` (:data:`models.DEMANDS`: the answering thread's, or the JVM's whole time per
    answer), which sets both the predictions and the knee that sorts the runs."""
    measured = remeasured(dataset)
    services = models.service(dataset, demand=demand)
    think = analysis.metadata(dataset)["settings"]["think_time_s"]
    predicted = models.predict(measured, services, think)
    return accuracy_by_regime(measured, predicted, services, think, analysis.windows(dataset))


def accuracy_by_demand(dataset: str | Path) -> pd.DataFrame:
    """:func:`accuracy_by_regime_of` with each demand of :data:`models.DEMANDS`, one table
    with a column ``demand``: the thread-limited model's errors predicted from the answering
    thread's processor time and from the JVM's whole processor time per answer."""
    frames = [accuracy_by_regime_of(dataset, demand=d).assign(demand=d)
              for d in models.DEMANDS]
    return pd.concat(frames, ignore_index=True)


def accuracy_headline(dataset: str | Path) -> str:
    """One sentence: the thread-limited model's error on the processor-only work by regime,
    predicted from one client (the lab chapter's findings and README state it)."""
    by_regime = accuracy_by_regime_of(dataset)
    model = "thread-limited"
    parts = [f"{regime} {error_text(by_regime, 'cpu', model, regime, 'response time')}"
             for regime in REGIMES]
    refused = error_text(by_regime, "cpu", model, "past the knee", "share refused (points)")
    runs = int(by_regime[(by_regime["split"] == "cpu") & (by_regime["model"] == model)
                         & (by_regime["quantity"] == "response time")]["runs"].sum())
    return (f"Re-measured on Tomcat (`data/lab/{Path(str(dataset)).name}`, {runs} valid runs "
            f"of processor-only work), the thread-limited model predicted from one client's "
            f"measurements misses the mean response time by a median (95 % interval) of "
            f"{'; '.join(parts)}, and the share refused past the knee by {refused}.")


def back_to_back(connections: pd.DataFrame) -> str:
    """What the wire study's ``back-to-back`` scenario found (two clients without think time
    against 2 threads and a queue of 1), in one sentence; a data set measured before the
    scenario existed says so."""
    part = connections[connections["scenario"] == "back-to-back"]
    if part.empty:
        return ("This data set was measured before the wire study sent requests back to back; "
                "a new campaign stores that scenario too.")
    refused = int((part["outcome"] != "ok").sum())
    return (f"Two clients sending back to back to 2 threads and a queue of 1 (B = 3, never "
            f"more than two requests outstanding): {refused} of {len(part)} requests refused.")
