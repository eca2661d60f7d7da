"""queuetune.lab.experiments.keepalive: the package exports what the runner asks of an
experiment."""

from __future__ import annotations

from queuetune.lab import experiments
from queuetune.lab.experiments import keepalive


def test_it_exports_everything_the_runner_requires():
    assert set(experiments.REQUIRED) <= set(keepalive.__all__)
    assert all(hasattr(keepalive, name) for name in keepalive.__all__)
    assert experiments.get("keepalive") is keepalive and keepalive.NAME == "keepalive"


def test_its_locustfile_and_tables_are_its_own():
    assert keepalive.locustfile().is_file()
    assert keepalive.locustfile().parent.name == "keepalive"
    assert "runs" in keepalive.TABLES
