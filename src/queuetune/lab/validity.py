"""The runner's checks of every run, the same for every experiment, stored with the run.

A run is valid when

* the server's process is alive at the end of the run, and the server answers a probe;
* the refusals the clients saw equal the refusals the server logged (when its log is readable);
* no request ended in a connection error of another kind (reset, timeout, refused connection);
* the server's cores were no busier than the server's own process plus a stated margin
  (``[validity] core_margin``): anything else running there took processor time from the
  server (time stolen by a hypervisor is recorded apart, ``server_cores_steal``);
* the experiment's own checks held (the Imre experiment: the load generator kept up).

A failed check is written into ``invalid_reason`` in words; the run is stored all the same.
"""

from __future__ import annotations

import math
from typing import Any

from .campaign import Validity
from .harness import Counters, Measured, Server
from .monitor import CpuMonitor

__all__ = ["DEAD", "check_run"]

#: The start of the reason of a run after which the server was dead.
DEAD = "server dead"


def _round(value: float | None, digits: int = 4) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return round(value, digits)


def check_run(measured: Measured, server: Server, counters: Counters | None,
              monitor: CpuMonitor, policy: Validity) -> dict[str, Any]:
    """The validity columns of one run (:data:`queuetune.lab.records.VALIDITY_FIELDS`)."""
    reasons: list[str] = []
    alive = server.alive() if server.alive is not None else None
    probe = server.probe(policy.probe_timeout_s) if server.probe is not None else None
    if alive is False:
        reasons.append(f"{DEAD}: its process had exited at the end of the run")
    elif probe is False:
        reasons.append(f"{DEAD}: it did not answer a probe after the run")
    refused_server = counters.rejected if counters is not None else None
    if refused_server is not None and refused_server != measured.refused_seen:
        reasons.append(f"the clients saw {measured.refused_seen} refusals, the server "
                       f"logged {refused_server}")
    if measured.connection_errors:
        reasons.append(f"{measured.connection_errors} requests ended in a connection error "
                       f"other than a refusal")
    start, end = measured.window
    process = busy = steal = None
    if server.pids is not None and server.cores:
        process = monitor.share("server", start, end)
        busy = monitor.cores_share(server.cores, start, end)
        steal = monitor.cores_share(server.cores, start, end, steal=True)
        if busy - process > policy.core_margin:
            reasons.append(f"the server's core(s) were busy {busy:.0%} of the window, its own "
                           f"process {process:.0%}: another process took more than the "
                           f"{policy.core_margin:.0%} margin")
    reasons += measured.failed_checks
    return {
        "server_alive": alive, "probe_ok": probe, "refused_by_server": refused_server,
        "refused_seen": measured.refused_seen, "connection_errors": measured.connection_errors,
        "server_process_cpu": _round(process), "server_cores_busy": _round(busy),
        "server_cores_steal": _round(steal), "core_margin": policy.core_margin,
        "valid": not reasons, "invalid_reason": "; ".join(reasons) or None,
    }
