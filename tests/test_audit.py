"""Registration of the claims audits whose claims the inventory lists: one check per claim,
and a findings table with a verdict and numbers for each."""

from __future__ import annotations

import inventory
import pytest

from queuelab import audit

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
