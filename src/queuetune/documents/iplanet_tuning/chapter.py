"""The helpers of the iplanet-tuning chapter: the printed dumps line by line, and numbers of
the sample ``perfdump`` output.

>>> perfdump("KeepAliveHits") >= 0
True
"""

from __future__ import annotations

import pandas as pd

from ...tables import blank
from .claims import perfdump_number

__all__ = ["printed_lines", "perfdump"]


def printed_lines(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per printed line of a dump (a table with ``section``, ``label`` and
    ``printed``): its section and label as the index, its printed value, missing cells empty."""
    missing = sorted({"section", "label", "printed"} - set(frame.columns))
    if missing:
        raise ValueError(f"frame lacks column(s) {missing}; it has {list(frame.columns)}")
    lines = frame.drop_duplicates(["section", "label"])
    lines = lines[["section", "label", "printed"]]
    return blank(lines).set_index(["section", "label"])


def perfdump(label: str, component: str = "value") -> float:
    """One number of the guide's sample ``perfdump`` output (table IP-T1)."""
    return perfdump_number("perfdump_output", label, component)
