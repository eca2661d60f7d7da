"""The helpers of the fitting chapter: fitted parameters, noise levels and stored fits as text.

A fit (:class:`queuetune.fit.Fit`) carries ``estimates``, ``intervals`` and ``noise``; a stored
fit is a table with one row per case and parameter (``case``, ``parameter``, ``estimate``,
``low``, ``high``, ``low_open``), as ``scripts/fit_domino_models.py`` writes it.

>>> parameter_text({"estimate": 0.5, "low": 0.41, "high": 0.6, "low_open": False})
'0.5 (0.41 to 0.6)'
>>> parameter_text({"estimate": 1e-5, "low": 1e-5, "high": 0.13, "low_open": True})
'≈0 (up to 0.13)'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .text import significant, with_interval

__all__ = ["interval_of", "fitted_text", "fit_triple", "noise_text", "parameter_text",
           "StoredFits", "coverage_share", "share_range"]

#: An estimate within this relative distance of the lower end of an interval open below sits
#: at the parameter's lower limit.
AT_LIMIT = 1e-3


def _check_parameter(fit: Any, name: str) -> None:
    if name not in fit.estimates:
        raise ValueError(f"name must be one of {sorted(fit.estimates)}, got {name!r}")
    if name not in fit.intervals:
        raise ValueError(f"parameter {name!r} has no interval in this fit")


def interval_of(fit: Any, name: str, digits: int = 3) -> str:
    """A fitted parameter with its interval, "estimate (low to high)", to ``digits``
    significant figures."""
    _check_parameter(fit, name)
    return with_interval(fit.estimates[name], *fit.intervals[name], digits)


def fitted_text(fit: Any, name: str) -> str:
    """Like :func:`interval_of`; a fit with no interval (an exact fit, no residual degrees of
    freedom) is said to be one."""
    _check_parameter(fit, name)
    low, high = fit.intervals[name]
    value = fit.estimates[name]
    if any(math.isnan(v) for v in (low, high)):
        return f"{significant(value)} (no interval: exact fit)"
    return with_interval(value, low, high)


def fit_triple(fit: Any, name: str) -> tuple[float, float, float]:
    """(estimate, low, high) of one fitted parameter."""
    _check_parameter(fit, name)
    return (fit.estimates[name], *fit.intervals[name])


def noise_text(fit: Any, quantity: str) -> str:
    """The fit's noise level for ``quantity`` (a residual standard deviation on the log scale)
    in percent, or "—" when the quantity was not fitted."""
    return f"{100 * fit.noise[quantity]:.1f} %" if quantity in fit.noise else "—"


def parameter_text(row: Mapping[str, Any]) -> str:
    """One stored parameter as text. An interval open below runs to the parameter's lower
    limit: zero (or, for a time, the small value where the search stops) fits as well, written
    "0", or "≈0" for an estimate at that limit, "(up to high)"."""
    if row["low_open"]:
        at_limit = row["estimate"] <= row["low"] * (1 + AT_LIMIT)
        value = "0" if row["estimate"] == 0 else (
            "≈0" if at_limit else significant(row["estimate"]))
        return f"{value} (up to {significant(row['high'])})"
    return with_interval(row["estimate"], row["low"], row["high"])


class StoredFits:
    """Stored fits (one row per ``case`` and ``parameter``) looked up by case and parameter."""

    COLUMNS = ("case", "parameter", "estimate", "low", "high")

    def __init__(self, table: pd.DataFrame) -> None:
        missing = sorted(set(self.COLUMNS) - set(table.columns))
        if missing:
            raise ValueError(f"table lacks column(s) {missing}; it has {list(table.columns)}")
        if table.duplicated(["case", "parameter"]).any():
            raise ValueError("table repeats a (case, parameter) pair")
        self.table = table

    def _rows(self, case: str) -> pd.DataFrame:
        rows = self.table[self.table["case"] == case]
        if rows.empty:
            raise ValueError(f"case must be one of {sorted(self.table['case'].unique())}, "
                             f"got {case!r}")
        return rows.set_index("parameter")

    def value(self, case: str, name: str, column: str = "estimate") -> float:
        """The estimate (or ``low``, ``high``) of parameter ``name`` in fit ``case``."""
        rows = self._rows(case)
        if name not in rows.index:
            raise ValueError(f"name must be one of {sorted(rows.index)}, got {name!r}")
        if column not in ("estimate", "low", "high"):
            raise ValueError(f"column must be 'estimate', 'low' or 'high', got {column!r}")
        return float(rows.loc[name, column])

    def triple(self, case: str, name: str) -> tuple[float, float, float]:
        """(estimate, low, high) of parameter ``name`` in fit ``case``."""
        return tuple(self.value(case, name, c) for c in ("estimate", "low", "high"))

    def interval(self, case: str, name: str, digits: int = 3) -> str:
        """"estimate (low to high)" of parameter ``name`` in fit ``case``."""
        return with_interval(*self.triple(case, name), digits)

    def estimates(self, case: str, names: tuple[str, ...] | None = None) -> dict[str, float]:
        """The estimates of fit ``case`` (of the parameters ``names``), by parameter."""
        rows = self._rows(case)
        return {p: self.value(case, p) for p in (names if names is not None else rows.index)}


def coverage_share(coverage: pd.DataFrame, label: str, design: str, intervals: str,
                   parameter: str) -> float:
    """The measured coverage of one interval in the coverage study (``results/coverage_study``):
    the share of seeds whose interval held the true value."""
    row = coverage[(coverage["label"] == label) & (coverage["design"] == design)
                   & (coverage["intervals"] == intervals) & (coverage["parameter"] == parameter)]
    if len(row) != 1:
        raise ValueError(f"the coverage study has {len(row)} rows for {label!r}, {design!r}, "
                         f"{intervals!r}, {parameter!r}; expected one")
    return float(row["coverage"].iloc[0])


def share_range(values: Sequence[float]) -> str:
    """``"91.5 to 93.0 %"``: the range of shares, in percent with one decimal."""
    values = list(values)
    if not values:
        raise ValueError("share_range needs at least one value")
    return f"{100 * min(values):.1f} to {100 * max(values):.1f} %"
