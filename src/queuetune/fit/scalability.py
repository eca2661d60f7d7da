"""The Universal Scalability Law (Gunther) and Amdahl's law, fitted to speedups.

``C(p) = p / (1 + sigma (p - 1) + kappa p (p - 1))``: ``sigma`` is the contention (serial)
share, ``kappa`` the coherency cost; ``kappa = 0`` is Amdahl's law. With ``kappa > 0`` the
speedup peaks at ``p* = sqrt((1 - sigma) / kappa)`` CPUs and falls beyond.

Speedups are relative to one CPU, so ``C(1) = 1`` for every sigma and kappa: points at p = 1
carry no information and are left out of the fit (and out of ``n``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy import optimize, stats

from .._validation import MAX_INTEGER, as_flag, as_series, not_all_equal, real, same_length
from . import _inputs
from ._core import Fit, Parameter, Problem, fit_problem

__all__ = ["USL_PARAMETERS", "COEFFICIENT_MAX", "USLFit", "usl", "usl_peak", "fit_usl",
           "fit_amdahl"]

#: sigma and kappa with their default search bounds (both fitted on a linear scale from 0).
USL_PARAMETERS = (
    Parameter("sigma", 0.0, 1.0, log=False),
    Parameter("kappa", 0.0, 1.0, log=False),
)


#: Largest sigma and kappa accepted by :func:`usl` and :func:`usl_peak` (the model stays finite
#: for every CPU count up to 2**53).
COEFFICIENT_MAX = 1e100


def usl(cpus: Any, sigma: float, kappa: float = 0.0) -> np.ndarray:
    """``C(p) = p / (1 + sigma (p - 1) + kappa p (p - 1))`` at each p in ``cpus`` (numbers
    from 1 to 2**53, sigma and kappa in [0, COEFFICIENT_MAX])."""
    n = as_series(cpus, "cpus", low=1, low_open=False, high=MAX_INTEGER)
    sigma = real(sigma, "sigma", low=0.0, high=COEFFICIENT_MAX)
    kappa = real(kappa, "kappa", low=0.0, high=COEFFICIENT_MAX)
    return n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def usl_peak(sigma: float, kappa: float) -> float:
    """``p* = sqrt((1 - sigma) / kappa)``, the CPU count of the largest speedup (``inf`` when
    kappa = 0; 1 when sigma >= 1); sigma and kappa in [0, COEFFICIENT_MAX]."""
    sigma = real(sigma, "sigma", low=0.0, high=COEFFICIENT_MAX)
    kappa = real(kappa, "kappa", low=0.0, high=COEFFICIENT_MAX)
    if kappa <= 0:
        return math.inf
    return math.sqrt(max(1 - sigma, 0.0) / kappa) if sigma < 1 else 1.0


class USLFit(Fit):
    """Result of :func:`fit_usl` / :func:`fit_amdahl` with ``sigma``, ``kappa``, the peak
    ``peak_cpus`` (its interval in ``intervals["peak_cpus"]``) and :meth:`predict`."""

    sigma = property(lambda self: self.estimates["sigma"])
    kappa = property(lambda self: self.estimates["kappa"])
    peak_cpus = property(lambda self: self.estimates["peak_cpus"])

    @property
    def peak_speedup(self) -> float:
        """The speedup at ``peak_cpus`` (``inf`` without a peak)."""
        n = self.peak_cpus
        return math.inf if math.isinf(n) else float(usl([n], self.sigma, self.kappa)[0])

    def predict(self, cpus: Any) -> np.ndarray:
        """The fitted speedup at each CPU count."""
        return usl(cpus, self.sigma, self.kappa)


def _peak_profile(problem: Problem, fit: Fit, confidence: float) -> tuple[float, float, bool]:
    """Profile-likelihood interval of p* = sqrt((1 - sigma) / kappa): for each candidate p*,
    the best sigma with kappa = (1 - sigma) / p*^2; the same F threshold as the parameters."""
    q = stats.f.ppf(confidence, 1, fit.dof)
    n_obs = problem.observed["speedup"]
    cpus = problem.predict({"sigma": 0.0, "kappa": 0.0}, problem.cell_ids)["speedup"]
    weight = fit.noise["speedup"]
    target = problem.transform(n_obs)

    def wrss(s: float, k: float) -> float:
        r = (target - problem.transform(cpus / (1 + s * (cpus - 1) + k * cpus * (cpus - 1))))
        return float(np.sum((r / weight) ** 2))

    wrss_min = wrss(fit.estimates["sigma"], fit.estimates["kappa"])
    s2 = wrss_min / fit.dof

    def delta(log_peak: float) -> float:
        peak2 = math.exp(2 * log_peak)
        res = optimize.minimize_scalar(lambda s: wrss(s, (1 - s) / peak2), bounds=(0.0, 1.0),
                                       method="bounded", options={"xatol": 1e-10})
        return (min(res.fun, wrss(1.0, 0.0)) - wrss_min) / s2

    reach = math.log(1e6)
    peak = fit.estimates["peak_cpus"]
    centre = math.log(peak) if math.isfinite(peak) else math.log(1e6 * float(cpus.max()))

    def side(sign: int) -> tuple[float, bool]:
        # downwards as far as p* = 1 (log 0), upwards a factor 1e6 past the estimate
        end = 0.0 if sign < 0 else centre + reach
        previous, step = centre, 0.05
        for i in range(60):
            v = centre + sign * step * 2.0 ** i
            if (v - end) * sign >= 0:
                v = end
            if delta(v) > q:
                root = optimize.brentq(lambda t: delta(t) - q, previous, v, xtol=1e-6)
                return math.exp(root), False
            if v == end:
                break
            previous = v
        return (math.inf if sign > 0 else 1.0), True

    low, low_open = side(-1)
    if math.isfinite(peak):
        high, high_open = side(+1)
    else:
        high, high_open = math.inf, True
    return low, high, low_open or high_open


def fit_usl(cpus: Any, speedup: Any, *, amdahl: bool = False, scale: str = "log",
            bounds: Mapping[str, tuple[float, float]] | None = None, intervals: str = "profile",
            confidence: float = 0.95, n_boot: int = 200, seed: int = 0) -> USLFit:
    """Fit the Universal Scalability Law to speedups over one CPU by bounded least squares.

    Parameters
    ----------
    cpus : sequence of int
        p >= 1 of each speedup; points at p = 1 are left out (C(1) = 1 whatever the model).
    speedup : sequence of float
        C(p) > 0, the speedup over one CPU.
    amdahl : bool
        Hold kappa at 0 (Amdahl's law); :func:`fit_amdahl` is the same.
    scale : {"log", "absolute"}
        Residuals ``log C - log fitted`` (default) or differences.
    bounds : mapping, optional
        ``name -> (low, high)`` for sigma and kappa (default 0 to 1 each).
    intervals : {"profile", "bootstrap", "none"}
        Profile likelihood (default; the F(1, n - k) threshold, k the fitted parameters, as in
        :func:`fit_mm1bk`) or a residual bootstrap with the fixed ``seed``. The peak p* gets
        an interval by the same method (profiling p* directly, kappa = (1 - sigma) / p*^2; or
        from the bootstrap refits); its upper end is ``inf`` when a kappa of 0 fits within the
        interval.

    Returns
    -------
    USLFit
        ``sigma``, ``kappa``, ``peak_cpus`` (``inf`` when kappa = 0), their ``intervals``,
        ``residuals``, :meth:`USLFit.predict`, goodness of fit, ``warnings`` and
        ``identifiability``.
    """
    intervals, scale, confidence, n_boot, seed = _inputs.interval_args(
        intervals, scale, confidence, n_boot, seed)
    amdahl = as_flag(amdahl, "amdahl")
    n = _inputs.counts(cpus, "cpus").astype(np.float64)
    s = as_series(speedup, "speedup")
    same_length("cpus", {"cpus": n, "speedup": s})
    keep = n > 1
    n, s = n[keep], s[keep]
    if n.size == 0:
        raise ValueError("cpus must hold CPU counts above 1 (C(1) = 1 carries no information)")
    not_all_equal(n, "cpus (above 1)", "one CPU count cannot separate sigma and kappa"
                  if not amdahl else "at least two CPU counts are needed")
    free = ("sigma",) if amdahl else ("sigma", "kappa")
    _inputs.enough_observations(n.size, free)
    parameters = _inputs.with_bounds(USL_PARAMETERS, bounds,
                                     {"sigma": (0.0, 1.0, False), "kappa": (0.0, 1.0, False)})
    fixed = {"kappa": 0.0} if amdahl else {}

    def predict(values, ids):
        m = n[ids]
        return {"speedup": m / (1 + values["sigma"] * (m - 1)
                                + values["kappa"] * m * (m - 1))}

    problem = Problem(parameters, free, fixed, {"speedup": s}, {"speedup": np.arange(n.size)},
                      predict, scale)
    # starts: the Amdahl sigma of each point, and a few kappas
    with np.errstate(divide="ignore", invalid="ignore"):
        sig0 = float(np.clip(np.nanmedian((n / s - 1) / (n - 1)), 0.0, 0.99))
    starts = [np.array([sig0] + ([] if amdahl else [k])) for k in (0.0, 1e-3, 1e-2)]
    if amdahl:
        starts = starts[:1]

    def train_and_predict(mask: np.ndarray) -> dict[str, np.ndarray]:
        sub = fit_usl(n[mask], s[mask], amdahl=amdahl, scale=scale, bounds=bounds,
                      intervals="none")
        return {"speedup": sub.predict(n[~mask])}

    fit = fit_problem(problem, starts, model="Amdahl" if amdahl else "USL",
                      intervals=intervals, confidence=confidence, n_boot=n_boot, seed=seed,
                      fit_class=USLFit, train_and_predict=train_and_predict)
    fit.estimates["peak_cpus"] = usl_peak(fit.estimates["sigma"], fit.estimates["kappa"])
    fit.units["peak_cpus"] = "CPUs"
    if amdahl:
        fit.intervals["kappa"] = (0.0, 0.0)
        fit.intervals["peak_cpus"] = (math.inf, math.inf)
        return fit
    formed = all(np.isfinite(v) for v in fit.intervals.get("sigma", (np.nan,)))
    if formed and intervals == "profile":
        low, high, _ = _peak_profile(problem, fit, confidence)
        fit.intervals["peak_cpus"] = (low, high)
    elif formed and intervals == "bootstrap":
        boot = fit.details["bootstrap"]
        peaks = np.array([usl_peak(a, b) for a, b in zip(boot["sigma"], boot["kappa"],
                                                         strict=True)])
        alpha = 1 - confidence
        fit.intervals["peak_cpus"] = tuple(float(v) for v in np.quantile(
            peaks, [alpha / 2, 1 - alpha / 2], method="nearest"))
    else:
        fit.intervals["peak_cpus"] = (math.nan, math.nan)
    return fit


def fit_amdahl(cpus: Any, speedup: Any, **kwargs: Any) -> USLFit:
    """Amdahl's law ``C(p) = p / (1 + sigma (p - 1))``: :func:`fit_usl` with kappa = 0."""
    return fit_usl(cpus, speedup, amdahl=True, **kwargs)
