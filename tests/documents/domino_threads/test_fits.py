"""queuelab.documents.domino_threads.fits: the stored thread-pool fits match a refit, and the
helpers read the data."""

from __future__ import annotations

import pytest

from queuelab import data
from queuelab.documents.domino_threads import fits as domino


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
