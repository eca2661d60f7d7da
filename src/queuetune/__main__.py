"""``python -m queuetune size ...``: size a server from the command line.

Times are given in milliseconds (``--cpu-ms``, ``--wait-ms``, ``--max-response-ms``,
``--p99-ms``) or seconds (``--think-s``, ``--read-timeout-s``), and converted to seconds for
:func:`queuetune.sizing.size`. With ``--json`` the answer is the JSON of
:meth:`queuetune.sizing.Sizing.as_dict` (SI units: seconds, requests per second); without it,
a short answer: the settings, their saturation multiple, the rows at 1, 1.1, 1.5 and 2 times
the peak, and the settings to copy. Bad input exits with status 2 and a message naming the
option and its range. The command imports NumPy and the sizing only (no chart library).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Sequence

from . import sizing, snippets  # no chart library: the command answers in a fraction of 1 s

__all__ = ["main", "size_command"]

_OPTION = {"processors": "--processors", "cpu_time": "--cpu-ms", "wait_time": "--wait-ms",
           "arrival_rate": "--rate", "clients": "--clients", "think_time": "--think-s",
           "connections": "--connections", "threads": "--threads", "capacity": "--capacity",
           "headroom": "--headroom", "max_response_time": "--max-response-ms",
           "read_timeout": "--read-timeout-s", "p99_objective": "--p99-ms",
           "target_utilization": "--target-utilization"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m queuetune",
                                     description="Queueing models of server tuning.")
    commands = parser.add_subparsers(dest="command", required=True)
    size = commands.add_parser(
        "size", help="size processors, threads, a connection pool and the admission bound",
        description="Size a server to carry its peak load times a headroom "
                    "(queuetune.sizing.size).")
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
    size.add_argument("--headroom", type=float, default=sizing.HEADROOM,
                      help="the overload to carry without refusing, a multiple of the peak "
                           f"(1 to 10; default {sizing.HEADROOM:g})")
    size.add_argument("--connections", type=float,
                      help="your connection pool size (1 to 100000); default: sized")
    size.add_argument("--threads", type=float,
                      help="your maxThreads (1 to 100000): its saturation multiple is shown")
    size.add_argument("--capacity", type=float,
                      help="your bound on admitted requests B, maxThreads + maxQueueSize "
                           "(with --threads; default: unbounded, Tomcat's default queue)")
    size.add_argument("--read-timeout-s", type=float,
                      help="read timeout of the client or the proxy in front, s (to 3600): "
                           "bounds the admitted requests B")
    size.add_argument("--p99-ms", type=float,
                      help="p99 response-time objective, ms (to 3.6e6): bounds B ahead of "
                           "the read timeout")
    size.add_argument("--max-response-ms", type=float,
                      help="longest acceptable response time, ms (to 3.6e6): bounds B ahead "
                           "of the others; default: the p99 objective, else the read timeout, "
                           "else nginx's default proxy_read_timeout of 60 s")
    size.add_argument("--target-utilization", type=float,
                      help="a processor utilization to stay under at the peak, (0, 1], in "
                           "place of the queueing criterion (a request waits for a processor "
                           "a tenth of its processor time at the headroom)")
    size.add_argument("--json", action="store_true", help="print the answer as JSON")
    _fleet_options(size)
    return parser


# --------------------------------------------------------------------------- a fleet (issue 30)
#: Options that make ``size`` size a fleet against a database (queuetune.fleet_sizing).
_FLEET = {"instances": "--instances", "db_processors": "--db-processors",
          "db_time": "--db-ms", "db_max_connections": "--db-max-connections",
          "db_contention": "--db-contention"}


_OPTION.update(_FLEET)  # the fleet sizing's messages name its inputs as options too


def _fleet_options(size: argparse.ArgumentParser) -> None:
    group = size.add_argument_group(
        "a fleet sharing a database (any of these sizes the fleet: "
        "queuetune.fleet_sizing.size_fleet; --wait-ms is then the wait off the database)")
    group.add_argument("--instances", type=float,
                       help="instances behind the balancer, 1 to 4096 (default: found from "
                            "--processors per instance)")
    group.add_argument("--db-processors", type=float,
                       help="the database's processors, 1 to 4096 (default: no limit)")
    group.add_argument("--db-ms", type=float,
                       help="database processor time per request, ms (0.001 to 1e6)")
    group.add_argument("--db-max-connections", type=float,
                       help="the database's max_connections, 1 to 100000 (default 100, "
                            "PostgreSQL's; 3 are kept for superusers)")
    group.add_argument("--db-contention", type=float,
                       help="the database's contention coefficient sigma, 0 to 10 "
                            "(default 0)")


def _is_fleet(args: argparse.Namespace) -> bool:
    return any(getattr(args, option[2:].replace("-", "_")) is not None
               for option in _FLEET.values())


def fleet_command(args: argparse.Namespace):
    """The fleet sizing that the ``size`` command's options ask for."""
    from .fleet_sizing import DB_MAX_CONNECTIONS, size_fleet

    if args.rate is not None and (args.clients is not None or args.think_s is not None):
        raise ValueError("give either --rate or --clients with --think-s, not both")
    if args.db_ms is None:
        raise ValueError("--db-ms must be given with --instances, --db-processors, "
                         "--db-max-connections or --db-contention")
    for name in ("connections", "threads", "capacity", "p99_ms", "target_utilization"):
        if getattr(args, name) is not None:
            option = "--" + name.replace("_", "-")
            raise ValueError(f"{option} is not taken with a fleet: the fleet sizing sizes "
                             "the pool, threads and bound itself")
    return size_fleet(
        processors=_count(args.processors),
        cpu_time=_ms(args.cpu_ms, "--cpu-ms", "cpu_time"),
        wait_time=_ms(args.wait_ms, "--wait-ms", "wait_time", zero=True),
        db_time=_ms(args.db_ms, "--db-ms", "cpu_time"),
        db_processors=_count(args.db_processors), arrival_rate=args.rate,
        clients=_count(args.clients), think_time=args.think_s,
        instances=_count(args.instances),
        db_max_connections=(DB_MAX_CONNECTIONS if args.db_max_connections is None
                            else _count(args.db_max_connections)),
        db_contention=0.0 if args.db_contention is None else args.db_contention,
        headroom=args.headroom,
        max_response_time=_ms(args.max_response_ms, "--max-response-ms", "max_response_time"),
        read_timeout=args.read_timeout_s)


