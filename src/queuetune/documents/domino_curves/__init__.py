"""domino-curves: Zimmet & Florio Barber, "Optimizing server performance: Handling the Curves
like a Pro" (1998).

Everything about this document alone; its data are ``data/domino-curves/``.

* :mod:`.chapter` (the helpers of its chapter)
* :mod:`.claims`
* :mod:`.parsers`
* :mod:`.rules`

Importing the package registers the document's claims checks and excerpt parsers.
"""

from . import claims, parsers

__all__ = ["claims", "parsers"]
