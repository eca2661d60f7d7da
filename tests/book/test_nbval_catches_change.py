"""nbval in strict mode must fail when a stored number no longer matches a fresh run, and there
only: one run of a copy with one number altered fails on the altered cell alone, every other
cell of the chapter passing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "domino-threads.ipynb"


def run_nbval(path: Path) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    """nbval over ``path``, and each of its items (``Cell <n>``, n counting the code cells
    from 0) with its outcome: passed, failed, error or skipped (from pytest's JUnit report)."""
    report = path.parent / "report.xml"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
         "--nbval-current-env", f"--junitxml={report}",
         "--rootdir", str(path.parent), str(path)],
        capture_output=True, text=True, cwd=path.parent, timeout=600,
    )
    outcomes = {}
    for case in ET.parse(report).iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[case.get("name")] = kinds[0] if kinds else "passed"
    return result, outcomes


def alter_one_number(nb: dict, old: str, new: str) -> int:
    """Replace the first ``old`` in a stored output by ``new``; the index of its code cell."""
    code = [cell for cell in nb["cells"] if cell["cell_type"] == "code"]
    for index, cell in enumerate(code):
        for out in cell.get("outputs", []):
            for mime in ("text/plain", "text/html"):
                text = "".join(out.get("data", {}).get(mime, []))
                if old in text:
                    out["data"][mime] = text.replace(old, new, 1)
                    return index
    raise AssertionError(f"{old} not found in any stored output")


def test_nbval_fails_on_the_altered_cell_alone(tmp_path):
    copy = tmp_path / NOTEBOOK.name
    shutil.copy(NOTEBOOK, copy)
    nb = json.loads(copy.read_text(encoding="utf-8"))
    altered = alter_one_number(nb, "0.469", "0.496")
    copy.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    result, outcomes = run_nbval(copy)
    assert result.returncode != 0, result.stdout[-2000:]
    cells = sum(cell["cell_type"] == "code" for cell in nb["cells"])
    # Every code cell ran as an item; the altered one failed, and every other one passed.
    assert sorted(outcomes) == sorted(f"Cell {i}" for i in range(cells)), sorted(outcomes)
    failing = {name: outcome for name, outcome in outcomes.items() if outcome != "passed"}
    assert failing == {f"Cell {altered}": "failure"}, (failing, result.stdout[-3000:])
