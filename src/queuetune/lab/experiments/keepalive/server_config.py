"""Tomcat for the keep-alive experiment: a static page, one measured port, one warm-up port.

The server is Debian's Tomcat 10.1 started by :class:`queuetune.lab.tomcat.Tomcat` machinery
(a fresh ``CATALINA_BASE``, ``catalina.sh run`` pinned with ``taskset``, its own process group),
with a ``server.xml`` of its own: the Connector's ``maxKeepAliveRequests`` is the factor, the
page is a static file of the blog's answer size, and for the TLS run the Connector speaks
HTTPS with an ECDSA P-256 certificate that ``keytool`` makes for the run (nothing downloaded).
A second Connector with the same settings takes the warm-up, so that its connections do not
count in the measured port's ``TIME_WAIT``.
"""

from __future__ import annotations

import os
import secrets
import shutil
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import quoteattr

from ...tomcat import (
    _DEFAULT_CONF,
    _LOGGING,
    BASE_MARK,
    ServerError,
    Tomcat,
    skip_jar_scanning,
)

__all__ = ["KeepAliveSettings", "KeepAliveTomcat", "page_bytes", "server_xml", "client_context",
           "make_certificate"]

PAGE = "page.html"
KEYSTORE = "keystore.p12"


@dataclass(frozen=True)
class KeepAliveSettings:
    """One server configuration of the experiment."""

    keep_alive_requests: int  # Tomcat's maxKeepAliveRequests; 1 switches keep-alive off
    port: int
    warm_port: int
    tls: bool = False
    threads: int = 20
    connection_timeout_ms: int = 20000
    heap_mb: int = 256
    response_bytes: int = 5887
    cores: tuple[int, ...] = ()
    address: str = "127.0.0.1"
    keystore_password: str = field(default="", repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 1 <= self.keep_alive_requests <= 100_000:
            raise ValueError("keep_alive_requests must be between 1 and 100000, got "
                             f"{self.keep_alive_requests}")
        if not 1 <= self.threads <= 10_000:
            raise ValueError(f"threads must be between 1 and 10000, got {self.threads}")
        if not 1 <= self.response_bytes <= 10_000_000:
            raise ValueError("response_bytes must be between 1 and 10000000, got "
                             f"{self.response_bytes}")

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"

    def jvm_options(self) -> list[str]:
        cores = max(len(self.cores), 1)
        return [f"-Xms{self.heap_mb}m", f"-Xmx{self.heap_mb}m", "-XX:+UseSerialGC",
                f"-XX:ActiveProcessorCount={cores}", "-Djava.awt.headless=true"]


def page_bytes(size: int) -> bytes:
    """A static HTML page of exactly ``size`` bytes (ASCII), the same for every run.

    >>> len(page_bytes(5887)), page_bytes(5887)[:15]
    (5887, b'<!doctype html>')
    """
    head, tail = b"<!doctype html><title>keep-alive</title><pre>\n", b"\n</pre>\n"
    if size < len(head) + len(tail):
        raise ValueError(f"size must be at least {len(head) + len(tail)} bytes, got {size}")
    line = b"The quick brown fox jumps over the lazy dog 0123456789.\n"
    body_size = size - len(head) - len(tail)
    body = (line * (body_size // len(line) + 1))[:body_size]
    return head + body + tail


def _connector(s: KeepAliveSettings, port: int) -> str:
    common = (f'port="{port}" address={quoteattr(s.address)} protocol="HTTP/1.1" '
              f'maxThreads="{s.threads}" minSpareThreads="{s.threads}" '
              f'maxKeepAliveRequests="{s.keep_alive_requests}" '
              f'connectionTimeout="{s.connection_timeout_ms}" '
              f'keepAliveTimeout="{s.connection_timeout_ms}"')
    if not s.tls:
        return f"<Connector {common} />"
    return f"""<Connector {common}
               SSLEnabled="true" scheme="https" secure="true">
      <SSLHostConfig>
        <Certificate certificateKeystoreFile="conf/{KEYSTORE}" certificateKeystoreType="PKCS12"
                     certificateKeystorePassword={quoteattr(s.keystore_password)} type="EC" />
      </SSLHostConfig>
    </Connector>"""


def server_xml(s: KeepAliveSettings) -> str:
    """The ``server.xml`` of one configuration: the measured Connector and the warm-up one.

    >>> xml = server_xml(KeepAliveSettings(keep_alive_requests=5, port=18080, warm_port=18081))
    >>> xml.count('maxKeepAliveRequests="5"'), 'SSLEnabled' in xml
    (2, False)
    """
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by queuetune.lab.experiments.keepalive for one configuration. -->
<Server port="-1" shutdown="SHUTDOWN">
  <Service name="Catalina">
    <!-- measured -->
    {_connector(s, s.port)}
    <!-- warm-up (not counted) -->
    {_connector(s, s.warm_port)}
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false">
        <!-- One line per answered request: status, server time in microseconds, bytes,
             local port (measured or warm-up). -->
        <Valve className="org.apache.catalina.valves.AccessLogValve" directory="logs"
               prefix="access" suffix=".log" rotatable="false" buffered="false"
               pattern="%s %D %B %p" />
      </Host>
    </Engine>
  </Service>
</Server>
"""


def make_certificate(keystore: Path, password: str, *, address: str = "127.0.0.1") -> None:
    """An ECDSA P-256 key and self-signed certificate for ``address``, made by the JDK's
    ``keytool`` into a PKCS#12 keystore (the blog's server used an ECDSA NIST P-256 key)."""
    keytool = shutil.which("keytool")
    if keytool is None:
        raise ServerError("keytool (from the Java runtime) is needed to make the TLS "
                          "certificate; install openjdk-17-jre-headless")
    command = [keytool, "-genkeypair", "-alias", "tomcat", "-keyalg", "EC",
               "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA",
               "-dname", f"CN={address}", "-ext", f"SAN=ip:{address}", "-validity", "2",
               "-storetype", "PKCS12", "-keystore", str(keystore),
               "-storepass", password, "-keypass", password]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise ServerError(f"keytool failed ({result.returncode}): {result.stderr.strip()}")


def client_context() -> ssl.SSLContext:
    """The clients' TLS context: the run's own self-signed certificate is not verified (it
    exists only for this run, on 127.0.0.1)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def write_base(base: Path, settings: KeepAliveSettings) -> None:
    """A ``CATALINA_BASE`` for one configuration, marked as the lab's (so that a killed
    runner's folder is removed by the next run)."""
    for folder in ("conf", "logs", "temp", "work", "webapps/ROOT"):
        (base / folder).mkdir(parents=True, exist_ok=True)
    (base / BASE_MARK).write_text(f"{os.getpid()}\n", encoding="utf-8")
    for name in ("web.xml", "catalina.properties", "context.xml"):
        shutil.copyfile(_DEFAULT_CONF / name, base / "conf" / name)
    skip_jar_scanning(base / "conf")
    (base / "conf" / "server.xml").write_text(server_xml(settings), encoding="utf-8")
    (base / "conf" / "logging.properties").write_text(_LOGGING, encoding="utf-8")
    (base / "webapps" / "ROOT" / PAGE).write_bytes(page_bytes(settings.response_bytes))
    if settings.tls:
        make_certificate(base / "conf" / KEYSTORE, settings.keystore_password,
                         address=settings.address)


class KeepAliveTomcat(Tomcat):
    """A Tomcat serving the static page on the measured and the warm-up port."""

    def __init__(self, settings: KeepAliveSettings, *, start_timeout_s: float = 90.0):
        if settings.tls and not settings.keystore_password:
            settings = KeepAliveSettings(**{**settings.__dict__,
                                            "keystore_password": secrets.token_hex(16)})
        super().__init__(settings, start_timeout_s=start_timeout_s)  # type: ignore[arg-type]

    @property
    def url(self) -> str:
        return f"{self.settings.scheme}://{self.settings.address}:{self.settings.port}"

    @property
    def warm_url(self) -> str:
        return f"{self.settings.scheme}://{self.settings.address}:{self.settings.warm_port}"

    def ports(self) -> tuple[int, ...]:
        return (self.settings.port, self.settings.warm_port)

    def write_base(self) -> None:
        write_base(self.base, self.settings)  # this module's: the static page, TLS

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        url = f"{self.warm_url}/{PAGE}"
        context = client_context() if self.settings.tls else None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerError(f"Tomcat exited with code {self.process.returncode} while "
                                  f"starting; its log ends with:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(url, timeout=30, context=context) as answer:
                    body = answer.read()
                if len(body) != self.settings.response_bytes:
                    raise ServerError(f"the page has {len(body)} bytes, expected "
                                      f"{self.settings.response_bytes}")
                return
            except urllib.error.HTTPError as exc:
                raise ServerError(f"Tomcat answered {exc.code} for /{PAGE}; its log ends "
                                  f"with:\n{self.log_tail()}") from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                time.sleep(0.2)
        raise ServerError(f"Tomcat did not answer on {self.warm_url} within "
                          f"{self.start_timeout_s:g} s; its log ends with:\n{self.log_tail()}")

    def probe(self, timeout_s: float) -> bool:
        """Whether the measured port answers one request for the page within ``timeout_s``."""
        context = client_context() if self.settings.tls else None
        request = urllib.request.Request(f"{self.url}/{PAGE}", headers={"Connection": "close"})
        try:
            with urllib.request.urlopen(request, timeout=timeout_s, context=context) as answer:
                answer.read()
                return answer.status == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return False

    def answered_on(self, port: int) -> int:
        """Requests the access log shows answered on ``port`` (measured or warm-up)."""
        path = self.base / "logs" / "access.log"
        if not path.exists():
            return 0
        return sum(1 for line in path.read_text().splitlines()
                   if line.split()[-1:] == [str(port)])
