"""The stored results of the fitting chapter match what the code computes now, and the helpers
behind the chapter (Imre region map, memory regression, goodness-of-fit chart) do what they say.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from queuelab import charts
from queuelab.audit import domino_threads as dt
from queuelab.fit import domino, imre_region

RESULTS = Path(__file__).resolve().parents[1] / "results"


@pytest.fixture(scope="module")
def region():
    return pd.read_csv(RESULTS / "imre_region.csv")


def test_region_csv_covers_the_default_grid_in_order(region):
    assert list(region.columns) == list(imre_region.COLUMNS)
    expected = [(s, t, p) for p in imre_region.POOL_OVERHEADS
                for t in imre_region.THREAD_OVERHEADS for s in imre_region.CPU_SHARES]
    got = list(region[["cpu_share", "thread_overhead", "pool_overhead"]]
               .itertuples(index=False, name=None))
    assert np.allclose(np.array(got), np.array(expected))
    held = region[list(imre_region.STATEMENTS)].sum(axis=1)
    assert (held == region["statements_held"]).all()


@pytest.mark.parametrize("index", [0, 137, 299, 461, 599])
def test_region_csv_matches_recomputation_at_sampled_cells(region, index):
    row = region.iloc[index]
    now = imre_region.evaluate(row["cpu_share"], row["thread_overhead"], row["pool_overhead"])
    for name in imre_region.STATEMENTS:
        assert now[name] == bool(row[name]), name
    assert now["statements_held"] == row["statements_held"]
    for name in ("q200_max_thread_gap", "q50_best_gain_100_threads",
                 "throughput_at_most_clients"):
        assert now[name] == pytest.approx(row[name], rel=1e-6, abs=1e-9), name


def test_region_statements_can_fail_and_hold():
    # the paper's own model (all of S on the CPU, no overhead): threads change nothing
    own = imre_region.evaluate(1.0)
    assert own["q200_threads_no_effect"] and not own["q50_more_threads_faster"]
    assert own["q50_faster_above_60"]
    # heavy contention: 100 threads drop more than 30 and are visibly slower at queue 200
    busy = imre_region.evaluate(1.0, 0.01)
    assert busy["q50_more_threads_more_errors"] and not busy["q200_threads_no_effect"]


def test_stored_domino_thread_pool_fit_matches_a_refit():
    stored = pd.read_csv(RESULTS / "domino_thread_pool_fits.csv")
    assert set(stored["case"]) == set(domino.CASES)
    assert set(stored["parameter"]) == set(domino.THREAD_POOL_FREE)
    live = domino.fit_case("webmail+cpu", "thread_pool", intervals="none")
    rows = stored[stored["case"] == "webmail+cpu"].set_index("parameter")
    for name in domino.THREAD_POOL_FREE:
        assert live.estimates[name] == pytest.approx(rows.loc[name, "estimate"], rel=1e-4,
                                                     abs=1e-9), name
        assert rows.loc[name, "low"] <= rows.loc[name, "estimate"] <= rows.loc[name, "high"]
    summary = pd.read_csv(RESULTS / "domino_thread_pool_summary.csv").set_index("case")
    assert summary.loc["webmail+cpu", "aicc"] == pytest.approx(live.aicc, rel=1e-6)


def test_domino_helpers_read_the_data():
    grid = domino.measurements()
    assert len(grid) == 20 and domino.capacity() == grid["users"].max()
    assert grid["utilization"].between(0, 1).all()
    period = domino.script_period_s()
    assert period == 15 * 60
    r = grid["webmail_response_time"].to_numpy()
    assert domino.implied_requests_per_script(100.0, r) == pytest.approx(
        period / (100.0 + r.mean()))
    with pytest.raises(ValueError, match="case must be one of"):
        domino.fit_case("nope", "mm1bk")


def test_memory_regression_slope_is_the_mean_of_the_per_load_slopes():
    # a balanced grid: the additive model's thread slope averages the per-load slopes
    joint = dt.memory_regression().set_index("term")
    per_load = dt.memory_per_thread()
    assert joint.loc["per thread", "estimate"] == pytest.approx(
        per_load["kb_per_thread"].mean())
    assert joint.loc["per thread", "low"] < joint.loc["per thread", "estimate"]
    assert joint.attrs["dof"] == 17
    crossed = dt.memory_regression(interaction=True)
    assert list(crossed["term"])[-1] == "per thread and user"
    with pytest.raises(ValueError, match="confidence"):
        dt.memory_regression(1.5)


def test_goodness_of_fit_chart_has_two_panels_tooltips_and_text():
    frame = pd.DataFrame({"obs": [1.0, 2.0, 3.0], "fit": [1.1, 1.9, 3.2],
                          "res": [-0.1, 0.1, -0.2], "users": [10, 20, 40],
                          "model": ["a", "a", "b"]})
    chart = charts.goodness_of_fit_chart(
        frame, observed="obs", fitted="fit", residual="res", x="users", series="model",
        title="T", description="D", value_title="R (s)", x_title="Users",
        residual_title="Residual", series_title="Model")
    spec = chart.to_dict()
    assert spec["title"] == "T" and spec["description"] == "D"
    assert len(spec["hconcat"]) == 2
    scatter = spec["hconcat"][0]["layer"][1]["encoding"]
    assert {t["field"] for t in scatter["tooltip"]} >= {"obs", "fit", "res", "users", "model"}
    with pytest.raises(ValueError, match="lacks column"):
        charts.goodness_of_fit_chart(
            frame, observed="nope", fitted="fit", residual="res", x="users",
            series="model", title="T", description="D", value_title="R (s)",
            x_title="Users", residual_title="Residual", series_title="Model")
