"""The engine behind every fitter of :mod:`queuetune.fit`: bounded least squares
(:func:`scipy.optimize.least_squares`, trust-region reflective), one noise level per measured
quantity, profile-likelihood or bootstrap intervals, identifiability checks and information
criteria.

Notation: ``n`` observations in ``G`` groups (one group per measured quantity: response time,
throughput, utilization, speedup), ``p`` free parameters. The residual of an observation is
``observed - fitted`` on the fitting scale (``"log"``: ``log(observed) - log(fitted)``, a
relative error; ``"absolute"``: the difference in the observation's unit) divided by its
group's noise level ``sigma_g``. The noise levels are estimated from the residuals
(``sigma_g**2 = RSS_g / n_g``) and the fit repeated until they settle: at convergence this is
the Gaussian maximum-likelihood fit with one variance per group.
"""

from __future__ import annotations

import math
import warnings as _warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, stats

from .._validation import as_series, integer

__all__ = ["Parameter", "Problem", "Fit", "fit_problem", "SCALES", "INTERVALS"]

SCALES = ("log", "absolute")
INTERVALS = ("profile", "bootstrap", "none")
#: Two free parameters whose estimates correlate at least this much (in absolute value) are
#: reported as trading off against each other ...
CORRELATION_LIMIT = 0.99
#: ... and so are two that correlate at least this much when one of them is poorly determined
#: (a Wald standard error above :data:`POOR_SE` on the optimisation scale, a factor of about
#: 1.6 either way for a log parameter, or an interval the data do not close).
CORRELATION_WEAK_LIMIT = 0.9
POOR_SE = 0.5
#: A profile interval that has not closed once the parameter moved this far (a factor of
#: 10**6 for a log parameter) is reported as open on that side.
_PROFILE_REACH = math.log(1e6)
_TINY = 1e-300


@dataclass(frozen=True)
class Parameter:
    """A model parameter: its bounds and whether it is optimised on a log scale.

    ``log=True`` parameters must have ``low > 0``; parameters that may be 0 (overheads,
    sigma and kappa of the USL) are optimised as they are.
    """

    name: str
    low: float
    high: float
    log: bool = True
    unit: str = ""

    def __post_init__(self) -> None:
        if not (self.low < self.high) or (self.log and self.low <= 0):
            raise ValueError(f"{self.name}: bounds must satisfy 0 < low < high for a log "
                             f"parameter and low < high otherwise, got ({self.low}, {self.high})")

    def inner(self, value: float) -> float:
        return math.log(value) if self.log else float(value)

    def outer(self, x: float) -> float:
        return math.exp(x) if self.log else float(x)

    @property
    def inner_bounds(self) -> tuple[float, float]:
        return self.inner(self.low), self.inner(self.high)


