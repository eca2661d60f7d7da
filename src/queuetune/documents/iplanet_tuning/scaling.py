"""Scaling factors as speedups: three readings of the iPlanet guide's "scaling factor".

The guide (IP-C1) gives a "scaling factor" for most of its CPU-scaling figures (65 %, close to
100 %, 95 %, ...) but never defines it. It uses it so that 100 % means linear scaling, and it
speaks of a factor that changes with the CPU count ("a factor of 70%; and with a factor of 55%
beyond 4 CPUs"). Three readings agree on 100 % = linear and differ elsewhere; with ``f`` the
factor as a fraction and C(p) the speedup on p CPUs over one CPU (C(1) = 1):

* ``"efficiency"`` - parallel efficiency: C(p) = f x p for p > 1;
* ``"doubling"`` - gain per doubling of CPUs: C(2p) = (1 + f) x C(p), so
  C(p) = (1 + f) ** log2(p);
* ``"per_cpu"`` - gain per added CPU: C(p) = 1 + f x (p - 1).

:data:`PRIMARY_READING` is ``"doubling"`` (the chapter on the guide gives the reasons).
A factor that changes with the CPU count is a list of segments ``[(up_to_cpus, factor), ...]``
(the last ``up_to_cpus`` may be ``math.inf``): under ``"doubling"`` each doubling uses the
factor of the segment its end point falls in, under ``"per_cpu"`` each added CPU does, and
under ``"efficiency"`` C(p) uses the factor of the segment holding p.

>>> round(implied_speedup(0.65, 4, reading="doubling"), 4)
2.7225
>>> round(implied_speedup(0.65, 8, reading="per_cpu"), 2)
5.55
>>> round(piecewise_speedup([(4, 0.70), (math.inf, 0.55)], 8, reading="doubling"), 4)
4.4795
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import pandas as pd

from ... import data
from ..._validation import MAX_INTEGER, integer, real

__all__ = [
    "DOC",
    "PRIMARY_READING",
    "READINGS",
    "figure_factors",
    "implied_factor",
    "implied_speedup",
    "parse_factor",
    "piecewise_speedup",
    "recomputed_speedups",
    "speedup_frame",
]

DOC = "iplanet-tuning"
READINGS = ("efficiency", "doubling", "per_cpu")
PRIMARY_READING = "doubling"
READING_TITLES = {
    "efficiency": "parallel efficiency",
    "doubling": "gain per doubling",
    "per_cpu": "gain per added CPU",
}
# stated_values quantities that say a figure has no (full) 8-CPU point.
_NO_TOP_POINT = ("cpus_not_provided", "cpus_unavailable", "cpus_not_shown", "cpus_not_available",
                 "cpus_not_full_capacity")
# A percentage whose number is read whole: no digit, sign, point, comma or letter before it
# ("-65%", "1,5%", "x65%" are not 65 %).
_PERCENT = re.compile(r"(?<![\w.,+-])([0-9]+(?:\.[0-9]+)?)\s*%")
# Under "per_cpu" the factors are added CPU by CPU up to this many CPUs (every count the chapters
# print), and as factor x number of CPUs per segment beyond, so that no call loops over 2**53
# CPUs; the two sums differ only by rounding in the last bits.
_PER_CPU_STEPS = 4096


def _reading(reading: str) -> str:
    if reading not in READINGS:
        raise ValueError(f"reading must be one of {READINGS}, got {reading!r}")
    return reading


def _factor(value, name: str = "factor") -> float:
    return real(value, name, low=0, high=1, low_open=True)


def _segments(segments) -> list[tuple[float, float]]:
    """Validated ``[(up_to_cpus, factor), ...]`` with strictly increasing ``up_to_cpus``."""
    if isinstance(segments, (str, bytes)) or not isinstance(segments, Sequence) or not segments:
        raise ValueError("segments must be a non-empty sequence of (up_to_cpus, factor) pairs, "
                         f"got {segments!r}")
    out: list[tuple[float, float]] = []
    for i, pair in enumerate(segments):
        if not isinstance(pair, Sequence) or isinstance(pair, str) or len(pair) != 2:
            raise ValueError(f"segments[{i}] must be a pair (up_to_cpus, factor), got {pair!r}")
        up_to, f = pair
        limit = math.inf if up_to == math.inf else real(
            up_to, f"segments[{i}] up_to_cpus", low=1)
        if out and limit <= out[-1][0]:
            raise ValueError(f"segments up_to_cpus must increase strictly, got {segments!r}")
        out.append((limit, _factor(f, f"segments[{i}] factor")))
    return out


def _factor_at(segments: list[tuple[float, float]], cpus: float, name: str) -> float:
    for up_to, f in segments:
        if cpus <= up_to:
            return f
    raise ValueError(f"{name} must be covered by the segments: segments end at "
                     f"{segments[-1][0]:g} CPUs, below {cpus:g}")


def piecewise_speedup(segments, cpus: int, reading: str = PRIMARY_READING) -> float:
    """Speedup on ``cpus`` CPUs over one CPU for a factor that may change with the CPU count.

    ``segments``: ``[(up_to_cpus, factor), ...]`` with factors in (0, 1] (fractions, not
    percent) and ``up_to_cpus`` numbers >= 1, strictly increasing (the last may be ``math.inf``);
    they must cover ``cpus``. ``cpus`` an integer in [1, 2**53]; ``reading`` one of
    :data:`READINGS`. Every reading takes a time independent of ``cpus``.
    """
    n = integer(cpus, "cpus", low=1, high=MAX_INTEGER)
    reading = _reading(reading)
    parts = _segments(segments)
    if n == 1:
        _factor_at(parts, 1, "cpus")
        return 1.0
    if reading == "efficiency":
        return _factor_at(parts, n, "cpus") * n
    if reading == "per_cpu":
        _factor_at(parts, n, "cpus")  # the segments cover n
        if n <= _PER_CPU_STEPS:
            return 1.0 + sum(_factor_at(parts, k, "cpus") for k in range(2, n + 1))
        return 1.0 + _per_cpu_sum(parts, n)
    # Doubling: integrate log(1 + f) over log2 of the CPU count, segment by segment.
    log_speedup, low = 0.0, 0.0
    top = math.log2(n)
    for up_to, f in parts:
        high = min(top, math.log2(up_to)) if up_to != math.inf else top
        if high > low:
            log_speedup += (high - low) * math.log1p(f)
            low = high
        if low >= top:
            break
    if low < top:
        _factor_at(parts, n, "cpus")
    return math.exp(log_speedup)


def _per_cpu_sum(parts: list[tuple[float, float]], n: int) -> float:
    """The sum of the factors of CPUs 2 to n: each segment's factor times the number of CPU
    counts k in [2, n] it covers (up_to_cpus of the segment before < k <= its own)."""
    total, covered = 0.0, 1  # CPU counts 2..covered are summed
    for up_to, f in parts:
        last = n if up_to == math.inf else min(n, math.floor(up_to))
        if last > covered:
            total += f * (last - covered)
            covered = last
        if covered >= n:
            break
    return total


def implied_speedup(factor: float, cpus: int, reading: str = PRIMARY_READING) -> float:
    """Speedup on ``cpus`` CPUs over one CPU implied by a constant scaling ``factor``.

    ``factor`` in (0, 1] as a fraction (0.65 for "65%"), ``cpus`` an integer in [1, 2**53],
    ``reading`` one of :data:`READINGS`. 100 % gives C(p) = p under every reading.
    """
    return piecewise_speedup([(math.inf, _factor(factor))], cpus, reading)


def implied_factor(speedup: float, cpus: int, reading: str = PRIMARY_READING) -> float:
    """The constant factor that would give ``speedup`` on ``cpus`` CPUs (inverse of
    :func:`implied_speedup`).

    ``speedup`` a finite number > 0, ``cpus`` an integer in [2, 2**53]. The result is not clipped
    to (0, 1]: a speedup above linear gives a factor above 1, a slowdown a negative one (or, for
    ``"efficiency"``, a factor below 1/cpus).
    """
    s = real(speedup, "speedup", low=0, low_open=True)
    n = integer(cpus, "cpus", low=2, high=MAX_INTEGER)
    reading = _reading(reading)
    if reading == "efficiency":
        return s / n
    if reading == "per_cpu":
        return (s - 1.0) / (n - 1)
    return s ** (1.0 / math.log2(n)) - 1.0


def parse_factor(text: str) -> float:
    """A printed factor as a fraction: "65%" -> 0.65, "close to 100%" -> 1.0,
    "60% (summary)" -> 0.6. The text must hold exactly one percentage."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string holding one percentage, got {text!r}")
    found = _PERCENT.findall(text)
    if len(found) != 1 or text.count("%") != 1:
        raise ValueError(f"text must hold exactly one percentage such as '65%' (every '%' "
                         f"after a number read whole), got {text!r}; read {found}")
    return float(found[0]) / 100.0


