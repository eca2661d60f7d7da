"""Fitting the book's models to measurements, with intervals and honest diagnostics.

Fitters (all bounded least squares by :func:`scipy.optimize.least_squares`):

* :func:`fit_mm1bk` - service and think time of the M/M/1/B/K model (capacity given, or
  profiled over integers);
* :func:`fit_thread_pool` - CPU time, wait time, think time and overheads of the thread-pool
  model over a clients x threads grid, optionally with CPU utilization (Utilization Law);
* :func:`fit_usl`, :func:`fit_amdahl` - the Universal Scalability Law and Amdahl's law;
* :func:`compare`, :func:`leave_one_out` - AIC/AICc and leave-one-out prediction error.

The statistics, shared by every fitter:

* **Residuals** are ``observed - fitted`` on a log scale by default (relative errors; times,
  rates and speedups are positive and their errors grow with them) or on an absolute scale.
* **Several measured quantities** fitted together (response time and utilization, say) each get
  their own noise level, estimated from their own residuals and iterated to convergence: the
  Gaussian maximum-likelihood fit with one variance per quantity.
* **Intervals** are profile-likelihood intervals by default: the values of one parameter for
  which the best fit over the others raises the weighted residual sum of squares by at most
  ``F(1, nu; level)`` times its mean square; in a linear model these are exactly the
  Student-t intervals (``nu = n - p`` with one measured quantity; with several, each with its
  own noise level, the Welch-Satterthwaite ``nu``). ``intervals="bootstrap"`` gives studentized
  residual-bootstrap intervals with a fixed seed instead (each refit estimates its own noise
  levels). Where the profile does not rise above the threshold before the search bound, the
  interval runs to that bound and a warning says the data do not bound it. How often the
  intervals cover the truth in a seeded simulation study (``scripts/coverage_study.py``) is
  in ``results/coverage_study.md``: close to nominal with one measured quantity, a few points
  below it with two, and lower where the model itself is approximate (the flow-equivalent
  server).
* **Identifiability**: each fit reports the correlation of its estimates (from the Jacobian
  at the optimum), names pairs of parameters that trade off (|correlation| >= 0.99, or >= 0.9
  when one of the two is poorly determined),
  parameters the fitted values do not depend on, estimates at a bound and open intervals, in
  ``warnings`` and in a one-line ``identifiability``.
* **Goodness of fit**: residuals, per-quantity RMSE, largest relative error and R², the
  Gaussian log-likelihood, AIC, AICc and BIC.

Example: the USL recovers the parameters of speedups it generated itself.

>>> from queuetune.fit import fit_usl, usl
>>> cpus = [1, 2, 4, 8, 16, 32]
>>> fit = fit_usl(cpus=cpus, speedup=usl(cpus=cpus, sigma=0.05, kappa=0.002))
>>> print(f"sigma = {fit.sigma:.4f}, kappa = {fit.kappa:.5f}, peak at {fit.peak_cpus:.1f} CPUs")
sigma = 0.0500, kappa = 0.00200, peak at 21.8 CPUs
"""

from ._core import (
    CORRELATION_LIMIT,
    CORRELATION_WEAK_LIMIT,
    POOR_SE,
    Fit,
    Parameter,
    information_criteria,
)
from .comparison import compare, leave_one_out, loo_summary
from .queueing import (
    MM1BK_PARAMETERS,
    THREAD_POOL_PARAMETERS,
    MM1BKFit,
    ThreadPoolFit,
    fit_mm1bk,
    fit_thread_pool,
)
from .scalability import USL_PARAMETERS, USLFit, fit_amdahl, fit_usl, usl, usl_peak

__all__ = [
    "CORRELATION_LIMIT",
    "CORRELATION_WEAK_LIMIT",
    "POOR_SE",
    "Fit",
    "MM1BKFit",
    "MM1BK_PARAMETERS",
    "Parameter",
    "THREAD_POOL_PARAMETERS",
    "ThreadPoolFit",
    "USLFit",
    "USL_PARAMETERS",
    "compare",
    "fit_amdahl",
    "fit_mm1bk",
    "fit_thread_pool",
    "fit_usl",
    "information_criteria",
    "leave_one_out",
    "loo_summary",
    "usl",
    "usl_peak",
]
