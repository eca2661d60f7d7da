"""The blog's test re-measured on Tomcat: the chapter's helpers recomputed from the stored
data set's raw tables by other means."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from queuetune import data
from queuetune.documents.domino_keepalive import remeasured as tc


def _raw_runs() -> pd.DataFrame:
    raw = pd.read_csv(data.data_dir() / "lab" / tc.dataset_name() / "runs.csv")
    return raw.assign(valid=raw["valid"].astype(str) == "True")


def test_the_newest_data_set_wins_by_date_then_by_its_number():
    names = ["keepalive-tomcat-2026-11-27", "keepalive-tomcat-2026-11-27-2",
             "keepalive-tomcat-2026-11-27-10", "keepalive-tomcat-2026-11-26-3"]
    assert max(names, key=tc._key) == "keepalive-tomcat-2026-11-27-10"
    assert tc.metadata()["experiment"] == "keepalive"


def test_the_runs_sit_beside_the_blogs_tests_at_the_same_setting():
    beside = tc.beside_blog().set_index("test")
    raw = _raw_runs()
    assert len(beside) == len(raw)
    assert np.isnan(beside.loc["HTTP, keep-alive off", "blog_request_ms"])
    assert beside.loc["HTTP, 5 per connection", "blog_request_ms"] == tc.plain_blog_ms(5)
    https = raw[raw["scheme"] == "https"].iloc[0]
    assert beside.loc["HTTPS, 100 per connection", "tomcat_request_ms"] == pytest.approx(
        https["average_request_time_ms"])
    with pytest.raises(ValueError, match="n must be one of"):
        tc.plain_blog_ms(40)


def test_the_verdicts_follow_from_the_raw_runs():
    raw = _raw_runs()
    plain = raw[raw["scheme"] == "http"].set_index("keep_alive_requests")
    t = plain["average_request_time_ms"]
    tls = raw.loc[raw["scheme"] == "https", "average_request_time_ms"].iloc[0]
    verdicts = tc.what_holds().set_index("finding")["on Tomcat"].tolist()
    gained = t[100] < t[5]
    expected = [gained, gained and (t[5] - t[10]) > (t[5] - t[100]) / 2, tls > t[100],
                bool((plain["time_wait_server"].diff().dropna() < 0).all()), t[1] > t[5]]
    assert verdicts == ["holds" if e else "does not hold" for e in expected]
    valid = tc.what_holds()["from valid runs"]
    assert valid.tolist()[3] == bool(plain["valid"].all())


def test_the_connection_cost_is_fitted_to_the_four_plain_runs():
    fit = tc.fit()
    raw = _raw_runs().query("scheme == 'http'")
    x = 1 / raw["keep_alive_requests"].to_numpy()
    slope, intercept = np.polyfit(x, raw["average_request_time_ms"].to_numpy(), 1)
    assert fit.dof == len(raw) - 2
    assert fit.t_setup == pytest.approx(slope) and fit.t_request == pytest.approx(intercept)


def test_time_wait_is_told_apart_by_side_and_never_above_the_connections():
    tw = tc.time_wait()
    raw = _raw_runs().query("scheme == 'http'")
    assert (tw["connections"].to_numpy() == raw["connections_opened"].to_numpy()).all()
    assert ((tw["time_wait_server"] + tw["time_wait_client"]) <= tw["connections"]).all()
    assert (tw["closed_at_limit"] <= tw["connections"]).all()
    assert tw["server_share"].between(0, 1).all()


def test_the_chart_places_plain_http_and_draws_https_across():
    frame = tc.chart_frame()
    assert frame.loc[frame["test"].str.startswith("HTTPS"), "requests_per_connection"].isna().all()
    assert frame.loc[frame["test"].str.startswith("HTTP,"),
                     "requests_per_connection"].notna().all()
    assert "HTTPS" in tc.chart_description()
