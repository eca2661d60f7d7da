"""Install the offline kit as a student does, with no package index, and run a chapter with it.

    python scripts/check_kit.py                      # _build/kit, chapter domino-threads
    python scripts/check_kit.py --chapter what-if
    python scripts/check_kit.py --python python3.12  # install and run with another interpreter

Steps, in a temporary folder outside the repository (removed afterwards):

1. A new virtual environment gets ``pip install --no-index --find-links <kit>/wheels
   -r <kit>/requirements.txt``, the command of the kit's README.txt, with every pip setting of
   this machine ignored (no configuration file, no ``PIP_*`` variable: only the kit's wheels),
   and any HTTP(S) request sent to a closed port; then ``pip check``.
2. One chapter of the kit's ``notebooks/``, copied there alone, runs top to bottom in that
   environment's kernel (``jupyter nbconvert --execute``) as the README says a student runs it,
   with ``QUEUETUNE_LIVE=1``: its charts are drawn by the widget renderer, whose JavaScript
   comes from the vl-convert wheel. Every code cell must run without an error, and the chapter
   must show as many charts as its stored copy.
3. For every other CPython version whose compiled wheels the kit holds (``build_kit.py
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
from pathlib import Path

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


def run(*command: str | Path, **kwargs) -> None:
    subprocess.run([str(c) for c in command], check=True, **kwargs)


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
    parser.add_argument("--chapter", default="domino-threads")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter the student uses (default: this one)")
    args = parser.parse_args()
    kit = args.kit.resolve()
    notebook = kit / "notebooks" / f"{args.chapter}.ipynb"
    if not (kit / "requirements.txt").is_file() or not notebook.is_file():
        raise SystemExit(f"{kit} holds no kit with {notebook.name}: run `make kit` first")

    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="queuetune-kit-check-") as tmp:
        place = Path(tmp)
        env = student_env(place / "home")
        (place / "home").mkdir()
        start = time.monotonic()
        tested = interpreter_version(args.python)
        run(args.python, "-m", "venv", place / "venv", env=env)
        python = place / "venv" / "bin" / "python"
        # (--no-compile: the check need not byte-compile every module; a student's pip does)
        run(python, "-m", "pip", "install", "--quiet", "--no-compile", "--no-index",
            "--find-links", kit / "wheels", "-r", kit / "requirements.txt", cwd=kit, env=env)
        run(python, "-m", "pip", "check", env=env)
        installed = time.monotonic() - start

        work = place / "chapter"
        work.mkdir()
        shutil.copy(notebook, work / notebook.name)
        start = time.monotonic()
        run(place / "venv" / "bin" / "jupyter", "nbconvert", "--to", "notebook", "--execute",
            "--ExecutePreprocessor.timeout=600", "--ExecutePreprocessor.kernel_name=python3",
            "--output", "ran.ipynb", notebook.name, cwd=work, env=env)
        ran_for = time.monotonic() - start
        check(notebook, json.loads((work / "ran.ipynb").read_text(encoding="utf-8")))
        resolved = {v: resolves(kit, v, env) for v in other_versions(kit / "wheels", tested)}
    print(f"the kit installed with no index in {installed:.0f} s with Python {tested}; "
          f"{notebook.name} ran there in {ran_for:.0f} s with its charts drawn live; "
          + "".join(f"for Python {v}, {n} packages resolve from the kit alone (not installed); "
                    for v, n in resolved.items())
          + f"{time.monotonic() - began:.0f} s in all")


if __name__ == "__main__":
    main()
