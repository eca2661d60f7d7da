"""queuetune: queueing models of web and application server tuning.

Modules: ``data`` (the transcribed tables), ``charts`` (the book's chart builders),
``tables`` (table layouts), ``models`` (the analytic queueing models).

Models: :func:`mm1bk` (Imre et al.'s M/M/1/B/K server), :func:`mva` (exact Mean Value
Analysis of closed networks, with :class:`Station`), :func:`thread_pool` (the server with a
thread pool, exact or by flow-equivalent server; with ``instances`` and ``db_*`` keywords a
fleet sharing a database, :class:`FleetResult`).
"""

from . import charts, data, tables
from .models import (
    FiniteSourceResult,
    FleetResult,
    MM1BKResult,
    MVAResult,
    Station,
    ThreadPoolResult,
    mm1bk,
    mva,
    thread_pool,
)

__all__ = [
    "charts",
    "data",
    "tables",
    "mm1bk",
    "mva",
    "thread_pool",
    "Station",
    "FiniteSourceResult",
    "FleetResult",
    "MM1BKResult",
    "MVAResult",
    "ThreadPoolResult",
]
__version__ = "0.1.0"
