"""The thread-pool server with processors, a pool of connections, open workloads and no thread
limit: its reductions to known models, each a test.

* one processor without a pool: the numbers of the code before these were added (commit
  18f0b49), to within the rounding error the algorithms guarantee (:func:`legacy_bound`);
* ``connections >= threads`` is the same as no pool; ``threads=None`` the same as
  ``threads = min(capacity, clients)``;
* an open workload with wait-only work is M/M/c/B (c = min(threads, connections)): the values
  the Octave ``queueing`` package asserts for ``qsmmmk`` (M. Marzolla, ``inst/qsmmmk.m``, its
  test blocks, from worked examples of the literature);
* processor-only work on p processors with room for every request is M/M/p/B, and with a huge
  B and lambda below capacity it approaches the Erlang-C answer of M/M/p;
* with as many processors as threads, no pool and no queue (B = T), the open server is an
  Erlang loss system M/G/T/T, whose blocking is insensitive to the holding time's
  distribution (Erlang B with the mean s_c + s_w);
* with one phase only, the flow-equivalent server is exact.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.special import gammaln

from queuetune import thread_pool
from queuetune.models import thread_pool_server as tps
from queuetune.models.thread_pool_chain import state_count

from .legacy_grid import METRICS, configurations, rows

LEGACY = Path(__file__).parent / "data" / "thread_pool_18f0b49.csv"
ALL_METRICS = METRICS


def _solve_legacy(K, B, T, cpu, wait, Z, theta, phi, method):
    return thread_pool(clients=K, capacity=B, threads=T, cpu_time=cpu, wait_time=wait,
                       think_time=Z, thread_overhead=theta, pool_overhead=phi, method=method)


#: Relative error per state of a chain that one method may leave in a metric (see legacy_bound).
ROUNDINGS_PER_STATE = 10


def legacy_bound(method: str) -> np.ndarray:
    """The largest relative difference, per configuration of the legacy grid, between two runs
    of ``method`` on two machines: ``ROUNDINGS_PER_STATE * n * u`` (``u = 2**-53``, the unit
    roundoff; ``n`` the states of the chain the method solves).

    Each run is within ``(4 n + n + 2) u`` of the exact value, to first order: the metrics are
    sums of positive terms and quotients of such sums (no cancellation), which add at most
    ``n + 2`` roundings; and the stationary probabilities are within ``4 n u``:

    * ``fes``: the inner MVA recursion takes a few operations per holder, each step's error
      carried on with a factor below 1 (``R = d (1 + Q)``, ``X = m / (w + R)``); the outer
      chain's log probabilities are sums of log rate ratios taken outward from the mode, one
      rounding per state, and an absolute error in a log is the relative error of its
      exponential; ``n`` = the levels (``min(K, B) + 1``) plus the holders (``min(T, K, B)``).
    * ``exact``: the pinned balance equations are a column diagonally dominant M-matrix,
      factored without pivoting (growth factor at most 2, Wilkinson) and refined twice in
      working precision (Skeel: a componentwise backward error of a few ``u``); each
      probability's relative error then grows with the number of eliminations it depends on,
      at most ``n`` = the chain's states (:func:`.thread_pool_chain.state_count`).

    Two runs, on this machine and on the one that stored the file, differ by at most twice one
    run's error. The largest difference seen under other code paths (OpenBLAS kernels Haswell
    and Prescott, NumPy without AVX2/AVX-512: ``scripts/check_code_paths.sh``) was 20 ulps
    (``2.8e-15``, ``p0`` of a 295-state chain), 0.4 % of this bound there.
    """
    K, B, T, cpu, wait = (np.array(c, dtype=np.float64) for c in
                          np.array(configurations(), dtype=object).T[:5])
    top = np.minimum(K, B).astype(np.int64)
    if method == "fes":
        states = top + 1 + np.minimum(T, top)
    else:
        states = np.array([state_count(capacity=int(n), threads=int(t), two_phases=bool(two))
                           for n, t, two in zip(top, T, (cpu > 0) & (wait > 0), strict=True)])
    return ROUNDINGS_PER_STATE * states * np.finfo(np.float64).eps / 2


def beyond_the_bound(old: list[dict], new: list[dict], bound: np.ndarray) -> list[tuple]:
    """(index, metric, stored, computed) of every metric of the rows (``float.hex`` strings)
    whose relative difference exceeds its configuration's ``bound``; a 0 must stay 0."""
    out = []
    for o, n, rtol in zip(old, new, bound, strict=True):
        for m in METRICS:
            a, b = float.fromhex(o[m]), float.fromhex(n[m])
            if not abs(a - b) <= rtol * abs(a):
                out.append((o["index"], m, o[m], n[m]))
    return out


