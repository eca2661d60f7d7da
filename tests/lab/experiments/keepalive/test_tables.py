"""queuetune.lab.experiments.keepalive.tables: its data set's tables, described column by column."""

from __future__ import annotations

import pytest

from queuetune.lab import records
from queuetune.lab.experiments.keepalive.tables import TABLES

TYPES = {"integer", "number", "string", "boolean"}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_column_is_named_once_typed_and_described(name):
    fields = records.schema(TABLES[name])["fields"]
    assert fields and all(f["description"] and f["type"] in TYPES for f in fields)
    assert len({f["name"] for f in fields}) == len(fields)


def test_runs_are_numbered_and_carry_the_runners_validity_columns():
    runs = records.columns(TABLES["runs"])
    assert runs[0] == "run"
    assert {f.name for f in records.VALIDITY_FIELDS} <= set(runs)


def test_requests_name_their_run():
    assert records.columns(TABLES["requests"])[0] == "run"
    assert TABLES["requests"].path.endswith(".csv.gz")
