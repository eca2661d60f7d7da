"""Exact single-class analysis of closed product-form queueing networks.

Stations are load-independent queues, delay (infinite-server) stations and load-dependent
stations whose service rate with ``j`` customers present is ``alpha(j) / D`` (``D`` the service
demand). The think time ``Z`` of the clients is one more delay station.

Without load-dependent stations :func:`mva` runs the exact MVA recursion (Menascé & Almeida
2002): ``R_i(n) = D_i (1 + Q_i(n - 1))`` at a queue, ``R_i(n) = D_i`` at a delay station,
``X(n) = n / (Z + sum_i R_i(n))``, ``Q_i(n) = X(n) R_i(n)``. Every quantity is positive, so the
recursion is stable.

With load-dependent stations the textbook recursion for the marginal probabilities,
``p_i(j|n) = D_i / alpha_i(j) X(n) p_i(j-1|n-1)`` with ``p_i(0|n) = 1 - sum_{j>=1} p_i(j|n)``,
loses all accuracy when ``p_i(0|n)`` is small (the subtraction cancels and the error is fed
back), and yields negative probabilities near 100 customers at a 30-server station. Instead
the network is solved through its normalizing constants (Buzen's convolution algorithm,
Reiser & Kobayashi 1975 for load-dependent stations) kept as logarithms:
``G(n) = sum over states of prod_i f_i(n_i)`` with ``f_i(j) = D_i^j / prod_{l<=j} alpha_i(l)``,
``X(n) = G(n - 1) / G(n)`` and ``p_i(j|n) = f_i(j) G_{-i}(n - j) / G(n)``, where ``G_{-i}`` is
the constant of the network without station ``i``. All sums are of positive terms
(``scipy.special.logsumexp``), which makes the method exact up to rounding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import gammaln, logsumexp

from .._validation import as_scalar_integer, as_time
from .results import MVAResult

__all__ = ["Station", "mva", "MAX_POPULATION", "MAX_LOAD_DEPENDENT_POPULATION",
           "MAX_QUEUE_ELEMENTS", "MAX_CONVOLUTION_TERMS", "TIME_RANGE", "RATE_RANGE"]

#: Largest population of :func:`mva` (the recursion costs about 3 us per population).
MAX_POPULATION = 10**6
#: Largest ``population * stations`` (the results hold three arrays of that many numbers).
MAX_QUEUE_ELEMENTS = 2 * 10**7
#: Largest population with a load-dependent station (the convolutions cost O(N^2) each).
MAX_LOAD_DEPENDENT_POPULATION = 5000
#: Largest ``(4 M + 2) N**2`` with load-dependent stations: the terms of the 4 M + 2 log-space
#: convolutions of length N, about 16 ns each, so at most about 10 s (2 cores).
MAX_CONVOLUTION_TERMS = 6 * 10**8
#: Demands and the think time (when not 0) must lie in this range, and the rate multipliers
#: of a load-dependent station in RATE_RANGE: every result is then a finite float.
TIME_RANGE = (1e-100, 1e100)
RATE_RANGE = (1e-100, 1e100)

_KINDS = ("queue", "delay", "load-dependent")
# rows of one log-space convolution block (rows x (N + 1) elements)
_CONVOLUTION_ELEMENTS = 1 << 21

Rates = Sequence[float] | np.ndarray | Callable[[np.ndarray], Any]


@dataclass(frozen=True)
class Station:
    """A station of a closed network.

    Parameters
    ----------
    demand : float
        D, service demand per job (visits times mean service time), in :data:`TIME_RANGE`.
    kind : {"queue", "delay", "load-dependent"}
        Load-independent single server, infinite server, or load-dependent server.
    rates : sequence of float or callable, optional
        Only for ``"load-dependent"``: the rate multipliers ``alpha(1), alpha(2), ...`` (the
        service rate with j customers present is ``alpha(j) / D``), or a function of an
        integer array ``j`` returning them. A sequence shorter than the population holds its
        last value for larger j. Every multiplier must lie in :data:`RATE_RANGE`.
    name : str, optional
        Label of the station.
    """

    demand: float
    kind: str = "queue"
    rates: Rates | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        demand = as_time(self.demand, "demand", TIME_RANGE)
        if demand.ndim != 0:
            raise ValueError(f"demand must be a single number, got an array of shape "
                             f"{demand.shape}")
        object.__setattr__(self, "demand", float(demand))
        if self.kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}, got {self.kind!r}")
        if (self.kind == "load-dependent") != (self.rates is not None):
            raise ValueError("rates must be given for a load-dependent station and only then")
        if self.rates is not None and not callable(self.rates):
            rates = as_time(self.rates, "rates", RATE_RANGE)
            if rates.ndim != 1:
                raise ValueError(f"rates must be a 1-d sequence, got shape {rates.shape}")
            object.__setattr__(self, "rates", tuple(rates.tolist()))

    @classmethod
    def queue(cls, demand: float, name: str | None = None) -> Station:
        """A load-independent single-server (FCFS or PS) station."""
        return cls(demand, "queue", None, name)

    @classmethod
    def delay(cls, demand: float, name: str | None = None) -> Station:
        """An infinite-server (pure delay) station."""
        return cls(demand, "delay", None, name)

    @classmethod
    def load_dependent(cls, demand: float, rates: Rates, name: str | None = None) -> Station:
        """A station served at rate ``alpha(j) / demand`` with j customers present."""
        return cls(demand, "load-dependent", rates, name)

    @classmethod
    def multiserver(cls, demand: float, servers: int, name: str | None = None) -> Station:
        """``servers`` identical servers: ``alpha(j) = min(j, servers)`` (held, past
        :data:`MAX_LOAD_DEPENDENT_POPULATION`, at its value there: no population beyond it is
        solved with a load-dependent station)."""
        m = as_scalar_integer(servers, "servers")
        top = min(m, MAX_LOAD_DEPENDENT_POPULATION)
        return cls(demand, "load-dependent", tuple(float(j) for j in range(1, top + 1)), name)

    def multipliers(self, population: int) -> np.ndarray:
        """``alpha(1..population)``: ones for a queue, ``j`` for a delay station."""
        j = np.arange(1, population + 1)
        if self.kind == "queue":
            return np.ones(population)
        if self.kind == "delay":
            return j.astype(np.float64)
        if callable(self.rates):
            try:
                values = np.asarray(self.rates(j), dtype=np.float64)
            except (TypeError, ValueError):  # a function of one integer only
                values = None
            if values is None or values.shape != j.shape:
                values = np.array([self.rates(int(i)) for i in j], dtype=np.float64)
        else:
            given = np.asarray(self.rates, dtype=np.float64)
            values = given[np.minimum(j, given.size) - 1]
        return as_time(values, "rates", RATE_RANGE)


def mva(population: Any, stations: Sequence[Station | float], *, think_time: Any = 0.0):
    """Exact MVA of a closed single-class network for populations ``1..population``.

    Parameters
    ----------
    population : int
        N, the largest number of customers (clients), from 1 to :data:`MAX_POPULATION`
        (:data:`MAX_LOAD_DEPENDENT_POPULATION` with a load-dependent station); ``N`` times the
        number of stations at most :data:`MAX_QUEUE_ELEMENTS`.
    stations : sequence of Station or float
        The stations; a plain number is a load-independent queue with that demand.
    think_time : float, optional
        Z, mean think time of the clients (a delay station, not listed in the results): 0 or
        in :data:`TIME_RANGE`.

    Returns
    -------
    MVAResult
        Throughput and response time per population, and per-station queue lengths, residence
        times and utilizations (arrays of shape ``(N, M)``).

    Examples
    --------
    One server of mean 0.14 s and 50 clients thinking 4 s (the M/M/1//K model):

    >>> res = mva(50, [Station.queue(0.14)], think_time=4.0)
    >>> round(float(res.throughput[-1]), 4)
    7.1423
    """
    n_max = as_scalar_integer(population, "population", maximum=MAX_POPULATION)
    z = as_time(think_time, "think_time", TIME_RANGE, zero=True)
    if z.ndim != 0:
        raise ValueError(f"think_time must be a single number, got an array of shape {z.shape}")
    z = float(z)
    items = _stations(stations)
    if n_max * len(items) > MAX_QUEUE_ELEMENTS:
        raise ValueError(
            f"population times the number of stations must be <= MAX_QUEUE_ELEMENTS = "
            f"{MAX_QUEUE_ELEMENTS}, got {n_max} x {len(items)} (the results hold three arrays "
            "of that size)"
        )
    if any(s.kind == "load-dependent" for s in items):
        _check_convolutions(n_max, len(items))
        x, queue = _solve_by_convolution(n_max, items, z)
        algorithm = "convolution"
    else:
        x, queue = _solve_by_recursion(n_max, items, z)
        algorithm = "mva"
    demands = np.array([s.demand for s in items])
    residence = queue / x[:, None]
    return MVAResult(
        population=np.arange(1, n_max + 1),
        throughput=x,
        response_time=residence.sum(axis=1),
        queue_length=queue,
        residence_time=residence,
        utilization=x[:, None] * demands[None, :],
        stations=items,
        think_time=z,
        algorithm=algorithm,
    )


def _stations(stations: Any) -> tuple[Station, ...]:
    """The stations as Station objects (a plain number is a queue with that demand)."""
    sequence = isinstance(stations, Sequence) or (isinstance(stations, np.ndarray)
                                                  and stations.ndim == 1)
    if isinstance(stations, Station | str | bytes) or not sequence:
        raise ValueError("stations must be a sequence of Station objects or demands, got "
                         f"{stations!r}")
    items = tuple(s if isinstance(s, Station) else Station.queue(s) for s in stations)
    if not items:
        raise ValueError("stations must hold at least one station, got none")
    return items


def _check_convolutions(n_max: int, stations: int) -> None:
    """The convolutions' work within MAX_CONVOLUTION_TERMS (and the population's limit)."""
    if n_max > MAX_LOAD_DEPENDENT_POPULATION:
        raise ValueError(
            f"population must be <= MAX_LOAD_DEPENDENT_POPULATION = "
            f"{MAX_LOAD_DEPENDENT_POPULATION} with a load-dependent station, got {n_max}"
        )
    terms = (4 * stations + 2) * n_max**2
    if terms > MAX_CONVOLUTION_TERMS:
        raise ValueError(
            f"population and stations must keep (4 x stations + 2) x population**2 <= "
            f"MAX_CONVOLUTION_TERMS = {MAX_CONVOLUTION_TERMS} with a load-dependent station "
            f"(about 10 s), got {terms} for {stations} stations and population {n_max}: use "
            "fewer stations or a smaller population"
        )


def _solve_by_recursion(n_max: int, stations: tuple[Station, ...], z: float):
    """Exact MVA recursion over populations (Menascé & Almeida 2002); returns X(n), Q_i(n)."""
    demands = np.array([s.demand for s in stations])
    queueing = np.array([s.kind == "queue" for s in stations])
    x = np.empty(n_max)
    queue = np.empty((n_max, demands.size))
    previous = np.zeros(demands.size)
    for n in range(1, n_max + 1):
        residence = np.where(queueing, demands * (1.0 + previous), demands)
        x[n - 1] = n / (z + residence.sum())
        previous = x[n - 1] * residence
        queue[n - 1] = previous
    return x, queue


def _solve_by_convolution(n_max: int, stations: tuple[Station, ...], z: float):
    """X(n) and Q_i(n) from log normalizing constants (Buzen; Reiser & Kobayashi 1975)."""
    factors = [_log_station_factor(s, n_max) for s in stations]
    if z > 0:
        factors.append(_log_delay_factor(z, n_max))
    # prefix[i] convolves factors 0..i-1, suffix[i] factors i..end
    identity = np.full(n_max + 1, -np.inf)
    identity[0] = 0.0
    prefix = [identity]
    for f in factors:
        prefix.append(_log_convolve(prefix[-1], f))
    suffix = [identity]
    for f in reversed(factors):
        suffix.append(_log_convolve(suffix[-1], f))
    suffix.reverse()
    log_g = prefix[-1]
    n = np.arange(1, n_max + 1)
    x = np.exp(log_g[n - 1] - log_g[n])
    queue = np.empty((n_max, len(stations)))
    j = np.arange(n_max + 1)
    for i, station in enumerate(stations):
        if station.kind == "delay":
            queue[:, i] = x * station.demand
            continue
        # Q_i(n) = sum_j j f_i(j) G_{-i}(n - j) / G(n)
        others = _log_convolve(prefix[i], suffix[i + 1])
        with np.errstate(divide="ignore"):
            weighted = np.log(j) + factors[i]
        queue[:, i] = np.exp(_log_convolve(weighted, others)[1:] - log_g[1:])
    return x, queue


def _log_station_factor(station: Station, n_max: int) -> np.ndarray:
    """``log f(j) = j log D - sum_{l<=j} log alpha(l)`` for ``j = 0..n_max``."""
    if station.kind == "delay":
        return _log_delay_factor(station.demand, n_max)
    log_alpha = np.log(station.multipliers(n_max))
    j = np.arange(n_max + 1)
    return j * np.log(station.demand) - np.concatenate([[0.0], np.cumsum(log_alpha)])


def _log_delay_factor(demand: float, n_max: int) -> np.ndarray:
    j = np.arange(n_max + 1)
    return j * np.log(demand) - gammaln(j + 1.0)


def _log_convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``c(n) = log sum_{j=0..n} exp(a(j) + b(n - j))`` for ``n = 0..len(a) - 1``."""
    size = a.size
    out = np.empty(size)
    j = np.arange(size)
    rows = max(1, _CONVOLUTION_ELEMENTS // size)
    for start in range(0, size, rows):
        n = np.arange(start, min(size, start + rows))[:, None]
        lag = n - j[None, :]
        terms = a[None, :] + np.where(lag >= 0, b[np.maximum(lag, 0)], -np.inf)
        out[start : start + n.shape[0]] = logsumexp(terms, axis=1)
    return out
