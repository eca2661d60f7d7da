"""Rules of thumb stated by the source documents, as small calculators.

Each rule takes the quantities its document names, checks that they are in range (raising
``ValueError`` that names the parameter and the allowed range), and returns what the document
would set. Constants come from the document's data package, so that the number the rule uses is
the number the source prints.

>>> domino_initial_threads(200)
20

The capacity rules of Zimmet & Florio Barber (1998), domino-curves: :func:`percent_change` (the
relative change its comparisons quote), :func:`processor_equivalents` (PerfMon's % Total
Processor Time, an average over the processors, as processors' worth of busy time),
:func:`cpu_headroom` and :func:`users_at_cpu_ceiling` (room left under a CPU ceiling), and
:func:`probe_rating_bands` / :func:`probe_rating` (Server.Planner's fast, medium and slow probe
response classes), and :func:`mm1_stretch` (why CPU ceilings sit near 70-75 %).
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Integral, Real

import pandas as pd

from . import data, stated

__all__ = [
    "domino_initial_threads",
    "domino_starting_percent",
    "percent_change",
    "processor_equivalents",
    "cpu_headroom",
    "users_at_cpu_ceiling",
    "probe_rating_bands",
    "probe_rating",
    "mm1_stretch",
]


def _stated(document: str, quantity: str) -> str:
    table = data.load(document, "stated_values")
    rows = table[table["quantity"] == quantity]
    if len(rows) != 1:
        raise ValueError(f"{document}: expected one stated value {quantity!r}, found {len(rows)}")
    return str(rows["value"].iloc[0])


def domino_starting_percent() -> Fraction:
    """The share of web users the 1998 Domino article starts the HTTP thread pool at, in %.

    Read from ``data/domino-threads/stated_values.csv`` (quantity
    ``starting_threads_share_of_web_users``).
    """
    return Fraction(_stated("domino-threads", "starting_threads_share_of_web_users"))


def domino_initial_threads(users: int, *, percent: float | None = None) -> int:
    """Starting HTTP "Number of active threads" for a Domino server with ``users`` web users.

    Demetriou (1998): "a good starting value for the number of HTTP threads setting is 10% of the
    number of Web users", then tune it to the ``domino.threads.active.peak`` statistic. The
    share is rounded *up* to a whole thread, so that 25 users give 3 threads, not 2.5, and the
    pool never starts empty.

    ``users``: expected web users, an integer of at least 1.
    ``percent``: the share in percent, in (0, 100]; by default the article's (10).

    >>> domino_initial_threads(25)
    3
    >>> domino_initial_threads(350, percent=20)
    70
    """
    if isinstance(users, bool) or not isinstance(users, Integral) or users < 1:
        raise ValueError(f"users must be an integer in [1, inf) (expected web users), "
                         f"got {users!r}")
    if percent is None:
        share = domino_starting_percent()
    else:
        if (isinstance(percent, bool) or not isinstance(percent, Real)
                or not math.isfinite(percent) or not 0 < percent <= 100):
            raise ValueError(f"percent must be a number in (0, 100] (share of web users), "
                             f"got {percent!r}")
        # The decimal text of the number, so that 12.3 % means 123/1000 and not its binary
        # neighbour (which could round 20.000000000000004 threads up to 21).
        share = Fraction(str(percent))
    return max(1, math.ceil(int(users) * share / 100))


# --- domino-curves: capacity rules (Zimmet & Florio Barber, 1998) -----------------------------

def _bounded(value, name: str, *, low: float, high: float = math.inf,
             low_open: bool = False, unit: str = "") -> float:
    """``value`` as a float in [low, high] (or (low, high] when ``low_open``), else ValueError."""
    upper = "inf)" if high == math.inf else f"{high:g}]"
    allowed = f"{'(' if low_open else '['}{low:g}, {upper}" + (f" {unit}" if unit else "")
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number in {allowed}, got {value!r}")
    x = float(value)
    if not (math.isfinite(x) and (x > low if low_open else x >= low) and x <= high):
        raise ValueError(f"{name} must be a number in {allowed}, got {value!r}")
    return x


def percent_change(base: float, new: float) -> float:
    """How much larger (positive) or smaller (negative) ``new`` is than ``base``, in percent.

    ``percent_change(40, 65)`` is 62.5 (65 is 62.5 % more than 40); ``percent_change(65, 40)``
    is about -38.5 (40 is 38.5 % less than 65). ``base`` in (0, inf), ``new`` in [0, inf).
    """
    base = _bounded(base, "base", low=0, low_open=True)
    new = _bounded(new, "new", low=0)
    return 100.0 * (new - base) / base


def processor_equivalents(total_processor_time_pct: float, processors: int) -> float:
    """Processors' worth of busy time behind a PerfMon % Total Processor Time reading.

    PerfMon's % Total Processor Time is the *average* busy share of all processors: two
    processors each 20 % busy read 20 %, which is 0.4 processors' worth of work
    (``processor_equivalents(20, 2) == 0.4``). ``total_processor_time_pct`` in [0, 100] %,
    ``processors`` an integer in [1, inf).
    """
    pct = _bounded(total_processor_time_pct, "total_processor_time_pct", low=0, high=100,
                   unit="%")
    if isinstance(processors, bool) or not isinstance(processors, Integral) or processors < 1:
        raise ValueError(f"processors must be an integer in [1, inf), got {processors!r}")
    return pct / 100.0 * int(processors)


def cpu_headroom(cpu_pct: float, ceiling_pct: float) -> float:
    """Percentage points of CPU left under ``ceiling_pct`` (negative when above it).

    ``cpu_pct`` in [0, 100] %, ``ceiling_pct`` in (0, 100] %.
    """
    cpu = _bounded(cpu_pct, "cpu_pct", low=0, high=100, unit="%")
    ceiling = _bounded(ceiling_pct, "ceiling_pct", low=0, high=100, low_open=True, unit="%")
    return ceiling - cpu


def users_at_cpu_ceiling(users: float, cpu_pct: float, ceiling_pct: float) -> float:
    """Users a server would carry at ``ceiling_pct`` CPU if its CPU grew in step with users.

    ``users * ceiling_pct / cpu_pct`` assumes a constant CPU cost per user. Where the cost per
    user grows with the load (domino-curves reports it doubling between 200 and 500 users) the
    true count is lower, so the result is an upper estimate. ``users`` in (0, inf),
    ``cpu_pct`` and ``ceiling_pct`` in (0, 100] %.
    """
    users = _bounded(users, "users", low=0, low_open=True)
    cpu = _bounded(cpu_pct, "cpu_pct", low=0, high=100, low_open=True, unit="%")
    ceiling = _bounded(ceiling_pct, "ceiling_pct", low=0, high=100, low_open=True, unit="%")
    return users * ceiling / cpu


def probe_rating_bands(document: str = "domino-curves") -> pd.DataFrame:
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
    seconds = _bounded(response_time_s, "response_time_s", low=0, unit="s")
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
    u = _bounded(utilization_pct, "utilization_pct", low=0, high=100, unit="%")
    if u >= 100:
        raise ValueError(f"utilization_pct must be a number in [0, 100) %, got {utilization_pct!r}")
    return 1.0 / (1.0 - u / 100.0)
