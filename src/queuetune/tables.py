"""Table shapers: turn the tidy data back into the layout the source documents print."""

from __future__ import annotations

import html
from collections.abc import Mapping

import pandas as pd

__all__ = ["grid", "html_table", "blank", "value_at"]


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
    css_class: str = "queuetune-table",
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
    return (f'<div class="queuetune-table-wrap"><table class="{css_class}"><thead><tr>{head}'
            f"</tr></thead><tbody>\n{rows}\n</tbody></table></div>")


def blank(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its missing cells shown empty rather than as ``<NA>`` or ``NaN``.

    >>> blank(pd.DataFrame({"a": [1.5, None]}))["a"].tolist()
    [1.5, '']
    """
    return frame.astype(object).where(frame.notna(), "")


def value_at(frame: pd.DataFrame, column: str, **where: object) -> float:
    """The value of ``column`` in the one row of ``frame`` where every column named in
    ``where`` equals its value; ``ValueError`` when no row or several rows match.

    >>> runs = pd.DataFrame({"cpus": [1, 2, 4], "speedup": [1.0, 1.65, 2.72]})
    >>> value_at(runs, "speedup", cpus=2)
    1.65
    """
    unknown = sorted({column, *where} - set(frame.columns))
    if unknown:
        raise ValueError(f"column(s) {unknown} not in data; it has {list(frame.columns)}")
    keep = pd.Series(True, index=frame.index)
    for name, wanted in where.items():
        keep &= frame[name] == wanted
    rows = frame.loc[keep, column]
    if len(rows) != 1:
        raise ValueError(f"{len(rows)} rows have {where} (expected exactly one)")
    return float(rows.iloc[0])
