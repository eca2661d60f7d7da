"""The homes of the source documents, imported by name: ``queuetune.documents.<document>``.

The registries of the data layer - the claims checks of :mod:`queuetune.audit` and the excerpt
parsers of :mod:`queuetune.provenance` - are filled by the documents' homes, which import them
and register on import. The data layer knows the documents only by name, from the data
(:func:`queuetune.data.documents`), and imports a home by that name when a look-up needs it;
it never imports a home's module itself, so that no import of the package goes upward.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from . import data

__all__ = ["module_name", "load", "load_all"]

#: The package that holds one home per document.
HOMES_PACKAGE = f"{__package__}.documents"


def module_name(document: str) -> str:
    """The home of ``document``: ``queuetune.documents.domino_threads`` for
    ``domino-threads``.

    >>> module_name("domino-threads")
    'queuetune.documents.domino_threads'
    """
    return f"{HOMES_PACKAGE}.{document.replace('-', '_')}"


def load(document: str) -> ModuleType:
    """Import the home of one source document (registering its checks and parsers)."""
    if document not in data.documents():
        raise ValueError(f"document must be one of {data.documents()}, got {document!r}")
    return importlib.import_module(module_name(document))


def load_all() -> list[ModuleType]:
    """Import the home of every source document, in the book's order."""
    return [load(document) for document in data.documents()]
