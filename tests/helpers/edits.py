"""Changes to a document's CSV tables for the altered copies of the claims-audit tests.

A change is a function that edits a table (read with every cell a string) in place; the
``altered`` fixture of ``conftest.py`` applies it to a copy of the data that the package reads.
Each change writes exactly one row, so that a misspelt key fails the test instead of leaving
the data as it was.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

Change = Callable[[pd.DataFrame], None]


def set_value(column: str, value: object, **where: object) -> Change:
    """Write ``str(value)`` into ``column`` of the one row where each column named in ``where``
    holds the given key (compared as a string)."""

    def change(frame: pd.DataFrame) -> None:
        rows = pd.Series(True, index=frame.index)
        for key_column, key in where.items():
            rows &= frame[key_column] == str(key)
        assert rows.sum() == 1, f"{where}: {rows.sum()} rows, expected 1"
        frame.loc[rows, column] = str(value)

    return change


def stated(quantity: str, value: object) -> Change:
    """Print ``value`` for ``quantity`` in the ``stated_values`` table."""
    return set_value("value", value, quantity=quantity)
