"""Claims audit of the iPlanet Web Server 6.0 Performance Tuning, Sizing, and Scaling Guide.

The nine checks IP-C1 … IP-C9 read the transcribed dumps, the stated defaults and the numbers
stated in the text, all through :func:`queuetune.data.load`, and the calculators of
:mod:`.sizing`, :mod:`.scaling` and :mod:`.thread_posting`. The helpers
below return the numbers behind each verdict so that the chapter can show them.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ... import data, stated
from ...audit import UNTESTED_MARK, check
from . import scaling, sizing, thread_posting

__all__ = [
    "DOC",
    "POSTING_CHECK",
    "cache_counters",
    "arithmetic_table",
    "factor_comparison",
    "perfdump_number",
]

DOC = "iplanet-tuning"
# The short run behind IP-C8: a light phase, then a load the minimum pool cannot carry. The
# request time and ThreadIncrement are illustrative (the guide states neither for this policy).
POSTING_CHECK = {"phases": [(0.0, 60.0), (10.0, 270.0)], "service_time": 0.5,
                 "horizon": 25.0, "thread_increment": 8, "seed": 1}


def perfdump_number(table: str, label: str, component: str = "value",
                    example: str | None = "Sample perfdump Output") -> float:
    """One printed number of the perfdump sample (``perfdump_output``) or of the nsfc dump
    (``file_cache_status``, which has no ``example`` column)."""
    frame = data.load(DOC, table)
    rows = frame[(frame["label"] == label) & (frame["component"] == component)]
    if example is not None and "example" in frame.columns:
        rows = rows[rows["example"] == example]
    values = rows["value"].dropna().unique()
    if len(values) != 1:
        raise ValueError(f"{table}: expected one value for {label!r}/{component!r}, "
                         f"found {list(values)}")
    return float(values[0])


def cache_counters() -> dict[str, float]:
    """The nsfc dump's counters and the sums the check compares (IP-C9)."""
    nsfc = "file_cache_status"

    def n(label: str, component: str = "value") -> float:
        return perfdump_number(nsfc, label, component, example=None)

    out = {
        "entries": n("Number of cached file entries", "entries"),
        "bytes_each": n("Number of cached file entries", "bytes_each"),
        "total_bytes": n("Number of cached file entries", "total_bytes"),
        "max_files": n("MaxFiles"),
        "hits": n("Number of cache lookup hits", "hits"),
        "lookups": n("Number of cache lookup hits", "lookups"),
        "hit_percent": n("Number of cache lookup hits", "percent"),
        "info_hits": n("Number of hits/misses on cached file info", "hits"),
        "info_misses": n("Number of hits/misses on cached file info", "misses"),
        "content_hits": n("Number of hits/misses on cached file content", "hits"),
        "content_misses": n("Number of hits/misses on cached file content", "misses"),
        "outdated_deleted": n("Number of outdated cache entries deleted"),
        "replacements": n("Number of cache entry replacements"),
        "total_deleted": n("Total number of cache entries deleted"),
    }
    out["info_plus_content_hits"] = out["info_hits"] + out["content_hits"]
    out["all_hits_and_misses"] = (out["info_hits"] + out["info_misses"]
                                  + out["content_hits"] + out["content_misses"])
    return out


