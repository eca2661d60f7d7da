"""Numbers stated in the prose of a source document (its ``stated_values`` table).

Every document's data package has a ``stated_values`` table: one row per number printed in a
sentence, kept exactly as printed (".025", "two", "5-600") with its unit and the verbatim
sentence. These helpers look a number up by its quantity name and read the printed text as a
number, so that chapters and checks never retype one::

    >>> from queuetune import stated
    >>> stated.number("domino-curves", "cpu_325_at_1200_mail_users")
    65.0
    >>> stated.number("domino-curves", "dangerous_disk_queue_length")  # printed "two"
    2.0

A quantity stated in several sentences has one row per sentence; ``inventory_id=`` or
``figure_id=`` (any column of the table) narrows the rows down::

    >>> stated.numbers("iplanet-tuning", "cpu_count_studied")
    [1.0, 2.0, 4.0, 8.0]
    >>> stated.number("iplanet-tuning", "rqthrottle", figure_id="IP-F14")
    128.0

A count (users, threads, CPUs) is read exactly as an ``int`` with :func:`count`, which refuses a
printed number that is not whole (``int(number(...))`` would cut "2.5" to 2)::

    >>> stated.count("iplanet-tuning", "rqthrottle", figure_id="IP-F14")
    128
"""

from __future__ import annotations

import re
from decimal import Decimal, localcontext

import pandas as pd

from . import data

__all__ = ["table", "rows", "row", "value", "number", "numbers", "count", "unit", "sentence",
           "figure_statements", "parse_number", "parse_count", "parse_span"]

# Number words as the documents spell them (a lexicon, not data of any document).
_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20,
}
# A printed numeral, read whole (re.fullmatch): "65", ".025", "1,200", "-3.5".
_NUMERAL = re.compile(r"[+-]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?", re.ASCII)
# "1.8 million": a numeral followed by one of these words.
_MULTIPLIERS = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
# Every integer up to this is exact in a float (2**53).
_EXACT_FLOAT_INTEGER = 2**53


def table(document: str) -> pd.DataFrame:
    """The ``stated_values`` table of ``document``."""
    return data.load(document, "stated_values")


def rows(document: str, quantity: str, **where: str) -> pd.DataFrame:
    """Every row stating ``quantity`` (one per sentence), narrowed by ``where`` (column=value,
    e.g. ``inventory_id="DT-C2"`` or ``figure_id="IP-F14"``); ``ValueError`` if there is none."""
    frame = table(document)
    unknown = sorted(set(where) - set(frame.columns))
    if unknown:
        raise ValueError(f"where names column(s) {unknown} that the stated_values table of "
                         f"{document!r} does not have; it has {list(frame.columns)}")
    found = frame[frame["quantity"] == quantity]
    for column, wanted in where.items():
        found = found[found[column] == wanted]
    if found.empty:
        known = sorted(frame["quantity"].unique().tolist())
        narrowed = f" with {where}" if where else ""
        raise ValueError(
            f"quantity {quantity!r} is stated 0 times in {document!r}{narrowed} "
            f"(expected at least once); stated quantities: {known}"
        )
    return found


def row(document: str, quantity: str, **where: str) -> pd.Series:
    """The one row stating ``quantity``; ``ValueError`` if there is none or more than one."""
    found = rows(document, quantity, **where)
    if len(found) != 1:
        raise ValueError(
            f"quantity {quantity!r} is stated {len(found)} times in {document!r} "
            f"(expected once): narrow it down with inventory_id= or figure_id="
        )
    return found.iloc[0]


def value(document: str, quantity: str, **where: str) -> str:
    """The number exactly as printed (a string: ".025", "two", "5-600"); a quantity stated in
    several sentences must be printed the same in each."""
    printed = rows(document, quantity, **where)["value"].astype(str).unique().tolist()
    if len(printed) != 1:
        raise ValueError(f"quantity {quantity!r} is stated with {len(printed)} different "
                         f"values in {document!r}: {printed}")
    return printed[0]


def unit(document: str, quantity: str, **where: str) -> str:
    """The unit of the stated number ("" where the text gives none)."""
    found = row(document, quantity, **where)["unit"]
    return "" if pd.isna(found) else str(found)


def sentence(document: str, quantity: str, **where: str) -> str:
    """The verbatim sentence that states ``quantity``."""
    return str(row(document, quantity, **where)["sentence"])


def numbers(document: str, quantity: str, **where: str) -> list[float]:
    """Every number stated for ``quantity``, one per sentence, in table order (see
    :func:`parse_number`)."""
    return [parse_number(str(v)) for v in rows(document, quantity, **where)["value"]]


def number(document: str, quantity: str, **where: str) -> float:
    """The stated number read as a float (see :func:`parse_number`); ``ValueError`` if the
    sentences stating ``quantity`` give different numbers."""
    found = sorted(set(numbers(document, quantity, **where)))
    if len(found) != 1:
        raise ValueError(f"quantity {quantity!r} is stated with {len(found)} values in "
                         f"{document!r}: {found}")
    return found[0]


