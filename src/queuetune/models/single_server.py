"""The M/M/1/B/K model of Imre, Bogárdi-Mészöly and Charaf.

``K`` clients think for an exponential time of mean ``Z`` and send a request; one exponential
server of mean ``S`` (``mu = 1 / S``) serves the admitted requests; at most ``B`` requests are
in the server and an arrival that finds ``B`` is dropped (its client thinks again). With
``C = min(B, K)`` and the terms ``t_k = K! / ((K - k)! (mu Z)^k)``:

* eq. (3): ``p_k = p_0 t_k``, ``k = 1..C``;
* eq. (4): ``p_0 = 1 / sum_{k=0..C} t_k`` (the paper sums to B; terms with k > K vanish);
* eq. (5): ``N = sum_k k p_k``;
* ``U = 1 - p_0``, ``X = U / S``, ``R = N / X``, ``e = p_B``.

No factorial is formed. The terms are taken outward from the most likely state ``k*``, where
the ratio ``t_k / t_{k-1} = (K - k + 1) / (mu Z)`` falls through 1, so every factor is at most 1
and nothing overflows; each configuration's products and sums run in order over its own states
(:func:`.birth_death.run_sums`), so a configuration gives the same bits alone or in any batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .finite_source import (
    MAX_CONFIGURATIONS,
    MAX_PROBABILITY_ELEMENTS,
    MAX_STATES,
    MAX_TOTAL_STATES,
    TIME_RANGE,
    mm1bk_probabilities,
    solve_summary,
    validated,
)
from .results import MM1BKResult, shaped

__all__ = [
    "mm1bk",
    "mm1bk_probabilities",
    "solve_summary",
    "MAX_CONFIGURATIONS",
    "MAX_STATES",
    "MAX_TOTAL_STATES",
    "MAX_PROBABILITY_ELEMENTS",
    "TIME_RANGE",
]


def mm1bk(*, clients: Any, capacity: Any, service_time: Any, think_time: Any) -> MM1BKResult:
    """Solve the M/M/1/B/K model, Imre et al. eqs. (3)-(5), for one or many configurations.

    Parameters
    ----------
    clients : int or array_like of int
        K >= 1, number of clients (finite sources).
    capacity : int or array_like of int
        B >= 1, most requests in the server (the connection-queue size); may exceed K.
    service_time : float or array_like
        S, mean service time (``mu = 1 / S``), in :data:`TIME_RANGE` (1e-100 to 1e100).
    think_time : float or array_like
        Z, mean think time, in :data:`TIME_RANGE`.

    Every argument is keyword-only. The arguments broadcast like NumPy arrays.
    ``C = min(B, K)`` must not exceed :data:`MAX_STATES`, nor ``sum (C + 1)`` over the batch
    :data:`MAX_TOTAL_STATES`. Every configuration's numbers are the same, to the last bit,
    whether it is solved alone or in a batch.

    Returns
    -------
    MM1BKResult
        ``throughput``, ``response_time``, ``utilization``, ``mean_in_system``, ``p0``,
        ``error_rate`` (p_B), ``rejection_probability``, ``attempt_rate``, ``drop_rate``, and
        ``probabilities`` (computed when first read, zero-padded to the largest C along a last
        axis). Scalars for scalar arguments, arrays of the broadcast shape otherwise.

    Examples
    --------
    The paper's server with 100 clients and a connection queue of 50:

    >>> res = mm1bk(clients=100, capacity=50, service_time=0.14, think_time=4.0)
    >>> print(f"X = {res.throughput:.3f}/s, R = {res.response_time:.2f} s")
    X = 7.143/s, R = 6.84 s
    >>> print(f"e = {res.error_rate:.3f}, P(arrival dropped) = {res.rejection_probability:.3f}")
    e = 0.452, P(arrival dropped) = 0.442
    """
    K, B, S, Z = validated(clients, capacity, service_time, think_time)
    shape = K.shape
    K, B, S, Z = (a.ravel() for a in (K, B, S, Z))
    C = np.minimum(K, B)
    r = Z / S
    summary = solve_summary(K.astype(np.float64), C.astype(np.float64), r)
    lost = (K - C) * summary["last"]  # (K - B) p_B, zero when B >= K
    thinking = r * summary["busy"] + lost  # sum_k (K - k) p_k
    error = np.where(B <= K, summary["last"], 0.0)
    return MM1BKResult(
        throughput=shaped(summary["busy"] / S, shape),
        response_time=shaped(S * summary["mean_given_busy"], shape),
        utilization=shaped(summary["busy"], shape),
        mean_in_system=shaped(summary["mean"], shape),
        p0=shaped(summary["p0"], shape),
        error_rate=shaped(error, shape),
        rejection_probability=shaped(lost / thinking, shape),
        attempt_rate=shaped(thinking / Z, shape),
        drop_rate=shaped(lost / Z, shape),
        clients=_echo(K, shape, int),
        capacity=_echo(B, shape, int),
        service_time=_echo(S, shape, float),
        think_time=_echo(Z, shape, float),
    )


def _echo(values: np.ndarray, shape: tuple[int, ...], kind: type):
    """An argument as given back: a Python scalar, or an array (the validated copy)."""
    out = values.reshape(shape)
    return kind(out) if out.ndim == 0 else out