def factor_comparison() -> pd.DataFrame:
    """Each figure's factor next to the summary paragraph's factor for the same content.

    Columns: ``content``, ``figures``, ``figure_factors`` (%, as a sorted list),
    ``summary`` (% as the summary paragraph gives it), ``agree``.
    """
    figs = scaling.figure_factors().set_index("figure_id")["factor"]

    def pct(ids: list[str]) -> list[float]:
        return sorted({round(100 * figs[i], 6) for i in ids})

    java_low = stated.number(DOC, "java_scaling_factor_up_to_4_cpus")
    java_high = stated.number(DOC, "java_scaling_factor_beyond_4_cpus")
    linear = 100.0  # "near linear": the factor that means linear scaling
    groups = [
        ("static", ["IP-F1"], [stated.number(DOC, "static_scaling_peak_summary")], "peaked to"),
        ("Perl-CGI and C-CGI", ["IP-F2", "IP-F3"], [linear], "near linear,"),
        ("SHTML", ["IP-F4"], [stated.number(DOC, "shtml_scaling_summary")], "close to"),
        ("NSAPI", ["IP-F7"], [stated.number(DOC, "nsapi_scaling_factor")], ""),
        ("Java (servlets and applications)", ["IP-F5", "IP-F6", "IP-F9", "IP-F12", "IP-F13"],
         [java_low, java_high], "to 4 CPUs / beyond:"),
    ]
    rows = []
    for content, ids, summary, words in groups:
        figure_values = pct(ids)
        printed = " / ".join(_pct(v) for v in summary)
        rows.append({"content": content, "figures": ", ".join(ids),
                     "figure_factors": figure_values, "summary": summary,
                     "summary_printed": f"{words} {printed}".strip(),
                     "agree": figure_values == sorted(set(summary))})
    return pd.DataFrame(rows, columns=["content", "figures", "figure_factors", "summary",
                                       "summary_printed", "agree"])


def _pct(x: float) -> str:
    return f"{x:g} %"


@check("IP-C1", document=DOC,
       statement="Scaling factors: static 60-65 %, Perl-CGI and C-CGI about 100 %, SHTML 95 %, "
                 "WASP servlet 65 %, NSAPI 60 %, Java 70 % to 4 CPUs then 55 %, WASP SSL 75 %, "
                 "C-CGI SSL 100 %, bookstore about 75 %, secure bookstore 80 %")
def _c1() -> tuple[str, str, dict[str, Any]]:
    table = factor_comparison()
    disagree = table[~table["agree"]]
    parts = [f"{r.content}: figures {', '.join(_pct(v) for v in r.figure_factors)} vs summary "
             f"'{r.summary_printed}'" for r in disagree.itertuples()]
    agreeing = ", ".join(table.loc[table["agree"], "content"])
    evidence = (f"{UNTESTED_MARK}: no plotted value is in the text and 'scaling factor' is never "
                "defined, so no factor can be recomputed. "
                + ("The figure sections and the summary paragraph disagree for "
                   + "; ".join(parts) + f"; they agree for {agreeing}."
                   if len(disagree) else
                   f"The figure sections and the summary paragraph agree for {agreeing}."))
    return "not testable", evidence, {"disagreeing": disagree["content"].tolist()}


@check("IP-C2", document=DOC,
       statement="On a four-CPU machine dynamic content gains 40-60 % for NSAPI and about "
                 "50-80 % for servlets")
def _c2() -> tuple[str, str, dict[str, Any]]:
    cpus = stated.count(DOC, "dynamic_content_study_cpus")
    nsapi = [stated.number(DOC, "nsapi_increase_low"), stated.number(DOC, "nsapi_increase_high")]
    servlet = [stated.number(DOC, "servlet_increase_low"),
               stated.number(DOC, "servlet_increase_high")]
    nsapi_factor = stated.number(DOC, "nsapi_scaling_factor") / 100
    gain = {r: 100 * (scaling.implied_speedup(nsapi_factor, cpus, r) - 1)
            for r in scaling.READINGS}
    java = sorted(100 * f for f in scaling.figure_factors().set_index("figure_id").loc[
        ["IP-F5", "IP-F9", "IP-F12", "IP-F13"], "factor"])
    java += [stated.number(DOC, "java_scaling_factor_up_to_4_cpus")]
    inside = all(servlet[0] <= j <= servlet[1] for j in java)
    evidence = (f"{UNTESTED_MARK}: the text does not say what the increase is measured "
                f"against. Read as {cpus} "
                f"CPUs against one, the NSAPI factor of {_pct(100 * nsapi_factor)} implies "
                f"+{min(gain.values()):.0f} % to +{max(gain.values()):.0f} % (by reading), far "
                f"above {nsapi[0]:g}-{nsapi[1]:g} %; read as the gain per doubling, NSAPI's "
                f"{_pct(100 * nsapi_factor)} lies in {nsapi[0]:g}-{nsapi[1]:g} % and the Java "
                f"factors {min(java):g}-{max(java):g} % "
                f"{'lie' if inside else 'do not all lie'} in {servlet[0]:g}-{servlet[1]:g} %.")
    return "not testable", evidence, {"gain_4_cpus_pct": gain, "java_factors_pct": java}


