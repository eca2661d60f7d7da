"""queuelab: queueing models of web and application server tuning.

Modules: ``data`` (the transcribed tables), ``charts`` (the book's chart builders),
``tables`` (table layouts).
"""

from . import charts, data, tables

__all__ = ["charts", "data", "tables"]
__version__ = "0.1.0"
