"""queuetune.chapters.practical: the sizing procedure of the practical chapter, step by step."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from queuetune import thread_pool
from queuetune.chapters import practical


def erlang_b(servers: int, load: float) -> float:
    """Erlang's loss formula by its stable recursion: an independent route to the
    machine-repairman network of the thread holders (P(processor idle) = E_B(T, s_w/s_c))."""
    e = 1.0
    for n in range(1, servers + 1):
        e = load * e / (n + load * e)
    return e


@pytest.fixture(scope="module")
def example() -> practical.Sizing:
    return practical.size(practical.EXAMPLE)


def test_ceilings_by_hand():
    c = practical.ceilings(cpu_time=0.02, wait_time=0.08, think_time=2.9, threads=3)
    assert c.per_client == pytest.approx(1 / 3.0)
    assert c.processor == pytest.approx(50.0)
    assert c.pool == pytest.approx(30.0)
    assert (c.bottleneck, c.limit) == ("pool", pytest.approx(30.0))
    assert c.knee_clients == pytest.approx(90.0)
    wide = practical.ceilings(cpu_time=0.02, wait_time=0.08, think_time=2.9, threads=10)
    assert (wide.bottleneck, wide.limit) == ("processor", pytest.approx(50.0))
    assert wide.knee_clients == pytest.approx(150.0)


@pytest.mark.parametrize(("cpu", "wait"), [(0.01, 0.2), (0.05, 0.05), (0.001, 0.5),
                                           (0.02, 0.0)])
@pytest.mark.parametrize("share", [0.5, 0.9, 0.95, 0.99])
def test_saturation_pool_is_the_smallest_pool_keeping_the_processor_busy(cpu, wait, share):
    t = practical.saturation_pool(cpu, wait, share)
    if wait == 0:
        assert t == 1
        return
    busy = [1 - erlang_b(n, wait / cpu) for n in (t - 1, t)]
    assert busy[1] >= share - 1e-12
    assert t == 1 or busy[0] < share + 1e-12


def test_saturation_pool_grows_with_the_wait_and_the_share():
    pools = [practical.saturation_pool(0.01, w) for w in (0.01, 0.1, 0.2, 0.4)]
    assert pools == sorted(pools) and pools[0] < pools[-1]
    assert practical.saturation_pool(0.01, 0.2, 0.5) <= practical.saturation_pool(0.01, 0.2,
                                                                                  0.99)


def test_the_example_follows_its_own_steps(example):
    w = example.workload
    s = w.cpu_time + w.wait_time
    assert example.offered == pytest.approx(w.clients / (w.think_time + s))
    # the utilization law, and the response-time law of a closed loop
    assert example.utilization == pytest.approx(example.throughput * w.cpu_time)
    assert example.response_time == pytest.approx(w.clients / example.throughput
                                                  - w.think_time, rel=1e-6)
    assert example.busy_threads == pytest.approx(example.throughput * s)
    assert example.balance_threads == pytest.approx(21.0)
    assert example.saturation_threads > example.balance_threads
    assert example.threads == max(example.saturation_threads, example.peak_threads)
    assert example.max_throughput <= 1 / w.cpu_time
    assert example.max_throughput >= w.busy_share / w.cpu_time
    assert example.capacity == max(example.threads,
                                   math.ceil(w.max_response_time * example.max_throughput))
    assert example.headroom == (example.utilization <= w.cpu_ceiling)
    assert example.overload_clients == math.ceil(w.overload * w.clients)


def test_the_example_pool_is_enough_at_the_peak_and_one_thread_fewer_is_not(example):
    w = example.workload
    unlimited = thread_pool(clients=w.clients, capacity=w.clients, threads=w.clients,
                            cpu_time=w.cpu_time, wait_time=w.wait_time,
                            think_time=w.think_time)
    at = thread_pool(clients=w.clients, capacity=w.clients, threads=example.peak_threads,
                     cpu_time=w.cpu_time, wait_time=w.wait_time,
                     think_time=w.think_time)
    assert at.response_time <= (1 + w.tolerance) * unlimited.response_time
    if example.peak_threads > 1:
        fewer = thread_pool(clients=w.clients, capacity=w.clients,
                            threads=example.peak_threads - 1, cpu_time=w.cpu_time,
                            wait_time=w.wait_time, think_time=w.think_time)
        assert fewer.response_time > (1 + w.tolerance) * unlimited.response_time


def test_the_connection_queue_trades_waiting_for_refusals_under_overload(example):
    w = example.workload
    # nearly nothing is refused at the peak, with the processor under its ceiling
    assert example.headroom
    assert example.response_time < w.max_response_time
    # at the overload the queue bounds the response time near the chosen limit (Little's law
    # with the server full) and refuses the rest; the throughput stays the same
    assert example.overload_response_time < example.unlimited_response_time
    assert example.overload_response_time == pytest.approx(w.max_response_time, rel=0.15)
    assert example.overload_refused > 0
    assert example.overload_throughput == pytest.approx(example.unlimited_throughput,
                                                        rel=0.02)


def test_load_curves(example):
    curves = practical.load_curves(example, [20, 10, 400, 20], small_pool=5)
    assert list(curves["setting"].unique()) == [
        f"T = {example.threads}, B = {example.capacity}",
        f"T = {example.threads}, no limit on B", f"T = 5, B = {example.capacity}"]
    assert curves.groupby("setting").size().tolist() == [3, 3, 3]
    small = curves[curves["threads"] == 5]
    # a pool of 5 cannot pass its bound T/S
    assert np.all(small["throughput"] <= 5 / (0.21) + 1e-9)
    assert np.all(curves["busy_threads"] <= curves["threads"] + 1e-9)
    with pytest.raises(ValueError, match="small_pool"):
        practical.load_curves(example, [10], small_pool=example.threads)
    with pytest.raises(ValueError, match="clients"):
        practical.load_curves(example, [0, 10], small_pool=5)


@pytest.mark.parametrize(("change", "name"), [
    ({"cpu_time": 0.0}, "cpu_time"), ({"wait_time": -1.0}, "wait_time"),
    ({"think_time": 0.0}, "think_time"), ({"clients": 2.5}, "clients"),
    ({"max_response_time": 0}, "max_response_time"), ({"cpu_ceiling": 1.5}, "cpu_ceiling"),
    ({"busy_share": 1.0}, "busy_share"), ({"tolerance": 0}, "tolerance"),
    ({"overload": 1.0}, "overload"), ({"cpu_time": True}, "cpu_time"),
])
def test_bad_workloads_are_refused_by_name(change, name):
    with pytest.raises(ValueError, match=name):
        dataclasses.replace(practical.EXAMPLE, **change)


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="threads"):
        practical.ceilings(0.01, 0.2, 4.0, 0)
    with pytest.raises(ValueError, match="busy_share"):
        practical.saturation_pool(0.01, 0.2, 0.0)
    with pytest.raises(ValueError, match="workload"):
        practical.size({"cpu_time": 0.01})
