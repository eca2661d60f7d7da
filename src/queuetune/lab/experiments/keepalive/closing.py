"""Who ends a connection, seen on the wire: the first FIN or RST of each connection.

A socket stays in ``TIME_WAIT`` on the side that sent the first FIN; a connection ended by a
reset (RST) leaves no ``TIME_WAIT`` on either side. :func:`close_sequences` opens a few
connections to a Tomcat whose ``maxKeepAliveRequests`` closes them, as the experiment's clients
do, with ``tcpdump`` on loopback (root or ``CAP_NET_RAW``), and says per connection which side
sent the first FIN and whether and from which side a reset came.
"""

from __future__ import annotations

import http.client
import shutil
import signal
import subprocess
import time

import pandas as pd

from ... import wire
from ...tomcat import free_port
from .experiment import time_wait_now
from .server_config import PAGE, KeepAliveSettings, KeepAliveTomcat, client_context
from .summary import time_wait_sockets

__all__ = ["close_sequences", "first_closers"]


def first_closers(packets: list[tuple[float, int, str, str, int]]) -> pd.DataFrame:
    """Per client port: the side that sent the first FIN (``server``, ``client`` or ''), and
    the side that sent the first reset ('' without one), from :func:`wire.parse_tcpdump`'s
    packets.

    >>> first_closers([(1.0, 5, "server>client", "AF", 0), (1.1, 5, "client>server", "AF", 0),
    ...                (2.0, 6, "server>client", "AF", 0), (2.1, 6, "client>server", "AR", 0)])
    ... # doctest: +NORMALIZE_WHITESPACE
       client_port first_fin reset_by
    0            5    server
    1            6    server   client
    """
    rows: dict[int, dict] = {}
    for _, port, direction, flags, _ in sorted(packets):
        side = "server" if direction == "server>client" else "client"
        row = rows.setdefault(port, {"client_port": port, "first_fin": "", "reset_by": ""})
        if "F" in flags and not row["first_fin"]:
            row["first_fin"] = side
        if "R" in flags and not row["reset_by"]:
            row["reset_by"] = side
    return pd.DataFrame(list(rows.values()), columns=["client_port", "first_fin", "reset_by"])


def close_sequences(*, tls: bool, requests: int = 6, keep_alive_requests: int = 2
                    ) -> pd.DataFrame | None:
    """Send ``requests`` requests over connections that Tomcat closes every
    ``keep_alive_requests``, as the experiment's clients do (Python's ``http.client``), and
    return :func:`first_closers` of the FIN and RST packets on the wire, with ``time_wait``:
    the sides that hold the connection in ``TIME_WAIT`` just after (``server``, ``client``,
    ``both`` or ''); ``None`` where ``tcpdump`` cannot run (missing, or neither root nor
    ``CAP_NET_RAW``)."""
    if shutil.which("tcpdump") is None:
        return None
    port, warm_port = free_port(), free_port()
    settings = KeepAliveSettings(keep_alive_requests=keep_alive_requests, port=port,
                                 warm_port=warm_port if warm_port != port else free_port(),
                                 tls=tls)
    with KeepAliveTomcat(settings) as server:
        capture = wire.start_tcpdump(
            ["-i", "lo", "-nn", "-tt", "-l",
             f"tcp port {port} and (tcp[tcpflags] & (tcp-fin|tcp-rst) != 0)"],
            stdout=subprocess.PIPE, text=True)
        if capture is None:
            return None
        try:
            _send(server.settings.address, port, requests=requests, tls=tls)
            time.sleep(1.0)
            waiting = time_wait_sockets(time_wait_now(), port=port,
                                        address=server.settings.address)
        finally:
            with capture.stdout:
                capture.send_signal(signal.SIGTERM)
                text = capture.stdout.read()
                wire.stop_tcpdump(capture)
    seen = first_closers(wire.parse_tcpdump(text, port))
    holders = [{side for side, q in waiting if q == p} for p in seen["client_port"]]
    seen["time_wait"] = ["both" if len(h) == 2 else "".join(h) for h in holders]
    return seen


def _send(host: str, port: int, *, requests: int, tls: bool) -> None:
    conn = None
    for _ in range(requests):
        if conn is None:
            conn = (http.client.HTTPSConnection(host, port, context=client_context()) if tls
                    else http.client.HTTPConnection(host, port))
        conn.request("GET", f"/{PAGE}")
        answer = conn.getresponse()
        answer.read()
        if answer.will_close:
            conn.close()
            conn = None
    if conn is not None:
        conn.close()
