"""The three readings of the iPlanet guide's "scaling factor" (IP-C1)."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
from edits import set_value
from hypothesis import given
from hypothesis import strategies as st
from property_domain import (
    CALC,
    F,
    call,
    close,
)

from queuetune._validation import MAX_INTEGER
from queuetune.documents.iplanet_tuning import scaling

DOC = "iplanet-tuning"

FACTORS = st.floats(0.01, 1.0)
CPUS = st.integers(1, 64)


@pytest.mark.parametrize(("reading", "s4", "s8"), [
    ("efficiency", 2.6, 5.2), ("doubling", 2.7225, 4.492125), ("per_cpu", 2.95, 5.55)])
def test_sixty_five_percent_under_each_reading(reading, s4, s8):
    assert scaling.implied_speedup(0.65, 4, reading) == pytest.approx(s4)
    assert scaling.implied_speedup(0.65, 8, reading) == pytest.approx(s8)


@given(cpus=CPUS)
def test_one_hundred_percent_is_linear_under_every_reading(cpus):
    for reading in scaling.READINGS:
        assert scaling.implied_speedup(1.0, cpus, reading) == pytest.approx(cpus)


@given(factor=FACTORS)
def test_one_cpu_is_the_unit(factor):
    for reading in scaling.READINGS:
        assert scaling.implied_speedup(factor, 1, reading) == 1.0


@given(factor=FACTORS, k=st.integers(0, 6))
def test_doubling_multiplies_by_one_plus_factor(factor, k):
    n = 2 ** k
    assert scaling.implied_speedup(factor, 2 * n, "doubling") == pytest.approx(
        (1 + factor) * scaling.implied_speedup(factor, n, "doubling"))


@given(factor=FACTORS, cpus=st.integers(2, 64))
def test_readings_never_beat_linear_and_factor_round_trips(factor, cpus):
    for reading in scaling.READINGS:
        s = scaling.implied_speedup(factor, cpus, reading)
        assert s <= cpus * (1 + 1e-12)
        assert scaling.implied_factor(s, cpus, reading) == pytest.approx(factor)


@given(factor=FACTORS, cpus=st.integers(1, 63))
def test_speedup_grows_with_cpus_for_the_incremental_readings(factor, cpus):
    for reading in ("doubling", "per_cpu"):
        assert scaling.implied_speedup(factor, cpus + 1, reading) > \
            scaling.implied_speedup(factor, cpus, reading)


def test_java_summary_seventy_then_fifty_five_percent():
    java = [(4, 0.70), (math.inf, 0.55)]
    assert scaling.piecewise_speedup(java, 4, "doubling") == pytest.approx(1.7 ** 2)
    assert scaling.piecewise_speedup(java, 8, "doubling") == pytest.approx(1.7 ** 2 * 1.55)
    assert scaling.piecewise_speedup(java, 8, "per_cpu") == pytest.approx(1 + 3 * 0.7 + 4 * 0.55)
    assert scaling.piecewise_speedup(java, 8, "efficiency") == pytest.approx(8 * 0.55)
    assert scaling.piecewise_speedup(java, 4, "efficiency") == pytest.approx(4 * 0.70)


@given(factor=FACTORS, cpus=CPUS)
def test_one_segment_equals_a_constant_factor(factor, cpus):
    for reading in scaling.READINGS:
        assert scaling.piecewise_speedup([(math.inf, factor)], cpus, reading) == \
            pytest.approx(scaling.implied_speedup(factor, cpus, reading))


def test_segments_must_cover_the_cpu_count():
    with pytest.raises(ValueError, match="segments end"):
        scaling.piecewise_speedup([(4, 0.7)], 8, "doubling")
    assert scaling.piecewise_speedup([(4, 0.7)], 4, "per_cpu") == pytest.approx(3.1)


@pytest.mark.parametrize(("text", "value"), [("65%", 0.65), ("close to 100%", 1.0),
                                              ("60% (summary)", 0.6), ("95 %", 0.95)])
def test_parse_factor(text, value):
    assert scaling.parse_factor(text) == value


@pytest.mark.parametrize("text", ["", "close to", "70% then 55%", None, 65])
def test_parse_factor_rejects(text):
    with pytest.raises(ValueError, match="text"):
        scaling.parse_factor(text)


def test_figure_factors_read_from_the_data():
    table = scaling.figure_factors().set_index("figure_id")
    assert list(table.index) == ["IP-F1", "IP-F2", "IP-F3", "IP-F4", "IP-F5", "IP-F6",
                                 "IP-F7", "IP-F9", "IP-F10", "IP-F11", "IP-F12", "IP-F13"]
    assert table.loc["IP-F1", "factor"] == 0.65 and table.loc["IP-F2", "factor"] == 1.0
    # 8 CPUs only where the text says the content was measured up to 8 (Perl- and C-CGI);
    # not where it says the point is missing or "not at full capacity" (IP-F7), nor for the
    # Java figures, whose factor the summary replaces beyond 4 CPUs, nor where it says nothing.
    assert table.loc[["IP-F2", "IP-F3"], "top_cpus"].eq(8).all()
    assert table.drop(["IP-F2", "IP-F3"])["top_cpus"].eq(4).all()
    assert "not at full capacity" in table.loc["IP-F7", "why_top"]
    assert "no 8-CPU point" in table.loc["IP-F12", "why_top"]


def test_a_stated_8_cpu_measurement_extends_a_figure(altered):
    altered("stated_values", set_value("figure_id", "IP-F2,IP-F3,IP-F10",
                                       quantity="cgi_near_linear_up_to_cpus"))
    assert scaling.figure_factors().set_index("figure_id").loc["IP-F10", "top_cpus"] == 8


def test_recomputed_speedups_follow_the_reading():
    for reading in scaling.READINGS:
        frame = scaling.recomputed_speedups(reading)
        assert set(frame["reading"]) == {reading}
        for row in frame.itertuples():
            assert row.speedup == scaling.implied_speedup(row.factor, row.cpus, reading)
        assert frame.groupby("figure_id")["cpus"].max().to_dict()["IP-F1"] == 4
        assert set(frame["cpus"]) == {1, 2, 4, 8}  # only CPU counts the study ran


def test_speedup_frame_is_tidy():
    frame = scaling.speedup_frame({"a": 0.65, "java": [(4, 0.7), (math.inf, 0.55)]}, [1, 4, 8])
    assert len(frame) == 2 * 3 * 3
    row = frame[(frame["label"] == "a") & (frame["reading"] == "per_cpu") & (frame["cpus"] == 8)]
    assert row["speedup"].item() == pytest.approx(5.55)
    assert (frame["efficiency"] == frame["speedup"] / frame["cpus"]).all()


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("factor", [0, -0.1, 1.01, math.nan, "65%", None, True])
def test_bad_factor(factor):
    with pytest.raises(ValueError, match="factor"):
        scaling.implied_speedup(factor, 4)


@pytest.mark.parametrize("cpus", [0, -2, 1.5, "4", None, True])
def test_bad_cpus(cpus):
    with pytest.raises(ValueError, match="cpus"):
        scaling.implied_speedup(0.65, cpus)


def test_bad_reading():
    with pytest.raises(ValueError, match="reading"):
        scaling.implied_speedup(0.65, 4, "amdahl")


@pytest.mark.parametrize(("speedup", "cpus", "name"), [(0, 4, "speedup"), (math.inf, 4, "speedup"),
                                                       (2.0, 1, "cpus"), (2.0, 2.5, "cpus")])
def test_implied_factor_rejects(speedup, cpus, name):
    with pytest.raises(ValueError, match=name):
        scaling.implied_factor(speedup, cpus)


@pytest.mark.parametrize("segments", [[], "0.7", [(4, 0.7), (2, 0.5)], [(4,)],
                                      [(0.5, 0.7)], [(4, 1.5)]])
def test_bad_segments(segments):
    with pytest.raises(ValueError, match="segments"):
        scaling.piecewise_speedup(segments, 2)


@pytest.mark.parametrize(("kwargs", "name"), [({"factors": {}}, "factors"),
                                              ({"cpus": []}, "cpus"),
                                              ({"readings": "doubling"}, "readings")])
def test_speedup_frame_rejects(kwargs, name):
    args = {"factors": {"a": 0.5}, "cpus": [1, 2], "readings": scaling.READINGS, **kwargs}
    with pytest.raises(ValueError, match=name):
        scaling.speedup_frame(**args)


# --- a factor is read from a percentage whole, or refused -------------------------------------

PERCENTS = st.one_of(st.integers(0, 1000).map(str),
                     st.decimals(0, 1000, places=2, allow_nan=False).map(str))
#: Glued before a percentage's number, each makes another number or no number of it.
GLUED = st.sampled_from(["-", "+", ".", "1.2.", "2,", "x", "e", "0x"])


@given(PERCENTS, st.sampled_from(["", " ", "close to ", "about "]),
       st.sampled_from(["", " (summary)", " in all"]))
def test_parse_factor_reads_the_whole_percentage(number, before, after):
    assert scaling.parse_factor(f"{before}{number}%{after}") == float(number) / 100


@given(PERCENTS, GLUED)
def test_parse_factor_refuses_a_percentage_it_would_read_in_part(number, glued):
    """"-65%" is not 65 %, "1,5%" not 5 %: the message names the whole text."""
    text = f"{glued}{number}%"
    with pytest.raises(ValueError, match=f"got {re.escape(repr(text))}"):
        scaling.parse_factor(text)


@given(PERCENTS)
def test_parse_factor_refuses_a_second_percent_sign(number):
    with pytest.raises(ValueError, match="exactly one percentage"):
        scaling.parse_factor(f"{number}%%")


# --- over the whole domain (property tests): iplanet scaling


def factors():
    return st.one_of(st.floats(0, 1, exclude_min=True), st.sampled_from([5e-324, 1e-300, 1.0]))


BAD_FACTORS = [0.0, -0.1, 1.0000001, math.nan, math.inf, "0.65", None, True]
CPUS = st.one_of(st.integers(1, 64), st.integers(4000, 20_000),
                 st.sampled_from([10**9, MAX_INTEGER - 1, MAX_INTEGER]))


@st.composite
def segment_lists(draw):
    ends = sorted(draw(st.sets(st.one_of(st.integers(1, 5000), st.floats(1, 1e6)),
                               min_size=0, max_size=3)))
    segments = [(end, draw(factors())) for end in ends]
    if not segments or draw(st.booleans()):
        segments.append((math.inf, draw(factors())))
    return segments


def per_cpu_reference(segments, n: int) -> Fraction:
    """1 + the factor of every added CPU, CPU by CPU, in exact arithmetic."""
    total = F(1)
    for k in range(2, n + 1):
        total += next(F(f) for up_to, f in segments if k <= up_to)
    return total


@CALC
@given(segment_lists(), CPUS, st.sampled_from(scaling.READINGS), st.sampled_from(
    [None, "cpus", "segments", "reading"]))
def test_speedups_over_their_domain(segments, cpus, reading, bad):
    if bad == "cpus":
        cpus = [0, -1, 2.5, MAX_INTEGER + 2, 10**400, True, "8"][cpus % 7]
    elif bad == "segments":
        segments = [[], [(4, 0.0)], [(4, 0.5), (2, 0.5)], [(0.5, 0.5)], "65%"][cpus % 5]
    elif bad == "reading":
        reading = "linear"
    arguments = {"segments": segments, "cpus": cpus, "reading": reading}
    res = call(scaling.piecewise_speedup, arguments, ["segments", "cpus", "reading"])
    if res is None:
        return
    assert bad is None
    assert math.isfinite(res) and 0 < res <= cpus * (1 + 1e-12)
    covered = [f for up_to, f in segments if cpus <= up_to]
    if reading == "efficiency" and cpus > 1:
        assert close(res, F(covered[0]) * cpus, 1e-15)
    elif reading == "per_cpu" and cpus <= 20_000:  # CPU by CPU, also past 4096 CPUs
        assert close(res, per_cpu_reference(segments, cpus), 1e-12)
    elif reading == "per_cpu" and len(segments) == 1:
        assert close(res, 1 + F(segments[0][1]) * (cpus - 1), 1e-12)
    if len(segments) == 1 and segments[0][0] == math.inf:
        assert res == scaling.implied_speedup(segments[0][1], cpus, reading)


@CALC
@given(st.one_of(st.floats(0, 1e308, exclude_min=True), st.sampled_from([5e-324, 1e308])),
       st.one_of(CPUS, st.sampled_from([1, 0, 10**400, 2.5, MAX_INTEGER + 2])),
       st.sampled_from(scaling.READINGS), factors())
def test_implied_factor_over_its_domain(speedup, cpus, reading, factor):
    accepted = isinstance(cpus, int) and 2 <= cpus <= MAX_INTEGER
    res = call(scaling.implied_factor, {"speedup": speedup, "cpus": cpus, "reading": reading},
               ["cpus"])
    assert (res is not None) == accepted
    if res is None:
        return
    assert math.isfinite(res)
    if cpus <= 64 and factor > 1e-3:  # the inverse of implied_speedup
        s = scaling.implied_speedup(factor, cpus, reading)
        assert close(scaling.implied_factor(s, cpus, reading), factor, 1e-9)
