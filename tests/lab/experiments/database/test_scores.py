"""The advice deployed, scored from the stored data set (the chapter *Does the advice hold?*)."""

from __future__ import annotations

import numpy as np
import pytest

from queuetune import sizing
from queuetune.lab import datasets
from queuetune.lab.experiments.database import scores

ADVICE = "database-advice-2026-12-02"
WORK = "database-work-2026-12-02"


@pytest.fixture(scope="module")
def scored():
    return scores.scores(ADVICE, resamples=200)


def test_the_sizing_of_the_stored_inputs_gives_the_stored_advice():
    """The advice is re-derived, not retyped: the same function on the stored inputs gives the
    deployed settings and the stored promise at the peak."""
    advice = scores.advice(ADVICE)
    again = scores.resized(ADVICE)
    assert (again.threads, again.capacity, again.connections) == (
        advice["threads"], advice["capacity"], advice["pool"])
    assert again.response_time == pytest.approx(advice["response_time"], rel=1e-9)
    assert again.response_time_p99 == pytest.approx(advice["response_time_p99"], rel=1e-9)
    assert again.saturation_multiple == pytest.approx(advice["saturation_multiple"], rel=1e-9)


def test_the_deployed_server_ran_the_advised_settings():
    advice = scores.advice(ADVICE)
    runs = datasets.load("runs", ADVICE)
    deployed = runs[runs["settings_from"] == "advice"]
    assert len(deployed) >= 5
    assert (deployed["threads"] == advice["threads"]).all()
    assert (deployed["threads"] + deployed["queue"] == advice["capacity"]).all()
    assert (deployed["pool"] == advice["pool"]).all()


def test_each_promise_is_the_answers_row_and_each_measure_lies_in_its_interval(scored):
    advice = scores.advice(ADVICE)
    at_peak = scored[(scored["multiple"] == 1.0) & (scored["quantity"] == "mean response")]
    assert at_peak["promised"].iloc[0] == pytest.approx(advice["response_time"], rel=1e-9)
    assert set(scored.loc[scored["kind"] == "promise", "multiple"]) <= set(sizing.MULTIPLES)
    finite = scored[np.isfinite(scored["measured"])]
    assert (finite["low"] <= finite["measured"] + 1e-12).all()
    assert (finite["measured"] <= finite["high"] + 1e-12).all()


def test_a_promise_is_kept_only_within_the_tolerance():
    assert scores.kept("mean response", 0.1, 0.109, 0.2, True)
    assert not scores.kept("mean response", 0.1, 0.111, 0.2, True)
    assert scores.kept("share refused", 0.0, 0.009, 0.02, True)
    assert not scores.kept("share refused", 0.0, 0.011, 0.02, True)
    assert scores.kept("throughput", 100.0, 80.0, 91.0, False)
    assert not scores.kept("throughput", 100.0, 80.0, 89.0, False)


def test_the_database_times_add_up_to_the_connections_hold():
    """Query and off-database wait, estimated apart, add up to the time the connection was
    held, per run, as Tomcat's access log has it."""
    times = scores.database_times(WORK, resamples=100)
    access = datasets.load("access", WORK)
    runs = datasets.load("runs", WORK).set_index("run")
    assert len(times) == (runs["kind"] == "load").sum()
    for row in times.itertuples():
        mine = access[(access["run"] == row.run) & (access["status"] == 200)]
        assert row.query + row.s_w == pytest.approx(mine["hold_us"].mean() / 1e6, rel=1e-9)
        assert row.s_w_low <= row.s_w <= row.s_w_high
        assert row.s_db_low <= row.s_db_high
