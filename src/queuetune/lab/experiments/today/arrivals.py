"""The planned arrivals of an open-loop run: a seeded Poisson process.

Pure functions (no Locust): the load generator sends one request at each planned time, whether
or not earlier ones were answered, and records how late each send was. The Locust process loads
this file by its path (importing the queuetune package would take it seconds), so it imports
nothing of queuetune.
"""

from __future__ import annotations

import numpy as np

__all__ = ["arrival_times"]


def arrival_times(*, arrival_rate: float, duration_s: float, seed: int) -> np.ndarray:
    """Times (seconds from the run's start, increasing) of a Poisson process of rate
    ``arrival_rate`` per second over ``[0, duration_s)``, the same for the same seed.

    >>> t = arrival_times(arrival_rate=100.0, duration_s=10.0, seed=1)
    >>> bool((np.diff(t) > 0).all()) and float(t[-1]) < 10.0
    True
    """
    rate = _positive(arrival_rate, "arrival_rate", 1e6, "/s")
    duration = _positive(duration_s, "duration_s", 86_400.0, "s")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    rng = np.random.default_rng(int(seed))
    expected = rate * duration
    # draw the gaps in blocks until they pass the end (a few more than expected: one block,
    # almost always)
    gaps = rng.exponential(1.0 / rate, size=int(expected + 6 * np.sqrt(expected) + 16))
    times = np.cumsum(gaps)
    while times[-1] < duration:
        more = np.cumsum(rng.exponential(1.0 / rate, size=len(gaps))) + times[-1]
        times = np.concatenate([times, more])
    return times[times < duration]


def _positive(value: float, name: str, high: float, unit: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not 0 < number <= high:
        raise ValueError(f"{name} must be in (0, {high:g}] {unit}, got {value!r}")
    return number
