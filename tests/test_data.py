"""queuetune.data: the data packages are valid Frictionless packages covering every table and
figure ID, and data.load gives typed frames with units and clear errors for unknown names."""

from __future__ import annotations

import json
import shutil

import frictionless
import inventory
import pandas as pd
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


# --- data.load ----------------------------------------------------------------------------------

def test_load_types_and_units():
    df = data.load("domino-threads", "webmail_response_time")
    assert df["users"].dtype == "Int64"
    assert df["response_time_s"].dtype == "float64"
    assert df.attrs["units"]["response_time_s"] == "s"
    assert df.attrs["inventory_id"] == "DT-T3"
    # the full design: every user level at every thread level, once
    assert len(df) == df["users"].nunique() * df["http_threads"].nunique()
    assert not df.duplicated(["users", "http_threads"]).any()


def test_every_table_loads_with_its_schema_columns():
    for document in data.documents():
        for name in data.datasets(document):
            df = data.load(document, name)
            fields = [f["name"] for f in data.describe(document, name)["schema"]["fields"]]
            assert list(df.columns) == fields
            assert isinstance(df, pd.DataFrame)


def test_unknown_document_lists_the_available_ones():
    with pytest.raises(ValueError, match="unknown document 'nope'.*domino-threads"):
        data.load("nope", "webmail_response_time")


def test_unknown_dataset_lists_the_available_ones():
    with pytest.raises(ValueError, match="unknown dataset 'nope'.*webmail_response_time"):
        data.load("domino-threads", "nope")


def test_documents_come_from_the_metadata_in_book_order():
    documents = data.documents()
    orders = [data.metadata(d)["book_order"] for d in documents]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)
    for document in documents:
        assert data.document_for_prefix(data.prefix(document)) == document
    with pytest.raises(ValueError, match="unknown inventory prefix 'XX'"):
        data.document_for_prefix("XX")


def test_a_measured_data_set_is_a_package_but_not_a_document(tmp_path, monkeypatch):
    """A data set under data/lab/<id>/ (no inventory prefix) loads, gzipped CSV included, and
    is not taken for a source document."""
    shutil.copytree(data.data_dir() / "domino-threads", tmp_path / "domino-threads")
    lab = tmp_path / "lab" / "run-1"
    lab.mkdir(parents=True)
    pd.DataFrame({"clients": [10, 20], "throughput": [2.5, 4.75]}).to_csv(
        lab / "runs.csv.gz", index=False)
    (lab / "datapackage.json").write_text(json.dumps({"name": "run-1", "resources": [{
        "name": "runs", "path": "runs.csv.gz", "schema": {"fields": [
            {"name": "clients", "type": "integer"},
            {"name": "throughput", "type": "number", "unit": "1/s"}]}}]}))
    # a top-level package without an inventory prefix is no document either
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "datapackage.json").write_text('{"name": "notes", "resources": []}')
    monkeypatch.setenv("QUEUETUNE_DATA", str(tmp_path))
    assert data.documents() == ["domino-threads"]
    assert data.packages() == ["domino-threads", "lab/run-1", "notes"]
    runs = data.load("lab/run-1", "runs")
    assert runs["throughput"].tolist() == [2.5, 4.75]
    assert runs.attrs["units"] == {"throughput": "1/s"}


def test_two_documents_may_not_share_a_place(tmp_path, monkeypatch):
    for name in ("domino-threads", "domino-curves"):
        shutil.copytree(data.data_dir() / name, tmp_path / name)
    package = tmp_path / "domino-curves" / "datapackage.json"
    package.write_text(package.read_text().replace('"book_order": 2', '"book_order": 1'))
    monkeypatch.setenv("QUEUETUNE_DATA", str(tmp_path))
    with pytest.raises(ValueError, match="two documents share a book_order"):
        data.documents()


def test_stored_results_load():
    assert "statements_held" in data.load_result("imre_region").columns
    with pytest.raises(ValueError, match="unknown result 'nope'"):
        data.load_result("nope")
