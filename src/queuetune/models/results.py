"""Result objects of the analytic models.

Every metric is a NumPy float64 scalar when all arguments were scalars, and an array of the
arguments' broadcast shape otherwise. ``probabilities`` adds one last axis of states
``0..C`` (``C = min(capacity, clients)``); for array arguments it is zero-padded to the largest
``C`` of the batch, so ``probabilities[..., n]`` is ``P(n requests in the system)`` and is 0
for ``n`` beyond a configuration's own ``C``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any

import numpy as np

from .finite_source import MAX_PROBABILITY_ELEMENTS, mm1bk_probabilities

__all__ = ["FiniteSourceResult", "MM1BKResult", "ThreadPoolResult", "MVAResult", "shaped"]


def shaped(values: np.ndarray, shape: tuple[int, ...]) -> Any:
    """``values`` reshaped to ``shape``; a NumPy float64 scalar when ``shape == ()``."""
    out = np.asarray(values, dtype=np.float64).reshape(shape)
    return out[()] if out.ndim == 0 else out


@dataclass(frozen=True, kw_only=True)
class FiniteSourceResult:
    """Metrics of a server with ``clients`` finite sources and ``capacity`` admitted requests.

    Attributes
    ----------
    throughput : float or ndarray
        X, completed (admitted) requests per unit time.
    response_time : float or ndarray
        R = N / X, mean time an admitted request spends in the server (Little's law).
    utilization : float or ndarray
        Fraction of time the (CPU) server is busy.
    mean_in_system : float or ndarray
        N, mean number of admitted requests in the server, Imre et al. eq. (5).
    p0 : float or ndarray
        Probability that the server is empty, Imre et al. eq. (4).
    error_rate : float or ndarray
        e = p_B, the time-average probability that the server is full (Imre et al.); 0 when
        ``capacity > clients`` because state B is then unreachable.
    rejection_probability : float or ndarray
        Probability that an *arriving* request finds the server full. By the arrival theorem
        for finite sources it is ``(K - B) p_B / sum_n (K - n) p_n``; it differs from p_B.
    attempt_rate : float or ndarray
        Requests sent per unit time, admitted or not: ``sum_n (K - n) p_n / Z``.
    drop_rate : float or ndarray
        Requests dropped per unit time, ``(K - B) p_B / Z``; ``attempt_rate - drop_rate``
        equals ``throughput``.
    clients, capacity, think_time : int, float or ndarray
        The arguments, broadcast.
    """

    throughput: Any
    response_time: Any
    utilization: Any
    mean_in_system: Any
    p0: Any
    error_rate: Any
    rejection_probability: Any
    attempt_rate: Any
    drop_rate: Any
    clients: Any
    capacity: Any
    think_time: Any

    def as_dict(self) -> dict[str, Any]:
        """The scalar metrics and arguments (everything but ``probabilities``)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name != "probabilities" and f.repr}


@dataclass(frozen=True, kw_only=True)
class MM1BKResult(FiniteSourceResult):
    """Result of :func:`queuetune.mm1bk`; ``probabilities`` is computed when first read.

    ``probabilities[..., n]`` is p_n of Imre et al. eq. (3) for ``n = 0..C``, zero-padded to
    the largest ``C`` of the batch along the last axis.
    """

    service_time: Any

    @cached_property
    def probabilities(self) -> np.ndarray:
        return mm1bk_probabilities(clients=self.clients, capacity=self.capacity,
                                   service_time=self.service_time, think_time=self.think_time)


