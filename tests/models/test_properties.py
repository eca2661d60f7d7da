"""Properties that must hold for every valid configuration (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from queuetune import mm1bk, thread_pool

MM1BK_ARGS = ("clients", "capacity", "service_time", "think_time")

SETTINGS = settings(deadline=None, max_examples=100, derandomize=True)
SMALL = settings(deadline=None, max_examples=60, derandomize=True)
SLACK = 1e-12

clients = st.integers(1, 400)
capacity = st.integers(1, 500)
times = st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False)


@SETTINGS
@given(clients, capacity, times, times)
def test_mm1bk_properties(K, B, S, Z):
    res = mm1bk(clients=K, capacity=B, service_time=S, think_time=Z)
    p = res.probabilities
    assert p.shape == (min(K, B) + 1,)
    assert np.all(p >= 0)
    assert abs(p.sum() - 1) < 1e-12
    assert 0 <= res.utilization <= 1
    assert res.throughput <= min(1 / S, K / (S + Z)) * (1 + SLACK)
    assert res.response_time >= S * (1 - SLACK)
    assert 0 <= res.rejection_probability <= res.error_rate * (1 + SLACK) <= 1 + SLACK
    assert abs(res.mean_in_system - res.throughput * res.response_time) <= (
        SLACK * res.mean_in_system
    )
    assert abs(res.attempt_rate - res.drop_rate - res.throughput) <= 1e-10 * res.attempt_rate
    assert abs(p[0] - res.p0) <= 1e-12 * max(res.p0, 1e-300)


@SETTINGS
@given(st.integers(1, 300), st.integers(0, 200), times, times)
def test_mm1bk_throughput_grows_with_clients_without_losses(K, extra, S, Z):
    res = mm1bk(clients=np.array([K, K + 1]), capacity=K + 1 + extra, service_time=S, think_time=Z)
    assert res.throughput[1] >= res.throughput[0] * (1 - SLACK)


@SETTINGS
@given(
    st.lists(st.tuples(clients, capacity, times, times), min_size=1, max_size=30),
)
def test_mm1bk_batch_equals_one_by_one(configs):
    K, B, S, Z = (np.array(c) for c in zip(*configs, strict=True))
    batch = mm1bk(clients=K, capacity=B, service_time=S, think_time=Z)
    for i, config in enumerate(configs):
        one = mm1bk(**dict(zip(MM1BK_ARGS, config, strict=True)))
        assert abs(batch.throughput[i] - one.throughput) <= 1e-12 * one.throughput
        assert abs(batch.mean_in_system[i] - one.mean_in_system) <= 1e-12 * one.mean_in_system


pool_times = st.floats(0.0, 2.0, allow_nan=False).map(lambda t: 0.0 if t < 0.05 else t)


@st.composite
def pools(draw):
    cpu = draw(pool_times)
    wait = draw(pool_times)
    if cpu == 0 and wait == 0:
        cpu = 0.1
    return {
        "clients": draw(st.integers(1, 25)),
        "capacity": draw(st.integers(1, 25)),
        "threads": draw(st.integers(1, 8)),
        "cpu_time": cpu,
        "wait_time": wait,
        "think_time": draw(st.floats(0.05, 20.0)),
        "thread_overhead": draw(st.sampled_from([0.0, 0.0, 0.1, 0.5])),
        "pool_overhead": draw(st.sampled_from([0.0, 0.0, 0.01])),
        "method": draw(st.sampled_from(["exact", "fes"])),
    }


@SMALL
@given(pools())
def test_thread_pool_properties(cfg):
    res = thread_pool(**cfg)
    K, B, T = cfg["clients"], cfg["capacity"], cfg["threads"]
    cpu, wait, Z = cfg["cpu_time"], cfg["wait_time"], cfg["think_time"]
    p = res.probabilities
    assert p.shape == (min(K, B) + 1,)
    assert np.all(p >= 0) and abs(p.sum() - 1) < 1e-10
    assert 0 <= res.utilization <= 1
    bound = min(T / (cpu + wait), K / (cpu + wait + Z))
    if cpu > 0:
        bound = min(bound, 1 / (cpu * (1 + cfg["pool_overhead"] * T)))
    assert res.throughput <= bound * (1 + 1e-10)
    assert res.response_time >= (cpu + wait) * (1 - 1e-10)
    assert 0 <= res.busy_threads <= min(T, B, K) * (1 + 1e-12)
    assert res.queue_length >= 0 and res.queue_wait >= 0
    if B <= T:  # the pool never runs out of threads
        assert res.queue_length < 1e-12
    assert 0 <= res.rejection_probability <= res.error_rate * (1 + 1e-10) + 1e-15
    assert abs(res.mean_in_system - res.throughput * res.response_time) <= (
        1e-10 * res.mean_in_system
    )


@SMALL
@given(pools())
def test_thread_pool_throughput_grows_with_clients_without_losses(cfg):
    cfg = {**cfg, "thread_overhead": 0.0, "pool_overhead": 0.0}
    K = cfg["clients"]
    cfg["capacity"] = K + 1
    fewer = thread_pool(**{**cfg, "clients": K})
    more = thread_pool(**{**cfg, "clients": K + 1})
    assert more.throughput >= fewer.throughput * (1 - 1e-10)


@SMALL
@given(pools())
def test_exact_and_fes_agree_when_the_pool_is_never_short(cfg):
    """With at least as many threads as admitted requests nobody queues for a thread; the
    inner network then has the product form and the decomposition is exact."""
    cfg = {**cfg, "threads": cfg["capacity"]}
    exact = thread_pool(**{**cfg, "method": "exact"})
    fes = thread_pool(**{**cfg, "method": "fes"})
    if cfg["thread_overhead"] == 0:
        assert abs(fes.throughput / exact.throughput - 1) < 1e-9
        assert abs(fes.response_time / exact.response_time - 1) < 1e-9


@st.composite
def servers(draw):
    """The general server: processors, a pool of connections, open or closed workloads, a
    thread limit or none."""
    cpu = draw(pool_times)
    wait = draw(pool_times)
    if cpu == 0 and wait == 0:
        wait = 0.2
    closed = draw(st.booleans())
    unlimited = draw(st.booleans())
    workload = ({"clients": draw(st.integers(1, 25)),
                 "think_time": draw(st.sampled_from([0.0, 0.05, 1.0, 20.0]))} if closed
                else {"arrival_rate": draw(st.floats(0.1, 80.0))})
    cfg = {
        **workload,
        "capacity": draw(st.integers(1, 25)),
        "threads": None if unlimited else draw(st.integers(1, 8)),
        "processors": draw(st.integers(1, 6)),
        "connections": draw(st.sampled_from([None, 1, 2, 3, 10])),
        "cpu_time": cpu,
        "wait_time": wait,
        "thread_overhead": draw(st.sampled_from([0.0, 0.0, 0.1])),
        "pool_overhead": 0.0 if unlimited else draw(st.sampled_from([0.0, 0.01])),
        "method": draw(st.sampled_from(["exact", "fes"])),
    }
    if closed and cfg["think_time"] == 0:
        cfg["capacity"] = max(cfg["capacity"], cfg["clients"])
    return cfg


@SMALL
@given(servers())
def test_general_server_properties(cfg):
    res = thread_pool(**cfg)
    B, p, C = cfg["capacity"], cfg["processors"], cfg["connections"]
    top = B if "arrival_rate" in cfg else min(B, cfg["clients"])
    T = top if cfg["threads"] is None else cfg["threads"]
    cpu, wait = cfg["cpu_time"], cfg["wait_time"]
    probs = res.probabilities
    assert probs.shape == (top + 1,)
    assert np.all(probs >= 0) and abs(probs.sum() - 1) < 1e-10
    assert 0 <= res.utilization <= 1
    bound = min(T, top) / (cpu + wait)
    if cpu > 0:
        bound = min(bound, p / (cpu * (1 + cfg["pool_overhead"] * T)))
    if wait > 0 and C is not None:
        bound = min(bound, C / wait)
    if "arrival_rate" in cfg:
        bound = min(bound, cfg["arrival_rate"])
    assert res.throughput <= bound * (1 + 1e-10)
    assert res.response_time >= (cpu + wait) * (1 - 1e-10)
    assert abs(res.mean_in_system - res.throughput * res.response_time) <= (
        1e-10 * res.mean_in_system)
    assert abs(res.attempt_rate - res.drop_rate - res.throughput) <= 1e-9 * res.attempt_rate


@SMALL
@given(st.lists(servers(), min_size=1, max_size=8), st.sampled_from(["exact", "fes"]),
       st.booleans())
def test_general_server_batch_equals_single(cfgs, method, closed):
    """Every configuration's numbers, to the last bit, alone or in a batch (one workload kind
    and one threads/connections kind per call: None cannot sit in an array)."""
    keys = ("capacity", "threads", "processors", "connections", "cpu_time", "wait_time",
            "thread_overhead", "pool_overhead")
    if closed:
        work = [{"clients": c.get("clients", 5), "think_time": c.get("think_time", 1.0) or 1.0}
                for c in cfgs]
    else:
        work = [{"arrival_rate": c.get("arrival_rate", 3.0)} for c in cfgs]
    rows = [{**{k: c[k] for k in keys}, **w} for c, w in zip(cfgs, work, strict=True)]
    for r in rows:
        r["threads"] = r["threads"] or 6
        r["connections"] = r["connections"] or 4
    singles = [thread_pool(**r, method=method) for r in rows]
    batch = thread_pool(**{k: np.array([r[k] for r in rows]) for k in rows[0]}, method=method)
    for i, one in enumerate(singles):
        for name in ("throughput", "response_time", "utilization", "mean_in_system", "p0",
                     "error_rate", "rejection_probability", "attempt_rate", "drop_rate",
                     "busy_threads", "queue_length", "queue_wait"):
            assert np.asarray(getattr(batch, name))[i] == getattr(one, name), (i, name)


@SMALL
@given(servers())
def test_exact_and_fes_agree_without_a_thread_queue(cfg):
    """With as many threads as admitted requests nobody queues for a thread: the holders form
    a product-form network (a processor-sharing multi-server station and a first-come
    first-served pool of exponential servers), and the decomposition is exact."""
    cfg = {**cfg, "threads": None, "pool_overhead": 0.0, "thread_overhead": 0.0}
    exact = thread_pool(**{**cfg, "method": "exact"})
    fes = thread_pool(**{**cfg, "method": "fes"})
    for name in ("throughput", "response_time", "utilization", "error_rate"):
        assert abs(getattr(fes, name) - getattr(exact, name)) <= 1e-9 * max(
            abs(getattr(exact, name)), 1e-12), name
