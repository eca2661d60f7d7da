"""Numbers stated in the prose of a source document (its ``stated_values`` table).

Every document's data package has a ``stated_values`` table: one row per number printed in a
sentence, kept exactly as printed (".025", "two", "5-600") with its unit and the verbatim
sentence. These helpers look a number up by its quantity name and read the printed text as a
number, so that chapters and checks never retype one::

    >>> from queuelab import stated
    >>> stated.number("domino-curves", "cpu_325_at_1200_mail_users")
    65.0
    >>> stated.number("domino-curves", "dangerous_disk_queue_length")  # printed "two"
    2.0
"""

from __future__ import annotations

import re

import pandas as pd

from . import data

__all__ = ["table", "row", "value", "number", "unit", "sentence", "parse_number", "parse_span"]

# Number words as the documents spell them (a lexicon, not data of any document).
_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20,
}
_NUMERAL = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?$")


def table(document: str) -> pd.DataFrame:
    """The ``stated_values`` table of ``document``."""
    return data.load(document, "stated_values")


def row(document: str, quantity: str) -> pd.Series:
    """The one row stating ``quantity``; ``ValueError`` if there is none or more than one."""
    frame = table(document)
    rows = frame[frame["quantity"] == quantity]
    if len(rows) != 1:
        known = sorted(frame["quantity"].unique().tolist())
        raise ValueError(
            f"quantity {quantity!r} is stated {len(rows)} times in {document!r} "
            f"(expected once); stated quantities: {known}"
        )
    return rows.iloc[0]


def value(document: str, quantity: str) -> str:
    """The number exactly as printed (a string: ".025", "two", "5-600")."""
    return str(row(document, quantity)["value"])


def unit(document: str, quantity: str) -> str:
    """The unit of the stated number ("" where the text gives none)."""
    found = row(document, quantity)["unit"]
    return "" if pd.isna(found) else str(found)


def sentence(document: str, quantity: str) -> str:
    """The verbatim sentence that states ``quantity``."""
    return str(row(document, quantity)["sentence"])


def number(document: str, quantity: str) -> float:
    """The stated number read as a float (see :func:`parse_number`)."""
    return parse_number(value(document, quantity))


def parse_number(text: str) -> float:
    """A printed number as a float: "65", ".025", "1,200", or a word such as "two".

    Ranges and other forms ("5-600", "15 to 20") raise ``ValueError``: read them with
    :func:`parse_span` or keep them as printed.
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    cleaned = text.strip().lower()
    if cleaned in _WORDS:
        return float(_WORDS[cleaned])
    if cleaned and cleaned not in {".", "+", "-"} and _NUMERAL.match(cleaned) and any(
            ch.isdigit() for ch in cleaned):
        return float(cleaned.replace(",", ""))
    raise ValueError(f"text {text!r} is not a single printed number (digits or a number word)")


def parse_span(text: str) -> tuple[float, float]:
    """A printed span "A to B" (digits or words) as (A, B); a single number gives (A, A).

    ``ValueError`` when the text is neither, or when A > B.
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    parts = re.split(r"\s+to\s+", text.strip(), flags=re.IGNORECASE)
    if len(parts) == 1:
        single = parse_number(parts[0])
        return single, single
    if len(parts) != 2:
        raise ValueError(f"text {text!r} is not a span of the form 'A to B'")
    low, high = parse_number(parts[0]), parse_number(parts[1])
    if low > high:
        raise ValueError(f"text {text!r} is a span with its lower end above its upper end")
    return low, high
