"""Claims audit of Imre, Bogárdi-Mészöly and Charaf (IM-C1 … IM-C6): the model computations
behind each verdict, on the transcribed data and on altered copies of it."""

from __future__ import annotations

import numpy as np
import pytest
from edits import stated

from queuetune import audit, mm1bk
from queuetune.documents.imre_appserver import claims as ia

DOC = "imre-appserver"


def test_every_claim_is_registered_with_evidence():
    ids = [f"IM-C{i}" for i in range(1, 7)]
    assert audit.registered(DOC) == ids
    table = audit.findings(DOC)
    assert table["id"].tolist() == ids
    assert table["evidence"].str.len().min() > 150


def test_verdicts():
    verdicts = {i: audit.run(i).verdict for i in audit.registered(DOC)}
    assert verdicts == {"IM-C1": "not testable", "IM-C2": "not testable", "IM-C3": "partly",
                        "IM-C4": "supported", "IM-C5": "contradicted",
                        "IM-C6": "not testable"}


def test_table1_and_the_model_inputs_come_from_the_data():
    assert ia.table1("threads") == [30, 100]
    assert ia.table1("queue") == [50, 200]
    assert ia.table1("clients") == list(range(10, 101, 10))
    assert (ia.think_time(), ia.service_time()) == (4.0, 0.14)
    assert ia.test_duration_s() == 1200
    with pytest.raises(ValueError, match="row must be one of"):
        ia.table1("servers")


def test_model_curves_are_mm1bk_at_every_client_count():
    curves = ia.model_curves()
    assert len(curves) == 2 * 100
    assert curves["capacity"].tolist() == [50] * 100 + [200] * 100
    row = curves[(curves["capacity"] == 50) & (curves["clients"] == 100)].iloc[0]
    direct = mm1bk(clients=100, capacity=50, service_time=0.14, think_time=4.0)
    for name in ("throughput", "response_time", "error_rate", "rejection_probability"):
        assert row[name] == pytest.approx(float(getattr(direct, name)), rel=1e-12)
    assert row["dropped_per_test"] == pytest.approx(float(direct.drop_rate) * 1200)
    # the share of requests refused never exceeds the time the server is full
    assert (curves["rejection_probability"] <= curves["error_rate"] + 1e-15).all()
    # a queue that holds every client refuses nothing
    assert (curves.loc[curves["clients"] <= curves["capacity"], "rejection_probability"]
            == 0).all()


def test_saturated_response_times_follow_the_closed_loop_laws():
    gaps = ia.response_time_gap().set_index("clients")
    # queue 200, saturated: R = K S - Z; queue 50: R below B S
    assert gaps.loc[100, "large_queue"] == pytest.approx(100 * 0.14 - 4.0, rel=1e-9)
    assert gaps["small_queue"].max() < 50 * 0.14
    assert (gaps.loc[:50, "gap"].abs() < 1e-9).all()
    with pytest.raises(ValueError, match="small must be below large"):
        ia.response_time_gap(200, 50)


def test_c2_the_visible_gap_starts_at_the_first_count_above_60():
    v = audit.run("IM-C2").values
    assert v["never_slower"] and v["same_up_to_small_queue"]
    assert v["first_clients_visible"] == 70
    assert v["first_measured_clients_visible"] == v["first_measured_clients_above_stated"] == 70
    assert v["gap_s_at_measured"][60] < 1e-3 < v["gap_s_at_measured"][70]
    assert v["response_time_at_top"][1] == pytest.approx(10.0)
    assert "the model agrees" in audit.run("IM-C2").evidence


def test_c3_errors_start_above_the_queue_and_small():
    finding = audit.run("IM-C3")
    v = finding.values
    assert v["model_zero_errors_large_queue"]
    assert v["first_clients_dropping"] == 51
    assert v["dropped_per_test"][60] < 1 < v["dropped_per_test"][70]
    assert 60 < v["first_clients_one_drop_per_test"] < 70
    assert v["rejection_at_top"] == pytest.approx(float(mm1bk(clients=100, capacity=50,
                                                              service_time=0.14, think_time=4.0)
                                                        .rejection_probability))
    assert "only with a contention overhead" in finding.evidence


def test_c4_saturation_is_one_over_s():
    v = audit.run("IM-C4").values
    assert v["one_over_S"] == pytest.approx(1 / 0.14)
    assert v["knee_clients"] == pytest.approx(1 + 4 / 0.14)
    assert v["relative_spread_between_queues"] < 1e-9
    assert v["model_at_most_clients"] == pytest.approx(1 / 0.14, rel=1e-9)


