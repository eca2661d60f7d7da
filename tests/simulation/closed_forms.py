"""Closed forms the simulator is checked against before (and besides) the analytic models.

Both are birth-death chains on the number of requests in the system, solved directly.
"""

from __future__ import annotations

import numpy as np


def finite_source_birth_death(
    clients: int, capacity: int, think_time: float, service_rates: list[float]
) -> dict[str, float]:
    """Metrics of a finite-source loss system whose server completes at ``service_rates[n - 1]``.

    Arrivals come at rate (clients - n) / think_time while n < capacity; an arrival at
    n = capacity is dropped (counted in the rejection probability).
    """
    top = min(capacity, clients)
    weights = [1.0]
    for n in range(top):
        weights.append(weights[-1] * (clients - n) / think_time / service_rates[n])
    p = np.array(weights) / sum(weights)
    n = np.arange(top + 1)
    arrival_rates = (clients - n) / think_time
    departures = np.array([0.0] + list(service_rates[:top]))
    throughput = float(p @ departures)
    mean_in_system = float(p @ n)
    full = float(p[-1]) if capacity <= clients else 0.0
    offered = float(p @ arrival_rates)
    rejected = float(p[-1] * arrival_rates[-1]) if capacity <= clients else 0.0
    return {
        "throughput": throughput,
        "response_time": mean_in_system / throughput,
        "utilization": float(1.0 - p[0]),
        "mean_in_system": mean_in_system,
        "error_rate": full,
        "rejection_probability": rejected / offered,
    }


def mm1bk_closed_form(
    clients: int, capacity: int, service_time: float, think_time: float
) -> dict[str, float]:
    """M/M/1/B/K: one exponential server at rate 1 / service_time."""
    rates = [1.0 / service_time] * min(capacity, clients)
    return finite_source_birth_death(clients, capacity, think_time, rates)
