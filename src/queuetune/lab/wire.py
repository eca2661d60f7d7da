"""What a client sees when Tomcat reaches a limit, on the wire and in the data.

Small scenarios, each on its own Connector (and Executor) of one Tomcat started for them all,
one scenario at a time, send a handful of slow requests (1 s of sleep each) 10 ms apart, each
on a new connection, and record for every one how long its connection took to open, how long
the answer took, and what came back. ``tcpdump`` records the packets on the loopback interface
when it is installed and allowed.

* ``executor-queue``: an Executor with 1 thread and a queue of 1. The third request finds the
  queue full: Tomcat refuses it.
* ``max-connections``: no Executor; the Connector with 1 thread, ``maxConnections`` 1 and
  ``acceptCount`` 1. Requests over those limits are not refused by Tomcat: the kernel holds the
  connection, or drops its SYN and the client sends it again a second later.
* ``executor-max-connections``: an Executor of 4 threads and a queue of 4 behind
  ``maxConnections`` 2 (``acceptCount`` 1): a server with more threads than it admits
  connections, as a 100-thread Tomcat limited to 50 connections. Tomcat admits two requests at
  once and refuses none; the others wait in the kernel or for their SYN to be sent again.
* ``back-to-back``: an Executor of 2 threads and a queue of 1 (B = 3), and two clients that
  send short requests (2 ms of sleep) one after the other for three seconds, without thinking:
  never more than two requests outstanding, so the models refuse none. Tomcat can refuse some
  (measured on a shared machine: 19 of 216), because a thread that has sent its answer and its
  FIN still holds its place until it has finished its own work and returned to the pool.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .tomcat import ServerSettings, Tomcat, free_port, server_xml

__all__ = ["SCENARIOS", "Scenario", "ScenarioTomcat", "run_scenario", "parse_tcpdump"]


@dataclass(frozen=True)
class Scenario:
    name: str
    limit: str
    requests: int
    max_connections: int
    accept_count: int
    threads: int = 1
    queue: int = 1
    clients: int = 0  # > 0: that many clients sending back to back for ``seconds``
    seconds: float = 0.0
    sleep_s: float = 1.0  # how long each request holds its thread


SCENARIOS = (
    Scenario("executor-queue", "executor", requests=4, max_connections=100, accept_count=100),
    Scenario("max-connections", "connector", requests=5, max_connections=1, accept_count=1),
    Scenario("executor-max-connections", "executor", requests=6, max_connections=2,
             accept_count=1, threads=4, queue=4),
    Scenario("back-to-back", "executor", requests=0, max_connections=100, accept_count=100,
             threads=2, queue=1, clients=2, seconds=3.0, sleep_s=0.002),
)
SLEEP_S = 1.0
GAP_S = 0.010
#: The columns of the rows :func:`run_scenario` returns, in order.
CONNECTION_COLUMNS = ("scenario", "request", "sent_s", "connect_ms", "total_ms", "outcome",
                      "bytes")
PACKET_COLUMNS = ("scenario", "request", "time_s", "direction", "flags", "length")


#: About how long the scenarios' Tomcat takes to start.
SERVER_START_S = 8.0


def scenario_seconds(scenario: Scenario) -> float:
    """About how long a scenario takes on its started server: the slow requests one after the
    other at worst, and the capture's start and stop."""
    return 2.0 + scenario.sleep_s * scenario.requests + scenario.seconds


def scenarios_xml(scenarios: tuple[Scenario, ...], ports: tuple[int, ...],
                  address: str = "127.0.0.1") -> str:
    """The ``server.xml`` of one Tomcat serving every scenario on a port of its own: each with
    its own Executor (``limit`` "executor") or the Connector's own threads ("connector"),
    written by :func:`queuetune.lab.tomcat.server_xml` one scenario at a time.

    >>> xml = scenarios_xml(SCENARIOS[:2], (18080, 18081))
    >>> xml.count("<Connector "), xml.count("<Executor "), xml.count("<Engine ")
    (2, 1, 1)
    """
    parts = [server_xml(_settings(scenario, port, address=address))
             for scenario, port in zip(scenarios, ports, strict=True)]
    elements = []
    for i, part in enumerate(parts):
        body = part[part.index('<Service name="Catalina">') + len('<Service name="Catalina">'):
                    part.index("<Engine ")]
        elements.append(body.replace('name="pool"', f'name="pool-{i}"')
                        .replace('executor="pool"', f'executor="pool-{i}"'))
    first = parts[0]
    head = first[:first.index('<Service name="Catalina">') + len('<Service name="Catalina">')]
    return head + "".join(elements) + first[first.index("<Engine "):]


