"""The server's reductions to textbook queues, simulated and compared with their closed forms.

* open, no waiting phase, no thread limit: M/M/p/B (processor sharing over p processors has the
  state probabilities of the FCFS multi-server queue);
* open, huge B: Erlang-C, the wait for one of p threads on p processors and the response time
  under processor sharing;
* closed, no waiting phase, T threads on p processors: a finite source whose n admitted
  requests complete at rate min(n, T, p) / s_c;
* closed, no thread limit, B >= K, p processors: product form (the processors one
  load-dependent station between two infinite servers, think and wait);
* a pool of C connections with s_c -> 0: M/M/C/B (open) and M/M/C/B/K (closed) on the wait;
* connections >= threads: no pool (for the same seed the same sample path).

Fixed seeds, 95 % Student-t intervals judged as in ``tests/helpers/agreement.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from agreement import coverage_shortfall, far_outside
from closed_forms import (
    finite_source_birth_death,
    mmc,
    multiserver_no_queue,
    multiserver_rates,
    open_birth_death,
)

from queuetune.simulation import CONNECTION_METRICS, THREAD_POOL_METRICS, simulate_thread_pool

RUN = {"horizon": 400.0, "warmup": 40.0, "replications": 10}


def _closed_distribution(clients: int, capacity: int, think_time: float, rates: list[float]):
    top = min(capacity, clients)
    weights = [1.0]
    for n in range(top):
        weights.append(weights[-1] * (clients - n) / think_time / rates[n])
    return np.array(weights) / sum(weights)


def _levels(p: np.ndarray, *, threads=None, processors=1, connections=None, cpu=True) -> dict:
    """Metrics that are means over the number n admitted, all of them in one phase."""
    n = np.arange(len(p))
    holding = n if threads is None else np.minimum(n, threads)
    levels = {
        "busy_threads": float(p @ holding),
        "queue_length": float(p @ (n - holding)),
        "utilization": float(p @ np.minimum(holding, processors)) / processors if cpu else 0.0,
    }
    if connections is not None:
        levels["busy_connections"] = float(p @ np.minimum(holding, connections))
        levels["connection_queue_length"] = float(p @ np.maximum(holding - connections, 0))
    return levels


def _with_waits(metrics: dict) -> dict:
    """Mean waits by Little's law over the admitted requests."""
    waits = {"queue_wait": metrics["queue_length"] / metrics["throughput"]}
    if "connection_queue_length" in metrics:
        waits["connection_wait"] = metrics["connection_queue_length"] / metrics["throughput"]
    return {k: v for k, v in metrics.items() if k != "p"} | waits


def open_one_phase(arrival_rate, capacity, threads, processors, connections, cpu_time,
                   wait_time):
    """Open server with one phase: the processors (wait_time = 0) or the pool (cpu_time = 0)."""
    top_rate = threads or capacity
    if wait_time == 0:
        rates = multiserver_rates(capacity, min(processors, top_rate), cpu_time)
    else:
        rates = multiserver_rates(capacity, min(connections, top_rate), wait_time)
    bd = open_birth_death(arrival_rate, capacity, rates)
    levels = _levels(bd["p"], threads=threads, processors=processors,
                     connections=connections if wait_time else None, cpu=cpu_time > 0)
    return _with_waits(bd | levels)


def closed_one_phase(clients, think_time, capacity, threads, processors, connections, cpu_time,
                     wait_time):
    """Closed server with one phase, as :func:`open_one_phase`."""
    top = min(capacity, clients)
    top_rate = threads or capacity
    if wait_time == 0:
        rates = multiserver_rates(top, min(processors, top_rate), cpu_time)
    else:
        rates = multiserver_rates(top, min(connections, top_rate), wait_time)
    metrics = finite_source_birth_death(clients, capacity, think_time, rates)
    p = _closed_distribution(clients, capacity, think_time, rates)
    levels = _levels(p, threads=threads, processors=processors,
                     connections=connections if wait_time else None, cpu=cpu_time > 0)
    return _with_waits(metrics | levels)


