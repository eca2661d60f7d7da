"""Claims audit of Demetriou (1998), "Optimizing server performance: HTTP Threads settings".

The five checks DT-C1 … DT-C5 read the sidebar's 4 x 5 grids (users x HTTP thread settings)
and the numbers stated in the text, all through :func:`queuetune.data.load`. The helpers below
return the tables behind each verdict so that the chapter can show them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ... import data, stated
from ...audit import check
from . import rules

__all__ = [
    "CONFIDENCE",
    "DOC",
    "GRIDS",
    "KB_PER_MB",
    "column_steps",
    "grid",
    "memory_per_thread",
    "memory_regression",
    "row_changes",
    "rule_versus_threads_equal_users",
]

DOC = "domino-threads"
# Table name -> value column of the five grids (DT-T3 … DT-T7).
GRIDS = {
    "webmail_response_time": "response_time_s",
    "probe_response_time": "response_time_s",
    "cpu_utilization": "cpu_utilization_pct",
    "memory_used": "memory_committed_mb",
    "disk_queue_length": "avg_disk_queue_length",
}
# Windows NT reports committed bytes; "MB" is taken as 2**20 bytes, so 1 MB = 1024 KB (with
# 1000 the per-thread figures below are 2.3 % smaller, which changes no verdict).
KB_PER_MB = 1024
CONFIDENCE = 0.95


def grid(name: str) -> pd.DataFrame:
    """One of the five tables as the printed grid: users (rows) x HTTP threads (columns)."""
    if name not in GRIDS:
        raise ValueError(f"name must be one of {sorted(GRIDS)}, got {name!r}")
    frame = data.load(DOC, name)
    wide = frame.pivot(index="users", columns="http_threads", values=GRIDS[name])
    wide.index = wide.index.astype(int)
    wide.columns = wide.columns.astype(int)
    return wide.sort_index().sort_index(axis=1).astype(float)


def memory_per_thread(confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Committed memory per added HTTP thread at each user load (DT-T6), in KB.

    An ordinary least-squares line of memory (MB) against the thread setting for each row of
    the memory table; the interval is the slope's ``confidence`` t-interval (n - 2 = 3 degrees
    of freedom). Columns: ``users``, ``kb_per_thread``, ``low_kb``, ``high_kb``, ``r_squared``,
    ``added_mb`` (memory at the most threads minus at the fewest) and ``added_threads``.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    wide = grid("memory_used")
    threads = wide.columns.to_numpy(dtype=float)
    rows = []
    for users, memory in wide.iterrows():
        fit = stats.linregress(threads, memory.to_numpy(dtype=float))
        half = stats.t.ppf(0.5 + confidence / 2, len(threads) - 2) * fit.stderr
        rows.append({
            "users": int(users),
            "kb_per_thread": fit.slope * KB_PER_MB,
            "low_kb": (fit.slope - half) * KB_PER_MB,
            "high_kb": (fit.slope + half) * KB_PER_MB,
            "r_squared": fit.rvalue ** 2,
            "added_mb": float(memory.iloc[-1] - memory.iloc[0]),
            "added_threads": int(threads[-1] - threads[0]),
        })
    return pd.DataFrame(rows)


def memory_regression(confidence: float = CONFIDENCE, *,
                      interaction: bool = False) -> pd.DataFrame:
    """Committed memory (DT-T6) regressed on users and thread setting together.

    Ordinary least squares over all 20 runs of ``memory = a + b users + c threads`` (with
    ``interaction=True`` also ``+ d users x threads``, letting the cost of a thread change with
    the load). One row per term: ``term``, ``estimate``, ``standard_error``, ``low``, ``high``
    (the ``confidence`` Student-t interval with n - p residual degrees of freedom) and ``unit``;
    slopes are in KB (per user, per thread, per thread and user), the intercept in MB.
    ``attrs`` holds ``r_squared``, ``residual_sd_mb`` and ``dof``.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    table = data.load(DOC, "memory_used")
    users = table["users"].to_numpy(dtype=float)
    threads = table["http_threads"].to_numpy(dtype=float)
    memory = table["memory_committed_mb"].to_numpy(dtype=float)
    columns = [np.ones_like(users), users, threads] + ([users * threads] if interaction else [])
    design = np.column_stack(columns)
    coef, *_ = np.linalg.lstsq(design, memory, rcond=None)
    resid = memory - design @ coef
    dof = len(memory) - design.shape[1]
    s2 = float(resid @ resid) / dof
    se = np.sqrt(np.diag(s2 * np.linalg.inv(design.T @ design)))
    half = stats.t.ppf(0.5 + confidence / 2, dof) * se
    terms = [("intercept", 1.0, "MB"), ("per user", KB_PER_MB, "KB"),
             ("per thread", KB_PER_MB, "KB")]
    if interaction:
        terms.append(("per thread and user", KB_PER_MB, "KB"))
    out = pd.DataFrame([{"term": name, "estimate": coef[i] * k, "standard_error": se[i] * k,
                         "low": (coef[i] - half[i]) * k, "high": (coef[i] + half[i]) * k,
                         "unit": unit} for i, (name, k, unit) in enumerate(terms)])
    total = float(np.sum((memory - memory.mean()) ** 2))
    out.attrs.update(r_squared=1 - float(resid @ resid) / total,
                     residual_sd_mb=float(np.sqrt(s2)), dof=dof)
    return out


