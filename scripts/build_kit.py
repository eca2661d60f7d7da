"""Build the offline kit: one folder, for a USB stick, with which a workshop needs no network.

    python scripts/build_kit.py                          # after `make book`; `make kit` does both
    python scripts/build_kit.py --python 3.12 --python 3.13   # and the wheels for those Pythons

``_build/kit/`` holds:

* ``site/``: the built book (open ``site/index.html``; it works from ``file://``);
* ``notebooks/``: every chapter, as the executed ``.ipynb`` and its MyST Markdown ``.md``;
* ``wheels/``: the ``queuetune`` wheel built from this tree and every wheel needed to run the
  notebooks in JupyterLab on this platform (CPython 3.11, Linux x86_64): the package with its
  ``notebooks`` extra, JupyterLab, anywidget and vl-convert (charts drawn live with no network)
  and jupytext (the ``.md`` chapters open as notebooks), at the versions this tree is tested
  with (the project environment's, so that no version is chosen anew);
* ``requirements.txt`` (what to install) and ``constraints.txt`` (every version in ``wheels/``,
  for adding the wheels of another platform), and ``README.txt``, the instructions for the
  teacher and the student.

``--python 3.12`` (repeatable) adds to ``wheels/`` the wheels of another CPython version on the
same platform, at the same versions, with ``pip download --only-binary=:all:`` (it needs the
package index, or pip's cache). Pure-Python wheels serve every version, so only the compiled
ones are added. Those versions are listed in README.txt as untested until ``check_kit.py
--python`` has installed the kit with that interpreter.

No npm package is needed to run the notebooks: the ``mathjax`` npm package only writes the
built site's formulas as MathML when the site is built, JupyterLab brings its own MathJax, and
the charts' vega libraries come inside the vl-convert wheel.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from check_wheel import build_wheel, check_contents

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
KIT = ROOT / "_build" / "kit"
# Beside queuetune[notebooks]: what a student runs the chapters with (pinned by requirements.txt).
STUDENT_PACKAGES = ["jupyterlab", "anywidget", "vl-convert-python", "jupytext"]
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"  # the Python the kit is built with

README = """\
queuetune: the offline kit
=========================

Everything a workshop needs with no network: the book, its notebooks, and every Python package
that runs them (for CPython {pythons} on Linux x86_64; see below for macOS and Windows).
{untested}
  site/              the book: open site/index.html in a browser (it works from the USB stick)
  notebooks/         the chapters: <name>.ipynb (executed) and <name>.md (the same, as text)
  wheels/            {wheels} wheels: queuetune and everything the notebooks need
  requirements.txt   what to install from wheels/
  constraints.txt    the exact version of every wheel in wheels/

No npm package is needed to run the notebooks: JupyterLab brings its own MathJax, and the
chart libraries come inside the vl-convert wheel.


For the student: install with no network
----------------------------------------

