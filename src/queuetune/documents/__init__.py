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
document's package registers its claims checks and its parsers (:func:`load`, defined in
:mod:`queuetune.homes`).
"""

from __future__ import annotations

# The loader lives in the data layer, which imports the homes by name (see queuetune.homes).
from ..homes import load, load_all, module_name

__all__ = ["module_name", "load", "load_all"]
