"""Run chapters top to bottom in a fresh kernel and store their outputs (a clean "Run All").

    python scripts/execute_notebooks.py                  # every chapter under notebooks/
    python scripts/execute_notebooks.py notebooks/x.md   # one chapter (x.md or x.ipynb)

Each chapter is a pair: ``notebooks/<name>.md`` (MyST Markdown, read by jupytext) holds the
cells people edit; ``notebooks/<name>.ipynb`` is written from it with the outputs of a fresh run.
The stored notebook is the same on every run of an unchanged chapter: no timing metadata, cell
ids derived from the cells' contents, chart ids from the charts (see ``queuetune.charts``).
First the places of the inventory items in the book are stored with the package
(``queuetune.status.write_locations``), which the reproduction-status chapter reads.
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

from queuetune import status

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 1200
FORMATS = "ipynb,md:myst"


def stable_ids(nb: nbformat.NotebookNode) -> None:
    """Give every cell an id derived from its type and source (and its rank among equal
    cells), so that an unchanged cell keeps its id."""
    seen: dict[str, int] = {}
    for cell in nb.cells:
        digest = hashlib.sha256(f"{cell.cell_type}\n{cell.source}".encode()).hexdigest()[:8]
        seen[digest] = seen.get(digest, 0) + 1
        cell["id"] = digest if seen[digest] == 1 else f"{digest}-{seen[digest]}"


def merge_streams(nb: nbformat.NotebookNode) -> None:
    """Join consecutive outputs of one stream (stdout, stderr) into one: how the kernel splits
    printed text into messages depends on timing, what was printed does not."""
    for cell in nb.cells:
        merged: list = []
        for out in cell.get("outputs", []):
            last = merged[-1] if merged else None
            if (out.output_type == "stream" and last is not None
                    and last.output_type == "stream" and last.name == out.name):
                last.text += out.text
            else:
                merged.append(out)
        if cell.cell_type == "code":
            cell.outputs = merged


def text_of(path: Path) -> Path:
    """The MyST Markdown file of a chapter given as ``.md`` or ``.ipynb``."""
    return path.with_suffix(".md")


def paired_notebook(md: Path) -> nbformat.NotebookNode:
    """The chapter's cells read from its text, without outputs, ready to run."""
    nb = jupytext.read(md)
    nb.metadata.pop("jupytext", None)
    nb.metadata["jupytext"] = {"formats": FORMATS}
    stable_ids(nb)
    return nb


def execute(md: Path) -> float:
    nb = paired_notebook(md)
    start = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout=TIMEOUT_S,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(md.parent)}},
    )
    client.execute()
    merge_streams(nb)
    nb.metadata.pop("widgets", None)
    nbformat.validate(nb)
    nbformat.write(nb, md.with_suffix(".ipynb"))
    return time.perf_counter() - start


def main(argv: list[str]) -> None:
    status.write_locations(ROOT)
    paths = [text_of(Path(a).resolve()) for a in argv] or sorted(
        (ROOT / "notebooks").glob("*.md"))
    for path in paths:
        seconds = execute(path)
        print(f"{path.relative_to(ROOT).with_suffix('.ipynb')}: executed in {seconds:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
