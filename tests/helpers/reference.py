"""Independent high-precision references for the model tests.

Nothing here imports :mod:`queuetune`: every reference is written from the model's definition
and evaluated with mpmath (or, for the small thread-pool chains, a dense solve of a chain
enumerated state by state).
"""

from __future__ import annotations

import itertools

import mpmath as mp
import numpy as np

DIGITS = 50

#: The metrics every finite-source result has (the mm1bk model and the thread pool).
FINITE_SOURCE_METRICS = (
    "throughput",
    "response_time",
    "utilization",
    "mean_in_system",
    "p0",
    "error_rate",
    "rejection_probability",
    "attempt_rate",
    "drop_rate",
)
#: The thread pool's metrics: the finite-source ones and those of the threads.
THREAD_POOL_METRICS = FINITE_SOURCE_METRICS + ("busy_threads", "queue_length", "queue_wait")


def birth_death(births, deaths):
    """Normalized stationary probabilities of a birth-death chain, in mpmath.

    ``births[n]`` is the rate n -> n + 1, ``deaths[n]`` the rate n + 1 -> n.
    """
    with mp.workdps(DIGITS):
        terms = [mp.mpf(1)]
        for up, down in zip(births, deaths, strict=True):
            terms.append(terms[-1] * mp.mpf(up) / mp.mpf(down))
        total = mp.fsum(terms)
        return [t / total for t in terms]


def finite_source_metrics(p, clients, capacity, think_time, departure_rates, cpu_busy=None):
    """The finite-source metrics from P(n) and the departure rate in each state n (mpmath)."""
    with mp.workdps(DIGITS):
        K, Z = mp.mpf(clients), mp.mpf(think_time)
        n_states = len(p)
        x = mp.fsum(p[n] * departure_rates[n] for n in range(n_states))
        mean = mp.fsum(n * p[n] for n in range(n_states))
        thinking = mp.fsum((K - n) * p[n] for n in range(n_states))
        full = p[capacity] if capacity <= clients else mp.mpf(0)
        lost = (K - capacity) * full if capacity <= clients else mp.mpf(0)
        # the busy probability summed over the busy states: 1 - p_0 would cancel below 1e-50
        busy = mp.fsum(p[1:]) if cpu_busy is None else mp.fsum(
            p[n] * cpu_busy[n] for n in range(n_states)
        )
        return {
            "throughput": x,
            "response_time": mean / x,
            "utilization": busy,
            "mean_in_system": mean,
            "p0": p[0],
            "error_rate": full,
            "rejection_probability": lost / thinking,
            "attempt_rate": thinking / Z,
            "drop_rate": lost / Z,
        }


def mm1bk_equations(clients, capacity, service_time, think_time):
    """Imre et al. eqs. (3)-(5) term by term: p_k = p_0 K!/((K-k)! (mu Z)^k)."""
    with mp.workdps(DIGITS):
        K, S, Z = clients, mp.mpf(service_time), mp.mpf(think_time)
        mu = 1 / S
        top = min(capacity, clients)
        terms = [
            mp.factorial(K) / (mp.factorial(K - k) * (mu * Z) ** k) for k in range(top + 1)
        ]
        p0 = 1 / mp.fsum(terms)  # eq. (4)
        p = [p0 * t for t in terms]  # eq. (3)
        out = finite_source_metrics(
            p, clients, capacity, think_time, [0] + [mu] * top
        )
        out["probabilities"] = p
        return out


def mm1bk_incomplete_gamma(clients, ratio):
    """p0, N and p_K of M/M/1//K (capacity >= clients) from the regularized upper incomplete
    gamma function Q: sum_{k=0..K} K!/((K-k)! r^k) = K! r^-K e^r Q(K + 1, r); N = K - r U.
    """
    with mp.workdps(DIGITS):
        K, r = mp.mpf(clients), mp.mpf(ratio)
        log_g = mp.loggamma(K + 1) - K * mp.log(r) + r + mp.log(
            mp.gammainc(K + 1, r, mp.inf, regularized=True)
        )
        p0 = mp.exp(-log_g)
        busy = 1 - p0
        return {
            "p0": p0,
            "utilization": busy,
            "mean_in_system": K - r * busy,
            "last": mp.exp(mp.loggamma(K + 1) - K * mp.log(r) - log_g),
        }


