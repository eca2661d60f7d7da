"""queuetune.models.results: the result objects' shapes, their dict of metrics, and the
probabilities they compute when first read (checked against the chains' own numbers)."""

from __future__ import annotations

import numpy as np
import pytest

from queuetune.models import MM1BKResult, ThreadPoolResult, mm1bk, thread_pool
from queuetune.models.finite_source import mm1bk_probabilities
from queuetune.models.results import shaped


def test_shaped_gives_a_numpy_scalar_for_an_empty_shape():
    scalar = shaped(np.array([2.5]), ())
    assert isinstance(scalar, np.float64) and scalar == 2.5
    grid = shaped([1, 2, 3, 4, 5, 6], (2, 3))
    assert grid.shape == (2, 3) and grid.dtype == np.float64 and grid[1, 0] == 4.0


def test_shaped_refuses_a_shape_of_another_size():
    with pytest.raises(ValueError):
        shaped(np.arange(4.0), (3,))


def test_mm1bk_result_metrics_are_scalars_for_scalar_arguments():
    result = mm1bk(clients=10, capacity=4, service_time=0.2, think_time=1.0)
    assert isinstance(result, MM1BKResult)
    metrics = result.as_dict()
    assert "probabilities" not in metrics
    assert set(metrics) >= {"throughput", "response_time", "error_rate", "clients"}
    assert all(np.ndim(v) == 0 for v in metrics.values())


def test_mm1bk_result_metrics_agree_with_its_probabilities():
    result = mm1bk(clients=10, capacity=4, service_time=0.2, think_time=1.0)
    p = result.probabilities
    n = np.arange(p.size)
    assert p.sum() == pytest.approx(1.0)
    assert result.p0 == p[0] and result.error_rate == pytest.approx(p[-1])
    assert result.mean_in_system == pytest.approx(n @ p)
    assert result.utilization == pytest.approx(1 - p[0])
    assert result.throughput == pytest.approx((1 - p[0]) / 0.2)  # X = U / S
    assert result.response_time == pytest.approx(result.mean_in_system / result.throughput)
    # sent = admitted + dropped; arrivals see the server full less often than time does
    assert result.attempt_rate - result.drop_rate == pytest.approx(result.throughput)
    assert result.rejection_probability == pytest.approx(
        (10 - 4) * p[-1] / ((10 - n) @ p))


def test_mm1bk_probabilities_are_computed_when_read_and_padded_for_a_batch():
    result = mm1bk(clients=[3, 8], capacity=[8, 5], service_time=0.5, think_time=2.0)
    p = result.probabilities
    assert p.shape == (2, 6) and p[0, 4:].tolist() == [0.0, 0.0]
    assert np.array_equal(p, mm1bk_probabilities(clients=[3, 8], capacity=[8, 5],
                                                 service_time=0.5, think_time=2.0))
    assert result.probabilities is p  # cached


def test_thread_pool_probabilities_unpack_the_levels_of_each_configuration():
    result = thread_pool(clients=[2, 5], capacity=[4, 3], threads=2, cpu_time=0.1,
                         wait_time=0.2, think_time=1.0)
    assert isinstance(result, ThreadPoolResult)
    p = result.probabilities
    assert p.shape == (2, 4)  # C = 2 and 3
    assert p[0, 3] == 0.0
    np.testing.assert_allclose(p.sum(axis=-1), 1.0)
    offsets = result.level_offsets
    np.testing.assert_array_equal(p[1], result.levels[offsets[1]:offsets[2]])
    np.testing.assert_allclose(p @ np.arange(4), result.mean_in_system)
