"""The charts the book draws for the inventory's figures, read from the stored notebooks.

A chart belongs to the figures whose MyST labels (``(ip-f1)=``) open the last labelled markdown
cell before it; its Vega-Lite specification is the JSON object that Altair's HTML output passes
to ``vegaEmbed``. The values a chart plots are those of its quantitative position channels
(``x``, ``y``, ``x2``, ``y2``) that have an axis, read from the data sets embedded in the spec
(a diagram's layout coordinates, drawn without axes, and the positions of text labels are not
plotted values).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path

from queuetune import data, stated

ROOT = Path(__file__).resolve().parents[2]
#: A MyST label of an inventory item, as chapters put it before the item: ``(ip-f1)=``.
LABEL = re.compile(r"^\(([a-z]{2}-[a-z]\d+)\)=\s*$", re.MULTILINE)
_FIGURE = re.compile(r"^[a-z]{2}-f\d+$")
_SPEC_START = "})("
_POSITION = ("x", "y", "x2", "y2")


def specs_in_html(html: str) -> list[dict]:
    """The Vega-Lite specifications embedded in one Altair HTML output."""
    decoder = json.JSONDecoder()
    found = []
    start = html.find(_SPEC_START)
    while start >= 0:
        try:
            spec, _ = decoder.raw_decode(html, start + len(_SPEC_START))
        except json.JSONDecodeError:
            spec = None
        if isinstance(spec, dict) and "$schema" in spec:
            found.append(spec)
        start = html.find(_SPEC_START, start + 1)
    return found


def figure_charts(notebook: dict) -> Iterator[tuple[list[str], dict]]:
    """(figure IDs, spec) for every chart of a stored notebook that follows figure labels."""
    figures: list[str] = []
    for cell in notebook.get("cells", []):
        if cell["cell_type"] == "markdown":
            labels = LABEL.findall("".join(cell["source"]))
            if labels:
                figures = [label.upper() for label in labels if _FIGURE.match(label)]
            continue
        for output in cell.get("outputs", []):
            html = "".join(output.get("data", {}).get("text/html", ""))
            for spec in specs_in_html(html) if "vegaEmbed" in html else []:
                if figures:
                    yield list(figures), spec


def _plotted_fields(node: object, fields: set[str]) -> None:
    if isinstance(node, dict):
        mark = node.get("mark")
        kind = mark.get("type") if isinstance(mark, dict) else mark
        encoding = node.get("encoding")
        # a text mark places a label; it plots no value of its own
        if isinstance(encoding, dict) and kind != "text":
            for channel in _POSITION:
                enc = encoding.get(channel)
                if not isinstance(enc, dict) or "field" not in enc:
                    continue
                # x2 and y2 share the axis (and the type) of x and y
                axis = encoding.get(channel[0], {}) if isinstance(encoding.get(channel[0]),
                                                                  dict) else {}
                if axis.get("axis", {}) is None or axis.get("type") in ("nominal", "ordinal"):
                    continue
                fields.add(str(enc["field"]))
        for value in node.values():
            _plotted_fields(value, fields)
    elif isinstance(node, list):
        for value in node:
            _plotted_fields(value, fields)


def plotted_values(spec: dict) -> set[float]:
    """Every number a chart plots on an axis."""
    fields: set[str] = set()
    _plotted_fields(spec, fields)
    values = set()
    for records in spec.get("datasets", {}).values():
        for record in records:
            for field in fields & set(record):
                value = record[field]
                if isinstance(value, (int, float)) and not isinstance(value, bool) \
                        and math.isfinite(value):
                    values.add(float(value))
    return values


def stated_numbers(document: str) -> set[float]:
    """Every number ``document`` states: its stated values and the cells of its tables."""
    numbers = set()
    for value in data.load(document, "stated_values")["value"]:
        try:
            numbers.add(float(stated.parse_number(str(value))))
        except ValueError:
            continue
    for name in data.datasets(document):
        if name in ("stated_values", "figures", "equations"):
            continue
        for column in data.load(document, name).select_dtypes("number"):
            numbers |= {float(v) for v in data.load(document, name)[column].dropna()}
    return numbers


def _document_of(figure_id: str) -> str:
    return data.document_for_prefix(figure_id.split("-")[0])


def unstated_points(root: Path = ROOT, statuses: dict[str, str] | None = None,
                    ) -> dict[str, list[float]]:
    """For every figure with status "reconstructed", the plotted values of its charts that are
    not numbers its document states (empty lists are left out)."""
    if statuses is None:
        statuses = {row.figure_id: row.status for d in data.documents()
                    if "figures" in data.datasets(d)
                    for row in data.load(d, "figures").itertuples()}
    numbers: dict[str, set[float]] = {}
    found: dict[str, list[float]] = {}
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for figures, spec in figure_charts(notebook):
            for figure_id in figures:
                if statuses.get(figure_id) != "reconstructed":
                    continue
                document = _document_of(figure_id)
                if document not in numbers:
                    numbers[document] = stated_numbers(document)
                stray = sorted(v for v in plotted_values(spec)
                               if not any(math.isclose(v, n, rel_tol=1e-9, abs_tol=1e-12)
                                          for n in numbers[document]))
                if stray:
                    found.setdefault(figure_id, []).extend(stray)
    return found
