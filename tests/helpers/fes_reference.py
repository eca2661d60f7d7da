"""Independent routes to the flow-equivalent server, for the tests of queuetune.sizing and
queuetune.models.flow_equivalent: the holders' throughput by the full convolution, the explicit
birth-death chain, and random configurations of the documented domain."""

from __future__ import annotations

import math
import random

import numpy as np


def brute_holders(p, s_c, s_w, C, m_max):
    """X_in(m) = G(m-1)/G(m) by the full convolution of the weights, in logs."""
    def log_a(c):
        return c * math.log(s_c) - sum(math.log(min(i, p)) for i in range(1, c + 1))

    def log_b(w):
        return w * math.log(s_w) - sum(math.log(min(i, C) if C else i) for i in range(1, w + 1))

    la = [log_a(c) for c in range(m_max + 1)]
    lb = [log_b(w) for w in range(m_max + 1)]
    log_g = [np.logaddexp.reduce([la[c] + lb[m - c] for c in range(m + 1)])
             for m in range(m_max + 1)]
    return np.array([0.0] + [math.exp(log_g[m - 1] - log_g[m]) for m in range(1, m_max + 1)])


def brute_chain(death, *, rate=None, clients=None, think=None, capacity):
    """Mean throughput, admitted and refused share of an explicit birth-death chain 0..B."""
    B = capacity
    birth = (np.full(B, rate) if rate is not None
             else (clients - np.arange(B)) / think)
    log_w = np.concatenate([[0.0], np.cumsum(np.log(birth) - np.log(death[1:B + 1]))])
    w = np.exp(log_w - log_w.max())
    pi = w / w.sum()
    n = np.arange(B + 1)
    x = float((pi * death[: B + 1]).sum())
    if rate is not None:
        refused = float(pi[-1])
    else:
        sent = float((pi * (clients - n)).sum())
        refused = float(pi[-1] * (clients - B) / sent)
    return x, float((pi * n).sum()), refused


def model_configurations(n: int, seed: int) -> list[dict]:
    """Random servers of the documented domain: processors, pools, threads or none, open or
    closed loads."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        p = rng.choice([1, 2, 4, 8, 16, 64])
        kw = dict(processors=p, cpu_time=round(rng.uniform(0.002, 0.05), 4),
                  wait_time=rng.choice([0.0, round(rng.uniform(0.01, 0.4), 4)]),
                  threads=rng.choice([None, rng.randint(1, 200)]),
                  connections=rng.choice([None, rng.randint(1, 100)]),
                  capacity=rng.randint(1, 600))
        if rng.random() < 0.5:
            kw["arrival_rate"] = round(rng.uniform(0.1, 1.5) * p / kw["cpu_time"], 3)
        else:
            kw["clients"] = rng.randint(1, 800)
            kw["think_time"] = round(rng.uniform(0.1, 5), 3)
        out.append(kw)
    return out
