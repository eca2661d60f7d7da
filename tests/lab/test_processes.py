"""queuetune.lab.processes: children in a process group of their own, which end() stops
whole (TERM, then KILL), a grandchild included."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil

from queuetune.lab import processes

#: A child that starts a grandchild in its group, prints the grandchild's PID and waits.
PARENT = ("import subprocess, sys, time\n"
          "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
          "print(child.pid, flush=True)\n"
          "time.sleep(60)\n")

#: A child that ignores TERM (KILL must end it).
STUBBORN = ("import signal, time\n"
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "print('ready', flush=True)\n"
            "time.sleep(60)\n")


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def first_line(path, timeout_s: float = 20.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = path.read_text()
        if text.endswith("\n"):
            return text.splitlines()[0]
        time.sleep(0.05)
    raise AssertionError(f"the child wrote nothing to {path}")


def test_spawn_starts_a_group_of_its_own_and_end_stops_it_whole(tmp_path):
    out = tmp_path / "out.log"
    with out.open("wb") as log:
        child = processes.spawn([sys.executable, "-c", PARENT], env=dict(os.environ), log=log)
        try:
            grandchild = int(first_line(out))
            assert os.getpgid(child.pid) == child.pid != os.getpgid(0)
            assert os.getpgid(grandchild) == child.pid
        finally:
            processes.end(child, grace_s=5.0)
    assert child.returncode == -signal.SIGTERM
    deadline = time.monotonic() + 5
    while not gone(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(grandchild)


def test_end_kills_a_child_that_ignores_term(tmp_path):
    out = tmp_path / "out.log"
    with out.open("wb") as log:
        child = processes.spawn([sys.executable, "-c", STUBBORN], env=dict(os.environ), log=log)
        try:
            assert first_line(out) == "ready"
        finally:
            processes.end(child, grace_s=0.5)
    assert child.returncode == -signal.SIGKILL


def test_end_of_a_finished_process_is_harmless(tmp_path):
    with (tmp_path / "out.log").open("wb") as log:
        child = processes.spawn([sys.executable, "-c", "print('done')"], env=dict(os.environ),
                                log=log)
        child.wait(timeout=20)
        processes.end(child)
    assert child.returncode == 0
    assert (tmp_path / "out.log").read_text() == "done\n"
    assert child.stdin is None and isinstance(child, subprocess.Popen)


#: A child that makes the generator's temporary folder, prints it and waits to be killed.
MAKER = ("import sys, time\n"
         "from queuetune.lab import generator, processes\n"
         "folder = processes.temporary_folder(generator.FOLDER_PREFIX)\n"
         "print(folder.name, flush=True)\n"
         "time.sleep(60)\n")


def test_a_killed_makers_temporary_folder_is_removed_by_the_next_runner(tmp_path):
    """SIGKILL leaves the generator's folder behind (nothing runs to remove it); the reaper
    the runner calls first removes it, and leaves a live maker's folder and an unmarked one."""
    from pathlib import Path

    from queuetune.lab import generator

    child = subprocess.Popen([sys.executable, "-c", MAKER], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "TMPDIR": str(tmp_path)})
    left = Path(child.stdout.readline().strip())
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    child.stdout.close()
    assert left.parent == tmp_path and left.name.startswith(generator.FOLDER_PREFIX)
    assert processes.maker(left / processes.MARK) == child.pid and left.is_dir()
    mine = tmp_path / f"{generator.FOLDER_PREFIX}alive"
    mine.mkdir()
    processes.mark(mine)
    unmarked = tmp_path / f"{generator.FOLDER_PREFIX}unmarked"
    unmarked.mkdir()
    assert processes.remove_stale(processes.LAB_PREFIX, tmp_path) == [left]
    assert not left.exists() and mine.is_dir() and unmarked.is_dir()


def test_a_temporary_folder_outside_the_labs_prefix_is_refused():
    import pytest

    with pytest.raises(ValueError, match="prefix must begin with 'queuetune-'"):
        processes.temporary_folder("locust-")
