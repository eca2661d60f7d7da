"""Child processes that cannot outlive the lab: each runs in a process group of its own, which
the lab ends (TERM, then KILL), and asks the kernel to kill it should the lab itself die
without a chance to clean up (``PR_SET_PDEATHSIG``, Linux). Temporary folders that a killed
lab could not remove (Tomcat's ``CATALINA_BASE``, the load generator's): each is marked with
the PID of the process that made it (:func:`temporary_folder`), and the next runner removes
those whose maker no longer runs (:func:`remove_stale`)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

__all__ = ["spawn", "end", "MARK", "LAB_PREFIX", "mark", "maker", "temporary_folder",
           "remove_stale"]

#: The prefix of every temporary folder of the lab (a folder without a mark is left alone).
LAB_PREFIX = "queuetune-"
#: The file that marks a temporary folder as the lab's; it holds its maker's PID.
MARK = ".queuetune-lab-base"

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # runs in the child, between fork and exec
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def spawn(command: list[str], *, env: dict[str, str], log) -> subprocess.Popen:
    """Start ``command`` with its output in ``log``, in its own group, tied to this process."""
    return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True,
                            preexec_fn=_die_with_parent)  # noqa: PLW1509


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def end(process: subprocess.Popen, *, grace_s: float = 15.0) -> None:
    """Stop a process and everything in its group: TERM, then KILL after ``grace_s``."""
    if process.poll() is None:
        _signal_group(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            _signal_group(process.pid, signal.SIGKILL)
            process.wait(timeout=grace_s)
    _signal_group(process.pid, signal.SIGKILL)  # anything the process left in its group


def mark(folder: Path) -> None:
    """Mark ``folder`` as the lab's, made by this process."""
    (Path(folder) / MARK).write_text(f"{os.getpid()}\n", encoding="utf-8")


def maker(mark_file: Path) -> int | None:
    """The PID written in a folder's mark by :func:`mark` (one decimal number and a new
    line), ``None`` without a mark; a mark in any other format is refused by name."""
    try:
        text = Path(mark_file).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    found = re.fullmatch(r"([0-9]+)\n?", text)
    if found is None:
        raise ValueError(f"{mark_file} must hold the PID of the process that made it (digits "
                         f"and a new line), got {text[:40]!r}")
    return int(found.group(1))


def temporary_folder(prefix: str) -> tempfile.TemporaryDirectory:
    """A temporary folder named ``prefix...`` (``prefix`` begins with :data:`LAB_PREFIX`),
    marked as made by this process (removed when closed; if the process is killed first,
    :func:`remove_stale` removes it later)."""
    if not prefix.startswith(LAB_PREFIX):
        raise ValueError(f"prefix must begin with {LAB_PREFIX!r}, got {prefix!r}")
    folder = tempfile.TemporaryDirectory(prefix=prefix)
    mark(Path(folder.name))
    return folder


def remove_stale(prefix: str, tmp: Path | None = None) -> list[Path]:
    """Remove the folders ``prefix*`` under ``tmp`` (the system's temporary folder) marked as
    the lab's whose maker no longer runs; an unmarked folder is not ours and stays. Returns
    what it removed."""
    import psutil

    removed = []
    for folder in sorted(Path(tmp or tempfile.gettempdir()).glob(f"{prefix}*")):
        pid = maker(folder / MARK)
        if pid is not None and not psutil.pid_exists(pid):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
