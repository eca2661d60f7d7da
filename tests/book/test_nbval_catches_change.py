"""nbval in strict mode must fail when a stored number no longer matches a fresh run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "domino-threads.ipynb"


def run_nbval(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
         "--nbval-current-env",
         "--rootdir", str(path.parent), str(path)],
        capture_output=True, text=True, cwd=path.parent, timeout=600,
    )


def alter_one_number(nb: dict, old: str, new: str) -> None:
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            for mime in ("text/plain", "text/html"):
                text = "".join(out.get("data", {}).get(mime, []))
                if old in text:
                    out["data"][mime] = text.replace(old, new, 1)
                    return
    raise AssertionError(f"{old} not found in any stored output")


def test_nbval_fails_on_an_altered_stored_number(tmp_path):
    copy = tmp_path / NOTEBOOK.name
    shutil.copy(NOTEBOOK, copy)
    nb = json.loads(copy.read_text(encoding="utf-8"))
    alter_one_number(nb, "0.469", "0.496")
    copy.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    result = run_nbval(copy)
    assert result.returncode != 0, result.stdout[-2000:]
    assert "failed" in result.stdout


def test_nbval_passes_the_unaltered_copy(tmp_path):
    copy = tmp_path / NOTEBOOK.name
    shutil.copy(NOTEBOOK, copy)
    result = run_nbval(copy)
    assert result.returncode == 0, result.stdout[-3000:]
