"""queuetune.lab.experiments.imre.models: the book's models against the lab's runs - predictions
from the one-client service time and fits to measurements, here on runs the models generate
themselves and on the stored data set."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from queuetune.lab.experiments.imre import models
from queuetune.models import mm1bk, thread_pool

THINK = 0.4
#: The stored data set these tests read (the one the chapter reads).
DATASET = "imre-tomcat-2026-11-24-2"


@pytest.fixture(scope="module")
def runs():
    """One split's load runs: 30 threads, a queue of 50, 5..80 clients."""
    clients = np.array([5, 10, 20, 30, 40, 60, 80])
    return pd.DataFrame({"run": np.arange(1, 8), "split": "cpu", "clients": clients,
                         "threads": 30, "capacity": 80})


@pytest.fixture(scope="module")
def services():
    return pd.DataFrame({"S": [0.02], "s_cpu": [0.014], "s_wait": [0.006]},
                        index=pd.Index(["cpu"], name="split"))


def test_predictions_are_the_two_models_at_the_one_client_service_time(runs, services):
    table = models.predict(runs, services, THINK)
    assert list(table["model"].unique()) == ["M/M/1/B/K", "thread-limited"]
    assert len(table) == 2 * len(runs)
    single = mm1bk(clients=runs["clients"].to_numpy(), capacity=80, service_time=0.02,
                   think_time=THINK)
    pool = thread_pool(clients=runs["clients"].to_numpy(), capacity=80, threads=30,
                       cpu_time=0.014, wait_time=0.006, think_time=THINK)
    by_model = dict(tuple(table.groupby("model")))
    np.testing.assert_allclose(by_model["M/M/1/B/K"]["throughput"], single.throughput)
    np.testing.assert_allclose(by_model["thread-limited"]["response_time"],
                               pool.response_time)
    np.testing.assert_array_equal(by_model["M/M/1/B/K"]["run"], runs["run"])


def test_fits_recover_the_service_time_of_runs_the_model_made(runs):
    """M/M/1/B/K runs with S = 0.02 s, 1 % seeded noise: the fit finds S within 2 %."""
    truth = mm1bk(clients=runs["clients"].to_numpy(), capacity=80, service_time=0.02,
                  think_time=THINK)
    rng = np.random.default_rng(4)
    noisy = runs.assign(
        response_time=truth.response_time * np.exp(rng.normal(0, 0.01, len(runs))),
        throughput=truth.throughput * np.exp(rng.normal(0, 0.01, len(runs))))
    fits = models.fit_split(noisy, THINK)
    assert list(fits) == ["M/M/1/B/K", "thread-limited"]
    assert fits["M/M/1/B/K"].estimates["service_time"] == pytest.approx(0.02, rel=0.02)
    assert fits["M/M/1/B/K"].estimates["think_time"] == THINK  # held at the campaign's
    table = models.compare_split(fits)
    assert set(table["model"]) == set(fits)
    assert table["weight"].sum() == pytest.approx(1.0)
    assert {"loo_rmse_response_time", "loo_rmse_throughput"} <= set(table.columns)


def test_the_stored_data_set_gives_each_split_a_service_time_and_its_parts():
    table = models.service(DATASET)
    assert (table["S"] > 0).all() and (table["s_wait"] >= 0).all()
    np.testing.assert_allclose(table["s_cpu"] + table["s_wait"],
                               np.maximum(table["S"], table["s_cpu"]))


def test_the_processor_time_comes_from_the_thread_or_the_whole_jvm():
    from queuetune.lab.experiments.imre import analysis

    thread = models.service(DATASET)
    jvm = models.service(DATASET, demand="jvm")
    np.testing.assert_allclose(jvm["S"], thread["S"], rtol=0, atol=0)  # the same one-client S
    np.testing.assert_allclose(jvm["s_cpu"], analysis.jvm_demand(DATASET).loc[jvm.index],
                               rtol=0, atol=0)  # taken over as it is
    np.testing.assert_allclose(jvm["s_cpu"] + jvm["s_wait"], np.maximum(jvm["S"], jvm["s_cpu"]))
    assert (jvm["s_cpu"] > thread["s_cpu"]).all()
    with pytest.raises(ValueError, match="demand must be one of"):
        models.service(DATASET, demand="process")


def test_the_measured_runs_are_the_load_runs_with_their_response_time():
    load = models.measured(DATASET)
    assert set(load["kind"]) == {"load"}
    assert (load["response_time"] == load["r_succ"]).all()


def test_the_report_sees_each_split_with_the_kernels_waits_left_out():
    from queuetune.lab import datasets
    from queuetune.lab.experiments import imre

    name = "imre-tomcat-2026-11-27-2"
    q = imre.model_quantities(name)
    runs = models.measured(name)
    kernel = runs["max_connections"] < runs["threads"] + runs["queue"]
    assert kernel.any() and q.left_out[0].startswith(f"{int(kernel.sum())} load runs")
    assert sorted(q.runs["run"]) == sorted(runs.loc[~kernel, "run"])
    cores = datasets.metadata(name)["pinning"]["server_cores"]
    assert (q.runs["processors"] == len(cores)).all() and q.think_time_known
    assert q.service.loc[q.runs["group"], "S"].notna().all()
