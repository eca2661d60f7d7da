"""The data set writer: created at the first row, never written over, no half rows."""

from __future__ import annotations

import gzip
import os
import signal

import pandas as pd
import pytest

from queuetune.lab import records
from queuetune.lab.experiments.imre import TABLES


def _writer(folder):
    metadata = {"name": "t", "measurement": {"status": "running"}}
    def readme(m):
        return f"status {m['measurement']['status']}\n"

    return records.DatasetWriter(folder, metadata, readme, tables=TABLES,
                                 files={"campaign.toml": "x = 1\n"})


def _row(table, run=1):
    return {name: run if i == 0 else "" for i, name in
            enumerate(records.columns(TABLES[table]))}


def test_folder_is_created_at_the_first_write_only(tmp_path):
    writer = _writer(tmp_path / "set")
    writer.write_metadata(status="complete")
    assert not (tmp_path / "set").exists()
    writer.append("runs", [_row("runs")])
    assert sorted(p.name for p in (tmp_path / "set").iterdir()) == sorted(
        [path for path, _, _ in TABLES.values()]
        + ["campaign.toml", "datapackage.json", "README.md"])
    assert (tmp_path / "set" / "README.md").read_text() == "status running\n"


def test_an_existing_data_set_is_never_written_over(tmp_path):
    (tmp_path / "lab-2026-01-01").mkdir()
    assert records.new_dataset_dir(tmp_path, "lab", "2026-01-01").name == "lab-2026-01-01-2"
    writer = _writer(tmp_path / "lab-2026-01-01")
    with pytest.raises(FileExistsError, match="never written over"):
        writer.append("runs", [_row("runs")])


def test_a_row_missing_a_column_or_with_an_unknown_one_writes_nothing(tmp_path):
    writer = _writer(tmp_path / "set")
    writer.append("runs", [_row("runs", 1)])
    before = (tmp_path / "set" / "runs.csv").read_bytes()
    with pytest.raises(ValueError, match=r"lacks columns \['split'"):
        writer.append("runs", [_row("runs", 2), {"run": 3, "kind": "load"}])
    with pytest.raises(ValueError, match=r"unknown columns \['colour'\]"):
        writer.append("runs", [{**_row("runs", 2), "colour": "red"}])
    with pytest.raises(ValueError, match="must be a mapping of column name"):
        writer.append("runs", [tuple(_row("runs", 2).values())])
    assert (tmp_path / "set" / "runs.csv").read_bytes() == before


def test_rows_are_written_in_the_tables_column_order_whatever_their_order(tmp_path):
    writer = _writer(tmp_path / "set")
    row = _row("calibration")
    row.update(step=4, work=10, latency_ms=1.5, server_cpu_us=7)
    writer.append("calibration", [dict(reversed(list(row.items())))])
    frame = pd.read_csv(tmp_path / "set" / "calibration.csv")
    assert frame.iloc[0].to_dict() == {"step": 4, "work": 10, "latency_ms": 1.5,
                                       "server_cpu_us": 7}


def test_gzip_members_append_into_one_readable_table(tmp_path):
    writer = _writer(tmp_path / "set")
    writer.append("requests", [_row("requests", 1)])
    writer.append("requests", [_row("requests", 2), _row("requests", 3)])
    frame = pd.read_csv(tmp_path / "set" / "requests.csv.gz")
    assert list(frame.columns) == records.columns(TABLES["requests"])
    assert frame["run"].tolist() == [1, 2, 3]
    raw = (tmp_path / "set" / "requests.csv.gz").read_bytes()
    assert gzip.decompress(raw).count(b"\n") == 4  # header + 3 rows
    # deterministic bytes: no time stamp in the gzip header
    assert raw[4:8] == b"\x00\x00\x00\x00"


def test_metadata_is_replaced_atomically_with_the_status(tmp_path):
    writer = _writer(tmp_path / "set")
    writer.append("runs", [_row("runs")])
    writer.write_metadata(status="interrupted", runs_completed=1)
    package = (tmp_path / "set" / "datapackage.json").read_text()
    assert '"status": "interrupted"' in package and '"runs_completed": 1' in package
    assert not list((tmp_path / "set").glob("*.tmp"))


def test_a_signal_during_a_write_waits_until_the_write_is_done():
    received = []
    previous = signal.signal(signal.SIGINT, lambda *a: received.append("SIGINT"))
    try:
        with records.held_signals():
            os.kill(os.getpid(), signal.SIGINT)
            assert received == []  # held while writing
        assert received == ["SIGINT"]  # delivered right after
    finally:
        signal.signal(signal.SIGINT, previous)


def test_every_table_has_a_schema_with_descriptions():
    for table in TABLES.values():
        fields = records.schema(table)["fields"]
        assert fields and all(f["description"] for f in fields)
        assert len({f["name"] for f in fields}) == len(fields)


def test_held_signals_nest():
    received = []
    previous = signal.signal(signal.SIGINT, lambda *a: received.append("SIGINT"))
    try:
        with records.held_signals():
            with records.held_signals():
                os.kill(os.getpid(), signal.SIGINT)
            assert received == []  # still held by the outer block
        assert received == ["SIGINT"]
    finally:
        signal.signal(signal.SIGINT, previous)
