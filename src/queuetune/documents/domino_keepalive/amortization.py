"""Connection-setup amortization: what a persistent connection saves per request.

A client that sends ``n`` requests over each persistent connection pays the cost of opening the
connection once per ``n`` requests. With a fixed cost per request ``t_request`` and a fixed cost
per connection ``t_setup``, the time per request is

    t(n) = t_request + t_setup / n,        n = 1, 2, 3, ... requests per connection.

The model is linear in ``x = 1 / n``, so :func:`fit_setup_cost` estimates both parameters by
ordinary least squares of ``t`` on ``1 / n`` (:func:`scipy.stats.linregress`) and gives
Student-t confidence intervals with ``len(n) - 2`` residual degrees of freedom. With three
settings there is one residual degree of freedom and the 97.5 % quantile of Student's t is
12.7: the intervals are wide, and they say so.

>>> fit = fit_setup_cost([1, 2, 4], [30.0, 20.0, 15.0])
>>> round(fit.t_request, 9), round(fit.t_setup, 9)
(10.0, 20.0)
>>> round(fit.predict(8), 9)
12.5

Times may be in any unit (the estimates come out in the same unit).

Accepted inputs, as in the models: counts (``n``, ``threads``, ``requests_per_thread``) are
integers in [1, 2**53], measured times and the other positive quantities lie in
[1e-100, 1e100], so that every result is a finite number; anything else raises ``ValueError``
naming the parameter and its range.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real

import numpy as np
import pandas as pd
from scipy import stats

from ..._validation import MAGNITUDE_RANGE, MAX_INTEGER, integer, real

__all__ = [
    "SetupCostFit",
    "fit_setup_cost",
    "time_per_request",
    "connections_opened",
    "time_wait_sockets",
]

ArrayLike = Sequence[float] | np.ndarray | pd.Series
# Bound on the model's two parameters (fitted estimates may be negative): the sum stays finite.
_ESTIMATE_BOUND = 1e300


def _integers_at_least_one(values, name: str) -> np.ndarray:
    """``values`` as an int64 array of integers in [1, 2**53], or ValueError naming ``name`` and
    the allowed range (element by element, so that a boolean among numbers is refused too)."""
    message = f"{name} must be integers >= 1 and <= {MAX_INTEGER}, got {{!r}}"
    try:
        array = np.atleast_1d(np.asarray(values, dtype=object))
    except ValueError:  # ragged
        raise ValueError(message.format(values)) from None
    if array.ndim != 1 or array.size == 0:
        raise ValueError(message.format(values))
    out = []
    for value in array:
        if isinstance(value, bool | np.bool_ | str | bytes) or value is None or value is pd.NA:
            raise ValueError(message.format(value))
        if isinstance(value, int | np.integer):  # exact, however large
            if not 1 <= value <= MAX_INTEGER:
                raise ValueError(message.format(value))
            out.append(int(value))
            continue
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(message.format(value)) from None
        if (not math.isfinite(number) or number < 1 or number > MAX_INTEGER
                or number != math.floor(number)):
            raise ValueError(message.format(value))
        out.append(int(number))
    return np.asarray(out, dtype=np.int64)


def _positive_numbers(values, name: str) -> np.ndarray:
    """``values`` as a 1-d float array of numbers in [1e-100, 1e100], or ValueError naming
    ``name`` and the allowed range."""
    low, high = MAGNITUDE_RANGE
    message = f"{name} must be numbers in [{low:g}, {high:g}], got {values!r}"
    if isinstance(values, str | bytes):
        raise ValueError(message)
    try:
        raw = np.atleast_1d(np.asarray(values, dtype=object))
        if any(isinstance(v, bool | np.bool_ | str | bytes) or v is None for v in raw.flat):
            raise ValueError(message)
        array = raw.astype(float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(message) from None
    if array.ndim != 1 or array.size == 0 or not np.all((array >= low) & (array <= high)):
        raise ValueError(message)
    return array


def _like(n, values: np.ndarray):
    """A float for a scalar ``n``, else the array."""
    return float(values[0]) if np.ndim(n) == 0 else values


def time_per_request(n, t_request: float, t_setup: float):
    """The model ``t(n) = t_request + t_setup / n`` for integer ``n >= 1``.

    Returns a float for a scalar ``n`` and an array otherwise.
    ``n``: integers in [1, 2**53]. ``t_request`` and ``t_setup``: numbers in [-1e300, 1e300]
    (so that their sum is finite); they may be zero or negative only because a fitted estimate
    can be (the model is evaluated as it is fitted, not clipped).
    """
    ns = _integers_at_least_one(n, "n")
    request = real(t_request, "t_request", low=-_ESTIMATE_BOUND, high=_ESTIMATE_BOUND)
    setup = real(t_setup, "t_setup", low=-_ESTIMATE_BOUND, high=_ESTIMATE_BOUND)
    return _like(n, request + setup / ns)


@dataclass(frozen=True)
class SetupCostFit:
    """Least-squares fit of ``t(n) = t_request + t_setup / n``.

    Attributes are the data (``n``, ``t``), the estimates and their standard errors, the
    ``confidence`` level and Student-t intervals (``ci_request``, ``ci_setup``) with ``dof``
    residual degrees of freedom, the ``residuals`` (observed - fitted), ``r_squared`` and the
    residual standard deviation ``s``. With ``dof == 0`` (two settings) the fit passes through
    both points and every standard error and interval is NaN: nothing is left to estimate the
    scatter from.
    """

    n: np.ndarray
    t: np.ndarray
    t_request: float
    t_setup: float
    se_request: float
    se_setup: float
    dof: int
    confidence: float
    t_quantile: float
    ci_request: tuple[float, float]
    ci_setup: tuple[float, float]
    residuals: np.ndarray
    r_squared: float
    s: float

    def predict(self, n):
        """Fitted time per request at ``n`` requests per connection (integers >= 1); a float
        for a scalar ``n``, else an array."""
        return time_per_request(n, self.t_request, self.t_setup)

    def band(self, n, *, kind: str = "mean"):
        """Lower and upper limits at ``n`` of the ``confidence`` band.

        ``kind="mean"`` bounds the model curve t(n); ``kind="prediction"`` bounds one new
        measurement at ``n`` (it adds the residual scatter). NaN when ``dof == 0``. Floats for a
        scalar ``n``, else arrays.
        """
        if kind not in ("mean", "prediction"):
            raise ValueError(f"kind must be 'mean' or 'prediction', got {kind!r}")
        ns = _integers_at_least_one(n, "n")
        x = 1.0 / self.n
        x0 = 1.0 / ns
        sxx = float(np.sum((x - x.mean()) ** 2))
        leverage = 1.0 / len(x) + (x0 - x.mean()) ** 2 / sxx
        if kind == "prediction":
            leverage = leverage + 1.0
        half = self.t_quantile * self.s * np.sqrt(leverage)
        centre = self.predict(ns)
        return _like(n, centre - half), _like(n, centre + half)

    def n_for_time(self, t: float) -> float:
        """The (real) ``n`` at which the fitted curve equals ``t``: ``t_setup / (t - t_request)``.

        Only defined where the curve reaches ``t`` for some n >= 1, i.e. between ``t_request``
        (excluded) and ``t(1) = t_request + t_setup`` when ``t_setup > 0``, and far enough above
        ``t_request`` that the ``n`` is a finite number.
        """
        top = self.t_request + self.t_setup
        allowed = (f"a number in ({self.t_request:.6g}, {top:.6g}], the range the fitted curve "
                   "covers for n >= 1")
        if isinstance(t, bool | np.bool_) or not isinstance(t, Real):
            raise ValueError(f"t must be {allowed}; got {t!r}")
        try:
            value = float(t)
        except OverflowError:
            value = math.inf
        if self.t_setup <= 0 or not (self.t_request < value <= top):
            raise ValueError(f"t must lie in ({self.t_request:.6g}, {top:.6g}], the range the "
                             f"fitted curve covers for n >= 1; got {t!r}")
        n = self.t_setup / (value - self.t_request)
        if not math.isfinite(n):
            raise ValueError(f"t must lie far enough above t_request = {self.t_request!r} for n "
                             f"to be a finite number; got {t!r}")
        return n

    def summary(self) -> pd.DataFrame:
        """The two estimates with standard errors and intervals, one row each."""
        level = f"{self.confidence:.0%}"
        return pd.DataFrame(
            {
                "estimate": [self.t_request, self.t_setup],
                "standard error": [self.se_request, self.se_setup],
                f"{level} interval, low": [self.ci_request[0], self.ci_setup[0]],
                f"{level} interval, high": [self.ci_request[1], self.ci_setup[1]],
            },
            index=pd.Index(["t_request (per request)", "t_setup (per connection)"],
                           name="parameter"),
        )


def fit_setup_cost(n: ArrayLike, t: ArrayLike, *, confidence: float = 0.95) -> SetupCostFit:
    """Fit ``t(n) = t_request + t_setup / n`` to measured times ``t`` at settings ``n``.

    ``n``: requests per connection, integers in [1, 2**53], at least two distinct values.
    ``t``: the measured time per request at each ``n``, in [1e-100, 1e100], same length as
    ``n``.
    ``confidence``: level of the intervals, strictly between 0 and 1.
    """
    ns = _integers_at_least_one(n, "n")
    ts = _positive_numbers(t, "t")
    if len(ns) != len(ts):
        raise ValueError(f"n and t must have the same length, got {len(ns)} and {len(ts)}")
    if len(np.unique(ns)) < 2:
        raise ValueError(f"n must hold at least 2 distinct values to fit 2 parameters, "
                         f"got {ns.tolist()}")
    if not (isinstance(confidence, int | float) and 0 < confidence < 1):
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")

    x = 1.0 / ns
    result = stats.linregress(x, ts)
    t_request = float(result.intercept)
    t_setup = float(result.slope)
    fitted = t_request + t_setup * x
    residuals = ts - fitted
    dof = len(ts) - 2
    sse = float(np.sum(residuals**2))
    sst = float(np.sum((ts - ts.mean()) ** 2))
    r_squared = 1.0 - sse / sst if sst > 0 else math.nan
    if dof > 0:
        s = math.sqrt(sse / dof)
        se_request = float(result.intercept_stderr)
        se_setup = float(result.stderr)
        quantile = float(stats.t.ppf(0.5 + confidence / 2, dof))
    else:
        s = se_request = se_setup = quantile = math.nan
    return SetupCostFit(
        n=ns,
        t=ts,
        t_request=t_request,
        t_setup=t_setup,
        se_request=se_request,
        se_setup=se_setup,
        dof=dof,
        confidence=float(confidence),
        t_quantile=quantile,
        ci_request=(t_request - quantile * se_request, t_request + quantile * se_request),
        ci_setup=(t_setup - quantile * se_setup, t_setup + quantile * se_setup),
        residuals=residuals,
        r_squared=r_squared,
        s=s,
    )


def connections_opened(threads: int, requests_per_thread: int, n):
    """Connections a closed-loop client opens: each thread keeps its own connection and opens a
    new one every ``n`` requests, so ``threads * ceil(requests_per_thread / n)``. An int for a
    scalar ``n``, else an int64 array.

    ``threads``, ``requests_per_thread`` and ``n`` are integers in [1, 2**53], and
    ``threads * requests_per_thread`` (the most connections) must be at most 2**53 too.
    """
    count = integer(threads, "threads", low=1, high=MAX_INTEGER)
    per_thread = integer(requests_per_thread, "requests_per_thread", low=1, high=MAX_INTEGER)
    if count * per_thread > MAX_INTEGER:
        raise ValueError(f"threads * requests_per_thread must be at most {MAX_INTEGER} (the "
                         f"requests of the run), got {count} * {per_thread}")
    ns = _integers_at_least_one(n, "n")
    opened = count * -(-per_thread // ns)
    return int(opened[0]) if np.ndim(n) == 0 else opened


def time_wait_sockets(connections, run_time_s, time_wait_s: float):
    """Sockets in TIME_WAIT near the end of a run, by Little's law ``N = X * R``.

    ``connections`` closed evenly over ``run_time_s`` seconds arrive in TIME_WAIT at rate
    ``connections / run_time_s`` and stay ``time_wait_s`` seconds (60 s on Linux; other
    systems differ). When the run is shorter than ``time_wait_s`` every closed connection is
    still waiting, hence ``rate * min(time_wait_s, run_time_s)``.

    ``connections`` and ``run_time_s`` (s): numbers or 1-d sequences of numbers in
    [1e-100, 1e100], of one length or one of them a single number; ``time_wait_s``: one number
    in [1e-100, 1e100] s. The result is then at most 1e300.
    """
    conns = _positive_numbers(connections, "connections")
    runs = _positive_numbers(run_time_s, "run_time_s")
    wait = _positive_numbers(time_wait_s, "time_wait_s")
    if wait.size != 1:
        raise ValueError(f"time_wait_s must be one number in [1e-100, 1e+100] (seconds), got "
                         f"{time_wait_s!r}")
    if conns.shape != runs.shape and conns.size != 1 and runs.size != 1:
        raise ValueError(f"connections and run_time_s must have the same length, got "
                         f"{conns.size} and {runs.size}")
    result = conns / runs * np.minimum(wait[0], runs)
    return _like(connections, result) if np.ndim(run_time_s) == 0 else result
