"""queuetune.lab.experiments.today.arrivals: the seeded Poisson schedule of open arrivals."""

from __future__ import annotations

import numpy as np
import pytest

from queuetune.lab.experiments.today import arrivals


def test_the_arrival_schedule_is_seeded_poisson():
    times = arrivals.arrival_times(arrival_rate=200.0, duration_s=50.0, seed=7)
    again = arrivals.arrival_times(arrival_rate=200.0, duration_s=50.0, seed=7)
    other = arrivals.arrival_times(arrival_rate=200.0, duration_s=50.0, seed=8)
    assert np.array_equal(times, again) and not np.array_equal(times[:10], other[:10])
    assert (np.diff(times) > 0).all() and 0 <= times[0] and times[-1] < 50.0
    gaps = np.diff(times)
    # 10 000 expected arrivals: count and mean gap within 4 % (about 4 standard errors)
    assert len(times) == pytest.approx(10_000, rel=0.04)
    assert gaps.mean() == pytest.approx(1 / 200, rel=0.04)
    # exponential gaps: the coefficient of variation is 1
    assert gaps.std() / gaps.mean() == pytest.approx(1.0, abs=0.04)


@pytest.mark.parametrize(("keyword", "value", "name"), [
    ("arrival_rate", 0.0, "arrival_rate"), ("duration_s", -1.0, "duration_s"),
    ("seed", -3, "seed")])
def test_a_bad_schedule_is_refused_by_name(keyword, value, name):
    args = {"arrival_rate": 10.0, "duration_s": 1.0, "seed": 1, keyword: value}
    with pytest.raises(ValueError, match=name):
        arrivals.arrival_times(**args)
