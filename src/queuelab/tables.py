"""Table shapers: turn the tidy data back into the layout the source documents print."""

from __future__ import annotations

import html
from collections.abc import Mapping

import pandas as pd

__all__ = ["grid", "html_table"]


def grid(
    frame: pd.DataFrame,
    *,
    rows: str,
    columns: str,
    values: str,
    row_label: str | None = None,
    column_label: str | None = None,
) -> pd.DataFrame:
    """Pivot a tidy table into the rows x columns grid of the source.

    ``row_label`` and ``column_label`` name the index and the column axis with their units,
    e.g. ``"WebMail users"`` and ``"HTTP threads"``. Raises ``ValueError`` when a
    (row, column) pair occurs more than once or a cell is missing.
    """
    for name in (rows, columns, values):
        if name not in frame.columns:
            raise ValueError(f"column {name!r} not in data; it has {list(frame.columns)}")
    if frame.duplicated([rows, columns]).any():
        raise ValueError(f"({rows}, {columns}) pairs repeat: the grid would be ambiguous")
    wide = frame.pivot(index=rows, columns=columns, values=values)
    if wide.isna().to_numpy().any():
        raise ValueError(f"the {rows} x {columns} grid has missing cells")
    wide.index.name = row_label or rows
    wide.columns.name = column_label or columns
    return wide


def html_table(
    frame: pd.DataFrame,
    *,
    links: Mapping[str, pd.Series] | None = None,
    css_class: str = "queuelab-table",
) -> str:
    """``frame`` as a plain HTML table of escaped text, left-aligned and wrapping.

    ``links`` maps a column to a Series of hrefs (same index as ``frame``): the cell text of that
    column becomes a link where the href is non-empty. The first column does not wrap (IDs).
    """
    links = dict(links or {})
    unknown = sorted(set(links) - set(frame.columns))
    if unknown:
        raise ValueError(f"links names column(s) {unknown} not in the table {list(frame.columns)}")

    def cell(column: str, index, value) -> str:
        text = html.escape("" if pd.isna(value) else str(value))
        href = links[column].get(index, "") if column in links else ""
        return f'<a href="{html.escape(href, quote=True)}">{text}</a>' if href else text

    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = "\n".join(
        "<tr>" + "".join(f"<td>{cell(c, i, row[c])}</td>" for c in frame.columns) + "</tr>"
        for i, row in frame.iterrows()
    )
    return (f'<div class="queuelab-table-wrap"><table class="{css_class}"><thead><tr>{head}'
            f"</tr></thead><tbody>\n{rows}\n</tbody></table></div>")
