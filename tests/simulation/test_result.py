"""The result object: intervals, table, determinism."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from queuetune.simulation import (
    MM1BK_METRICS,
    THREAD_POOL_METRICS,
    simulate_mm1bk,
    simulate_thread_pool,
)

SHORT = dict(horizon=200.0, warmup=20.0, replications=4)
MM1BK = dict(clients=15, capacity=8, service_time=0.2, think_time=2.0)
POOL = dict(clients=20, capacity=10, threads=3, cpu_time=0.1, wait_time=0.2, think_time=1.0)


@pytest.fixture(scope="module")
def result():
    return simulate_mm1bk(**MM1BK, seed=7, **SHORT)


def test_interval_is_student_t_over_replications(result):
    for name in result.metrics:
        values = np.array(result.samples[name])
        assert len(values) == SHORT["replications"]
        low, high = stats.t.interval(
            0.95, len(values) - 1, loc=values.mean(), scale=stats.sem(values)
        )
        assert result.estimate[name] == pytest.approx(values.mean(), rel=1e-12)
        assert result.ci_low[name] == pytest.approx(low, rel=1e-12)
        assert result.ci_high[name] == pytest.approx(high, rel=1e-12)


def test_replications_are_distinct(result):
    assert len(set(result.samples["throughput"])) == SHORT["replications"]


def test_contains_and_half_width(result):
    mid, half = result.estimate["throughput"], result.half_width("throughput")
    assert half > 0
    assert result.contains("throughput", mid)
    assert result.contains("throughput", mid + 0.99 * half)
    assert not result.contains("throughput", mid + 1.01 * half)
    assert not result.contains("throughput", mid - 1.01 * half)


def test_unknown_metric(result):
    with pytest.raises(ValueError, match="busy_threads"):
        result.contains("busy_threads", 1.0)


def test_frame(result):
    frame = result.to_frame()
    assert list(frame.columns) == [
        "metric",
        "estimate",
        "ci_low",
        "ci_high",
        "half_width",
        "replications",
    ]
    assert tuple(frame["metric"]) == MM1BK_METRICS
    assert (frame["ci_low"] <= frame["estimate"]).all()
    assert (frame["estimate"] <= frame["ci_high"]).all()
    assert (frame["replications"] == SHORT["replications"]).all()


def test_result_is_frozen(result):
    with pytest.raises(AttributeError):
        result.replications = 3
    with pytest.raises(TypeError):
        result.estimate["throughput"] = 0.0


def test_same_seed_same_numbers():
    first = simulate_thread_pool(**POOL, seed=3, thread_overhead=0.1, **SHORT)
    again = simulate_thread_pool(**POOL, seed=3, thread_overhead=0.1, **SHORT)
    other = simulate_thread_pool(**POOL, seed=4, thread_overhead=0.1, **SHORT)
    assert first.metrics == THREAD_POOL_METRICS
    assert first.samples == again.samples
    assert first.to_frame().equals(again.to_frame())
    assert first.samples["throughput"] != other.samples["throughput"]


def test_mm1bk_same_seed_same_numbers(result):
    assert simulate_mm1bk(**MM1BK, seed=7, **SHORT).samples == result.samples


def test_little_law_holds_per_replication():
    """N = X R within each replication, up to the requests straddling the window edges."""
    pool = simulate_thread_pool(**POOL, seed=1, **SHORT)
    for n, x, r in zip(
        pool.samples["mean_in_system"],
        pool.samples["throughput"],
        pool.samples["response_time"],
        strict=True,
    ):
        assert n == pytest.approx(x * r, rel=0.05)
