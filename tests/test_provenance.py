"""Every transcribed table equals its source, cell by cell, and every excerpt is verbatim."""

from __future__ import annotations

import json

import inventory
import pandas as pd
import pytest

from queuetune import data, provenance

NO_EXCERPT = {"sentences", "none"}


def resources():
    for document in data.documents():
        for name in data.datasets(document):
            yield document, name


def table_resources():
    return [pytest.param(d, n, id=f"{d}/{n}") for d, n in resources()
            if data.describe(d, n)["source"]["parser"]["name"] not in NO_EXCERPT]


def seed_text(document: str) -> str:
    package = json.loads((data.data_dir() / document / "datapackage.json").read_text())
    return (inventory.SEEDS / package["seed"]).read_text(encoding="utf-8")


def test_every_inventory_document_has_a_data_package():
    if not inventory.available():
        pytest.skip("../shared/INVENTORY.md is not beside the repository")
    assert [data.prefix(d) for d in data.documents()] == inventory.inventory_prefixes()


@pytest.mark.parametrize("document,name", table_resources())
def test_table_equals_its_excerpt_cell_by_cell(document, name):
    problems = provenance.compare_with_csv(document, name)
    assert problems == [], f"{document}/{name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("document,name", table_resources())
def test_excerpt_is_verbatim_in_the_document(document, name):
    if not inventory.SEEDS.is_dir():
        pytest.skip("../shared/seeds is not beside the repository; verbatim check needs it")
    text = seed_text(document)
    for fragment in provenance.excerpt_fragments(provenance.read_excerpt(document, name)):
        assert fragment in text, f"{document}/{name}: fragment not verbatim:\n{fragment[:300]}"


def excerpt_files():
    """Every verbatim excerpt under a document's source/ folder, those behind no table (the
    passages the chapters quote, source/quotations.txt) included."""
    return [pytest.param(d, p.name, id=f"{d}/{p.name}") for d in data.documents()
            for p in sorted((data.data_dir() / d / "source").glob("*.txt"))]


@pytest.mark.parametrize("document,filename", excerpt_files())
def test_every_excerpt_file_is_verbatim_in_the_document(document, filename):
    if not inventory.SEEDS.is_dir():
        pytest.skip("../shared/seeds is not beside the repository; verbatim check needs it")
    text = seed_text(document)
    excerpt = (data.data_dir() / document / "source" / filename).read_text(encoding="utf-8")
    for fragment in provenance.excerpt_fragments(excerpt):
        assert fragment in text, f"{document}/{filename}: fragment not verbatim:\n{fragment[:300]}"


@pytest.mark.parametrize("document", data.documents())
def test_stated_values_quote_the_document(document):
    table = provenance.read_csv_as_text(document, "stated_values")
    assert {"inventory_id", "quantity", "value", "unit", "sentence"} <= set(table.columns)
    for row in table.itertuples():
        assert row.value in row.sentence, f"{row.inventory_id}: {row.value!r} not in sentence"
    if not inventory.SEEDS.is_dir():
        pytest.skip("../shared/seeds is not beside the repository; verbatim check needs it")
    text = seed_text(document)
    for row in table.itertuples():
        assert row.sentence in text, f"{row.inventory_id}: sentence not verbatim: {row.sentence}"


def test_the_comparison_catches_a_changed_cell(tmp_path, monkeypatch):
    """Copy one package, change one printed digit in the CSV: the check must report it."""
    import shutil

    shutil.copytree(data.data_dir() / "domino-threads", tmp_path / "domino-threads")
    csv = tmp_path / "domino-threads" / "webmail_response_time.csv"
    csv.write_text(csv.read_text().replace("0.469", "0.470"))
    monkeypatch.setenv("QUEUETUNE_DATA", str(tmp_path))
    problems = provenance.compare_with_csv("domino-threads", "webmail_response_time")
    assert problems == ["row 8, response_time_s: excerpt '0.469' vs CSV '0.470'"]


def test_trailing_zeros_count(tmp_path, monkeypatch):
    """'0.10' and '0.1' are different transcriptions of a printed value."""
    frame = pd.DataFrame({"a": ["0.10"]})
    assert frame.astype(str).iloc[0, 0] != "0.1"
