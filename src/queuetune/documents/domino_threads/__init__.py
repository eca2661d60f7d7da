"""domino-threads: Demetriou, "Optimizing server performance: HTTP Threads settings" (1998).

Everything about this document alone; its data are ``data/domino-threads/``.

* :mod:`.chapter` (the helpers of its chapter)
* :mod:`.claims`
* :mod:`.fits`
* :mod:`.parsers`
* :mod:`.rules`

Importing the package registers the document's claims checks and excerpt parsers.
"""

from . import claims, parsers

__all__ = ["claims", "parsers"]