def mmm_bk(clients, capacity, servers, service_time, think_time):
    """M/M/m/B/K: birth (K - n)/Z, death min(n, m)/S."""
    top = min(capacity, clients)
    births = [mp.mpf(clients - n) / mp.mpf(think_time) for n in range(top)]
    deaths = [mp.mpf(min(n, servers)) / mp.mpf(service_time) for n in range(1, top + 1)]
    p = birth_death(births, deaths)
    return finite_source_metrics(p, clients, capacity, think_time, [0] + deaths)


def closed_network_ld(population, demand, multipliers, think_time):
    """X(n), R(n) and Q(n), n = 1..N, of one load-dependent station plus a think time, by
    normalizing constants in mpmath: G(n) = sum_j f(j) Z^(n-j)/(n-j)!."""
    with mp.workdps(DIGITS):
        D, Z = mp.mpf(demand), mp.mpf(think_time)
        f = [mp.mpf(1)]
        for j in range(1, population + 1):
            f.append(f[-1] * D / mp.mpf(multipliers(j)))
        think = [Z**i / mp.factorial(i) for i in range(population + 1)]
        g = [mp.fsum(f[j] * think[n - j] for j in range(n + 1)) for n in range(population + 1)]
        x = [g[n - 1] / g[n] for n in range(1, population + 1)]
        q = [
            mp.fsum(j * f[j] * think[n - j] for j in range(n + 1)) / g[n]
            for n in range(1, population + 1)
        ]
        r = [q[i] / x[i] for i in range(population)]
        return x, r, q


def thread_pool_chain(clients, capacity, threads, cpu_time, wait_time, think_time,
                      thread_overhead=0.0, pool_overhead=0.0):
    """Enumerate the (q, c, w) chain state by state from the model's description and solve it
    densely; returns the metrics of a ThreadPoolResult (floats)."""
    K, B, T = clients, capacity, threads
    top = min(K, B)
    has_cpu, has_wait = cpu_time > 0, wait_time > 0
    states = [
        (q, c, w)
        for q, c, w in itertools.product(range(top + 1), range(T + 1), range(T + 1))
        if q + c + w <= top and c + w <= T and (q == 0 or c + w == T)
        and (has_cpu or c == 0) and (has_wait or w == 0)
    ]
    index = {s: i for i, s in enumerate(states)}
    gen = np.zeros((len(states), len(states)))
    departures = np.zeros(len(states))

    def add(src, dst, rate):
        gen[index[src], index[dst]] += rate

    for s in states:
        q, c, w = s
        n, busy = q + c + w, c + w
        if n < top:
            if busy < T:
                add(s, (q, c + 1, w) if has_cpu else (q, c, w + 1), (K - n) / think_time)
            else:
                add(s, (q + 1, c, w), (K - n) / think_time)
        if c >= 1:
            cpu_eff = cpu_time * (1 + thread_overhead * (busy - 1)) * (1 + pool_overhead * T)
            if has_wait:
                add(s, (q, c - 1, w + 1), 1 / cpu_eff)
            else:
                departures[index[s]] = 1 / cpu_eff
                add(s, (q - 1, c, w) if q > 0 else (q, c - 1, w), 1 / cpu_eff)
        if w >= 1:
            departures[index[s]] = w / wait_time
            if q > 0:
                add(s, (q - 1, c + 1, w - 1) if has_cpu else (q - 1, c, w), w / wait_time)
            else:
                add(s, (q, c, w - 1), w / wait_time)
    gen -= np.diag(gen.sum(axis=1))
    system = np.vstack([gen.T, np.ones(len(states))])
    rhs = np.zeros(len(states) + 1)
    rhs[-1] = 1.0
    pi = np.linalg.lstsq(system, rhs, rcond=None)[0]
    levels = np.zeros(top + 1)
    for s, prob in zip(states, pi, strict=True):
        levels[sum(s)] += prob
    n = np.arange(top + 1)
    x = float(pi @ departures)
    mean = float(levels @ n)
    thinking = float(levels @ (K - n))
    full = levels[B] if B <= K else 0.0
    queue = float(sum(prob * s[0] for s, prob in zip(states, pi, strict=True)))
    return {
        "throughput": x,
        "response_time": mean / x,
        "utilization": float(sum(prob for s, prob in zip(states, pi, strict=True) if s[1] >= 1)),
        "mean_in_system": mean,
        "p0": levels[0],
        "error_rate": full,
        "rejection_probability": (K - B) * full / thinking if B <= K else 0.0,
        "busy_threads": float(sum(prob * (s[1] + s[2]) for s, prob in zip(states, pi,
                                                                          strict=True))),
        "queue_length": queue,
        "queue_wait": queue / x,
        "probabilities": levels,
    }
