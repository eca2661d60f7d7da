"""Where and with what a campaign ran: the machine, the system and every program's version."""

from __future__ import annotations

import os
import platform
from importlib import metadata
from pathlib import Path

import psutil

__all__ = ["describe"]


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def _cpu_model() -> str:
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _os_name() -> str:
    for line in _read("/etc/os-release").splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip('"')
    return platform.platform()


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _sysctl(name: str) -> str:
    return _read("/proc/sys/" + name.replace(".", "/")) or "unknown"


def describe(*, server_versions: dict[str, str] | None = None) -> dict:
    """The machine and software a campaign ran on (no host names, no user names)."""
    return {
        "cpu_model": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "cores_available": sorted(os.sched_getaffinity(0)),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "os": _os_name(),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "locust": _version("locust"),
        "geventhttpclient": _version("geventhttpclient"),
        "gevent": _version("gevent"),
        **(server_versions or {}),
        "sysctl": {name: _sysctl(name) for name in (
            "net.core.somaxconn", "net.ipv4.tcp_abort_on_overflow",
            "net.ipv4.tcp_syncookies", "net.ipv4.tcp_syn_retries")},
    }
