"""Read a chapter notebook of the book (notebooks/<document>.ipynb) for the chapter tests."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def notebook_path(document: str) -> Path:
    """The chapter notebook of ``document``."""
    return ROOT / "notebooks" / f"{document}.ipynb"


def load_notebook(document: str) -> dict:
    """The stored notebook of ``document`` as JSON (cells with their outputs, metadata)."""
    return json.loads(notebook_path(document).read_text(encoding="utf-8"))


def markdown(cells: list[dict]) -> str:
    """The sources of the markdown cells, one after another."""
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def outputs(cells: list[dict], mime: str) -> str:
    """The stored outputs of type ``mime`` of the code cells, one after another."""
    return "".join("".join(o.get("data", {}).get(mime, ""))
                   for c in cells if c["cell_type"] == "code" for o in c.get("outputs", []))