@check("IP-C3", document=DOC,
       statement="Keep-alive: 75 requests/s without versus 200-300 requests/s with; the iWS 6.0 "
                 "keep-alive subsystem nearly 2x better than iWS 4.1")
def _c3() -> tuple[str, str, dict[str, Any]]:
    without = stated.number(DOC, "throughput_without_keepalive")
    low = stated.number(DOC, "throughput_with_keepalive_low")
    high = stated.number(DOC, "throughput_with_keepalive_high")
    ratio = stated.number(DOC, "keepalive_iws60_vs_iws41_response_time")
    hits = perfdump_number("perfdump_output", "KeepAliveHits")
    flushes = perfdump_number("perfdump_output", "KeepAliveFlushes")
    evidence = (f"{UNTESTED_MARK}: the 75 vs {low:g}-{high:g} requests/s is a hypothetical "
                f"site ('might', 'may'), "
                f"a gain of {low / without:.2f}x to {high / without:.2f}x; the {ratio:g}x of "
                f"iWS 6.0 over 4.1 (Figures 14, 15) has no plotted values. The sample perfdump's "
                f"flushes/hits = {flushes:g}/{hits:g} = {flushes / hits:.2f}, below the guide's "
                f"1:1 warning level.")
    return "not testable", evidence, {"gain_low": low / without, "gain_high": high / without,
                                      "flush_hit_ratio": flushes / hits}


@check("IP-C4", document=DOC,
       statement="With RqThrottle = 1 and 5 ms requests a server still handles 200 requests/s; "
                 "suitable RqThrottle values range from 100 to 500")
def _c4() -> tuple[str, str, dict[str, Any]]:
    threads = stated.count(DOC, "rqthrottle_single")
    t = stated.number(DOC, "static_response_time_low") / 1000
    claimed = stated.number(DOC, "throughput_one_at_a_time")
    bound = sizing.max_throughput(threads, t)
    low = stated.number(DOC, "rqthrottle_suitable_low")
    high = stated.number(DOC, "rqthrottle_suitable_high")
    used = {"default": thread_posting.default_setting("RqThrottle"),
            "sizing magnus.conf": int(data.load(DOC, "sizing_magnus_conf").set_index(
                "directive").loc["RqThrottle", "value_number"]),
            "keep-alive study": stated.count(DOC, "rqthrottle", figure_id="IP-F14")}
    in_range = all(low <= v <= high for v in used.values())
    verdict = ("contradicted" if not math.isclose(bound, claimed)
               else "supported" if in_range else "partly")
    evidence = (f"{threads} thread / {t * 1000:g} ms = {bound:g} requests/s, the stated "
                f"{claimed:g} (an upper bound: the thread is never idle); the RqThrottle values "
                f"the guide uses ({', '.join(f'{k} {v}' for k, v in used.items())}) all lie in "
                f"{low:g}-{high:g} (the range checked only against the guide's own values; no "
                "measurement tests it).")
    return verdict, evidence, {"bound": bound, "used": used}


@check("IP-C5", document=DOC,
       statement="Memory: 64 MB baseline, at least 64 MB per CPU, and 512 KB per peak concurrent "
                 "user beyond the first 50")
