"""The settings to copy, written from a sizing's numbers: one home for the text that the page
(``book/_static/calculator/snippets.js``, its JavaScript twin, held to this module by a browser
test on random inputs) and ``python -m queuetune size`` print.

Inputs (:class:`Numbers`): the threads ``T``, the admission bound ``B`` (admitted requests,
running or waiting for a thread), the database pool ``C`` (None without a wait), whether the
user gave that pool, the longest acceptable response (s) and Tomcat's
keep-alive timeout (s). Outputs (:func:`texts`): Tomcat's ``server.xml`` Executor and Connector,
Spring Boot's ``application.properties``, HikariCP's settings, the Linux backlog, an nginx
upstream in front, and the variant with virtual threads.

Each text is valid for the versions it names (a test starts Debian's Tomcat 10.1 with the
emitted Executor and Connector and reads the settings back over JMX):

* Tomcat's Executor needs ``maxQueueSize`` >= 1 (``maxQueueSize="0"`` makes it throw at start:
  its ``TaskQueue`` is a ``LinkedBlockingQueue`` of that capacity), and Spring Boot applies
  ``server.tomcat.threads.max-queue-capacity`` only when it is above 0 (spring-boot issue
  42726). When ``B = T`` the queue is therefore 1, and the text says so: ``B`` becomes ``T + 1``.
* Each Spring Boot property is printed with the first version that has it:
  ``server.tomcat.threads.max`` 2.3.0 (renamed from ``server.tomcat.max-threads``; the 2.3
  configuration changelog), ``server.tomcat.threads.max-queue-capacity`` 3.3.0 (the 3.3.0
  configuration changelog; spring-boot issue 36087), ``server.tomcat.max-connections`` and
  ``server.tomcat.accept-count`` 1.5 (spring-boot pull request 6571),
  ``server.tomcat.keep-alive-timeout`` 2.5.0 (spring-boot pull request 25815, issue 23539),
  ``spring.datasource.hikari.maximum-pool-size`` 2.0.0 (HikariCP the default pool, 2.0.0-M2
  release notes), ``spring.threads.virtual.enabled`` 3.2.0 (its release notes).
* The proxy's idle timeout towards Tomcat (nginx's upstream ``keepalive_timeout``, nginx 1.15.3
  or later) is shorter than Tomcat's ``keepAliveTimeout``: :func:`proxy_idle_seconds`.
* ``maxConnections`` counts connections, idle keep-alive ones included, and refuses none (a
  connection over it waits in the kernel's backlog): with platform threads it stays large and
  the Executor bounds ``B`` (``maxThreads + maxQueueSize``). With virtual threads there is no
  ``maxThreads`` and no ``maxQueueSize``: ``maxConnections`` is the only bound Tomcat has left,
  a bound on connections, not requests.
* The pool is never larger than the threads (a thread holds at most one connection), unless the
  user gave that pool: then it is kept, with a warning.

>>> t = texts(Numbers(threads=51, capacity=759, connections=36,
...                   max_response_time=2.4))
>>> 'maxThreads="51"' in t["tomcat"] and 'maxQueueSize="708"' in t["tomcat"]
True
>>> texts(Numbers(threads=4, capacity=4, connections=None,
...               max_response_time=1.0))["spring"].count("max-queue-capacity=1")
1
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["JAVA_INT_MAX", "KEYS", "MAX_CONNECTIONS", "Numbers", "from_sizing",
           "max_connections", "pool", "proxy_idle_seconds", "queue", "texts"]

#: The snippets, in the order the page and the command line show them.
KEYS = ("tomcat", "spring", "hikari", "sysctl", "nginx", "virtual_tomcat", "virtual_spring")
#: Tomcat's default maxConnections (NIO, 9.0 to 11.0): kept unless B is larger.
MAX_CONNECTIONS = 8192
#: Tomcat's acceptCount default, and the backlog it asks the kernel for.
ACCEPT_COUNT = 100
#: The largest value of Tomcat's int attributes (Java's Integer.MAX_VALUE, maxQueueSize's
#: default: no bound in practice).
JAVA_INT_MAX = 2**31 - 1


@dataclass(frozen=True)
class Numbers:
    """What the snippets are written from (a sizing's settings and two times)."""

    threads: int
    capacity: int
    connections: int | None
    max_response_time: float
    connections_given: bool = False
    keep_alive_s: int = 20

    def __post_init__(self) -> None:
        for name in ("threads", "capacity", "keep_alive_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
        if self.capacity < self.threads:
            raise ValueError(f"capacity must be at least threads ({self.threads}), got "
                             f"{self.capacity}")
        if self.connections is not None and (isinstance(self.connections, bool) or not
                                             isinstance(self.connections, int)
                                             or self.connections < 1):
            raise ValueError(f"connections must be a whole number >= 1 or None, got "
                             f"{self.connections!r}")
        if not (isinstance(self.max_response_time, int | float)
                and math.isfinite(self.max_response_time) and self.max_response_time > 0):
            raise ValueError(f"max_response_time must be a number > 0 (s), got "
                             f"{self.max_response_time!r}")


def from_sizing(result) -> Numbers:
    """The numbers of a :class:`queuetune.sizing.Sizing`."""
    inputs = result.inputs
    return Numbers(threads=result.threads, capacity=result.capacity,
                   connections=result.connections,
                   max_response_time=result.max_response_time,
                   connections_given=inputs["connections"] is not None)


def queue(n: Numbers) -> int:
    """``maxQueueSize``: ``B - T``, at least 1 (0 fails at start, or is ignored) and at most
    :data:`JAVA_INT_MAX` (a Java int)."""
    return min(JAVA_INT_MAX, max(1, n.capacity - n.threads))


def max_connections(n: Numbers) -> int:
    """``maxConnections`` with platform threads: Tomcat's default, or B if larger (a Java
    int at most)."""
    return min(JAVA_INT_MAX, max(MAX_CONNECTIONS, n.capacity))


def pool(n: Numbers) -> int | None:
    """The pool to set: C, but never more than T unless the user gave it."""
    if n.connections is None:
        return None
    return n.connections if n.connections_given else min(n.connections, n.threads)


def proxy_idle_seconds(n: Numbers) -> int:
    """nginx's idle timeout towards Tomcat: three quarters of Tomcat's keep-alive timeout,
    whole seconds, at least 1, and always shorter than Tomcat's (so that nginx never reuses a
    connection Tomcat is closing); a keep-alive of 1 s leaves no shorter whole second, and is
    refused."""
    if n.keep_alive_s < 2:
        raise ValueError(f"keep_alive_s must be at least 2 s (the proxy's idle timeout must be "
                         f"shorter, in whole seconds), got {n.keep_alive_s}")
    return max(1, (3 * n.keep_alive_s) // 4)


def _read_timeout(n: Numbers) -> int:
    return max(1, math.ceil(3 * n.max_response_time))


def _queue_note(n: Numbers) -> str:
    if n.capacity - n.threads > JAVA_INT_MAX:
        return f"{queue(n)} may wait for a thread, the most Tomcat takes"
    if n.capacity > n.threads:
        return f"{n.capacity - n.threads} may wait for a thread"
    return (f"no queue is wanted, but maxQueueSize must be at least 1 (0 fails at start), so "
            f"B is {n.threads + 1}")


def _pool_warning(n: Numbers) -> str | None:
    C = n.connections
    if C is None or C <= n.threads:
        return None
    if n.connections_given:
        return (f"warning: your pool of {C} connections is larger than the {n.threads} "
                f"threads; a thread holds one connection, so at most {n.threads} are ever used")
    return (f"the sized pool of {C} is cut to the {n.threads} threads: a thread holds one "
            "connection, so more are never used")


def tomcat(n: Numbers) -> str:
    """``conf/server.xml``: the Executor (T, B - T) and the Connector that uses it."""
    keep_ms = 1000 * n.keep_alive_s
    return (
        f"<!-- T = {n.threads} threads, B = {n.capacity} admitted requests: {_queue_note(n)}"
        " (Tomcat 9.0, 10.1, 11.0) -->\n"
        "<Executor name=\"tomcatThreadPool\" namePrefix=\"http-exec-\"\n"
        f"          maxThreads=\"{n.threads}\" minSpareThreads=\"{min(n.threads, 25)}\"\n"
        f"          maxQueueSize=\"{queue(n)}\"/>\n"
        "<!-- maxConnections counts connections, idle keep-alive ones included, and refuses "
        "none: keep it large; the Executor bounds B -->\n"
        "<Connector port=\"8080\" protocol=\"HTTP/1.1\" executor=\"tomcatThreadPool\"\n"
        f"           maxConnections=\"{max_connections(n)}\" "
        f"acceptCount=\"{ACCEPT_COUNT}\"\n"
        f"           connectionTimeout=\"20000\" keepAliveTimeout=\"{keep_ms}\"\n"
        "           maxKeepAliveRequests=\"1000\"/>")


def spring(n: Numbers) -> str:
    """``application.properties`` of Spring Boot's embedded Tomcat (each property under a
    comment with the first Spring Boot version that has it: a properties file has no comment
    after a value)."""
    C = pool(n)
    lines = [
        "# Spring Boot 3.3.0 or later (the oldest property below is from 1.5)",
        f"# T = {n.threads} threads (Spring Boot 2.3.0+)",
        f"server.tomcat.threads.max={n.threads}",
        f"# B - T = {queue(n)} waiting for a thread, B = {n.threads + queue(n)} admitted "
        "(Spring Boot 3.3.0+; 0 would be ignored)",
        f"server.tomcat.threads.max-queue-capacity={queue(n)}",
        "# connections, idle keep-alive ones included: keep it large (Spring Boot 1.5+)",
        f"server.tomcat.max-connections={max_connections(n)}",
        "# (Spring Boot 1.5+)",
        f"server.tomcat.accept-count={ACCEPT_COUNT}",
        "# longer than the proxy's idle timeout (Spring Boot 2.5.0+)",
        f"server.tomcat.keep-alive-timeout={n.keep_alive_s}s",
    ]
    if C is None:
        lines.append("# no wait per request: no database pool to size")
    else:
        lines += [f"# C = {C} connections (Spring Boot 2.0.0+, HikariCP)",
                  f"spring.datasource.hikari.maximum-pool-size={C}"]
    warning = _pool_warning(n)
    if warning:
        lines.append(f"# {warning}")
    return "\n".join(lines)


def hikari(n: Numbers) -> str:
    """HikariCP's own settings (``hikari.properties``, or the same names on a HikariConfig)."""
    C = pool(n)
    if C is None:
        return "# no wait per request: no database pool to size"
    lines = [f"# C = {C} connections, a fixed-size pool (minimumIdle defaults to it)",
             f"maximumPoolSize={C}"]
    warning = _pool_warning(n)
    if warning:
        lines.append(f"# {warning}")
    return "\n".join(lines)


def sysctl(n: Numbers) -> str:
    """The kernel's listen backlog, at least Tomcat's acceptCount."""
    return ("# the listen backlog: at least acceptCount (default 4096 since Linux 5.4)\n"
            "net.core.somaxconn = 4096\n"
            "net.ipv4.tcp_max_syn_backlog = 4096")


def nginx(n: Numbers) -> str:
    """An nginx upstream in front (nginx 1.15.3 or later: upstream ``keepalive_timeout``)."""
    read = _read_timeout(n)
    return (
        "upstream app {   # nginx 1.15.3 or later\n"
        "    server 127.0.0.1:8080;\n"
        f"    keepalive {min(n.threads, 256)};   # idle connections to the app, per worker\n"
        f"    keepalive_timeout {proxy_idle_seconds(n)}s;   # shorter than Tomcat's "
        f"keepAliveTimeout ({n.keep_alive_s}s)\n"
        "}\n"
        "server {\n"
        "    location / {\n"
        "        proxy_pass http://app;\n"
        "        proxy_http_version 1.1;\n"
        "        proxy_set_header Connection \"\";\n"
        "        proxy_connect_timeout 5s;\n"
        f"        proxy_read_timeout {read}s;   # 3 x the longest acceptable response\n"
        f"        proxy_send_timeout {read}s;\n"
        "    }\n"
        "}")


def virtual_tomcat(n: Numbers) -> str:
    """Virtual threads in ``server.xml``: what bounds the admitted requests then."""
    limit = ("the database pool, not the threads, limits what runs at once"
             if pool(n) is not None else "the processors, not the threads, limit what runs")
    return (
        "<!-- Virtual threads (Java 21 or later; Tomcat 10.1, 11.0): maxThreads and\n"
        "     maxQueueSize are not used, every request gets a thread:\n"
        "     " + limit + ".\n"
        "     maxConnections is the only bound left: it counts connections (idle keep-alive\n"
        "     ones included), not requests, and refuses none: a connection over it waits in\n"
        f"     the kernel's backlog. At B = {n.capacity} it bounds the admitted requests only\n"
        "     while each connection carries one request at a time; to refuse, limit in front. -->\n"
        "<Connector port=\"8080\" protocol=\"HTTP/1.1\" useVirtualThreads=\"true\"\n"
        f"           maxConnections=\"{min(JAVA_INT_MAX, n.capacity)}\" "
        f"acceptCount=\"{ACCEPT_COUNT}\"\n"
        f"           connectionTimeout=\"20000\" keepAliveTimeout=\"{1000 * n.keep_alive_s}\"/>")


def virtual_spring(n: Numbers) -> str:
    """Virtual threads in Spring Boot's ``application.properties``."""
    return ("# virtual threads: Spring Boot 3.2.0 or later, on Java 21 or later\n"
            "spring.threads.virtual.enabled=true\n"
            "# connections, not requests: the only bound left (Spring Boot 1.5+)\n"
            f"server.tomcat.max-connections={min(JAVA_INT_MAX, n.capacity)}")


def texts(n: Numbers) -> dict[str, str]:
    """Every snippet, by :data:`KEYS`."""
    writers = {"tomcat": tomcat, "spring": spring, "hikari": hikari, "sysctl": sysctl,
               "nginx": nginx, "virtual_tomcat": virtual_tomcat,
               "virtual_spring": virtual_spring}
    return {key: writers[key](n) for key in KEYS}
