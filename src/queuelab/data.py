"""Load the transcribed tables of the five source documents.

Each document has a folder ``data/<short-name>/`` holding tidy CSV files and a Frictionless
``datapackage.json`` that describes them: one resource per table, with the inventory ID it
transcribes, a title, the source section, and each column's type, unit and description.

>>> from queuelab import data
>>> df = data.load("domino-threads", "webmail_response_time")
>>> df.attrs["units"]["response_time_s"]
's'

The data folder is the repository's ``data/`` (found next to ``src/``); set the environment
variable ``QUEUELAB_DATA`` to read another copy.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["BOOK_ORDER", "DATA_DIR", "data_dir", "documents", "datasets", "describe", "load"]

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
# The documents in the order the book (and its inventory) presents them.
BOOK_ORDER = ("domino-threads", "domino-curves", "domino-keepalive", "iplanet-tuning",
              "imre-appserver")

# Frictionless field types -> pandas dtypes. Integers stay nullable so that a missing
# cell never silently turns a column into floats.
_DTYPES = {
    "integer": "Int64",
    "number": "float64",
    "string": "string",
    "boolean": "boolean",
}


def data_dir() -> Path:
    """The folder holding one sub-folder per source document."""
    return Path(os.environ.get("QUEUELAB_DATA", DATA_DIR))


def documents() -> list[str]:
    """Short names of the documents that have a data package, sorted."""
    root = data_dir()
    return sorted(p.parent.name for p in root.glob("*/datapackage.json"))


@cache
def _package(root: str, document: str) -> dict[str, Any]:
    path = Path(root) / document / "datapackage.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _resolve_package(document: str) -> dict[str, Any]:
    known = documents()
    if document not in known:
        raise ValueError(f"unknown document {document!r}; available documents: {known}")
    return _package(str(data_dir()), document)


def datasets(document: str) -> list[str]:
    """Names of the tables transcribed from ``document``, in package order."""
    return [r["name"] for r in _resolve_package(document)["resources"]]


def describe(document: str, name: str) -> dict[str, Any]:
    """The Frictionless resource descriptor of one table (title, inventory ID, schema, source)."""
    resources = {r["name"]: r for r in _resolve_package(document)["resources"]}
    if name not in resources:
        raise ValueError(
            f"unknown dataset {name!r} for document {document!r}; "
            f"available datasets: {sorted(resources)}"
        )
    return resources[name]


def load(document: str, name: str) -> pd.DataFrame:
    """One table as a typed DataFrame.

    Column dtypes follow the schema (integer -> Int64, number -> float64, string -> string,
    boolean -> boolean). ``df.attrs`` holds ``document``, ``name``, ``title``,
    ``inventory_id``, ``units`` (column -> unit, where the column has one) and ``source``.
    Unknown names raise ``ValueError`` listing the available ones.
    """
    resource = describe(document, name)
    fields = resource["schema"]["fields"]
    path = data_dir() / document / resource["path"]
    dtypes = {f["name"]: _DTYPES.get(f.get("type", "string"), "string") for f in fields}
    frame = pd.read_csv(path, dtype=dtypes, keep_default_na=False,
                        na_values=resource["schema"].get("missingValues", [""]))
    expected = [f["name"] for f in fields]
    if list(frame.columns) != expected:
        raise ValueError(f"{path} has columns {list(frame.columns)}, schema says {expected}")
    frame.attrs.update(
        document=document,
        name=name,
        title=resource.get("title", name),
        inventory_id=resource.get("inventory_id"),
        units={f["name"]: f["unit"] for f in fields if f.get("unit")},
        source=resource.get("source", {}),
    )
    return frame
