"""Claims audit of Nashed (2023): DK-C1 (raise the persistent-connection limit) and DK-C2
(internal consistency), on the transcribed data and on altered copies of it."""

from __future__ import annotations

import pytest
from edits import set_value

from queuetune import audit, data
from queuetune.documents.domino_keepalive import claims as dk

DOC = "domino-keepalive"


def test_both_claims_are_registered():
    assert audit.registered(DOC) == ["DK-C1", "DK-C2"]
    table = audit.findings(DOC)
    assert table["id"].tolist() == ["DK-C1", "DK-C2"]
    assert table["evidence"].str.len().min() > 40


def test_raising_the_limit_is_partly_supported():
    finding = audit.run("DK-C1")
    assert finding.verdict == "partly"
    v = finding.values
    assert (v["default"], v["documented_default"], v["recommended"], v["used"]) == (5, 5, 40, 100)
    assert v["settings_measured"] == [5, 10, 100]
    assert v["time_cut_pct"] == pytest.approx((180 - 81) / 180 * 100)
    assert v["run_time_cut_pct"] == pytest.approx((200 - 83) / 200 * 100)
    assert v["throughput_ratio"] == pytest.approx(200 / 83)
    assert v["share_of_gain_pct_at_second"] == pytest.approx((180 - 97) / (180 - 81) * 100)
    assert v["bracket_ms_at_recommended"] == (81.0, 97.0)
    # the model's value at 40 is a prediction and falls below the measured trend's bracket
    assert v["predicted_ms_at_recommended"] < 81
    assert "55 %" in finding.evidence and "prediction" in finding.evidence


def test_consistency_is_supported_with_the_mebibyte_reading():
    finding = audit.run("DK-C2")
    assert finding.verdict == "supported"
    assert finding.values["matching_readings"] == ["MiB = 2^20 bytes"]
    assert finding.values["mib"] == pytest.approx(58_870_000 / 2**20)
    assert "56.1 MiB" in finding.evidence and "9.0 to 9.8" in finding.evidence


def test_littles_law_table_matches_a_direct_computation():
    table = dk.consistency().set_index("test")
    results = data.load(DOC, "persistent_connection_results").set_index("test")
    for test, row in results.iterrows():
        expected = 10 * 1000 / row["total_run_time_s"] * row["average_request_time_ms"] / 1000
        assert table.loc[test, "in_flight"] == pytest.approx(expected)
        assert table.loc[test, "n_low"] < expected < table.loc[test, "n_high"]
        assert table.loc[test, "outside_ms_per_request"] == pytest.approx(
            row["total_run_time_s"] - row["average_request_time_ms"])  # s per 1000 = ms per 1
    assert table["in_flight"].round(1).tolist() == [9.0, 9.4, 9.8, 9.0]


def test_the_fit_uses_the_three_stated_settings_only():
    fit = dk.setup_cost_fit()
    assert fit.n.tolist() == [5, 10, 100]
    assert fit.dof == 1
    run = dk.setup_cost_fit("run_time_per_request_ms")
    assert run.t.tolist() == [200.0, 103.0, 83.0]
    with pytest.raises(ValueError, match="column must be"):
        dk.setup_cost_fit("total_run_time_s")


# --- altered copies of the data: the checks must notice -----------------------------------

def test_a_transfer_that_matches_no_reading_is_contradicted(altered):
    altered("load_settings", set_value("value", 70, setting="Total Transfer"))
    finding = audit.run("DK-C2")
    assert finding.verdict == "contradicted"
    assert "matches neither" in finding.evidence


def test_a_transfer_in_decimal_megabytes_is_also_consistent(altered):
    altered("load_settings", set_value("value", 59, setting="Total Transfer"))
    finding = audit.run("DK-C2")
    assert finding.verdict == "supported"
    assert finding.values["matching_readings"] == ["MB = 10^6 bytes"]


def test_more_requests_in_flight_than_threads_is_contradicted(altered):
    # 10 000 requests in 100 s at 180 ms each would need 18 threads busy at once
    altered("persistent_connection_results",
            set_value("total_run_time_s", 100, test="5 requests per connection"))
    finding = audit.run("DK-C2")
    assert finding.verdict == "contradicted"
    assert not finding.values["littles_law_within_threads"]
    assert not finding.values["run_time_above_bound"]


def test_slower_at_higher_settings_contradicts_the_advice(altered):
    altered("persistent_connection_results",
            set_value("average_request_time_ms", 190, test="100 requests per connection"))
    assert audit.run("DK-C1").verdict == "contradicted"


def test_a_measured_recommendation_would_be_supported(altered):
    altered("persistent_connection_results",
            set_value("requests_per_connection", 40, test="10 requests per connection"))
    finding = audit.run("DK-C1")
    assert finding.verdict == "supported"
