"""Claims audit of Zimmet & Florio Barber (1998), "Handling the Curves like a Pro" (DC-C1 … DC-C5).

The article's charts are images whose data are not in the text, so every check works from the
numbers its sentences state (``data/domino-curves/stated_values.csv``) and its tables: the
comparisons are recomputed, and the guidelines are checked against each other where nothing
measured survives to check them against.
"""

from __future__ import annotations

import re

from ... import data, stated
from ...audit import UNTESTED_MARK, check
from . import rules

DOC = "domino-curves"
# Within this many percentage points a recomputed percentage counts as the stated one.
TOLERANCE_PCT = 0.5
# A CPU cell of DC-T1, read whole: "One 233MHz Pentium II".
_CPU = re.compile(r"(?P<processors>[A-Za-z]+|[0-9]+) (?P<clock_mhz>[0-9]+)MHz (?P<model>\S.*)")


def processors(system: str) -> int:
    """Number of processors of ``system`` ("7000", "325", …: the name the text uses) in DC-T1."""
    table = data.load(DOC, "system_configurations")
    short = table["system"].str.split().str[-1]
    cpu = table[(short == system) & (table["property"] == "CPU")]["value"]
    if len(cpu) != 1:
        raise ValueError(f"system must be one of {sorted(set(short))}, got {system!r}")
    return stated.parse_count(cpu_description(str(cpu.iloc[0]))["processors"])


def cpu_description(text: str) -> dict[str, str]:
    """A CPU cell of DC-T1 read whole: "Two 200MHz Pentium Pro" -> processors "Two", clock
    "200" (MHz), model "Pentium Pro"; ``ValueError`` naming the text when it does not read so.

    >>> cpu_description("Two 200MHz Pentium Pro")
    {'processors': 'Two', 'clock_mhz': '200', 'model': 'Pentium Pro'}
    """
    match = _CPU.fullmatch(text)
    if match is None:
        raise ValueError(f"text must read '<processors> <clock>MHz <model>' (e.g. 'One 233MHz "
                         f"Pentium II'), got {text!r}")
    return match.groupdict()


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE_PCT


@check("DC-C1", document=DOC,
       statement="At 1200 Mail users system 7000 uses 40 % of the CPU ('20 percent times two "
                 "processors') and system 325 65 %: 'an over 50 percent gain in processor "
                 "requirements'")
def _c1():
    users = stated.number(DOC, "mail_users_compared")
    cpu_7000 = stated.number(DOC, "cpu_7000_at_1200_mail_users")
    per_processor = stated.number(DOC, "cpu_7000_per_processor_at_1200_mail_users")
    cpu_325 = stated.number(DOC, "cpu_325_at_1200_mail_users")
    stated_gain = stated.number(DOC, "stated_gain")
    n_7000, n_325 = processors("7000"), processors("325")
    more_325 = rules.percent_change(cpu_7000, cpu_325)        # 325 relative to 7000
    less_7000 = -rules.percent_change(cpu_325, cpu_7000)      # 7000's saving relative to 325
    # PerfMon's % Total Processor Time is the average over processors: at 20 % each it reads 20.
    perfmon_7000 = per_processor
    equivalents_7000 = rules.processor_equivalents(per_processor, n_7000)
    equivalents_325 = rules.processor_equivalents(cpu_325, n_325)
    more_325_perfmon = rules.percent_change(perfmon_7000, cpu_325)
    values = {
        "users": users, "cpu_7000_pct": cpu_7000, "cpu_7000_per_processor_pct": per_processor,
        "cpu_325_pct": cpu_325, "stated_gain_pct": stated_gain,
        "processors_7000": n_7000, "processors_325": n_325,
        "more_cpu_325_vs_7000_pct": more_325, "less_cpu_7000_vs_325_pct": less_7000,
        "processor_equivalents_7000": equivalents_7000,
        "processor_equivalents_325": equivalents_325,
        "perfmon_total_processor_time_7000_pct": perfmon_7000,
        "more_cpu_325_vs_7000_perfmon_pct": more_325_perfmon,
        "difference_points": cpu_325 - cpu_7000,
    }
    over_one_way = more_325 > stated_gain
    over_other_way = less_7000 > stated_gain
    sum_reading = _close(per_processor * n_7000, cpu_7000)
    if over_one_way and over_other_way:
        verdict = "supported"
    elif over_one_way or over_other_way:
        verdict = "partly"
    else:
        verdict = "contradicted"
    evidence = (
        f"{cpu_325:g} % is {more_325:.1f} % more than {cpu_7000:g} %, so 'over "
        f"{stated_gain:g} percent' holds for system 325's extra requirement, but system 7000 "
        f"saves only {less_7000:.1f} % relative to system 325; and "
        f"{cpu_7000:g} % is {per_processor:g} % × {n_7000} processors "
        f"({equivalents_7000:g} processors' worth against {equivalents_325:g}), while "
        f"PerfMon's % Total Processor Time, an average over processors, would read "
        f"{perfmon_7000:g} %"
        + ("" if sum_reading else " (and the stated product does not match)")
        + "."
    )
    return verdict, evidence, values


