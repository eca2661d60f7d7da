"""Registration of the claims audits whose claims the inventory lists: one check per claim,
and a findings table with a verdict and numbers for each."""

from __future__ import annotations

from pathlib import Path

import inventory
import pytest

from queuetune import audit

# document: its claim IDs, for when the inventory is not beside the repository
CLAIMS = {
    "domino-curves": [f"DC-C{i}" for i in range(1, 6)],
    "domino-threads": [f"DT-C{i}" for i in range(1, 6)],
}


@pytest.mark.parametrize("doc", CLAIMS)
def test_every_claim_of_the_inventory_has_a_check(doc):
    expected = inventory.ids_for(doc, "C") if inventory.available() else CLAIMS[doc]
    assert audit.registered(doc) == expected


@pytest.mark.parametrize("doc", CLAIMS)
def test_findings_table_has_a_verdict_and_numbers_for_each_claim(doc):
    table = audit.findings(doc)
    assert table["id"].tolist() == CLAIMS[doc]
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
