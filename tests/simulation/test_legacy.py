"""With one processor, a thread limit, no pool and a closed workload the simulation gives, for
the same seed, the per-replication numbers of the simulation before processors, connections,
open arrivals and threads=None existed, to within rounding (:func:`assert_same_samples`).

``data/legacy_samples.json`` was written by that simulation (its commit is recorded in the
file): the same random stream is drawn in the same order, so only rounding may differ.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from queuetune.simulation import simulate_mm1bk, simulate_thread_pool

LEGACY = json.loads((Path(__file__).parent / "data" / "legacy_samples.json").read_text())

#: Roundings per event that one run may leave in a sample (see assert_same_samples).
ROUNDINGS_PER_EVENT = 8


def sample_bound(point: dict, run: dict) -> float:
    """The largest relative difference between a sample of two runs of the same stream on two
    machines: ``ROUNDINGS_PER_EVENT * E * u``, ``E = clients * horizon / think_time`` (the
    expected number of think periods ending within the horizon: the requests, each a few
    events) and ``u = 2**-53``.

    The draws are the same numbers but may differ in their last bits (``log`` and ``exp`` of
    libm and of NumPy's SIMD loops differ between processors); the clock is a sum of draws and
    each sample a sum of per-event products (time-weighted integrals) divided by the horizon,
    or a count divided by it (exact). To first order each event adds a few roundings of the
    sample's size, hence the bound linear in E; twice one run's error, for two runs, is within
    the factor. (Two events a few ulps apart could in principle swap; then the samples differ
    by far more and this test fails: no such tie occurs in these streams.)"""
    return ROUNDINGS_PER_EVENT * point["clients"] * run["horizon"] / point["think_time"] * (
        np.finfo(np.float64).eps / 2)


def assert_same_samples(result, case: dict) -> None:
    """Every metric's samples within :func:`sample_bound` of the stored ones, relatively."""
    rtol = sample_bound(case["point"], LEGACY["run"])
    assert sorted(result.samples) == sorted(case["samples"])  # exact: the metrics' names
    for metric, stored in case["samples"].items():
        np.testing.assert_allclose(result.samples[metric], stored, rtol=rtol, atol=0,
                                   err_msg=metric)


@pytest.mark.parametrize("case", LEGACY["thread_pool"], ids=lambda c: str(c["seed"]))
def test_thread_pool_same_numbers_as_before(case):
    result = simulate_thread_pool(**case["point"], seed=case["seed"], **LEGACY["run"])
    assert_same_samples(result, case)


@pytest.mark.parametrize("case", LEGACY["mm1bk"], ids=lambda c: str(c["seed"]))
def test_mm1bk_same_numbers_as_before(case):
    result = simulate_mm1bk(**case["point"], seed=case["seed"], **LEGACY["run"])
    assert_same_samples(result, case)


def test_explicit_defaults_change_nothing():
    """processors=1 and connections=None spelled out are the defaults."""
    case = LEGACY["thread_pool"][0]
    result = simulate_thread_pool(**case["point"], processors=1, connections=None,
                                  seed=case["seed"], **LEGACY["run"])
    assert_same_samples(result, case)


def test_the_sample_bound_refuses_a_sample_moved_past_it():
    """The comparison can fail: a stored sample moved by 1.5 times the bound is refused, by half
    of it accepted."""
    case = LEGACY["thread_pool"][0]
    result = simulate_thread_pool(**case["point"], seed=case["seed"], **LEGACY["run"])
    rtol = sample_bound(case["point"], LEGACY["run"])
    for factor, refused in ((1.5, True), (0.5, False)):
        samples = {m: list(v) for m, v in case["samples"].items()}
        samples["response_time"][1] *= 1 + factor * rtol
        moved = {**case, "samples": samples}
        if refused:
            with pytest.raises(AssertionError, match="response_time"):
                assert_same_samples(result, moved)
        else:
            assert_same_samples(result, moved)