OPEN = [
    # M/M/4/8 on the processors, no thread limit
    dict(arrival_rate=30.0, capacity=8, threads=None, processors=4, connections=None,
         cpu_time=0.1, wait_time=0.0),
    # 3 threads on 4 processors: the threads are the servers, M/M/3/10
    dict(arrival_rate=25.0, capacity=10, threads=3, processors=4, connections=None,
         cpu_time=0.1, wait_time=0.0),
    # a pool of 5 connections, no processor time: M/M/5/12 on the wait
    dict(arrival_rate=40.0, capacity=12, threads=None, processors=1, connections=5,
         cpu_time=0.0, wait_time=0.1),
]
CLOSED = [
    # 3 threads on 4 processors, a finite source with drops
    dict(clients=40, think_time=1.0, capacity=10, threads=3, processors=4, connections=None,
         cpu_time=0.1, wait_time=0.0),
    # a pool of 4 connections, threads = B: M/M/4/15/30 on the wait
    dict(clients=30, think_time=1.0, capacity=15, threads=15, processors=2, connections=4,
         cpu_time=0.0, wait_time=0.2),
]
PRODUCT_FORM = dict(clients=20, think_time=1.0, capacity=20, threads=None, processors=2,
                    cpu_time=0.1, wait_time=0.3)


def _metrics(point: dict) -> tuple[str, ...]:
    return THREAD_POOL_METRICS + (CONNECTION_METRICS if point.get("connections") else ())


def _pick(exact: dict, point: dict) -> dict:
    return {name: exact[name] for name in _metrics(point)}


def _exact(point: dict) -> dict:
    if point in OPEN:
        return _pick(open_one_phase(**point), point)
    if point in CLOSED:
        return _pick(closed_one_phase(**point), point)
    return multiserver_no_queue(**{k: v for k, v in point.items()
                                   if k not in ("capacity", "threads")})


POINTS = {f"open{i}": p for i, p in enumerate(OPEN)}
POINTS |= {f"closed{i}": p for i, p in enumerate(CLOSED)}
POINTS["product-form"] = PRODUCT_FORM


def _simulate(name: str, sharing: bool):
    seed = 300 + list(POINTS).index(name)
    return simulate_thread_pool(**POINTS[name], seed=seed, processor_sharing=sharing, **RUN)


@pytest.fixture(scope="module")
def runs():
    """Every point with its processors simulated as processor sharing."""
    return {name: (_simulate(name, True), _exact(point)) for name, point in POINTS.items()}


@pytest.mark.parametrize("name", list(POINTS))
def test_near_closed_form(runs, name):
    assert not far_outside(*runs[name])


def test_coverage(runs):
    assert not coverage_shortfall(list(runs.values()), minimum_total=40)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["open0", "open1", "closed0", "product-form"])
def test_fcfs_processors_near_closed_form(name):
    """The FCFS station of p servers that serves when there is no overhead: the same
    process of the number in the processor phase, hence the same metrics."""
    assert not far_outside(_simulate(name, False), _exact(POINTS[name]))


def test_closed_forms_agree_with_each_other():
    """The helpers solve the same queue two ways: M/M/4/B with a huge B is Erlang-C, and a
    closed one-phase server with B >= K and no thread limit is the product form."""
    big = open_one_phase(arrival_rate=30.0, capacity=400, threads=None, processors=4,
                         connections=None, cpu_time=0.1, wait_time=0.0)
    erlang = mmc(30.0, 4, 0.1)
    assert big["response_time"] == pytest.approx(erlang["response_time"], rel=1e-12)
    assert big["mean_in_system"] == pytest.approx(erlang["mean_in_system"], rel=1e-12)
    closed = closed_one_phase(clients=20, think_time=1.0, capacity=20, threads=None,
                              processors=2, connections=None, cpu_time=0.1, wait_time=0.0)
    product = multiserver_no_queue(clients=20, processors=2, cpu_time=0.1, wait_time=0.0,
                                   think_time=1.0)
    # B = K: the simulation and the chain count n = B as full, with probability 4e-9 here
    assert {k: closed[k] for k in product} == pytest.approx(product, rel=1e-12, abs=1e-8)


