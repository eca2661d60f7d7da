"""queuetune.lab.experiments.imre: the package exports what the runner asks of an experiment."""

from __future__ import annotations

from queuetune.lab import experiments
from queuetune.lab.experiments import imre


def test_it_exports_everything_the_runner_requires():
    assert set(experiments.REQUIRED) <= set(imre.__all__)
    assert all(hasattr(imre, name) for name in imre.__all__)
    assert experiments.get("imre") is imre and imre.NAME == "imre"


def test_its_locustfile_and_tables_are_its_own():
    assert imre.locustfile().is_file()
    assert imre.locustfile().parent.name == "imre"
    assert "runs" in imre.TABLES
