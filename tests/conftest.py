"""Fixtures of the claims-audit tests, and where the lab's tests live."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from edits import Change
from hypothesis import settings

from queuetune import data

# No property test has a time limit per example (Hypothesis's default deadline is 200 ms): the
# tests run beside other work (make test runs the unit tests on both cores beside the book's
# build), where a 0.2 ms example took 420 ms once and failed as "flaky". Speed is measured by
# `make benchmark`, not asserted by a test. Example counts are unchanged. The examples are the
# same on every run and machine (derandomize: a seed from each test's name, no example
# database), so that a run's result does not depend on the draw: a random draw once found a
# chain the stationary solve gets wrong (tests/models/test_markov.py) in one run of many.
settings.register_profile("queuetune", deadline=None, derandomize=True, database=None)
settings.load_profile("queuetune")


@pytest.fixture
def altered(request, tmp_path, monkeypatch) -> Callable[..., None]:
    """Copy the data of the test module's document (its ``DOC``) to a temporary root that the
    package then reads, and return an editor for its CSVs: ``altered(table, *changes)`` reads
    ``table.csv`` with every cell a string, applies each change (see ``edits.py``) and writes
    it back."""
    doc = request.module.DOC
    shutil.copytree(data.data_dir() / doc, tmp_path / doc)
    monkeypatch.setenv("QUEUETUNE_DATA", str(tmp_path))

    def edit(table: str, *changes: Change) -> None:
        path = tmp_path / doc / f"{table}.csv"
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        for change in changes:
            change(frame)
        frame.to_csv(path, index=False)

    return edit


#: The lab's tests (marked ``lab``: a real Tomcat pinned to a core) live here: ``make test``
#: runs them alone, after the parallel part, collecting only this folder.
LAB_TESTS = Path(__file__).parent / "lab"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Refuse a test marked ``lab`` outside ``tests/lab/``: ``make test`` would run it in
    neither of its parts (the parallel part leaves out ``lab``, the lab part reads only there)."""
    stray = [item.nodeid for item in items
             if item.get_closest_marker("lab") and LAB_TESTS not in Path(item.path).parents]
    if stray:
        raise pytest.UsageError(f"tests marked lab must live under tests/lab/: {stray}")
