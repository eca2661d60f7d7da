"""queuetune.chapters.fitting: fitted parameters and stored fits as the fitting chapter prints
them."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from queuetune import data
from queuetune import fit as qfit
from queuetune.chapters import fitting


@pytest.fixture(scope="module")
def amdahl():
    # an Amdahl speedup with sigma = 0.2, measured at 1, 2, 4 and 8 CPUs with a little noise
    cpus = np.array([1, 2, 4, 8])
    speedup = cpus / (1 + 0.2 * (cpus - 1)) * np.array([1.0, 1.01, 0.99, 1.005])
    return qfit.fit_amdahl(cpus=cpus, speedup=speedup)


def fake_fit(**params):
    return SimpleNamespace(estimates={k: v[0] for k, v in params.items()},
                           intervals={k: v[1:] for k, v in params.items()},
                           noise={"response_time": 0.0812})


def test_interval_of_and_fit_triple_read_the_fit(amdahl):
    value, (low, high) = amdahl.estimates["sigma"], amdahl.intervals["sigma"]
    assert low < value < high
    assert fitting.fit_triple(amdahl, "sigma") == (value, low, high)
    assert fitting.interval_of(amdahl, "sigma") == f"{value:.3g} ({low:.3g} to {high:.3g})"
    assert fitting.interval_of(amdahl, "sigma", 2) == f"{value:.2g} ({low:.2g} to {high:.2g})"
    assert fitting.fitted_text(amdahl, "sigma") == fitting.interval_of(amdahl, "sigma")
    # the fit recovers the sigma the data were made with
    assert low < 0.2 < high


def test_fitted_text_says_when_a_fit_is_exact():
    exact = fake_fit(kappa=(0.0123, math.nan, math.nan), sigma=(0.25, 0.1, math.inf))
    assert fitting.fitted_text(exact, "kappa") == "0.0123 (no interval: exact fit)"
    assert fitting.fitted_text(exact, "sigma") == "0.25 (0.1 to ∞)"


def test_unknown_parameters_are_refused():
    f = fake_fit(sigma=(0.25, 0.1, 0.4))
    with pytest.raises(ValueError, match=r"name must be one of \['sigma'\], got 'kappa'"):
        fitting.interval_of(f, "kappa")
    f.estimates["extra"] = 1.0
    with pytest.raises(ValueError, match="has no interval"):
        fitting.fit_triple(f, "extra")


def test_noise_text():
    f = fake_fit(sigma=(0.25, 0.1, 0.4))
    assert fitting.noise_text(f, "response_time") == "8.1 %"
    assert fitting.noise_text(f, "utilization") == "—"


@pytest.mark.parametrize("row, written", [
    ({"estimate": 0.457728, "low": 0.349206, "high": 0.497158, "low_open": False},
     "0.458 (0.349 to 0.497)"),
    ({"estimate": 0.0, "low": 0.0, "high": 0.019553, "low_open": True}, "0 (up to 0.0196)"),
    ({"estimate": 1e-5, "low": 1e-5, "high": 0.131463, "low_open": True}, "≈0 (up to 0.131)"),
    # within 0.1 % of the lower limit still counts as at it; further is printed
    ({"estimate": 1.0009e-5, "low": 1e-5, "high": 0.1, "low_open": True}, "≈0 (up to 0.1)"),
    ({"estimate": 0.00022, "low": 0.0, "high": 0.000488, "low_open": True},
     "0.00022 (up to 0.000488)"),
])
def test_parameter_text(row, written):
    assert fitting.parameter_text(row) == written
    assert fitting.parameter_text(pd.Series(row)) == written


@pytest.fixture(scope="module")
def stored():
    return data.load_result("domino_thread_pool_fits")


def test_stored_fits_look_up_the_table(stored):
    fits = fitting.StoredFits(stored)
    row = stored[(stored["case"] == "webmail+cpu") & (stored["parameter"] == "cpu_time")].iloc[0]
    assert fits.value("webmail+cpu", "cpu_time") == row["estimate"]
    assert fits.value("webmail+cpu", "cpu_time", "high") == row["high"]
    assert fits.triple("webmail+cpu", "cpu_time") == (row["estimate"], row["low"], row["high"])
    assert fits.interval("webmail+cpu", "cpu_time", 2) == (
        f"{row['estimate']:.2g} ({row['low']:.2g} to {row['high']:.2g})")
    estimates = fits.estimates("webmail")
    assert set(estimates) == set(stored.loc[stored["case"] == "webmail", "parameter"])
    assert list(fits.estimates("webmail", ("think_time",))) == ["think_time"]


def test_stored_fits_refuse_bad_lookups_and_tables(stored):
    fits = fitting.StoredFits(stored)
    with pytest.raises(ValueError, match="case must be one of"):
        fits.value("nope", "cpu_time")
    with pytest.raises(ValueError, match="name must be one of"):
        fits.value("webmail", "nope")
    with pytest.raises(ValueError, match="column must be 'estimate', 'low' or 'high'"):
        fits.value("webmail", "cpu_time", "low_open")
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['high'\]"):
        fitting.StoredFits(stored.drop(columns="high"))
    with pytest.raises(ValueError, match="repeats a"):
        fitting.StoredFits(pd.concat([stored, stored.iloc[:1]]))


def test_coverage_share_reads_one_row_and_refuses_an_ambiguous_one():
    coverage = pd.DataFrame({"label": ["after", "after"], "design": ["d", "d"],
                             "intervals": ["profile", "bootstrap"],
                             "parameter": ["S", "S"], "coverage": [0.915, 0.94]})
    assert fitting.coverage_share(coverage, "after", "d", "bootstrap", "S") == 0.94
    with pytest.raises(ValueError, match="0 rows"):
        fitting.coverage_share(coverage, "before", "d", "profile", "S")
    with pytest.raises(ValueError, match="2 rows"):
        fitting.coverage_share(pd.concat([coverage, coverage]), "after", "d", "profile", "S")


def test_share_range_in_percent():
    assert fitting.share_range([0.915, 0.93, 0.92]) == "91.5 to 93.0 %"
    with pytest.raises(ValueError, match="at least one"):
        fitting.share_range([])
