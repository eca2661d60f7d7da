"""The regimes of a measured run, one definition for every experiment and the report.

A run's *load* is its offered load over the server's capacity: for a closed loop its clients K
over the knee K* (Denning and Buzen's N*, where the two asymptotes of the response time meet);
for open arrivals its rate over the capacity. Below the knee the load sets the throughput; past
it the bottleneck does, and the response time follows from the response-time law, which tests a
model little; at it, where sizing decides, a model is tested most.

>>> regime_of([0.5, 1.0, 2.0]).tolist()
['below the knee', 'at the knee', 'past the knee']
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["REGIMES", "KNEE_BAND", "regime_of"]

#: The three regimes, in order of load.
REGIMES = ("below the knee", "at the knee", "past the knee")
#: Loads counted as at the knee: from 2/3 to 3/2 of it (both ends included).
KNEE_BAND = (2 / 3, 3 / 2)


def regime_of(load: Any) -> np.ndarray:
    """The regime (:data:`REGIMES`) of each load (offered load over capacity, K/K* or
    lambda/capacity), which must be finite and positive."""
    values = np.asarray(load, dtype=float)
    if values.size and not (np.all(np.isfinite(values)) and np.all(values > 0)):
        raise ValueError(f"load must hold finite numbers > 0, got {load!r}")
    low, high = KNEE_BAND
    return np.select([values < low, values <= high], REGIMES[:2], REGIMES[2])
