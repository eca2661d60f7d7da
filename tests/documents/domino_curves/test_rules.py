"""Capacity rules of domino-curves (Zimmet & Florio Barber 1998) in queuetune.rules."""

from __future__ import annotations

import math
import shutil

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_domain import (
    BAD_AMOUNTS,
    BAD_INTS,
    BAD_MAGNITUDES,
    BAD_PERCENTS,
    CALC,
    amounts,
    call,
    close,
    counts,
    drawn,
    exact,
    maybe_refused,
    percents,
    times,
    unwrap,
)

from queuetune import data, stated
from queuetune.documents.domino_curves import rules
from queuetune.documents.domino_curves import rules as curves

DOC = "domino-curves"
positive = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False)
percent = st.floats(min_value=1e-3, max_value=100, allow_nan=False)


# -- percent_change ---------------------------------------------------------------------------

def test_percent_change_both_ways_round():
    assert rules.percent_change(40, 65) == pytest.approx(62.5)
    assert rules.percent_change(65, 40) == pytest.approx(-100 * 25 / 65)
    assert rules.percent_change(250, 375) == pytest.approx(50)
    assert rules.percent_change(7, 7) == 0


@given(base=positive, new=positive)
def test_percent_change_undoes_itself(base, new):
    back = base * (1 + rules.percent_change(base, new) / 100)
    assert back == pytest.approx(new, rel=1e-9, abs=1e-12 * base)


@pytest.mark.parametrize("base, new, name", [
    (0, 1, "base"), (-1, 1, "base"), (math.nan, 1, "base"), (True, 1, "base"),
    ("40", 65, "base"), (40, -1, "new"), (40, math.inf, "new"),
])
def test_percent_change_refuses_bad_input(base, new, name):
    with pytest.raises(ValueError, match=rf"^{name} must be (0 or )?a number in"):
        rules.percent_change(base, new)


# -- processor_equivalents ----------------------------------------------------------------------

def test_processor_equivalents_of_the_article_reading():
    per_processor = stated.number(DOC, "cpu_7000_per_processor_at_1200_mail_users")
    stated_total = stated.number(DOC, "cpu_7000_at_1200_mail_users")
    assert 100 * rules.processor_equivalents(per_processor, 2) == pytest.approx(stated_total)
    assert rules.processor_equivalents(65, 1) == pytest.approx(0.65)
    assert rules.processor_equivalents(100, 4) == 4


@pytest.mark.parametrize("pct, processors, name", [
    (-1, 1, "total_processor_time_pct"), (101, 1, "total_processor_time_pct"),
    (50, 0, "processors"), (50, 1.5, "processors"), (50, True, "processors"),
])
def test_processor_equivalents_refuses_bad_input(pct, processors, name):
    with pytest.raises(ValueError, match=rf"^{name} must be"):
        rules.processor_equivalents(pct, processors)


# -- cpu_headroom and users_at_cpu_ceiling --------------------------------------------------------

def test_headroom_is_negative_above_the_ceiling():
    assert rules.cpu_headroom(45, 75) == 30
    assert rules.cpu_headroom(80, 75) == -5
    assert rules.cpu_headroom(0, 100) == 100


@pytest.mark.parametrize("cpu, ceiling, name", [
    (-1, 75, "cpu_pct"), (120, 75, "cpu_pct"), (50, 0, "ceiling_pct"), (50, 101, "ceiling_pct"),
])
def test_headroom_refuses_bad_input(cpu, ceiling, name):
    with pytest.raises(ValueError, match=rf"^{name} must be a number in"):
        rules.cpu_headroom(cpu, ceiling)


def test_users_at_the_ceiling_scale_linearly():
    assert rules.users_at_cpu_ceiling(375, 45, 75) == pytest.approx(625)
    assert rules.users_at_cpu_ceiling(100, 50, 50) == pytest.approx(100)


@given(users=positive, cpu=percent, ceiling=percent)
def test_users_at_the_ceiling_use_the_ceiling_exactly(users, cpu, ceiling):
    at_ceiling = rules.users_at_cpu_ceiling(users, cpu, ceiling)
    assert at_ceiling * cpu / users == pytest.approx(ceiling, rel=1e-9)
    if ceiling > cpu * (1 + 1e-9):
        assert at_ceiling > users
    elif ceiling < cpu * (1 - 1e-9):
        assert at_ceiling < users


@pytest.mark.parametrize("users, cpu, ceiling, name", [
    (0, 45, 75, "users"), (375, 0, 75, "cpu_pct"), (375, 101, 75, "cpu_pct"),
    (375, 45, 0, "ceiling_pct"),
])
def test_users_at_the_ceiling_refuse_bad_input(users, cpu, ceiling, name):
    with pytest.raises(ValueError, match=rf"^{name} must be a number in"):
        rules.users_at_cpu_ceiling(users, cpu, ceiling)


# -- probe ratings --------------------------------------------------------------------------------

def test_probe_bands_follow_the_printed_classes_and_end_at_the_guideline():
    bands = rules.probe_rating_bands()
    assert bands["rating"].tolist() == data.load(DOC, "probe_ratings")["rating"].tolist()
    assert bands[["low_s", "high_s"]].values.tolist() == [[0, 1], [1, 3], [3, 5]]
    assert bands["high_s"].iloc[-1] == stated.number(DOC, "probe_response_time_max")


