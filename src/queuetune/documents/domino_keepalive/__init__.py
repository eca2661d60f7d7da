"""domino-keepalive: Nashed, "Tune Domino HTTP connections" (2023).

Everything about this document alone; its data are ``data/domino-keepalive/``.

* :mod:`.amortization`
* :mod:`.claims`
* :mod:`.parsers`

Importing the package registers the document's claims checks and excerpt parsers.
"""

from . import claims, parsers

__all__ = ["claims", "parsers"]
