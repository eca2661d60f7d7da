"""imre-appserver: Imre, Bogárdi-Mészöly & Charaf, "Measuring and Modelling the Effect of
Application Server Tuning Parameters on Performance".

Everything about this document alone; its data are ``data/imre-appserver/``.

* :mod:`.chapter` (the helpers of its chapter)
* :mod:`.claims`
* :mod:`.parsers`
* :mod:`.region`

Importing the package registers the document's claims checks and excerpt parsers.
"""

from . import claims, parsers

__all__ = ["claims", "parsers"]
