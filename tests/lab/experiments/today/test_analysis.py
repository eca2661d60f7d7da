"""Today's analysis: capacities and regimes by hand, and every metric on the real smoke data
set (the models' errors where the models branch's thread_pool is present)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from queuetune.lab import datasets
from queuetune.lab.experiments.today import analysis
from queuetune.lab.regimes import REGIMES


def test_capacity_is_the_least_of_processors_threads_and_pool():
    # processors 2 / 0.01 = 200, threads 5 / 0.05 = 100, pool 2 / 0.04 = 50
    assert analysis.capacity(processors=2, threads=5, connections=2, s_c=0.01,
                             s_w=0.04) == pytest.approx(50.0)
    assert analysis.capacity(processors=2, threads=5, connections=0, s_c=0.01,
                             s_w=0.04) == pytest.approx(100.0)
    # virtual threads (no thread limit), no pool: the processors
    assert analysis.capacity(processors=2, threads=0, connections=0, s_c=0.01,
                             s_w=0.04) == pytest.approx(200.0)
    with pytest.raises(ValueError, match="processors must be >= 1"):
        analysis.capacity(processors=0, threads=5, connections=0, s_c=0.01, s_w=0.04)


@pytest.mark.lab
def test_every_run_is_summarized_from_its_own_requests(smoke):
    _, folder = smoke
    table = analysis.summarize(folder)
    requests = datasets.load("requests", folder)
    runs = datasets.load("runs", folder)
    assert table["run"].tolist() == runs["run"].tolist()
    for row in table.itertuples():
        mine = requests[(requests["run"] == row.run) & (requests["start_s"] >= row.window_start_s)
                        & (requests["start_s"] < row.window_end_s)]
        ok = mine[mine["outcome"] == "ok"]
        assert row.sent_in_window == len(mine) and row.answered == len(ok)
        answered = requests[(requests["run"] == row.run) & (requests["outcome"] == "ok")]
        ended = answered["start_s"] + answered["latency_ms"] / 1000
        inside = ((ended >= row.window_start_s) & (ended < row.window_end_s)).sum()
        assert row.throughput == pytest.approx(inside / (row.window_end_s - row.window_start_s))
        assert row.r_mean == pytest.approx(ok["latency_ms"].mean())
        assert row.r_low <= row.r_mean <= row.r_high
        assert row.permit_wait_ms == pytest.approx(ok["permit_wait_us"].mean() / 1000)
    opened = table[table["arrival_rate"] > 0]
    assert (opened["offered"] == opened["arrival_rate"]).all()


@pytest.mark.lab
def test_regimes_and_model_errors(smoke):
    _, folder = smoke
    table = analysis.prediction_errors(folder)
    assert set(table["regime"]) <= set(REGIMES)
    assert (table["load"] > 0).all() and np.isfinite(table["capacity"]).all()
    assert table["x_model"].notna().all()
    # a run that completed no answer in its window (a loaded machine's) has no error
    measured = table["throughput"] > 0
    assert table.loc[measured, "x_error"].to_numpy() == pytest.approx(
        (table["x_model"] / table["throughput"] - 1)[measured].to_numpy())
    assert table.loc[~measured, "x_error"].isna().all()
    by_regime = analysis.errors_by_regime(folder)
    assert by_regime["regime"].tolist() == list(REGIMES)
    assert by_regime["runs"].sum() == table["valid"].astype(bool).sum()
    assert all(math.isnan(v) or v >= 0 for v in by_regime["x_error_median"])


def test_a_data_set_of_another_experiment_is_refused():
    imre = datasets.datasets("imre")
    if not imre:
        pytest.skip("no stored Imre data set")
    with pytest.raises(ValueError, match="dataset must be a data set of the experiment"):
        analysis.runs_of(imre[0])


def test_on_virtual_threads_the_processor_time_is_the_jvm_s_per_answer():
    # the JVM reports no processor time for a virtual thread: the one-client run's s_c is
    # the utilization law, the JVM's processor time over the answers of the window
    name = "today-virtual-pools-2026-11-27"
    times = analysis.service_times(name).iloc[0]
    assert "virtual threads" in times["source"]
    runs = datasets.load("runs", name)
    one = runs[runs["kind"] == "one-client"].iloc[0]
    requests = datasets.load("requests", name)
    inside = requests[(requests["run"] == one["run"]) & (requests["outcome"] == "ok")
                      & (requests["start_s"] >= one["window_start_s"])
                      & (requests["start_s"] < one["window_end_s"])]
    per_second = len(inside) / (one["window_end_s"] - one["window_start_s"])
    assert times["s_c"] == pytest.approx(one["server_cpu"] / per_second)
    assert times["s_w"] == pytest.approx(inside["latency_ms"].mean() / 1000 - times["s_c"])


@pytest.mark.parametrize("name", ["today-virtual-2026-11-27", "today-virtual-pools-2026-11-27"])
def test_the_virtual_thread_bound_refuses_nothing_in_the_compared_runs(name):
    # the model holds at most VIRTUAL_CAPACITY requests on virtual threads (Tomcat: up to
    # maxConnections); in every virtual-thread run the chapter compares, the model's share
    # refused at that bound is 0, so the bound changes none of the compared numbers
    from queuetune.lab.experiments.today import chapter

    table = chapter.measured(name)
    compared = chapter._compared(table)
    virtual = compared[compared["executor"] == "virtual"]
    assert len(virtual) > 0
    times = analysis.service_times(name).set_index("processors")
    refused = chapter.model_values(virtual, times)["e_model"]
    assert (refused == 0).all(), refused
    # and the bound is below Tomcat's: the campaign let maxConnections connections in
    server = datasets.metadata(name)["settings"]["server"]
    assert analysis.VIRTUAL_CAPACITY <= server["max_connections"]


def test_a_data_set_measured_before_the_distributions_reads_as_constant_work():
    """The stored data sets have no distribution column: their runs read as constant work,
    and the processor time of their answering threads varies by a few per cent at most."""
    table = analysis.summarize("today-processors-2026-11-27")
    assert set(table["distribution"]) == {"constant"}
    load = table[(table["kind"] == "load") & table["cpu_cv"].notna()]
    assert len(load) and (load["cpu_cv"] < 0.1).all()
    assert table["wait_cv"].isna().all()  # no drawn wait recorded


def test_the_coefficient_of_variation_is_the_sample_spread_over_the_mean():
    values = pd.Series([1.0, 2.0, 3.0, None])
    assert analysis._cv(values) == pytest.approx(0.5, rel=1e-12)  # sd 1 over mean 2
    assert np.isnan(analysis._cv(pd.Series([4.0])))
