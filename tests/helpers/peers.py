"""The peer solvers that tests compare queuetune with, and what a test does when one is missing.

* LINE (``line-solver`` on PyPI, pinned in ``requirements-peers.txt``, installed by ``make
  test``): its pure-Python solvers (its JMT backend needs Java and stays out);
* Octave's ``queueing`` package (Debian's ``octave-queueing``, installed by ``make test`` with
  apt, like Tomcat and Chromium): run as a subprocess of ``octave-cli``.

Where a peer is missing, its tests skip with the way to install it; but ``make test`` and CI
(``QUEUETUNE_PEERS=required``, or any non-empty ``CI`` as CI services set it) require every
peer: a missing one fails its tests loudly instead of skipping them in silence.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import warnings
from types import ModuleType

import pytest

#: Seconds an Octave script may take before the test fails (Octave starts in about 1 s).
OCTAVE_TIMEOUT_S = 120


def required() -> bool:
    """Whether a missing peer fails its tests (make test, CI) rather than skipping them."""
    return (os.environ.get("QUEUETUNE_PEERS") == "required"
            or os.environ.get("CI", "").lower() not in ("", "0", "false"))


def missing(reason: str) -> None:
    """Skip the test outside CI; fail it where the peers are required."""
    if required():
        pytest.fail(f"{reason} (the peers are required here: QUEUETUNE_PEERS=required or CI)",
                    pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def line_solver() -> ModuleType:
    """The ``line_solver`` module, or skip/fail saying how to install it."""
    try:
        with warnings.catch_warnings():
            # LINE's copy of butools imports numpy.matlib, which warns on import (the tests
            # turn warnings into errors); nothing of it is used by the solvers called here
            warnings.filterwarnings("ignore", "Importing from numpy.matlib",
                                    PendingDeprecationWarning)
            return importlib.import_module("line_solver")
    except ImportError as error:
        missing(f"LINE is not installed ({error}): `make peers`, or "
                "`pip install --no-deps -r requirements-peers.txt`")
        raise  # not reached: missing() skips or fails


def octave(script: str) -> str:
    """Run ``script`` in ``octave-cli`` with the ``queueing`` package loaded and return what it
    printed; skip/fail when Octave or the package is missing."""
    executable = shutil.which("octave-cli")
    if executable is None:
        missing("Octave is not installed: `make octave` (Debian's octave-cli and "
                "octave-queueing)")
    done = subprocess.run(
        [executable, "--no-gui", "--no-init-file", "--no-history", "--quiet", "--eval",
         f"pkg load queueing; {script}"],
        capture_output=True, text=True, timeout=OCTAVE_TIMEOUT_S, check=False)
    if done.returncode != 0 and "package queueing" in done.stderr:
        missing(f"Octave's queueing package is not installed: `make octave` ({done.stderr})")
    if done.returncode != 0:
        raise RuntimeError(f"octave-cli failed ({done.returncode}): {done.stderr}")
    return done.stdout


def octave_numbers(script: str) -> list[float]:
    """The numbers a script prints, one a line (print them with ``printf("%.17g\\n", ...)``,
    which keeps every bit of a double)."""
    return [float(line) for line in octave(script).split()]
