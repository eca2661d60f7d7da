"""iplanet-tuning: the iPlanet Web Server 6.0 Performance Tuning, Sizing, and Scaling Guide.

Everything about this document alone; its data are ``data/iplanet-tuning/``.

* :mod:`.chapter` (the helpers of its chapter)
* :mod:`.claims`
* :mod:`.parsers`
* :mod:`.scaling`
* :mod:`.sizing`
* :mod:`.thread_posting`

Importing the package registers the document's claims checks and excerpt parsers.
"""

from . import claims, parsers

__all__ = ["claims", "parsers"]
