"""The Universal Scalability Law fitted to throughputs with the scale unknown, and its refusal of
super-linear data unless asked."""

from __future__ import annotations

import numpy as np
import pytest

from queuetune.fit import fit_usl, usl

CPUS = np.array([1, 2, 4, 8, 16, 32])


def test_the_throughput_of_one_processor_is_fitted_when_not_given():
    throughput = 120.0 * usl(cpus=CPUS, sigma=0.05, kappa=0.002)
    fit = fit_usl(cpus=CPUS, throughput=throughput)
    assert fit.throughput_at_one == pytest.approx(120.0, rel=1e-6)
    assert fit.sigma == pytest.approx(0.05, rel=1e-5)
    assert fit.kappa == pytest.approx(0.002, rel=1e-4)
    assert fit.predict_throughput(cpus=[64])[0] == pytest.approx(
        120.0 * usl(cpus=[64], sigma=0.05, kappa=0.002)[0], rel=1e-4)
    assert fit.k == 3 + 1 and fit.n == CPUS.size  # and the noise; p = 1 counts here


def test_a_given_throughput_of_one_processor_scales_the_throughputs():
    throughput = 80.0 * usl(cpus=CPUS, sigma=0.1, kappa=0.001)
    fit = fit_usl(cpus=CPUS, throughput=throughput, throughput_at_one=80.0)
    assert fit.throughput_at_one == 80.0
    assert fit.sigma == pytest.approx(0.1, rel=1e-6)
    assert "throughput_at_one" not in fit.free


def test_with_noise_the_scaled_fit_covers_the_truth():
    rng = np.random.default_rng(3)
    throughput = 50.0 * usl(cpus=CPUS, sigma=0.04, kappa=0.001) * np.exp(
        rng.normal(0, 0.02, CPUS.size))
    fit = fit_usl(cpus=CPUS, throughput=throughput)
    for name, truth in (("sigma", 0.04), ("kappa", 0.001), ("throughput_at_one", 50.0)):
        low, high = fit.intervals[name]
        assert low <= truth <= high, name
    assert np.isfinite(fit.intervals["peak_cpus"][0])


def test_super_linear_speedups_are_refused_unless_asked():
    speedup = CPUS[1:] / (1 - 0.03 * (CPUS[1:] - 1) / 32)  # sigma < 0: better than linear
    with pytest.raises(ValueError, match="must not be super-linear.*allow_superlinear=True"):
        fit_usl(cpus=CPUS[1:], speedup=speedup)
    fit = fit_usl(cpus=CPUS[1:], speedup=speedup, allow_superlinear=True)
    assert fit.sigma < 0
    throughput = 10.0 * np.concatenate([[1.0], speedup])
    with pytest.raises(ValueError, match="must not be super-linear"):
        fit_usl(cpus=CPUS, throughput=throughput)
    assert fit_usl(cpus=CPUS, throughput=throughput, allow_superlinear=True).sigma < 0


def test_noise_a_little_above_linear_is_not_refused():
    rng = np.random.default_rng(11)
    speedup = usl(cpus=CPUS[1:], sigma=0.002, kappa=0.0) * np.exp(
        rng.normal(0, 0.01, CPUS.size - 1))
    assert np.any(speedup > CPUS[1:])
    fit = fit_usl(cpus=CPUS[1:], speedup=speedup)
    assert fit.sigma >= 0


def test_usl_fits_warn_when_they_explain_less_than_a_constant():
    speedup = np.array([3.9, 1.1, 3.9, 1.1, 3.9])  # no scalability law in these
    with pytest.warns(UserWarning, match="USL fit explains less than a constant"):
        fit_usl(cpus=CPUS[1:], speedup=speedup, intervals="none")


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="speedup or throughput"):
        fit_usl(cpus=CPUS)
    with pytest.raises(ValueError, match="throughput_at_one must be None"):
        fit_usl(cpus=CPUS, speedup=CPUS * 0.9, throughput_at_one=3.0)
    with pytest.raises(ValueError, match="throughput_at_one must be"):
        fit_usl(cpus=CPUS, throughput=CPUS * 2.0, throughput_at_one=-1.0)
    with pytest.raises(TypeError):
        fit_usl(CPUS, CPUS * 0.9)  # type: ignore[misc]


def test_a_non_integer_concurrency_is_fitted():
    # a measured mean concurrency, below 1 part of the time
    n = np.linspace(0.4, 40.3, 30)
    throughput = 5.0 * usl(cpus=n, sigma=0.03, kappa=0.0005) * np.exp(
        np.random.default_rng(0).normal(0.0, 0.02, n.size))
    fit = fit_usl(cpus=n, throughput=throughput)
    low, high = fit.intervals["sigma"]
    assert low <= 0.03 <= high
    assert fit.predict_throughput(cpus=[0.5, 2.5]) == pytest.approx(
        fit.throughput_at_one * usl(cpus=[0.5, 2.5], sigma=fit.sigma, kappa=fit.kappa))
