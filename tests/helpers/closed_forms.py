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


# --------------------------------------------------------------------------- many processors,
# a pool of connections, open arrivals


def multiserver_rates(top: int, servers: int, service_time: float) -> list[float]:
    """Completion rates min(n, servers) / service_time for n = 1..top."""
    return [min(n, servers) / service_time for n in range(1, top + 1)]


def open_birth_death(
    arrival_rate: float, capacity: int, service_rates: list[float]
) -> dict[str, object]:
    """An open loss system: Poisson arrivals at ``arrival_rate`` while n < capacity (an arrival
    at n = capacity is lost), completions at ``service_rates[n - 1]``.

    Returns the stationary distribution ``p`` of n = 0..capacity and the metrics that follow
    from it alone (by PASTA the lost fraction is p[capacity]).
    """
    weights = [1.0]
    for n in range(capacity):
        weights.append(weights[-1] * arrival_rate / service_rates[n])
    p = np.array(weights) / sum(weights)
    n = np.arange(capacity + 1)
    throughput = arrival_rate * float(1.0 - p[-1])
    mean_in_system = float(p @ n)
    return {
        "p": p,
        "throughput": throughput,
        "response_time": mean_in_system / throughput,
        "mean_in_system": mean_in_system,
        "error_rate": float(p[-1]),
        "rejection_probability": float(p[-1]),
    }


def erlang_c(servers: int, offered_load: float) -> float:
    """Probability that an arrival waits in M/M/c (``offered_load`` a = lambda s < c)."""
    term, total = 1.0, 1.0
    for k in range(1, servers):
        term *= offered_load / k
        total += term
    top = term * offered_load / servers * servers / (servers - offered_load)
    return top / (total + top)


def mmc(arrival_rate: float, servers: int, service_time: float) -> dict[str, float]:
    """M/M/c with unlimited waiting room: Erlang-C wait, response time, mean numbers."""
    a = arrival_rate * service_time
    wait = erlang_c(servers, a) * service_time / (servers - a)
    return {
        "wait": wait,
        "response_time": wait + service_time,
        "waiting": arrival_rate * wait,
        "mean_in_system": arrival_rate * (wait + service_time),
        "utilization": a / servers,
    }


def multiserver_no_queue(
    clients: int, processors: int, cpu_time: float, wait_time: float, think_time: float
) -> dict[str, float]:
    """The server with no thread limit, no pool and capacity >= clients, closed.

    Product form: the processors are one load-dependent station (rate min(c, p) / cpu_time)
    whose other stations (think, wait) are infinite servers, so it sees a finite source with
    think time think_time + wait_time.
    """
    rates = multiserver_rates(clients, processors, cpu_time)
    cpu = finite_source_birth_death(clients, clients, think_time + wait_time, rates)
    p = _distribution(clients, clients, think_time + wait_time, rates)
    busy_processors = float(p @ np.minimum(np.arange(clients + 1), processors))
    admitted = cpu["mean_in_system"] + cpu["throughput"] * wait_time
    return {
        "throughput": cpu["throughput"],
        "response_time": admitted / cpu["throughput"],
        "utilization": busy_processors / processors,
        "mean_in_system": admitted,
        "error_rate": 0.0,
        "rejection_probability": 0.0,
        "busy_threads": admitted,
        "queue_length": 0.0,
        "queue_wait": 0.0,
    }
