"""The finite-source chain's numbers, shared by :func:`queuetune.mm1bk` and its result."""

from __future__ import annotations

import numpy as np

from queuetune import mm1bk
from queuetune.models.finite_source import mm1bk_probabilities, solve_summary


def test_the_result_reads_the_shared_probabilities():
    res = mm1bk(clients=[3, 40], capacity=[5, 20], service_time=0.1, think_time=[1.0, 2.0])
    np.testing.assert_array_equal(
        res.probabilities, mm1bk_probabilities(clients=[3, 40], capacity=[5, 20],
                                               service_time=0.1, think_time=[1.0, 2.0]))
    assert np.all(res.probabilities[:, 0] == res.p0)


def test_the_summary_is_the_model():
    summary = solve_summary(np.array([40.0]), np.array([20.0]), np.array([20.0]))
    res = mm1bk(clients=40, capacity=20, service_time=0.1, think_time=2.0)
    assert summary["busy"][0] == res.utilization and summary["p0"][0] == res.p0
    assert summary["mean"][0] == res.mean_in_system
