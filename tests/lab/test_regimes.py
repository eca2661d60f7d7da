"""The regimes of a run: one band for every experiment and for the report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from queuetune.lab.regimes import KNEE_BAND, REGIMES, median_interval, regime_of


def test_the_band_ends_belong_to_the_knee():
    low, high = KNEE_BAND
    assert regime_of([low, high]).tolist() == [REGIMES[1], REGIMES[1]]
    assert regime_of([np.nextafter(low, 0), np.nextafter(high, 2)]).tolist() == [
        REGIMES[0], REGIMES[2]]


@given(st.lists(st.floats(1e-6, 1e6), min_size=1, max_size=20))
def test_regimes_follow_the_load(loads):
    names = regime_of(loads)
    ranks = [REGIMES.index(n) for n in names]
    order = np.argsort(loads, kind="stable")
    assert all(a <= b for a, b in zip(np.array(ranks)[order], np.array(ranks)[order][1:],
                                      strict=False))


@pytest.mark.parametrize("bad", [[0.0], [-1.0], [float("nan")], [float("inf")]])
def test_a_load_that_is_not_a_positive_number_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="load must"):
        regime_of(bad)


def test_median_interval_holds_the_median_and_resamples_whole_runs():
    rng = np.random.default_rng(5)
    values = np.array([1.0, 1.1, 5.0, 5.2, 9.0, 9.1])
    runs = np.array([1, 1, 2, 2, 3, 3])
    low, high = median_interval(values, groups=runs, rng=rng, resamples=500)
    assert low <= np.median(values) <= high
    # one run: its windows are resampled; one value: no interval
    low, high = median_interval([1.0, 2.0, 3.0], groups=[7, 7, 7], rng=rng)
    assert low < 2.0 < high
    assert all(np.isnan(median_interval([1.0], groups=[7], rng=rng)))
    with pytest.raises(ValueError, match="same length"):
        median_interval([1.0, 2.0], groups=[1], rng=rng)


def test_errors_by_regime_counts_runs_not_windows_and_keeps_refusals_apart():
    from queuetune.lab.regimes import errors_by_regime

    frame = pd.DataFrame({
        "model": "m", "regime": ["at the knee"] * 4 + ["below the knee"] * 2,
        "run": [1, 1, 2, 2, 3, 4],  # two runs of two windows at the knee
        "throughput_error": [0.1, 0.3, 0.2, 0.4, 0.0, 0.0],
        "response_time_error": [-0.1, -0.2, -0.3, -0.4, 0.0, 0.01],
        "refused_error": [0.0, 0.0, 0.05, 0.05, 0.0, 0.0],
        "e_model": [0.0, 0.0, 0.1, 0.1, 0.0, 0.0], "error_rate": [0.0, 0.0, 0.05, 0.05, 0, 0]})
    out = errors_by_regime(frame, by=["model", "regime"], seed=1).set_index(
        ["quantity", "regime"])
    assert out.loc[("throughput", "at the knee"), "runs"] == 2
    assert out.loc[("throughput", "at the knee"), "median error"] == pytest.approx(0.25)
    assert out.loc[("response time", "at the knee"), "largest error"] == pytest.approx(-0.4)
    assert out.loc[("share refused (points)", "at the knee"), "runs"] == 1
    assert ("share refused (points)", "below the knee") not in out.index
    assert out.index.get_level_values("regime")[0] == "below the knee"  # ordered by load
