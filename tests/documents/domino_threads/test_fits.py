"""queuetune.documents.domino_threads.fits: the stored thread-pool fits match a refit, and the
helpers read the data."""

from __future__ import annotations

import numpy as np
import pytest

from queuetune import data
from queuetune.documents.domino_threads import claims as dt
from queuetune.documents.domino_threads import fits as domino


def test_stored_domino_thread_pool_fit_matches_a_refit():
    stored = data.load_result("domino_thread_pool_fits")
    assert set(stored["case"]) == set(domino.CASES)
    assert set(stored["parameter"]) == set(domino.THREAD_POOL_FREE)
    live = domino.fit_case("webmail+cpu", "thread_pool", intervals="none")
    rows = stored[stored["case"] == "webmail+cpu"].set_index("parameter")
    for name in domino.THREAD_POOL_FREE:
        assert live.estimates[name] == pytest.approx(rows.loc[name, "estimate"], rel=1e-4,
                                                     abs=1e-9), name
        assert rows.loc[name, "low"] <= rows.loc[name, "estimate"] <= rows.loc[name, "high"]
    summary = data.load_result("domino_thread_pool_summary").set_index("case")
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


def test_thread_pool_at_runs_solves_each_run():
    from queuetune import thread_pool

    stored = data.load_result("domino_thread_pool_fits")
    est = stored[stored["case"] == "webmail"].set_index("parameter")["estimate"].to_dict()
    grid = domino.measurements()
    res = domino.thread_pool_at_runs(est)
    assert res.response_time.shape == (len(grid),)
    for i in (0, 7, 19):
        one = thread_pool(clients=int(grid["users"][i]), capacity=domino.capacity(),
                          threads=int(grid["threads"][i]),
                          cpu_time=est["cpu_time"], wait_time=est["wait_time"],
                          think_time=est["think_time"],
                          thread_overhead=est["thread_overhead"],
                          pool_overhead=est["pool_overhead"], method="fes")
        assert res.response_time[i] == pytest.approx(float(one.response_time))
    with pytest.raises(ValueError, match=r"lacks parameter\(s\) \['pool_overhead'\]"):
        domino.thread_pool_at_runs({k: v for k, v in est.items() if k != "pool_overhead"})


def test_row_change_compares_most_with_fewest_threads():
    grid = domino.measurements()
    change = domino.row_change(grid["webmail_response_time"].to_numpy())
    wide = dt.grid("webmail_response_time")
    expected = 100 * (wide[200] / wide[10] - 1)
    assert list(change.index) == list(wide.index)
    assert change.to_numpy() == pytest.approx(expected.to_numpy())
    assert (domino.row_change(np.ones(len(grid))) == 0).all()
    with pytest.raises(ValueError, match="values must hold one number per run"):
        domino.row_change(np.ones(3))
    with pytest.raises(ValueError, match="values must be .*finite numbers; element 2 is nan"):
        domino.row_change(np.r_[1.0, 1.0, np.nan, np.ones(len(grid) - 3)])
    fewest = grid["threads"] == grid["threads"].min()
    with pytest.raises(ValueError, match=r"values must not be 0 at the fewest threads \(10\)"):
        domino.row_change(np.where(fewest, 0.0, 1.0))


@pytest.mark.parametrize(("think_time", "response_time", "name"), [
    (-1.0, None, "think_time"), (float("nan"), None, "think_time"), ("100", None, "think_time"),
    (100.0, [0.5, 0.0], "response_time"), (100.0, [0.5, float("inf")], "response_time"),
    (100.0, [[0.5]], "response_time"), (1e300, None, "think_time"),
])
def test_implied_requests_per_script_refuses_bad_input_by_name(think_time, response_time, name):
    with pytest.raises(ValueError, match=f"^{name} must be"):
        domino.implied_requests_per_script(think_time, response_time)


def test_implied_requests_per_script_defaults_to_the_measured_webmail_times():
    grid = domino.measurements()
    r = grid["webmail_response_time"].to_numpy()
    assert domino.implied_requests_per_script(100.0) == pytest.approx(
        domino.script_period_s() / (100.0 + r.mean()))
    assert domino.implied_requests_per_script(100.0, r) == domino.implied_requests_per_script(
        100.0)
