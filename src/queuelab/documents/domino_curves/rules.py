"""The capacity rules of Zimmet & Florio Barber (1998), domino-curves, as small calculators.

:func:`percent_change` (the relative change its comparisons quote), :func:`processor_equivalents`
(PerfMon's % Total Processor Time, an average over the processors, as processors' worth of busy
time), :func:`cpu_headroom` and :func:`users_at_cpu_ceiling` (room left under a CPU ceiling),
:func:`probe_rating_bands` / :func:`probe_rating` (Server.Planner's fast, medium and slow probe
response classes), and :func:`mm1_stretch` (why CPU ceilings sit near 70-75 %). Each checks
that its inputs are in range, raising ``ValueError`` that names the parameter and the range.

>>> percent_change(40, 65)
62.5
>>> probe_rating(2.0)
'medium'
"""

from __future__ import annotations

import pandas as pd

from ... import data, stated
from ..._validation import integer, real

__all__ = [
    "percent_change",
    "processor_equivalents",
    "cpu_headroom",
    "users_at_cpu_ceiling",
    "probe_rating_bands",
    "probe_rating",
    "mm1_stretch",
]

DOC = "domino-curves"


def percent_change(base: float, new: float) -> float:
    """How much larger (positive) or smaller (negative) ``new`` is than ``base``, in percent.

    ``percent_change(40, 65)`` is 62.5 (65 is 62.5 % more than 40); ``percent_change(65, 40)``
    is about -38.5 (40 is 38.5 % less than 65). ``base`` in (0, inf), ``new`` in [0, inf).
    """
    base = real(base, "base", low=0, low_open=True)
    new = real(new, "new", low=0)
    return 100.0 * (new - base) / base


def processor_equivalents(total_processor_time_pct: float, processors: int) -> float:
    """Processors' worth of busy time behind a PerfMon % Total Processor Time reading.

    PerfMon's % Total Processor Time is the *average* busy share of all processors: two
    processors each 20 % busy read 20 %, which is 0.4 processors' worth of work
    (``processor_equivalents(20, 2) == 0.4``). ``total_processor_time_pct`` in [0, 100] %,
    ``processors`` an integer in [1, inf).
    """
    pct = real(total_processor_time_pct, "total_processor_time_pct", low=0, high=100,
                   unit="%")
    processors = integer(processors, "processors", low=1)
    return pct / 100.0 * processors


def cpu_headroom(cpu_pct: float, ceiling_pct: float) -> float:
    """Percentage points of CPU left under ``ceiling_pct`` (negative when above it).

    ``cpu_pct`` in [0, 100] %, ``ceiling_pct`` in (0, 100] %.
    """
    cpu = real(cpu_pct, "cpu_pct", low=0, high=100, unit="%")
    ceiling = real(ceiling_pct, "ceiling_pct", low=0, high=100, low_open=True, unit="%")
    return ceiling - cpu


def users_at_cpu_ceiling(users: float, cpu_pct: float, ceiling_pct: float) -> float:
    """Users a server would carry at ``ceiling_pct`` CPU if its CPU grew in step with users.

    ``users * ceiling_pct / cpu_pct`` assumes a constant CPU cost per user. Where the cost per
    user grows with the load (domino-curves reports it doubling between 200 and 500 users) the
    true count is lower, so the result is an upper estimate. ``users`` in (0, inf),
    ``cpu_pct`` and ``ceiling_pct`` in (0, 100] %.
    """
    users = real(users, "users", low=0, low_open=True)
    cpu = real(cpu_pct, "cpu_pct", low=0, high=100, low_open=True, unit="%")
    ceiling = real(ceiling_pct, "ceiling_pct", low=0, high=100, low_open=True, unit="%")
    return users * ceiling / cpu


def probe_rating_bands(document: str = DOC) -> pd.DataFrame:
    """Server.Planner's probe-response classes as numeric bands: rating, low_s, high_s.

    Read from the document's ``probe_ratings`` table, printed in words ("one",
    "one to three", "three to five"). A class printed as a single time ("A one second response
    time as fast") covers everything up to that time, so its band starts at 0 s. The bands
    must follow each other without gap or overlap, else ``ValueError``.
    """
    table = data.load(document, "probe_ratings")
    rows = []
    previous_high = 0.0
    for rating, printed in zip(table["rating"], table["response_time_s"], strict=True):
        low, high = stated.parse_span(str(printed))
        if low == high:
            low = previous_high
        if low != previous_high:
            raise ValueError(f"probe rating {rating!r} starts at {low:g} s, but the class "
                             f"before it ends at {previous_high:g} s")
        rows.append({"rating": str(rating), "low_s": low, "high_s": high})
        previous_high = high
    return pd.DataFrame(rows, columns=["rating", "low_s", "high_s"])


def probe_rating(response_time_s: float, bands: pd.DataFrame | None = None) -> str:
    """The class of a probe response time: the first band whose upper end it does not exceed.

    ``bands`` defaults to :func:`probe_rating_bands`; a time above the last band rates
    ``"over the guideline"``. ``response_time_s`` in [0, inf) s.
    """
    seconds = real(response_time_s, "response_time_s", low=0, unit="s")
    bands = probe_rating_bands() if bands is None else bands
    missing = sorted({"rating", "high_s"} - set(bands.columns))
    if missing:
        raise ValueError(f"bands lacks column(s) {missing}; it has {list(bands.columns)}")
    for rating, high in zip(bands["rating"], bands["high_s"], strict=True):
        if seconds <= high:
            return str(rating)
    return "over the guideline"


def mm1_stretch(utilization_pct: float) -> float:
    """Mean response time over mean service time of an M/M/1 queue busy ``utilization_pct``.

    ``1 / (1 - utilization)``: the textbook single-server queue with Poisson arrivals and
    exponential service. At 50 % busy a request takes twice its service time on average, at
    75 % four times. A server is not an M/M/1 queue; the factor shows why CPU ceilings of
    capacity guidelines sit well below 100 %. ``utilization_pct`` in [0, 100) %.
    """
    u = real(utilization_pct, "utilization_pct", low=0, high=100, high_open=True, unit="%")
    return 1.0 / (1.0 - u / 100.0)
