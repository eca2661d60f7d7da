"""What the database experiment's tests share: the processes the lab may leave running."""

from __future__ import annotations

import psutil


def lab_children() -> set[tuple[int, str]]:
    """This test process's running descendants (PostgreSQL, Tomcat's JVM, Locust...), and every
    PostgreSQL process of the machine: a killed postmaster's children leave the tree (a
    zombie, ended and waiting for init to collect it, does not run)."""
    found = set()
    for proc in psutil.Process().children(recursive=True):
        try:
            if proc.status() != psutil.STATUS_ZOMBIE:
                found.add((proc.pid, proc.name()))
        except psutil.Error:
            continue
    for proc in psutil.process_iter(["name", "status"]):
        if proc.info["name"] == "postgres" and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.add((proc.pid, "postgres"))
    return found
