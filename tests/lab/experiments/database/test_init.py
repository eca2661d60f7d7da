"""queuetune.lab.experiments.database: the package exports what the runner asks of an
experiment."""

from __future__ import annotations

from queuetune.lab import experiments
from queuetune.lab.experiments import database


def test_it_exports_everything_the_runner_requires():
    assert set(experiments.REQUIRED) <= set(database.__all__)
    assert all(hasattr(database, name) for name in database.__all__)
    assert experiments.get("database") is database and database.NAME == "database"


def test_its_campaigns_are_built_in():
    from queuetune.lab import campaign

    for name in ("database-smoke", "database-advice", "database-work"):
        assert campaign.builtin(name).is_file()