def _stored(method: str) -> list[dict]:
    with LEGACY.open(newline="") as f:
        by_method: dict[str, list[dict]] = {}
        for row in csv.DictReader(f):
            by_method.setdefault(row.pop("method"), []).append(row)
    return by_method[method]


@pytest.mark.parametrize("method", ["exact", "fes"])
def test_one_processor_without_a_pool_gives_the_old_numbers_within_rounding(method):
    old = _stored(method)
    new = rows(_solve_legacy, method)
    assert len(old) == len(new) > 500
    differ = beyond_the_bound(old, new, legacy_bound(method))
    assert not differ, differ[:5]


@pytest.mark.parametrize("method", ["exact", "fes"])
def test_the_legacy_bound_refuses_a_value_moved_past_it(method):
    """The comparison can fail: each stored metric of the largest chain moved by 1.5 times its
    bound is refused, moved by half of it accepted."""
    worst = int(np.argmax(legacy_bound(method)))
    old = _stored(method)[worst:worst + 1]
    bound = legacy_bound(method)[worst:worst + 1]
    worst = 0
    for m in METRICS:
        value = float.fromhex(old[worst][m])
        if value == 0:  # exact: a zero, moved by any amount, is refused below
            moved = [dict(row) for row in old]
            moved[worst][m] = float(np.finfo(np.float64).tiny).hex()
            assert len(beyond_the_bound(old, moved, bound)) == 1, m
            continue
        for factor, refused in ((1.5, True), (0.5, False)):
            moved = [dict(row) for row in old]
            moved[worst][m] = (value * (1 + factor * bound[worst])).hex()
            assert len(beyond_the_bound(old, moved, bound)) == int(refused), (m, factor)


def test_the_product_form_inner_network_agrees_with_the_mva_recursion():
    """The new inner solver, run on configurations the MVA recursion solves (one processor, no
    pool), agrees with it: two algorithms for one definition."""
    rng = np.random.default_rng(7)
    n = 40
    cfg = tps._validated(rng.integers(1, 300, n), rng.integers(1, 300, n),
                         rng.integers(1, 80, n), rng.uniform(0.001, 0.1, n),
                         rng.uniform(0.001, 0.5, n), 1.0, None, 1, None,
                         rng.choice([0.0, 0.01], n), 0.0, "fes")
    holders = np.minimum(cfg.T, cfg.top)
    x_mva, u_mva, _ = tps._inner_networks(holders, cfg.cpu, cfg.wait, cfg.T, cfg.theta, cfg.phi)
    x_pf, u_pf, _ = tps._inner_product_form(cfg, holders)
    np.testing.assert_allclose(x_pf, x_mva, rtol=1e-11, atol=0)
    np.testing.assert_allclose(u_pf, u_mva, rtol=1e-11, atol=1e-300)


POOLED = dict(clients=40, capacity=60, threads=12, cpu_time=0.03, wait_time=0.2, think_time=1.0,
              processors=3)


@pytest.mark.parametrize("method", ["exact", "fes"])
def test_connections_at_or_above_threads_equal_no_pool(method):
    none = thread_pool(**POOLED, method=method)
    for c in (12, 13, 500):
        same = thread_pool(**POOLED, connections=c, method=method)
        for m in ALL_METRICS:
            assert getattr(same, m) == getattr(none, m), (c, m)
    fewer = thread_pool(**POOLED, connections=11, method=method)
    assert fewer.throughput < none.throughput


@pytest.mark.parametrize("method", ["exact", "fes"])
@pytest.mark.parametrize("workload", [dict(clients=40, think_time=1.0), dict(arrival_rate=30.0)])
def test_no_thread_limit_equals_threads_at_the_most_admitted(method, workload):
    common = dict(capacity=25, cpu_time=0.03, wait_time=0.2, processors=2, connections=6,
                  method=method, **workload)
    unlimited = thread_pool(threads=None, **common)
    limited = thread_pool(threads=25, **common)
    assert unlimited.threads is None and limited.threads == 25
    for m in ALL_METRICS:
        assert getattr(unlimited, m) == getattr(limited, m), m


