"""What every document chapter shows: each inventory item labelled, each figure heading with
its status from the figure list, the claims audit from the package, and gated exercises."""

from __future__ import annotations

import re

import chapters as chapter
import inventory
import pytest

from queuetune import audit, data, status

# Every source document has a chapter: the documents come from their data packages, their
# claims from the checks registered for them.
CHAPTERS = data.documents()
KINDS = "TFEC"  # table, figure, equation, claim: every inventory item of a document
# The chapters that give each figure a heading of its own; the others list their figures in a
# table with a status column.
FIGURE_HEADINGS = ("domino-curves", "imre-appserver")


@pytest.fixture(scope="module", params=CHAPTERS)
def doc(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def cells(doc):
    return chapter.load_notebook(doc)["cells"]


@pytest.fixture(scope="module")
def markdown(cells):
    return chapter.markdown(cells)


def test_every_item_of_the_document_is_labelled_in_the_chapter(doc):
    if inventory.available():
        expected = [i for kind in KINDS for i in inventory.ids_for(doc, kind)]
    else:
        expected = data.load(doc, "figures")["figure_id"].tolist()
    assert expected
    where = status.locations(chapter.ROOT)
    missing = [i for i in expected if not where.get(i, "").startswith(f"notebooks/{doc}.html#")]
    assert missing == []


@pytest.mark.parametrize("doc", FIGURE_HEADINGS)
def test_each_figure_heading_carries_its_status_from_the_figure_list(doc):
    markdown = chapter.markdown(chapter.load_notebook(doc)["cells"])
    figures = data.load(doc, "figures").set_index("figure_id")
    for figure_id, row in figures.iterrows():
        match = re.search(rf"^\({figure_id.lower()}\)=\n(#+ .*)$", markdown, re.MULTILINE)
        assert match, f"no heading after the label of {figure_id}"
        heading = match.group(1)
        assert figure_id in heading
        assert heading.rstrip().endswith(row["status"]), (figure_id, heading, row["status"])


def test_the_claims_audit_is_shown_from_the_package(doc, cells):
    shown = [c for c in cells
             if c["cell_type"] == "code" and "audit.findings(DOC)" in "".join(c["source"])]
    assert shown
    html = chapter.outputs(shown, "text/html")
    claims = audit.registered(doc)
    assert claims
    for claim in claims:
        assert claim in html


def test_at_least_three_exercises_with_gated_solutions(markdown):
    exercises = re.findall(r"```\{exercise(?:-start)?\}\n:label: (\S+)", markdown)
    assert len(exercises) >= 3
    for label in exercises:
        assert re.search(rf"```{{solution-start}} {re.escape(label)}\n:class: dropdown", markdown)
    assert markdown.count("{solution-end}") == len(exercises)
