"""Excerpt layouts of ``imre-appserver`` (Imre, Bogárdi-Mészöly, Charaf).

* ``imre-appserver-value-lists``: Table 1 (IM-T1), ``parameter<TAB>v1, v2, ...`` lines; one
  output row per listed value.
* ``imre-appserver-equations``: display equations (IM-E1 … IM-E5) printed as
  ``$$<LaTeX> \\quad (n)$$`` lines; one row per equation with its number and LaTeX body.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from ...provenance import FRAGMENT_SEPARATOR, parser

_EQUATION = re.compile(r"^\$\$(?P<latex>.+?)\s*\\quad \((?P<number>\d+)\)\$\$$")


def _data_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip() and ln.strip() != FRAGMENT_SEPARATOR]


@parser("imre-appserver-value-lists")
def parse_value_lists(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Rows (parameter, value): each comma-separated value of a line becomes a row."""
    delimiter = options.get("delimiter", "\t")
    records = []
    for line in _data_lines(text):
        name, _, values = line.partition(delimiter)
        if not values:
            raise ValueError(f"no {delimiter!r} between parameter and values: {line!r}")
        records += [[name.strip(), v.strip()] for v in values.split(",")]
    return pd.DataFrame(records, columns=fields)


@parser("imre-appserver-equations")
def parse_equations(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Rows (equation, latex): the printed equation number and the LaTeX before ``\\quad``."""
    records = []
    for line in _data_lines(text):
        match = _EQUATION.match(line)
        if match is None:
            raise ValueError(f"not a numbered display equation: {line!r}")
        records.append([match["number"], match["latex"]])
    return pd.DataFrame(records, columns=fields)
