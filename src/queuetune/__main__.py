"""``python -m queuetune size ...``: size a server from the command line.

Times are given in milliseconds (``--cpu-ms``, ``--wait-ms``, ``--max-response-ms``) or
seconds (``--think-s``), and converted to seconds for :func:`queuetune.sizing.size`. With
``--json`` the answer is the JSON of :meth:`queuetune.sizing.Sizing.as_dict` (SI units:
seconds, requests per second); without it, a short answer with the settings to copy. Bad input
exits with status 2 and a message naming the option and its range.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Sequence

from . import sizing, snippets

__all__ = ["main", "size_command"]

_OPTION = {"processors": "--processors", "cpu_time": "--cpu-ms", "wait_time": "--wait-ms",
           "arrival_rate": "--rate", "clients": "--clients", "think_time": "--think-s",
           "connections": "--connections", "max_response_time": "--max-response-ms",
           "target_utilization": "--target-utilization"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m queuetune",
                                     description="Queueing models of server tuning.")
    commands = parser.add_subparsers(dest="command", required=True)
    size = commands.add_parser(
        "size", help="size processors, threads, a connection pool and the admission bound",
        description="Size a server for its peak load (queuetune.sizing.size).")
    size.add_argument("--processors", type=float, required=True,
                      help="processors (cores) of the server, 1 to 4096")
    size.add_argument("--cpu-ms", type=float, required=True,
                      help="processor time per request, ms (0.001 to 1e6)")
    size.add_argument("--wait-ms", type=float, required=True,
                      help="time per request waiting off the processor with a connection "
                           "(database, I/O), ms (0, or 0.001 to 1e6)")
    size.add_argument("--rate", type=float, help="peak arrival rate, requests/s (to 1e7)")
    size.add_argument("--clients", type=float, help="peak number of clients (1 to 100000)")
    size.add_argument("--think-s", type=float, help="think time of a client, s (0 to 1e5)")
    size.add_argument("--connections", type=float,
                      help="connection pool size (1 to 100000); default: sized for the peak")
    size.add_argument("--max-response-ms", type=float,
                      help="longest acceptable response time, ms; default ten times the "
                           "service time")
    size.add_argument("--target-utilization", type=float, default=0.7,
                      help="processor utilization to stay under at the peak, (0, 1]; "
                           "default 0.7")
    size.add_argument("--json", action="store_true", help="print the answer as JSON")
    return parser


def _count(value: float | None) -> int | float | None:
    """A whole-valued count as an int (the sizing refuses 2.5 processors by name)."""
    if value is None or not math.isfinite(value) or not value.is_integer():
        return value
    return int(value)


def _ms(value: float | None, option: str, name: str, zero: bool = False) -> float | None:
    """A time in ms checked against the sizing's range (in ms), converted to seconds."""
    if value is None:
        return None
    if zero and value == 0:
        return 0.0
    low, high = sizing.LIMITS[name]
    allowed = f"[{low * 1000:g}, {high * 1000:g}] ms" + (" (or 0)" if zero else "")
    if not (math.isfinite(value) and low * 1000 <= value <= high * 1000):
        raise ValueError(f"{option} must be a number in {allowed}, got {value:g}")
    return value / 1000.0


def size_command(args: argparse.Namespace) -> sizing.Sizing:
    """The sizing that the ``size`` command's options ask for."""
    if args.rate is not None and (args.clients is not None or args.think_s is not None):
        raise ValueError("give either --rate or --clients with --think-s, not both")
    return sizing.size(
        processors=_count(args.processors),
        cpu_time=_ms(args.cpu_ms, "--cpu-ms", "cpu_time"),
        wait_time=_ms(args.wait_ms, "--wait-ms", "wait_time", zero=True),
        arrival_rate=args.rate, clients=_count(args.clients),
        think_time=args.think_s, connections=_count(args.connections),
        max_response_time=_ms(args.max_response_ms, "--max-response-ms", "max_response_time"),
        target_utilization=args.target_utilization)


def _as_options(message: str) -> str:
    """The sizing's message with the option names of the command line (ms where given so)."""
    for name, option in _OPTION.items():
        if message.startswith(f"{name} must be"):
            return message.replace(name, option, 1)
    for name, option in _OPTION.items():
        message = re.sub(rf"\b{name}\b=?", option, message)
    return message


def _text(result: sizing.Sizing) -> str:
    pool = ("no pool (no wait)" if result.connections is None
            else f"{result.connections} connections")
    double = result.double
    lines = [
        f"processors needed at the peak: {result.processors_needed}",
        f"threads (maxThreads): {result.threads}",
        f"connection pool: {pool}",
        f"admitted requests B: {result.capacity} (queue for threads: "
        f"{result.capacity - result.threads})",
        f"at the peak ({result.peak:.4g} requests/s): utilization {result.utilization:.1%}, "
        f"response time {result.response_time * 1000:.1f} ms, "
        f"refused {result.refused:.2%}",
        f"at twice the peak: utilization {double['utilization']:.1%}, response time "
        f"{double['response_time'] * 1000:.1f} ms, refused {double['refused']:.2%}",
        "",
        "settings to copy (Spring Boot application.properties):",
    ]
    spring = snippets.spring(snippets.from_sizing(result))
    lines += [f"  {line}" for line in spring.splitlines()]
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines)


def _finite(value):
    """JSON has no infinity: an infinite response time (unstable) is written as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        result = size_command(args)
    except ValueError as exc:
        parser.exit(2, f"{parser.prog} size: error: {_as_options(str(exc))}\n")
    if args.json:
        print(json.dumps(_finite(result.as_dict()), indent=2, allow_nan=False))
    else:
        print(_text(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