# --------------------------------------------------------------------------- Erlang-C

ERLANG = dict(arrival_rate=30.0, capacity=10**6, processors=4, cpu_time=0.1, wait_time=0.0)


@pytest.fixture(scope="module")
def erlang_runs():
    return {
        threads: simulate_thread_pool(**ERLANG, threads=threads, seed=600 + (threads or 0),
                                      **RUN)
        for threads in (4, None)
    }


def test_erlang_c_wait_for_a_thread(erlang_runs):
    """Four threads on four processors: the wait for a thread is M/M/4's Erlang-C wait."""
    exact = mmc(ERLANG["arrival_rate"], ERLANG["processors"], ERLANG["cpu_time"])
    expected = {
        "queue_wait": exact["wait"],
        "queue_length": exact["waiting"],
        "response_time": exact["response_time"],
        "mean_in_system": exact["mean_in_system"],
        "utilization": exact["utilization"],
        "busy_threads": ERLANG["arrival_rate"] * ERLANG["cpu_time"],
        "throughput": ERLANG["arrival_rate"],
        "rejection_probability": 0.0,
    }
    assert not far_outside(erlang_runs[4], expected)


def test_erlang_c_response_under_processor_sharing(erlang_runs):
    """No thread limit: every request shares the four processors; the mean number and the
    mean response time are M/M/4's (processor sharing and FCFS have the same state
    probabilities)."""
    exact = mmc(ERLANG["arrival_rate"], ERLANG["processors"], ERLANG["cpu_time"])
    expected = {
        "response_time": exact["response_time"],
        "mean_in_system": exact["mean_in_system"],
        "busy_threads": exact["mean_in_system"],
        "utilization": exact["utilization"],
        "queue_wait": 0.0,
    }
    assert not far_outside(erlang_runs[None], expected)


# --------------------------------------------------------------------------- s_c -> 0


def test_pool_with_vanishing_processor_time():
    """cpu_time = 1e-5 on 8 processors: the M/M/5/12 of the pool, up to 1e-5 s per request."""
    point = OPEN[2] | {"cpu_time": 1e-5, "processors": 8}
    exact = open_one_phase(**OPEN[2])
    result = simulate_thread_pool(**point, seed=700, **RUN | {"horizon": 200.0})
    assert not far_outside(result, {k: v for k, v in _pick(exact, point).items()
                                     if k != "utilization"})
    assert 0 < result.estimate["utilization"] < 1e-3


# --------------------------------------------------------------------------- no pool


SERVER = dict(clients=40, think_time=1.0, capacity=20, threads=6, processors=2,
              cpu_time=0.1, wait_time=0.2, horizon=300.0, warmup=30.0, replications=4)


@pytest.mark.parametrize("sharing", [False, True])
@pytest.mark.parametrize("connections", [6, 100])
def test_enough_connections_is_no_pool(connections, sharing):
    """connections >= threads: no thread ever waits for a connection, and with the same seed
    the sample path is the one without a pool (the same draws in the same order)."""
    plain = simulate_thread_pool(**SERVER, seed=9, processor_sharing=sharing)
    pooled = simulate_thread_pool(**SERVER, connections=connections, seed=9,
                                  processor_sharing=sharing)
    assert {m: pooled.samples[m] for m in plain.metrics} == dict(plain.samples)
    assert pooled.estimate["connection_queue_length"] == 0
    assert pooled.estimate["connection_wait"] == 0
    assert 0 < pooled.estimate["busy_connections"] < SERVER["threads"]


def test_a_small_pool_is_not_no_pool():
    """The check above has power: two connections for six threads cost throughput."""
    plain = simulate_thread_pool(**SERVER, seed=9)
    pooled = simulate_thread_pool(**SERVER, connections=2, seed=9)
    assert pooled.ci_high["throughput"] < plain.ci_low["throughput"]
    assert pooled.estimate["connection_queue_length"] > 0.5
