"""The reproduction status of every inventory item, assembled from what the repository holds.

Nothing here is typed twice: tables come from the data packages, figures from each document's
figure list (``figures.csv``), equations from the ``equations`` tables, claims from the claims
audit (:mod:`queuetune.audit`), and the place where the book shows an item from the MyST label
``(<id>)=`` (lower case, e.g. ``(dt-t3)=``) that a chapter puts in front of it.

The places are read from the book's pages in a checkout (:func:`scan_locations`) and kept in
the package as ``book_locations.json`` (:func:`write_locations`, run by
``make execute-notebooks``; a test checks that it matches the pages), so that the status table
is the same wherever the package is installed. The order of the documents is the book's
(:func:`queuetune.data.documents`).
"""

from __future__ import annotations

import json
import posixpath
import re
from importlib import resources
from pathlib import Path

import pandas as pd

from . import audit, data, tables

__all__ = ["STATUS_WORDS", "REMEASURED", "LOCATIONS_FILE", "anchor", "scan_locations",
           "write_locations", "locations", "status_table", "link_targets", "html_table"]

STATUS_WORDS = ("reproduced", "recomputed", "reconstructed", "not reproducible")
#: The word beside an item's status where the book's own lab measured it anew: a new
#: measurement of the same design on a modern server, not the source's data.
REMEASURED = "re-measured"
#: Inventory ID -> ``page.html#anchor``, as found in the book's pages by :func:`scan_locations`.
LOCATIONS_FILE = Path(str(resources.files("queuetune") / "book_locations.json"))
_LABEL = re.compile(r"^\(([a-z]{2}-[a-z]\d+)\)=\s*$", re.MULTILINE)
# A label of the lab chapter where it re-measures an item, e.g. (lab-im-f2)=
_REMEASURED_LABEL = re.compile(r"^\(lab-([a-z]{2}-[a-z]\d+)\)=\s*$", re.MULTILINE)
_KINDS = {"T": "table", "F": "figure", "C": "claim", "E": "equation"}
# The order of kinds within a document.
KIND_ORDER = ("T", "F", "E", "C")


def anchor(item_id: str) -> str:
    """The label (and HTML anchor) a chapter uses for an inventory item."""
    return item_id.lower()


def _sources(root: Path) -> list[tuple[str, str]]:
    """(page path without suffix, text) of every notebook's markdown and every book page of the
    book whose folder is ``root``."""
    pages = []
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        pages.append((f"notebooks/{path.stem}", text))
    for path in sorted((root / "book").glob("*.md")):
        pages.append((f"book/{path.stem}", path.read_text(encoding="utf-8")))
    return pages


def scan_locations(root: Path) -> dict[str, str]:
    """Inventory ID -> ``page.html#anchor`` for every item labelled in the pages of the book in
    folder ``root`` (first label wins); ``"re-measured:<ID>"`` -> where the lab re-measures
    it."""
    found: dict[str, str] = {}
    for page, text in _sources(Path(root)):
        for label in _LABEL.findall(text):
            found.setdefault(label.upper(), f"{page}.html#{label}")
        for label in _REMEASURED_LABEL.findall(text):
            found.setdefault(f"{REMEASURED}:{label.upper()}", f"{page}.html#lab-{label}")
    return found


def write_locations(root: Path, path: Path = LOCATIONS_FILE) -> dict[str, str]:
    """Scan the book in ``root`` and store what :func:`locations` returns."""
    found = scan_locations(root)
    Path(path).write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return found


def locations(root: Path | None = None) -> dict[str, str]:
    """Inventory ID -> ``page.html#anchor``: stored with the package, or scanned from the book
    in ``root`` when given."""
    if root is not None:
        return scan_locations(root)
    return json.loads(LOCATIONS_FILE.read_text(encoding="utf-8"))


def _table_rows() -> list[dict]:
    rows = []
    for document in data.documents():
        for name in data.datasets(document):
            resource = data.describe(document, name)
            if resource["source"]["parser"]["name"] in ("sentences", "none"):
                continue  # stated values and figure lists are not transcribed tables
            for item in re.findall(r"[A-Z]{2}-T\d+", resource.get("inventory_id", "")):
                rows.append({"id": item, "document": document, "status": "reproduced",
                             "why": f"transcribed into data/{document}/{resource['path']} and "
                                    f"checked cell by cell against its source excerpt"})
    return rows


