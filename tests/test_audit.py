"""Registration of the claims audits whose claims the inventory lists: one check per claim,
and a findings table with a verdict and numbers for each."""

from __future__ import annotations

import re
from pathlib import Path

import inventory
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from queuetune import audit, data

DOCUMENTS = data.documents()


@pytest.mark.parametrize("doc", DOCUMENTS)
def test_every_claim_of_the_inventory_has_a_check(doc):
    if not inventory.available():
        pytest.skip("../shared/INVENTORY.md is not beside the repository")
    assert audit.registered(doc) == inventory.ids_for(doc, "C")


@pytest.mark.parametrize("doc", DOCUMENTS)
def test_findings_table_has_a_verdict_and_numbers_for_each_claim(doc):
    table = audit.findings(doc)
    assert table["id"].tolist() == audit.registered(doc)
    assert set(table["verdict"]) <= set(audit.VERDICTS)
    assert table["evidence"].str.contains(r"\d").all()


def test_values_table_shows_selected_values_under_readable_names():
    from queuetune import audit as audit_module

    values = audit_module.run("DC-C1").values
    floats = [k for k, v in values.items() if isinstance(v, float)][:2]
    labels = {floats[0]: "first", floats[1]: "second"}
    shown = audit_module.values_table("DC-C1", labels, digits=1)
    assert list(shown.index) == ["first", "second"] and list(shown.columns) == ["DC-C1"]
    assert shown.loc["first", "DC-C1"] == round(values[floats[0]], 1)
    with pytest.raises(ValueError, match=r"labels name key\(s\) \['nope'\]"):
        audit_module.values_table("DC-C1", {"nope": "x"})


# -- the verdict words and the evidence behind them ----------------------------------------------

def test_every_verdict_word_is_defined_once_and_the_page_prints_the_definitions():
    assert set(audit.DEFINITIONS) == set(audit.VERDICTS)
    page = (Path(__file__).resolve().parents[1] / "notebooks" / "claims-audit.md").read_text(
        encoding="utf-8")
    assert "audit.DEFINITIONS[word]" in page  # the page shows the code's words, not a copy


def test_every_finding_agrees_with_its_verdict_word():
    table = audit.findings()
    # one finding per registered check, in the book's order (the count is the documents')
    assert table["id"].tolist() == audit.registered()
    for row in table.itertuples():
        assert audit.evidence_problems(row.verdict, row.evidence) == [], row.id
        untested = row.evidence.startswith(audit.UNTESTED_MARK)
        assert untested == (row.verdict == "not testable"), row.id


@pytest.mark.parametrize("verdict, evidence, problem", [
    # the audit found this: a guideline with nothing to test it against, called "partly"
    ("partly", "No CPU, memory, paging or disk-queue reading survives to test the guidelines "
               "against. Checked against each other: every ceiling agrees.", "survives to test"),
    ("supported", "No plotted value is in the text, so no factor can be recomputed.",
     "no factor can be recomputed"),
    ("contradicted", f"{audit.UNTESTED_MARK}: nothing is printed.", "nothing the source"),
    ("not testable", "The model agrees at every client count.", "must begin with"),
])
def test_an_evidence_that_disagrees_with_its_verdict_is_refused(verdict, evidence, problem):
    problems = audit.evidence_problems(verdict, evidence)
    assert problems and problem in problems[0]
    with pytest.raises(ValueError, match="evidence"):
        audit.Finding("XX-C1", "doc", "a claim", verdict, evidence)


def test_an_evidence_that_agrees_with_its_verdict_passes():
    assert audit.evidence_problems(
        "not testable", f"{audit.UNTESTED_MARK}: no reading survives to test it against.") == []
    assert audit.evidence_problems("partly", "Two of three parts hold; the third "
                                             "cannot be tested.") == []


@given(st.from_regex(r"[A-Z]{2}-C[0-9]+", fullmatch=True),
       st.text(st.characters(codec="ascii"), min_size=1, max_size=3), st.booleans())
def test_check_refuses_an_id_it_would_read_in_part(id_, junk, before):
    """"DT-C1a2" is not claim 12, nor "DT-C12 " claim 12: the ID is read whole or refused."""
    glued = junk + id_ if before else id_ + junk
    assume(re.fullmatch(r"[A-Z]{2}-C[0-9]+", glued) is None)
    with pytest.raises(ValueError, match=f"^id must be .*, got {re.escape(repr(glued))}$"):
        audit.check(glued, document="domino-threads", statement="s")


def test_checks_are_ordered_by_document_then_by_the_number_of_their_id():
    entries = [audit._Check(i, d, "s", print) for i, d in [
        ("DT-C10", "domino-threads"), ("DT-C9", "domino-threads"), ("DC-C2", "domino-curves")]]
    ordered = [e.id for e in sorted(entries, key=audit._order)]
    first = data.documents().index("domino-curves") < data.documents().index("domino-threads")
    assert ordered == (["DC-C2", "DT-C9", "DT-C10"] if first else ["DT-C9", "DT-C10", "DC-C2"])
