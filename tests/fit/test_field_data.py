"""The published field data set the fitting chapter fits (data/field/usl-oracledb): read through
the loader, checked against its documentation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from queuetune import data

PACKAGE = "field/usl-oracledb"


def test_the_oracle_samples_match_their_documentation():
    rows = data.load(PACKAGE, "oracledb")
    # "A data frame with 360 rows on 8 variables", two-minute intervals, 8:00am to 8:00pm on
    # January 19th 2012 (German time, UTC+1 in winter; the timestamp ends each interval)
    assert rows.shape == (360, 8)
    stamps = rows["timestamp_unix_s"].to_numpy()
    assert np.all(np.diff(stamps) == 120)
    local = timedelta(hours=1)
    first = datetime.fromtimestamp(int(stamps[0]), UTC) + local
    last = datetime.fromtimestamp(int(stamps[-1]), UTC) + local
    assert (first.date().isoformat(), first.hour) == ("2012-01-19", 8)
    assert (last.hour, last.minute) == (20, 0)
    # a 4-way server: at most 4 processor seconds per second; the measured concurrency is
    # not a whole number and is below 1 part of the time
    assert rows["cpu_time"].max() < 4
    assert np.all((rows["cpu_util"] > 0) & (rows["cpu_util"] <= 100))
    assert np.any(rows["db_time"] % 1 != 0) and (rows["db_time"] < 1).sum() == 81
    assert np.all(rows[["db_time", "txn_rate"]].to_numpy() > 0)


def test_the_licence_travels_with_the_data():
    meta = data.metadata(PACKAGE)
    assert meta["licenses"][0]["name"] == "BSD-2-Clause"
    folder = data.path(PACKAGE, "oracledb").parent
    assert "COPYRIGHT HOLDER: Stefan Moeding" in (folder / "source" / "LICENSE").read_text()
    assert "Copyright (c) 2013, Stefan Moeding" in (folder / "README.md").read_text()
