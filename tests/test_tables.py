"""queuetune.tables: blank cells and one value looked up by its row's settings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from queuetune import tables


def test_blank_shows_missing_cells_empty_and_keeps_the_rest():
    frame = pd.DataFrame({"a": [1.5, np.nan], "b": pd.array([None, 2], dtype="Int64"),
                          "c": ["x", None]})
    shown = tables.blank(frame)
    assert shown.to_dict("list") == {"a": [1.5, ""], "b": ["", 2], "c": ["x", ""]}
    assert frame["a"].isna().iloc[1]  # the input is left alone


def test_value_at_finds_the_one_matching_row():
    frame = pd.DataFrame({"clients": [10, 10, 20, 20], "threads": [1, 5, 1, 5],
                          "x": [1.0, 2.0, 3.0, 4.0]})
    assert tables.value_at(frame, "x", clients=20, threads=1) == 3.0
    assert tables.value_at(frame.iloc[:1], "x") == 1.0
    with pytest.raises(ValueError, match=r"2 rows have \{'clients': 10\}"):
        tables.value_at(frame, "x", clients=10)
    with pytest.raises(ValueError, match="0 rows have"):
        tables.value_at(frame, "x", clients=30, threads=1)
    with pytest.raises(ValueError, match=r"column\(s\) \['queue'\] not in data"):
        tables.value_at(frame, "x", queue=50)
    with pytest.raises(ValueError, match=r"column\(s\) \['y'\] not in data"):
        tables.value_at(frame, "y", clients=10, threads=1)
