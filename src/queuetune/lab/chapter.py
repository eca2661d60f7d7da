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

from .. import mm1bk, thread_pool
from ..chapters.practical import ceilings
from . import analysis, models

__all__ = ["MIN_RELATIVE", "config_label", "split_label", "remeasured", "model_curves",
           "differs", "claims", "processor_demand", "at_clients", "prediction_errors",
           "pool_bounds", "pool_effect", "repeatability"]

#: The smallest relative difference between two measured means that counts as a difference.
MIN_RELATIVE = 0.10


def config_label(threads: int, queue: int) -> str:
    """``"30 threads, queue 50"``."""
    return f"{threads} threads, queue {queue}"


def split_label(cpu_ms: float, sleep_ms: float) -> str:
    """``"14 ms processor"`` or ``"14 ms processor + 700 ms wait"``."""
    label = f"{cpu_ms:g} ms processor"
    return label + (f" + {sleep_ms:g} ms wait" if sleep_ms else "")


def _labelled(table: pd.DataFrame) -> pd.DataFrame:
    out = table.copy()
    out["configuration"] = [config_label(t, q) for t, q in zip(out["threads"], out["queue"],
                                                                strict=True)]
    out["work"] = [split_label(c, s) for c, s in zip(out["cpu_ms"], out["sleep_ms"],
                                                     strict=True)]
    return out


def remeasured(dataset: str | Path = analysis.DEFAULT_DATASET) -> pd.DataFrame:
    """The load runs, labelled, with the paper's three metrics and their standard errors."""
    table = _labelled(models.measured(dataset))
    order = sorted(table["configuration"].unique(),
                   key=lambda c: tuple(int(w) for w in c.split() if w.strip(",").isdigit()))
    table["configuration"] = pd.Categorical(table["configuration"], order, ordered=True)
    return table.sort_values(["split", "configuration", "clients"], kind="stable").assign(
        configuration=lambda f: f["configuration"].astype(str)).reset_index(drop=True)