def count(document: str, quantity: str, **where: str) -> int:
    """The stated number read exactly as a whole number (see :func:`parse_count`);
    ``ValueError`` if it is not whole or the sentences stating ``quantity`` differ."""
    found = sorted({parse_count(str(v)) for v in rows(document, quantity, **where)["value"]})
    if len(found) != 1:
        raise ValueError(f"quantity {quantity!r} is stated with {len(found)} values in "
                         f"{document!r}: {found}")
    return found[0]


def figure_statements(document: str, figure_id: str) -> tuple[str, pd.DataFrame | None]:
    """What a chapter shows about one figure of ``document``: its status note (Markdown) and
    the numbers the text states about it, grouped by the sentence stating them (``None`` when
    the figure list names none in ``stated_in_text``)."""
    figures = data.load(document, "figures").set_index("figure_id")
    if figure_id not in figures.index:
        raise ValueError(f"figure_id must be one of {sorted(figures.index)}, got {figure_id!r}")
    fig = figures.loc[figure_id]
    note = f"**{figure_id}, {fig['status']}.** {fig['note']}"
    assumption = fig.get("assumption")
    if isinstance(assumption, str) and assumption.strip():
        note += f" *Computed under:* {assumption.strip()}"
    names_text = "" if pd.isna(fig["stated_in_text"]) else str(fig["stated_in_text"])
    names = [q.strip() for q in names_text.split(";") if q.strip()]
    if not names:
        return note, None
    found = table(document).set_index("quantity").loc[names].reset_index()
    found["stated"] = found["value"] + " " + found["unit"].fillna("")
    grouped = found.groupby("sentence", sort=False)["stated"].agg(
        lambda v: "; ".join(x.strip() for x in v))
    return note, grouped.rename("numbers stated").rename_axis("sentence of the text").to_frame()


def parse_number(text: str) -> float:
    """A printed number as a float: "65", ".025", "1,200", a word such as "two", a numeral
    with a multiplier word ("1.8 million") or a factor ("2X"). The whole text must be the
    number: "65 %" or "12a" raise ``ValueError``.

    Ranges and other forms ("5-600", "15 to 20") raise ``ValueError``: read them with
    :func:`parse_span` or keep them as printed. So does a whole number above 2**53, which a
    float cannot hold exactly (read it with :func:`parse_count`).
    """
    numeral, multiplier = _split_number(text)
    if numeral in _WORDS:
        return float(_WORDS[numeral] * multiplier)
    exact = _exact(numeral, multiplier)
    if exact == exact.to_integral_value() and abs(exact) > _EXACT_FLOAT_INTEGER:
        raise ValueError(f"text {text!r} is a whole number above 2**53, which a float cannot "
                         f"hold exactly: read it with parse_count")
    return float(exact)


def parse_count(text: str) -> int:
    """A printed whole number as an exact int: "50", "1,200", "two", "2 million", "3X"
    (any size: no float in between). A number that is not whole ("2.5") raises
    ``ValueError``, like every text :func:`parse_number` refuses.

    >>> parse_count("9,007,199,254,740,993")
    9007199254740993
    """
    numeral, multiplier = _split_number(text)
    if numeral in _WORDS:
        return _WORDS[numeral] * multiplier
    exact = _exact(numeral, multiplier)
    if exact != exact.to_integral_value():
        raise ValueError(f"text {text!r} is not a whole number (it reads as {exact})")
    return int(exact)


def _split_number(text: str) -> tuple[str, int]:
    """(numeral or number word, multiplier) of a printed number, the whole text read; else
    ``ValueError`` naming the text."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    cleaned = text.strip().lower()
    words = cleaned.split()
    multiplier = 1
    if len(words) == 2 and words[1] in _MULTIPLIERS and _is_numeral(words[0]):
        cleaned, multiplier = words[0], _MULTIPLIERS[words[1]]
    elif cleaned.endswith("x") and _is_numeral(cleaned[:-1]):
        cleaned = cleaned[:-1]
    if cleaned in _WORDS or _is_numeral(cleaned):
        return cleaned, multiplier
    raise ValueError(f"text {text!r} is not a single printed number (digits or a number word)")


def _exact(numeral: str, multiplier: int) -> Decimal:
    """The numeral times the multiplier, exactly (a decimal with as many digits as it needs)."""
    digits = numeral.replace(",", "")
    with localcontext() as context:
        context.prec = len(digits) + 12  # room for the multiplier's zeros: nothing rounds
        return Decimal(digits) * multiplier


def _is_numeral(text: str) -> bool:
    """``text`` is a numeral whole, with at least one digit (not ".", "+" or "")."""
    return _NUMERAL.fullmatch(text) is not None and any(ch in "0123456789" for ch in text)


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