def column_steps(name: str) -> pd.DataFrame:
    """Each step down a column (a fixed thread setting, next user load) of one grid.

    Columns: ``http_threads``, ``users_from``, ``users_to``, ``value_from``, ``value_to``,
    ``rises`` (the value at the higher load is larger).
    """
    wide = grid(name)
    rows = []
    for threads in wide.columns:
        column = wide[threads]
        for (u0, v0), (u1, v1) in zip(column.items(), list(column.items())[1:], strict=False):
            rows.append({"http_threads": int(threads), "users_from": int(u0),
                         "users_to": int(u1), "value_from": v0, "value_to": v1,
                         "rises": bool(v1 > v0)})
    return pd.DataFrame(rows)


def row_changes(name: str) -> pd.DataFrame:
    """Each row (a fixed user load) of one grid read across the thread settings.

    Columns: ``users``; ``fewest`` and ``most`` (the values at the fewest and the most
    threads); ``best_threads`` and ``best`` (the setting with the lowest value, the fewest
    threads on a tie); ``best_vs_fewest_pct`` (change of the best against the fewest-thread
    value, negative when more threads did better); ``range`` (largest minus smallest value);
    ``monotone_up`` (the value never falls as threads grow); ``net_change`` (most - fewest).
    """
    wide = grid(name)
    rows = []
    for users, row in wide.iterrows():
        best_threads = int(row.idxmin())
        rows.append({
            "users": int(users),
            "fewest": row.iloc[0],
            "most": row.iloc[-1],
            "best_threads": best_threads,
            "best": row.min(),
            "best_vs_fewest_pct": 100 * (row.min() - row.iloc[0]) / row.iloc[0],
            "range": row.max() - row.min(),
            "monotone_up": bool((row.diff().iloc[1:] >= 0).all()),
            "net_change": row.iloc[-1] - row.iloc[0],
        })
    return pd.DataFrame(rows)


def rule_versus_threads_equal_users(name: str = "webmail_response_time") -> pd.DataFrame:
    """The 10 % starting rule against the article's first guess (threads = users), per load.

    For each tested user load: the rule's thread count, the nearest tested setting (the
    fewer threads on a tie), the value there, the value with as many threads as users (a
    tested setting for every load of this design), the row's best setting and value, and
    ``rule_as_good`` (the rule's nearest setting is no worse than threads = users).
    """
    wide = grid(name)
    settings = list(wide.columns)
    rows = []
    for users, row in wide.iterrows():
        rule = rules.domino_initial_threads(int(users))
        nearest = min(settings, key=lambda t: (abs(t - rule), t))
        if users not in row.index:
            raise ValueError(f"{name}: no {users}-thread setting to compare with {users} users")
        rows.append({
            "users": int(users),
            "rule_threads": rule,
            "nearest_tested": int(nearest),
            "at_rule": row[nearest],
            "at_threads_equal_users": row[users],
            "best_threads": int(row.idxmin()),
            "best": row.min(),
            "rule_as_good": bool(row[nearest] <= row[users]),
        })
    return pd.DataFrame(rows)


def _users(frame: pd.DataFrame, mask: pd.Series) -> str:
    """'25', '25 and 200', '25, 50 and 200' (empty when no row matches)."""
    users = [str(u) for u in frame.loc[mask, "users"]]
    return " and ".join([", ".join(users[:-1]), users[-1]]) if len(users) > 1 else "".join(users)


@check("DT-C1", document=DOC,
       statement="The default is 40 HTTP threads; each thread occupies about 20-40 KB of memory")
