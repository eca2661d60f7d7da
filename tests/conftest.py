"""Fixtures of the claims-audit tests."""

from __future__ import annotations

import shutil
from collections.abc import Callable

import pandas as pd
import pytest
from edits import Change

from queuetune import data


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
