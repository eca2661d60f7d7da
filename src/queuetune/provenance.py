"""Provenance: where every number in ``data/`` came from, and the checks that tie them together.

Each table resource in ``data/<document>/datapackage.json`` has a ``source`` block::

    "source": {
        "section": "Heading > sub-heading in the document",
        "excerpt": "source/<name>.txt",          # verbatim lines of the document
        "parser": {"name": "grid", ...options}      # how the excerpt becomes the CSV
    }

:func:`parse_excerpt` turns the excerpt into a table of *strings*, exactly as printed, and
:func:`compare_with_csv` checks it cell by cell against the CSV (read as strings too, so
``0.10`` and ``0.1`` differ). An excerpt may hold several verbatim fragments of the document
separated by a line holding only ``[...]``; each fragment must occur in the document as is.

Resources whose provenance is a sentence per row (``stated_values``) or a description per
figure (``figures``) use ``"parser": {"name": "sentences"}`` or ``{"name": "none"}``.

Parsers are registered by name with :func:`parser`. Generic ones live here; a document with
layouts of its own registers them in its home, ``queuetune/documents/<document>/parsers.py``
(imported before a look-up).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pandas as pd

from . import data as _data
from . import homes

__all__ = [
    "FRAGMENT_SEPARATOR",
    "PARSERS",
    "compare_with_csv",
    "excerpt_fragments",
    "parse_excerpt",
    "parser",
    "read_csv_as_text",
    "read_excerpt",
]

FRAGMENT_SEPARATOR = "[...]"
Parser = Callable[[str, dict[str, Any], list[str]], pd.DataFrame]
PARSERS: dict[str, Parser] = {}


def parser(name: str) -> Callable[[Parser], Parser]:
    """Register ``func(excerpt_text, options, field_names) -> DataFrame of str`` as ``name``."""

    def register(func: Parser) -> Parser:
        if name in PARSERS:
            raise ValueError(f"parser {name!r} is registered twice")
        PARSERS[name] = func
        return func

    return register


def _lines(text: str, options: dict[str, Any]) -> list[str]:
    """Data lines of an excerpt: separators, blank lines and ``header_lines`` dropped."""
    lines = [ln for ln in text.splitlines() if ln.strip() and ln.strip() != FRAGMENT_SEPARATOR]
    return lines[int(options.get("header_lines", 0)):]


def _split(line: str, options: dict[str, Any]) -> list[str]:
    delimiter = options.get("delimiter", "\t")
    cells = re.split(delimiter, line) if options.get("regex") else line.split(delimiter)
    return [c.strip() for c in cells] if options.get("strip", True) else cells


@parser("grid")
def parse_grid(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """A rows x columns table: first cell of a line is the row key, the rest are values.

    Options: ``header_lines``, ``delimiter``, ``columns`` (the column keys, in order),
    ``row_field``, ``column_field``, ``value_field``. Output is row-major.
    """
    columns = [str(c) for c in options["columns"]]
    records = []
    for line in _lines(text, options):
        cells = _split(line, options)
        if len(cells) != len(columns) + 1:
            raise ValueError(f"grid line has {len(cells)} cells, expected {len(columns) + 1}: "
                             f"{line!r}")
        for key, value in zip(columns, cells[1:], strict=True):
            records.append({options["row_field"]: cells[0], options["column_field"]: key,
                            options["value_field"]: value})
    return pd.DataFrame(records, columns=fields)


@parser("rows")
def parse_rows(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """One record per line, cells split by ``delimiter`` (a regex when ``regex`` is true).

    ``take`` optionally lists which cells (by index) become the fields, in order.
    """
    take = options.get("take")
    records = []
    for line in _lines(text, options):
        cells = _split(line, options)
        if take is not None:
            cells = [cells[i] for i in take]
        if len(cells) != len(fields):
            raise ValueError(f"line has {len(cells)} cells for {len(fields)} fields: {line!r}")
        records.append(cells)
    return pd.DataFrame(records, columns=fields)


def read_excerpt(document: str, name: str) -> str:
    """The verbatim excerpt behind one table."""
    source = _data.describe(document, name).get("source", {})
    if "excerpt" not in source:
        raise ValueError(f"{document}/{name} has no source excerpt")
    return (_data.data_dir() / document / source["excerpt"]).read_text(encoding="utf-8")


def excerpt_fragments(text: str) -> list[str]:
    """The verbatim pieces of an excerpt (split at lines holding only ``[...]``)."""
    parts = re.split(r"(?m)^\[\.\.\.\]\n?", text)
    return [p.rstrip("\n") for p in parts if p.strip()]


def parse_excerpt(document: str, name: str) -> pd.DataFrame:
    """Parse a table's excerpt with its registered parser into a DataFrame of strings."""
    resource = _data.describe(document, name)
    if document in _data.documents():
        homes.load(document)  # the home of a document registers its own parsers
    options = dict(resource["source"]["parser"])
    parser_name = options.pop("name")
    if parser_name not in PARSERS:
        raise ValueError(f"{document}/{name}: unknown parser {parser_name!r}; "
                         f"registered: {sorted(PARSERS)}")
    fields = [f["name"] for f in resource["schema"]["fields"]]
    table = PARSERS[parser_name](read_excerpt(document, name), options, fields)
    return table.astype(str)


def read_csv_as_text(document: str, name: str) -> pd.DataFrame:
    """A table's CSV with every cell as the exact text stored."""
    return pd.read_csv(_data.path(document, name), dtype=str, keep_default_na=False)


def compare_with_csv(document: str, name: str) -> list[str]:
    """Cell-by-cell differences between the parsed excerpt and the CSV (empty when equal)."""
    parsed = parse_excerpt(document, name)
    stored = read_csv_as_text(document, name)
    problems = []
    if list(parsed.columns) != list(stored.columns):
        return [f"columns differ: excerpt {list(parsed.columns)} vs CSV {list(stored.columns)}"]
    if len(parsed) != len(stored):
        problems.append(f"row count differs: excerpt {len(parsed)} vs CSV {len(stored)}")
    for i in range(min(len(parsed), len(stored))):
        for column in stored.columns:
            a, b = parsed.iloc[i][column], stored.iloc[i][column]
            if a != b:
                problems.append(f"row {i + 1}, {column}: excerpt {a!r} vs CSV {b!r}")
    return problems