def _settings(scenario: Scenario, port: int, *, cores: tuple[int, ...] = (),
              address: str = "127.0.0.1") -> ServerSettings:
    return ServerSettings(threads=scenario.threads, queue=scenario.queue, port=port,
                          cores=cores, max_connections=scenario.max_connections,
                          accept_count=scenario.accept_count, limit=scenario.limit,
                          address=address)


class ScenarioTomcat(Tomcat):
    """One Tomcat with a Connector per scenario (:func:`scenarios_xml`), serving ``pages``;
    :meth:`port` gives a scenario's."""

    def __init__(self, scenarios: tuple[Scenario, ...], *, pages: dict[str, bytes],
                 headers: dict[str, str] | None = None, cores: tuple[int, ...] = ()):
        ports: list[int] = []
        while len(ports) < len(scenarios):
            port = free_port()
            if port not in ports:
                ports.append(port)
        self.scenarios, self.scenario_ports = scenarios, tuple(ports)
        super().__init__(_settings(scenarios[0], ports[0], cores=cores), pages=pages,
                         ready_headers=headers or {})

    def port(self, scenario: Scenario) -> int:
        return self.scenario_ports[self.scenarios.index(scenario)]

    def ports(self) -> tuple[int, ...]:
        return self.scenario_ports

    def write_base(self) -> None:
        super().write_base()
        (self.base / "conf" / "server.xml").write_text(
            scenarios_xml(self.scenarios, self.scenario_ports, self.settings.address),
            encoding="utf-8")


def _one_request(port: int, index: int, t0: float, out: list, timeout_s: float,
                 headers: dict[str, str], sleep_s: float = SLEEP_S) -> None:
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    request = (f"GET /work.jsp?work=0&sleep_us={int(sleep_s * 1e6)}&bytes=10240 HTTP/1.1\r\n"
               f"Host: 127.0.0.1\r\n{extra}Connection: close\r\n\r\n").encode()
    sock = socket.socket()
    sock.settimeout(timeout_s)
    sent = time.perf_counter()
    connected = None
    received = b""
    try:
        sock.connect(("127.0.0.1", port))
        connected = time.perf_counter()
        sock.sendall(request)
        while chunk := sock.recv(65536):
            received += chunk
        outcome = ("ok" if received.startswith(b"HTTP/1.1 200") else
                   "closed" if not received else "other")
    except ConnectionResetError:
        outcome = "reset" if not received else "reset-after-data"
    except TimeoutError:
        outcome = "timeout"
    except OSError as exc:
        outcome = f"error-{type(exc).__name__}"
    finally:
        sock.close()
    end = time.perf_counter()
    out[index] = (round(sent - t0, 4),
                  round((connected - sent) * 1000, 1) if connected else None,
                  round((end - sent) * 1000, 1), outcome, len(received))


#: How long tcpdump may take to say it listens (it says so once its filter is in place).
LISTEN_TIMEOUT_S = 10.0


def start_tcpdump(arguments: list[str], **popen) -> subprocess.Popen | None:
    """``tcpdump`` with ``arguments``, returned once it says that it listens (on its standard
    error, after its capture and filter are in place: a packet sent from then on is seen), or
    None where it cannot run here (missing, not permitted: no root or ``CAP_NET_RAW``).
    ``popen``: more arguments of :class:`subprocess.Popen`; its standard error is read here to
    the end (do not read it, nor call ``communicate``)."""
    if shutil.which("tcpdump") is None:
        return None
    process = subprocess.Popen(["tcpdump", *arguments], stderr=subprocess.PIPE,
                               start_new_session=True, **popen)
    said: list[bytes] = []

    def read() -> None:  # every line, so that tcpdump never blocks on a full pipe
        with process.stderr:
            for line in process.stderr:
                said.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    process.reader = reader  # joined by stop_tcpdump
    deadline = time.monotonic() + LISTEN_TIMEOUT_S
    while not any("listening on" in str(line) for line in said):
        if process.poll() is not None or time.monotonic() > deadline:
            stop_tcpdump(process)
            return None
        time.sleep(0.01)
    return process


def _capture(port: int, path: Path):
    """tcpdump on loopback for the port, writing to ``path``, or None where it cannot run."""
    return start_tcpdump(["-i", "lo", "-nn", "-U", "-w", str(path), f"tcp port {port}"],
                         stdout=subprocess.DEVNULL)


