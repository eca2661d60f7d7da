"""Table shapers: turn the tidy data back into the layout the source documents print."""

from __future__ import annotations

import pandas as pd

__all__ = ["grid"]


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
