"""Look-ups in a document's data package shared by the data tests.

They read the tables through :func:`queuetune.data.load` alone: :mod:`queuetune.stated`, which
does the same look-up for the package, is itself tested against these tables.
"""

from __future__ import annotations

import pandas as pd

from queuetune import data


def stated(document: str, quantity: str, inventory_id: str | None = None) -> str:
    """The value, as printed, of the one ``stated_values`` row of ``quantity`` (of the claim or
    figure ``inventory_id``, when given)."""
    table = data.load(document, "stated_values")
    rows = table[table["quantity"] == quantity]
    if inventory_id is not None:
        rows = rows[rows["inventory_id"] == inventory_id]
    assert len(rows) == 1, f"{quantity}: {len(rows)} rows"
    return rows["value"].iloc[0]


def unknown_figure_sources(document: str) -> dict[str, list[str]]:
    """The figures whose ``stated_in_text`` names what is neither a table of the document nor
    a stated quantity, with those names."""
    known = set(data.datasets(document)) | set(data.load(document, "stated_values")["quantity"])
    unknown = {}
    for figure_id, names in data.load(document, "figures")[["figure_id", "stated_in_text"]].values:
        missing = [] if pd.isna(names) else sorted(set(names.split("; ")) - known)
        if missing:
            unknown[figure_id] = missing
    return unknown