def speedup_frame(factors: Mapping[str, object], cpus: Sequence[int],
                  readings: Sequence[str] = READINGS) -> pd.DataFrame:
    """Implied speedups as a tidy table: one row per (label, reading, cpus).

    ``factors`` maps a label to a factor in (0, 1] or to segments (see
    :func:`piecewise_speedup`). Columns: ``label``, ``reading``, ``cpus``, ``speedup``,
    ``efficiency`` (speedup / cpus).
    """
    if not isinstance(factors, Mapping) or not factors:
        raise ValueError(f"factors must be a non-empty mapping of label -> factor, got "
                         f"{factors!r}")
    if isinstance(cpus, (str, bytes)) or not isinstance(cpus, Sequence) or not cpus:
        raise ValueError(f"cpus must be a non-empty sequence of CPU counts, got {cpus!r}")
    if isinstance(readings, str) or not readings:
        raise ValueError(f"readings must be a non-empty sequence drawn from {READINGS}, got "
                         f"{readings!r}")
    rows = []
    for label, factor in factors.items():
        segments = factor if isinstance(factor, Sequence) else [(math.inf, factor)]
        for reading in readings:
            for n in cpus:
                s = piecewise_speedup(segments, n, reading)
                rows.append({"label": str(label), "reading": _reading(reading), "cpus": int(n),
                             "speedup": s, "efficiency": s / int(n)})
    return pd.DataFrame(rows, columns=["label", "reading", "cpus", "speedup", "efficiency"])