def _c5() -> tuple[str, str, dict[str, Any]]:
    cpus = stated.count(DOC, "memory_example_cpus")
    printed = stated.number(DOC, "memory_example_total_min")
    as_example = sizing.memory_mb(cpus, composition="example")
    additive = sizing.memory_mb(cpus, composition="additive")
    per_user = sizing.rule_constant("memory_per_extra_user_kb")
    verdict = ("supported" if math.isclose(additive, printed)
               else "partly" if math.isclose(as_example, printed) else "contradicted")
    base = sizing.rule_constant("memory_baseline_mb")
    per_cpu = sizing.rule_constant("memory_per_cpu_mb")
    included = sizing.rule_constant("users_before_extra_memory")
    evidence = (f"The {cpus}-CPU example gives {printed:g} MB = {cpus} x {per_cpu:g} MB, so the "
                f"baseline is not added on top ({base:g} + {cpus} x {per_cpu:g} would be "
                f"{additive:g} MB): the rule reproduces its example only if baseline and "
                f"per-CPU memory overlap. The user term is {per_user:g} KB = "
                f"{per_user / sizing.KB_PER_MB:g} MB per user beyond {included:g}.")
    return verdict, evidence, {"example_mb": as_example, "additive_mb": additive}


@check("IP-C6", document=DOC,
       statement="Bandwidth: 50 users x 24 kB / 5 s = 240 KB/s = 1920 kbit/s, so two T1 lines "
                 "of 1544 kbit/s")
def _c6() -> tuple[str, str, dict[str, Any]]:
    users = stated.number(DOC, "peak_users")
    size = stated.number(DOC, "average_document_size")
    seconds = stated.number(DOC, "transfer_time")
    kb_s = sizing.bandwidth_kb_s(users, size, seconds)
    kbit = sizing.bandwidth_kbit_s(users, size, seconds)
    kbit_binary = sizing.bandwidth_kbit_s(users, size, seconds, bytes_per_kb=1024)
    lines = sizing.t1_lines(kbit)
    ok = (math.isclose(kb_s, stated.number(DOC, "bandwidth_needed"))
          and math.isclose(kbit, stated.number(DOC, "bandwidth_needed_kbit"))
          and lines == stated.number(DOC, "t1_lines_needed"))
    line = sizing.rule_constant("t1_line_kbit_s")
    evidence = (f"{users:g} x {size:g} kB / {seconds:g} s = {kb_s:g} kB/s = {kbit:g} kbit/s with "
                f"1 kB = 1000 bytes ({kbit_binary:g} kbit/s with 1024); {kbit:g} / {line:g} = "
                f"{kbit / line:.2f} T1 lines, rounded up to {lines}.")
    return ("supported" if ok else "contradicted"), evidence, {"kbit_s": kbit, "lines": lines}


@check("IP-C7", document=DOC,
       statement="Java stress test: over 1.8 million servlets and JSPs per hour at 76-78 % CPU "
                 "on 4 x 400 MHz UltraSPARC")
def _c7() -> tuple[str, str, dict[str, Any]]:
    per_hour = stated.number(DOC, "servlets_jsps_per_hour")
    cpus = stated.number(DOC, "stress_test_cpus")
    mhz = stated.number(DOC, "stress_test_cpu_clock")
    u_low, u_high = (stated.number(DOC, "cpu_utilization_low") / 100,
                     stated.number(DOC, "cpu_utilization_high") / 100)
    idle = stated.number(DOC, "idle_time_min")
    rate = per_hour / 3600
    demand = [u * cpus / rate for u in (u_low, u_high)]  # utilization law, m CPUs
    ceiling = [cpus / d for d in reversed(demand)]
    consistent = 100 * (1 - u_high) > idle
    evidence = ((f"{UNTESTED_MARK}: one run, and nothing it measured beyond these figures "
                 "survives. "
                 if consistent else
                 f"The stated {100 * u_high:g} % CPU leaves {100 * (1 - u_high):g} % idle, not "
                 f"'over {idle:g} %': the two statements cannot both hold. ")
                + f"{per_hour:,.0f} per hour = {rate:g} per second; "
                f"{100 * (1 - u_high):g} % idle is "
                + (f"'over {idle:g} %', the text agreeing with itself. "
                   if consistent else f"not 'over {idle:g} %'. ")
                + f"The book's analysis: by the utilization law D = U x CPUs / X the CPU time "
                f"per request is {1000 * demand[0]:.2f}-{1000 * demand[1]:.2f} ms (about "
                f"{demand[1] * mhz:.2f} million cycles at {mhz:g} MHz), so the CPUs alone would "
                f"cap the rate at {ceiling[0]:.0f}-{ceiling[1]:.0f}/s.")
    return ("not testable" if consistent else "contradicted"), evidence, {
        "rate_per_s": rate, "demand_s": demand, "cpu_ceiling_per_s": ceiling}


