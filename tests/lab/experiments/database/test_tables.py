"""queuetune.lab.experiments.database.tables: the runner's columns close the runs table, and the
requests table has the columns today's Locust files write."""

from __future__ import annotations

from queuetune.lab.experiments.database.tables import TABLES
from queuetune.lab.experiments.today.tables import TABLES as TODAY
from queuetune.lab.records import runner_fields


def test_runs_ends_with_the_runners_columns():
    fields = TABLES["runs"].fields
    assert fields[:2] == tuple(f for f in fields if f.name in ("run", "kind"))
    assert fields[-len(runner_fields()):] == runner_fields()


def test_requests_are_what_todays_generator_writes():
    # today's tests hold its requests table to its Locust files' FIELDS
    names = [f.name for f in TABLES["requests"].fields]
    assert names == [f.name for f in TODAY["requests"].fields]
    assert TABLES["requests"].path == TODAY["requests"].path


def test_every_per_run_table_starts_with_run():
    for name, table in TABLES.items():
        if name not in ("calibration", "advice"):
            assert table.fields[0].name == "run", name