def figure_factors() -> pd.DataFrame:
    """The iPlanet figures that state a scaling factor, with what the text says about them.

    Columns: ``figure_id``, ``caption``, ``printed`` (the factor as printed), ``factor`` (a
    fraction), ``top_cpus`` and ``why_top`` (the most CPUs the text lets the figure's factor
    speak for, and why), in figure order. Read from ``figures.csv`` and ``stated_values.csv``.

    The study ran 1, 2, 4 and 8 CPUs. A figure's factor covers 8 CPUs only where the text says
    that its content was measured up to 8 CPUs (Perl- and C-CGI); elsewhere it stops at 4: where
    the text says the 8-CPU point is missing or "not at full capacity", and where it states no
    8-CPU point for the figure (the Java figures among them, for which the summary gives another
    factor beyond 4 CPUs).
    """
    figures = data.load(DOC, "figures")
    values = data.load(DOC, "stated_values")
    studied = sorted(int(v) for v in
                     values.loc[values["quantity"] == "cpu_count_studied", "value"])
    most = max(studied)
    below = max(n for n in studied if n < most)
    missing_top = values[values["quantity"].isin(_NO_TOP_POINT)]
    reach = values[values["quantity"].str.endswith("_up_to_cpus")]
    rows = []
    for fig in figures.itertuples():
        if not fig.scaling_factor:
            continue
        covers = {int(r.value) for r in reach.itertuples()
                  if fig.figure_id in _ids(r.figure_id)}
        gone = missing_top[missing_top["figure_id"] == fig.figure_id]
        if most in covers and gone.empty:
            top, why = most, f"the text states the measurement up to {most} CPUs"
        elif not gone.empty:
            top, why = below, f"the text: '{gone['sentence'].iloc[0]}'"
        else:
            top, why = below, f"the text states no {most}-CPU point for this figure"
        rows.append({"figure_id": fig.figure_id, "caption": fig.caption,
                     "printed": fig.scaling_factor, "factor": parse_factor(fig.scaling_factor),
                     "top_cpus": top, "why_top": why})
    return pd.DataFrame(rows, columns=["figure_id", "caption", "printed", "factor", "top_cpus",
                                       "why_top"])


def _ids(text: object) -> list[str]:
    """The inventory IDs of a ``figure_id`` cell ("IP-F2,IP-F3" -> two IDs; empty -> none)."""
    return [part.strip() for part in str(text or "").split(",") if part.strip()]


def recomputed_speedups(reading: str = PRIMARY_READING) -> pd.DataFrame:
    """The speedup each figure's stated factor implies, under ``reading``, at the CPU counts the
    study ran that the text lets the factor speak for (see :func:`figure_factors`).

    One row per (figure, CPU count) with columns ``figure_id``, ``caption``, ``printed``,
    ``factor``, ``cpus``, ``speedup``, ``reading``. These are recomputed from one number per
    figure under the chosen reading of the undefined "scaling factor", not data read off the
    figures.
    """
    reading = _reading(reading)
    values = data.load(DOC, "stated_values")
    studied = sorted(int(v) for v in
                     values.loc[values["quantity"] == "cpu_count_studied", "value"])
    rows = []
    for fig in figure_factors().itertuples():
        for n in studied:
            if n <= fig.top_cpus:
                rows.append({"figure_id": fig.figure_id, "caption": fig.caption,
                             "printed": fig.printed, "factor": fig.factor, "cpus": n,
                             "speedup": implied_speedup(fig.factor, n, reading),
                             "reading": reading})
    return pd.DataFrame(rows, columns=["figure_id", "caption", "printed", "factor", "cpus",
                                       "speedup", "reading"])
