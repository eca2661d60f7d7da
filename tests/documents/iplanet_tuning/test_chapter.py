"""queuetune.documents.iplanet_tuning.chapter: the printed dumps line by line."""

from __future__ import annotations

import pandas as pd
import pytest

from queuetune import data
from queuetune.documents.iplanet_tuning import chapter
from queuetune.documents.iplanet_tuning import claims as ip

DOC = "iplanet-tuning"


def test_printed_lines_one_row_per_printed_line():
    nsfc = data.load(DOC, "file_cache_status")
    lines = chapter.printed_lines(nsfc)
    assert lines.index.names == ["section", "label"]
    assert list(lines.columns) == ["printed"]
    assert not lines.index.duplicated().any()
    assert len(lines) == len(nsfc.drop_duplicates(["section", "label"]))
    assert not lines["printed"].isna().any()  # missing cells shown empty


def test_printed_lines_shows_missing_cells_empty():
    frame = pd.DataFrame({"section": ["a", "a", "b"], "label": ["x", "x", "y"],
                          "printed": ["1", "2", None], "value": [1, 2, 3]})
    lines = chapter.printed_lines(frame)
    assert lines.loc[("a", "x"), "printed"] == "1" and lines.loc[("b", "y"), "printed"] == ""
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['printed'\]"):
        chapter.printed_lines(frame.drop(columns="printed"))


def test_perfdump_reads_the_sample_output():
    sample = data.load(DOC, "perfdump_output")
    sample = sample[sample["example"] == "Sample perfdump Output"]
    row = sample[(sample["label"] == "KeepAliveHits") & (sample["component"] == "value")]
    assert chapter.perfdump("KeepAliveHits") == row["value"].iloc[0]
    queue = "Current/peak/limit queue length"
    assert chapter.perfdump(queue, "peak") == ip.perfdump_number("perfdump_output", queue,
                                                                 "peak")
    assert chapter.perfdump(queue, "peak") <= chapter.perfdump(queue, "limit")
