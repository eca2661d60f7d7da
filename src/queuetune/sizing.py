"""Sizing a server: processors, threads, a connection pool and the admission bound, for a load.

The server, in the book's words. At most ``B`` requests are admitted (waiting for a thread or
holding one); a request that finds ``B`` admitted is refused (a closed client thinks again, an
open arrival is lost). An admitted request takes a free thread or waits for one, first come
first served. It then needs its processor time (mean ``s_c``, exponential, processor sharing
over ``p`` processors: with ``c`` requests in that phase they complete at rate
``min(c, p)/s_c``), and then waits (mean ``s_w``, exponential, no processor) while its thread
holds one of ``C`` connections; a thread that finds no free connection waits for one, FCFS,
holding its thread and no processor.

The sizing solves it by the flow-equivalent server (FES), with these definitions (the
calculator page, ``book/_static/calculator/sizing.js``, computes exactly the same, step by
step, and a browser test holds the two to 1e-6 relative):

1. **Thread holders.** ``X_in(m)``, the throughput of ``m`` requests holding threads (a
   closed product-form network of the processors and the pool), by
   :class:`queuetune.models.flow_equivalent.Holders`, the one home of this computation (the
   model library's ``thread_pool(method="fes")`` uses it too): see that module for its
   definition, its limit ``X_lim = min(p/s_c, C/s_w)`` and its convergence at ``m*``.
2. **Admitted requests** ``n = 0..B`` form a birth-death chain: death rate
   ``X_in(min(n, T))`` (``T = None``, virtual threads: ``X_in(n)``), birth ``lambda`` (open
   arrivals) or ``(K - n)/Z`` (closed: ``K`` clients thinking ``Z``; ``Z = 0`` puts the chain at
   ``min(K, B)``). Throughput ``X = sum pi(n) X_in(min(n, T))``, response time ``R = L/X``
   (Little's law, ``L`` the mean admitted), utilization ``U = X s_c/p``, share refused
   ``pi(B)`` (open) or ``pi(B)(K - B) / sum pi(n)(K - n)`` (closed: the share of the requests
   sent; with ``Z = 0`` and ``K > B`` its limit, 1). ``T = None`` is ``T = m*`` (the death
   rate is constant from there), but for open arrivals the chain is cut earlier, at the first
   ``n`` where the rest of the chain, bounded by a geometric series of ratio
   ``r = lambda/X_in(n) < 1``, weighs at most :data:`TAIL` (1e-16) of what lies before:
   ``w(n) r/(1 - r) <= TAIL sum_{k<=n} w(k)``; the cut is then ``T = n``. ``B = None``
   (unbounded) is allowed for open arrivals where the chain is stable (``lambda < X_in(T)``,
   ``lambda < X_lim`` with ``T = None``); with a constant death rate beyond ``min(T, B)`` the
   chain's tail is a geometric series, summed in closed form (``B`` may be 10^10).
3. **The sizing** (:func:`size`): see its docstring.
4. **Percentiles** of the response time of admitted requests (:func:`percentiles`): the fast
   method of :mod:`queuetune.models.passage` on the chain of definition 2 (the same as
   ``thread_pool(method="fes")``'s percentiles; its error against the exact chain is measured
   in ``results/validation_percentiles.md``).

Limits: ``p`` up to 4096, rates up to 1e7/s, up to 10^5 clients, up to 10^5 threads, pools up
to 10^5, a headroom of 1 to 10 times the peak; a call whose work passes an estimate of about
10 s (:data:`MAX_WORK`, counted as the recursion of definition 1 goes) is refused, naming the
way out.

>>> s = size(processors=18, cpu_time=0.04, wait_time=0.2, arrival_rate=300, read_timeout=2)
>>> s.processors_needed, s.connections, s.threads, s.capacity
(20, 95, 108, 856)
>>> round(s.utilization, 3), round(s.response_time * 1000, 1)
(0.667, 240.5)
>>> round(s.saturation_multiple, 3), s.saturation_resource
(1.426, 'processors')
>>> [round(1000 * t) for t in (s.response_time_p50, s.response_time_p95, s.response_time_p99)]
[183, 644, 966]
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ._validation import integer, real
from .models.flow_equivalent import (  # the one home of the thread holders' throughput
    CONVERGED,
    MAX_HOLDERS,
    TRIM,
    Holders,
    holders_throughput,
)
from .models.passage import geometric_sums  # NumPy only (SciPy is imported by the exact method)

__all__ = [
    "LIMITS", "TRIM", "CONVERGED", "MAX_HOLDERS", "TAIL", "HEADROOM", "MULTIPLES",
    "DEFAULT_READ_TIMEOUT", "ORIGINS", "Holders", "ServerState", "Sizing", "holders_throughput",
    "solve", "promise", "size", "percentiles", "erlang_c_servers", "erlang_c_connections",
    "service_quantile",
]

#: Documented ranges of the inputs (SI units).
LIMITS = {
    "processors": (1, 4096),
    "cpu_time": (1e-6, 1e3),
    "wait_time": (1e-6, 1e3),
    "arrival_rate": (1e-6, 1e7),
    "clients": (1, 10**5),
    "think_time": (0.0, 1e5),
    "connections": (1, 10**5),
    "threads": (1, 10**5),
    "max_response_time": (1e-6, 3.6e3),
    "read_timeout": (1e-6, 3.6e3),
    "p99_objective": (1e-6, 3.6e3),
    "capacity": (1, 10**12),
    "headroom": (1.0, 10.0),
}
#: Relative weight of an open chain's tail at which T = None is cut.
TAIL = 1e-16


# --------------------------------------------------------------------------- admitted requests


@dataclass(frozen=True)
class ServerState:
    """The server's mean behaviour under one load (definition 2): ``throughput`` X (1/s),
    ``response_time`` R (s, mean, admitted requests), ``utilization`` of the processors,
    ``refused`` share, ``admitted`` L (mean admitted requests); ``stable`` is False for an open
    load the server cannot complete with no bound on admissions (then R is infinite)."""

    throughput: float
    response_time: float
    utilization: float
    refused: float
    admitted: float
    stable: bool = True


def _weights(log_w: np.ndarray, top: float | None = None) -> np.ndarray:
    """exp(log_w - top) (top: the largest), with the weights below e^-700 set to 0: a
    subnormal float slows every sum over it a hundredfold."""
    shifted = log_w - (log_w.max() if top is None else top)
    return np.where(shifted > -700.0, np.exp(np.maximum(shifted, -700.0)), 0.0)


def _open(h: Holders, s: _Setting, rate: float) -> ServerState:
    T, B = s.threads, s.capacity
    if T is None:
        T = _open_cut(h, rate, B)
    n0 = T if B is None else min(T, B)
    x = h.upto(n0)
    top_rate = h.at(T)  # the death rate from min(T, B) on
    if B is None and rate >= top_rate:
        return ServerState(top_rate, math.inf, top_rate * h.s_c / h.p, 0.0, math.inf,
                           stable=False)
    lw = np.concatenate([[0.0], np.cumsum(np.log(rate / x[1:]))])  # log w(0..n0)
    log_r = math.log(rate / top_rate)
    tail = math.inf if B is None else B - n0
    log_s0, mean = geometric_sums(log_r, tail)
    head = lw[:-1]
    block = lw[-1] + log_s0
    top = max(float(head.max()) if len(head) else -math.inf, block)
    wh = _weights(head, top)
    wb = math.exp(block - top)
    total = float(wh.sum()) + wb
    admitted = (float((np.arange(n0) * wh).sum()) + wb * (n0 + mean)) / total
    refused = 0.0 if B is None else math.exp(lw[-1] + tail * log_r - top) / total
    throughput = rate * (1.0 - refused)
    return ServerState(throughput, admitted / throughput, throughput * h.s_c / h.p, refused,
                       admitted)


def _open_cut(h: Holders, rate: float, B: int | None) -> int:
    """Where an open chain with T = None is cut (definition 2)."""
    n, total, log_w = 0, 1.0, 0.0  # weights relative to w(0) = 1
    limit = B if B is not None else MAX_HOLDERS
    scale = 0.0
    while n < limit:
        n += 1
        x = h.at(n)
        log_w += math.log(rate / x)
        if log_w - scale > 600:  # rescale to keep the running sum finite
            total *= math.exp(scale - log_w)
            scale = log_w
        w = math.exp(log_w - scale)
        total += w
        if h.converged is not None and n >= h.converged:
            return n
        r = rate / x
        if r < 1 and w * r / (1 - r) <= TAIL * total:
            return n
    return limit


def _closed(h: Holders, s: _Setting, clients: int, think: float) -> ServerState:
    K = clients
    B = K if s.capacity is None else min(s.capacity, K)
    T = s.threads
    if T is None:
        T = min(h.until_converged(B), B)
    if think == 0.0:
        x = h.at(min(B, T))
        return ServerState(x, B / x, x * h.s_c / h.p, 1.0 if K > B else 0.0, float(B))
    n = np.arange(B + 1, dtype=np.float64)
    x = h.upto(min(T, B))
    death = x[np.minimum(n[1:], T).astype(np.int64)]
    lw = np.concatenate([[0.0], np.cumsum(np.log((K - n[:-1]) / think) - np.log(death))])
    w = _weights(lw)
    total = float(w.sum())
    served = np.concatenate([[0.0], death])
    throughput = float((w * served).sum()) / total
    admitted = float((w * n).sum()) / total
    sent = float((w * (K - n)).sum())
    refused = 0.0 if B == K else float(w[-1]) * (K - B) / sent
    return ServerState(throughput, admitted / throughput, throughput * h.s_c / h.p, refused,
                       admitted)


@dataclass(frozen=True)
class _Setting:
    threads: int | None
    capacity: int | None


def _resources(processors, cpu_time, wait_time, connections, threads):
    p = integer(processors, "processors", low=1, high=LIMITS["processors"][1])
    s_c = real(cpu_time, "cpu_time", low=LIMITS["cpu_time"][0], high=LIMITS["cpu_time"][1],
               unit="s")
    s_w = 0.0 if _is_zero(wait_time) else real(
        wait_time, "wait_time", low=LIMITS["wait_time"][0], high=LIMITS["wait_time"][1],
        unit="s (or 0)")
    C = None if connections is None else integer(connections, "connections", low=1,
                                                 high=LIMITS["connections"][1])
    T = None if threads is None else integer(threads, "threads", low=1,
                                             high=LIMITS["threads"][1])
    return p, s_c, s_w, C, T


def _is_zero(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool) and value == 0)


def _load(arrival_rate, clients, think_time):
    if (arrival_rate is None) == (clients is None):
        raise ValueError("give either arrival_rate= (open arrivals) or clients= with "
                         "think_time= (a closed population), not both and not neither")
    if arrival_rate is not None:
        if think_time is not None:
            raise ValueError("think_time= goes with clients=, not with arrival_rate=")
        return real(arrival_rate, "arrival_rate", low=0.0, low_open=True,
                    high=LIMITS["arrival_rate"][1], unit="per s"), None, None
    K = integer(clients, "clients", low=1, high=LIMITS["clients"][1])
    if think_time is None:
        raise ValueError("clients= needs think_time=, a number in [0, 100000] s")
    Z = real(think_time, "think_time", low=0.0, high=LIMITS["think_time"][1], unit="s")
    return None, K, Z


def solve(*, processors: int = 1, cpu_time: float, wait_time: float,
          threads: int | None = None, connections: int | None = None,
          capacity: int | None = None, arrival_rate: float | None = None,
          clients: int | None = None, think_time: float | None = None) -> ServerState:
    """The server's mean behaviour by the flow-equivalent server (definitions 1 and 2).

    ``threads=None``: no thread limit (virtual threads); ``connections=None``: no pool;
    ``capacity=None``: no bound on admitted requests (for closed clients, ``B = K``).

    >>> st = solve(processors=2, cpu_time=0.01, wait_time=0.0, arrival_rate=100)
    >>> round(st.response_time, 6)  # M/M/2: S / (1 - U^2) with U = 0.5
    0.013333
    """
    p, s_c, s_w, C, T = _resources(processors, cpu_time, wait_time, connections, threads)
    rate, K, Z = _load(arrival_rate, clients, think_time)
    B = None if capacity is None else integer(capacity, "capacity", low=1,
                                              high=LIMITS["capacity"][1])
    h = Holders(processors=p, cpu_time=s_c, wait_time=s_w, connections=C)
    setting = _Setting(T, B)
    if rate is not None:
        if B is None and T is None and rate >= h.limit:
            return ServerState(h.limit, math.inf, h.limit * s_c / p, 0.0, math.inf, False)
        return _open(h, setting, rate)
    return _closed(h, setting, K, Z)


def promise(*, processors: int = 1, cpu_time: float, wait_time: float,
            threads: int | None = None, connections: int | None = None,
            capacity: int | None = None, arrival_rate: float | None = None,
            clients: int | None = None, think_time: float | None = None) -> dict:
    """What the sizing promises for a server of these settings at this load: one row of its
    answer (:attr:`Sizing.loads`) at any load, with the same keys (``throughput``,
    ``response_time`` and its ``_p50``, ``_p95``, ``_p99``, ``utilization``, ``refused``;
    ``multiple`` is 1). The lab scores a deployed advice with it at the loads it measures.

    >>> row = promise(processors=2, cpu_time=0.01, wait_time=0.0, threads=4,
    ...               arrival_rate=100)
    >>> round(row["response_time"], 6), row["refused"]  # M/M/2 at U = 0.5
    (0.013333, 0.0)
    """
    p, s_c, s_w, C, T = _resources(processors, cpu_time, wait_time, connections, threads)
    rate, K, Z = _load(arrival_rate, clients, think_time)
    B = None if capacity is None else integer(capacity, "capacity", low=1,
                                              high=LIMITS["capacity"][1])
    h = Holders(processors=p, cpu_time=s_c, wait_time=s_w, connections=C)
    return _row(h, _Setting(T, B), rate, K, Z, 1.0)


# --------------------------------------------------------------------------- the sizing

#: The overload the sizing carries by default, as a multiple of the peak (see :func:`size`).
HEADROOM = 1.5
#: The loads of the answer's rows, as multiples of the peak.
MULTIPLES = (1.0, 1.1, 1.5, 2.0)
#: The longest acceptable response time (s) when no timeout and no objective is given: the
#: default read timeout of nginx's proxy (``proxy_read_timeout 60s``): an answer later than
#: that reaches no client behind such a proxy.
DEFAULT_READ_TIMEOUT = 60.0
#: Where the longest acceptable response time came from (``Sizing.max_response_origin``).
ORIGINS = {
    "max_response_time": "given as the longest acceptable response time",
    "p99_objective": "the p99 objective",
    "read_timeout": "the read timeout of the client or proxy",
    "default": "no timeout given: nginx's default proxy_read_timeout of 60 s",
}
#: The resources whose ceilings the answer states, in the order ties are broken.
RESOURCES = ("processors", "pool", "threads")


def erlang_c_servers(*, load: float, tolerance: float, what: str = "connections") -> int:
    """The smallest number of servers ``c > load`` (offered load in erlangs) whose Erlang-C
    mean wait, ``E_C(c, load) s / (c - load)``, is at most ``tolerance s`` (``s`` the mean
    service time). ``what`` names the servers in the message of a load beyond 10^5 of them.

    >>> erlang_c_servers(load=1.0, tolerance=0.1)
    3
    """
    if not load > 0:
        raise ValueError(f"load must be a number > 0, got {load!r}")
    top = LIMITS["connections"][1]
    if load >= top:
        raise ValueError(f"the load keeps about {load:.0f} {what} busy, more than the {top} "
                         "this sizing covers: split the load")
    erlang_b, c = 1.0, 0
    while True:
        c += 1
        erlang_b = load * erlang_b / (c + load * erlang_b)
        if c > load:
            waits = c * erlang_b / (c - load * (1.0 - erlang_b))
            if waits / (c - load) <= tolerance:
                return c
        if c >= top:
            raise ValueError(f"the load needs more than {c} {what}, the most this sizing "
                             "covers: split the load")


def erlang_c_connections(*, load: float, tolerance: float) -> int:
    """:func:`erlang_c_servers` for a pool of connections (``load = X s_w``).

    >>> erlang_c_connections(load=1.0, tolerance=0.1)
    3
    """
    return erlang_c_servers(load=load, tolerance=tolerance, what="connections")


def service_quantile(*, cpu_time: float, wait_time: float, q: float) -> float:
    """The ``q``-quantile of the service alone, ``s_c + s_w`` with both exponential and no
    queueing (a hypoexponential time; exponential when ``s_w = 0``): no admitted request's
    response time is shorter in distribution, so a percentile objective below it cannot be met
    by any setting. By bisection on the closed-form tail ``P(S > t) = (a e^{-t/a} - b e^{-t/b})
    / (a - b)`` (``(1 + t/a) e^{-t/a}`` for equal means), to 1e-12 relative.

    >>> round(service_quantile(cpu_time=0.1, wait_time=0.0, q=0.99), 6)  # 0.1 ln 100
    0.460517
    """
    a, b = max(cpu_time, wait_time), min(cpu_time, wait_time)
    target = 1.0 - q

    def tail(t: float) -> float:
        if b == 0.0:
            return math.exp(-t / a)
        if a - b <= 1e-6 * a:
            m = (a + b) / 2
            return (1.0 + t / m) * math.exp(-t / m)
        return (a * math.exp(-t / a) - b * math.exp(-t / b)) / (a - b)

    lo, hi = 0.0, a + b
    while tail(hi) > target:
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-12 * hi:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if tail(mid) > target else (lo, mid)
    return hi


@dataclass(frozen=True)
class Sizing:
    """The answer of :func:`size`; :meth:`as_dict` is the JSON of ``python -m queuetune size``.

    Settings: ``processors_needed``, ``threads`` (T), ``connections`` (C; None without a
    wait), ``capacity`` (B), sized to carry ``headroom`` times the peak. At the peak, with the
    given processors and these settings: ``throughput`` (1/s), ``response_time`` (s, mean),
    ``response_time_p50``, ``response_time_p95`` and ``response_time_p99`` (s, admitted
    requests, by :func:`percentiles`), ``utilization``, ``refused``. Ceilings (1/s):
    ``processor_limit`` p/s_c, ``pool_limit`` C/s_w (None without a pool), ``thread_limit``
    X_in(T). ``saturation_multiple`` X_in(T)/peak: the load, as a multiple of the peak, past
    which the server cannot keep up;
    ``saturation_resource`` the resource that binds there (``"processors"`` or ``"pool"`` if it
    is then at least ``busy_share`` busy, else ``"threads"``). ``loads``: one row per multiple
    of :data:`MULTIPLES` (``multiple``, the load: ``arrival_rate`` or ``clients``, then
    throughput, response times, utilization, refused) with these settings; ``double`` is its
    row at twice the peak. ``max_response_time`` (s) and ``max_response_origin`` (a key of
    :data:`ORIGINS`): the longest acceptable response that sets B. ``yours``: the same
    ceilings and rows for the settings the user gave (threads, and connections and capacity
    if given), else None. ``objective``: the p99 objective and whether it is met, else None.
    ``inputs`` echoes the inputs (SI units).
    """

    inputs: dict
    headroom: float
    processors_needed: int
    threads: int
    connections: int | None
    capacity: int
    throughput: float
    response_time: float
    response_time_p50: float
    response_time_p95: float
    response_time_p99: float
    utilization: float
    refused: float
    processor_limit: float
    pool_limit: float | None
    thread_limit: float
    peak: float
    saturation_multiple: float
    saturation_resource: str
    saturation_threads: int
    peak_threads: int | None
    max_response_time: float
    max_response_origin: str
    loads: list = field(default_factory=list)
    double: dict = field(default_factory=dict)
    yours: dict | None = None
    objective: dict | None = None
    warnings: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def size(*, processors: int, cpu_time: float, wait_time: float,
         arrival_rate: float | None = None, clients: int | None = None,
         think_time: float | None = None, connections: int | None = None,
         threads: int | None = None, capacity: int | None = None,
         headroom: float = HEADROOM, max_response_time: float | None = None,
         read_timeout: float | None = None, p99_objective: float | None = None,
         target_utilization: float | None = None, busy_share: float = 0.95,
         tolerance: float = 0.10) -> Sizing:
    """Size processors, threads, pool and admission bound to carry ``headroom`` times a peak.

    Inputs: ``processors`` p, ``cpu_time`` s_c and ``wait_time`` s_w (s), either
    ``arrival_rate`` lambda (1/s) or ``clients`` K with ``think_time`` Z (s); optionally the
    user's own ``connections`` C, ``threads`` and ``capacity`` (B), and what bounds the
    response time: ``max_response_time``, or the client's or proxy's ``read_timeout``, or a
    ``p99_objective`` (s).

    * the peak throughput ``X_peak`` is ``lambda``, or ``K/(Z + S)`` (``S = s_c + s_w``); the
      **headroom** ``h`` (default :data:`HEADROOM`, 1.5) is the overload the settings must
      carry without refusing: ``h lambda`` arrivals, or ``ceil(h K)`` clients. Why 1.5: a
      peak measured or forecast is an average over minutes, and the load within it, a retry
      storm or a failed-over neighbour lands well above it; 1.5 carries half as much again,
      while the processors-needed criterion below then keeps the processors about 2/3 busy at
      the peak on large servers (the old fixed target was 70 %).
    * ``processors_needed``: the smallest ``p`` at which a request waits, on average, at most
      ``tolerance S`` for a processor (adds at most a tenth to its service time) at ``h``
      times the peak: :func:`erlang_c_servers` at ``h X_peak s_c`` erlangs with the tolerance
      ``tolerance S / s_c`` (M/M/p; processor sharing has the same number in service and so
      the same mean delay). This is square-root staffing, ``p ~ a + beta sqrt(a)``: a fixed
      utilization target over-provisions a large server (64 cores at 24 % busy wait for
      nothing) and under-provisions a small one; this criterion holds the processors' delay
      to the same share of ``S`` at every core count. A
      ``target_utilization`` given (say a vendor's ceiling) replaces it by
      ``max(1, ceil(X_peak s_c / target_utilization))``.
    * ``connections``: the given C, else (``s_w > 0``) :func:`erlang_c_connections` at
      ``h X_peak s_w`` (``s_w = 0``: no pool, None), and never more than the threads T (a
      connection no thread can hold is of no use; a given C larger than T gets a warning);
    * ``threads`` ``T = max(T_sat, T_peak)``: ``T_sat`` the smallest T with
      ``X_in(T) >= busy_share X_lim``; ``T_peak`` the smallest T whose response time at ``h``
      times the peak (B unbounded for open arrivals, ``B = K`` for closed ones) is within
      ``1 + tolerance`` of that with unlimited threads, when that load is stable (open:
      ``h lambda < X_lim``; closed: always), otherwise ``T_sat`` alone;
    * ``capacity`` ``B = max(T, ceil(R_max X_in(T) - 1e-9))`` (Little's law on the admitted
      requests: under overload an admitted request is answered in about ``R_max``) with
      ``R_max`` the given ``max_response_time``, else the ``p99_objective``, else the
      ``read_timeout``, else :data:`DEFAULT_READ_TIMEOUT`; ``max_response_origin`` says which;
    * the saturation multiple ``X_in(T)/X_peak`` and its resource (see :class:`Sizing`), and
      the rows at :data:`MULTIPLES` of the peak: throughput, response time, utilization and
      share refused with the given p and the sized T, C, B; the same for the user's threads
      (their C, else the sized one; their B, else none: Tomcat's default queue is unbounded);
    * with a ``p99_objective``: :func:`service_quantile` at 0.99 is a floor no setting goes
      below; an objective under it is refused by the service time itself. Above it, the
      objective is held **at the peak** (the load it is stated for; the rows show the p99 at
      the headroom and beyond) with the given processors: if the settings above miss it, the
      threads grow (with a sized pool in proportion, never above the threads, and B from
      ``R_max``) to the fewest that meet it, else ``objective["prevented_by"]`` names the
      pool given or the processors (see ``_meet``); ``objective`` also gives ``met``,
      ``p99_at_peak`` and the threads and pool before any growth.

    Raises ``ValueError`` naming the input and its range for bad input, and when the answer
    leaves the limits (more than 10^5 threads, connections or processors).
    """
    p, s_c, s_w, C, T_user = _resources(processors, cpu_time, wait_time, connections, threads)
    rate, K, Z = _load(arrival_rate, clients, think_time)
    B_user = None if capacity is None else integer(capacity, "capacity", low=1,
                                                   high=LIMITS["capacity"][1])
    if B_user is not None and T_user is None:
        raise ValueError("capacity= (your bound on admitted requests) goes with threads= "
                         "(your maxThreads): give both, or neither")
    if B_user is not None and B_user < T_user:
        raise ValueError(f"capacity must be at least the threads given ({T_user}): the "
                         f"admitted requests include those holding a thread, got {B_user}")
    h = real(headroom, "headroom", low=LIMITS["headroom"][0], high=LIMITS["headroom"][1])
    r_max, origin, bounds = _longest(max_response_time, read_timeout, p99_objective)
    target = None if target_utilization is None else real(
        target_utilization, "target_utilization", low=0.0, high=1.0, low_open=True)
    share = real(busy_share, "busy_share", low=0.0, high=1.0, low_open=True, high_open=True)
    tol = real(tolerance, "tolerance", low=0.0, high=10.0, low_open=True)
    inputs = {"processors": p, "cpu_time": s_c, "wait_time": s_w, "arrival_rate": rate,
              "clients": K, "think_time": Z, "connections": C, "threads": T_user,
              "capacity": B_user, "headroom": h, **bounds, "target_utilization": target,
              "busy_share": share,
              "tolerance": tol}
    plan = _settings(p, s_c, s_w, C, rate, K, Z, r_max, h, share, tol, target)
    objective = None if bounds["p99_objective"] is None else _objective(
        s_c, s_w, bounds["p99_objective"])
    if objective is not None and objective["met"] is None:
        reached = _meet(plan, p, s_c, s_w, rate, K, Z, r_max, bounds["p99_objective"])
        objective.update(met=reached["met"], prevented_by=reached["prevented_by"],
                         threads_before=plan["threads"],
                         connections_before=plan["connections"])
        plan = reached["plan"]
    plan["origin"] = origin
    holders = plan["holders"]
    setting = _Setting(plan["threads"], plan["capacity"])
    loads = _rows(holders, setting, rate, K, Z)
    at_peak = loads[0]
    multiple, resource = _saturation(holders, plan["threads"], plan["peak"], share)
    yours = None if T_user is None else _yours(p, s_c, s_w, C, plan, T_user, B_user, rate,
                                               K, Z, share)
    if objective is not None:
        objective["p99_at_peak"] = at_peak["response_time_p99"]
    warnings = _warnings(p, s_c, s_w, h, plan, at_peak, multiple, resource, yours,
                         objective, given_pool=C)
    return Sizing(
        inputs=inputs, headroom=h, processors_needed=plan["processors_needed"],
        threads=plan["threads"], connections=plan["connections"], capacity=plan["capacity"],
        throughput=at_peak["throughput"], response_time=at_peak["response_time"],
        response_time_p50=at_peak["response_time_p50"],
        response_time_p95=at_peak["response_time_p95"],
        response_time_p99=at_peak["response_time_p99"],
        utilization=at_peak["utilization"], refused=at_peak["refused"],
        processor_limit=p / s_c,
        pool_limit=(None if plan["connections"] is None or s_w == 0
                    else plan["connections"] / s_w),
        thread_limit=holders.at(plan["threads"]), peak=plan["peak"],
        saturation_multiple=multiple, saturation_resource=resource,
        saturation_threads=plan["saturation_threads"], peak_threads=plan["peak_threads"],
        max_response_time=r_max, max_response_origin=origin, loads=loads,
        double=loads[MULTIPLES.index(2.0)], yours=yours, objective=objective,
        warnings=warnings)


def _longest(max_response_time, read_timeout, p99_objective) -> tuple[float, str, dict]:
    """R_max, the key of :data:`ORIGINS` it came from, and the three inputs checked."""
    given = {}
    for name, value in (("max_response_time", max_response_time),
                        ("read_timeout", read_timeout), ("p99_objective", p99_objective)):
        given[name] = None if value is None else real(
            value, name, low=0.0, low_open=True, high=LIMITS[name][1], unit="s")
    for name in ("max_response_time", "p99_objective", "read_timeout"):
        if given[name] is not None:
            return given[name], name, given
    return DEFAULT_READ_TIMEOUT, "default", given


def _measure(h: Holders, setting: _Setting, rate, K, Z) -> ServerState:
    return _open(h, setting, rate) if rate is not None else _closed(h, setting, K, Z)


def _scaled(rate, K, multiple: float):
    """The load at ``multiple`` times the peak: ``multiple lambda``, or ``ceil(multiple K)``
    clients."""
    return (multiple * rate, None) if rate is not None else (None, _ceil(multiple * K))


def _row(h: Holders, setting: _Setting, rate, K, Z, multiple: float) -> dict:
    r, k = _scaled(rate, K, multiple)
    st = _measure(h, setting, r, k, Z)
    p50, p95, p99 = percentiles(h, setting, r, k, Z)
    return {"multiple": multiple, "arrival_rate": r, "clients": k,
            "throughput": st.throughput, "response_time": st.response_time,
            "response_time_p50": p50, "response_time_p95": p95, "response_time_p99": p99,
            "utilization": st.utilization, "refused": st.refused}


def percentiles(h: Holders, setting: _Setting, rate, K, Z, probabilities=(0.5, 0.95, 0.99)
                ) -> tuple[float, ...]:
    """p50, p95 and p99 (s) of the response time of admitted requests (definition 4): the
    fast method of :func:`queuetune.models.passage.fast_quantiles` on the chain of
    definition 2, with the arrival weights an admitted arrival finds (open: ``pi(n)``,
    ``n < B``; closed: ``(K - n) pi(n)``; ``Z = 0``: a departure's level ``B - 1``). Open
    arrivals past ``min(T, B)`` form a geometric series (ratio ``lambda/X_in(T)``, up to ``B - 1``
    or without end), passed as the fast method's geometric tail and summed in closed form.
    An open load that is not stable (``B`` unbounded) has infinite percentiles. Past
    saturation with a large ``B`` nearly every admitted request waits about ``B / X_in(T)``,
    a narrow wait the fast method evaluates in the time domain (``passage._narrow_chunks``):
    every row has its percentiles."""
    from .models import passage  # NumPy only: the exact method's SciPy is not imported

    T, B = setting.threads, setting.capacity
    ratio, length = None, 0
    if rate is not None:
        if T is None:
            T = _open_cut(h, rate, B)
        n0 = T if B is None else min(T, B)
        top_rate = h.at(T)
        if B is None and rate >= top_rate:
            return tuple(math.inf for _ in probabilities)
        x = h.upto(n0)
        lw = np.concatenate([[0.0], np.cumsum(np.log(rate / x[1:]))])  # log w(0..n0)
        if B is not None and B <= T:  # levels 0..B-1 admit
            arrivals = _weights(lw[:-1])
        else:  # levels 0..T, then w(T) r^i up to B - 1 (or without end)
            arrivals = _weights(lw)
            ratio = rate / top_rate
            length = math.inf if B is None else B - 1 - T
    else:
        B = K if B is None else min(B, K)
        if T is None:
            T = min(h.until_converged(B), B)
        if Z == 0.0:
            arrivals = np.zeros(B)
            arrivals[-1] = 1.0
        else:
            n = np.arange(B + 1, dtype=np.float64)
            x = h.upto(min(T, B))
            death = x[np.minimum(n[1:], T).astype(np.int64)]
            lw = np.concatenate([[0.0], np.cumsum(np.log((K - n[:-1]) / Z) - np.log(death))])
            lw = lw[:-1] + np.log(K - n[:-1])  # (K - n) pi(n), n < B
            arrivals = _weights(lw)
    holders = min(T, B) if B is not None else T
    C = h.C if (h.C is not None and h.s_w > 0 and h.C < holders) else None
    q = passage.fast_quantiles(
        arrivals=arrivals, holders_throughput=h.upto(holders), threads=T, cpu_time=h.s_c,
        wait_time=h.s_w, processors=h.p, connections=C,
        tail_ratio=ratio if length else None, tail_length=length, probabilities=probabilities)
    return tuple(float(v) for v in q)


def _rows(h: Holders, setting: _Setting, rate, K, Z) -> list[dict]:
    return [_row(h, setting, rate, K, Z, m) for m in MULTIPLES]


def _saturation(h: Holders, threads: int, peak: float, share: float) -> tuple[float, str]:
    """X_in(T)/peak and the resource that binds there (see :class:`Sizing`)."""
    ceiling = h.at(threads)
    busy = {"processors": ceiling * h.s_c / h.p,
            "pool": (0.0 if h.C is None or h.s_w == 0 else ceiling * h.s_w / h.C)}
    resource = max(("processors", "pool"), key=lambda r: busy[r])
    if busy[resource] < share * (1 - 1e-9):
        resource = "threads"
    return ceiling / peak, resource


def _settings(p, s_c, s_w, C, rate, K, Z, r_max, headroom, share, tol, target) -> dict:
    peak = rate if rate is not None else K / (Z + s_c + s_w)
    if target is None:
        needed = erlang_c_servers(load=headroom * peak * s_c, what="processors",
                                  tolerance=tol * (s_c + s_w) / s_c)
    else:
        needed = max(1, math.ceil(peak * s_c / target))
    sized_pool = C is None and s_w > 0
    if sized_pool:
        C = erlang_c_connections(load=headroom * peak * s_w, tolerance=tol)
    h = Holders(processors=p, cpu_time=s_c, wait_time=s_w, connections=C)
    t_sat = _saturation_threads(h, share)
    t_peak = _peak_threads(h, *_scaled(rate, K, headroom), Z, tol)
    T = max(t_sat, t_peak or 0)
    if sized_pool and C > T:  # connections no thread can hold (X_in(m <= T) is the same)
        C = T
        h = Holders(processors=p, cpu_time=s_c, wait_time=s_w, connections=C)
    B = max(T, _ceil(r_max * h.at(T)))
    return {"peak": peak, "processors_needed": needed, "target": target, "connections": C,
            "holders": h, "saturation_threads": t_sat, "peak_threads": t_peak, "threads": T,
            "capacity": B, "sized_pool": sized_pool}


def _meet(plan: dict, p, s_c, s_w, rate, K, Z, r_max, goal: float) -> dict:
    """The p99 objective at the peak (definition 4, with the given processors): the plan's
    settings if their p99 is within ``goal``; else the threads grown (doubling, then
    bisection to the fewest), a sized pool with them in proportion (never above the threads),
    and B recomputed from ``R_max``, until it is; the growth stops where it no longer helps
    (the p99 changes by less than 1e-6 relative from one doubling to the next) or at the
    threads' limit, and the resource that prevents it is named: a pool given, if the same
    threads with no pool limit would meet it, else the processors."""
    T0, C0 = plan["threads"], plan["connections"]

    def trial(T: int, pool: int | None = None, free_pool: bool = False) -> tuple:
        C = (None if free_pool else pool if pool is not None
             else C0 if not plan["sized_pool"] else min(T, math.ceil(C0 * T / T0)))
        h = Holders(processors=p, cpu_time=s_c, wait_time=s_w, connections=C)
        B = max(T, _ceil(r_max * h.at(T)))
        return percentiles(h, _Setting(T, B), rate, K, Z, (0.99,))[0], h, C, B

    first = got = trial(T0)
    out = {"p99": first[0], "met": first[0] <= goal, "prevented_by": None, "plan": plan}
    if out["met"]:
        return out
    lo, hi, best, last = T0, T0, None, first[0]
    while hi < LIMITS["threads"][1]:
        lo, hi = hi, min(2 * hi, LIMITS["threads"][1])
        got = trial(hi)
        if got[0] <= goal:
            best = got
            break
        if abs(got[0] - last) <= 1e-6 * last:  # more threads change nothing
            break
        last = got[0]
    if best is None:
        blocked = ("the pool" if C0 is not None and not plan["sized_pool"]
                   and trial(hi, free_pool=True)[0] <= goal else "the processors")
        return {**out, "p99": min(last, got[0]), "prevented_by": blocked}
    while hi - lo > 1:  # trial(hi) meets the goal, trial(lo) does not
        mid = (lo + hi) // 2
        got = trial(mid)
        if got[0] <= goal:
            hi, best = mid, got
        else:
            lo = mid
    p99, h, C, B = best
    grown = {**plan, "threads": hi, "connections": C, "holders": h, "capacity": B}
    return {"p99": p99, "met": True, "prevented_by": None, "plan": grown}


def _yours(p, s_c, s_w, C, plan, T, B, rate, K, Z, share) -> dict:
    """The ceilings and rows of the user's settings: their threads, their pool (else the
    sized one), their bound (else none)."""
    pool = C if C is not None else plan["connections"]
    h = Holders(processors=p, cpu_time=s_c, wait_time=s_w, connections=pool)
    multiple, resource = _saturation(h, T, plan["peak"], share)
    loads = _rows(h, _Setting(T, B), rate, K, Z)
    return {"threads": T, "connections": pool, "capacity": B,
            "thread_limit": h.at(T), "saturation_multiple": multiple,
            "saturation_resource": resource, "loads": loads}


def _objective(s_c: float, s_w: float, p99: float) -> dict:
    floor = service_quantile(cpu_time=s_c, wait_time=s_w, q=0.99)
    met, by = (False, "the service time itself") if floor > p99 else (None, None)
    return {"p99_objective": p99, "service_p99": floor, "met": met, "prevented_by": by,
            "p99_at_peak": None, "threads_before": None, "connections_before": None}


def _ceil(x: float) -> int:
    """ceil(x), with x within 1e-9 above an integer taken as that integer: R_max X_in(T) is
    often an integer up to rounding (X_in(T) = T/S while nothing queues)."""
    return math.ceil(x - 1e-9)


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _g4(x: float) -> str:
    """x to 4 significant digits, written as JavaScript writes it (the calculator's words)."""
    v = float(f"{x:.4g}")
    return str(int(v)) if v.is_integer() and abs(v) < 1e21 else repr(v)


def _ms(x: float) -> str:
    return f"{_g4(1000 * x)} ms"


def _too_many_threads(what: str) -> ValueError:
    return ValueError(f"{what} needs more than {LIMITS['threads'][1]} threads, the most this "
                      "sizing covers: give more processors= or connections=, or split the load")


def _saturation_threads(h: Holders, share: float) -> int:
    goal = share * h.limit
    m = 1
    while h.at(m) < goal:
        m += 1
        if m > LIMITS["threads"][1]:
            raise _too_many_threads("keeping the server busy")
    return m


def _peak_threads(h: Holders, rate, K, Z, tol) -> int | None:
    """T_peak by doubling then bisection (R decreases as T grows), or None when the load is
    unstable."""
    if rate is not None:
        if rate >= h.limit:
            return None
        goal = (1 + tol) * _open(h, _Setting(None, None), rate).response_time
        first = 1
        while h.at(first) <= rate:  # the smallest T with a stable chain
            first += 1
            if first > LIMITS["threads"][1]:
                raise _too_many_threads("answering the load")
        def within(t: int) -> bool:
            return _open(h, _Setting(t, None), rate).response_time <= goal
    else:
        goal = (1 + tol) * _closed(h, _Setting(None, K), K, Z).response_time
        first = 1

        def within(t: int) -> bool:
            return _closed(h, _Setting(t, K), K, Z).response_time <= goal
    if within(first):
        return first
    lo, hi = first, 2 * first
    while not within(hi if K is None else min(hi, K)):
        lo, hi = hi, 2 * hi
        if lo > LIMITS["threads"][1]:
            raise _too_many_threads("answering the load in time")
    if K is not None:
        hi = min(hi, K)
    while hi - lo > 1:  # within(hi) and not within(lo)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if within(mid) else (mid, hi)
    if hi > LIMITS["threads"][1]:
        raise _too_many_threads("answering the load in time")
    return hi


def _warnings(p, s_c, s_w, headroom, plan, at_peak, multiple, resource, yours, objective,
              *, given_pool) -> list[str]:
    notes = []
    peak, h = plan["peak"], plan["holders"]
    if p < plan["processors_needed"]:
        are = "processors are" if p > 1 else "processor is"
        notes.append(f"{p} {are} fewer than the {plan['processors_needed']} that carry "
                     f"{_g4(headroom)}× the peak" if plan["target"] is None else
                     f"{p} {are} fewer than the {plan['processors_needed']} that keep under "
                     f"{_g4(100 * plan['target'])} % busy at the peak")
    pool_limit = (math.inf if plan["connections"] is None or s_w == 0
                  else plan["connections"] / s_w)
    if pool_limit < peak and pool_limit < p / s_c:  # the pool, not the processors, binds
        word = "connection" if plan["connections"] == 1 else "connections"
        notes.append(f"a pool of {plan['connections']} {word} completes at most "
                     f"{_g4(plan['connections'] / s_w)} requests/s, below the peak of "
                     f"{_g4(peak)}")
    if given_pool is not None and given_pool > plan["threads"]:
        notes.append(f"your pool of {given_pool} connections is larger than the "
                     f"{plan['threads']} threads recommended: at most {plan['threads']} can be "
                     "in use")
    if peak >= h.limit:
        then = (f"{_percent(at_peak['refused'])} of the requests are refused"
                if at_peak["refused"] > 0.0005 else "the clients wait longer and send less")
        notes.append(f"the peak of {_g4(peak)} requests/s is more than the server can "
                     f"complete ({_g4(h.limit)}/s): {then}")
    elif at_peak["refused"] > 0.01:
        notes.append(f"{_percent(at_peak['refused'])} of the requests are refused at the peak")
    if multiple < headroom:
        notes.append(f"these settings saturate at {_g4(multiple)}× the peak ({resource}), "
                     f"below the headroom of {_g4(headroom)}×")
    if yours is not None:
        notes.append(f"your settings (T = {yours['threads']}) saturate at "
                     f"{_g4(yours['saturation_multiple'])}× the peak "
                     f"({yours['saturation_resource']})")
        if yours["connections"] is not None and yours["connections"] > yours["threads"]:
            notes.append(f"your pool of {yours['connections']} connections is larger than "
                         f"your {yours['threads']} threads: at most {yours['threads']} can "
                         "be in use")
    if plan["origin"] == "default":
        notes.append(f"no read timeout and no p99 objective given: B lets an admitted request "
                     f"wait up to {_g4(DEFAULT_READ_TIMEOUT)} s under overload (nginx's "
                     "default proxy_read_timeout); give yours to bound it")
    if objective is not None and objective["met"] is False:
        if objective["prevented_by"] == "the service time itself":
            notes.append(f"the p99 objective of {_ms(objective['p99_objective'])} cannot be "
                         f"met: the service alone takes {_ms(objective['service_p99'])} at "
                         "p99, with no queueing")
        elif objective["prevented_by"] == "the pool":
            notes.append(f"the p99 objective of {_ms(objective['p99_objective'])} is not met "
                         f"at the peak ({_ms(objective['p99_at_peak'])}): your pool of "
                         f"{plan['connections']} connections prevents it (more threads do "
                         "not help; a larger pool would)")
        else:
            are = "processors" if p > 1 else "processor"
            notes.append(f"the p99 objective of {_ms(objective['p99_objective'])} is not met "
                         f"at the peak ({_ms(objective['p99_at_peak'])}): the {p} {are} "
                         "given prevent it (more threads do not help; more processors would)")
    elif objective is not None and objective["threads_before"] != plan["threads"]:
        notes.append(f"threads grown from {objective['threads_before']} to {plan['threads']}"
                     + (f" and the pool from {objective['connections_before']} to "
                        f"{plan['connections']}"
                        if objective["connections_before"] != plan["connections"] else "")
                     + f" to meet the p99 objective of {_ms(objective['p99_objective'])} at "
                     "the peak")
    return notes
