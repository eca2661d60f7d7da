"""Stationary distributions of finite birth-death chains, in log space.

A birth-death chain on ``0..C`` with birth rates ``lambda_n`` and death rates ``mu_n`` has the
product form ``p_n = p_0 * prod_{j=1..n} lambda_{j-1} / mu_j`` (see
:func:`queuelab.models.symbolic.birth_death_product_form`). Here the products are sums of
logarithms taken outward from the most likely state, so that the rounding error of a
probability grows with its distance from that state in log terms, not with the size of the
chain (a plain cumulative sum from state 0 would lose about ``eps * log(K!)`` in every
probability, 1e-9 relative at a million clients).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from .._validation import as_integer

__all__ = ["log_stationary_distribution"]


def log_stationary_distribution(log_ratio: np.ndarray, states: np.ndarray) -> np.ndarray:
    """Log stationary probabilities of birth-death chains given their log rate ratios.

    Parameters
    ----------
    log_ratio : ndarray, shape (m, L)
        ``log(lambda_{n-1} / mu_n)`` for ``n = 1..L`` (column ``n - 1``), one chain per row.
        Entries past a chain's last state are ignored.
    states : ndarray of int, shape (m,)
        ``C`` of each chain (its states are ``0..C``), ``0 <= C <= L``.

    Returns
    -------
    ndarray, shape (m, L + 1)
        ``log p_n`` for ``n = 0..L``; ``-inf`` for ``n > C``. Each row's probabilities sum to 1.
    """
    log_ratio = np.atleast_2d(np.asarray(log_ratio, dtype=np.float64))
    if log_ratio.ndim != 2:
        raise ValueError(f"log_ratio must be 1-d or 2-d, got shape {log_ratio.shape}")
    m, length = log_ratio.shape
    states = as_integer(states, "states", minimum=0, maximum=length)
    if states.shape != (m,):
        raise ValueError(f"states must have shape ({m},), one per row, got {states.shape}")
    k = np.arange(length + 1)
    valid = k[None, :] <= states[:, None]
    if not np.all(np.isfinite(log_ratio[valid[:, 1:]])):
        raise ValueError("log_ratio must be finite for every state of every chain")
    steps = np.zeros((m, length + 1))
    steps[:, 1:] = log_ratio
    steps[~valid] = 0.0
    # the most likely state, located from the plain running sum
    rough = np.cumsum(steps, axis=1)
    rough[~valid] = -np.inf
    peak = np.argmax(rough, axis=1)[:, None]
    # log(p_n / p_peak): sum of steps peak+1..n above the peak, minus steps n+1..peak below it
    above = np.cumsum(np.where(k > peak, steps, 0.0), axis=1)
    below = np.where(k <= peak, steps, 0.0)[:, ::-1]
    below = np.cumsum(below, axis=1)[:, ::-1]
    below = np.concatenate([below[:, 1:], np.zeros((m, 1))], axis=1)
    log_terms = above - below
    log_terms[~valid] = -np.inf
    return log_terms - logsumexp(log_terms, axis=1, keepdims=True)
