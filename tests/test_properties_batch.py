"""No result computed in a batch differs from the same configuration solved alone
(hypothesis, seeded): every metric and probability of every configuration of a batch equals,
to the last bit, the call with that configuration only, whatever else is in the batch and
however the work is cut up (the solvers' block and chunk sizes are drawn too)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from property_domain import counts, times
from reference import FINITE_SOURCE_METRICS, THREAD_POOL_METRICS

from queuetune import explorer, mm1bk, thread_pool
from queuetune.documents.domino_keepalive import amortization
from queuetune.models import birth_death

BATCH = settings(max_examples=100, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow,
                                        HealthCheck.function_scoped_fixture])
CUTS = st.tuples(st.sampled_from([1, 3, 64, 1 << 15]), st.sampled_from([1, 2, 512, 10**9]),
                 st.sampled_from([1, 5, 1 << 16]))


def _cut(monkeypatch, cut) -> None:
    rows, steps, elements = cut
    monkeypatch.setattr(birth_death, "_BLOCK_ROWS", rows)
    monkeypatch.setattr(birth_death, "_STEP_ROWS", steps)
    monkeypatch.setattr(birth_death, "_CHUNK_ELEMENTS", elements)


def _same(batch, single, metrics, i) -> None:
    for name in metrics:
        got = np.asarray(getattr(batch, name))[i]
        want = getattr(single, name)
        assert got == want or (np.isnan(got) and np.isnan(want)), (name, got, want)
    width = single.probabilities.size
    row = batch.probabilities[i]
    np.testing.assert_array_equal(row[:width], single.probabilities)
    assert np.all(row[width:] == 0)


@BATCH
@given(st.lists(st.tuples(counts(300), counts(300), times(), times()), min_size=1,
                max_size=40),
       st.one_of(st.integers(0, 40), st.integers(500, 1200)), CUTS)
def test_mm1bk_batch_equals_single(monkeypatch, configs, repeat, cut):
    """The configurations, with one of them repeated to make a batch of up to 1240 (so that
    both ways of stepping through the states occur), solved together and alone."""
    configs = configs + [configs[0]] * repeat
    K, B, S, Z = (np.array(column) for column in zip(*configs, strict=True))
    B = np.where(np.minimum(K, B) > 2000, 2000, B)  # a batch stays within a second
    with monkeypatch.context() as patch:
        if np.sum(np.minimum(K, B) + 1) < 20_000:  # cut into pieces as small as a state
            _cut(patch, cut)
            event(f"cut {cut}")
        batch = mm1bk(clients=K, capacity=B, service_time=S, think_time=Z)
    event("batch of 512 or more (state by state across them)" if K.size >= 512
          else "batch below 512 (chunks of states)")
    for i in sorted({0, len(configs) - 1, *range(min(40, len(configs)))}):
        single = mm1bk(clients=K[i], capacity=B[i], service_time=S[i], think_time=Z[i])
        _same(batch, single, FINITE_SOURCE_METRICS, i)


@st.composite
def pools(draw):
    method = draw(st.sampled_from(["exact", "fes"]))
    top = 12 if method == "exact" else 400
    cpu = draw(times(zero=True))
    wait = draw(times(zero=True)) if cpu else draw(times())
    return (draw(st.integers(1, top)), draw(st.integers(1, top)), draw(st.integers(1, 20)),
            cpu, wait, draw(times()), draw(st.sampled_from([0.0, 0.0, 0.01, 0.3])),
            draw(st.sampled_from([0.0, 0.0, 0.001])), method)


@settings(BATCH, max_examples=60)
@given(st.lists(pools(), min_size=1, max_size=12), st.sampled_from(["exact", "fes"]))
def test_thread_pool_batch_equals_single(configs, method):
    columns = list(zip(*configs, strict=True))
    K, B, T, cpu, wait, Z, theta, phi = (np.array(c) for c in columns[:8])
    if method == "exact":
        K, B = np.minimum(K, 12), np.minimum(B, 12)
    singles = {}
    for i in range(len(configs)):
        try:  # a configuration outside the domain (its CPU time with overhead) is left out
            singles[i] = thread_pool(clients=K[i], capacity=B[i], threads=T[i], cpu_time=cpu[i],
                                     wait_time=wait[i], think_time=Z[i],
                                     thread_overhead=theta[i], pool_overhead=phi[i],
                                     method=method)
        except ValueError as exc:
            assert "thread_overhead" in str(exc)
    keep = np.array(sorted(singles))
    assume(keep.size > 0)
    batch = thread_pool(clients=K[keep], capacity=B[keep], threads=T[keep], cpu_time=cpu[keep],
                        wait_time=wait[keep], think_time=Z[keep],
                        thread_overhead=theta[keep], pool_overhead=phi[keep], method=method)
    for row, i in enumerate(keep):
        _same(batch, singles[i], THREAD_POOL_METRICS, row)


# --------------------------------------------------------------------------- calculators


@settings(BATCH, max_examples=80)
@given(st.lists(counts(), min_size=1, max_size=30),
       st.one_of(times(zero=True), times().map(lambda t: -t)), times(zero=True),
       st.integers(1, 10**6), st.integers(1, 10**6),
       st.lists(st.tuples(times(), times()), min_size=1, max_size=30), times())
def test_amortization_batch_equals_single(ns, t_request, t_setup, threads, per_thread,
                                          runs, time_wait):
    """time_per_request and connections_opened over many n, and time_wait_sockets over many
    runs, equal the calls with one n or one run each."""
    batch = amortization.time_per_request(ns, t_request, t_setup)
    opened = amortization.connections_opened(threads, per_thread, ns)
    for i, n in enumerate(ns):
        assert batch[i] == amortization.time_per_request(n, t_request, t_setup)
        assert opened[i] == amortization.connections_opened(threads, per_thread, n)
    connections, run_time = (list(c) for c in zip(*runs, strict=True))
    waiting = amortization.time_wait_sockets(connections, run_time, time_wait)
    for i, (c, r) in enumerate(runs):
        assert waiting[i] == amortization.time_wait_sockets(c, r, time_wait)


AXIS = st.lists(st.integers(1, 40), min_size=1, max_size=3, unique=True).map(sorted)
TIME_AXIS = st.lists(times(zero=True), min_size=1, max_size=2, unique=True).map(sorted)


@settings(BATCH, max_examples=15)
@given(AXIS, AXIS, AXIS, TIME_AXIS, st.lists(times(), min_size=1, max_size=2, unique=True)
       .map(sorted), st.sampled_from(["fes", "exact"]))
def test_explorer_grid_batch_equals_single(clients, capacity, threads, cpu, think, method):
    """Every row of a what-if grid is the model solved at that configuration alone."""
    wait = [0.05]
    grid = explorer.build_grid(clients, capacity, threads, cpu, wait, think, method=method)
    for row in grid.head(12).itertuples():
        single = thread_pool(clients=row.clients, capacity=row.capacity, threads=row.threads,
                             cpu_time=row.cpu_time,
                             wait_time=row.wait_time, think_time=row.think_time, method=method)
        for metric in explorer.METRICS:
            assert getattr(row, metric) == getattr(single, metric) + 0.0, metric


@settings(BATCH, max_examples=10)
@given(AXIS, AXIS, TIME_AXIS, st.lists(times(), min_size=1, max_size=2, unique=True)
       .map(sorted))
def test_explorer_threads_needed_batch_equals_single(clients, capacity, cpu, think):
    """Every row of threads_needed is the answer for that configuration alone (the bisection
    of each row does not depend on the others)."""
    sizing = explorer.threads_needed(clients, capacity, cpu, [0.05], think)
    for row in sizing.head(8).itertuples(index=False):
        alone = explorer.threads_needed(row.clients, row.capacity, row.cpu_time, row.wait_time,
                                        row.think_time)
        assert tuple(alone.iloc[0]) == tuple(row)
