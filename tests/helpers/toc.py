"""Read the book's table of contents (_toc.yml): the pages in reading order."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
TOC = ROOT / "_toc.yml"


def _walk(entries) -> list[str]:
    files = []
    for entry in entries or []:
        if "file" in entry:
            files.append(entry["file"])
        for key in ("chapters", "sections", "parts"):
            files += _walk(entry.get(key))
    return files


def toc_files(toc: Path = TOC) -> list[str]:
    """Every ``file:`` of the table of contents (without suffix), the root first."""
    spec = yaml.safe_load(toc.read_text(encoding="utf-8"))
    return [spec["root"], *_walk(spec.get("parts")), *_walk(spec.get("chapters"))]


def toc_notebooks(toc: Path = TOC) -> list[Path]:
    """The pages of the table of contents that are notebooks, in reading order."""
    paths = [ROOT / f"{name}.ipynb" for name in toc_files(toc)]
    return [p for p in paths if p.is_file()]
