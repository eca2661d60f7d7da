"""queuetune.lab.experiments: finding an experiment by name, and refusing one that is unknown
or does not export what the runner needs."""

from __future__ import annotations

import pytest

from queuetune.lab import experiments


def test_the_shipped_experiments_are_found_by_name():
    assert {"imre", "keepalive"} <= set(experiments.names())
    assert experiments.names() == sorted(experiments.names())
    for name in experiments.names():
        assert experiments.get(name).NAME == name


@pytest.mark.parametrize("name", ["no-such-experiment", "", None, 3])
def test_an_unknown_experiment_is_refused_naming_the_known_ones(name):
    with pytest.raises(ValueError, match=r"^campaign.experiment must be one of \[[^]]*'imre'"):
        experiments.get(name)


def test_an_experiment_missing_an_export_is_refused_by_name(monkeypatch):
    imre = experiments.get("imre")
    monkeypatch.delattr(imre, "measure")
    with pytest.raises(ValueError, match=r"experiment 'imre' does not export \['measure'\]"):
        experiments.get("imre")
