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


def test_values_table_shows_selected_values_under_readable_names():
    from queuelab import audit as audit_module

    values = audit_module.run("DC-C1").values
    floats = [k for k, v in values.items() if isinstance(v, float)][:2]
    labels = {floats[0]: "first", floats[1]: "second"}
    shown = audit_module.values_table("DC-C1", labels, digits=1)
    assert list(shown.index) == ["first", "second"] and list(shown.columns) == ["DC-C1"]
    assert shown.loc["first", "DC-C1"] == round(values[floats[0]], 1)
    with pytest.raises(ValueError, match=r"labels name key\(s\) \['nope'\]"):
        audit_module.values_table("DC-C1", {"nope": "x"})
