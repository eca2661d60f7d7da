"""The finite-source single-server chain M/M/1/C/K: its terms, sums and probabilities.

The numbers behind :func:`queuetune.mm1bk` (Imre, Bogárdi-Mészöly and Charaf, eqs. (3)-(5)),
kept apart from the function and its result object so that both import them and nothing here
imports either (see :mod:`.single_server` for the model and how its terms are taken).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_integer, as_time, broadcast
from .birth_death import run_sums

__all__ = [
    "mm1bk_probabilities",
    "solve_summary",
    "validated",
    "MAX_CONFIGURATIONS",
    "MAX_STATES",
    "MAX_TOTAL_STATES",
    "MAX_PROBABILITY_ELEMENTS",
    "TIME_RANGE",
]

#: Largest number of configurations in one call (the results alone take 104 bytes each).
MAX_CONFIGURATIONS = 10**7
#: Largest ``C = min(capacity, clients)`` of one configuration (its chain has C + 1 states).
MAX_STATES = 10**7
#: Largest total ``sum (C + 1)`` over a batch. A state costs 1 to 4 ns in batches of
#: hundreds of configurations or more and up to about 11 ns in smaller ones (2 cores,
#: ``make benchmark``), so an admitted call takes at most about 6 s.
MAX_TOTAL_STATES = 5 * 10**8
#: Largest size of a ``probabilities`` array (2**27 float64 = 1 GiB).
MAX_PROBABILITY_ELEMENTS = 2**27
#: ``service_time`` and ``think_time`` must lie in this range: every metric is then a finite
#: float (``X <= 1 / S``, ``attempt_rate <= K / Z``, ``mu Z`` within 1e200 of 1).
TIME_RANGE = (1e-100, 1e100)

# Rows of one block of mm1bk_probabilities (about 2**21 numbers, 16 MiB per temporary).
_BLOCK_ELEMENTS = 1 << 21


def mm1bk_probabilities(*, clients: Any, capacity: Any, service_time: Any, think_time: Any):
    """p_0..p_C of Imre et al. eq. (3) with eq. (4), on a last axis zero-padded to the largest C.

    Same arguments as :func:`mm1bk`. Raises ``ValueError`` if the array would hold more than
    :data:`MAX_PROBABILITY_ELEMENTS` numbers. The terms are those of :func:`mm1bk`'s sums, so
    ``p[..., 0]`` is its ``p0`` to the last bit.
    """
    K, B, S, Z = validated(clients, capacity, service_time, think_time)
    shape = K.shape
    K, B, S, Z = (a.ravel() for a in (K, B, S, Z))
    C = np.minimum(K, B)
    width = int(C.max()) + 1
    if K.size * width > MAX_PROBABILITY_ELEMENTS:
        raise ValueError(
            f"probabilities must hold at most MAX_PROBABILITY_ELEMENTS = "
            f"{MAX_PROBABILITY_ELEMENTS} numbers; {K.size} configurations with up to {width} "
            f"states need {K.size * width * 8 / 2**30:.1f} GiB (ask for fewer configurations "
            "or a smaller min(capacity, clients))"
        )
    Kf, Cf, r = K.astype(np.float64), C.astype(np.float64), Z / S
    total = solve_summary(Kf, Cf, r)["total"]
    out = np.zeros((K.size, width))
    rows_per_block = max(1, _BLOCK_ELEMENTS // width)
    for start in range(0, K.size, rows_per_block):
        rows = slice(start, start + rows_per_block)
        out[rows] = _terms_by_state(Kf[rows], Cf[rows], r[rows], width) / total[rows, None]
    return out.reshape(shape + (width,))


def solve_summary(K: np.ndarray, C: np.ndarray, r: np.ndarray) -> dict[str, np.ndarray]:
    """p0, utilization, N, N/U and p_C of M/M/1/C/K chains (validated 1-d float arrays).

    ``r = Z / S = mu Z``. Returns a dict with keys ``p0``, ``busy`` (U = 1 - p0, summed
    directly so it stays accurate when tiny), ``mean`` (N), ``mean_given_busy`` (N / U),
    ``last`` (p_C) and ``total`` (the sum of the terms relative to the mode's).

    With the mode ``k*`` (:func:`_mode`), the terms ``T_k = t_k / t_{k*}`` above it follow
    ``T_k = T_{k-1} (K - k + 1) / r`` and those below ``T_k = T_{k+1} r / (K - k)``: factors of
    at most 1, by eq. (3). With the sums ``G`` and ``M = sum k T_k`` of each side,
    ``total = 1 + G_up + G_down``, ``p_0 = T_0 / total``, ``U = (total - T_0) / total`` (the
    states above 0 summed on their own), ``N = M / total`` and ``p_C = T_C / total``.
    """
    peak = _mode(K, C, r)
    up, top = run_sums(C - peak, {"a": K - peak, "r": r, "k": peak + 1.0}, _up_ratio,
                       _state_weights(+1), 2)
    down, bottom = run_sums(peak, {"a": K - peak + 1.0, "r": r, "k": peak - 1.0},
                            _down_ratio, _state_weights(-1), 2)
    total = (1.0 + up[0]) + down[0]
    # U sums the states above 0: the mode and the upper run, and the lower run but state 0
    busy = np.where(peak > 0, (1.0 + up[0]) + (down[0] - bottom), up[0])
    moment = (peak + up[1]) + down[1]
    return {
        "p0": bottom / total,
        "busy": busy / total,
        "mean": moment / total,
        "mean_given_busy": moment / busy,
        "last": top / total,
        "total": total,
    }


def _mode(K: np.ndarray, C: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The most likely state: ``t_k / t_{k-1} = (K - k + 1) / r >= 1`` up to ``K + 1 - r``."""
    return np.clip(np.floor(K + 1.0 - r), 0.0, C)


def _up_ratio(p, j):
    # t_k / t_{k-1} for k = k* + 1 + j: (K - k + 1) / r, with a = K - k*
    return (p["a"] - j) / p["r"]


def _down_ratio(p, j):
    # t_k / t_{k+1} for k = k* - 1 - j: r / (K - k), with a = K - k* + 1
    return p["r"] / (p["a"] + j)


def _state_weights(direction: int):
    """The weights 1 and k of the terms of one side (``p["k"]`` is the run's first state)."""

    def weights(p, j, terms):
        return [terms, (p["k"] + direction * j) * terms]

    return weights


def _terms_by_state(K: np.ndarray, C: np.ndarray, r: np.ndarray, width: int) -> np.ndarray:
    """``T_k`` of :func:`solve_summary` on a states axis of ``width`` (0 past C), the same
    products in the same order: forward from the mode above it, backward below it."""
    k = np.arange(width, dtype=np.float64)[None, :]
    peak = _mode(K, C, r)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        above = np.where(k > peak, (K[:, None] - k + 1.0) / r[:, None], 1.0)
        below = np.where(k < peak, r[:, None] / (K[:, None] - k), 1.0)
    above[k > C[:, None]] = 1.0
    terms = np.multiply.accumulate(above, axis=1)
    terms *= np.multiply.accumulate(below[:, ::-1], axis=1)[:, ::-1]
    terms[k > C[:, None]] = 0.0
    return terms


def validated(clients, capacity, service_time, think_time):
    K = as_integer(clients, "clients")
    B = as_integer(capacity, "capacity")
    S = as_time(service_time, "service_time", TIME_RANGE)
    Z = as_time(think_time, "think_time", TIME_RANGE)
    K, B, S, Z = broadcast(("clients", K), ("capacity", B), ("service_time", S),
                           ("think_time", Z))
    if K.size > MAX_CONFIGURATIONS:
        raise ValueError(
            f"clients, capacity, service_time and think_time broadcast to {K.size} "
            f"configurations; there must be at most MAX_CONFIGURATIONS = {MAX_CONFIGURATIONS} "
            "(split the batch)"
        )
    C = np.minimum(K, B)
    if C.max() > MAX_STATES:
        raise ValueError(
            f"min(capacity, clients) must be <= MAX_STATES = {MAX_STATES}, got {int(C.max())}"
        )
    total = int(np.sum(C, dtype=np.float64)) + C.size
    if total > MAX_TOTAL_STATES:
        raise ValueError(
            f"the configurations hold {total} states in total (sum of min(capacity, clients) "
            f"+ 1); there must be at most MAX_TOTAL_STATES = {MAX_TOTAL_STATES}, about 6 s of "
            "work (split the batch)"
        )
    return K, B, S, Z


