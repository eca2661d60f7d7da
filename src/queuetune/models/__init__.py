"""Analytic queueing models of a web or application server.

* :func:`mm1bk` - the M/M/1/B/K model of Imre, Bogárdi-Mészöly and Charaf, eqs. (3)-(5);
* :func:`mva` - exact single-class Mean Value Analysis of closed networks (Menascé & Almeida
  2002), with load-dependent stations solved through log normalizing constants;
* :func:`thread_pool` - the M/M/1/B/K model extended with a pool of T threads (or none), p
  processors, a pool of C connections and a closed or open workload, solved exactly as a
  Markov chain or by flow-equivalent-server decomposition; with ``instances``,
  ``db_processors``, ``db_time`` or ``db_contention`` a fleet of such servers behind a
  balancer sharing one database (:mod:`.fleet`, :class:`FleetResult`);
* :mod:`.symbolic` - the derivations of eqs. (3)-(5) with SymPy.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Each model this package offers, and its module. Imported on first use (module
#: ``__getattr__``, PEP 562), so that importing one light module of the package
#: (:mod:`.flow_equivalent`, which the sizing uses) does not import SciPy and every model.
_EXPORTS = {
    "mm1bk": ".single_server",
    "mva": ".mean_value",
    "thread_pool": ".thread_pool_server",
    "Station": ".mean_value",
    "FiniteSourceResult": ".results",
    "FleetResult": ".fleet",
    "MM1BKResult": ".results",
    "MVAResult": ".results",
    "ThreadPoolResult": ".results",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    """``queuetune.models.<name>``, imported on first use and then kept in the package."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'queuetune.models' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
