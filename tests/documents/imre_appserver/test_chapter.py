"""The imre-appserver chapter shows the printed equations from the data and its model charts;
what every document chapter shows (inventory items, figure statuses, the claims audit, gated
exercises) is tested in test_chapter_common.py."""

from __future__ import annotations

import chapters as chapter
import pytest
import yaml

from queuelab import data

DOC = "imre-appserver"


@pytest.fixture(scope="module")
def cells():
    return chapter.load_notebook(DOC)["cells"]


def test_the_printed_equations_are_typeset_from_the_data(cells):
    shown = chapter.outputs(cells, "text/markdown")
    for row in data.load(DOC, "equations").itertuples():
        assert f"$$\n{row.latex} \\tag{{{row.equation}}}\n$$" in shown


def test_markdown_outputs_are_parsed_for_math():
    metadata = chapter.load_notebook(DOC)["metadata"]
    assert metadata["mystnb"]["render_markdown_format"] == "myst"


def test_model_charts_say_the_measured_points_are_not_in_the_text(cells):
    html = chapter.outputs(cells, "text/html")
    for figure in ("IM-F5", "IM-F6", "IM-F7", "IM-F8"):
        assert f"({figure})" in html
    assert html.count("Recomputed model curve; the measured") >= 4
    assert "(IM-F1), redrawn" in html


def test_the_chapter_is_in_the_table_of_contents():
    toc = yaml.safe_load((chapter.ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    assert "notebooks/imre-appserver" in files
