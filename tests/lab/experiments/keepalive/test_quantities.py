"""The keep-alive experiment's runs as the report's models see them."""

from __future__ import annotations

import pytest

from queuetune.lab import datasets
from queuetune.lab.experiments import keepalive
from queuetune.lab.experiments.keepalive import quantities


@pytest.mark.parametrize("dataset", datasets.datasets("keepalive"))
def test_each_run_maps_to_its_configuration_with_the_jvms_processor_time(dataset):
    runs = datasets.load("runs", dataset)
    q = keepalive.model_quantities(dataset)
    assert q.runs["run"].tolist() == runs["run"].tolist()
    assert q.runs["throughput"].to_numpy() == pytest.approx(
        (runs["answered"] / runs["total_run_time_s"]).to_numpy())
    assert (q.runs["think_time"] == 0).all() and q.runs["capacity"].isna().all()
    assert (q.runs["threads"] == datasets.metadata(dataset)["settings"]["threads"]).all()
    for row in runs.itertuples():
        group = quantities.group_of(row.scheme, row.keep_alive_requests)
        s = q.service.loc[group]
        per_answer = row.server_process_cpu * row.total_run_time_s / row.answered
        assert s["s_cpu"] == pytest.approx(per_answer)
        assert s["S"] != s["S"]  # NaN: no one-client run
    assert q.cannot == quantities.CANNOT