# Octave queueing, inst/qsmmmk.m, test blocks ("an example I found on the web"):
# (lambda, mu, m, K) -> the values asserted, with the tolerance asserted there.
QSMMMK = [
    ((40.0, 30.0, 3, 7), {"p0": 0.255037, "response_time": 0.036517}, 1e-6),
    ((50.0, 10.0, 4, 6), {"error_rate": 0.293543}, 1e-6),
    ((3.0, 2.0, 2, 5), {"p0": 0.179334, "error_rate": 0.085113}, 1e-6),
    ((3.0, 2.0, 2, 5), {"mean_in_system": 2.00595}, 1e-5),
    ((3.0, 2.0, 2, 5), {"queue_wait_mmck": 0.230857}, 1e-6),
]


@pytest.mark.parametrize("method", ["exact", "fes"])
@pytest.mark.parametrize("shape", ["threads", "connections"])
@pytest.mark.parametrize("case", QSMMMK, ids=str)
def test_open_wait_only_work_is_mmck_with_octaves_values(case, shape, method):
    """Wait-only work: the c servers are the threads (no pool) or the connections (more
    threads than connections, so the connections limit)."""
    (lam, mu, c, K), expected, tol = case
    servers = {"threads": c} if shape == "threads" else {"threads": K, "connections": c}
    res = thread_pool(arrival_rate=lam, capacity=K, cpu_time=0.0, wait_time=1.0 / mu,
                      method=method, **servers)
    for name, value in expected.items():
        if name == "queue_wait_mmck":
            got = res.response_time - 1.0 / mu  # the wait before service, threads or connections
        else:
            got = getattr(res, name)
        assert abs(got - value) <= tol, (name, got, value)


def _erlang_c(servers: int, load: float) -> float:
    """P(wait) of M/M/servers with offered load ``load`` (< servers), in logs."""
    k = np.arange(servers)
    log_terms = k * math.log(load) - gammaln(k + 1)
    log_last = servers * math.log(load) - gammaln(servers + 1) + math.log(
        servers / (servers - load))
    top = math.exp(log_last - np.logaddexp.reduce(np.append(log_terms, log_last)))
    return top


@pytest.mark.parametrize("method", ["exact", "fes"])
def test_huge_capacity_below_saturation_approaches_erlang_c(method):
    p, s, lam = 8, 0.04, 150.0  # 75 % busy
    res = thread_pool(arrival_rate=lam, capacity=600, threads=None, processors=p, cpu_time=s,
                      wait_time=0.0, method=method)
    load = lam * s
    expected = _erlang_c(p, load) * s / (p - load) + s
    assert res.response_time == pytest.approx(expected, rel=1e-9)
    assert res.utilization == pytest.approx(load / p, rel=1e-9)
    smaller = thread_pool(arrival_rate=lam, capacity=30, threads=None, processors=p,
                          cpu_time=s, wait_time=0.0, method=method)
    assert abs(smaller.response_time / expected - 1) > 1e-3  # the limit matters below it


def _erlang_b(servers: int, load: float) -> float:
    b = 1.0
    for k in range(1, servers + 1):
        b = load * b / (k + load * b)
    return b


@pytest.mark.parametrize("threads", [1, 3, 7])
def test_the_exact_chain_of_a_loss_system_is_insensitive(threads):
    """p >= T, no pool, B = T: each holder is served on its own for s_c then s_w, a
    hypoexponential holding time, and the blocking is Erlang B of the mean."""
    lam, s_c, s_w = 9.0, 0.05, 0.3
    res = thread_pool(arrival_rate=lam, capacity=threads, threads=threads, processors=threads,
                      cpu_time=s_c, wait_time=s_w)
    blocking = _erlang_b(threads, lam * (s_c + s_w))
    assert res.rejection_probability == pytest.approx(blocking, rel=1e-10)
    assert res.throughput == pytest.approx(lam * (1 - blocking), rel=1e-10)
    assert res.response_time == pytest.approx(s_c + s_w, rel=1e-10)


@pytest.mark.parametrize("workload", [dict(clients=30, think_time=0.5), dict(arrival_rate=20.0)])
@pytest.mark.parametrize("phase", [dict(cpu_time=0.0, wait_time=0.3),
                                   dict(cpu_time=0.1, wait_time=0.0)])
def test_with_one_phase_the_flow_equivalent_server_is_exact(workload, phase):
    common = dict(capacity=40, threads=9, processors=4, connections=5, **workload, **phase)
    exact = thread_pool(**common, method="exact")
    fes = thread_pool(**common, method="fes")
    for m in ALL_METRICS:
        assert getattr(fes, m) == pytest.approx(getattr(exact, m), rel=1e-9, abs=1e-12), m