@dataclass(frozen=True, kw_only=True)
class ThreadPoolResult(FiniteSourceResult):
    """Result of :func:`queuetune.thread_pool`.

    Attributes
    ----------
    busy_threads : float or ndarray
        Mean number of threads held by a request.
    queue_length : float or ndarray
        Mean number of admitted requests waiting for a thread.
    queue_wait : float or ndarray
        Mean time an admitted request waits for a thread, ``queue_length / throughput``.
    probabilities : ndarray
        ``P(n requests in the system)``, ``n = 0..C`` on the last axis (zero-padded to the
        largest C when first read; refused above
        :data:`queuetune.models.single_server.MAX_PROBABILITY_ELEMENTS` numbers).
    clients, think_time, arrival_rate : int, float, ndarray or None
        The workload as given: ``clients`` and ``think_time`` (closed) or ``arrival_rate``
        (open); the other is None.
    threads, connections : int, ndarray or None
        As given; None for no thread limit and no pool of connections.
    processors : int or ndarray
        As given.
    method : str
        ``"exact"`` or ``"fes"``.
    response_time_p50, response_time_p95, response_time_p99 : float or ndarray
        The median, 95th and 99th percentiles of the response time of admitted requests
        (from admission to departure), computed when first read: ``"exact"``, from the
        tagged request's phase-type passage time through the chain; ``"fes"``, by the fast
        method of :mod:`queuetune.models.passage` (approximate; its error against the exact
        one is measured by ``scripts/validate_percentiles.py``).
    """

    threads: Any
    cpu_time: Any
    wait_time: Any
    arrival_rate: Any
    processors: Any
    connections: Any
    thread_overhead: Any
    pool_overhead: Any
    busy_threads: Any
    queue_length: Any
    queue_wait: Any
    method: str
    #: Every configuration's P(n), n = 0..C, one after the other (C + 1 numbers each) ...
    levels: np.ndarray = field(repr=False)
    #: ... and where each configuration's numbers start and end (``C + 1`` apart).
    level_offsets: np.ndarray = field(repr=False)
    #: Quantiles of every configuration: ``quantile_function(q)`` has one row per
    #: configuration and one column per probability of ``q``.
    quantile_function: Callable[[Any], np.ndarray] = field(repr=False, compare=False)

    def response_time_quantile(self, probability: Any) -> Any:
        """The ``probability`` quantile (in (0, 1); a scalar, or a 1-d sequence that adds a
        last axis) of the response time of admitted requests, shaped like ``throughput``."""
        q = np.asarray(probability, dtype=np.float64)
        if q.ndim > 1:
            raise ValueError(f"probability must be a number in (0, 1) or a 1-d sequence of "
                             f"them, got {probability!r}")
        values = self.quantile_function(np.atleast_1d(q))
        shape = np.shape(self.throughput)
        if q.ndim == 0:
            return shaped(values[:, 0], shape)
        return values.reshape(shape + (q.size,))

    @cached_property
    def _percentiles(self) -> np.ndarray:
        return self.quantile_function(np.array([0.5, 0.95, 0.99]))

    @cached_property
    def response_time_p50(self) -> Any:
        return shaped(self._percentiles[:, 0], np.shape(self.throughput))

    @cached_property
    def response_time_p95(self) -> Any:
        return shaped(self._percentiles[:, 1], np.shape(self.throughput))

    @cached_property
    def response_time_p99(self) -> Any:
        return shaped(self._percentiles[:, 2], np.shape(self.throughput))

    @cached_property
    def probabilities(self) -> np.ndarray:
        shape = np.shape(self.throughput)
        counts = np.diff(self.level_offsets)
        width = int(counts.max())
        if counts.size * width > MAX_PROBABILITY_ELEMENTS:
            raise ValueError(
                f"probabilities must hold at most MAX_PROBABILITY_ELEMENTS = "
                f"{MAX_PROBABILITY_ELEMENTS} numbers; {counts.size} configurations with up to "
                f"{width} states need {counts.size * width * 8 / 2**30:.1f} GiB (ask for fewer "
                "configurations)")
        out = np.zeros((counts.size, width))
        keep = np.arange(width)[None, :] < counts[:, None]
        out[keep] = self.levels
        return out.reshape(shape + (width,))


@dataclass(frozen=True, kw_only=True)
class MVAResult:
    """Result of :func:`queuetune.mva` for populations ``1..N``.

    Attributes
    ----------
    population : ndarray of int, shape (N,)
        ``1..N``.
    throughput : ndarray, shape (N,)
        X(n), system throughput.
    response_time : ndarray, shape (N,)
        R(n), sum of the stations' residence times (the think time excluded).
    queue_length : ndarray, shape (N, M)
        Mean number of customers at each station.
    residence_time : ndarray, shape (N, M)
        Mean time a customer spends at each station per visit to the system,
        ``queue_length / throughput``.
    utilization : ndarray, shape (N, M)
        ``X(n) * D_i`` (the utilization law): the busy probability of a single-server queue,
        the mean number of busy servers of a multi-server station, the mean number of
        customers at a delay station.
    stations : tuple of Station
        The stations, in the order of the last axis.
    think_time : float
        Z, the think time of the delay station that closes the network.
    algorithm : str
        ``"mva"`` (exact MVA recursion) or ``"convolution"`` (log normalizing constants).
    """

    population: np.ndarray
    throughput: np.ndarray
    response_time: np.ndarray
    queue_length: np.ndarray
    residence_time: np.ndarray
    utilization: np.ndarray
    stations: tuple
    think_time: float
    algorithm: str
