"""Comparing fitted models: information criteria and leave-one-out prediction error.

* AIC = 2k - 2 log L and AICc = AIC + 2k(k + 1) / (n - k - 1), with the Gaussian
  log-likelihood of each fit's residuals on its fitting scale (one maximum-likelihood variance
  per measured quantity, counted in k). They compare fits **to the same observations on the
  same scale** only; :func:`compare` refuses anything else.
* Leave-one-out: each configuration (cell) in turn is left out, the model refitted to the
  rest, and the left-out measurements predicted; the error is ``observed - predicted`` on the
  fitting scale (a relative error on the log scale).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._core import Fit

__all__ = ["compare", "leave_one_out", "loo_summary"]


def leave_one_out(fit: Fit) -> pd.DataFrame:
    """One row per observation: ``cell``, ``quantity``, ``observed``, ``predicted`` (by the
    model refitted without that cell) and ``error`` (observed - predicted, fitting scale).

    Costs one refit per cell (without intervals)."""
    if not isinstance(fit, Fit):
        raise ValueError(f"fit must be a queuetune.fit fit, got {fit!r}")
    if fit._train_and_predict is None:
        raise ValueError("this fit cannot be refitted (it was not made by a queuetune.fit "
                         "fitter)")
    cells = np.unique(np.concatenate(list(fit.cells.values())))
    if cells.size < 3:
        raise ValueError(f"leave-one-out needs at least 3 cells, the fit has {cells.size}")
    rows = []
    for c in cells:
        mask = cells != c
        with warnings.catch_warnings():
            # a refit on fewer cells may explain less than a constant; the full fit said so
            warnings.filterwarnings("ignore", "the .* fit explains less than a constant",
                                    UserWarning)
            pred = fit._train_and_predict(mask)
        for g, obs in fit.observed.items():
            where = fit.cells[g] == c
            if not where.any():
                continue
            o = float(obs[where][0])
            p = float(np.asarray(pred[g])[0])
            err = math.log(o) - math.log(p) if fit.scale == "log" else o - p
            rows.append({"cell": int(c), "quantity": g, "observed": o, "predicted": p,
                         "error": err})
    return pd.DataFrame(rows)


def loo_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Root-mean-square and largest absolute leave-one-out error per quantity."""
    return table.groupby("quantity", sort=False)["error"].agg(
        loo_rmse=lambda e: float(np.sqrt(np.mean(np.square(e)))),
        loo_max=lambda e: float(np.max(np.abs(e)))).reset_index()


def compare(fits: Mapping[str, Fit], *, loo: bool = False) -> pd.DataFrame:
    """Information criteria of several fits to the same observations, best AICc first.

    Columns: ``model`` (the mapping's key), ``n``, ``k``, ``loglik``, ``aic``, ``aicc``,
    ``basis`` (``"aicc"``, or ``"aic"`` where AICc is undefined for some fit because
    n - k - 1 <= 0), ``delta_aicc`` or ``delta_aic`` (from the smallest), ``weight`` (Akaike
    weights exp(-delta / 2), normalised), and with ``loo=True`` the leave-one-out RMSE per
    quantity (``loo_rmse_<quantity>``).
    """
    if not isinstance(fits, Mapping) or len(fits) < 2:
        raise ValueError(f"fits must be a mapping of at least two labels to fits, got {fits!r}")
    for label, f in fits.items():
        if not isinstance(f, Fit):
            raise ValueError(f"fits must map labels to queuetune.fit fits; {label!r} is {f!r}")
        if not math.isfinite(f.loglik):
            raise ValueError(f"fits must leave residual scatter: {label!r} passes through every "
                             "observation, so its likelihood and AIC are unbounded")
    items = list(fits.items())
    _, first = items[0]
    for label, f in items[1:]:
        same = (f.scale == first.scale and list(f.observed) == list(first.observed)
                and all(np.array_equal(f.observed[g], first.observed[g]) for g in f.observed))
        if not same:
            raise ValueError(f"fit {label!r} is not to the same observations on the same scale "
                             f"as {items[0][0]!r}: information criteria cannot compare them")
    use_aicc = all(math.isfinite(f.aicc) for _, f in items)
    key = "aicc" if use_aicc else "aic"
    rows = [{"model": label, "n": f.n, "k": f.k, "loglik": f.loglik, "aic": f.aic,
             "aicc": f.aicc, "basis": key} for label, f in items]
    table = pd.DataFrame(rows)
    best = table[key].min()
    table[f"delta_{key}"] = table[key] - best
    w = np.exp(-0.5 * table[f"delta_{key}"].to_numpy())
    table["weight"] = w / w.sum()
    if loo:
        for label, f in items:
            summary = loo_summary(leave_one_out(f)).set_index("quantity")
            for g in f.observed:
                table.loc[table["model"] == label, f"loo_rmse_{g}"] = summary.loc[g, "loo_rmse"]
    return table.sort_values(key, kind="stable").reset_index(drop=True)
