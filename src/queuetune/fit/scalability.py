"""The Universal Scalability Law (Gunther) and Amdahl's law, fitted to speedups.

``C(p) = p / (1 + sigma (p - 1) + kappa p (p - 1))``: ``sigma`` is the contention (serial)
share, ``kappa`` the coherency cost; ``kappa = 0`` is Amdahl's law. With ``kappa > 0`` the
speedup peaks at ``p* = sqrt((1 - sigma) / kappa)`` CPUs and falls beyond.

Speedups are relative to one CPU, so ``C(1) = 1`` for every sigma and kappa: points at p = 1
carry no information and are left out of the fit (and out of ``n``). Throughputs ``X(p)`` are
fitted as ``X(p) = lambda C(p)``, with ``lambda`` (the throughput of one processor) given or
fitted with sigma and kappa (then every point counts, p = 1 too).

A speedup above p (super-linear, ``sigma < 0``) is refused unless ``allow_superlinear=True``:
it usually means a cache or a warm-up, not the law's contention and coherency.
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


def usl(*, cpus: Any, sigma: float, kappa: float = 0.0) -> np.ndarray:
    """``C(p) = p / (1 + sigma (p - 1) + kappa p (p - 1))`` at each p in ``cpus`` (numbers
    > 0 up to 2**53, not necessarily whole: a measured mean concurrency; sigma in
    [-1, COEFFICIENT_MAX] and kappa in [0, COEFFICIENT_MAX]; a negative sigma, a super-linear
    speedup, must keep the denominator > 0 at every p)."""
    n = as_series(cpus, "cpus", low=0.0, low_open=True, high=MAX_INTEGER)
    sigma = real(sigma, "sigma", low=-1.0, high=COEFFICIENT_MAX)
    kappa = real(kappa, "kappa", low=0.0, high=COEFFICIENT_MAX)
    denominator = 1 + sigma * (n - 1) + kappa * n * (n - 1)
    if np.any(denominator <= 0):
        raise ValueError(f"sigma must keep 1 + sigma (p - 1) + kappa p (p - 1) > 0 at every "
                         f"p of cpus, got sigma={sigma!r} with p up to {float(n.max()):g}")
    return n / denominator


def usl_peak(sigma: float, kappa: float) -> float:
    """``p* = sqrt((1 - sigma) / kappa)``, the CPU count of the largest speedup (``inf`` when
    kappa = 0; 1 when sigma >= 1); sigma in [-1, COEFFICIENT_MAX] (negative: super-linear),
    kappa in [0, COEFFICIENT_MAX]."""
    sigma = real(sigma, "sigma", low=-1.0, high=COEFFICIENT_MAX)
    kappa = real(kappa, "kappa", low=0.0, high=COEFFICIENT_MAX)
    if kappa <= 0:
        return math.inf
    return math.sqrt(max(1 - sigma, 0.0) / kappa) if sigma < 1 else 1.0


class USLFit(Fit):
    """Result of :func:`fit_usl` / :func:`fit_amdahl` with ``sigma``, ``kappa``, the peak
    ``peak_cpus`` (its interval in ``intervals["peak_cpus"]``) and :meth:`predict`."""

    sigma = property(lambda self: self.estimates["sigma"])
    kappa = property(lambda self: self.estimates["kappa"])
    #: The throughput of one processor (fitted or given; None for speedups).
    throughput_at_one = property(lambda self: self.estimates.get("throughput_at_one"))
    peak_cpus = property(lambda self: self.estimates["peak_cpus"])

    @property
    def peak_speedup(self) -> float:
        """The speedup at ``peak_cpus`` (``inf`` without a peak)."""
        n = self.peak_cpus
        if math.isinf(n):
            return math.inf
        return float(usl(cpus=[n], sigma=self.sigma, kappa=self.kappa)[0])

    def predict(self, *, cpus: Any) -> np.ndarray:
        """The fitted speedup at each CPU count."""
        return usl(cpus=cpus, sigma=self.sigma, kappa=self.kappa)

    def predict_throughput(self, *, cpus: Any) -> np.ndarray:
        """The fitted throughput ``lambda C(p)`` at each CPU count (fits of throughputs)."""
        if self.throughput_at_one is None:
            raise ValueError("predict_throughput needs a fit of throughputs (this one fitted "
                             "speedups): use predict")
        return self.throughput_at_one * self.predict(cpus=cpus)


def _peak_profile(problem: Problem, fit: Fit, confidence: float) -> tuple[float, float, bool]:
    """Profile-likelihood interval of p* = sqrt((1 - sigma) / kappa): for each candidate p*,
    the best sigma with kappa = (1 - sigma) / p*^2; the same F threshold as the parameters."""
    q = stats.f.ppf(confidence, 1, fit.dof)
    group = problem.groups[0]
    n_obs = problem.observed[group]
    cpus = problem.predict({"sigma": 0.0, "kappa": 0.0, "throughput_at_one": 1.0},
                           problem.cell_ids)[group]
    weight = fit.noise[group]
    target = problem.transform(n_obs)
    scaled = "throughput_at_one" in problem.free
    low_sigma = problem.by_name["sigma"].low

    def wrss(s: float, k: float) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            curve = cpus / (1 + s * (cpus - 1) + k * cpus * (cpus - 1))
        if not np.all(curve > 0):
            return math.inf
        if scaled:  # the best lambda in closed form: a mean of logs, or least squares
            level = (math.exp(float(np.mean(target - np.log(curve)))) if problem.scale == "log"
                     else float(curve @ n_obs) / float(curve @ curve))
            curve = level * curve
        r = target - problem.transform(curve)
        return float(np.sum((r / weight) ** 2))

    wrss_min = wrss(fit.estimates["sigma"], fit.estimates["kappa"])
    s2 = wrss_min / fit.dof

    def delta(log_peak: float) -> float:
        peak2 = math.exp(2 * log_peak)
        res = optimize.minimize_scalar(lambda s: wrss(s, (1 - s) / peak2),
                                       bounds=(low_sigma, 1.0), method="bounded",
                                       options={"xatol": 1e-10})
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


def fit_usl(*, cpus: Any, speedup: Any = None, throughput: Any = None,
            throughput_at_one: float | None = None, allow_superlinear: bool = False,
            amdahl: bool = False, scale: str = "log",
            bounds: Mapping[str, tuple[float, float]] | None = None, intervals: str = "profile",
            confidence: float = 0.95, n_boot: int = 200, seed: int = 0) -> USLFit:
    """Fit the Universal Scalability Law to speedups, or throughputs, by bounded least squares.

    Every argument is keyword-only.

    Parameters
    ----------
    cpus : sequence of float
        p > 0 of each measurement: processors, clients, or a measured mean concurrency (not
        necessarily whole, the law is a function of a real p). With speedups, points at
        p <= 1 are left out (C(1) = 1 whatever the model).
    speedup : sequence of float, optional
        C(p) > 0, the speedup over one CPU.
    throughput : sequence of float, optional
        X(p) > 0 instead of speedups, fitted as ``lambda C(p)``.
    throughput_at_one : float, optional
        lambda > 0, the throughput of one processor: with ``throughput``, the speedups are
        ``throughput / throughput_at_one``; when it is not given, lambda is fitted with sigma
        and kappa (``estimates["throughput_at_one"]``, with its interval).
    allow_superlinear : bool
        A speedup above p (with throughputs and a fitted lambda: a throughput per processor
        that grows above that of the fewest processors) is refused unless this is True; then
        sigma may be negative (down to the value where the law's denominator reaches 0 at the
        largest p measured).
    amdahl : bool
        Hold kappa at 0 (Amdahl's law); :func:`fit_amdahl` is the same.
    scale : {"log", "absolute"}
        Residuals ``log C - log fitted`` (default) or differences.
    bounds : mapping, optional
        ``name -> (low, high)`` for sigma and kappa (default 0 to 1 each) and
        ``throughput_at_one``.
    intervals : {"profile", "bootstrap", "none"}
        Profile likelihood (default; the F(1, n - k) threshold, k the fitted parameters, as in
        :func:`fit_mm1bk`) or a residual bootstrap with the fixed ``seed``. The peak p* gets
        an interval by the same method (profiling p* directly, kappa = (1 - sigma) / p*^2, and
        lambda at its best for each; or from the bootstrap refits); its upper end is ``inf``
        when a kappa of 0 fits within the interval.

    Returns
    -------
    USLFit
        ``sigma``, ``kappa``, ``peak_cpus`` (``inf`` when kappa = 0), ``throughput_at_one``
        (None for speedups), their ``intervals``, ``residuals``, :meth:`USLFit.predict`,
        goodness of fit, ``warnings`` and ``identifiability``.
    """
    fit = _fit_usl(cpus=cpus, speedup=speedup, throughput=throughput,
                   throughput_at_one=throughput_at_one, allow_superlinear=allow_superlinear,
                   amdahl=amdahl, scale=scale, bounds=bounds, intervals=intervals,
                   confidence=confidence, n_boot=n_boot, seed=seed)
    if not fit.details["allow_superlinear"]:
        _refuse_superlinear(fit, cpus=cpus, speedup=speedup, throughput=throughput,
                            throughput_at_one=throughput_at_one, amdahl=amdahl, scale=scale,
                            bounds=bounds, confidence=fit.confidence)
    return fit


def _refuse_superlinear(fit: USLFit, *, confidence: float, **data: Any) -> None:
    """Refuse the fit when the data are significantly super-linear: a fit that lets sigma go
    below 0 lands there and lowers the residual sum of squares by more than the F(1, n - k)
    test at ``confidence`` allows (noise that puts one speedup a little above p passes)."""
    free = fit.free
    if fit.estimates["sigma"] > 0 or fit.dof <= 0:
        return
    probe = _fit_usl(**data, allow_superlinear=True, intervals="none")
    if probe.estimates["sigma"] >= 0:
        return
    rss, rss_free = float(fit.residuals @ fit.residuals), float(
        probe.residuals @ probe.residuals)
    dof = fit.n - len(free)
    if dof <= 0 or rss_free <= 0 or (rss - rss_free) / (rss_free / dof) > stats.f.ppf(
            confidence, 1, dof):
        raise ValueError(
            f"the measurements must not be super-linear: a fit with sigma < 0 (sigma = "
            f"{probe.estimates['sigma']:.3g}) explains them significantly better than any "
            "sigma >= 0 (speedups above the processor count). The law describes contention "
            "and coherency, not caches or warm-up: pass allow_superlinear=True to fit a "
            "negative sigma anyway")


def _fit_usl(*, cpus: Any, speedup: Any = None, throughput: Any = None,
            throughput_at_one: float | None = None, allow_superlinear: bool = False,
            amdahl: bool = False, scale: str = "log",
            bounds: Mapping[str, tuple[float, float]] | None = None, intervals: str = "profile",
            confidence: float = 0.95, n_boot: int = 200, seed: int = 0) -> USLFit:
    """:func:`fit_usl` without the super-linearity check."""
    intervals, scale, confidence, n_boot, seed = _inputs.interval_args(
        intervals, scale, confidence, n_boot, seed)
    amdahl = as_flag(amdahl, "amdahl")
    allow_superlinear = as_flag(allow_superlinear, "allow_superlinear")
    n = _inputs.concurrency(cpus, "cpus", positive=True)
    group, s, scaled = _usl_series(n, speedup, throughput, throughput_at_one)
    if not scaled:
        keep = n > 1
        n, s = n[keep], s[keep]
        if n.size == 0:
            raise ValueError("cpus must hold CPU counts above 1 (C(1) = 1 carries no "
                             "information)")
    not_all_equal(n, "cpus" + ("" if scaled else " (above 1)"),
                  "one CPU count cannot separate sigma and kappa" if not amdahl
                  else "at least two CPU counts are needed")
    free = ("sigma",) if amdahl else ("sigma", "kappa")
    if scaled:
        free = free + ("throughput_at_one",)
    _inputs.enough_observations(n.size, free)
    sigma_low = -(1 - 1e-9) / (float(n.max()) - 1) if allow_superlinear else 0.0
    catalogue = (Parameter("sigma", sigma_low, 1.0, log=False), USL_PARAMETERS[1],
                 Parameter("throughput_at_one", 1e-12, 1e15, unit="1/s"))
    domain = {"sigma": (sigma_low, 1.0, False), "kappa": (0.0, 1.0, False),
              "throughput_at_one": (1e-300, 1e300, False)}
    parameters = _inputs.with_bounds(catalogue[:3 if scaled else 2], bounds, domain)
    fixed = {"kappa": 0.0} if amdahl else {}

    def predict(values, ids):
        m = n[ids]
        curve = m / (1 + values["sigma"] * (m - 1) + values["kappa"] * m * (m - 1))
        return {group: values.get("throughput_at_one", 1.0) * curve}

    problem = Problem(parameters, free, fixed, {group: s}, {group: np.arange(n.size)},
                      predict, scale)
    starts = _usl_starts(n, s, scaled, amdahl, parameters)

    def train_and_predict(mask: np.ndarray) -> dict[str, np.ndarray]:
        data = {"speedup": s[mask]} if not scaled else {"throughput": s[mask]}
        sub = _fit_usl(cpus=n[mask], **data, allow_superlinear=allow_superlinear,
                      amdahl=amdahl, scale=scale, bounds=bounds, intervals="none")
        level = sub.throughput_at_one if scaled else 1.0
        return {group: level * sub.predict(cpus=n[~mask])}

    fit = fit_problem(problem, starts, model="Amdahl" if amdahl else "USL",
                      intervals=intervals, confidence=confidence, n_boot=n_boot, seed=seed,
                      fit_class=USLFit, train_and_predict=train_and_predict)
    if throughput is not None and throughput_at_one is not None:
        fit.estimates["throughput_at_one"] = float(throughput_at_one)
    fit.estimates["peak_cpus"] = usl_peak(fit.estimates["sigma"], fit.estimates["kappa"])
    fit.units["peak_cpus"] = "CPUs"
    fit.details["allow_superlinear"] = allow_superlinear
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


def _usl_series(n, speedup, throughput, throughput_at_one):
    """(the fitted group, its values, whether lambda is fitted) from the measurements."""
    if (speedup is None) == (throughput is None):
        raise ValueError("give speedup or throughput (one of them) with cpus")
    if speedup is not None:
        if throughput_at_one is not None:
            raise ValueError("throughput_at_one must be None with speedup (it scales "
                             "throughputs)")
        s = as_series(speedup, "speedup")
        same_length("cpus", {"cpus": n, "speedup": s})
        return "speedup", s, False
    x = as_series(throughput, "throughput")
    same_length("cpus", {"cpus": n, "throughput": x})
    if throughput_at_one is None:
        return "throughput", x, True
    level = real(throughput_at_one, "throughput_at_one", low=0.0, low_open=True,
                 high=COEFFICIENT_MAX)
    return "speedup", x / level, False


def _usl_starts(n, s, scaled: bool, amdahl: bool, parameters) -> list[np.ndarray]:
    """The Amdahl sigma of each point (relative to the throughput at the fewest CPUs when
    lambda is fitted), and a few kappas."""
    by = {p.name: p for p in parameters}
    level = float(np.median(s[n == n.min()]) / n.min()) if scaled else 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        sig = (n / (s / level) - 1) / (n - 1)
        sig0 = float(np.clip(np.nanmedian(sig[n > 1]), by["sigma"].low, 0.99))
    starts = []
    for k in (0.0,) if amdahl else (0.0, 1e-3, 1e-2):
        x = [sig0] + ([] if amdahl else [k])
        if scaled:
            lam = min(max(level, by["throughput_at_one"].low), by["throughput_at_one"].high)
            x.append(by["throughput_at_one"].inner(lam))
        starts.append(np.array(x))
    return starts


def fit_amdahl(*, cpus: Any, speedup: Any, **kwargs: Any) -> USLFit:
    """Amdahl's law ``C(p) = p / (1 + sigma (p - 1))``: :func:`fit_usl` with kappa = 0."""
    return fit_usl(cpus=cpus, speedup=speedup, amdahl=True, **kwargs)
