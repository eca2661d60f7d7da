"""Every notebook is stored as a clean Run All: each code cell ran, in order 1..n, without error.

nbval skips cells that hold no output, so a notebook saved unexecuted would pass it; this
check closes that hole. It also keeps volatile metadata out of the stored files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks found under notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_fully_executed_in_order(path: Path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    counts = [c.get("execution_count") for c in code]
    assert counts == list(range(1, len(code) + 1)), f"{path.name}: execution counts {counts}"
    for i, cell in enumerate(code, start=1):
        kinds = [o["output_type"] for o in cell.get("outputs", [])]
        assert "error" not in kinds, f"{path.name}: code cell {i} stored an error"
        for out in cell.get("outputs", []):
            if out["output_type"] == "stream":
                assert out["name"] != "stderr", f"{path.name}: cell {i} wrote to stderr"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_volatile_metadata(path: Path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert "widgets" not in nb["metadata"], f"{path.name} stores widget state"
    for cell in nb["cells"]:
        assert "execution" not in cell.get("metadata", {}), f"{path.name} stores cell timings"
