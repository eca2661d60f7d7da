"""queuetune.lab.postgres: a throwaway cluster starts, answers, is measured, and leaves nothing
(no process, no folder) however it ends; a killed postmaster is seen."""

from __future__ import annotations

import os
import signal
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from queuetune.lab import postgres, processes


def _postgres_processes() -> set[tuple[int, float]]:
    """Every PostgreSQL process running on the machine (PID and start time; a zombie, ended
    and waiting for init to collect it, does not run)."""
    found = set()
    for proc in psutil.process_iter(["name", "create_time", "status"]):
        if (proc.info["name"] in ("postgres", "postmaster")
                and proc.info["status"] != psutil.STATUS_ZOMBIE):
            found.add((proc.pid, proc.info["create_time"]))
    return found


def _wait_gone(pids: list[int], timeout_s: float = 20.0) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        left = [p for p in pids if psutil.pid_exists(p)
                and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
        if not left:
            return []
        time.sleep(0.1)
    return left


def test_a_cluster_needs_a_row():
    with pytest.raises(ValueError, match="rows"):
        postgres.Cluster(rows=0)


def test_a_missing_installation_is_named(monkeypatch, tmp_path):
    monkeypatch.setattr(postgres, "BIN", tmp_path)
    with pytest.raises(postgres.DatabaseError, match="initdb not found.*make database"):
        postgres.Cluster().start()


@pytest.mark.lab
def test_it_starts_answers_measures_and_leaves_nothing():
    before = _postgres_processes()
    with postgres.Cluster(cores=(0,), rows=500) as cluster:
        folder, pids = cluster.folder, cluster.pids()
        assert folder.name.startswith(postgres.FOLDER_PREFIX)
        assert processes.maker(folder / processes.MARK) == os.getpid()
        assert cluster.alive() and pids[0] == cluster.postmaster_pid() and len(pids) > 1
        # pinned, on the loopback only, its socket in its folder
        assert psutil.Process(pids[0]).cpu_affinity() == [0]
        assert cluster.sql("SHOW listen_addresses;").strip() == "127.0.0.1"
        assert cluster.sql("SHOW fsync;").strip() == "off"
        assert any(p.name.startswith(".s.PGSQL") for p in cluster.socket_dir.iterdir())
        assert cluster.sql("SELECT count(*) FROM qt_items;").strip() == "500"
        assert f":{cluster.port}/" in cluster.jdbc_url
        # the work's processor time: more iterations, more time, counted in the cluster
        per_ms = cluster.calibrate(iterations=300_000, repeats=5, rounds=1)
        assert per_ms > 0
        with pytest.raises(postgres.DatabaseError, match="psql failed"):
            cluster.sql("SELECT no_such_column FROM qt_items;")
    assert not folder.exists()
    assert not cluster.alive() and cluster.pids() == []
    assert _wait_gone(pids) == []
    assert _postgres_processes() - before == set()


@pytest.mark.lab
def test_a_killed_postmaster_is_seen_and_its_children_reaped():
    before = _postgres_processes()
    cluster = postgres.Cluster(cores=(0,), rows=10)
    with cluster:
        pids = cluster.pids()
        os.kill(cluster.postmaster_pid(), signal.SIGKILL)
        deadline = time.monotonic() + 10
        while cluster.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not cluster.alive() and cluster.pids() == []
        folder = cluster.folder
    assert not folder.exists()
    assert _wait_gone(pids) == []
    assert _postgres_processes() - before == set()


@pytest.mark.lab
def test_a_cluster_left_by_a_killed_maker_is_removed(tmp_path):
    stale = Path(tempfile.mkdtemp(prefix=postgres.FOLDER_PREFIX, dir=tmp_path))
    (stale / processes.MARK).write_text("999999999\n", encoding="utf-8")
    mine = Path(tempfile.mkdtemp(prefix=postgres.FOLDER_PREFIX, dir=tmp_path))
    processes.mark(mine)
    assert postgres.remove_stale_folders(tmp_path) == [stale]
    assert mine.exists() and not stale.exists()


@pytest.mark.lab
def test_a_killed_maker_takes_its_cluster_with_it_and_the_folder_is_reaped():
    import subprocess
    import sys

    before = _postgres_processes()
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\n"
         "from queuetune.lab import postgres\n"
         "c = postgres.Cluster(rows=1)\nc.start()\n"
         "print(c.folder, *c.pids(), flush=True)\ntime.sleep(600)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        folder, *pids = child.stdout.readline().split()
        child.send_signal(signal.SIGKILL)  # no chance to stop its cluster
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
        child.stdout.close()
    assert _wait_gone([int(p) for p in pids]) == []
    assert _postgres_processes() - before == set()
    assert Path(folder).is_dir()  # left behind, marked: the next runner removes it
    assert Path(folder) in postgres.remove_stale_folders()
    assert not Path(folder).exists()