def _fleet_text(result) -> str:
    lines = [
        f"sized to carry {result.headroom:g}× the peak ({result.peak:.4g} requests/s) on "
        f"{result.instances} instance{'s' if result.instances > 1 else ''}:",
        f"connection pool per instance: {result.connections} "
        f"({result.total_connections} in total, of the {result.connection_limit} the "
        "database allows)",
        f"threads (maxThreads): {result.threads}",
        f"admitted requests B: {result.capacity}",
        f"at the peak: {_time(result.response_time)} mean, database "
        f"{result.database_utilization:.1%} busy, processors {result.utilization:.1%} busy",
        f"saturates at {result.saturation_multiple:.3g}× the peak "
        f"({result.limiting_resource})",
        f"one instance sized alone: pool {result.single_server['connections']} "
        f"({result.single_server['total_connections']} in total)",
        "",
        "pool per instance at the peak:",
        f"  {'pool':>6}  {'total':>6}  {'mean':>10}  {'in pool':>10}  {'in database':>11}  "
        f"{'database busy':>13}  {'refused':>8}",
    ]
    for row in result.pools:
        mark = "" if row["within_limit"] else "  over the limit"
        lines.append(f"  {row['connections']:>6}  {row['total_connections']:>6}  "
                     f"{_time(row['response_time']):>10}  {_time(row['connection_wait']):>10}  "
                     f"{_time(row['database_time']):>11}  "
                     f"{row['database_utilization']:>13.1%}  {row['refused']:>8.2%}{mark}")
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines)


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
        threads=_count(args.threads), capacity=_count(args.capacity),
        headroom=args.headroom,
        max_response_time=_ms(args.max_response_ms, "--max-response-ms", "max_response_time"),
        read_timeout=args.read_timeout_s,
        p99_objective=_ms(args.p99_ms, "--p99-ms", "p99_objective"),
        target_utilization=args.target_utilization)


