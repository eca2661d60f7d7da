"""queuetune: queueing models of web and application server tuning.

Modules: ``data`` (the transcribed tables), ``charts`` (the book's chart builders),
``tables`` (table layouts), ``models`` (the analytic queueing models).

Models: :func:`mm1bk` (Imre et al.'s M/M/1/B/K server), :func:`mva` (exact Mean Value
Analysis of closed networks, with :class:`Station`), :func:`thread_pool` (the server with a
thread pool, exact or by flow-equivalent server; with ``instances`` and ``db_*`` keywords a
fleet sharing a database, :class:`FleetResult`).

Sizing: :func:`size_fleet` (instances, a pool per instance, threads and bound of a fleet
against one database, :class:`FleetSizing`; ``python -m queuetune size --db-ms ...``).

Every name here is imported on first use (module ``__getattr__``, PEP 562): ``import
queuetune.sizing`` and ``python -m queuetune size`` then load NumPy and the sizing only, not
Altair, pandas or the models (importing Altair alone takes seconds).
"""

from __future__ import annotations

import importlib
from typing import Any

#: Each name this package offers, and the module it comes from.
_EXPORTS = {
    "charts": "queuetune.charts",
    "data": "queuetune.data",
    "tables": "queuetune.tables",
    "mm1bk": "queuetune.models",
    "mva": "queuetune.models",
    "thread_pool": "queuetune.models",
    "Station": "queuetune.models",
    "FiniteSourceResult": "queuetune.models",
    "FleetResult": "queuetune.models",
    "MM1BKResult": "queuetune.models",
    "MVAResult": "queuetune.models",
    "ThreadPoolResult": "queuetune.models",
    "size_fleet": "queuetune.fleet_sizing",
    "FleetSizing": "queuetune.fleet_sizing",
}

__all__ = list(_EXPORTS)
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """``queuetune.<name>``, imported on first use and then kept in the package."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'queuetune' has no attribute {name!r}")
    module = importlib.import_module(_EXPORTS[name])
    value = module if module.__name__.endswith("." + name) else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
