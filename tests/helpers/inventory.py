"""Read the inventory of the source documents (../shared/INVENTORY.md) into IDs per document.

The documents and their inventory prefixes come from the data (queuetune.data), not from a list
kept here.
"""

from __future__ import annotations

import re
from pathlib import Path

from queuetune import data

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
INVENTORY = SHARED / "INVENTORY.md"
SEEDS = SHARED / "seeds"
PREFIXES = {data.prefix(d): d for d in data.documents()}
_P = "|".join(PREFIXES)
_ID = re.compile(rf"\b({_P})-([A-Z])(\d+)\b")
_RANGE = re.compile(rf"\b({_P})-([A-Z])(\d+)\s*(?:…|\.\.\.)\s*\1-\2(\d+)\b")
# Any inventory-looking ID, whatever its prefix: an inventory row of a document without a data
# package is found, not skipped.
_ANY_ID = re.compile(r"\b([A-Z]{2})-([A-Z])(\d+)\b")


def available() -> bool:
    return INVENTORY.is_file()


def inventory_prefixes() -> list[str]:
    """The prefixes the inventory's tables use, in order of first appearance."""
    found: dict[str, None] = {}
    for line in INVENTORY.read_text(encoding="utf-8").splitlines():
        first = line.strip().strip("|").split("|")[0]
        for prefix, _, _ in _ANY_ID.findall(first):
            found.setdefault(prefix)
    return list(found)


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
    prefix = data.prefix(document)
    return [i for i in all_ids() if i.startswith(f"{prefix}-{letter}")]