def stop_tcpdump(process) -> None:
    if process is None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    reader = getattr(process, "reader", None)
    if reader is not None:
        reader.join(timeout=10)


_LINE = re.compile(r"^(\d+\.\d+) IP6? [\d.:a-f]+?\.(\d+) > [\d.:a-f]+?\.(\d+): "
                   r"Flags \[([^\]]+)\].*?length (\d+)")


def parse_tcpdump(text: str, server_port: int) -> list[tuple[float, int, str, str, int]]:
    """(time, client port, direction, flags, payload length) for each packet line of
    ``tcpdump -nn -tt -r``; flags as letters, e.g. ``SA`` for a SYN-ACK.

    >>> line = ("1700000000.000100 IP 127.0.0.1.51074 > 127.0.0.1.18080: Flags [S], seq 1, "
    ...         "win 65495, length 0")
    >>> parse_tcpdump(line, 18080)
    [(1700000000.0001, 51074, 'client>server', 'S', 0)]
    """
    packets = []
    for line in text.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        when, src, dst, flags, length = match.groups()
        to_server = int(dst) == server_port
        client = int(src) if to_server else int(dst)
        letters = "".join(sorted(flags.replace(".", "A"), key="SAPFR".find))
        packets.append((float(when), client, "client>server" if to_server else "server>client",
                        letters, int(length)))
    return packets


def run_scenario(scenario: Scenario, server: ScenarioTomcat, *,
                 headers: dict[str, str] | None = None) -> tuple[list[tuple], list[tuple]]:
    """Rows of the ``wire_connections`` and ``wire_packets`` tables for one scenario
    (:data:`CONNECTION_COLUMNS`, :data:`PACKET_COLUMNS`), against the page ``work.jsp`` on the
    scenario's port of ``server`` (sent ``headers``: its secret)."""
    headers = headers or {}
    port = server.port(scenario)
    results: list = [None] * scenario.requests
    with tempfile.TemporaryDirectory() as tmp:
        pcap = Path(tmp) / "wire.pcap"
        capture = _capture(port, pcap)
        try:
            if scenario.clients:
                results = _back_to_back(scenario, port, headers)
            else:
                _concurrent(scenario, port, headers, results)
            time.sleep(0.3)
        finally:
            stop_tcpdump(capture)
        text = ""
        if capture is not None and pcap.exists():
            with contextlib.suppress(subprocess.SubprocessError, OSError):
                text = subprocess.run(["tcpdump", "-nn", "-tt", "-r", str(pcap)],
                                      capture_output=True, text=True, timeout=30).stdout
        packets = parse_tcpdump(text, port)
    connections = [(scenario.name, i, *row) for i, row in enumerate(results)]
    return connections, _packet_rows(scenario.name, packets)


def _concurrent(scenario: Scenario, port: int, headers: dict[str, str], results: list
                ) -> None:
    """The scenario's requests, each on a thread of its own, :data:`GAP_S` apart."""
    t0 = time.perf_counter()
    threads = []
    for i in range(scenario.requests):
        thread = threading.Thread(target=_one_request, args=(port, i, t0, results, 30.0,
                                                             headers, scenario.sleep_s))
        thread.start()
        threads.append(thread)
        time.sleep(GAP_S)
    for thread in threads:
        thread.join()


def _back_to_back(scenario: Scenario, port: int, headers: dict[str, str]) -> list:
    """Each client sends its next request as soon as its previous one ended, for the
    scenario's seconds; the rows in the order the requests were sent."""
    t0 = time.perf_counter()
    stop = t0 + scenario.seconds
    found: list = []

    def client() -> None:
        while time.perf_counter() < stop:
            row: list = [None]
            _one_request(port, 0, t0, row, 30.0, headers, scenario.sleep_s)
            found.append(row[0])  # list.append is atomic under the GIL

    threads = [threading.Thread(target=client) for _ in range(scenario.clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(found, key=lambda row: row[0])


def _packet_rows(name: str, packets: list[tuple]) -> list[tuple]:
    """Packets numbered by request (client ports in the order their first SYN passed)."""
    if not packets:
        return []
    ports: dict[int, int] = {}
    for _, client, direction, flags, _ in packets:
        if direction == "client>server" and flags == "S" and client not in ports:
            ports[client] = len(ports)
    start = packets[0][0]
    return [(name, ports[client], round(when - start, 4), direction, flags, length)
            for when, client, direction, flags, length in packets if client in ports]
