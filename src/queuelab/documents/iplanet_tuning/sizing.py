"""The sizing rules of the iPlanet Web Server 6.0 tuning guide as small calculators.

* :func:`memory_mb` - RAM for a server (IP-C5): a 64 MB baseline, at least 64 MB per CPU, and
  512 KB per peak concurrent user beyond the first 50.
* :func:`bandwidth_kb_s`, :func:`bandwidth_kbit_s`, :func:`t1_lines` - WAN bandwidth (IP-C6):
  peak users x average document size / the seconds a user will wait for a document, and the
  number of T1 lines (1544 kbit/s each) that carry it.
* :func:`max_throughput`, :func:`threads_for_throughput` - the RqThrottle bound (IP-C4): N
  request threads, each busy ``t`` seconds per request, complete at most N / t requests per
  second; conversely a target rate X needs at least X * t threads (Little's law).

The rules' constants (64 MB, 50 users, 512 KB, 1544 kbit/s) are read from
``data/iplanet-tuning/stated_values.csv``; every argument can override them. Bad input raises
``ValueError`` naming the parameter and the allowed range.

>>> memory_mb(4)
256.0
>>> t1_lines(bandwidth_kbit_s(50, 24, 5))
2
>>> max_throughput(1, 0.005)
200.0
"""

from __future__ import annotations

import math
from functools import cache

from ... import data, stated
from ..._validation import integer, real

__all__ = [
    "BYTES_PER_KB",
    "COMPOSITIONS",
    "DOC",
    "KB_PER_MB",
    "bandwidth_kb_s",
    "bandwidth_kbit_s",
    "max_throughput",
    "memory_mb",
    "rule_constant",
    "t1_lines",
    "threads_for_throughput",
]

DOC = "iplanet-tuning"
# Memory sizes are binary: 512 KB per user is half a megabyte.
KB_PER_MB = 1024
# Bytes in the guide's "kB" of document sizes: its example (240 KB/s = 1920 kbit/s, compared
# with a T1 line of 1544 kbit/s = 1,544,000 bit/s) multiplies by 8 with one and the same
# decimal kilo. 1024 is offered for comparison.
BYTES_PER_KB = (1000, 1024)
COMPOSITIONS = ("example", "additive")
# Quantity names in stated_values.csv of the rules' constants.
_CONSTANTS = {
    "memory_baseline_mb": "memory_baseline",
    "memory_per_cpu_mb": "memory_per_cpu_min",
    "users_before_extra_memory": "users_before_extra_memory",
    "memory_per_extra_user_kb": "memory_per_extra_user",
    "t1_line_kbit_s": "t1_line_rate",
}
# Relative tolerance when a ratio that is whole in exact arithmetic is rounded up.
_REL_TOL = 1e-9


def _round_up(ratio: float) -> int:
    """``ceil(ratio)``, but a ratio within rounding noise of a whole number is that number."""
    nearest = round(ratio)
    if nearest > 0 and math.isclose(ratio, nearest, rel_tol=_REL_TOL, abs_tol=0.0):
        return int(nearest)
    return math.ceil(ratio)


def rule_constant(name: str) -> float:
    """A constant of the sizing rules as the guide states it (see ``_CONSTANTS`` for names).

    >>> rule_constant("t1_line_kbit_s")
    1544.0
    """
    if name not in _CONSTANTS:
        raise ValueError(f"name must be one of {sorted(_CONSTANTS)}, got {name!r}")
    return _constant(_CONSTANTS[name], str(data.data_dir()))


@cache
def _constant(quantity: str, root: str) -> float:
    # ``root`` keys the cache, so that another data folder (QUEUELAB_DATA) is read afresh.
    return stated.number(DOC, quantity)


