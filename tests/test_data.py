"""The data packages are valid Frictionless packages and cover every table and figure ID."""

from __future__ import annotations

import frictionless
import inventory
import pytest

from queuetune import data

STATUS_WORDS = {"reproduced", "recomputed", "reconstructed", "not reproducible"}


@pytest.mark.parametrize("document", data.documents())
def test_package_is_valid(document):
    report = frictionless.validate(str(data.data_dir() / document / "datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])[:20]


@pytest.mark.parametrize("document", data.documents())
def test_every_field_says_what_it_is(document):
    for name in data.datasets(document):
        resource = data.describe(document, name)
        assert resource.get("title"), f"{document}/{name} has no title"
        assert resource.get("inventory_id"), f"{document}/{name} has no inventory_id"
        assert resource["source"].get("section"), f"{document}/{name} has no source section"
        for field in resource["schema"]["fields"]:
            assert field.get("description"), f"{document}/{name}.{field['name']} undescribed"


@pytest.mark.parametrize("document", data.documents())
def test_every_table_id_has_a_resource(document):
    if not inventory.available():
        pytest.skip("../shared/INVENTORY.md is not beside the repository")
    covered = set()
    for name in data.datasets(document):
        covered |= set(inventory.expand_ids(data.describe(document, name)["inventory_id"]))
    missing = [i for i in inventory.ids_for(document, "T") if i not in covered]
    assert missing == [], f"{document}: no data for {missing}"


@pytest.mark.parametrize("document", data.documents())
def test_figure_list_covers_every_figure_id(document):
    figures = data.load(document, "figures")
    expected = inventory.ids_for(document, "F") if inventory.available() else []
    listed = figures["figure_id"].tolist()
    assert sorted(set(expected) - set(listed)) == []
    assert len(listed) == len(set(listed)), "a figure is listed twice"
    assert set(figures["status"]) <= STATUS_WORDS
    assert figures["caption"].str.len().min() > 0
