"""Run notebooks top to bottom in a fresh kernel and store their outputs (a clean "Run All").

    python scripts/execute_notebooks.py                 # every notebook under notebooks/
    python scripts/execute_notebooks.py notebooks/x.ipynb ...

Outputs are stored without timing metadata so that re-running gives the same file.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 1200


def execute(path: Path) -> float:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    start = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout=TIMEOUT_S,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    nb.metadata.pop("widgets", None)
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv: list[str]) -> None:
    paths = [Path(a).resolve() for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        seconds = execute(path)
        print(f"{path.relative_to(ROOT)}: executed in {seconds:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