@dataclass
class Problem:
    """What a fitter hands to :func:`fit_problem`.

    ``predict(values, cells)`` returns, for the parameter values (a dict holding every
    parameter, free and fixed) and an integer array of cell numbers, a dict ``group -> array``
    of fitted values aligned with ``observed[group]`` restricted to those cells. ``cells[group]``
    gives the cell (configuration) of each observation: the observations of one cell are left
    out together by :func:`queuetune.fit.leave_one_out`.
    """

    parameters: Sequence[Parameter]
    free: Sequence[str]
    fixed: Mapping[str, float]
    observed: Mapping[str, np.ndarray]
    cells: Mapping[str, np.ndarray]
    predict: Callable[[dict[str, float], np.ndarray], dict[str, np.ndarray]]
    scale: str = "log"
    tolerance: float = 1e-10
    max_evaluations: int = 2000
    #: Solve from the this many starts of smallest initial residual (None: from every one).
    starts_solved: int | None = None

    def __post_init__(self) -> None:
        self.by_name = {p.name: p for p in self.parameters}
        self.groups = tuple(self.observed)
        self.free = tuple(self.free)
        self.fixed = dict(self.fixed)
        all_cells = np.concatenate([np.asarray(self.cells[g]) for g in self.groups])
        self.cell_ids = np.unique(all_cells)
        self.n = int(sum(np.asarray(self.observed[g]).size for g in self.groups))

    @property
    def p(self) -> int:
        return len(self.free)

    def values(self, x: np.ndarray) -> dict[str, float]:
        out = dict(self.fixed)
        for name, xi in zip(self.free, x, strict=True):
            out[name] = self.by_name[name].outer(float(xi))
        return out

    def inner(self, values: Mapping[str, float]) -> np.ndarray:
        return np.array([self.by_name[n].inner(values[n]) for n in self.free])

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        pairs = [self.by_name[n].inner_bounds for n in self.free]
        return np.array([a for a, _ in pairs]), np.array([b for _, b in pairs])

    def transform(self, values: np.ndarray) -> np.ndarray:
        if self.scale == "log":
            return np.log(np.maximum(values, _TINY))
        return np.asarray(values, dtype=float)

    def untransform(self, values: np.ndarray) -> np.ndarray:
        return np.exp(values) if self.scale == "log" else values

    def fitted(self, values: Mapping[str, float]) -> dict[str, np.ndarray]:
        pred = self.predict(dict(values), self.cell_ids)
        return {g: np.asarray(pred[g], dtype=float) for g in self.groups}

    def raw_residuals(self, values: Mapping[str, float],
                      observed: Mapping[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        """``observed - fitted`` on the fitting scale, per group (not divided by sigma)."""
        observed = self.observed if observed is None else observed
        fit = self.fitted(values)
        return {g: self.transform(observed[g]) - self.transform(fit[g]) for g in self.groups}

    def subset(self, keep: np.ndarray) -> Problem:
        """The same problem on the observations of the cells in ``keep`` (cell numbers)."""
        keep = np.asarray(keep)
        observed, cells = {}, {}
        for g in self.groups:
            mask = np.isin(self.cells[g], keep)
            observed[g] = np.asarray(self.observed[g])[mask]
            cells[g] = np.asarray(self.cells[g])[mask]
        return Problem(self.parameters, self.free, self.fixed, observed, cells, self.predict,
                       self.scale, self.tolerance, self.max_evaluations,
                       self.starts_solved)


def _weighted(problem: Problem, sigma: Mapping[str, float],
              observed: Mapping[str, np.ndarray] | None = None):
    """``x -> weighted residual vector`` for the free parameters."""

    def fun(x: np.ndarray) -> np.ndarray:
        try:
            res = problem.raw_residuals(problem.values(x), observed)
        except (ValueError, FloatingPointError, ZeroDivisionError):
            return np.full(problem.n, 1e6)
        out = np.concatenate([res[g] / sigma[g] for g in problem.groups])
        return np.where(np.isfinite(out), out, 1e6)

    return fun


def _solve(fun: Callable, x0: np.ndarray, lb: np.ndarray, ub: np.ndarray, tol: float,
           max_nfev: int) -> optimize.OptimizeResult:
    # least_squares needs a start strictly inside the bounds
    span = ub - lb
    inside = np.clip(x0, lb + 1e-9 * span, ub - 1e-9 * span)
    return optimize.least_squares(fun, inside, bounds=(lb, ub), method="trf", x_scale="jac",
                                  ftol=tol, xtol=tol, gtol=tol, max_nfev=max_nfev)


def _group_sigma(problem: Problem, values: Mapping[str, float],
                 observed: Mapping[str, np.ndarray] | None = None) -> dict[str, float]:
    res = problem.raw_residuals(values, observed)
    obs = problem.observed if observed is None else observed
    out = {}
    for g in problem.groups:
        floor = 1e-12 * (1.0 if problem.scale == "log" else
                         max(float(np.mean(np.abs(obs[g]))), 1e-300))
        out[g] = max(math.sqrt(float(np.mean(res[g] ** 2))), floor)
    return out


def _estimate(problem: Problem, starts: Sequence[np.ndarray],
              observed: Mapping[str, np.ndarray] | None = None,
              sigma: Mapping[str, float] | None = None):
    """Best fit from several starts; noise levels re-estimated until they settle (at most 8
    rounds) unless ``sigma`` is given. Returns (x, sigma, least_squares result) with the
    result's residuals and Jacobian weighted by the returned sigma."""
    lb, ub = problem.bounds()
    fixed_sigma = sigma is not None
    sig = dict(sigma) if fixed_sigma else {g: 1.0 for g in problem.groups}
    best = None
    if problem.starts_solved is None or len(starts) <= problem.starts_solved:
        chosen = starts
    else:  # solve from the starts with the smallest initial residual only
        fun = _weighted(problem, sig, observed)
        cost = [float(np.sum(fun(np.asarray(x0, float)) ** 2)) for x0 in starts]
        chosen = [starts[i] for i in np.argsort(cost, kind="stable")[:problem.starts_solved]]
    for x0 in chosen:
        res = _solve(_weighted(problem, sig, observed), np.asarray(x0, float), lb, ub,
                     problem.tolerance, problem.max_evaluations)
        if best is None or res.cost < best.cost:
            best = res
    if fixed_sigma:
        return best.x, sig, best
    used = sig
    for _ in range(8):
        sig = _group_sigma(problem, problem.values(best.x), observed)
        exact = all(sig[g] <= 1e-9 * (1.0 if problem.scale == "log" else float(np.mean(
            np.abs((observed or problem.observed)[g])))) for g in problem.groups)
        if len(problem.groups) == 1 or exact or all(abs(sig[g] / used[g] - 1) < 1e-4
                                                    for g in problem.groups):
            break
        used = sig
        best = _solve(_weighted(problem, used, observed), best.x, lb, ub, problem.tolerance,
                      problem.max_evaluations)
    # residuals and Jacobian rows reweighted from the sigma of the last solve to the final one
    factor = np.concatenate([np.full(np.asarray((observed or problem.observed)[g]).size,
                                     used[g] / sig[g]) for g in problem.groups])
    best.fun = np.asarray(best.fun) * factor
    best.jac = np.asarray(best.jac) * factor[:, None]
    best.cost = 0.5 * float(best.fun @ best.fun)
    return best.x, sig, best


@dataclass(eq=False)
class Fit:
    """A fitted model.

    Attributes
    ----------
    model : str
        Which model was fitted.
    estimates : dict
        Every parameter of the model, fitted or fixed, by name.
    free, fixed
        Names of the fitted parameters; the values held fixed.
    intervals : dict
        ``name -> (low, high)`` at ``confidence`` for every fitted parameter (and derived
        quantities a fitter adds). ``nan`` where no interval can be formed (no residual degree
        of freedom, or an exact fit); a side that the data do not close is the parameter's
        bound (see ``open_sides``).
    interval_method : str
        ``"profile"``, ``"bootstrap"`` or ``"none"``.
    observed, fitted : dict
        Per measured quantity (group), the observations and the fitted values.
    scale : str
        ``"log"`` or ``"absolute"``: the scale of the residuals.
    residuals : ndarray
        ``observed - fitted`` on the fitting scale, all groups concatenated in group order.
    noise : dict
        The estimated noise level (residual standard deviation) of each measured quantity on
        the fitting scale.
    n, k, dof : int
        Observations, estimated quantities (free parameters plus one variance per group) and
        residual degrees of freedom ``n - p``.
    loglik, aic, aicc, bic : float
        Gaussian log-likelihood of the residuals on the fitting scale (each group with its
        maximum-likelihood variance) and the information criteria from it; ``aicc`` is ``nan``
        when ``n - k - 1 <= 0``. A fit that passes through every observation (a warning says
        so) has an unbounded likelihood: ``loglik`` is ``inf``, the criteria ``-inf``, and
        :func:`queuetune.fit.compare` refuses it.
    standard_errors : dict
        Jacobian-based (Wald) standard errors on the optimisation scale (log of the value for
        log parameters, so roughly a relative error).
    correlation : DataFrame
        Correlation of the free parameters' estimates from the Jacobian-based covariance.
    warnings : tuple of str
        Everything a reader of the estimates should know: parameters that trade off, estimates
        at a bound, intervals the data do not close, a model that could not be checked.
    identifiability : str
        One sentence: ``"all parameters identified"`` or which ones the data cannot separate.
    details : dict
        Fitter-specific extras (profiles, bootstrap replicates, checks against the exact model).
    """

    model: str
    estimates: dict[str, float]
    free: tuple[str, ...]
    fixed: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    interval_method: str
    confidence: float
    observed: dict[str, np.ndarray]
    fitted: dict[str, np.ndarray]
    cells: dict[str, np.ndarray]
    scale: str
    residuals: np.ndarray
    noise: dict[str, float]
    n: int
    k: int
    dof: int
    loglik: float
    aic: float
    aicc: float
    bic: float
    standard_errors: dict[str, float]
    correlation: pd.DataFrame
    warnings: tuple[str, ...]
    identifiability: str
    open_sides: dict[str, tuple[bool, bool]] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    #: ``train(mask) -> {group: predictions at the cells left out}``: refits on the cells where
    #: ``mask`` is True and predicts the others (used by :func:`queuetune.fit.leave_one_out`).
    _train_and_predict: Callable[[np.ndarray], dict[str, np.ndarray]] | None = field(
        default=None, repr=False)

    def summary(self) -> pd.DataFrame:
        """One row per parameter: estimate, interval, whether it was fitted, its unit."""
        rows = []
        for name, value in self.estimates.items():
            low, high = self.intervals.get(name, (math.nan, math.nan))
            rows.append({"parameter": name, "estimate": value, "low": low, "high": high,
                         "fitted": name in self.free or name in self.intervals,
                         "unit": self.units.get(name, "")})
        return pd.DataFrame(rows, columns=["parameter", "estimate", "low", "high", "fitted",
                                           "unit"])

    def table(self) -> pd.DataFrame:
        """One row per observation: ``cell``, ``quantity``, ``observed``, ``fitted`` and the
        ``residual`` on the fitting scale."""
        parts = []
        start = 0
        for g in self.observed:
            m = len(self.observed[g])
            parts.append(pd.DataFrame({
                "cell": self.cells[g], "quantity": g, "observed": self.observed[g],
                "fitted": self.fitted[g], "residual": self.residuals[start:start + m]}))
            start += m
        return pd.concat(parts, ignore_index=True)

    def goodness_of_fit(self) -> pd.DataFrame:
        """Per measured quantity: ``n``, the residual standard deviation on the fitting scale
        (``noise``), the root-mean-square error in the observation's unit, the largest
        relative error, and R² (1 - SS_res / SS_tot in the observation's unit)."""
        rows = []
        for g, obs in self.observed.items():
            fit = self.fitted[g]
            err = obs - fit
            total = float(np.sum((obs - obs.mean()) ** 2))
            rows.append({"quantity": g, "n": int(obs.size), "noise": self.noise[g],
                         "rmse": float(np.sqrt(np.mean(err ** 2))),
                         "max_relative_error": float(np.max(np.abs(err) / np.abs(obs))),
                         "r_squared": 1 - float(np.sum(err ** 2)) / total if total > 0
                         else math.nan})
        return pd.DataFrame(rows)

    def criteria(self) -> dict[str, float]:
        """``n``, ``k``, ``loglik``, ``aic``, ``aicc``, ``bic`` as a dict."""
        return {"n": self.n, "k": self.k, "loglik": self.loglik, "aic": self.aic,
                "aicc": self.aicc, "bic": self.bic}


def information_criteria(residuals: Mapping[str, np.ndarray], p: int) -> dict[str, float]:
    """Gaussian log-likelihood (one maximum-likelihood variance per group), AIC, AICc and BIC
    for ``p`` fitted parameters; ``k = p + number of groups``. ``residuals`` maps each group to
    its finite residuals; a group whose residuals are all 0 makes the likelihood unbounded
    (``loglik = inf``, the criteria ``-inf``)."""
    if not isinstance(residuals, Mapping) or not residuals:
        raise ValueError(f"residuals must be a mapping of groups to residuals, got "
                         f"{residuals!r}")
    residuals = {g: as_series(r, f"residuals[{g!r}]", low=-math.inf, low_open=False)
                 for g, r in residuals.items()}
    p = integer(p, "p", low=0)
    n = int(sum(np.asarray(r).size for r in residuals.values()))
    k = p + len(residuals)
    loglik = 0.0
    for r in residuals.values():
        r = np.asarray(r, dtype=float)
        rss = float(np.sum(r ** 2))
        if rss <= 0:
            loglik = math.inf
            break
        loglik += -0.5 * r.size * (math.log(2 * math.pi * rss / r.size) + 1)
    aic = 2 * k - 2 * loglik
    aicc = aic + 2 * k * (k + 1) / (n - k - 1) if n - k - 1 > 0 else math.nan
    bic = k * math.log(n) - 2 * loglik
    return {"n": n, "k": k, "loglik": loglik, "aic": aic, "aicc": aicc, "bic": bic}


def _covariance(jac: np.ndarray, s2: float) -> np.ndarray:
    jtj = jac.T @ jac
    return s2 * np.linalg.pinv(jtj, rcond=1e-13)


# --------------------------------------------------------------------------- the steps of a fit


@dataclass
class _Optimum:
    """The best fit and what every later step reads from it."""

    x: np.ndarray  # free parameters, optimisation scale (snapped to a bound within a hair)
    sigma: dict[str, float]  # noise level per group
    jac: np.ndarray  # weighted Jacobian at x
    values: dict[str, float]
    fitted: dict[str, np.ndarray]
    raw: dict[str, np.ndarray]  # observed - fitted, fitting scale
    dof: int  # n - p - extra_k
    wrss: float  # weighted residual sum of squares
    s2: float  # its mean square, wrss / dof
    exact: bool  # residuals at the level of rounding: no scatter to form intervals from
    at_bound: list[bool]
    result: optimize.OptimizeResult

    @property
    def interior(self) -> list[int]:
        return [i for i, bound in enumerate(self.at_bound) if not bound]


def _optimum(problem: Problem, starts: Sequence[np.ndarray], extra_k: int) -> _Optimum:
    """Fit from the best start; an estimate within a hair of a bound is reported at the bound
    (kappa = 0, not 1e-13)."""
    xhat, sigma, res = _estimate(problem, starts)
    lb, ub = problem.bounds()
    span = ub - lb
    xhat = np.where(xhat - lb <= 1e-9 * span, lb, np.where(ub - xhat <= 1e-9 * span, ub, xhat))
    values = problem.values(xhat)
    raw = problem.raw_residuals(values)
    dof = problem.n - problem.p - extra_k
    wrss = float(sum(np.sum((raw[g] / sigma[g]) ** 2) for g in problem.groups))
    exact = all(math.sqrt(float(np.mean(raw[g] ** 2))) <= 1e-9 * max(1.0, math.sqrt(float(
        np.mean(problem.transform(problem.observed[g]) ** 2)))) for g in problem.groups)
    at_bound = [bool(xhat[i] - lb[i] <= 1e-6 * span[i] or ub[i] - xhat[i] <= 1e-6 * span[i])
                for i in range(problem.p)]
    return _Optimum(x=xhat, sigma=sigma, jac=np.asarray(res.jac, dtype=float), values=values,
                    fitted=problem.fitted(values), raw=raw, dof=dof, wrss=wrss,
                    s2=wrss / dof if dof > 0 else math.nan, exact=exact, at_bound=at_bound,
                    result=res)


def _wald(problem: Problem, opt: _Optimum) -> tuple[dict[str, float], pd.DataFrame]:
    """Standard errors and correlation of the estimates inside their bounds, from the
    Jacobian-based covariance (those at a bound are held)."""
    names = list(problem.free)
    se = {name: math.nan for name in names}
    full = np.eye(problem.p)
    interior = opt.interior
    if interior and opt.dof > 0 and not opt.exact:
        cov = _covariance(opt.jac[:, interior], opt.s2)
        diag = np.sqrt(np.clip(np.diag(cov), 0, None))
        with np.errstate(invalid="ignore", divide="ignore"):
            c = cov / np.outer(diag, diag)
        c[~np.isfinite(c)] = 0.0
        np.fill_diagonal(c, 1.0)
        full[np.ix_(interior, interior)] = c
        for k, i in enumerate(interior):
            se[names[i]] = float(diag[k])
    return se, pd.DataFrame(full, index=names, columns=names)


def _structure_warnings(problem: Problem, opt: _Optimum) -> tuple[list[str], list[str]]:
    """Parameters the fitted values do not depend on and estimates at a bound:
    (warnings, names not identified)."""
    warnings: list[str] = []
    unclear: list[str] = []
    lb, ub = problem.bounds()
    if problem.p:
        norms = np.linalg.norm(opt.jac, axis=0)
        for i, name in enumerate(problem.free):
            if norms[i] <= 1e-10 * max(1.0, float(norms.max())):
                unclear.append(name)
                warnings.append(f"{name} does not change the fitted values at the estimate: "
                                "the data say nothing about it")
    for i, name in enumerate(problem.free):
        if opt.at_bound[i]:
            side = "lower" if opt.x[i] - lb[i] <= 1e-6 * (ub[i] - lb[i]) else "upper"
            par = problem.by_name[name]
            bound = par.low if side == "lower" else par.high
            warnings.append(f"{name} is at its {side} bound ({bound:g})")
    return warnings, unclear


def _group_dof(problem: Problem, opt: _Optimum) -> dict[str, float]:
    """The residual degrees of freedom of each group: its observations less the leverage
    its rows carry (the hat matrix's diagonal), scaled so that the groups share ``dof``."""
    interior = opt.interior
    start, used = 0, {}
    leverage = np.zeros(problem.n)
    if interior:
        jac = opt.jac[:, interior]
        leverage = np.einsum("ij,jk,ik->i", jac, np.linalg.pinv(jac.T @ jac, rcond=1e-13), jac)
    for g in problem.groups:
        m = np.asarray(problem.observed[g]).size
        used[g] = max(m - float(np.sum(leverage[start:start + m])), 0.0)
        start += m
    total = sum(used.values())
    return {g: (d * opt.dof / total if total > 0 else 0.0) for g, d in used.items()}


def _profile_dof(problem: Problem, opt: _Optimum, j: int, group_dof: Mapping[str, float]
                 ) -> float:
    """Welch-Satterthwaite degrees of freedom of free parameter ``j``:
    ``(sum_g c_g)**2 / sum_g c_g**2 / nu_g``, where ``c_g`` is the part of the estimate's
    variance that group g's rows contribute (``A J_g' J_g A``, ``A = (J' J)^-1``) and ``nu_g``
    the group's degrees of freedom. With one measured quantity this is ``n - p``; with several,
    each with its own estimated noise level, fewer."""
    interior = opt.interior
    if len(problem.groups) == 1 or j not in interior:
        return float(opt.dof)
    jac = opt.jac[:, interior]
    column = np.linalg.pinv(jac.T @ jac, rcond=1e-13)[:, interior.index(j)]
    start, parts, spread = 0, 0.0, 0.0
    for g in problem.groups:
        m = np.asarray(problem.observed[g]).size
        c = float(np.sum((jac[start:start + m] @ column) ** 2))
        start += m
        parts += c
        if c > 0:
            spread += c**2 / max(group_dof[g], 1e-12)
    return float(np.clip(parts**2 / spread, 1.0, opt.dof)) if spread > 0 else float(opt.dof)


def _profile_intervals(problem: Problem, opt: _Optimum, se: Mapping[str, float],
                       confidence: float):
    """Profile-likelihood interval of each free parameter: where the best fit over the others
    raises the weighted residual sum of squares by ``F(1, nu; confidence)`` times its mean
    square, ``nu`` from :func:`_profile_dof`. Returns (intervals, open sides, thresholds)."""
    group_dof = _group_dof(problem, opt)
    intervals, open_sides, thresholds = {}, {}, {}
    for j, name in enumerate(problem.free):
        nu = _profile_dof(problem, opt, j, group_dof)
        q = float(stats.f.ppf(confidence, 1, nu))
        low, lo_open = _profile_side(problem, opt.x, j, -1, opt.sigma, opt.wrss, opt.s2, q,
                                     se[name], opt.jac)
        high, hi_open = _profile_side(problem, opt.x, j, +1, opt.sigma, opt.wrss, opt.s2, q,
                                      se[name], opt.jac)
        par = problem.by_name[name]
        intervals[name] = (par.outer(low), par.outer(high))
        open_sides[name] = (lo_open, hi_open)
        thresholds[name] = {"dof": nu, "threshold": q}
    return intervals, open_sides, thresholds


def _bootstrap_intervals(problem: Problem, opt: _Optimum, se: Mapping[str, float],
                         confidence: float, n_boot: int, seed: int):
    """Studentized (bootstrap-t) intervals, symmetric on the optimisation scale:
    ``x -/+ q se``, with ``q`` the ``confidence`` quantile of ``|x_b - x| / se_b`` over the
    refits and ``se`` the fit's Wald error. Where the fit has no Wald error (an estimate at a
    bound), the percentile interval of the refits. Returns (intervals, open sides, (estimates,
    studentized), warnings)."""
    boot, studentized = _bootstrap(problem, opt, _group_dof(problem, opt), n_boot, seed)
    ok = np.all(np.isfinite(boot), axis=1)
    notes = [] if ok.sum() == n_boot else [
        f"{n_boot - int(ok.sum())} of {n_boot} bootstrap refits failed"]
    alpha = 1 - confidence
    lb, ub = problem.bounds()
    intervals, open_sides = {}, {}
    for j, name in enumerate(problem.free):
        par = problem.by_name[name]
        t = np.abs(studentized[ok, j])
        t = t[np.isfinite(t)]
        if np.isfinite(se[name]) and se[name] > 0 and t.size >= 10:
            q = float(np.quantile(t, confidence))
            lo, hi = opt.x[j] - q * se[name], opt.x[j] + q * se[name]
        else:
            lo, hi = np.quantile(boot[ok, j], [alpha / 2, 1 - alpha / 2])
        lo, hi = max(float(lo), lb[j]), min(float(hi), ub[j])
        intervals[name] = (par.outer(lo), par.outer(hi))
        tol = 1e-6 * (ub[j] - lb[j])
        open_sides[name] = (bool(lo - lb[j] <= tol), bool(ub[j] - hi <= tol))
    return intervals, open_sides, (boot, studentized), notes


def _interval_warnings(problem: Problem, opt: _Optimum, open_sides, se, corr: pd.DataFrame
                       ) -> tuple[list[str], list[str], list[str]]:
    """Intervals the data do not close and parameters that trade off:
    (warnings, names not bounded, trade-offs)."""
    warnings: list[str] = []
    unclear: list[str] = []
    poor = set()
    for name, (lo_open, hi_open) in open_sides.items():
        par = problem.by_name[name]
        if lo_open and not par.log and par.low == 0 and not hi_open:
            # a natural limit (an overhead or a USL coefficient of 0), not a failure to fit
            warnings.append(f"the interval of {name} reaches its lower limit 0")
            continue
        if lo_open or hi_open:
            sides = " and ".join(s for s, o in (("below", lo_open), ("above", hi_open)) if o)
            unclear.append(name)
            poor.add(name)
            warnings.append(f"the data do not bound {name} {sides}: its interval runs to the "
                            "bound of the search")
    names = list(problem.free)
    poor |= {nm for nm in names if np.isfinite(se[nm]) and se[nm] > POOR_SE
             and problem.by_name[nm].log}
    trade = []
    for i in range(problem.p):
        for j in range(i + 1, problem.p):
            r = float(corr.iloc[i, j])
            if abs(r) >= CORRELATION_LIMIT or (abs(r) >= CORRELATION_WEAK_LIMIT
                                               and {names[i], names[j]} & poor):
                trade.append(f"{names[i]} and {names[j]} (correlation {r:+.3f})")
    if trade:
        warnings.append("parameters trade off - the data cannot separate them well: "
                        + "; ".join(trade))
    return warnings, unclear, trade


def _identifiability(trade: Sequence[str], unclear: Sequence[str]) -> str:
    if not (trade or unclear):
        return "all parameters identified"
    parts = []
    if trade:
        parts.append("trade-offs between " + "; ".join(trade))
    if unclear:
        parts.append("not bounded by the data: " + ", ".join(dict.fromkeys(unclear)))
    return "not identifiable from these data - " + "; ".join(parts)


def _profile_side(problem: Problem, xhat: np.ndarray, j: int, sign: int, sigma, wrss_min: float,
                  s2: float, q: float, se: float, jac: np.ndarray) -> tuple[float, bool]:
    """Where the profile of free parameter ``j`` crosses ``q`` on one side (optimisation
    scale); (bound or search limit, True) when it does not."""
    lb, ub = problem.bounds()
    limit = ub[j] if sign > 0 else lb[j]
    reach = _PROFILE_REACH if problem.by_name[problem.free[j]].log else math.inf
    limit = min(limit, xhat[j] + reach) if sign > 0 else max(limit, xhat[j] - reach)
    others = [i for i in range(problem.p) if i != j]
    # v -> (profile value, best values of the other parameters); at the estimate itself the
    # constrained fit is the fit, so the profile is 0 there by definition
    memo: dict[float, tuple[float, np.ndarray]] = {float(xhat[j]): (0.0, xhat[others].copy())}

    def delta(v: float) -> float:
        v = float(v)
        if v in memo:
            return memo[v][0]
        if not others:
            x = xhat.copy()
            x[j] = v
            r = _weighted(problem, sigma)(x)
            memo[v] = ((float(r @ r) - wrss_min) / s2, xhat[others])
            return memo[v][0]

        def fun(y):
            x = xhat.copy()
            x[j] = v
            x[others] = y
            return _weighted(problem, sigma)(x)

        # from the solution at the nearest point already profiled; near or past the threshold
        # also from the estimate, so that a refit stuck in a worse local minimum cannot close
        # the interval too early
        nearest = min(memo, key=lambda u: abs(u - v))
        best = _solve(fun, memo[nearest][1], lb[others], ub[others],
                      max(problem.tolerance, 1e-8), problem.max_evaluations)
        if (2 * best.cost - wrss_min) / s2 > 0.5 * q and nearest != float(xhat[j]):
            other = _solve(fun, xhat[others], lb[others], ub[others],
                           max(problem.tolerance, 1e-8), problem.max_evaluations)
            if other.cost < best.cost:
                best = other
        memo[v] = ((2 * best.cost - wrss_min) / s2, best.x)
        return memo[v][0]

    if not (np.isfinite(se) and se > 0):
        # a parameter held at a bound has no Wald error: take the scale its Jacobian column
        # alone would give
        norm = float(np.linalg.norm(jac[:, j]))
        se = math.sqrt(s2) / norm if norm > 0 else 0.1
    step = float(np.clip(se, 1e-12, 1.0 if problem.by_name[problem.free[j]].log else math.inf))
    previous = xhat[j]
    for i in range(80):
        v = xhat[j] + sign * step * 2.0 ** i
        if (v - limit) * sign >= 0:
            v = limit
        if delta(v) > q:
            root = optimize.brentq(lambda t: delta(t) - q, previous, v,
                                   xtol=1e-3 * step, rtol=1e-6, maxiter=60)
            return float(root), False
        if v == limit:
            return float(limit), True
        previous = v
    return float(previous), True


def _bootstrap(problem: Problem, opt: _Optimum, group_dof: Mapping[str, float], n_boot: int,
               seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Residual bootstrap: refit to fitted values plus residuals resampled within each group
    (centred and inflated by ``sqrt(n_g / nu_g)``, the group's observations over its degrees of
    freedom), each refit estimating its own noise levels, as the fit did.

    Returns two (n_boot, p) arrays on the optimisation scale (rows of nan where a refit failed):
    the estimates, and their studentized distances from the fit, ``(x_b - x) / se_b`` with
    ``se_b`` each refit's own Wald standard error."""
    rng = np.random.default_rng(seed)
    pools = {}
    for g in problem.groups:
        m = opt.raw[g].size
        inflate = math.sqrt(m / group_dof[g]) if group_dof[g] > 0 else 1.0
        pools[g] = (opt.raw[g] - opt.raw[g].mean()) * inflate
    estimates = np.full((n_boot, problem.p), np.nan)
    studentized = np.full((n_boot, problem.p), np.nan)
    for b in range(n_boot):
        observed = {}
        for g in problem.groups:
            draw = rng.choice(pools[g], size=pools[g].size, replace=True)
            observed[g] = problem.untransform(problem.transform(opt.fitted[g]) + draw)
        try:
            x, _, res = _estimate(problem, [opt.x], observed)
        except (ValueError, FloatingPointError):  # pragma: no cover - kept as nan
            continue
        estimates[b] = x
        fun = np.asarray(res.fun)
        cov = _covariance(np.asarray(res.jac), float(fun @ fun) / opt.dof)
        with np.errstate(divide="ignore", invalid="ignore"):
            studentized[b] = (x - opt.x) / np.sqrt(np.clip(np.diag(cov), 0, None))
    return estimates, studentized


def _worse_than_constant(problem: Problem, fitted: Mapping[str, np.ndarray]) -> str:
    """A sentence naming the measured quantities the fit explains less well than their mean
    (R² = 1 - SS_res / SS_tot < 0, in the observation's unit), or "" when there are none."""
    worse = []
    for g in problem.groups:
        obs = np.asarray(problem.observed[g], float)
        total = float(np.sum((obs - obs.mean()) ** 2))
        if total > 0:
            r2 = 1 - float(np.sum((obs - np.asarray(fitted[g], float)) ** 2)) / total
            if r2 < 0:
                worse.append(f"{g} (R² = {r2:.3g})")
    if not worse:
        return ""
    return ("explains less than a constant model (the mean of the measurements) for "
            + ", ".join(worse) + ": the model does not describe these data")


def fit_problem(problem: Problem, starts: Sequence[np.ndarray], *, model: str,
                intervals: str = "profile", confidence: float = 0.95, n_boot: int = 200,
                seed: int = 0, extra_k: int = 0, units: Mapping[str, str] | None = None,
                fit_class: type[Fit] = Fit,
                train_and_predict: Callable | None = None) -> Fit:
    """Fit ``problem`` from the best of ``starts`` (points on the optimisation scale) and
    build the :class:`Fit` with intervals, diagnostics and information criteria.

    ``extra_k`` adds parameters estimated outside this problem (a profiled capacity) to ``k``.
    The steps: the optimum (:func:`_optimum`), Wald errors and correlations (:func:`_wald`),
    structural warnings, intervals (:func:`_profile_intervals` or
    :func:`_bootstrap_intervals`), their warnings, identifiability and information criteria.
    """
    if intervals not in INTERVALS:
        raise ValueError(f"intervals must be one of {INTERVALS}, got {intervals!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    opt = _optimum(problem, starts, extra_k)
    se, corr = _wald(problem, opt)
    warnings, unclear = _structure_warnings(problem, opt)
    names = list(problem.free)
    can = intervals != "none" and bool(names) and opt.dof > 0 and not opt.exact
    if intervals != "none" and names and not can:
        warnings.append("no residual degree of freedom: no interval can be formed"
                        if opt.dof <= 0 else "the model passes through every observation: "
                        "there is no residual scatter to form intervals from")
    out_intervals = {name: (math.nan, math.nan) for name in names}
    open_sides: dict[str, tuple[bool, bool]] = {}
    details: dict[str, Any] = {"optimizer": {"status": int(opt.result.status),
                                             "nfev": int(opt.result.nfev),
                                             "message": str(opt.result.message)}}
    if can and intervals == "profile":
        out_intervals, open_sides, details["profile"] = _profile_intervals(
            problem, opt, se, confidence)
    elif can and intervals == "bootstrap":
        out_intervals, open_sides, (boot, studentized), notes = _bootstrap_intervals(
            problem, opt, se, confidence, n_boot, seed)
        warnings += notes
        details["bootstrap"] = pd.DataFrame(
            [[problem.by_name[nm].outer(v) if np.isfinite(v) else math.nan
              for nm, v in zip(names, row, strict=True)] for row in boot], columns=names)
        details["bootstrap_studentized"] = pd.DataFrame(studentized, columns=names)
    more, not_bounded, trade = _interval_warnings(problem, opt, open_sides, se, corr)
    warnings += more
    worse = _worse_than_constant(problem, opt.fitted)
    if worse:
        warnings.append(worse)
        _warnings.warn(f"the {model} fit {worse}", UserWarning, stacklevel=3)
    crit = information_criteria(opt.raw, problem.p + extra_k)
    return fit_class(
        model=model,
        estimates={nm: opt.values[nm] for nm in problem.by_name if nm in opt.values},
        free=tuple(names),
        fixed=dict(problem.fixed),
        intervals=out_intervals,
        interval_method=intervals,
        confidence=confidence,
        observed={g: np.asarray(problem.observed[g], float) for g in problem.groups},
        fitted=opt.fitted,
        cells={g: np.asarray(problem.cells[g]) for g in problem.groups},
        scale=problem.scale,
        residuals=np.concatenate([opt.raw[g] for g in problem.groups]),
        noise=dict(opt.sigma),
        n=problem.n, k=crit["k"], dof=opt.dof,
        loglik=crit["loglik"], aic=crit["aic"], aicc=crit["aicc"], bic=crit["bic"],
        standard_errors=se,
        correlation=corr,
        warnings=tuple(warnings),
        identifiability=_identifiability(trade, unclear + not_bounded),
        open_sides=open_sides,
        units=dict(units or {}),
        details=details,
        _train_and_predict=train_and_predict,
    )