def test_c5_the_response_time_law_at_the_stated_level():
    finding = audit.run("IM-C5")
    v = finding.values
    assert v["response_time_at_stated_level"] == pytest.approx(100 / 7 - 4)
    assert v["response_time_at_stated_level"] > v["model_response_time_large"]
    assert v["ramp_up_throughput_share"] == pytest.approx(20 / 1200)
    assert v["model_rejection_small"] < v["model_error_rate_small"]
    assert "10.29 s" in finding.evidence and "10.00 s" in finding.evidence


def test_c6_the_extension_reduces_to_mm1bk_and_gives_one_ordering():
    v = audit.run("IM-C6").values
    assert v["reduces_to_mm1bk"]
    assert v["no_overhead"]["max_relative_response_time_change"] < 1e-9
    assert v["more_errors_with_more_threads"] and not v["faster_with_more_threads"]


@pytest.mark.parametrize("cpu_share", [1.0, 0.8, 0.5])
def test_contention_directions_do_not_hang_on_the_split(cpu_share):
    frame = ia.thread_pool_preview(50, clients=[80, 100], cpu_share=cpu_share,
                                   thread_overhead=ia.THREAD_OVERHEAD)
    few, many = (frame[frame["threads"] == t].set_index("clients") for t in (30, 100))
    assert (many["rejection_probability"] > few["rejection_probability"]).all()
    assert (many["response_time"] > few["response_time"]).all()


def test_thread_pool_preview_refuses_a_bad_split():
    with pytest.raises(ValueError, match="cpu_share must lie in"):
        ia.thread_pool_preview(50, cpu_share=0.0)


# --- altered copies of the data: the checks must notice -----------------------------------

def test_a_service_time_far_from_the_saturation_contradicts_c4(altered):
    altered("stated_values", stated("service_time_S", "0.2"))  # 1/S = 5 requests/s
    finding = audit.run("IM-C4")
    assert finding.verdict == "contradicted"
    assert "not within" in finding.evidence


def test_a_queue_the_clients_can_fill_contradicts_c3(altered):
    altered("stated_values", stated("queue_without_errors", 80))
    finding = audit.run("IM-C3")
    assert finding.verdict == "contradicted"
    assert not finding.values["model_zero_errors_large_queue"]


def test_another_stated_client_count_is_reported_against_the_model(altered):
    altered("stated_values", stated("clients_above", 70))
    finding = audit.run("IM-C2")
    assert finding.values["first_measured_clients_above_stated"] == 80
    assert "but 80 is the first above the stated 70" in finding.evidence


def test_the_books_parameters_decide_no_verdict(monkeypatch):
    # The extension's overhead and CPU share are the book's choices: changing them changes the
    # illustration in the evidence, never a verdict.
    before = {i: audit.run(i).verdict for i in ("IM-C1", "IM-C3", "IM-C6")}
    for overhead, share in ((0.0, 0.5), (0.01, 0.9)):
        monkeypatch.setattr(ia, "THREAD_OVERHEAD", overhead)
        monkeypatch.setattr(ia, "CPU_SHARE", share)
        assert {i: audit.run(i).verdict for i in before} == before


def test_c5_the_two_overestimates_exclude_each_other():
    finding = audit.run("IM-C5")
    v = finding.values
    assert v["model_above_stated_throughput"] and not v["model_above_law_response_time"]
    assert "cannot both hold" in finding.evidence


def test_c5_a_large_queue_that_drops_binds_nothing(altered):
    def smaller(frame):
        rows = (frame["parameter"] == "Maximum size of the connection queue") & (
            frame["value"] == "200")
        frame.loc[rows, "value"] = "80"

    altered("tuning_parameters", smaller)
    finding = audit.run("IM-C5")
    assert finding.values["model_drops_at_large_queue"]
    assert finding.verdict == "not testable"
    assert finding.evidence.startswith(audit.UNTESTED_MARK)


def test_evidence_numbers_are_computed_not_typed(altered):
    altered("stated_values", stated("think_time_Z", "3"))
    v = audit.run("IM-C4").values
    assert v["knee_clients"] == pytest.approx(1 + 3 / 0.14)
    assert np.isfinite(v["model_at_most_clients"])
