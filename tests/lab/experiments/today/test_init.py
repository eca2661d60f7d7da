"""queuetune.lab.experiments.today: the package exports what the runner asks of an experiment."""

from __future__ import annotations

from queuetune.lab import experiments
from queuetune.lab.experiments import today


def test_it_exports_everything_the_runner_requires():
    assert set(experiments.REQUIRED) <= set(today.__all__)
    assert all(hasattr(today, name) for name in today.__all__)
    assert experiments.get("today") is today and today.NAME == "today"


def test_its_locustfile_and_tables_are_its_own():
    assert today.locustfile().is_file()
    assert today.locustfile("closed").parent == today.locustfile("open").parent
    assert "runs" in today.TABLES
