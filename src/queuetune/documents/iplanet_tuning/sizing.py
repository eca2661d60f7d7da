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
``data/iplanet-tuning/stated_values.csv``; every argument can override them.

Every calculator states the inputs it accepts, with the bounds of the models: counts (CPUs,
threads, users for memory) are integers up to 2**53 (:data:`~queuetune._validation.MAX_INTEGER`),
times, rates and sizes lie in [1e-100, 1e100] (or are 0 where 0 makes sense,
:data:`~queuetune._validation.MAGNITUDE_RANGE`), so that every result is a finite number. Other
input raises ``ValueError`` naming the parameter and the allowed range.

>>> memory_mb(4)
256.0
>>> t1_lines(bandwidth_kbit_s(50, 24, 5))
2
>>> max_throughput(1, 0.005)
200.0
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

from ... import data, stated
from ..._validation import MAX_INTEGER, integer, magnitude

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
_REL_TOL = Fraction(1, 10**9)


def _round_up(ratio: Fraction) -> int:
    """``ceil(ratio)``, but a ratio within rounding noise of a whole number (a relative
    :data:`_REL_TOL`) is that number. ``ratio`` is the exact product or quotient of the inputs,
    so that no rounding of a float ratio (more than 1 beyond 2**53) moves the count."""
    nearest = round(ratio)
    if nearest > 0 and abs(ratio - nearest) <= _REL_TOL * max(abs(ratio), nearest):
        return int(nearest)
    return math.ceil(ratio)


def rule_constant(name: str) -> float:
    """A constant of the sizing rules as the guide states it (see ``_CONSTANTS`` for names).

    >>> rule_constant("t1_line_kbit_s")
    1544.0
    """
    if not isinstance(name, str) or name not in _CONSTANTS:
        raise ValueError(f"name must be one of {sorted(_CONSTANTS)}, got {name!r}")
    return _constant(_CONSTANTS[name], str(data.data_dir()))


@cache
def _constant(quantity: str, root: str) -> float:
    # ``root`` keys the cache, so that another data folder (QUEUETUNE_DATA) is read afresh.
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
    per MB.

    Accepted: ``cpus`` an integer in [1, 2**53], ``peak_users`` and ``users_included`` integers
    in [0, 2**53], ``baseline_mb``, ``per_cpu_mb`` (MB) and ``per_user_kb`` (KB) each 0 or in
    [1e-100, 1e100].
    """
    cpus = integer(cpus, "cpus", low=1, high=MAX_INTEGER)
    peak_users = integer(peak_users, "peak_users", low=0, high=MAX_INTEGER)
    if composition not in COMPOSITIONS:
        raise ValueError(f"composition must be one of {COMPOSITIONS}, got {composition!r}")
    base = magnitude(rule_constant("memory_baseline_mb") if baseline_mb is None
                     else baseline_mb, "baseline_mb", zero=True, unit="MB")
    per_cpu = magnitude(rule_constant("memory_per_cpu_mb") if per_cpu_mb is None
                        else per_cpu_mb, "per_cpu_mb", zero=True, unit="MB")
    included = integer(rule_constant("users_before_extra_memory")
                       if users_included is None else users_included,
                       "users_included", low=0, high=MAX_INTEGER)
    per_user = magnitude(rule_constant("memory_per_extra_user_kb") if per_user_kb is None
                         else per_user_kb, "per_user_kb", zero=True, unit="KB")
    if composition == "example":
        cpu_part = max(base, cpus * per_cpu)
    else:
        cpu_part = base + cpus * per_cpu if cpus > 1 else base
    return cpu_part + max(0, peak_users - included) * per_user / KB_PER_MB


def bandwidth_kb_s(users: float, document_kb: float, transfer_time_s: float) -> float:
    """WAN bandwidth in kB/s (IP-C6): peak users x average document size / transfer time.

    "[...] multiply that number of users by the average request size on your site [...] decide
    how long the average user will be willing to wait for a document, at peak utilization.
    Divide by that number of seconds."

    Accepted: ``users`` and ``document_kb`` (kB) 0 or in [1e-100, 1e100], ``transfer_time_s``
    in [1e-100, 1e100] s; the result is then at most 1e300 kB/s.
    """
    users = magnitude(users, "users", zero=True)
    size = magnitude(document_kb, "document_kb", zero=True, unit="kB")
    seconds = magnitude(transfer_time_s, "transfer_time_s", unit="s")
    return users * size / seconds


def bandwidth_kbit_s(users: float, document_kb: float, transfer_time_s: float, *,
                     bytes_per_kb: int = 1000) -> float:
    """The same bandwidth in kbit/s (1 kbit = 1000 bit, as in the T1 rate of 1544 kbit/s).

    ``bytes_per_kb`` is the size of the document's "kB": 1000 (what the guide's example
    implies: 240 kB/s x 8 = 1920 kbit/s) or 1024 (which would give 1966.08 kbit/s). The other
    inputs are those of :func:`bandwidth_kb_s`.
    """
    if isinstance(bytes_per_kb, bool) or bytes_per_kb not in BYTES_PER_KB:
        raise ValueError(f"bytes_per_kb must be one of {BYTES_PER_KB}, got {bytes_per_kb!r}")
    return bandwidth_kb_s(users, document_kb, transfer_time_s) * bytes_per_kb * 8 / 1000


def t1_lines(kbit_s: float, *, line_kbit_s: float | None = None) -> int:
    """T1 lines needed for ``kbit_s`` of WAN bandwidth: the ratio rounded up.

    ``line_kbit_s`` defaults to the guide's 1544 kbit/s per T1 line.

    Accepted: ``kbit_s`` 0 or in [1e-100, 1e100] kbit/s, ``line_kbit_s`` in [1e-100, 1e100] kbit/s.
    """
    need = magnitude(kbit_s, "kbit_s", zero=True, unit="kbit/s")
    line = magnitude(rule_constant("t1_line_kbit_s") if line_kbit_s is None else line_kbit_s,
                     "line_kbit_s", unit="kbit/s")
    lines = _round_up(Fraction(need) / Fraction(line))
    return max(lines, 1) if need > 0 else lines  # a tiny positive need still needs a line


def max_throughput(threads: int, request_time_s: float) -> float:
    """Upper bound on completed requests per second with ``threads`` request threads (IP-C4).

    Each request holds a thread for ``request_time_s`` seconds, so ``threads`` threads finish
    at most ``threads / request_time_s`` requests per second (the bound is reached only when
    every thread is always busy).

    Accepted: ``threads`` an integer in [1, 2**53], ``request_time_s`` in [1e-100, 1e100] s.
    """
    n = integer(threads, "threads", low=1, high=MAX_INTEGER)
    t = magnitude(request_time_s, "request_time_s", unit="s")
    return n / t


def threads_for_throughput(throughput: float, request_time_s: float) -> int:
    """Fewest request threads (RqThrottle) that can sustain ``throughput`` requests per second.

    By Little's law the mean number of busy threads is throughput x request time; the pool
    needs at least that many, rounded up. This is a floor: bursts queue unless there is
    headroom, and requests that wait on slow clients (IOTimeout) hold threads longer.

    Accepted: ``throughput`` in [1e-100, 1e100] requests/s, ``request_time_s`` in
    [1e-100, 1e100] s.
    """
    x = magnitude(throughput, "throughput", unit="requests/s")
    t = magnitude(request_time_s, "request_time_s", unit="s")
    return max(1, _round_up(Fraction(x) * Fraction(t)))
