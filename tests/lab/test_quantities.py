"""queuetune.lab.quantities: what an experiment tells the report, checked on its way in, and
found by the data set's experiment (never by an experiment's name)."""

from __future__ import annotations

import json
import shutil
import types

import pandas as pd
import pytest

from queuetune.lab import datasets, quantities


def test_every_stored_data_set_has_its_experiments_mapping():
    for name in datasets.datasets():
        q = quantities.of(name)
        assert list(q.runs.columns) == list(quantities.RUN_COLUMNS)
        assert set(q.runs["group"]) <= set(q.service.index)


def test_a_mapping_missing_a_column_or_a_group_is_named():
    runs = pd.DataFrame({c: [1] for c in quantities.RUN_COLUMNS}).assign(group="a")
    service = pd.DataFrame({c: [0.1] for c in quantities.SERVICE_COLUMNS}, index=["a"])
    quantities.ModelQuantities(runs=runs, service=service, think_time_known=True)
    with pytest.raises(ValueError, match=r"runs must have the columns .* lacks \['valid'\]"):
        quantities.ModelQuantities(runs=runs.drop(columns="valid"), service=service,
                                   think_time_known=True)
    with pytest.raises(ValueError, match=r"a row for every group .* lacks \['b'\]"):
        quantities.ModelQuantities(runs=runs.assign(group="b"), service=service,
                                   think_time_known=True)


def test_an_experiment_without_a_mapping_gets_none_and_the_report_says_so(tmp_path,
                                                                          monkeypatch):
    from queuetune.lab import report

    copy = tmp_path / "copy"
    shutil.copytree(datasets.dataset_dir("keepalive-tomcat-2026-11-27-2"), copy)
    package = json.loads((copy / "datapackage.json").read_text())
    package["measurement"]["experiment"] = "bare"
    (copy / "datapackage.json").write_text(json.dumps(package))
    bare = types.SimpleNamespace(NAME="bare")
    monkeypatch.setattr(quantities.experiments, "get", lambda name: bare)
    assert quantities.of(copy) is None
    whole = report.text(copy)
    assert "!! the experiment 'bare' does not say how its runs map" in whole
    assert "0 of the 5 load runs used" in whole


def test_the_generic_report_imports_no_experiment_by_name():
    """report.py and quantities.py learn what is particular from the data set's experiment:
    neither imports an experiment's package or module."""
    import ast
    from pathlib import Path

    from queuetune.lab import experiments, report

    names = set(experiments.names())
    for module in (report, quantities):
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                imported.update((node.module or "").split("."))
                imported.update(a.name for a in node.names)
            elif isinstance(node, ast.Import):
                imported.update(part for a in node.names for part in a.name.split("."))
        assert not imported & names, f"{module.__name__} imports {imported & names}"
