"""queuetune.lab.machine: the description of the machine a campaign ran on, read from /proc,
/etc/os-release and the installed packages (no host or user name)."""

from __future__ import annotations

import getpass
import json
import os
import socket

from queuetune.lab import machine


def test_describe_holds_the_machine_the_system_and_the_versions():
    info = machine.describe(server_versions={"tomcat": "10.1.x"})
    assert info["logical_cores"] == os.cpu_count()
    assert info["cores_available"] == sorted(os.sched_getaffinity(0))
    assert info["memory_gib"] > 0
    assert info["tomcat"] == "10.1.x"
    assert set(info["sysctl"]) == {"net.core.somaxconn", "net.ipv4.tcp_abort_on_overflow",
                                   "net.ipv4.tcp_syncookies", "net.ipv4.tcp_syn_retries"}
    json.dumps(info)  # stored with the campaign: plain JSON


def test_describe_names_no_host_and_no_user():
    text = json.dumps(machine.describe())
    assert socket.gethostname() not in text.split('"')
    assert getpass.getuser() not in text.split('"')


def fake_files(monkeypatch, files: dict[str, str]):
    monkeypatch.setattr(machine, "_read", lambda path: files.get(path, ""))


def test_cpu_model_and_system_name_are_read_from_their_files(monkeypatch):
    fake_files(monkeypatch, {
        "/proc/cpuinfo": "processor\t: 0\nmodel name\t: Example CPU @ 2.00GHz\nflags\t: fpu",
        "/etc/os-release": 'NAME="Debian"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n',
        "/proc/sys/net/core/somaxconn": "4096",
    })
    info = machine.describe()
    assert info["cpu_model"] == "Example CPU @ 2.00GHz"
    assert info["os"] == "Debian GNU/Linux 12 (bookworm)"
    assert info["sysctl"]["net.core.somaxconn"] == "4096"
    assert info["sysctl"]["net.ipv4.tcp_syncookies"] == "unknown"  # unreadable


def test_without_the_files_the_platform_answers(monkeypatch):
    fake_files(monkeypatch, {})
    monkeypatch.setattr(machine.platform, "processor", lambda: "")
    monkeypatch.setattr(machine.platform, "platform", lambda: "Linux-x")
    info = machine.describe()
    assert info["cpu_model"] == "unknown" and info["os"] == "Linux-x"


def test_a_missing_package_is_not_installed():
    assert machine._version("queuetune-no-such-package") == "not installed"
    assert machine._version("numpy") != "not installed"


def test_an_unreadable_file_reads_as_empty(tmp_path):
    assert machine._read(str(tmp_path / "absent")) == ""
    (tmp_path / "value").write_text(" 128\n", encoding="utf-8")
    assert machine._read(str(tmp_path / "value")) == "128"