@pytest.mark.parametrize("seconds, rating", [
    (0, "fast"), (0.8, "fast"), (1, "fast"), (1.01, "medium"), (3, "medium"), (4.9, "slow"),
    (5, "slow"), (5.01, "over the guideline"),
])
def test_probe_rating_classes(seconds, rating):
    assert rules.probe_rating(seconds) == rating


def test_probe_rating_with_given_bands():
    bands = pd.DataFrame({"rating": ["quick", "sluggish"], "high_s": [0.5, 2.0]})
    assert rules.probe_rating(0.7, bands) == "sluggish"
    with pytest.raises(ValueError, match="bands lacks"):
        rules.probe_rating(0.7, bands.drop(columns="high_s"))


@pytest.mark.parametrize("seconds", [-0.1, math.nan, math.inf, "1"])
def test_probe_rating_refuses_bad_times(seconds):
    with pytest.raises(ValueError,
                       match=r"^response_time_s must be 0 or a number in \[1e-100, 1e\+100\] s"):
        rules.probe_rating(seconds)


def test_probe_bands_refuse_a_gap(tmp_path, monkeypatch):
    shutil.copytree(data.data_dir() / DOC, tmp_path / DOC)
    monkeypatch.setenv("QUEUETUNE_DATA", str(tmp_path))
    path = tmp_path / DOC / "probe_ratings.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.loc[frame["rating"] == "medium", "response_time_s"] = "two to three"
    frame.to_csv(path, index=False)
    with pytest.raises(ValueError, match="'medium' starts at 2 s"):
        rules.probe_rating_bands()


# -- mm1_stretch ----------------------------------------------------------------------------------

def test_mm1_stretch():
    assert rules.mm1_stretch(0) == 1
    assert rules.mm1_stretch(50) == pytest.approx(2)
    assert rules.mm1_stretch(75) == pytest.approx(4)


@pytest.mark.parametrize("utilization", [-1, 100, 150, math.nan])
def test_mm1_stretch_refuses_full_or_bad_utilization(utilization):
    with pytest.raises(ValueError, match=r"^utilization_pct must be a number in \[0, 100"):
        rules.mm1_stretch(utilization)


@CALC
@given(st.data())
def test_domino_curves_rules_over_their_domain(data):
    draw = data.draw
    arguments = drawn(draw, {"base": (times(), BAD_MAGNITUDES), "new": (amounts(), BAD_AMOUNTS)})
    change = call(curves.percent_change, arguments, [])
    if change is not None:
        a, _ = unwrap(arguments)
        want = 100 * (exact(a["new"]) - exact(a["base"])) / exact(a["base"])
        assert math.isfinite(change) and close(change, want, 1e-12)

    arguments = drawn(draw, {"total_processor_time_pct": (percents(), BAD_PERCENTS),
                             "processors": (counts(), BAD_INTS)})
    equivalents = call(curves.processor_equivalents, arguments, [])
    if equivalents is not None:
        a, _ = unwrap(arguments)
        assert math.isfinite(equivalents)
        assert close(equivalents, exact(a["total_processor_time_pct"]) / 100 * a["processors"],
                     1e-12)

    arguments = drawn(draw, {"cpu_pct": (percents(), BAD_PERCENTS),
                             "ceiling_pct": (st.floats(0, 100, exclude_min=True),
                                             BAD_PERCENTS + [0.0])})
    headroom = call(curves.cpu_headroom, arguments, [])
    if headroom is not None:
        assert math.isfinite(headroom) and -100 <= headroom <= 100

    arguments = drawn(draw, {"users": (times(), BAD_MAGNITUDES),
                             "cpu_pct": (percents(1e-100), BAD_PERCENTS + [0.0, 5e-324]),
                             "ceiling_pct": (percents(1e-100), BAD_PERCENTS + [0.0, 1e-300])})
    users = call(curves.users_at_cpu_ceiling, arguments, [])
    if users is not None:
        a, _ = unwrap(arguments)
        want = exact(a["users"]) * exact(a["ceiling_pct"]) / exact(a["cpu_pct"])
        assert math.isfinite(users) and close(users, want, 1e-12)

    arguments = {"response_time_s": maybe_refused(draw, "response_time_s", amounts(),
                                                  BAD_AMOUNTS, draw(st.sampled_from(
                                                      [None, None, "response_time_s"])))}
    rating = call(curves.probe_rating, arguments, [])
    if rating is not None:
        bands = curves.probe_rating_bands()
        seconds = unwrap(arguments)[0]["response_time_s"]
        assert rating in [*bands["rating"], "over the guideline"]
        assert (rating == "over the guideline") == (seconds > bands["high_s"].max())

    u = draw(st.one_of(percents(0, math.nextafter(100, 0)), st.sampled_from(
        [math.nextafter(100, 0), 100.0, -1.0, math.nan, 10**400, "50"])))
    stretch = call(curves.mm1_stretch, {"utilization_pct": u}, ["utilization_pct"])
    if stretch is not None:
        assert math.isfinite(stretch) and stretch >= 1
        assert close(stretch, 1 / (1 - exact(u) / 100), 1e-15)
