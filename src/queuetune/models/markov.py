"""Stationary distribution of a finite, irreducible continuous-time Markov chain.

``pi Q = 0`` with ``sum(pi) = 1`` is solved directly with SuperLU (``scipy.sparse.linalg.splu``)
after fixing one state's unnormalized probability to 1 and dropping its balance equation.
The remaining matrix ``-Q^T`` (without that row and column) is a nonsingular M-matrix that is
diagonally dominant by columns, so Gaussian elimination needs no pivoting and is stable; a
symmetric minimum-degree ordering (``MMD_AT_PLUS_A``) keeps the fill small for chains shaped
like two-dimensional grids. (Replacing a balance equation by the dense normalization row
instead multiplies the fill: a 1.5-million-state thread-pool chain ran out of 24 GB that way.)
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from .._validation import as_scalar_integer

__all__ = ["stationary_distribution", "RESIDUAL_TOLERANCE"]

#: Largest accepted ``max |pi Q| / max |Q_ii|`` after iterative refinement.
RESIDUAL_TOLERANCE = 1e-10


def stationary_distribution(generator: sp.spmatrix, pinned: int = 0) -> np.ndarray:
    """``pi`` with ``pi Q = 0``, ``sum(pi) = 1`` for an irreducible generator ``Q``.

    Parameters
    ----------
    generator : sparse matrix, shape (n, n)
        Off-diagonal rates >= 0, rows summing to zero.
    pinned : int
        A state whose probability is not tiny; its unnormalized value is fixed to 1, so the
        others must stay below about 1e300 times it. If the factor is singular or the
        result overflows, the last, first and middle states are tried; if the pinned state
        proves unlikely (below 1e-100 of the most likely), the solve is repeated pinning the
        most likely state found.

    Returns
    -------
    ndarray, shape (n,)
        The stationary distribution, checked by its residual ``max |pi Q|``.

    Notes
    -----
    Accurate to a few roundings times the spread of the rates, relative to the largest
    probability, on chains of one mode (as the servers' chains are). Two modes separated by a
    valley many orders of magnitude deep can pass the residual check and still be off: a
    birth-death chain of 23 states with rates 0.01 to 100 came out 0.61 off
    (``tests/models/test_markov.py``); a subtraction-free elimination (GTH) would not.
    """
    if not sp.issparse(generator) or generator.shape[0] != generator.shape[1]:
        raise ValueError("generator must be a square scipy.sparse matrix")
    size = generator.shape[0]
    pinned = as_scalar_integer(pinned, "pinned", minimum=0, maximum=size - 1)
    if size == 1:
        return np.ones(1)
    transposed = sp.csc_matrix(generator.T)
    scale = float(np.max(np.abs(generator.diagonal())))
    # a state of tiny probability makes the pivots underflow (a singular factor) or the
    # others overflow: then try other states, and re-pin at the most likely state found
    candidates = dict.fromkeys([pinned, size - 1, 0, size // 2])
    for candidate in candidates:
        pi = _try_pinned(transposed, candidate)
        if pi is None:
            continue
        best = int(np.argmax(pi))
        if pi[candidate] < 1e-100 * pi[best]:
            better = _try_pinned(transposed, best)
            pi = pi if better is None else better
        break
    else:
        raise RuntimeError("the stationary solve failed for every pinned state tried")
    pi /= pi.sum()
    if pi.min() < -1e-12:
        raise RuntimeError(f"the stationary solve returned a probability of {pi.min():.3g}")
    np.maximum(pi, 0.0, out=pi)
    pi /= pi.sum()
    residual = float(np.max(np.abs(transposed @ pi))) / scale
    if residual > RESIDUAL_TOLERANCE:
        raise RuntimeError(f"the stationary solve left a relative residual of {residual:.3g}")
    return pi


def _try_pinned(transposed: sp.csc_matrix, pinned: int) -> np.ndarray | None:
    """:func:`_solve_pinned`, or None if the factor is singular or the result overflows."""
    try:
        pi = _solve_pinned(transposed, pinned)
    except RuntimeError:  # SuperLU: "Factor is exactly singular"
        return None
    return pi if np.all(np.isfinite(pi)) else None


def _solve_pinned(transposed: sp.csc_matrix, pinned: int) -> np.ndarray:
    """Solve the balance equations with ``pi[pinned] = 1``, with two refinement steps."""
    size = transposed.shape[0]
    keep = np.ones(size, dtype=bool)
    keep[pinned] = False
    rows = transposed[keep]
    matrix = sp.csc_matrix(rows[:, keep])
    rhs = -rows[:, [pinned]].toarray().ravel()
    lu = splu(
        matrix,
        permc_spec="MMD_AT_PLUS_A",
        diag_pivot_thresh=0.0,
        options={"SymmetricMode": True},
    )
    x = lu.solve(rhs)
    for _ in range(2):
        if not np.all(np.isfinite(x)):
            break
        x += lu.solve(rhs - matrix @ x)
    pi = np.empty(size)
    pi[keep] = x
    pi[pinned] = 1.0
    return pi
