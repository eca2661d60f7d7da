"""Closed forms the simulator is checked against before (and besides) the analytic models.

Both are birth-death chains on the number of requests in the system, solved directly.
"""

from __future__ import annotations

import numpy as np


def _distribution(
    clients: int, capacity: int, think_time: float, service_rates: list[float]
) -> np.ndarray:
    """Stationary distribution of n = 0..min(capacity, clients)."""
    weights = [1.0]
    for n in range(min(capacity, clients)):
        weights.append(weights[-1] * (clients - n) / think_time / service_rates[n])
    return np.array(weights) / sum(weights)


def finite_source_birth_death(
    clients: int, capacity: int, think_time: float, service_rates: list[float]
) -> dict[str, float]:
    """Metrics of a finite-source loss system whose server completes at ``service_rates[n - 1]``.

    Arrivals come at rate (clients - n) / think_time while n < capacity; an arrival at
    n = capacity is dropped (counted in the rejection probability).
    """
    p = _distribution(clients, capacity, think_time, service_rates)
    top = len(p) - 1
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


def thread_pool_no_wait(
    clients: int,
    capacity: int,
    threads: int,
    cpu_time: float,
    think_time: float,
    thread_overhead: float = 0.0,
    pool_overhead: float = 0.0,
) -> dict[str, float]:
    """Thread pool with wait_time = 0: every busy thread is at the CPU, so the number in
    system n alone is Markov, with min(n, threads) busy threads slowing the CPU."""
    top = min(capacity, clients)

    def rate(n: int) -> float:
        busy = min(n, threads)
        stretch = (1 + thread_overhead * (busy - 1)) * (1 + pool_overhead * threads)
        return 1.0 / (cpu_time * stretch)

    rates = [rate(n) for n in range(1, top + 1)]
    metrics = finite_source_birth_death(clients, capacity, think_time, rates)
    p = _distribution(clients, capacity, think_time, rates)
    n = np.arange(top + 1)
    metrics["busy_threads"] = float(p @ np.minimum(n, threads))
    metrics["queue_length"] = float(p @ np.maximum(n - threads, 0))
    metrics["queue_wait"] = metrics["queue_length"] / metrics["throughput"]
    return metrics


def thread_pool_no_queue(
    clients: int, cpu_time: float, wait_time: float, think_time: float
) -> dict[str, float]:
    """Thread pool without overhead whose threads and capacity are >= clients.

    Product form: the CPU is a finite-source queue whose other stations (think, wait) are
    both infinite servers, so it sees M/M/1//K with think time think_time + wait_time.
    """
    cpu = mm1bk_closed_form(clients, clients, cpu_time, think_time + wait_time)
    busy = cpu["mean_in_system"] + cpu["throughput"] * wait_time
    return {
        "throughput": cpu["throughput"],
        "response_time": busy / cpu["throughput"],
        "utilization": cpu["utilization"],
        "mean_in_system": busy,
        "error_rate": 0.0,
        "rejection_probability": 0.0,
        "busy_threads": busy,
        "queue_length": 0.0,
        "queue_wait": 0.0,
    }
