"""Install the offline kit as a student does, with no package index, and run its chapters there.

    python scripts/check_kit.py                      # _build/kit; the live chapter domino-threads
    python scripts/check_kit.py --chapter what-if
    python scripts/check_kit.py --python python3.12  # install and run with another interpreter

Steps, in a temporary folder outside the repository (removed afterwards):

1. The kit is this tree's: its ``queuetune`` wheel holds every file of ``data/`` and
   ``results/`` and ``py.typed`` (``check_wheel.check_contents``), every module of
   ``src/queuetune``, and each of its package files is byte for byte the tree's; its notebooks
   are the tree's, byte for byte. (``build_kit.py`` builds that wheel from this tree.)
2. A new virtual environment gets ``pip install --no-index --find-links <kit>/wheels
   -r <kit>/requirements.txt``, the command of the kit's README.txt, with every pip setting of
   this machine ignored (no configuration file, no ``PIP_*`` variable: only the kit's wheels),
   and any HTTP(S) request sent to a closed port; then ``pip check``, and every package it
   installed that ``requirements.txt`` pins must be at the pinned version.
3. One chapter of the kit's ``notebooks/``, copied there alone, runs top to bottom in that
   environment's kernel (``jupyter nbconvert --execute``) as the README says a student runs it,
   with ``QUEUETUNE_LIVE=1``: its charts are drawn by the widget renderer, whose JavaScript
   comes from the vl-convert wheel. Every code cell must run without an error, and the chapter
   must show as many charts as its stored copy.
4. Strict nbval over every notebook of the kit, where a reader runs a downloaded one: the wheel
   built from this tree, in that fresh environment outside the repository. Only after steps 2
   and 3 (so that the install with no index is proven first) the test runners, which a student
   does not need and the kit does not hold, are added to it: ``pytest`` and ``nbval``, pinned by
   ``requirements.txt``, with this machine's ordinary pip settings; ``pip check`` again. The
   notebooks, copied into a folder alone, run with ``pytest --nbval`` in that environment's
   kernel, still with every HTTP(S) request sent to a closed port: every stored output must
   come out the same (nothing is sanitized).
5. For every other CPython version whose compiled wheels the kit holds (``build_kit.py
   --python``), pip resolves the kit's requirements for that version from ``wheels/`` alone
   (``pip install --dry-run`` with that version's tags, no index): the wheel set is complete,
   though nothing was installed or run with that interpreter unless ``--python`` names one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from check_wheel import RUNNERS, check_contents, scratch

ROOT = Path(__file__).resolve().parents[1]
KIT = ROOT / "_build" / "kit"
WIDGET = "application/vnd.jupyter.widget-view+json"
NO_NETWORK = "http://127.0.0.1:9"  # a closed port: any request to the network fails


def student_env(home: Path) -> dict[str, str]:
    """This process's environment without pip's or Jupyter's settings, offline, with ``home``."""
    env = {key: value for key, value in os.environ.items()
           if not key.upper().startswith(("PIP_", "JUPYTER", "PYTHON", "VIRTUAL_ENV"))
           and key.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")}
    env.update({
        "HOME": str(home), "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1", "QUEUETUNE_LIVE": "1",
        "http_proxy": NO_NETWORK, "https_proxy": NO_NETWORK,
        "HTTP_PROXY": NO_NETWORK, "HTTPS_PROXY": NO_NETWORK,
    })
    return env


def developer_env() -> dict[str, str]:
    """This process's environment with its pip settings (index, cache, constraints) kept, but no
    Python or virtual environment of its own (the commands run another environment's Python)."""
    return {key: value for key, value in os.environ.items()
            if not key.upper().startswith(("PYTHON", "VIRTUAL_ENV"))}


def run(*command: str | Path, **kwargs) -> None:
    subprocess.run([str(c) for c in command], check=True, **kwargs)


def differing_files(wheel: Path) -> list[str]:
    """The package files of ``wheel`` that are not byte for byte this tree's, and the tracked
    modules of ``src/queuetune`` that it lacks (``_data`` and ``_results`` are links to
    ``data/`` and ``results/``, so every package file has its place under ``src/``)."""
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if n.startswith("queuetune/")]
        differ = [n for n in names if not (ROOT / "src" / n).is_file()
                  or archive.read(n) != (ROOT / "src" / n).read_bytes()]
    listed = subprocess.run(["git", "ls-files", "src/queuetune"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.split()
    lacks = {Path(p).relative_to("src").as_posix() for p in listed if p.endswith(".py")}
    return differ + sorted(lacks - set(names))


def check_of_this_tree(kit: Path) -> None:
    """Refuse a kit whose wheel or notebooks are not this tree's (a kit built before a change)."""
    wheels = sorted((kit / "wheels").glob("queuetune-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"{kit / 'wheels'} holds {len(wheels)} queuetune wheels, not one")
    check_contents(wheels[0])
    differ = differing_files(wheels[0])
    if differ:
        raise SystemExit(f"{wheels[0].name} is not built from this tree: {len(differ)} files "
                         f"differ or are missing, e.g. {differ[:5]}: run `make kit` again")
    tree = {p.name: p for p in (ROOT / "notebooks").glob("*.ipynb")}
    kits = {p.name: p for p in (kit / "notebooks").glob("*.ipynb")}
    stale = sorted(set(tree) ^ set(kits)
                   | {n for n in set(tree) & set(kits)
                      if tree[n].read_bytes() != kits[n].read_bytes()})
    if stale:
        raise SystemExit(f"the kit's notebooks are not this tree's: {stale}: run `make kit` again")
    print(f"the kit is this tree's: {wheels[0].name} and {len(kits)} notebooks")


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins() -> dict[str, str]:
    """``requirements.txt``'s pins: normalized name -> version."""
    text = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    return {normalized(m.group(1)): m.group(2)
            for m in re.finditer(r"^([A-Za-z0-9_.-]+)==(\S+)", text, re.MULTILINE)}


def off_pin(report: Path) -> list[str]:
    """The packages of pip's install ``report`` at another version than requirements.txt pins."""
    installed = [p["metadata"] for p in json.loads(report.read_text(encoding="utf-8"))["install"]]
    pinned = pins()
    return [f"{p['name']} {p['version']} (pinned {pinned[normalized(p['name'])]})"
            for p in installed if pinned.get(normalized(p["name"]), p["version"]) != p["version"]]


def charts(notebook: dict) -> tuple[int, int]:
    """Chart outputs of a notebook: (stored HTML charts, live widget charts)."""
    html = widgets = 0
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            text = data.get("text/html", "")
            html += "altair-viz-" in ("".join(text) if isinstance(text, list) else text)
            widgets += WIDGET in data
    return html, widgets


def check(notebook: Path, ran: dict) -> None:
    code = [c for c in ran["cells"] if c["cell_type"] == "code"]
    unrun = [i for i, c in enumerate(code, 1) if c.get("execution_count") is None]
    errors = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
    if unrun or errors:
        raise SystemExit(f"{notebook.name}: code cells {unrun} did not run; errors: {errors}")
    stored, _ = charts(json.loads(notebook.read_text(encoding="utf-8")))
    _, live = charts(ran)
    if live != stored:
        raise SystemExit(f"{notebook.name}: {live} live charts, its stored copy shows {stored}")


def run_live(notebook: Path, place: Path, env: dict[str, str]) -> None:
    """Run ``notebook`` top to bottom as a student does, its charts drawn by the widgets."""
    work = place / "chapter"
    work.mkdir()
    shutil.copy(notebook, work / notebook.name)
    run(place / "venv" / "bin" / "jupyter", "nbconvert", "--to", "notebook", "--execute",
        "--ExecutePreprocessor.timeout=600", "--ExecutePreprocessor.kernel_name=python3",
        "--output", "ran.ipynb", notebook.name, cwd=work, env=env)
    check(notebook, json.loads((work / "ran.ipynb").read_text(encoding="utf-8")))


def run_nbval(notebooks: list[Path], place: Path, env: dict[str, str]) -> None:
    """Add the test runners to the kit's environment, then strict nbval over ``notebooks``,
    copied into a folder alone (no pyproject.toml or conftest.py of the repository applies)."""
    python = place / "venv" / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        "--constraint", ROOT / "requirements.txt", *RUNNERS, env=developer_env())
    run(python, "-m", "pip", "check", env=env)
    chapters = place / "downloads"
    chapters.mkdir()
    for notebook in notebooks:
        shutil.copy(notebook, chapters / notebook.name)
    static = {key: value for key, value in env.items() if key != "QUEUETUNE_LIVE"}
    run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
        "--nbval-current-env", "--rootdir", chapters, chapters, cwd=chapters, env=static)


def interpreter_version(python: str) -> str:
    """``3.11`` for the interpreter ``python`` (a name on PATH or a path)."""
    return subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                          check=True, capture_output=True, text=True).stdout.strip()


def other_versions(wheels: Path, tested: str) -> list[str]:
    """The CPython versions besides ``tested`` that the kit holds compiled wheels for."""
    tags = {m.group(1) for w in wheels.glob("*.whl")
            for m in [re.search(r"-cp3(\d+)-cp3\1-", w.name)] if m}
    return sorted((f"3.{t}" for t in tags if f"3.{t}" != tested), key=lambda v: int(v[2:]))


def resolves(kit: Path, version: str, env: dict[str, str]) -> int:
    """How many packages pip would install from the kit alone for CPython ``version``."""
    report = kit / f".resolve-{version}.json"
    try:
        run(sys.executable, "-m", "pip", "install", "--quiet", "--dry-run", "--ignore-installed",
            "--no-index", "--find-links", kit / "wheels", "--only-binary=:all:",
            "--python-version", version, "--implementation", "cp",
            "--abi", "cp" + version.replace(".", ""), "--abi", "abi3", "--abi", "none",
            "-r", kit / "requirements.txt", "--report", report, cwd=kit, env=env)
        return len(json.loads(report.read_text(encoding="utf-8"))["install"])
    finally:
        report.unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kit", type=Path, default=KIT)
    parser.add_argument("--chapter", default="domino-threads",
                        help="the chapter run live, with QUEUETUNE_LIVE=1")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter the student uses (default: this one)")
    args = parser.parse_args()
    kit = args.kit.resolve()
    notebook = kit / "notebooks" / f"{args.chapter}.ipynb"
    if not (kit / "requirements.txt").is_file() or not notebook.is_file():
        raise SystemExit(f"{kit} holds no kit with {notebook.name}: run `make kit` first")

    began = time.monotonic()
    check_of_this_tree(kit)
    took = {}
    with tempfile.TemporaryDirectory(prefix="queuetune-kit-check-", dir=scratch()) as tmp:
        place = Path(tmp)
        env = student_env(place / "home")
        (place / "home").mkdir()
        start = time.monotonic()
        tested = interpreter_version(args.python)
        run(args.python, "-m", "venv", place / "venv", env=env)
        python = place / "venv" / "bin" / "python"
        # (--no-compile: the check need not byte-compile every module; a student's pip does)
        report = place / "installed.json"
        run(python, "-m", "pip", "install", "--quiet", "--no-compile", "--no-index",
            "--find-links", kit / "wheels", "-r", kit / "requirements.txt",
            "--report", report, cwd=kit, env=env)
        run(python, "-m", "pip", "check", env=env)
        off = off_pin(report)
        if off:
            raise SystemExit(f"the kit installed other versions than requirements.txt's: {off}")
        took["installed with no index"] = time.monotonic() - start

        start = time.monotonic()
        run_live(notebook, place, env)
        took[f"{notebook.name} run with its charts drawn live"] = time.monotonic() - start

        start = time.monotonic()
        notebooks = sorted((kit / "notebooks").glob("*.ipynb"))
        run_nbval(notebooks, place, env)
        took[f"strict nbval over its {len(notebooks)} notebooks"] = time.monotonic() - start
        resolved = {v: resolves(kit, v, env) for v in other_versions(kit / "wheels", tested)}
    print(f"the kit with Python {tested}: "
          + "; ".join(f"{step} in {seconds:.0f} s" for step, seconds in took.items()) + "; "
          + "".join(f"for Python {v}, {n} packages resolve from the kit alone (not installed); "
                    for v, n in resolved.items())
          + f"{time.monotonic() - began:.0f} s in all")


if __name__ == "__main__":
    main()