@check("IP-C8", document=DOC,
       statement="Session threads are added from the connection-queue backlog in ThreadIncrement "
                 "steps, decided every 16 or 32 connections, never beyond RqThrottle")
def _c8() -> tuple[str, str, dict[str, Any]]:
    run = thread_posting.simulate_posting(**POSTING_CHECK)
    s, cfg = run.summary, run.settings
    light = run.phases.iloc[0]
    light_threads = int(light["threads_at_end"])
    steps = sorted(set(run.additions["added"]))
    whole_steps = all(a % cfg["thread_increment"] == 0 or t == cfg["rq_throttle"]
                      for a, t in zip(run.additions["added"], run.additions["threads"],
                                      strict=True))
    as_described = bool(s["peak_threads"] <= cfg["rq_throttle"]
                        and light_threads == cfg["rq_throttle_min"]
                        and s["final_threads"] > cfg["rq_throttle_min"] and whole_steps)
    room = cfg["rq_throttle"] > cfg["rq_throttle_min"]
    evidence = ((f"{UNTESTED_MARK}: it describes a mechanism, gives no ThreadIncrement "
                 "default, nor when 16 or 32 applies, and reports no run of it. "
                 if room else
                 f"The stated defaults leave the pool no room to grow (RqThrottleMin "
                 f"{cfg['rq_throttle_min']}, RqThrottle {cfg['rq_throttle']}): threads cannot "
                 "be added as described and stay within RqThrottle. ")
                + f"The book's simulation of the policy (RqThrottleMin "
                f"{cfg['rq_throttle_min']}, RqThrottle {cfg['rq_throttle']}, a decision every "
                f"{cfg['check_every']} connections; ThreadIncrement {cfg['thread_increment']} "
                f"and {cfg['service_time']:g} s requests are the book's choices): at "
                f"{light['rate']:g}/s the pool stays at {light_threads}, under "
                f"{run.phases.iloc[1]['rate']:g}/s it grows in steps of "
                f"{'/'.join(str(a) for a in steps) or 'none'} to {s['peak_threads']} and no "
                "further.")
    return ("not testable" if room else "contradicted"), evidence, {
        **dict(s), "simulation_as_described": as_described}


