"""Build the wheel, install it in a fresh virtual environment outside the repository, and run
every chapter there with strict nbval: the package works, data included, without a checkout.

    python scripts/check_wheel.py                 # every notebook
    python scripts/check_wheel.py notebooks/x.ipynb ...

Steps:

1. ``pip wheel`` builds ``queuetune`` into ``_build/wheel/`` (with the project environment's
   setuptools, no download); the wheel must hold every file of ``data/`` and ``results/`` and
   ``py.typed``.
2. A new virtual environment in a temporary folder (outside the repository) gets the wheel with
   its ``notebooks`` extra, pinned by ``requirements.txt``, plus pytest and nbval to run them.
3. The notebooks are copied into that folder alone, as a reader downloads them from the site,
   and ``pytest --nbval`` runs them there in the fresh environment's kernel: every stored output
   must come out the same.

The temporary folder is removed afterwards. This is ``make nbval``, a quick check of the wheel
alone; ``make test`` runs the same strict nbval once, in the environment that
``scripts/check_kit.py`` installs from the offline kit with no index (built from the same wheel,
whose contents ``build_kit.py`` checks with ``check_contents`` below).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WHEEL_DIR = ROOT / "_build" / "wheel"
# The test runners of the check itself, beside the wheel (pinned by requirements.txt too).
RUNNERS = ["pytest", "nbval"]


def scratch(room: int = 4 * 10**9) -> str | None:
    """The folder for a check's temporary environment: ``/dev/shm`` (memory) where it is
    writable, has ``room`` bytes free and ``TMPDIR`` does not choose another; else None, the
    system's default. An environment is thousands of small files written, then removed: on
    this project's machine (a disk mounted with online discard) the kit's environment took 69 s
    to install (29 s of processor time) and 14 s to remove there, 57 s (18 s) and 1 s in memory."""
    shm = Path("/dev/shm")
    if ("TMPDIR" in os.environ or not shm.is_dir() or not os.access(shm, os.W_OK)
            or shutil.disk_usage(shm).free < room):
        return None
    return str(shm)


def run(*command: str | Path, cwd: Path | None = None) -> None:
    subprocess.run([str(c) for c in command], check=True, cwd=cwd)


def build_wheel() -> Path:
    shutil.rmtree(WHEEL_DIR, ignore_errors=True)
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
        "--wheel-dir", WHEEL_DIR, ROOT)
    (wheel,) = WHEEL_DIR.glob("queuetune-*.whl")
    return wheel


def shipped(folder: str) -> set[str]:
    """The files of a top-level folder of the repository, as the wheel must hold them."""
    listed = subprocess.run(["git", "ls-files", folder], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.split()
    prefix = {"data": "queuetune/_data/", "results": "queuetune/_results/"}[folder]
    return {prefix + Path(p).relative_to(folder).as_posix() for p in listed}


def check_contents(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted((shipped("data") | shipped("results") | {"queuetune/py.typed"}) - names)
    if missing:
        raise SystemExit(f"{wheel.name} lacks {len(missing)} files, e.g. {missing[:5]}")
    print(f"{wheel.name}: {len(names)} files, data and results included")


def main(argv: list[str]) -> None:
    notebooks = [Path(a).resolve() for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    wheel = build_wheel()
    check_contents(wheel)
    with tempfile.TemporaryDirectory(prefix="queuetune-wheel-", dir=scratch()) as tmp:
        place = Path(tmp)
        venv = place / "venv"
        run(sys.executable, "-m", "venv", venv)
        python = venv / "bin" / "python"
        run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "--constraint", ROOT / "requirements.txt", f"{wheel}[notebooks]", *RUNNERS)
        chapters = place / "downloads"
        chapters.mkdir()
        for notebook in notebooks:
            shutil.copy(notebook, chapters / notebook.name)
        # A bare folder: no pyproject.toml or conftest.py of the repository applies.
        run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
            "--nbval-current-env", "--rootdir", chapters, chapters, cwd=chapters)
    print(f"{len(notebooks)} notebooks ran outside the repository with only the wheel installed")


if __name__ == "__main__":
    main(sys.argv[1:])
