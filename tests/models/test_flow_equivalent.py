"""queuetune.models.flow_equivalent: the thread holders' throughput, against the full
convolution of the product form, and its two users (the sizing, thread_pool's fes) on it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fes_reference import brute_chain, brute_holders, model_configurations

from queuetune import sizing, thread_pool
from queuetune.models import flow_equivalent
from queuetune.models.flow_equivalent import holders_throughput

# --------------------------------------------------------------------------- definition 1


@pytest.mark.parametrize(("p", "s_c", "s_w", "C"), [
    (1, 0.01, 0.2, None), (4, 0.04, 0.2, None), (3, 0.02, 0.05, 2), (8, 0.04, 0.2, 10),
    (2, 0.01, 0.02, 4), (5, 0.01, 0.05, 25),  # balanced: p/s_c == C/s_w
])
def test_holders_throughput_is_the_ratio_of_normalizing_constants(p, s_c, s_w, C):
    m_max = 60  # beyond p + C: the two-term recurrence is checked too
    got = holders_throughput(processors=p, cpu_time=s_c, wait_time=s_w,
                                    connections=C, holders=m_max)
    want = brute_holders(p, s_c, s_w, C, m_max)
    limit = min(p / s_c, C / s_w if C else math.inf)
    converged = np.flatnonzero(got >= (1 - flow_equivalent.CONVERGED) * limit)
    end = converged[0] + 1 if converged.size else m_max + 1
    np.testing.assert_allclose(got[:end], want[:end], rtol=1e-11)
    # after convergence the value is held, within CONVERGED of the limit and of the truth
    np.testing.assert_allclose(got[end:], want[end:], rtol=1e-12)
    assert np.all(np.diff(got) >= -1e-9 * limit) and got[-1] <= limit * (1 + 1e-12)


def test_holders_without_a_wait_are_the_processors():
    got = holders_throughput(processors=3, cpu_time=0.02, wait_time=0, holders=6)
    assert got.tolist() == [0.0, 50.0, 100.0, 150.0, 150.0, 150.0, 150.0]


def test_ten_thousand_holders_do_not_overflow():
    x = holders_throughput(processors=256, cpu_time=0.002, wait_time=0.1,
                                  connections=1000, holders=10**4)
    assert np.all(np.isfinite(x)) and x[-1] == pytest.approx(1000 / 0.1, rel=1e-12)


def test_a_pool_at_least_as_large_as_the_holders_is_no_pool():
    with_pool = holders_throughput(processors=2, cpu_time=0.01, wait_time=0.1,
                                          connections=40, holders=40)
    without = holders_throughput(processors=2, cpu_time=0.01, wait_time=0.1,
                                        holders=40)
    np.testing.assert_allclose(with_pool, without, rtol=1e-13)




def test_the_sizing_and_thread_pool_share_the_one_home():
    assert sizing.Holders is flow_equivalent.Holders
    assert sizing.holders_throughput is flow_equivalent.holders_throughput


@pytest.mark.parametrize("kw", [kw for kw in model_configurations(120, seed=29)
                                if kw.get("clients") and kw["wait_time"] > 0
                                and (kw["processors"] > 1 or kw["connections"])])
def test_thread_pools_fes_is_the_chain_over_the_exact_convolution(kw):
    """thread_pool(method="fes") on several processors or a pool: its outer chain over the
    holders' throughput from the full convolution (independent of Holders) agrees to 1e-9
    relative (Holders holds X_in within 1e-13 of its limit once converged)."""
    K = kw["clients"]
    B = min(kw["capacity"], K)
    T = B if kw["threads"] is None else min(kw["threads"], B)
    C = kw["connections"] if kw["connections"] and kw["connections"] < T else None
    x = brute_holders(kw["processors"], kw["cpu_time"], kw["wait_time"], C, T)
    death = np.concatenate([x, np.full(B + 1 - len(x), x[-1])])
    want = brute_chain(death, clients=K, think=kw["think_time"], capacity=B)
    got = thread_pool(method="fes", **kw)
    assert float(got.throughput) == pytest.approx(want[0], rel=1e-9)
    assert float(got.mean_in_system) == pytest.approx(want[1], rel=1e-9)


def test_a_call_past_its_work_estimate_is_refused_with_the_way_out(monkeypatch):
    monkeypatch.setattr(flow_equivalent, "MAX_WORK", 1e5)
    with pytest.raises(ValueError, match=r"estimated 10 s .*give fewer threads= or connections="):
        sizing.solve(processors=64, cpu_time=0.001, wait_time=0.5, connections=5000,
                     threads=3000, arrival_rate=100.0, capacity=5000)