def _figure_rows() -> list[dict]:
    rows = []
    for document in data.documents():
        if "figures" not in data.datasets(document):
            continue
        for fig in data.load(document, "figures").itertuples():
            assumption = getattr(fig, "assumption", "")
            why = fig.note + (f" Computed under: {assumption.strip()}"
                              if isinstance(assumption, str) and assumption.strip() else "")
            rows.append({"id": fig.figure_id, "document": document, "status": fig.status,
                         "why": why})
    return rows


def _equation_rows() -> list[dict]:
    rows = []
    for document in data.documents():
        if "equations" not in data.datasets(document):
            continue
        prefix = data.describe(document, "equations")["inventory_id"].split("-")[0]
        for eq in data.load(document, "equations").itertuples():
            rows.append({"id": f"{prefix}-E{eq.equation}", "document": document,
                         "status": "reproduced",
                         "why": f"transcribed as printed into data/{document}/equations.csv "
                                f"(checked verbatim) and typeset in the chapter"})
    return rows


def _claim_rows() -> list[dict]:
    rows = []
    for f in audit.findings().itertuples():
        status = "not reproducible" if f.verdict == "not testable" else "recomputed"
        rows.append({"id": f.id, "document": f.document, "status": status,
                     "why": f"checked in code by the claims audit; verdict: {f.verdict}"})
    return rows


def status_table(root: Path | None = None) -> pd.DataFrame:
    """One row per inventory item: id, kind, document, status, where (page#anchor), why, and
    ``remeasured``: where the book's lab measured it anew (page#anchor, or '')."""
    rows = _table_rows() + _figure_rows() + _equation_rows() + _claim_rows()
    frame = pd.DataFrame(rows, columns=["id", "document", "status", "why"])
    frame = frame.drop_duplicates("id", keep="first")
    unknown = sorted(set(frame["status"]) - set(STATUS_WORDS))
    if unknown:
        raise ValueError(f"unknown status words {unknown}; allowed: {STATUS_WORDS}")
    where = locations(root)
    frame.insert(1, "kind", frame["id"].str.extract(r"-([A-Z])\d+$")[0].map(_KINDS))
    frame["where"] = [where.get(i, "") for i in frame["id"]]
    frame["remeasured"] = [where.get(f"{REMEASURED}:{i}", "") for i in frame["id"]]
    key = frame["id"].str.extract(r"\A([A-Z]{2})-([A-Z])([0-9]+)\Z")
    unread = frame["id"][key.isna().any(axis=1)].tolist()
    if unread:
        raise ValueError(f"inventory IDs must read 'XX-K<number>' (e.g. 'DT-T3'), got {unread}")
    prefixes = [data.prefix(d) for d in data.documents()]
    order = (key[0].map(prefixes.index).astype(str) + key[1].map(KIND_ORDER.index).astype(str)
             + key[2].astype(int).map("{:04d}".format))
    return frame.assign(_order=order).sort_values("_order").drop(columns="_order").reset_index(
        drop=True)


def _relative(target: str, page: str) -> str:
    """``target`` (root-relative ``dir/page.html#anchor``) as seen from root-relative ``page``."""
    path, _, fragment = target.partition("#")
    rel = posixpath.relpath(path, posixpath.dirname(page) or ".")
    return f"{rel}#{fragment}" if fragment else rel


def link_targets(ids: pd.Series, page: str, root: Path | None = None) -> pd.Series:
    """For each inventory ID, the href to where the book shows it, relative to the book page
    ``page`` ('' where no chapter labels it)."""
    where = locations(root)
    return ids.map(lambda i: _relative(where[i], page) if i in where else "")


def html_table(frame: pd.DataFrame, page: str) -> str:
    """The status table as HTML for the book page ``page`` (root-relative, e.g.
    ``notebooks/reproduction-status.html``), each ID linked to where the book shows it."""
    shown = frame.assign(
        where=frame["where"].map(lambda w: w.split("/")[-1].split(".html")[0] if w
                                 else "not shown"),
        remeasured=frame["remeasured"].map(lambda w: REMEASURED if w else ""))
    table = shown[["id", "kind", "document", "status", "remeasured", "where", "why"]].rename(
        columns={"id": "ID", "where": "shown in", "remeasured": "also"})
    hrefs = link_targets(frame["id"], page)
    again = frame["remeasured"].map(lambda w: _relative(w, page) if w else "")
    return tables.html_table(table, links={"ID": hrefs, "shown in": hrefs, "also": again})
