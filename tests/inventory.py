"""Read the inventory of the source documents (../shared/INVENTORY.md) into IDs per document."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
INVENTORY = SHARED / "INVENTORY.md"
SEEDS = SHARED / "seeds"
PREFIXES = {"DT": "domino-threads", "DC": "domino-curves", "DK": "domino-keepalive",
            "IP": "iplanet-tuning", "IM": "imre-appserver"}
_ID = re.compile(r"\b(DT|DC|DK|IP|IM)-([A-Z])(\d+)\b")
_RANGE = re.compile(r"\b(DT|DC|DK|IP|IM)-([A-Z])(\d+)\s*(?:…|\.\.\.)\s*\1-\2(\d+)\b")


def available() -> bool:
    return INVENTORY.is_file()


def inventory_rows() -> list[tuple[list[str], str, str]]:
    """(ids, kind, content) for every table row of the inventory whose first cell holds IDs."""
    rows = []
    for line in INVENTORY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not _ID.search(cells[0]):
            continue
        rows.append((expand_ids(cells[0]), cells[1], cells[2]))
    return rows


def expand_ids(cell: str) -> list[str]:
    """'IP-F1 … IP-F16' -> IP-F1 … IP-F16; 'DT-T3 / DT-F3' -> both."""
    ids = []
    for prefix, kind, start, stop in _RANGE.findall(cell):
        ids += [f"{prefix}-{kind}{n}" for n in range(int(start), int(stop) + 1)]
    rest = _RANGE.sub("", cell)
    ids += [f"{p}-{k}{n}" for p, k, n in _ID.findall(rest)]
    return sorted(set(ids), key=lambda i: (i[:4], int(re.sub(r"\D", "", i[4:]))))


def all_ids() -> list[str]:
    return sorted({i for ids, _, _ in inventory_rows() for i in ids})


def ids_for(document: str, letter: str) -> list[str]:
    """IDs of one document with one kind letter: T (table), F (figure), C (claim), E (equation)."""
    prefix = {v: k for k, v in PREFIXES.items()}[document]
    return [i for i in all_ids() if i.startswith(f"{prefix}-{letter}")]
