"""How a run of the keep-alive experiment is summarized: plain functions of its rows.

The blog's table gives, per test, the average request time and the total run time; the
experiment adds the connections opened and the sockets left in ``TIME_WAIT``, counted on each
side of the connection (:func:`time_wait_counts`).
"""

from __future__ import annotations

import ipaddress

import numpy as np
import pandas as pd

__all__ = ["summarize_requests", "time_wait_counts", "time_wait_sockets",
           "requests_per_connection", "expected_connections"]


def expected_connections(*, clients: int, requests: int, keep_alive_requests: int) -> int:
    """Connections a run opens when the server closes each after ``keep_alive_requests``
    requests: ``clients`` x ceil(requests / keep_alive_requests).

    >>> expected_connections(clients=10, requests=1000, keep_alive_requests=100)
    100
    >>> expected_connections(clients=10, requests=1000, keep_alive_requests=1)
    10000
    """
    for name, value in (("clients", clients), ("requests", requests),
                        ("keep_alive_requests", keep_alive_requests)):
        if not 1 <= value <= 2**53:
            raise ValueError(f"{name} must be between 1 and 2**53, got {value}")
    return clients * -(-requests // keep_alive_requests)


def requests_per_connection(rows: pd.DataFrame) -> pd.Series:
    """How many requests went over each connection (index: user, connection)."""
    return rows.groupby(["user", "connection"]).size().rename("requests")


def summarize_requests(rows: pd.DataFrame) -> dict:
    """The blog's measures and the connection counts of one run's request rows.

    ``total_run_time_s`` runs from the common start to the last answer (the slowest client);
    ``average_request_time_ms`` is the mean time from sending a request to its answer's last
    byte, connection and handshakes included.
    """
    if rows.empty:
        raise ValueError("rows must hold at least one request, got none")
    ok = rows["outcome"] == "ok"
    end_s = rows["start_s"] + rows["latency_ms"] / 1000
    per_connection = requests_per_connection(rows)
    opened = rows["opened"] == 1
    resumed = rows.loc[opened, "resumed"].dropna()
    return {
        "requests": int(len(rows)),
        "answered": int(ok.sum()),
        "errors": int((~ok).sum()),
        "average_request_time_ms": float(rows["latency_ms"].mean()),
        "median_request_time_ms": float(rows["latency_ms"].median()),
        "p99_request_time_ms": float(np.percentile(rows["latency_ms"], 99)),
        "first_request_time_ms": float(rows.loc[opened, "latency_ms"].mean()),
        "reused_request_time_ms": float(rows.loc[~opened, "latency_ms"].mean())
        if (~opened).any() else float("nan"),
        "total_run_time_s": float(end_s.max() - min(rows["start_s"].min(), 0.0)),
        "connections_opened": int(opened.sum()),
        "max_requests_per_connection": int(per_connection.max()),
        "tls_resumed": int(resumed.sum()) if len(resumed) else None,
        "bytes": int(rows["bytes"].sum()),
    }


def _port(endpoint: str) -> int:
    return int(endpoint.rsplit(":", 1)[1])


def _address(endpoint: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The address of an ``ss`` endpoint, an IPv4-mapped IPv6 address as IPv4 (Java's
    sockets are dual-stack: ``[::ffff:127.0.0.1]:8080``)."""
    address = ipaddress.ip_address(endpoint.rsplit(":", 1)[0].strip("[]").split("%")[0])
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped if mapped is not None else address


def time_wait_counts(ss_output: str, *, port: int, address: str = "127.0.0.1") -> dict:
    """Sockets in ``TIME_WAIT`` of the server at ``address:port``, from the output of
    ``ss -Htan state time-wait`` (columns: Recv-Q, Send-Q, local, peer; ``-H``: no header).

    ``server``: the server's own sockets (local end ``address:port``), left by connections the
    server closed first; ``client``: the clients' sockets (peer end ``address:port``), left by
    connections the clients closed first. A socket in ``TIME_WAIT`` belongs to the side that
    sent the first FIN.

    >>> out = ("0 0 [::ffff:127.0.0.1]:8080 [::ffff:127.0.0.1]:40000\\n"
    ...        "0 0 127.0.0.1:40001 127.0.0.1:8080\\n"
    ...        "0 0 127.0.0.1:9090 127.0.0.1:40002\\n")
    >>> time_wait_counts(out, port=8080)
    {'server': 1, 'client': 1}
    """
    counts = {"server": 0, "client": 0}
    for side, _ in time_wait_sockets(ss_output, port=port, address=address):
        counts[side] += 1
    return counts


def time_wait_sockets(ss_output: str, *, port: int, address: str = "127.0.0.1"
                      ) -> list[tuple[str, int]]:
    """The sockets :func:`time_wait_counts` counts, one ``(side, client port)`` each, in the
    order of ``ss_output``.

    >>> time_wait_sockets("0 0 127.0.0.1:8080 127.0.0.1:40000\\n"
    ...                   "0 0 127.0.0.1:40001 127.0.0.1:8080\\n", port=8080)
    [('server', 40000), ('client', 40001)]
    """
    if not 1 <= port <= 65535:
        raise ValueError(f"port must be between 1 and 65535, got {port}")
    wanted = ipaddress.ip_address(address)
    found = []
    for line in ss_output.splitlines():
        fields = line.split()
        if len(fields) < 4 or ":" not in fields[-1]:
            continue
        local, peer = fields[-2], fields[-1]
        for side, end, other in (("server", local, peer), ("client", peer, local)):
            try:
                same = _address(end) == wanted
            except ValueError:
                continue
            if same and _port(end) == port:
                found.append((side, _port(other)))
    return found