@pytest.mark.parametrize("method", ["exact", "fes"])
def test_a_batch_population_is_the_limit_of_short_think_times(method):
    common = dict(clients=12, capacity=12, threads=5, processors=2, connections=3,
                  cpu_time=0.02, wait_time=0.1, method=method)
    batch = thread_pool(**common, think_time=0.0)
    near = thread_pool(**common, think_time=1e-9)
    assert batch.mean_in_system == 12 and batch.error_rate == 1.0
    assert batch.rejection_probability == 0 and batch.drop_rate == 0
    assert batch.attempt_rate == batch.throughput
    for m in ("throughput", "response_time", "utilization", "busy_threads", "queue_length"):
        assert getattr(batch, m) == pytest.approx(getattr(near, m), rel=1e-6), m


def test_the_open_metrics_follow_from_the_admitted_distribution():
    res = thread_pool(arrival_rate=45.0, capacity=50, threads=20, processors=2,
                      connections=6, cpu_time=0.03, wait_time=0.12, method="exact")
    p_full = res.probabilities[-1]
    assert res.rejection_probability == res.error_rate == p_full
    assert res.attempt_rate == 45.0
    assert res.throughput == pytest.approx(45.0 * (1 - p_full), rel=1e-10)
    assert res.drop_rate == pytest.approx(45.0 * p_full, rel=1e-12)
    assert res.clients is None and res.think_time is None and res.arrival_rate == 45.0


def test_counts_are_keyword_only():
    """Two integers in swapped orders were silently accepted; now nothing is positional."""
    with pytest.raises(TypeError):
        thread_pool(50, 200, 10, 0.02, 0.1, 4.0)  # type: ignore[misc]
    with pytest.raises(TypeError):
        thread_pool(50, capacity=200, threads=10, cpu_time=0.02, wait_time=0.1,  # type: ignore
                    think_time=4.0)
    from queuetune import mm1bk
    from queuetune.fit import fit_mm1bk, fit_thread_pool, fit_usl, usl
    from queuetune.models.thread_pool_chain import build_chain, state_count

    for call in (lambda: mm1bk(100, 50, 0.14, 4.0),
                 lambda: fit_mm1bk([10, 20, 30], 50, [0.1, 0.2, 0.3]),
                 lambda: fit_thread_pool([10, 20, 30], [2, 4, 6], [0.1, 0.2, 0.3], capacity=50),
                 lambda: fit_usl([1, 2, 4], [1, 1.8, 3.0]),
                 lambda: usl([1, 2], 0.1, 0.01),
                 lambda: build_chain(5, 5, 2, 0.1, 0.1, 1.0),
                 lambda: state_count(5, 5, 2, True),
                 lambda: tps.estimated_seconds(np.array([5]), np.array([5]), np.array([2]),
                                               np.array([True]), 0.0, "exact")):
        with pytest.raises(TypeError):
            call()


@pytest.mark.parametrize("kwargs, name", [
    (dict(clients=10, think_time=1.0, arrival_rate=5.0), "arrival_rate"),
    (dict(clients=10), "think_time"),
    (dict(think_time=1.0), "clients"),
    (dict(arrival_rate=0.0), "arrival_rate"),
    (dict(arrival_rate=5.0, processors=0), "processors"),
    (dict(arrival_rate=5.0, processors=1.5), "processors"),
    (dict(arrival_rate=5.0, connections=0), "connections"),
    (dict(arrival_rate=5.0, threads=None, pool_overhead=0.01), "pool_overhead"),
])
def test_bad_new_arguments_name_the_parameter(kwargs, name):
    args = dict(capacity=20, threads=5, cpu_time=0.02, wait_time=0.1)
    with pytest.raises(ValueError, match="must") as info:
        thread_pool(**{**args, **kwargs})
    assert name in str(info.value)


def test_a_grid_too_costly_for_fes_is_refused_with_the_way_out():
    with pytest.raises(ValueError, match="FES_MAX_SECONDS.*split the batch"):
        thread_pool(arrival_rate=100.0, capacity=np.arange(2000, 2200), threads=None,
                    processors=4, connections=50, cpu_time=0.01, wait_time=0.1, method="fes")
    with pytest.raises(ValueError, match="use method='fes'"):
        thread_pool(arrival_rate=100.0, capacity=20_000, threads=2000, processors=4,
                    cpu_time=0.01, wait_time=0.1, method="exact")
