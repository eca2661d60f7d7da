"""The M/M/1/B/K model of Imre, Bogárdi-Mészöly and Charaf.

``K`` clients think for an exponential time of mean ``Z`` and send a request; one exponential
server of mean ``S`` (``mu = 1 / S``) serves the admitted requests; at most ``B`` requests are
in the server and an arrival that finds ``B`` is dropped (its client thinks again). With
``C = min(B, K)`` and the terms ``t_k = K! / ((K - k)! (mu Z)^k)``:

* eq. (3): ``p_k = p_0 t_k``, ``k = 1..C``;
* eq. (4): ``p_0 = 1 / sum_{k=0..C} t_k`` (the paper sums to B; terms with k > K vanish);
* eq. (5): ``N = sum_k k p_k``;
* ``U = 1 - p_0``, ``X = U / S``, ``R = N / X``, ``e = p_B``.

No factorial is formed. Large batches use the ratios ``t_k / t_{k-1} = (K - k + 1) / (mu Z)``
in a recursion vectorized across configurations; single large chains use log-space sums
taken outward from the most likely state (:mod:`.birth_death`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_integer, as_positive
from .birth_death import log_stationary_distribution
from .results import MM1BKResult, shaped

__all__ = [
    "mm1bk",
    "mm1bk_probabilities",
    "MAX_CONFIGURATIONS",
    "MAX_STATES",
    "MAX_TOTAL_STATES",
    "MAX_PROBABILITY_ELEMENTS",
]

#: Largest number of configurations in one call (the results alone take 104 bytes each).
MAX_CONFIGURATIONS = 10**7
#: Largest ``C = min(capacity, clients)`` of one configuration (its chain has C + 1 states).
MAX_STATES = 10**7
#: Largest total ``sum (C + 1)`` over a batch: about 4 ns of work per state.
MAX_TOTAL_STATES = 10**10
#: Largest size of a ``probabilities`` array (2**27 float64 = 1 GiB).
MAX_PROBABILITY_ELEMENTS = 2**27

# Configurations per block of the recursion (a few arrays of this size stay in cache), the
# smallest block for which the recursion's per-state Python overhead is worth it, and the
# number of array elements per row block of the log-space path (16 MiB per temporary).
_BLOCK_CONFIGS = 1 << 15  # 32768 x 6 float64 arrays = 1.5 MiB: fits a 1-2 MiB L2 cache
_RECURSION_MIN_CONFIGS = 1024
_BLOCK_ELEMENTS = 1 << 21
# Largest C for which each block is sorted on its own (each block then runs up to this many
# recursion steps of Python overhead, about 10 us each).
_LOCAL_SORT_MAX_STATES = 256
# The recursion's sums are rescaled by 2**-_RESCALE_BITS once they pass 2**_RESCALE_BITS.
_RESCALE_BITS = 512
# Configurations solved together (about 200 bytes of temporaries each).
_CHUNK_CONFIGS = 1 << 21
_SUMMARY_KEYS = ("p0", "busy", "mean", "mean_given_busy", "last")


def mm1bk(clients: Any, capacity: Any, service_time: Any, think_time: Any) -> MM1BKResult:
    """Solve the M/M/1/B/K model, Imre et al. eqs. (3)-(5), for one or many configurations.

    Parameters
    ----------
    clients : int or array_like of int
        K >= 1, number of clients (finite sources).
    capacity : int or array_like of int
        B >= 1, most requests in the server (the connection-queue size); may exceed K.
    service_time : float or array_like
        S > 0, mean service time (``mu = 1 / S``).
    think_time : float or array_like
        Z > 0, mean think time.

    The arguments broadcast like NumPy arrays. ``C = min(B, K)`` must not exceed
    :data:`MAX_STATES`, nor ``sum (C + 1)`` over the batch :data:`MAX_TOTAL_STATES`.

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
    K, B, S, Z = _validated(clients, capacity, service_time, think_time)
    shape = K.shape
    K, B, S, Z = (a.ravel() for a in (K, B, S, Z))
    C = np.minimum(K, B)
    r = _think_service_ratio(Z, S)
    summary = solve_summary(K, C, r)
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


def mm1bk_probabilities(clients: Any, capacity: Any, service_time: Any, think_time: Any):
    """p_0..p_C of Imre et al. eq. (3) with eq. (4), on a last axis zero-padded to the largest C.

    Same arguments as :func:`mm1bk`. Raises ``ValueError`` if the array would hold more than
    :data:`MAX_PROBABILITY_ELEMENTS` numbers.
    """
    K, B, S, Z = _validated(clients, capacity, service_time, think_time)
    shape = K.shape
    K, B, S, Z = (a.ravel() for a in (K, B, S, Z))
    C = np.minimum(K, B)
    r = _think_service_ratio(Z, S)
    width = int(C.max()) + 1
    if K.size * width > MAX_PROBABILITY_ELEMENTS:
        raise ValueError(
            f"probabilities must hold at most MAX_PROBABILITY_ELEMENTS = "
            f"{MAX_PROBABILITY_ELEMENTS} numbers; {K.size} configurations with up to {width} "
            f"states need {K.size * width * 8 / 2**30:.1f} GiB (ask for fewer configurations "
            "or a smaller min(capacity, clients))"
        )
    order = _descending_order(C)
    K, C, r = K[order], C[order], r[order]
    out = np.zeros((K.size, width))
    for rows in _row_blocks(C):
        block_width = int(C[rows].max()) + 1
        out[order[rows], :block_width] = np.exp(_log_distribution(K[rows], C[rows], r[rows]))
    return out.reshape(shape + (width,))