def _memory_per_thread() -> tuple[str, str, dict[str, Any]]:
    low = stated.number(DOC, "memory_per_thread_low")
    high = stated.number(DOC, "memory_per_thread_high")
    per = memory_per_thread()
    above = per["low_kb"] > high
    overlaps = (per["low_kb"] <= high) & (per["high_kb"] >= low)
    if above.all():
        verdict = "contradicted"
    elif overlaps.all():
        verdict = "supported"
    else:
        verdict = "partly"
    factor = per["kb_per_thread"] / high
    evidence = (
        f"Committed memory grows by {per['kb_per_thread'].min():.0f}-"
        f"{per['kb_per_thread'].max():.0f} KB per added thread (least-squares slope per user "
        f"load, {CONFIDENCE:.0%} intervals {per['low_kb'].min():.0f}-{per['high_kb'].max():.0f}"
        f" KB), {factor.min():.1f}-{factor.max():.1f} times the top of the stated {low:.0f}-"
        f"{high:.0f} KB; "
        f"the default of {stated.value(DOC, 'default_http_threads')} threads was not tested."
    )
    values = {"stated_kb": (low, high), "per_thread": per.to_dict("records"),
              "intervals_above_stated": int(above.sum()),
              "intervals_overlapping_stated": int(overlaps.sum())}
    return verdict, evidence, values


@check("DT-C2", document=DOC,
       statement="For a fixed thread setting, response time rises with the user load")
def _response_rises_with_users() -> tuple[str, str, dict[str, Any]]:
    webmail = column_steps("webmail_response_time")
    probe = column_steps("probe_response_time")
    wide = grid("webmail_response_time")
    quoted = (f"{wide.loc[25, 10]:.3f}"
              == stated.value(DOC, "response_time_25_users_10_threads", inventory_id="DT-C2")
              and f"{wide.loc[200, 10]:.3f}"
              == stated.value(DOC, "response_time_200_users_10_threads", inventory_id="DT-C2"))
    steps = pd.concat([webmail, probe])
    share = steps["rises"].mean()
    if not quoted or share <= 0.5:
        verdict = "contradicted"
    elif share == 1:
        verdict = "supported"
    else:
        verdict = "partly"
    falls = webmail[~webmail["rises"]]
    falls_text = "; ".join(
        f"{r.http_threads} threads, {r.users_from} to {r.users_to} users: "
        f"{r.value_from:.3f} to {r.value_to:.3f} s" for r in falls.itertuples())
    evidence = (
        f"{int(webmail['rises'].sum())} of {len(webmail)} steps down the WebMail columns and "
        f"{int(probe['rises'].sum())} of {len(probe)} down the probe columns rise; the quoted "
        f"{wide.loc[25, 10]:.3f} to {wide.loc[200, 10]:.3f} s "
        f"{'matches' if quoted else 'does not match'} the table"
        + (f"; it falls at {falls_text}." if len(falls) else ".")
    )
    values = {"webmail_rising_steps": int(webmail["rises"].sum()),
              "probe_rising_steps": int(probe["rises"].sum()),
              "steps_per_table": len(webmail), "quoted_matches": quoted,
              "webmail_falls": falls.to_dict("records")}
    return verdict, evidence, values


@check("DT-C3", document=DOC,
       statement="For a fixed user load, more threads do not improve response time, and in "
                 "some cases worsen it")
def _more_threads_do_not_help() -> tuple[str, str, dict[str, Any]]:
    webmail = row_changes("webmail_response_time")
    probe = row_changes("probe_response_time")
    wide = grid("webmail_response_time")
    quoted = (f"{wide.loc[200, 10]:.3f}"
              == stated.value(DOC, "response_time_200_users_10_threads", inventory_id="DT-C3")
              and f"{wide.loc[200, 200]:.3f}"
              == stated.value(DOC, "response_time_200_users_200_threads", inventory_id="DT-C3"))
    helped = webmail["best"] < webmail["fewest"]
    if not quoted or helped.all():
        verdict = "contradicted"
    elif not helped.any():
        verdict = "supported"
    else:
        verdict = "partly"
    helped_text = "; ".join(
        f"{r.users} users: {r.fewest:.3f} s at 10 threads, {r.best:.3f} s at "
        f"{r.best_threads} ({r.best_vs_fewest_pct:+.0f} %)"
        for r in webmail[helped].itertuples())
    probe_helped = probe["best"] < probe["fewest"]
    probe_text = ", ".join(
        f"{r.users} users ({r.fewest:.3f} s at 10, {r.best:.3f} s at {r.best_threads} threads)"
        for r in probe[probe_helped].itertuples())
    evidence = (
        f"10 threads give the shortest WebMail response at "
        f"{_users(webmail, ~helped) or 'no'} users (200 users: {wide.loc[200, 10]:.3f} s at 10, "
        f"{wide.loc[200, 200]:.3f} s at 200 threads), but more threads do better at "
        f"{helped_text or 'no load'}; the probe time improves with more threads at "
        f"{probe_text or 'no load'}."
    )
    values = {"quoted_matches": quoted, "webmail_rows": webmail.to_dict("records"),
              "probe_rows": probe.to_dict("records"),
              "loads_where_more_threads_help": webmail.loc[helped, "users"].tolist()}
    return verdict, evidence, values


