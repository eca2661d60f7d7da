"""Child processes that cannot outlive the lab: each runs in a process group of its own, which
the lab ends (TERM, then KILL), and asks the kernel to kill it should the lab itself die
without a chance to clean up (``PR_SET_PDEATHSIG``, Linux)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess

__all__ = ["spawn", "end"]

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
