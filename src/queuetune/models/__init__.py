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

from .fleet import FleetResult
from .mean_value import Station, mva
from .results import FiniteSourceResult, MM1BKResult, MVAResult, ThreadPoolResult
from .single_server import mm1bk
from .thread_pool_server import thread_pool

__all__ = [
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
