"""Each simulator gives, for a fixed seed, the per-replication numbers stored from the simulator
before it was rewritten for speed (``data/reference_samples.json``, its commit recorded in the
file), to within rounding (:func:`assert_same_samples`).

The cases cover every path of the event loop: M/M/1/B/K; the thread pool with a FCFS
processor station, with processor sharing without and with overhead, with a pool of
connections, open arrivals, no thread limit, a batch population (``think_time = 0``), no
processor phase, no wait phase and percentiles; the fleet with and without a database, a
processor limit on it, contention, pools of connections and threads. The same random stream
is drawn in the same order, so only rounding may differ.

Run as a script (``python tests/simulation/test_reference.py``) to write the file again: only
from a simulator known to give the old numbers, since the file is the reference.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from queuetune.simulation import simulate_fleet, simulate_mm1bk, simulate_thread_pool

STORED = Path(__file__).parent / "data" / "reference_samples.json"
RUN = {"horizon": 50.0, "warmup": 5.0, "replications": 2}
SIMULATORS = {"mm1bk": simulate_mm1bk, "thread_pool": simulate_thread_pool,
              "fleet": simulate_fleet}

#: (simulator, keyword arguments, seed): every path of the event loops.
CASES = [
    ("mm1bk", dict(clients=20, capacity=8, service_time=0.14, think_time=1.0), 1),
    ("mm1bk", dict(clients=30, capacity=50, service_time=0.05, think_time=2.0), 2),
    # FCFS processor (no overhead, the default), drops and a queue for threads
    ("thread_pool", dict(clients=30, think_time=1.0, capacity=10, threads=3, cpu_time=0.05,
                         wait_time=0.2), 3),
    # processor sharing without overhead, several processors
    ("thread_pool", dict(clients=30, think_time=1.0, capacity=12, threads=5, processors=2,
                         cpu_time=0.08, wait_time=0.1, processor_sharing=True), 4),
    # processor sharing at a speed that changes with the busy threads
    ("thread_pool", dict(clients=40, think_time=2.0, capacity=15, threads=5, cpu_time=0.05,
                         wait_time=0.15, thread_overhead=0.1, pool_overhead=0.01), 5),
    # a pool of connections, closed
    ("thread_pool", dict(clients=40, think_time=1.0, capacity=30, threads=8, processors=2,
                         connections=3, cpu_time=0.03, wait_time=0.15), 6),
    # open arrivals, no thread limit, a pool, processor sharing, percentiles
    ("thread_pool", dict(arrival_rate=25.0, capacity=20, processors=3, connections=4,
                         cpu_time=0.05, wait_time=0.15, processor_sharing=True,
                         percentiles=True), 7),
    # open arrivals, FCFS processors, a thread limit and a pool
    ("thread_pool", dict(arrival_rate=20.0, capacity=25, threads=6, processors=2,
                         connections=4, cpu_time=0.04, wait_time=0.15), 8),
    # a batch population: every client sends again at once
    ("thread_pool", dict(clients=10, think_time=0.0, capacity=10, threads=6, processors=2,
                         connections=3, cpu_time=0.05, wait_time=0.1), 9),
    # no processor phase; no wait phase with overhead
    ("thread_pool", dict(clients=30, think_time=1.0, capacity=10, threads=3, cpu_time=0.0,
                         wait_time=0.3), 10),
    ("thread_pool", dict(clients=16, think_time=1.0, capacity=8, threads=3, cpu_time=0.2,
                         wait_time=0.0, thread_overhead=0.2, pool_overhead=0.01), 11),
    # the fleet: a limited database with contention, pools and threads, open
    ("fleet", dict(instances=3, arrival_rate=30.0, capacity=10, threads=4, processors=2,
                   connections=3, cpu_time=0.03, wait_time=0.05, db_processors=2,
                   db_time=0.02, db_contention=0.1), 12),
    # closed, no limits, an unlimited database
    ("fleet", dict(instances=2, clients=40, think_time=1.0, capacity=12, cpu_time=0.04,
                   wait_time=0.1, db_time=0.03), 13),
    # no database
    ("fleet", dict(instances=2, arrival_rate=15.0, capacity=8, threads=3, connections=2,
                   cpu_time=0.05, wait_time=0.1), 14),
]

#: Roundings per request that one run may leave in a sample (see :func:`sample_bound`).
ROUNDINGS_PER_REQUEST = 64


def requests_per_time(point: dict) -> float:
    """An upper bound on the requests sent per unit time: the arrival rate, the clients over
    their think time, or for a batch population the clients over the least time a request
    spends (its mean processor time and wait)."""
    if "arrival_rate" in point:
        return point["arrival_rate"]
    if point["think_time"] > 0:
        return point["clients"] / point["think_time"]
    return point["clients"] / (point["cpu_time"] + point["wait_time"])


def sample_bound(point: dict) -> float:
    """The largest relative difference allowed between a sample and the stored one:
    ``ROUNDINGS_PER_REQUEST * E * u``, with ``E`` the expected requests sent within the
    horizon and ``u = 2**-53``.

    Both runs draw the same numbers, in the same order, and add and multiply them in the same
    order; on another machine ``log`` of libm may differ in its last bit, so each draw, each
    clock time (a sum of draws) and each time-weighted product may carry a few roundings. A
    sample is a sum of per-event products divided by the window (or a count divided by it,
    exact); each request brings a handful of events (arrival, grants, phases, departure, and
    under processor sharing a rescheduling of every job present), each a few roundings of the
    sample's size, hence a bound linear in ``E``. (Two events a few ulps apart could in
    principle swap; the samples would then differ by far more and this test fail: no such tie
    occurs in these streams.)"""
    requests = requests_per_time(point) * RUN["horizon"]
    return ROUNDINGS_PER_REQUEST * requests * (np.finfo(np.float64).eps / 2)


def simulate(case: tuple) -> dict[str, list[float]]:
    simulator, point, seed = case
    result = SIMULATORS[simulator](**point, seed=seed, **RUN)
    return {metric: list(result.samples[metric]) for metric in result.metrics}


def assert_same_samples(samples: dict, stored: dict, point: dict) -> None:
    """Every metric's samples within :func:`sample_bound` of the stored ones, relatively
    (a stored zero, an empty count, must be zero)."""
    assert sorted(samples) == sorted(stored)  # exact: the metrics' names
    rtol = sample_bound(point)
    for metric, values in stored.items():
        np.testing.assert_allclose(samples[metric], values, rtol=rtol, atol=0, err_msg=metric)


@pytest.fixture(scope="module")
def reference():
    return json.loads(STORED.read_text())


def test_the_stored_cases_are_these(reference):
    """The file holds these cases, in this order, run with this run length."""
    assert reference["run"] == RUN  # exact: the run length, whole numbers
    stored = [(c["simulator"], c["point"], c["seed"]) for c in reference["cases"]]
    assert stored == CASES  # exact: the inputs, as written


@pytest.mark.parametrize("index", range(len(CASES)),
                         ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_same_numbers_as_the_reference(reference, index):
    case = reference["cases"][index]
    assert_same_samples(simulate(CASES[index]), case["samples"], CASES[index][1])


def test_the_sample_bound_refuses_a_sample_moved_past_it(reference):
    """The comparison can fail: a stored sample moved by 1.5 times the bound is refused, by
    half of it accepted."""
    index = 4
    case = reference["cases"][index]
    samples = simulate(CASES[index])
    rtol = sample_bound(CASES[index][1])
    for factor, refused in ((1.5, True), (0.5, False)):
        moved = {m: list(v) for m, v in case["samples"].items()}
        moved["response_time"][1] *= 1 + factor * rtol
        if refused:
            with pytest.raises(AssertionError, match="response_time"):
                assert_same_samples(samples, moved, CASES[index][1])
        else:
            assert_same_samples(samples, moved, CASES[index][1])


def _store() -> None:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    cases = [{"simulator": c[0], "point": c[1], "seed": c[2], "samples": simulate(c)}
             for c in CASES]
    STORED.write_text(json.dumps({"commit": commit, "run": RUN, "cases": cases}, indent=1)
                      + "\n")


if __name__ == "__main__":
    sys.exit(_store())
