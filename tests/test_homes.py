"""queuetune.homes: the documents' homes found by name from the data and imported on demand."""

from __future__ import annotations

import importlib

import pytest

from queuetune import audit, data, homes, provenance


def test_every_document_has_a_home_at_its_module_name():
    for document in data.documents():
        home = homes.load(document)
        assert home.__name__ == homes.module_name(document)
        assert home.__name__.endswith(document.replace("-", "_"))


def test_load_all_follows_the_books_order():
    assert [m.__name__ for m in homes.load_all()] == [homes.module_name(d)
                                                      for d in data.documents()]


def test_loading_the_homes_fills_the_registries():
    homes.load_all()
    documents = {d for d in data.documents()}
    assert {audit._REGISTRY[i].document for i in audit.registered()} == documents
    prefixes = {d.split("-")[0] for d in documents}
    assert {name.split("-")[0] for name in provenance.PARSERS} >= prefixes


def test_an_unknown_document_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match=r"^document must be one of \[.*'domino-threads'.*\], "
                                         r"got 'nope'$"):
        homes.load("nope")


def test_the_documents_package_re_exports_the_loader():
    documents = importlib.import_module("queuetune.documents")
    assert documents.load is homes.load and documents.load_all is homes.load_all
