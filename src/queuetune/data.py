"""Load the transcribed tables of the source documents, and any other data package.

Each source document has a folder ``data/<short-name>/`` holding tidy CSV files and a
Frictionless ``datapackage.json`` that describes them: one resource per table, with the
inventory ID it transcribes, a title, the source section, and each column's type, unit and
description.

>>> from queuetune import data
>>> df = data.load("domino-threads", "webmail_response_time")
>>> df.attrs["units"]["response_time_s"]
's'

**The list of documents comes from the data's own metadata.** A data package is a *source
document* when its ``datapackage.json`` names the ``inventory_prefix`` of its items (``DT`` for
``DT-T3``) and its ``book_order`` (its place among the documents); nothing else lists the
documents:

>>> data.documents()[:2]
['domino-threads', 'domino-curves']
>>> data.prefix("domino-threads"), data.document_for_prefix("IM")
('DT', 'imre-appserver')

Any other data package below ``data/`` (a measured data set such as ``data/lab/<id>/``) is
loaded the same way by its path, ``data.load("lab/<id>", table)``, and listed by
:func:`packages`, but it is not a source document. CSV files may be gzipped (``.csv.gz``).

The data are package data of ``queuetune`` (the repository's ``data/``, shipped into the wheel
at build time), so the loader works wherever the package is installed. Set the environment
variable ``QUEUETUNE_DATA`` to read another copy.
"""

from __future__ import annotations

import json
import os
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = [
    "PACKAGE_DATA",
    "PACKAGE_RESULTS",
    "data_dir",
    "results_dir",
    "packages",
    "documents",
    "prefix",
    "document_for_prefix",
    "metadata",
    "datasets",
    "describe",
    "path",
    "read_resource",
    "load",
    "load_result",
]

#: The data and the stored results of the long analyses, as installed with the package
#: (in a checkout: links to the repository's ``data/`` and ``results/``).
PACKAGE_DATA = Path(str(resources.files("queuetune") / "_data"))
PACKAGE_RESULTS = Path(str(resources.files("queuetune") / "_results"))

# Frictionless field types -> pandas dtypes. Integers stay nullable so that a missing
# cell never silently turns a column into floats.
_DTYPES = {
    "integer": "Int64",
    "number": "float64",
    "string": "string",
    "boolean": "boolean",
}


def data_dir() -> Path:
    """The folder holding one sub-folder per data package (``QUEUETUNE_DATA`` if set)."""
    return Path(os.environ.get("QUEUETUNE_DATA", PACKAGE_DATA))


def results_dir() -> Path:
    """The folder of the stored results of the validation, benchmark and long analyses."""
    return PACKAGE_RESULTS


def load_result(name: str, **read_options: Any) -> pd.DataFrame:
    """A stored result table, ``results/<name>.csv`` (``ValueError`` listing the known ones);
    ``read_options`` go to :func:`pandas.read_csv`."""
    path = results_dir() / f"{name}.csv"
    if not path.is_file():
        known = sorted(p.stem for p in results_dir().glob("*.csv"))
        raise ValueError(f"unknown result {name!r}; available results: {known}")
    return pd.read_csv(path, **read_options)


@cache
def _read_package(root: str, name: str) -> dict[str, Any]:
    path = Path(root) / name / "datapackage.json"
    return json.loads(path.read_text(encoding="utf-8"))


def packages() -> list[str]:
    """Every data package below the data folder, by its path there (``"domino-threads"``,
    ``"lab/<id>"``), sorted."""
    root = data_dir()
    return sorted(p.parent.relative_to(root).as_posix() for p in root.rglob("datapackage.json"))


def _documents(root: str) -> list[str]:
    """The source documents of ``root``: the top-level packages naming an inventory prefix."""
    found = []
    for path in Path(root).glob("*/datapackage.json"):
        package = _read_package(root, path.parent.name)
        if "inventory_prefix" in package:
            found.append((package["book_order"], path.parent.name))
    orders = [order for order, _ in found]
    if len(set(orders)) != len(orders):
        raise ValueError(f"two documents share a book_order: {sorted(found)}")
    return [name for _, name in sorted(found)]


def documents() -> list[str]:
    """Short names of the source documents, in the book's order (their ``book_order``)."""
    return _documents(str(data_dir()))


def prefix(document: str) -> str:
    """The inventory prefix of a source document (``"DT"`` for ``domino-threads``)."""
    if document not in documents():
        raise ValueError(f"unknown document {document!r}; available documents: {documents()}")
    return metadata(document)["inventory_prefix"]


def document_for_prefix(inventory_prefix: str) -> str:
    """The source document whose inventory items start with ``inventory_prefix``."""
    by_prefix = {prefix(d): d for d in documents()}
    if inventory_prefix not in by_prefix:
        raise ValueError(f"unknown inventory prefix {inventory_prefix!r}; "
                         f"known prefixes: {sorted(by_prefix)}")
    return by_prefix[inventory_prefix]


def metadata(package: str) -> dict[str, Any]:
    """The whole ``datapackage.json`` of a data package (a document or another data set)."""
    known = packages()
    if package not in known:
        others = sorted(set(known) - set(documents()))
        raise ValueError(f"unknown document {package!r}; available documents: {documents()}"
                         + (f"; other data packages: {others}" if others else ""))
    return _read_package(str(data_dir()), package)


def datasets(document: str) -> list[str]:
    """Names of the tables of ``document`` (or of another data package), in package order."""
    return [r["name"] for r in metadata(document)["resources"]]


def describe(document: str, name: str) -> dict[str, Any]:
    """The Frictionless resource descriptor of one table (title, inventory ID, schema, source)."""
    resources_ = {r["name"]: r for r in metadata(document)["resources"]}
    if name not in resources_:
        raise ValueError(
            f"unknown dataset {name!r} for document {document!r}; "
            f"available datasets: {sorted(resources_)}"
        )
    return resources_[name]


def path(document: str, name: str) -> Path:
    """The file of one table."""
    return data_dir() / document / describe(document, name)["path"]


def read_resource(folder: Path, resource: dict[str, Any]) -> pd.DataFrame:
    """One table of the data package in ``folder``, typed by its Frictionless ``resource``
    (integer -> Int64, number -> float64, string -> string, boolean -> boolean), with
    ``attrs["units"]``. Gzipped CSV (``.csv.gz``) is read as well."""
    fields = resource["schema"]["fields"]
    file = folder / resource["path"]
    dtypes = {f["name"]: _DTYPES.get(f.get("type", "string"), "string") for f in fields}
    frame = pd.read_csv(file, dtype=dtypes, keep_default_na=False,
                        na_values=resource["schema"].get("missingValues", [""]))
    expected = [f["name"] for f in fields]
    if list(frame.columns) != expected:
        raise ValueError(f"{file} has columns {list(frame.columns)}, schema says {expected}")
    frame.attrs["units"] = {f["name"]: f["unit"] for f in fields if f.get("unit")}
    return frame


def load(document: str, name: str) -> pd.DataFrame:
    """One table as a typed DataFrame.

    Column dtypes follow the schema (integer -> Int64, number -> float64, string -> string,
    boolean -> boolean). ``df.attrs`` holds ``document``, ``name``, ``title``,
    ``inventory_id``, ``units`` (column -> unit, where the column has one) and ``source``.
    Unknown names raise ``ValueError`` listing the available ones.
    """
    resource = describe(document, name)
    frame = read_resource(data_dir() / document, resource)
    frame.attrs.update(
        document=document,
        name=name,
        title=resource.get("title", name),
        inventory_id=resource.get("inventory_id"),
        source=resource.get("source", {}),
    )
    return frame