@check("DC-C2", document=DOC,
       statement="Groupware at 45 % CPU: 375 users on system 7000 against 250 on system 704, "
                 "'(375-250)/250 is a 50 percent increase in the capacity'")
def _c2():
    users_7000 = stated.number(DOC, "groupware_users_7000_at_45_pct_cpu")
    users_704 = stated.number(DOC, "groupware_users_704_at_45_pct_cpu")
    cpu = stated.number(DOC, "cpu_compared")
    stated_increase = stated.number(DOC, "stated_capacity_increase")
    increase = rules.percent_change(users_704, users_7000)
    n_7000, n_704 = processors("7000"), processors("704")
    # If the 45 % were PerfMon's average over processors, users per processor's worth of work:
    per_equivalent_7000 = users_7000 / rules.processor_equivalents(cpu, n_7000)
    per_equivalent_704 = users_704 / rules.processor_equivalents(cpu, n_704)
    values = {
        "users_7000": users_7000, "users_704": users_704, "cpu_pct": cpu,
        "stated_increase_pct": stated_increase, "increase_pct": increase,
        "processors_7000": n_7000, "processors_704": n_704,
        "users_per_processor_equivalent_7000": per_equivalent_7000,
        "users_per_processor_equivalent_704": per_equivalent_704,
    }
    verdict = "supported" if _close(increase, stated_increase) else "contradicted"
    evidence = (f"({users_7000:g} − {users_704:g})/{users_704:g} = {increase:.1f} % at "
                f"{cpu:g} % CPU on both systems; stated {stated_increase:g} %.")
    return verdict, evidence, values


@check("DC-C3", document=DOC,
       statement="CPU per user .025 at 200 users and .05 at 500 users: 'a 50 percent increase "
                 "in the capacity requirements'")
def _c3():
    users_low, users_high = stated.number(DOC, "users_low"), stated.number(DOC, "users_high")
    per_user_low = stated.number(DOC, "cpu_per_user_at_200_users")
    per_user_high = stated.number(DOC, "cpu_per_user_at_500_users")
    stated_increase = stated.number(DOC, "stated_increase")
    per_user_increase = rules.percent_change(per_user_low, per_user_high)
    total_low, total_high = users_low * per_user_low, users_high * per_user_high
    total_increase = rules.percent_change(total_low, total_high)
    # The one reading that gives the stated figure: the change measured against the new value.
    against_new = 100.0 * (per_user_high - per_user_low) / per_user_high
    values = {
        "users_low": users_low, "users_high": users_high,
        "cpu_per_user_low": per_user_low, "cpu_per_user_high": per_user_high,
        "stated_increase_pct": stated_increase, "per_user_increase_pct": per_user_increase,
        "total_cpu_low": total_low, "total_cpu_high": total_high,
        "total_increase_pct": total_increase, "change_against_new_value_pct": against_new,
    }
    if _close(per_user_increase, stated_increase) or _close(total_increase, stated_increase):
        verdict = "supported"
    else:
        verdict = "contradicted"
    evidence = (
        f"{per_user_low:g} → {per_user_high:g} per user is a {per_user_increase:.0f} % "
        f"increase and the total ({users_low:g} × {per_user_low:g} = {total_low:g} → "
        f"{users_high:g} × {per_user_high:g} = {total_high:g}) a {total_increase:.0f} % one; "
        f"stated {stated_increase:g} %."
    )
    if verdict == "contradicted" and _close(against_new, stated_increase):
        evidence += (f" Only dividing the change by the {users_high:g}-user value gives it: "
                     f"({per_user_high:g} − {per_user_low:g})/{per_user_high:g} = "
                     f"{against_new:.0f} %.")
    return verdict, evidence, values


@check("DC-C4", document=DOC,
       statement="Production CPU ceiling in the 75 % range (NotesBench: about 70 %); average "
                 "about 30 %; leave at least 4 MB free; pages/s should not exceed 15 to 20; a "
                 "disk queue above two is dangerous")
