"""queuetune.lab.experiments.imre.analysis: the paper's metrics run by run, from requests sent
inside each run's measurement window - on hand-made requests, and on the stored data set
recomputed from its raw tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from queuetune.lab.experiments.imre import analysis

#: The stored data set these tests recompute (the one the chapter reads).
DATASET = "imre-tomcat-2026-11-24-2"

RUNS = pd.DataFrame({"run": [1, 2], "window_start_s": [10.0, 0.0],
                     "window_end_s": [22.0, 6.0], "windows": [1, 1]})


def requests(rows):
    return pd.DataFrame(rows, columns=["run", "start_s", "latency_ms", "outcome",
                                       "server_cpu_us"])


def test_only_requests_sent_inside_the_window_count():
    sent = requests([(1, 9.99, 5, "ok", 1), (1, 10.0, 5, "ok", 1), (1, 21.99, 5, "ok", 1),
                     (1, 22.0, 5, "ok", 1), (2, 0.0, 5, "ok", 1), (2, 6.5, 5, "ok", 1)])
    inside = analysis.in_window(sent, RUNS)
    assert inside["start_s"].tolist() == [10.0, 21.99, 0.0]  # the start in, the end out


def test_per_run_means_split_successes_and_failures():
    window = requests([(1, 10, 100, "ok", 4000), (1, 11, 300, "ok", 6000),
                       (1, 12, 50, "closed", 0), (2, 1, 200, "ok", 8000)])
    table = analysis._per_run(window)
    first = table.loc[1]
    assert (first["sent_in_window"], first["ok_in_window"]) == (3, 2)
    assert first["r_all"] == pytest.approx(0.15)
    assert first["r_succ"] == pytest.approx(0.2) and first["r_error"] == pytest.approx(0.05)
    assert first["server_cpu_ms"] == pytest.approx(5.0)  # the median over successes
    assert math.isnan(table.loc[2, "r_error"])  # no failure


def test_batch_errors_are_the_spread_of_batch_means_over_root_batches():
    """Run 1's window of 12 s in 6 batches of 2 s: one success per batch, latencies 1..6 s."""
    window = requests([(1, 10 + 2 * i + 0.5, 1000 * (i + 1), "ok", 1) for i in range(6)])
    errors = analysis._batch_errors(window, RUNS)
    assert errors.loc[1, "r_succ_se"] == pytest.approx(np.std(np.arange(1, 7), ddof=1)
                                                       / math.sqrt(6))
    assert errors.loc[1, "throughput_se"] == 0.0  # 0.5 requests per second in every batch


def test_a_data_set_is_named_or_a_folder():
    assert DATASET in analysis.datasets("imre")
    folder = analysis.dataset_dir(DATASET)
    assert analysis.dataset_dir(folder) == folder
    with pytest.raises(ValueError, match="^dataset must be one of"):
        analysis.dataset_dir("no-such-campaign")
    with pytest.raises(ValueError, match="^table must be one of"):
        analysis.load("no-such-table", DATASET)


@pytest.fixture(scope="module")
def summary():
    return analysis.summarize(DATASET)


def test_the_stored_runs_metrics_are_their_requests_counted_again(summary):
    runs, raw = analysis.load("runs", DATASET), analysis.load("requests", DATASET)
    run = summary.iloc[len(summary) // 2]
    mine = raw[(raw["run"] == run["run"]) & (raw["start_s"] >= run["window_start_s"])
               & (raw["start_s"] < run["window_end_s"])]
    ok = mine[mine["outcome"] == "ok"]
    seconds = run["window_end_s"] - run["window_start_s"]
    assert run["sent_in_window"] == len(mine)
    assert run["throughput"] == pytest.approx(len(ok) / seconds)
    assert run["error_rate"] == pytest.approx(1 - len(ok) / len(mine))
    assert run["r_succ"] == pytest.approx(ok["latency_ms"].mean() / 1000)
    assert len(summary) == len(runs)


def test_equation_2_gives_back_the_success_response_time(summary):
    """R_succ = (R_all - e R_error) / (1 - e) holds for the means of the same requests."""
    usable = summary[summary["error_rate"] < 1]
    np.testing.assert_allclose(usable["r_succ_eq2"], usable["r_succ"], rtol=1e-9)


def test_the_one_client_runs_give_each_split_its_service_time(summary):
    one = analysis.service_time(DATASET)
    assert len(one) == (summary["kind"] == "one-client").sum()
    np.testing.assert_allclose(one["requested_s"], (one["cpu_ms"] + one["sleep_ms"]) / 1000)
    assert (one["measured_s"] >= one["server_cpu_s"]).all()


def test_the_generator_report_summarises_every_run():
    report = analysis.generator_report(DATASET)
    runs = analysis.load("runs", DATASET)
    assert report["runs"] == len(runs)
    assert report["kept_up"] == runs["generator_kept_up"].sum()
    assert report["generator_cpu_max"] == runs["generator_cpu"].max()


def test_the_jvms_demand_is_its_processor_share_over_the_throughput(summary):
    """D = U / X per run, and per split the median over the load runs (the one-client runs,
    where the JVM's background weighs on few answers, left out)."""
    usable = summary[summary["throughput"] > 0]
    np.testing.assert_allclose(usable["jvm_cpu_s"], usable["server_cpu"] / usable["throughput"],
                               rtol=1e-12)  # one division each way: a few ulps
    demand = analysis.jvm_demand(DATASET)
    for split, value in demand.items():
        load = usable[(usable["split"] == split) & (usable["kind"] == "load")]
        assert value == pytest.approx(float(load["jvm_cpu_s"].median()), rel=1e-12)
        # the whole JVM spends more than the answering thread, per answer
        assert value > float(load["server_cpu_ms"].median()) / 1000
