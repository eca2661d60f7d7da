"""Claims audit of Zimmet & Florio Barber (1998), DC-C1 … DC-C5: on the transcribed numbers,
and on altered copies of them, so that each verdict is shown to follow from the numbers."""

from __future__ import annotations

import re

import edits
import pytest
from hypothesis import given
from hypothesis import strategies as st

from queuetune import audit, stated
from queuetune.documents.domino_curves import claims as dc

DOC = "domino-curves"


def n(quantity: str) -> float:
    return stated.number(DOC, quantity)


def test_verdicts_on_the_transcribed_numbers():
    verdicts = dict(zip(*audit.findings(DOC)[["id", "verdict"]].T.values, strict=True))
    assert verdicts == {"DC-C1": "partly", "DC-C2": "supported", "DC-C3": "contradicted",
                        "DC-C4": "not testable", "DC-C5": "not testable"}


def test_processors_are_read_from_the_configuration_table():
    assert dc.processors("7000") == 2
    assert dc.processors("325") == dc.processors("704") == 1
    with pytest.raises(ValueError, match="system must be one of"):
        dc.processors("9000")


# -- DC-C1: "an over 50 percent gain" ---------------------------------------------------------

@given(st.sampled_from(["One", "Two", "4"]), st.integers(1, 9999),
       st.sampled_from(["Pentium Pro", "Pentium II"]))
def test_cpu_description_reads_a_cell_whole(count, clock, model):
    assert dc.cpu_description(f"{count} {clock}MHz {model}") == {
        "processors": count, "clock_mhz": str(clock), "model": model}


@given(st.integers(1, 9999), st.sampled_from(["1.5GHz", "200 MHz", "MHz", "-200MHz", "2.5MHz"]))
def test_cpu_description_refuses_a_cell_it_would_read_in_part(clock, printed):
    """Not "One" and a clock read from part of the cell: the whole cell, or ValueError."""
    text = f"One {printed.replace('200', str(clock))} Pentium Pro"
    with pytest.raises(ValueError, match=f"got {re.escape(repr(text))}"):
        dc.cpu_description(text)


def test_c1_percentages_both_ways_and_per_processor():
    values = audit.run("DC-C1").values
    assert values["more_cpu_325_vs_7000_pct"] == pytest.approx(62.5)
    assert values["less_cpu_7000_vs_325_pct"] == pytest.approx(100 * 25 / 65)
    assert values["processor_equivalents_7000"] == pytest.approx(0.4)
    assert values["processor_equivalents_325"] == pytest.approx(0.65)
    assert values["perfmon_total_processor_time_7000_pct"] == 20
    evidence = audit.run("DC-C1").evidence
    assert "62.5 %" in evidence and "38.5 %" in evidence and "would read 20 %" in evidence


def test_c1_supported_when_the_gain_exceeds_50_percent_both_ways(altered):
    # 125 % more, 55.6 % less
    altered("stated_values", edits.stated("cpu_325_at_1200_mail_users", "90"))
    assert audit.run("DC-C1").verdict == "supported"


def test_c1_contradicted_when_neither_way_exceeds_50_percent(altered):
    # 37.5 % more, 27 % less
    altered("stated_values", edits.stated("cpu_325_at_1200_mail_users", "55"))
    assert audit.run("DC-C1").verdict == "contradicted"


def test_c1_flags_a_product_that_does_not_match(altered):
    altered("stated_values", edits.stated("cpu_7000_per_processor_at_1200_mail_users", "25"))
    assert "does not match" in audit.run("DC-C1").evidence


# -- DC-C2: (375 - 250)/250 ---------------------------------------------------------------------

def test_c2_recomputes_the_capacity_increase():
    found = audit.run("DC-C2")
    assert found.values["increase_pct"] == pytest.approx(50)
    assert found.values["users_per_processor_equivalent_7000"] == pytest.approx(375 / 0.9)
    assert found.values["users_per_processor_equivalent_704"] == pytest.approx(250 / 0.45)
    assert "50.0 %" in found.evidence


def test_c2_contradicted_when_the_users_give_another_increase(altered):
    altered("stated_values", edits.stated("groupware_users_704_at_45_pct_cpu", "300"))  # 25 %
    found = audit.run("DC-C2")
    assert found.verdict == "contradicted"
    assert found.values["increase_pct"] == pytest.approx(25)


# -- DC-C3: .025 -> .05 per user ----------------------------------------------------------------

def test_c3_per_user_and_total_increase():
    values = audit.run("DC-C3").values
    assert values["per_user_increase_pct"] == pytest.approx(100)
    assert values["total_cpu_low"] == pytest.approx(5)
    assert values["total_cpu_high"] == pytest.approx(25)
    assert values["total_increase_pct"] == pytest.approx(400)
    assert values["change_against_new_value_pct"] == pytest.approx(50)
    assert "dividing the change by the 500-user value" in audit.run("DC-C3").evidence


def test_c3_supported_when_the_stated_increase_is_the_per_user_one(altered):
    altered("stated_values", edits.stated("stated_increase", "100"))
    found = audit.run("DC-C3")
    assert found.verdict == "supported"
    assert "dividing" not in found.evidence


def test_c3_no_division_remark_when_no_reading_gives_the_stated_figure(altered):
    altered("stated_values", edits.stated("stated_increase", "75"))
    found = audit.run("DC-C3")
    assert found.verdict == "contradicted"
    assert "dividing" not in found.evidence


# -- DC-C4: the guidelines ------------------------------------------------------------------------

def test_c4_ceilings_disagree_by_five_points():
    values = audit.run("DC-C4").values
    assert values["ceiling_spread_points"] == n("production_cpu_max") - n("submitted_cpu_high")
    assert values["ceiling_spread_points"] == 5
    assert values["highest_reading_pct"] == n("cpu_325_at_1200_mail_users")
    assert values["free_share_of_installed_pct"] == pytest.approx((100 * 4 / 1280, 100 * 4 / 320))
    assert values["dangerous_disk_queue_length"] == 2
    assert "5 points apart" in audit.run("DC-C4").evidence


def test_c4_stays_not_testable_when_every_ceiling_agrees(altered):
    # A text that agrees with itself is not evidence about the guidelines.
    altered("stated_values",
            edits.stated("production_cpu_max", "70"),
            edits.stated("guideline_cpu_max", "70"))
    found = audit.run("DC-C4")
    assert found.verdict == "not testable"
    assert found.values["ceilings_agree"] is True
    assert "every ceiling is 70 %" in found.evidence


def test_c4_reports_a_reading_above_a_ceiling_and_repeats_that_differ(altered):
    altered("stated_values",
            edits.stated("cpu_325_at_1200_mail_users", "72"),
            edits.stated("chart_average_cpu", "35"))
    found = audit.run("DC-C4")
    assert found.verdict == "not testable"
    assert found.values["readings_under_ceilings"] is False
    assert found.values["repeats_agree"] is False
    assert "exceeds the lowest ceiling" in found.evidence


# -- DC-C5: the crossover -------------------------------------------------------------------------

def test_c5_is_not_testable_but_consistent():
    found = audit.run("DC-C5")
    assert found.verdict == "not testable"
    assert found.values["consistent"] is True
    assert "the same interval" in found.evidence


def test_c5_reports_an_inconsistent_text(altered):
    altered("stated_values",
            edits.stated("steep_slope_from_users", "350"),
            edits.stated("steep_slope_to_users", "400"))
    found = audit.run("DC-C5")
    assert found.verdict == "not testable"
    assert found.values["consistent"] is False
    assert "another interval" in found.evidence