def arithmetic_table() -> pd.DataFrame:
    """The numbers behind IP-C9: each check's computed and printed value, at printed precision.

    Columns: ``check``, ``kind`` (``printed``: a ratio, product or percentage the guide prints;
    ``implied``: a sum or limit the dumps imply but do not print; ``units``: a dump size against
    the stated default), ``computed``, ``printed`` (the printed or stated value), ``relation``
    (``=`` or ``<=``), ``holds``, ``decimals`` (the printed precision both were compared at).
    """
    c = cache_counters()
    nsfc = data.load(DOC, "file_cache_status").set_index(["label", "component"])["value"]
    defaults = data.load(DOC, "directive_defaults").set_index("setting")["default_number"]
    buckets = data.load(DOC, "performance_buckets").set_index(["scope", "statistic"])
    requests = buckets.loc[("server", "Total number of requests"), "total"]
    busy = buckets.loc[("server", "Request processing time"), "total"]
    bucket = buckets.loc["default-bucket"]
    hits = perfdump_number("perfdump_output", "Hit Ratio", "hits")
    lookups = perfdump_number("perfdump_output", "Hit Ratio", "lookups")
    medium = nsfc[("MediumFileSizeLimit", "value")]
    mapped = nsfc[("Mapped memory used for medium file contents", "total")]
    pct, count = 2, 0  # decimals printed
    rows = [
        ("perfdump hit ratio (%)", "printed", 100 * hits / lookups,
         perfdump_number("perfdump_output", "Hit Ratio", "percent"), "=", pct),
        ("nsfc lookup hits / lookups (%)", "printed", 100 * c["hits"] / c["lookups"],
         c["hit_percent"], "=", pct),
        ("cached entries x bytes each (bytes)", "printed", c["entries"] * c["bytes_each"],
         c["total_bytes"], "=", count),
        ("2 x MaxFiles + 1 = hash table size", "printed", 2 * c["max_files"] + 1,
         nsfc[("Hash table size", "value")], "=", count),
    ]
    for statistic, base in (("Number of Requests", requests), ("Latency", busy),
                            ("Function Processing Time", busy), ("Total Response Time", busy)):
        rows.append((f"default bucket: {statistic.lower()} (%)", "printed",
                     100 * bucket.loc[statistic, "total"] / base, bucket.loc[statistic, "percent"],
                     "=", pct))
    rows += [
        ("cached entries, at most MaxFiles", "implied", c["entries"], c["max_files"], "<=", count),
        ("outdated + replaced = total deleted", "implied",
         c["outdated_deleted"] + c["replacements"], c["total_deleted"], "=", count),
        ("file-info + file-content hits = lookup hits", "implied", c["info_plus_content_hits"],
         c["hits"], "=", count),
        ("all hits and misses = lookups", "implied", c["all_hits_and_misses"], c["lookups"], "=",
         count),
        (f"MediumFileSizeLimit: dump (= {medium / 1024:g} x 1024) = stated default", "units",
         medium, defaults["MediumFileSizeLimit"], "=", count),
        (f"medium-file space: dump (= {mapped / 1024 ** 2:g} x 1024²) = stated default", "units",
         mapped, defaults["medium file space"], "=", count),
    ]
    out = []
    for check_name, kind, computed, printed, relation, decimals in rows:
        value = round(float(computed), decimals)
        holds = value == float(printed) if relation == "=" else value <= float(printed)
        out.append({"check": check_name, "kind": kind, "computed": value,
                    "printed": float(printed), "relation": relation, "holds": bool(holds),
                    "decimals": decimals})
    return pd.DataFrame(out, columns=["check", "kind", "computed", "printed", "relation",
                                      "holds", "decimals"])


@check("IP-C9", document=DOC,
       statement="perfdump and file-cache arithmetic: hit ratios 93/190 = 48.95 % and "
                 "435877/720427 = 60.50 %, bucket percentages, 1039 entries x 112 bytes")
def _c9() -> tuple[str, str, dict[str, Any]]:
    table = arithmetic_table()
    c = cache_counters()
    printed = table[table["kind"] == "printed"]
    implied = table[table["kind"] != "printed"]
    # The claim is the arithmetic the guide prints; the sums the dumps imply but never state
    # (and the dump sizes against the stated defaults) are the book's reading of the sample.
    verdict = "supported" if printed["holds"].all() else "contradicted"
    deleted = c["outdated_deleted"] + c["replacements"]
    failed = printed.loc[~printed["holds"], "check"].tolist()
    evidence = (f"{printed['holds'].sum()} of {len(printed)} ratios, products and percentages "
                f"the guide prints hold (e.g. {c['hits']:g}/{c['lookups']:g} = "
                f"{100 * c['hits'] / c['lookups']:.2f} %, {c['entries']:g} x "
                f"{c['bytes_each']:g} = {c['entries'] * c['bytes_each']:g} bytes)"
                + (f"; {', '.join(failed)} do not." if failed else ".")
                + f" Beyond the claim, the book notes that {(~implied['holds']).sum()} of "
                f"{len(implied)} sums and sizes the nsfc dump implies but the guide never "
                f"states do not reconcile: {c['entries']:g} cached entries with MaxFiles "
                f"{c['max_files']:g}; {c['outdated_deleted']:g} outdated + "
                f"{c['replacements']:g} replaced = {deleted:g} vs {c['total_deleted']:g} "
                "deleted; file-info and file-content hits sum to "
                f"{c['info_plus_content_hits']:g}, not {c['hits']:g}, and with their misses to "
                f"{c['all_hits_and_misses']:g}, not {c['lookups']:g} lookups.")
    return verdict, evidence, {**c, "failed": table.loc[~table["holds"], "check"].tolist(),
                               "failed_printed": failed}