def solve_summary(K: np.ndarray, C: np.ndarray, r: np.ndarray) -> dict[str, np.ndarray]:
    """p0, utilization, N, N/U and p_C of M/M/1/C/K chains (validated 1-d arrays).

    ``r = Z / S = mu Z``. Returns a dict with keys ``p0``, ``busy`` (U = 1 - p0, summed
    directly so it stays accurate when tiny), ``mean`` (N), ``mean_given_busy`` (N / U) and
    ``last`` (p_C). Works through chunks of ``_CHUNK_CONFIGS`` configurations, so the
    temporaries stay below about 0.5 GB.
    """
    if K.size <= _CHUNK_CONFIGS:
        out = _summary_chunk(K, C, r)
    else:
        out = np.empty((len(_SUMMARY_KEYS), K.size))
        for start in range(0, K.size, _CHUNK_CONFIGS):
            chunk = slice(start, min(K.size, start + _CHUNK_CONFIGS))
            out[:, chunk] = _summary_chunk(K[chunk], C[chunk], r[chunk])
    return dict(zip(_SUMMARY_KEYS, out, strict=True))


def _summary_chunk(K: np.ndarray, C: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The summary rows of one chunk, solved in blocks of configurations sorted by C.

    With few states each (C <= ``_LOCAL_SORT_MAX_STATES``) every cache-sized block is sorted
    within itself, so that gathers and scatters stay in the cache; otherwise the whole chunk is
    sorted, so that a few long chains end up in one block and the recursion's per-state steps
    are not repeated in every block. Every configuration's arithmetic is its own, so the result
    does not depend on the blocks.
    """
    out = np.empty((len(_SUMMARY_KEYS), K.size))
    Kf = K.astype(np.float64)
    starts = range(0, K.size, _BLOCK_CONFIGS)
    if int(C.max()) <= _LOCAL_SORT_MAX_STATES:
        blocks = (start + _descending_order(C[start:start + _BLOCK_CONFIGS]) for start in starts)
    else:
        order = _descending_order(C)
        blocks = (order[start:start + _BLOCK_CONFIGS] for start in starts)
    for rows in blocks:
        # np.take gathers several times faster than fancy indexing here
        Cb, Kb, rb = (np.take(a, rows) for a in (C, Kf, r))
        if rows.size >= _RECURSION_MIN_CONFIGS:
            parts = _summary_by_recursion(Kb, Cb, rb)
        else:
            parts = _summary_from_distribution(Kb, Cb, rb)
        for row, key in zip(out, _SUMMARY_KEYS, strict=True):
            row[rows] = parts[key]
    return out


def _descending_order(C: np.ndarray) -> np.ndarray:
    """Stable order of C from largest to smallest (a radix sort when C fits in 16 bits)."""
    top = int(C.max())
    key = top - C
    if top < 2**16:
        key = key.astype(np.uint16)
    return np.argsort(key, kind="stable")


def _summary_by_recursion(K: np.ndarray, C: np.ndarray, r: np.ndarray) -> dict:
    """Forward recursion over states, vectorized across configurations sorted by C descending.

    Eq. (3) gives ``t_k / t_{k-1} = (K - k + 1) / r``, so the terms relative to ``t_0`` follow
    ``T_k = T_{k-1} (K - k + 1) / r`` with no division in the loop (``1 / r`` is taken once),
    and the sums ``G = sum_{k>=1} T_k`` and ``M = sum_k k T_k`` gather as they go. At
    ``k = C``, with ``total = 1 + G``: ``p_0 = 1 / total``, ``U = G / total``,
    ``N = M / total`` and ``p_C = T_C / total``. All terms are positive, so nothing cancels.
    Sums that grow past 2**512 are scaled down exactly by a power of two, with the term and
    the ``1`` of ``t_0 / t_0`` that they are later added to.
    """
    m = K.size
    # rows: T (term), G (free), M (moment); rescaled together
    sums = np.zeros((3, m))
    sums[0] = 1.0
    term, free, moment = sums
    shift = np.zeros(m)
    Kf = np.asarray(K, dtype=np.float64)
    inv_r = 1.0 / r
    cmax = int(C[0])
    active = np.searchsorted(-C, -np.arange(cmax + 1), side="right")
    # growth of the sums per step is at most 2 max(ratio, 1); check often enough to stay < 2**1000
    ratio_max = float(np.max(Kf * inv_r))
    growth_bits = np.log2(2.0 * max(ratio_max, 1.0))
    period = max(1, int((1000 - _RESCALE_BITS - 30) // growth_bits))
    ratio = np.empty(m)  # (K - k + 1) / r, then reused for k T_k
    for k in range(1, cmax + 1):
        a = int(active[k])
        ra, ta = ratio[:a], term[:a]
        np.subtract(Kf[:a], k - 1, out=ra)
        ra *= inv_r[:a]
        ta *= ra
        free[:a] += ta
        np.multiply(ta, k, out=ra)
        moment[:a] += ra
        if k % period == 0:
            _rescale(sums[:, :a], shift[:a])
    lead = np.ldexp(1.0, -shift.astype(np.int64))  # t_0 / t_0, scaled like the sums
    total = lead + free
    return {
        "p0": lead / total,
        "busy": free / total,
        "mean": moment / total,
        "mean_given_busy": moment / free,
        "last": term / total,
    }


def _rescale(sums: np.ndarray, shift: np.ndarray) -> None:
    """Scale the columns whose G (row 1, the largest of T and G) passed 2**_RESCALE_BITS down
    by that power of two (exactly), and count the shift."""
    big = np.flatnonzero(sums[1] > 2.0**_RESCALE_BITS)
    if big.size:
        sums[:, big] = np.ldexp(sums[:, big], -_RESCALE_BITS)
        shift[big] += _RESCALE_BITS


def _summary_from_distribution(K: np.ndarray, C: np.ndarray, r: np.ndarray) -> dict:
    """The same summary from the full distribution (vectorized across states)."""
    out = {key: np.empty(K.size) for key in _SUMMARY_KEYS}
    for rows in _row_blocks(C):
        p = np.exp(_log_distribution(K[rows], C[rows], r[rows]))
        k = np.arange(p.shape[1])
        busy = p[:, 1:].sum(axis=1)
        # dividing by the computed total keeps U <= 1 and p0 + U = 1 to the last bit
        total = busy + p[:, 0]
        mean = p @ k
        out["p0"][rows] = p[:, 0] / total
        out["busy"][rows] = busy / total
        out["mean"][rows] = mean / total
        out["mean_given_busy"][rows] = mean / busy
        out["last"][rows] = p[np.arange(p.shape[0]), C[rows]] / total
    return out


def _log_distribution(K: np.ndarray, C: np.ndarray, r: np.ndarray) -> np.ndarray:
    """log p_0..log p_C per row (``-inf`` padding), from eq. (3) as a birth-death chain."""
    n = np.arange(1, int(C.max()) + 1)
    # lambda_{n-1} / mu = ((K - n + 1) / Z) * S; columns past a row's C are ignored
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.log((K[:, None] - n[None, :] + 1) / r[:, None])
    return log_stationary_distribution(log_ratio, C)


def _row_blocks(C: np.ndarray):
    """Row slices holding about _BLOCK_ELEMENTS padded states each (one row may hold more)."""
    widest_after = np.maximum.accumulate(C[::-1])[::-1] + 1
    start = 0
    while start < C.size:
        stop = min(C.size, start + max(1, _BLOCK_ELEMENTS // int(widest_after[start])))
        yield slice(start, stop)
        start = stop


def _validated(clients, capacity, service_time, think_time):
    K = as_integer(clients, "clients")
    B = as_integer(capacity, "capacity")
    S = as_positive(service_time, "service_time")
    Z = as_positive(think_time, "think_time")
    try:
        K, B, S, Z = np.broadcast_arrays(K, B, S, Z)
    except ValueError as exc:
        raise ValueError(
            "clients, capacity, service_time and think_time must broadcast to one shape, got "
            f"shapes {K.shape}, {B.shape}, {S.shape}, {Z.shape}"
        ) from exc
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
            f"+ 1); there must be at most MAX_TOTAL_STATES = {MAX_TOTAL_STATES} (split the "
            "batch)"
        )
    return K, B, S, Z


def _think_service_ratio(Z: np.ndarray, S: np.ndarray) -> np.ndarray:
    """mu Z = Z / S, checked to be a normal float (neither overflowed nor underflowed)."""
    with np.errstate(over="ignore", under="ignore"):
        r = Z / S
    bad = ~((r >= 1e-300) & (r <= 1e300))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            "think_time / service_time must lie in [1e-300, 1e300], got "
            f"{Z[i].item()!r} / {S[i].item()!r}"
        )
    return r


def _echo(values: np.ndarray, shape: tuple[int, ...], kind: type):
    """An argument as given back: a Python scalar, or an array (the validated copy)."""
    out = values.reshape(shape)
    return kind(out) if out.ndim == 0 else out