def _c4():
    ceilings = {
        "submission guideline (DC-T3), upper end": stated.number(DOC, "submitted_cpu_high"),
        "NotesBench Consortium recommendation": stated.number(DOC, "notesbench_cpu_recommendation"),
        "production maximum": stated.number(DOC, "production_cpu_max"),
        "'guidelines which require a maximum'": stated.number(DOC, "guideline_cpu_max"),
    }
    readings = {
        "7000, 1200 Mail users, per processor":
            stated.number(DOC, "cpu_7000_per_processor_at_1200_mail_users"),
        "7000, 1200 Mail users, 'absolute terms'":
            stated.number(DOC, "cpu_7000_at_1200_mail_users"),
        "325, 1200 Mail users": stated.number(DOC, "cpu_325_at_1200_mail_users"),
        "7000 and 704, Groupware": stated.number(DOC, "cpu_compared"),
    }
    averages = (stated.number(DOC, "average_cpu"), stated.number(DOC, "chart_average_cpu"))
    pages = ((stated.number(DOC, "pages_per_second_max_low"),
              stated.number(DOC, "pages_per_second_max_high")),
             (stated.number(DOC, "industry_pages_per_second_low"),
              stated.number(DOC, "industry_pages_per_second_high")))
    memory = data.load(DOC, "system_configurations")
    installed_mb = memory.loc[memory["property"] == "Memory", "value"].map(
        lambda v: stated.parse_number(str(v).removesuffix("MB")))
    free_mb = stated.number(DOC, "min_free_memory")
    lowest, highest = min(ceilings.values()), max(ceilings.values())
    values = {
        "ceilings_pct": ceilings, "ceiling_spread_points": highest - lowest,
        "submitted_cpu_low_pct": stated.number(DOC, "submitted_cpu_low"),
        "stated_readings_pct": readings, "highest_reading_pct": max(readings.values()),
        "average_cpu_pct": averages, "pages_per_second_guidelines": pages,
        "min_free_memory_mb": free_mb,
        "free_share_of_installed_pct": (float(100 * free_mb / installed_mb.max()),
                                        float(100 * free_mb / installed_mb.min())),
        "dangerous_disk_queue_length": stated.number(DOC, "dangerous_disk_queue_length"),
    }
    readings_under = max(readings.values()) <= lowest
    repeats_agree = averages[0] == averages[1] and pages[0] == pages[1]
    ceilings_agree = highest == lowest
    values["readings_under_ceilings"] = readings_under
    values["repeats_agree"] = repeats_agree
    values["ceilings_agree"] = ceilings_agree
    span = f"{min(readings.values()):g}-{max(readings.values()):g} %"
    agree = f"average {averages[0]:g} %, pages/s {pages[0][0]:g}-{pages[0][1]:g}"
    parts = [
        f"{UNTESTED_MARK}: these are guidelines, and no CPU, memory, paging or disk-queue "
        "reading of a production server survives to test them against. The text only agrees "
        "or disagrees with itself:",
        f"every stated CPU reading ({span}) lies under every ceiling" if readings_under
        else f"a stated CPU reading ({span}) exceeds the lowest ceiling ({lowest:g} %)",
        f"and the repeated figures agree ({agree})" if repeats_agree
        else "and the repeated average or pages/s figures differ",
    ]
    if ceilings_agree:
        parts.append(f"and every ceiling is {lowest:g} %.")
    else:
        parts.append(
            f", but the ceiling itself is printed as {stated.number(DOC, 'submitted_cpu_low'):g}-"
            f"{ceilings['submission guideline (DC-T3), upper end']:g} %, about "
            f"{ceilings['NotesBench Consortium recommendation']:g} % and "
            f"{ceilings['production maximum']:g} % ({highest - lowest:g} points apart).")
    evidence = " ".join(parts[:3]) + (" " if ceilings_agree else "") + parts[3]
    return "not testable", evidence, values


@check("DC-C5", document=DOC,
       statement="Groupware probe response: system 704 performs better than system 7000 up to "
                 "about 325 users ('more than 300 and less than 350')")
def _c5():
    crossover = stated.number(DOC, "crossover_users")
    above = stated.number(DOC, "crossover_users_above")
    below = stated.number(DOC, "crossover_users_below")
    overhead_until = stated.number(DOC, "overhead_until_users")
    steep = (stated.number(DOC, "steep_slope_from_users"),
             stated.number(DOC, "steep_slope_to_users"))
    small = (stated.number(DOC, "small_slope_from_users"),
             stated.number(DOC, "small_slope_to_users"))
    cpu_better_above = stated.number(DOC, "groupware_7000_better_above_users")
    inside = above < crossover < below and overhead_until == crossover
    steep_matches = steep == (above, below)
    values = {
        "crossover_users": crossover, "bounds_users": (above, below),
        "overhead_until_users": overhead_until, "steep_slope_users": steep,
        "small_slope_users": small, "cpu_7000_better_above_users": cpu_better_above,
        "consistent": inside and steep_matches,
    }
    evidence = (
        f"{UNTESTED_MARK}: no probe response time is stated, so the crossover cannot be "
        f"located. The text is "
        f"consistent with itself: {crossover:g} users lies within its bounds "
        f"({above:g}, {below:g}), "
        + ("and" if steep_matches else "but")
        + f" the 704 curve steepens over {steep[0]:g}-{steep[1]:g} users"
        + (", the same interval." if steep_matches else ", another interval.")
    )
    return "not testable", evidence, values
