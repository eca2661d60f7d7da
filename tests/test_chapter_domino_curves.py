"""The domino-curves chapter shows every inventory item, with each figure's status from data."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from queuelab import data, status
from tests import inventory

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "domino-curves.ipynb"
DOC = "domino-curves"


@pytest.fixture(scope="module")
def cells():
    return json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]


@pytest.fixture(scope="module")
def markdown(cells):
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def test_every_item_of_the_document_is_labelled_in_the_chapter():
    expected = (inventory.ids_for(DOC, "T") + inventory.ids_for(DOC, "F")
                + inventory.ids_for(DOC, "C")) if inventory.available() else \
        data.load(DOC, "figures")["figure_id"].tolist()
    where = status.locations(ROOT)
    assert [i for i in expected if not where.get(i, "").startswith(
        "notebooks/domino-curves.html#")] == []


def test_each_figure_heading_carries_its_status_from_the_figure_list(markdown):
    figures = data.load(DOC, "figures").set_index("figure_id")
    for figure_id, row in figures.iterrows():
        match = re.search(rf"^\({figure_id.lower()}\)=\n(#+ .*)$", markdown, re.MULTILINE)
        assert match, f"no heading after the label of {figure_id}"
        heading = match.group(1)
        assert figure_id in heading
        assert heading.rstrip().endswith(row["status"]), (figure_id, heading, row["status"])


def test_the_claims_audit_is_shown_from_the_package(cells):
    code = [c for c in cells if c["cell_type"] == "code"]
    shown = [c for c in code if "audit.findings(DOC)" in "".join(c["source"])]
    assert shown
    html = "".join("".join(o.get("data", {}).get("text/html", ""))
                   for c in shown for o in c.get("outputs", []))
    for claim in (f"DC-C{i}" for i in range(1, 6)):
        assert claim in html


def test_at_least_three_exercises_with_gated_solutions(markdown):
    exercises = re.findall(r"```\{exercise\}\n:label: (\S+)", markdown)
    assert len(exercises) >= 3
    for label in exercises:
        assert re.search(rf"```{{solution-start}} {re.escape(label)}\n:class: dropdown", markdown)
    assert markdown.count("{solution-end}") == len(exercises)