def model_curves(runs: pd.DataFrame, services: pd.DataFrame, think_time: float,
                 clients: Iterable[int] = range(1, 101)) -> pd.DataFrame:
    """Both models' curves from the one-client service time, for every configuration measured:
    one row per split x configuration x model x client count."""
    K = np.asarray(list(clients), dtype=int)
    settings = runs.drop_duplicates(["split", "threads", "queue"])
    frames = []
    for row in settings.itertuples():
        S, s_cpu, s_wait = services.loc[row.split, ["S", "s_cpu", "s_wait"]]
        B = row.threads + row.queue
        single = mm1bk(clients=K, capacity=B, service_time=S, think_time=think_time)
        pool = thread_pool(clients=K, capacity=B, threads=row.threads, cpu_time=s_cpu,
                           wait_time=s_wait, think_time=think_time, method="exact")
        for name, result in (("M/M/1/B/K", single), ("thread-limited", pool)):
            frames.append(pd.DataFrame({
                "split": row.split, "work": row.work,
                "configuration": config_label(row.threads, row.queue), "model": name,
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


def _c1(table: pd.DataFrame, pools: tuple[int, int], queues: tuple[int, int]) -> tuple:
    small_q, large_q = queues
    few, many = pools
    at_large = _directions(_pair(table, "response_time", fixed={"queue": large_q},
                                 vary="threads", a=many, b=few), "response_time")
    at_small = _directions(_pair(table, "response_time", fixed={"queue": small_q},
                                 vary="threads", a=many, b=few), "response_time")
    same = bool((at_large == 0).all())
    faster = bool((at_small < 0).any() and not (at_small > 0).any())
    evidence = (f"queue {large_q}: the pools' response times differ at "
                f"{_clients(at_large != 0)}; queue {small_q}: {many} threads answer faster at "
                f"{_clients(at_small < 0)}, slower at {_clients(at_small > 0)}")
    return _verdict([same, faster]), evidence


def _c2(table: pd.DataFrame, pools: tuple[int, int], queues: tuple[int, int]) -> tuple:
    small_q, large_q = queues
    parts, notes = [], []
    for pool in pools:
        pair = _pair(table, "response_time", fixed={"threads": pool}, vary="queue",
                     a=small_q, b=large_q)
        dirs = _directions(pair[pair.index > 60], "response_time")
        parts.append(bool((dirs < 0).all()) if len(dirs) else None)
        notes.append(f"{pool} threads: queue {small_q} faster at {_clients(dirs < 0)} "
                     f"(of {len(dirs)} client counts above 60)")
    return _verdict(parts), "; ".join(notes)


def _c3(table: pd.DataFrame, pools: tuple[int, int], queues: tuple[int, int]) -> tuple:
    small_q, large_q = queues
    few, many = pools
    large = table[table["queue"] == large_q]
    none_at_large = bool((large["error_rate"] == 0).all())
    small = table[table["queue"] == small_q]
    over = small[small["clients"] > small_q]
    upto = small[small["clients"] <= small_q]
    from_50 = bool((over["error_rate"] > 0).all() and (upto["error_rate"] == 0).all())
    errors = _pair(table, "error_rate", fixed={"queue": small_q}, vary="threads", a=many, b=few)
    with_errors = errors[(errors["error_rate_a"] > 0) | (errors["error_rate_b"] > 0)]
    more = (bool((with_errors["error_rate_a"] > with_errors["error_rate_b"]).all())
            if len(with_errors) else False)
    refusing = small[small["error_rate"] > 0]
    first = (", ".join(f"{t} threads from {int(g['clients'].min())} clients"
                       for t, g in refusing.groupby("threads")) or "never")
    evidence = (f"queue {large_q}: {'no' if none_at_large else 'some'} errors; queue "
                f"{small_q}: errors {first}; {many} threads refuse more than {few} at "
                f"{int((with_errors['error_rate_a'] > with_errors['error_rate_b']).sum())} of "
                f"{len(with_errors)} client counts with errors")
    return _verdict([none_at_large, from_50, more]), evidence


def _c4(table: pd.DataFrame) -> tuple:
    """The level: each configuration's mean throughput at 80 to 100 clients; the same when
    within :data:`MIN_RELATIVE` of the mean of the four."""
    top = table[table["clients"] >= 80].groupby("configuration")["throughput"].mean()
    near = (top / top.mean() - 1).abs() <= MIN_RELATIVE
    evidence = ("mean throughput at 80 to 100 clients: " + "; ".join(
        f"{c}: {x:.1f}/s" for c, x in top.items()) + f" (their mean {top.mean():.1f}/s)")
    return _verdict([bool(v) for v in near]), evidence


def _c5(table: pd.DataFrame, predicted: pd.DataFrame, pools: tuple[int, int],
        queues: tuple[int, int]) -> tuple:
    model = predicted[predicted["model"] == "M/M/1/B/K"].set_index("run")
    joined = table.join(model, on="run", suffixes=("", "_model"))
    over_x = joined["throughput_model"] > joined["throughput"]
    slight = (joined["throughput_model"] / joined["throughput"] - 1).abs() <= MIN_RELATIVE
    over_r = joined["response_time_model"] > joined["response_time"]
    small = joined[joined["queue"] == queues[0]]
    few = small[small["threads"] == pools[0]].set_index("clients")
    many = small[small["threads"] == pools[1]].set_index("clients")
    errors = few.index[(few["error_rate"] > 0) | (many["error_rate"] > 0)]
    low = np.minimum(few.loc[errors, "error_rate"], many.loc[errors, "error_rate"])
    high = np.maximum(few.loc[errors, "error_rate"], many.loc[errors, "error_rate"])
    between = ((few.loc[errors, "share_refused"] >= low)
               & (few.loc[errors, "share_refused"] <= high))
    parts = [bool((over_x & slight).mean() >= 0.5), bool(over_r.mean() >= 0.5),
             bool(between.all()) if len(errors) else None]
    evidence = (f"the model's throughput is higher in {int(over_x.sum())} of {len(joined)} "
                f"runs (within {MIN_RELATIVE:.0%} in {int(slight.sum())}), its response time "
                f"higher in {int(over_r.sum())}; its share refused lies between the two pools' "
                f"error rates at {int(between.sum())} of {len(errors)} client counts with "
                f"errors at queue {queues[0]}")
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
    """The paper's claims IM-C1 to IM-C5 judged against each split's measurements."""
    pools = tuple(sorted(table["threads"].unique()))
    queues = tuple(sorted(table["queue"].unique()))
    if len(pools) != 2 or len(queues) != 2:
        raise ValueError(f"the claims compare two pools and two queues; the data hold pools "
                         f"{list(pools)} and queues {list(queues)}")
    rows = []
    for split, part in table.groupby("split", sort=False):
        checks = {
            "IM-C1": _c1(part, pools, queues), "IM-C2": _c2(part, pools, queues),
            "IM-C3": _c3(part, pools, queues),
            "IM-C4": _c4(part),
            "IM-C5": _c5(part, predicted, pools, queues),
        }
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
    design, timing = s["design"], s["timing"]
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
        ("thread pools (maxThreads)", ", ".join(map(str, design["threads"]))),
        ("connection queues (maxQueueSize)", ", ".join(map(str, design["queue"]))),
        ("clients", ", ".join(map(str, design["clients"]))),
        ("work per request", splits),
        ("think time", f"exponential, mean {s['think_time_s']:g} s"),
        ("each run", f"clients start over {timing['ramp_s']:g} s, warm up "
                     f"{timing['warmup_s']:g} s, measured {timing['measure_s']:g} s"),
        ("connections", "a new one per request" if not s["keep_alive"] else "kept alive"),
    ]
    return pd.DataFrame(rows, columns=["", "value"]).set_index("")


def processor_demand(dataset: str | Path = analysis.DEFAULT_DATASET) -> pd.DataFrame:
    """Per split: the processor time per answered request, measured three ways: the answering
    thread's own measure and the JVM's by the utilization law D = U / X (U: the JVM's share of
    its core over the window, X: answers per second), with one client and under load (median
    and range over the load runs)."""
    table = analysis.summarize(dataset)
    table = table[table["throughput"] > 0].copy()
    table["demand_ms"] = 1000 * table["server_cpu"] / table["throughput"]
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
    other when split, pool, queue and client count agree. Returned per split: how many runs
    both hold, and the median and the largest relative difference |second / first - 1| of the
    throughput and of the response time over them."""
    keys = ["split", "threads", "queue", "clients"]
    metrics = ["throughput", "response_time"]
    joined = first[keys + metrics].merge(second[keys + metrics], on=keys,
                                         suffixes=("_first", "_second"), validate="one_to_one")
    if joined.empty:
        raise ValueError("first and second hold no run in common (same split, threads, queue "
                         "and clients)")
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
    relative gap."""
    pools = sorted(table["threads"].unique())
    few, many = pools[0], pools[-1]
    rows = []
    for (split, queue), part in table.groupby(["split", "queue"], sort=False):
        pair = _pair(part, "response_time", fixed={}, vary="threads", a=many, b=few)
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
            c = ceilings(row["s_cpu"], row["S"] - row["s_cpu"], 0.0, int(t), processors=cores)
            rows.append({"split": split, "threads": int(t), "pool bound (1/s)": c.pool,
                         "core bound (1/s)": c.processor,
                         "threads that fill the cores": c.processor * row["S"],
                         "what limits": f"the {'pool' if c.bottleneck == 'pool' else 'cores'}"})
    return pd.DataFrame(rows).set_index(["split", "threads"])

def service_table(dataset: str | Path = analysis.DEFAULT_DATASET) -> pd.DataFrame:
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
