"""The capacity rules of Zimmet & Florio Barber (1998), domino-curves, as small calculators.

:func:`percent_change` (the relative change its comparisons quote), :func:`processor_equivalents`
(PerfMon's % Total Processor Time, an average over the processors, as processors' worth of busy
time), :func:`cpu_headroom` and :func:`users_at_cpu_ceiling` (room left under a CPU ceiling),
:func:`probe_rating_bands` / :func:`probe_rating` (Server.Planner's fast, medium and slow probe
response classes), and :func:`mm1_stretch` (why CPU ceilings sit near 70-75 %). Each checks
that its inputs are in range, raising ``ValueError`` that names the parameter and the range.
The ranges are those of the models: counts are integers up to 2**53, other positive quantities
(users, times) lie in [1e-100, 1e100] (or are 0 where 0 makes sense), percentages in [0, 100]
(a divisor in [1e-100, 100]), so that every result is a finite number.

>>> percent_change(40, 65)
62.5
>>> probe_rating(2.0)
'medium'
"""

from __future__ import annotations

import pandas as pd

from ... import data, stated
from ..._validation import MAGNITUDE_RANGE, MAX_INTEGER, as_series, integer, magnitude, real

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
    is about -38.5 (40 is 38.5 % less than 65).

    Accepted: ``base`` in [1e-100, 1e100], ``new`` 0 or in [1e-100, 1e100].
    """
    base = magnitude(base, "base")
    new = magnitude(new, "new", zero=True)
    return 100.0 * (new - base) / base


def processor_equivalents(total_processor_time_pct: float, processors: int) -> float:
    """Processors' worth of busy time behind a PerfMon % Total Processor Time reading.

    PerfMon's % Total Processor Time is the *average* busy share of all processors: two
    processors each 20 % busy read 20 %, which is 0.4 processors' worth of work
    (``processor_equivalents(20, 2) == 0.4``).

    Accepted: ``total_processor_time_pct`` in [0, 100] %, ``processors`` an integer in
    [1, 2**53].
    """
    pct = real(total_processor_time_pct, "total_processor_time_pct", low=0, high=100, unit="%")
    processors = integer(processors, "processors", low=1, high=MAX_INTEGER)
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
    true count is lower, so the result is an upper estimate.

    Accepted: ``users`` in [1e-100, 1e100], ``cpu_pct`` and ``ceiling_pct`` in [1e-100, 100] %.
    """
    users = magnitude(users, "users")
    cpu = real(cpu_pct, "cpu_pct", low=MAGNITUDE_RANGE[0], high=100, unit="%")
    ceiling = real(ceiling_pct, "ceiling_pct", low=MAGNITUDE_RANGE[0], high=100, unit="%")
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
    ``"over the guideline"``. ``response_time_s`` 0 or in [1e-100, 1e100] s; ``bands`` a table with
    columns ``rating`` and ``high_s`` (finite numbers >= 0, the bands in order).
    """
    seconds = magnitude(response_time_s, "response_time_s", zero=True, unit="s")
    bands = probe_rating_bands() if bands is None else bands
    if not isinstance(bands, pd.DataFrame):
        raise ValueError(f"bands must be a table (DataFrame) with columns rating and high_s, "
                         f"got {type(bands).__name__}")
    missing = sorted({"rating", "high_s"} - set(bands.columns))
    if missing:
        raise ValueError(f"bands lacks column(s) {missing}; it has {list(bands.columns)}")
    highs = as_series(bands["high_s"].to_numpy(), "bands high_s", low=0, low_open=False)
    for rating, high in zip(bands["rating"], highs, strict=True):
        if seconds <= high:
            return str(rating)
    return "over the guideline"


def mm1_stretch(utilization_pct: float) -> float:
    """Mean response time over mean service time of an M/M/1 queue busy ``utilization_pct``.

    ``1 / (1 - utilization)``: the textbook single-server queue with Poisson arrivals and
    exponential service. At 50 % busy a request takes twice its service time on average, at
    75 % four times. A server is not an M/M/1 queue; the factor shows why CPU ceilings of
    capacity guidelines sit well below 100 %. ``utilization_pct`` in [0, 100) %; computed as
    ``100 / (100 - utilization_pct)``, whose difference is exact near 100 %.
    """
    u = real(utilization_pct, "utilization_pct", low=0, high=100, high_open=True, unit="%")
    return 100.0 / (100.0 - u)
