"""The imre-appserver chapter shows every inventory item, each figure with its status from the
figure list, the printed equations from the data, the claims audit and gated exercises."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from queuelab import data, status
from tests import inventory

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "imre-appserver.ipynb"
DOC = "imre-appserver"


@pytest.fixture(scope="module")
def cells():
    return json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]


@pytest.fixture(scope="module")
def markdown(cells):
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def outputs(cells, mime):
    return "".join("".join(o.get("data", {}).get(mime, ""))
                   for c in cells if c["cell_type"] == "code" for o in c.get("outputs", []))


def test_every_item_of_the_document_is_labelled_in_the_chapter():
    if inventory.available():
        expected = [i for kind in "TFEC" for i in inventory.ids_for(DOC, kind)]
    else:
        expected = data.load(DOC, "figures")["figure_id"].tolist()
    assert expected
    where = status.locations(ROOT)
    missing = [i for i in expected if not where.get(i, "").startswith(
        "notebooks/imre-appserver.html#")]
    assert missing == []


def test_each_figure_heading_carries_its_status_from_the_figure_list(markdown):
    figures = data.load(DOC, "figures").set_index("figure_id")
    for figure_id, row in figures.iterrows():
        match = re.search(rf"^\({figure_id.lower()}\)=\n(#+ .*)$", markdown, re.MULTILINE)
        assert match, f"no heading after the label of {figure_id}"
        heading = match.group(1)
        assert figure_id in heading
        assert heading.rstrip().endswith(row["status"]), (figure_id, heading, row["status"])


def test_the_printed_equations_are_typeset_from_the_data(cells):
    shown = outputs(cells, "text/markdown")
    for row in data.load(DOC, "equations").itertuples():
        assert f"$$\n{row.latex} \\tag{{{row.equation}}}\n$$" in shown


def test_markdown_outputs_are_parsed_for_math():
    metadata = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["metadata"]
    assert metadata["mystnb"]["render_markdown_format"] == "myst"


def test_model_charts_say_the_measured_points_are_not_in_the_text(cells):
    html = outputs(cells, "text/html")
    for figure in ("IM-F5", "IM-F6", "IM-F7", "IM-F8"):
        assert f"({figure})" in html
    assert html.count("Recomputed model curve; the measured") >= 4
    assert "(IM-F1), redrawn" in html


def test_the_claims_audit_is_shown_from_the_package(cells):
    code = [c for c in cells if c["cell_type"] == "code"]
    shown = [c for c in code if "audit.findings(DOC)" in "".join(c["source"])]
    assert shown
    html = "".join("".join(o.get("data", {}).get("text/html", ""))
                   for c in shown for o in c.get("outputs", []))
    for claim in (f"IM-C{i}" for i in range(1, 7)):
        assert claim in html


def test_at_least_three_exercises_with_gated_solutions(markdown):
    exercises = re.findall(r"```\{exercise\}\n:label: (\S+)", markdown)
    assert len(exercises) >= 3
    for label in exercises:
        assert re.search(rf"```{{solution-start}} {re.escape(label)}\n:class: dropdown", markdown)
    assert markdown.count("{solution-end}") == len(exercises)


def test_the_chapter_is_in_the_table_of_contents():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    assert "notebooks/imre-appserver" in files