def _as_options(message: str) -> str:
    """The sizing's message with the option names of the command line (ms where given so);
    a name already written as an option (``--clients``) is left as it is."""
    for name, option in _OPTION.items():
        if message.startswith(f"{name} must be"):
            return message.replace(name, option, 1)
    for name, option in _OPTION.items():  # name= always; a bare name only with a "_"
        bare = "" if "_" in name else "="
        message = re.sub(rf"(?<![-\w]){name}\b{bare}=?", option, message)
    return message


def _time(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if not math.isfinite(seconds):
        return "unbounded"
    return f"{seconds * 1000:.1f} ms" if seconds < 10 else f"{seconds:.1f} s"


def _rows(loads: list[dict], peak_label: str) -> list[str]:
    lines = [f"  {'load':>{len(peak_label) + 8}}  {'mean':>10}  {'p95':>10}  {'p99':>10}  "
             f"{'refused':>8}  {'processors busy':>15}"]
    for row in loads:
        load = (f"{row['arrival_rate']:.4g}/s" if row["arrival_rate"] is not None
                else f"{row['clients']} clients")
        label = f"{row['multiple']:g}× ({load})"
        lines.append(f"  {label:>{len(peak_label) + 8}}  {_time(row['response_time']):>10}  "
                     f"{_time(row['response_time_p95']):>10}  "
                     f"{_time(row['response_time_p99']):>10}  {row['refused']:>8.2%}  "
                     f"{row['utilization']:>15.1%}")
    return lines


def _objective(objective: dict | None) -> list[str]:
    if objective is None:
        return []
    if objective["met"]:
        return [f"p99 objective {_time(objective['p99_objective'])}: met at the peak "
                f"(p99 {_time(objective['p99_at_peak'])})"]
    return [f"p99 objective {_time(objective['p99_objective'])}: not met, prevented by "
            f"{objective['prevented_by']} (p99 at the peak "
            f"{_time(objective['p99_at_peak'])})"]


def _text(result: sizing.Sizing) -> str:
    pool = ("no pool (no wait)" if result.connections is None
            else f"{result.connections} connection{'s' if result.connections > 1 else ''}")
    queue = result.capacity - result.threads
    peak = (f"{result.inputs['arrival_rate']:.4g}/s" if result.inputs["clients"] is None
            else f"{result.inputs['clients']} clients")
    closed = "" if result.inputs["clients"] is None else f"{peak}, "
    lines = [
        f"sized to carry {result.headroom:g}× the peak ({closed}"
        f"{result.peak:.4g} requests/s):",
        f"processors needed: {result.processors_needed}",
        f"threads (maxThreads): {result.threads}",
        f"connection pool: {pool}",
        f"admitted requests B: {result.capacity} (may wait for a thread: {queue}); from "
        f"{_time(result.max_response_time)}, {sizing.ORIGINS[result.max_response_origin]}",
        f"saturates at {result.saturation_multiple:.3g}× the peak "
        f"({result.saturation_resource})",
        *_objective(result.objective),
        "",
        "with these settings and your processors (response times of admitted requests):",
        *_rows(result.loads, peak),
    ]
    if result.yours is not None:
        yours = result.yours
        bound = "unbounded" if yours["capacity"] is None else yours["capacity"]
        lines += ["", f"your settings (threads {yours['threads']}, pool "
                      f"{yours['connections']}, B {bound}) saturate at "
                      f"{yours['saturation_multiple']:.3g}× the peak "
                      f"({yours['saturation_resource']}):", *_rows(yours["loads"], peak)]
    lines += [
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
        fleet = _is_fleet(args)
        result = fleet_command(args) if fleet else size_command(args)
    except ValueError as exc:
        parser.exit(2, f"{parser.prog} size: error: {_as_options(str(exc))}\n")
    if args.json:
        print(json.dumps(_finite(result.as_dict()), indent=2, allow_nan=False))
    else:
        print(_fleet_text(result) if fleet else _text(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