You need Python {python} (python.org, or your system's python{python}){others}. In a terminal,
inside this folder (copy it to your disk first if the stick is slow):

  Linux, macOS:
    python{python} -m venv venv
    venv/bin/python -m pip install --no-index --find-links wheels -r requirements.txt
    QUEUETUNE_LIVE=1 venv/bin/jupyter lab notebooks

  Windows (PowerShell):
    py -{python} -m venv venv
    venv\\Scripts\\python -m pip install --no-index --find-links wheels -r requirements.txt
    $env:QUEUETUNE_LIVE = "1"
    venv\\Scripts\\jupyter lab notebooks

--no-index keeps pip off the network: it installs from wheels/ alone. JupyterLab opens in
your browser; open a chapter (.ipynb) and choose Run > Run All Cells. QUEUETUNE_LIVE=1 makes the
charts interactive widgets drawn with no network. A .md chapter opens as a notebook with
right-click > Open With > Jupytext Notebook.


For the teacher: wheels for macOS or Windows
--------------------------------------------

wheels/ holds the wheels of the platform the kit was built on (Linux x86_64, CPython {python}).
For students on other systems, add theirs once, on a machine with network, from this folder
(the same versions, pinned by constraints.txt; queuetune's own wheel works everywhere):

  Windows (64-bit):
    pip download --only-binary=:all: --platform win_amd64 --python-version {python} \\
        --implementation cp --abi cp{abi} \\
        --dest wheels --find-links wheels -c constraints.txt -r requirements.txt

  macOS (Apple silicon; Intel Macs: --platform macosx_14_0_x86_64):
    pip download --only-binary=:all: --platform macosx_14_0_arm64 --python-version {python} \\
        --implementation cp --abi cp{abi} \\
        --dest wheels --find-links wheels -c constraints.txt -r requirements.txt

pip adds the wheels those systems need beside the ones here; the students' commands above
stay the same. (These two commands could not be tried where the kit is built: no network.)


For the teacher: the book on the students' phones
-------------------------------------------------

The site works from a web server on your laptop too. On the classroom network, find the laptop's
address (Linux: hostname -I; macOS: ipconfig getifaddr en0; Windows: ipconfig) and, in this
folder, serve site/ to that address only (192.168.1.23 stands for yours):

  python3 -m http.server --bind 192.168.1.23 --directory site 8000

The students open http://192.168.1.23:8000 on their phones. Anyone on that network can then
read every file under site/ (and nothing else), and Python's http.server is not made to face
the internet: use it on a classroom network you trust, serve site/ only, and stop it with
Ctrl-C in its terminal when the class ends. A guest network that isolates its devices keeps the
phones from reaching the laptop; a hotspot of your own does not.


How the kit is made and checked
-------------------------------

`make kit` in the repository builds the site and this folder (_build/kit). `make test` installs
it in a fresh virtual environment, outside the repository, with the package index disabled,
and runs a chapter there (scripts/check_kit.py).
"""


def run(*command: str | Path, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in command], check=True, **kwargs)


def pinned(package: str) -> str:
    """``package==version`` as requirements.txt pins it."""
    text = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    match = re.search(rf"^{re.escape(package)}==\S+", text, re.MULTILINE | re.IGNORECASE)
    if not match:
        raise SystemExit(f"requirements.txt pins no version of {package}")
    return match.group(0)


def tested_versions(folder: Path) -> Path:
    """The versions installed in the project environment, as a pip constraints file."""
    frozen = run(sys.executable, "-m", "pip", "freeze", "--exclude-editable",
                 capture_output=True, text=True).stdout
    lines = [line for line in frozen.splitlines() if re.match(r"^[A-Za-z0-9_.-]+==\S+$", line)]
    path = folder / "tested-versions.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def wheel_versions(wheels: Path, skip: str) -> list[str]:
    """``name==version`` of every wheel in ``wheels`` (but ``skip``), from the file names."""
    pins = set()
    for wheel in wheels.glob("*.whl"):
        name, version = wheel.name.split("-")[:2]
        if name.lower() != skip:
            pins.add(f"{name.replace('_', '-').lower()}=={version}")
    return sorted(pins)


def copy_notebooks(target: Path) -> int:
    target.mkdir(parents=True)
    chapters = sorted((ROOT / "notebooks").glob("*.ipynb"))
    for notebook in chapters:
        shutil.copy2(notebook, target / notebook.name)
        text = notebook.with_suffix(".md")
        if text.is_file():
            shutil.copy2(text, target / text.name)
    return len(chapters)


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def download_for(python: str, wheels: Path, students: list[str], constraints: Path) -> int:
    """Add to ``wheels`` the wheels that CPython ``python`` (e.g. ``"3.12"``) needs on this
    platform, at the versions of ``constraints``; return how many files were added."""
    before = set(wheels.glob("*.whl"))
    abi = "cp" + python.replace(".", "")
    run(sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
        "--only-binary=:all:", "--python-version", python, "--implementation", "cp",
        "--abi", abi, "--abi", "abi3", "--abi", "none", "--dest", wheels,
        "--find-links", wheels, "--constraint", constraints,
        f"{wheels / students[0].split('/')[-1]}", *students[1:])
    return len(set(wheels.glob("*.whl")) - before)


def python_versions(value: str) -> str:
    """``--python``: a CPython version such as 3.12 (3.11 or later, as the package needs)."""
    match = re.fullmatch(r"3\.(\d+)", value)
    if not match or int(match.group(1)) < 11:
        raise argparse.ArgumentTypeError(
            f"python must be a CPython version from 3.11 on, like 3.12, not {value!r}")
    return value


def readme(count: int, extra: list[str]) -> str:
    others = (f"; the wheels for Python {', '.join(extra)} are here too, untested"
              if extra else "")
    untested = ("\nThe wheels for CPython " + ", ".join(extra) + " were downloaded for the same "
                "versions but not\ntried: the kit was installed and run with CPython "
                f"{PYTHON} only.\n" if extra else "")
    return README.format(python=PYTHON, abi=PYTHON.replace(".", ""), wheels=count,
                         pythons=", ".join([PYTHON, *extra]), others=others, untested=untested)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", default=[], type=python_versions,
                        help="also add the wheels of this CPython version (repeatable)")
    extra = [v for v in dict.fromkeys(parser.parse_args().python) if v != PYTHON]
    start = time.monotonic()
    if not (SITE / "index.html").is_file():
        raise SystemExit(f"{SITE} holds no built book: run `make book` first (`make kit` does)")
    shutil.rmtree(KIT, ignore_errors=True)
    KIT.mkdir(parents=True)
    shutil.copytree(SITE, KIT / "site", ignore=shutil.ignore_patterns(".buildinfo"))
    chapters = copy_notebooks(KIT / "notebooks")

    wheel = build_wheel()
    check_contents(wheel)
    wheels = KIT / "wheels"
    wheels.mkdir()
    shutil.copy2(wheel, wheels / wheel.name)
    students = [f"./wheels/{wheel.name}[notebooks]", *(pinned(p) for p in STUDENT_PACKAGES)]
    added = {}
    with tempfile.TemporaryDirectory(prefix="queuetune-kit-") as tmp:
        constraints = tested_versions(Path(tmp))
        # Every wheel of the student's environment, at the versions tested here.
        run(sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check",
            "--wheel-dir", wheels, "--constraint", constraints,
            f"{wheels / wheel.name}[notebooks]", *students[1:])
        for python in extra:
            added[python] = download_for(python, wheels, students, constraints)

    (KIT / "requirements.txt").write_text(
        "# Install from this folder with: pip install --no-index --find-links wheels "
        "-r requirements.txt\n" + "\n".join(students) + "\n", encoding="utf-8")
    (KIT / "constraints.txt").write_text(
        "# The version of every wheel in wheels/ (for `pip download --platform ...`, see "
        "README.txt)\n" + "\n".join(wheel_versions(wheels, skip="queuetune")) + "\n",
        encoding="utf-8")
    count = len(list(wheels.glob("*.whl")))
    (KIT / "README.txt").write_text(readme(count, extra), encoding="utf-8")
    parts = {name: size_of(KIT / name) for name in ("site", "notebooks", "wheels")}
    print(f"offline kit in {KIT.relative_to(ROOT)}: {size_of(KIT) / 1e6:.0f} MB "
          + ", ".join(f"{name} {size / 1e6:.0f} MB" for name, size in parts.items())
          + f"; {chapters} chapters, {count} wheels"
          + "".join(f", {n} more for Python {v}" for v, n in added.items())
          + f", in {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
