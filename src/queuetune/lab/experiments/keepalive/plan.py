"""The keep-alive campaign file, read and checked: every key known, every value in range."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from .run import Configuration

__all__ = ["DEFAULT_CAMPAIGN", "load", "configurations"]

DEFAULT_CAMPAIGN = Path(str(resources.files(__package__) / "campaign.toml"))
_KEYS = {
    "": {"format", "experiment", "name", "load", "factors", "server", "timing"},
    "load": {"clients", "requests_per_client", "response_bytes", "path"},
    "factors": {"http", "https"},
    "server": {"threads", "connection_timeout_ms", "heap_mb", "server_cores",
               "generator_cores"},
    "timing": {"warmup_requests", "start_delay_s", "timeout_s"},
}


def load(path: str | Path = DEFAULT_CAMPAIGN) -> dict:
    """The campaign file as a dictionary; ``ValueError`` naming an unknown key or table."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        plan = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"campaign file {path}: {exc}") from None
    for table, allowed in _KEYS.items():
        section = plan.get(table, {}) if table else plan
        if not isinstance(section, dict):
            raise ValueError(f"campaign [{table}] must be a table")
        unknown = sorted(set(section) - allowed)
        if unknown:
            where = f"[{table}]" if table else "the top level"
            raise ValueError(f"unknown key(s) {unknown} in {where} of {path}; allowed: "
                             f"{sorted(allowed)}")
    if plan.get("experiment") != "keepalive":
        raise ValueError(f"experiment must be 'keepalive', got {plan.get('experiment')!r}")
    if plan.get("format") != 1:
        raise ValueError(f"format must be 1, got {plan.get('format')!r}")
    if plan.get("load", {}).get("path", "/page.html") != "/page.html":
        raise ValueError("load.path must be '/page.html' (the static page the server holds)")
    return plan


def configurations(plan: dict) -> list[Configuration]:
    """The runs of a campaign, in the order they are measured: plain HTTP at each limit, then
    HTTPS at each limit."""
    load_, server, timing = plan.get("load", {}), plan.get("server", {}), plan.get("timing", {})
    factors = plan.get("factors", {})
    common = {
        "clients": int(load_.get("clients", 10)),
        "requests_per_client": int(load_.get("requests_per_client", 1000)),
        "response_bytes": int(load_.get("response_bytes", 5887)),
        "threads": int(server.get("threads", 20)),
        "connection_timeout_ms": int(server.get("connection_timeout_ms", 20000)),
        "heap_mb": int(server.get("heap_mb", 256)),
        "server_cores": tuple(server.get("server_cores", ())),
        "generator_cores": tuple(server.get("generator_cores", ())),
        "warmup_requests": int(timing.get("warmup_requests", 3000)),
        "start_delay_s": float(timing.get("start_delay_s", 2.0)),
        "timeout_s": float(timing.get("timeout_s", 30.0)),
    }
    runs = []
    for scheme in ("http", "https"):
        levels = factors.get(scheme, [])
        if not isinstance(levels, list) or not all(isinstance(n, int) for n in levels):
            raise ValueError(f"factors.{scheme} must be a list of whole numbers, got {levels!r}")
        for limit in levels:
            if not 1 <= limit <= 100_000:
                raise ValueError(f"factors.{scheme} levels must be between 1 and 100000, "
                                 f"got {limit}")
            runs.append(Configuration(run=len(runs) + 1, scheme=scheme,
                                      keep_alive_requests=limit, **common))
    if not runs:
        raise ValueError("factors must name at least one level of http or https")
    return runs
