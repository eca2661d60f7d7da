"""Stationary distributions of finite birth-death chains.

A birth-death chain on ``0..C`` with birth rates ``lambda_n`` and death rates ``mu_n`` has the
product form ``p_n = p_0 * prod_{j=1..n} lambda_{j-1} / mu_j`` (see
:func:`queuetune.models.symbolic.birth_death_product_form`). The models' chains are unimodal:
the ratios ``rho_n = lambda_{n-1} / mu_n`` fall as ``n`` grows. Two ways are given here:

* :func:`run_sums` takes the products outward from the most likely state (the mode). Every
  factor is then at most 1, so no term overflows (a term that underflows is below 1e-308 of
  the mode's and does not count), and the relative error of a term grows with its distance
  from the mode, not with the size of the chain. Each run is one side of one chain; its
  products and its sums are taken strictly in order, one state after the other, so a run's
  numbers do not depend on the other runs solved with it nor on how the work is cut up.
* :func:`log_stationary_distribution` does the same in log space for chains given by their
  log rate ratios.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from .._validation import as_integer

__all__ = ["log_stationary_distribution", "run_sums"]

# How a batch of runs is cut into work (none of it changes a single bit of the result):
# rows of at most _BLOCK_ROWS runs; within a block, while at least _STEP_ROWS runs are still
# going, one state of every run per step, vectorized across the runs (about 3 us of Python per
# step and 1 ns per state); with fewer, a chunk of states of each run at once, in blocks of
# about _CHUNK_ELEMENTS numbers (ufunc.accumulate, about 10 ns per state, no per-state
# Python). The crossover, 3 us / (10 - 1) ns, is near 320 runs (measured, 2 cores).
_BLOCK_ROWS = 1 << 17
_STEP_ROWS = 320
_CHUNK_ELEMENTS = 1 << 16

Ratio = Callable[[Mapping[str, np.ndarray], np.ndarray], np.ndarray]
Weights = Callable[[Mapping[str, np.ndarray], np.ndarray, np.ndarray], list[np.ndarray]]


def run_sums(lengths: np.ndarray, params: Mapping[str, np.ndarray], ratio: Ratio,
             weights: Weights, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Weighted sums of the terms of many runs ``T_0, T_1, ...`` with ``T_{-1} = 1``.

    Parameters
    ----------
    lengths : ndarray of int, shape (m,)
        Number of terms of each run (0 for an empty run).
    params : mapping of str to ndarray, shape (m,)
        Per-run numbers handed to ``ratio`` and ``weights``.
    ratio : callable
        ``ratio(p, j)`` -> the factors ``T_j / T_{j-1}``, an array of shape ``(rows, len(j))``
        from ``p`` (the params of the rows, each of shape ``(rows, 1)``) and ``j`` (float
        step numbers, shape ``(len(j),)``). It must be elementwise (the same numbers whatever
        the rows and steps asked together), finite, and it is asked for steps past a run's
        end too (their factors are replaced by 0).
    weights : callable
        ``weights(p, j, terms)`` -> a list of ``count`` arrays ``w_q * T`` of the shape of
        ``terms``: the terms weighted by per-state numbers (finite past a run's end too). The
        arrays are overwritten, so ``terms`` itself may be one of them.
    count : int
        Number of weighted sums.

    Returns
    -------
    (sums, last)
        ``sums[q] = sum_j w_q(j) T_j`` of each run, summed in order of ``j``, and ``last`` the
        run's last term (1 for an empty run).
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    m = lengths.size
    params = {key: np.asarray(value, dtype=np.float64) for key, value in params.items()}
    sums = np.zeros((count, m))
    last = np.ones(m)
    for start in range(0, m, _BLOCK_ROWS):
        rows = slice(start, min(m, start + _BLOCK_ROWS))
        # longest runs first, so that the runs still going are always the first rows
        order = _descending_order(lengths[rows])
        block_sums = np.zeros((count, order.size))
        block_last = np.ones(order.size)
        _block(np.take(lengths[rows], order),
               {key: np.take(value[rows], order) for key, value in params.items()}, ratio,
               weights, block_sums, block_last)
        sums[:, rows][:, order] = block_sums
        last[rows][order] = block_last
    return sums, last


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
        A row's numbers do not depend on the other rows nor on the padding past its end.
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
    # 0 at the peak: the terms are at most about 1, summed in order (not pairwise), so that
    # padding past a chain's end changes no bit of it
    total = np.add.accumulate(np.exp(log_terms), axis=1)[:, -1:]
    return log_terms - np.log(total)


def _block(lengths, params, ratio, weights, sums, last) -> None:
    """One block of runs sorted by length, longest first; fills ``sums`` and ``last``."""
    step = 0
    longest = int(lengths[0]) if lengths.size else 0
    descending = -lengths
    while step < longest:
        going = int(np.searchsorted(descending, -step, side="left"))  # runs longer than step
        if going >= _STEP_ROWS:
            step = _steps(lengths, params, ratio, weights, sums, last, step, going)
            continue
        width = min(longest - step, max(1, _CHUNK_ELEMENTS // going))
        p = {key: value[:going, None] for key, value in params.items()}
        _chunk(lengths[:going], p, step, width, ratio, weights, sums[:, :going],
               last[:going])
        step += width


def _steps(lengths, params, ratio, weights, sums, last, step: int, going: int) -> int:
    """One state of each of the first ``going`` runs per step, on 1-d arrays, up to the step
    where the shortest of them ends; returns that step."""
    stop = int(lengths[going - 1])
    p = {key: value[:going] for key, value in params.items()}
    term = last[:going]
    rows = [row[:going] for row in sums]
    for j in range(step, stop):
        term *= ratio(p, float(j))  # T_j = T_{j-1} rho_j, in place
        for row, weighted in zip(rows, weights(p, float(j), term), strict=True):
            row += weighted
    return stop


def _chunk(lengths, p, step, width, ratio, weights, sums, last) -> None:
    """Terms ``step .. step + width - 1`` of runs that all reach ``step``, carried on from
    ``last`` (the previous term) and ``sums``, with ``ufunc.accumulate``: the products and sums
    of :func:`_steps` in the same order with the same roundings."""
    j = np.arange(step, step + width, dtype=np.float64)
    terms = np.asarray(ratio(p, j), dtype=np.float64)  # a fresh array, written in place
    terms[:, 0] *= last
    ending = np.flatnonzero(lengths < step + width)
    terms[ending, lengths[ending] - step] = 0.0  # a run's end: every later term is 0
    np.multiply.accumulate(terms, axis=1, out=terms)
    last[:] = terms[np.arange(lengths.size), np.minimum(lengths - 1 - step, width - 1)]
    for row, weighted in zip(sums, weights(p, j, terms), strict=True):
        weighted[:, 0] += row
        np.add.accumulate(weighted, axis=1, out=weighted)
        row[:] = weighted[:, -1]


def _descending_order(values: np.ndarray) -> np.ndarray:
    """Stable order of ``values`` from largest to smallest (a radix sort below 2**16)."""
    if values.size == 0:
        return np.zeros(0, dtype=np.int64)
    top = int(values.max())
    key = top - values
    if top < 2**16:
        key = key.astype(np.uint16)
    return np.argsort(key, kind="stable")