@check("DT-C4", document=DOC,
       statement="More threads leave CPU utilization unchanged but raise memory used and the "
                 "average disk queue length")
def _resources() -> tuple[str, str, dict[str, Any]]:
    cpu = row_changes("cpu_utilization")
    memory = row_changes("memory_used")
    disk = row_changes("disk_queue_length")
    user_effect = grid("cpu_utilization").iloc[:, 0]
    cpu_flat = bool((cpu["range"] <= 2).all())  # printed as whole percent: 2 points of rounding
    memory_rises = bool(memory["monotone_up"].all() and (memory["net_change"] > 0).all())
    disk_rises = disk["monotone_up"] & (disk["net_change"] > 0)
    disk_net_up = disk["net_change"] > 0
    parts = [cpu_flat, memory_rises, bool(disk_rises.all())]
    if all(parts):
        verdict = "supported"
    elif any(parts) or disk_net_up.any():
        verdict = "partly"
    else:
        verdict = "contradicted"
    memory_text = ("never falls and ends" if memory["monotone_up"].all()
                   else "falls in places but ends")
    evidence = (
        f"CPU moves at most {cpu['range'].max():.0f} points across a row (against "
        f"{user_effect.iloc[0]:.0f} to {user_effect.iloc[-1]:.0f} % from the fewest to the most "
        f"users); memory {memory_text} {memory['net_change'].min():.0f}-"
        f"{memory['net_change'].max():.0f} MB higher at 200 than at 10 threads; the disk queue "
        f"rises steadily only at {_users(disk, disk_rises) or 'no'} users, ends higher at "
        f"{_users(disk, disk_net_up) or 'no'} users, and ends lower at "
        f"{_users(disk, disk['net_change'] < 0) or 'no'} users."
    )
    values = {"cpu_flat": cpu_flat, "cpu_max_row_range": float(cpu["range"].max()),
              "memory_rises": memory_rises,
              "memory_added_mb": memory.set_index("users")["net_change"].to_dict(),
              "disk_rises_steadily_at": disk.loc[disk_rises, "users"].tolist(),
              "disk_net_up_at": disk.loc[disk_net_up, "users"].tolist(),
              "disk_net_change": disk.set_index("users")["net_change"].round(2).to_dict()}
    return verdict, evidence, values


@check("DT-C5", document=DOC,
       statement="Start with HTTP threads at about 10 % of web users, then tune to the "
                 "domino.threads.active.peak statistic")
def _ten_percent_rule() -> tuple[str, str, dict[str, Any]]:
    example_users = stated.count(DOC, "example_web_mail_users")
    example_threads = stated.count(DOC, "example_initial_http_threads")
    example_ok = rules.domino_initial_threads(example_users) == example_threads
    table = rule_versus_threads_equal_users()
    good = table["rule_as_good"]
    if not example_ok or not good.any():
        verdict = "contradicted"
    elif good.all():
        # The start holds at every load; the tuning step, which nothing can test, is named.
        verdict = "supported"
    else:
        verdict = "partly"
    rule_text = ", ".join(f"{r.rule_threads} for {r.users}" for r in table.itertuples())
    worse = "; ".join(
        f"{r.users} users: {r.at_rule:.3f} s at {r.nearest_tested} threads vs "
        f"{r.at_threads_equal_users:.3f} s at {r.users}" for r in table[~good].itertuples())
    evidence = (
        f"The rule gives {rule_text} users ("
        + ("as in the text's example" if example_ok
           else f"the text's example says {example_threads} for {example_users}")
        + "); its nearest tested setting responds at least as "
        f"fast as threads = users at {_users(table, good) or 'no'} users"
        + (f", slower at {worse}" if len(table[~good]) else "")
        + "; no peak-thread statistic is reported, so the tuning step cannot be tested."
    )
    values = {"example_matches": example_ok, "rows": table.to_dict("records"),
              "loads_where_rule_as_good": table.loc[good, "users"].tolist()}
    return verdict, evidence, values