def memory_mb(
    cpus: int,
    peak_users: int = 0,
    *,
    composition: str = "example",
    baseline_mb: float | None = None,
    per_cpu_mb: float | None = None,
    users_included: int | None = None,
    per_user_kb: float | None = None,
) -> float:
    """RAM in MB the guide's memory rule (IP-C5) asks for.

    "As a baseline, iPlanet Web Server requires 64MB RAM. Multiple CPUs require at least 64MB
    per CPU. For example, if you have four CPUs, you should install at least 256MB RAM [...]
    After the first 50 concurrent users, add an extra 512KB per peak concurrent user."

    The text does not say how the baseline and the per-CPU memory combine; its example gives
    4 x 64 = 256 MB, not 64 + 4 x 64 = 320 MB. ``composition`` picks the reading:

    * ``"example"`` (default): max(baseline, cpus x per-CPU) - the per-CPU memory includes the
      baseline, as in the four-CPU example;
    * ``"additive"``: baseline + cpus x per-CPU for more than one CPU (the baseline alone for
      one CPU) - the two sentences read as separate additions.

    Users: ``per_user_kb`` for every peak concurrent user beyond ``users_included``, at 1024 KB
    per MB. ``cpus`` an integer in [1, inf), ``peak_users`` an integer in [0, inf).
    """
    cpus = integer(cpus, "cpus", low=1)
    peak_users = integer(peak_users, "peak_users", low=0)
    if composition not in COMPOSITIONS:
        raise ValueError(f"composition must be one of {COMPOSITIONS}, got {composition!r}")
    base = real(rule_constant("memory_baseline_mb") if baseline_mb is None else baseline_mb,
                "baseline_mb", low=0, unit="MB")
    per_cpu = real(rule_constant("memory_per_cpu_mb") if per_cpu_mb is None else per_cpu_mb,
                   "per_cpu_mb", low=0, unit="MB")
    included = integer(int(rule_constant("users_before_extra_memory"))
                       if users_included is None else users_included,
                       "users_included", low=0)
    per_user = real(rule_constant("memory_per_extra_user_kb") if per_user_kb is None
                    else per_user_kb, "per_user_kb", low=0, unit="KB")
    if composition == "example":
        cpu_part = max(base, cpus * per_cpu)
    else:
        cpu_part = base + cpus * per_cpu if cpus > 1 else base
    return cpu_part + max(0, peak_users - included) * per_user / KB_PER_MB


def bandwidth_kb_s(users: float, document_kb: float, transfer_time_s: float) -> float:
    """WAN bandwidth in kB/s (IP-C6): peak users x average document size / transfer time.

    "[...] multiply that number of users by the average request size on your site [...] decide
    how long the average user will be willing to wait for a document, at peak utilization.
    Divide by that number of seconds." ``users`` in [0, inf), ``document_kb`` in [0, inf) kB,
    ``transfer_time_s`` in (0, inf) s.
    """
    users = real(users, "users", low=0)
    size = real(document_kb, "document_kb", low=0, unit="kB")
    seconds = real(transfer_time_s, "transfer_time_s", low=0, low_open=True, unit="s")
    return users * size / seconds


def bandwidth_kbit_s(users: float, document_kb: float, transfer_time_s: float, *,
                     bytes_per_kb: int = 1000) -> float:
    """The same bandwidth in kbit/s (1 kbit = 1000 bit, as in the T1 rate of 1544 kbit/s).

    ``bytes_per_kb`` is the size of the document's "kB": 1000 (what the guide's example
    implies: 240 kB/s x 8 = 1920 kbit/s) or 1024 (which would give 1966.08 kbit/s).
    """
    if isinstance(bytes_per_kb, bool) or bytes_per_kb not in BYTES_PER_KB:
        raise ValueError(f"bytes_per_kb must be one of {BYTES_PER_KB}, got {bytes_per_kb!r}")
    return bandwidth_kb_s(users, document_kb, transfer_time_s) * bytes_per_kb * 8 / 1000


def t1_lines(kbit_s: float, *, line_kbit_s: float | None = None) -> int:
    """T1 lines needed for ``kbit_s`` of WAN bandwidth: the ratio rounded up.

    ``line_kbit_s`` defaults to the guide's 1544 kbit/s per T1 line. ``kbit_s`` in [0, inf)
    kbit/s, ``line_kbit_s`` in (0, inf) kbit/s.
    """
    need = real(kbit_s, "kbit_s", low=0, unit="kbit/s")
    line = real(rule_constant("t1_line_kbit_s") if line_kbit_s is None else line_kbit_s,
                "line_kbit_s", low=0, low_open=True, unit="kbit/s")
    lines = _round_up(need / line)
    return max(lines, 1) if need > 0 else lines  # a tiny positive need still needs a line


def max_throughput(threads: int, request_time_s: float) -> float:
    """Upper bound on completed requests per second with ``threads`` request threads (IP-C4).

    Each request holds a thread for ``request_time_s`` seconds, so ``threads`` threads finish
    at most ``threads / request_time_s`` requests per second (the bound is reached only when
    every thread is always busy). ``threads`` an integer in [1, inf), ``request_time_s`` in
    (0, inf) s.
    """
    n = integer(threads, "threads", low=1)
    t = real(request_time_s, "request_time_s", low=0, low_open=True, unit="s")
    return n / t


def threads_for_throughput(throughput: float, request_time_s: float) -> int:
    """Fewest request threads (RqThrottle) that can sustain ``throughput`` requests per second.

    By Little's law the mean number of busy threads is throughput x request time; the pool
    needs at least that many, rounded up. This is a floor: bursts queue unless there is
    headroom, and requests that wait on slow clients (IOTimeout) hold threads longer.
    ``throughput`` in (0, inf) requests/s, ``request_time_s`` in (0, inf) s.
    """
    x = real(throughput, "throughput", low=0, low_open=True, unit="requests/s")
    t = real(request_time_s, "request_time_s", low=0, low_open=True, unit="s")
    return max(1, _round_up(x * t))
