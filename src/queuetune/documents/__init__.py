"""One home per source document: ``queuetune.documents.<short_name>``.

The package of a document (its short name with ``_`` for ``-``: ``domino_threads`` for
``domino-threads``) holds everything that is about that document alone:

* ``claims`` - the checks of its claims, rules and checks, registered with
  :func:`queuetune.audit.check` (and the analyses they rest on);
* ``parsers`` - the parsers of its verbatim excerpts that the generic ones of
  :mod:`queuetune.provenance` do not cover, registered with :func:`queuetune.provenance.parser`;
* ``chapter`` - the helpers of its chapter (tables and chart data it shows);
* its calculators and analyses (``rules``, ``sizing``, ``fits``, ``region``, ...).

Which documents exist comes from the data (:func:`queuetune.data.documents`); importing a
document's package registers its claims checks and its parsers (:func:`load`).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .. import data

__all__ = ["module_name", "load", "load_all"]


def module_name(document: str) -> str:
    """The package of ``document``: ``queuetune.documents.domino_threads`` for
    ``domino-threads``."""
    return f"{__name__}.{document.replace('-', '_')}"


def load(document: str) -> ModuleType:
    """Import the home of one source document (registering its checks and parsers)."""
    if document not in data.documents():
        raise ValueError(f"unknown document {document!r}; available documents: "
                         f"{data.documents()}")
    return importlib.import_module(module_name(document))


def load_all() -> list[ModuleType]:
    """Import the home of every source document, in the book's order."""
    return [load(document) for document in data.documents()]
