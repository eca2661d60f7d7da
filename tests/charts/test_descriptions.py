"""Every chart's screen-reader description is built from the data it describes.

A description is the only view of a chart that a blind reader gets; a number typed into it is a
number that nothing checks when the data or the model change. So the text that a chapter types
into a ``description=`` argument holds no digit: every number in a description comes from a
computed value (an f-string field, a joined list). The chapters' code cells are read with
``ast``; only the literal parts of the description's strings are searched (not the fields, nor
their format specifications).

A digit is allowed in a literal part only inside a name that no data determine, listed in
``NAMES`` with its reason.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.md"))
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# Names with digits in them, not numbers the data determine.
NAMES = re.compile("|".join([
    r"M/M/1(?:/B/K)?",           # the model's name (Kendall's notation)
    r"\bsystem \d+",             # Domino's server models: system 7000, system 325, system 704
    r"\bsystems \d+ and \d+",
    r"\bDC-F\d+",                # the figures of the source documents, by their inventory ids
    r"\bFigure \d+\b",
    r"\b[12]/S\b",               # formulas: the ceilings 1/S and 2/S of one and two threads
]))


def description_arguments(source: str) -> list[ast.expr]:
    """The value of every ``description=`` keyword in ``source`` (a code cell)."""
    return [node.value for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.keyword) and node.arg == "description"]


def literal_parts(node: ast.AST) -> list[str]:
    """The text typed into an expression's strings: plain string constants and the literal
    parts of f-strings, but not the format specifications of their fields."""
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else []
    if isinstance(node, ast.JoinedStr):
        parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
        fields = [v.value for v in node.values if isinstance(v, ast.FormattedValue)]
        return parts + [t for f in fields for t in literal_parts(f)]
    return [t for child in ast.iter_child_nodes(node) for t in literal_parts(child)]


def typed_numbers(text: str) -> list[str]:
    """The numbers typed in ``text``, outside the allowed names."""
    return NUMBER.findall(NAMES.sub(" ", text))


def chapter_descriptions(path: Path) -> list[tuple[int, ast.expr]]:
    """(cell number, description expression) of every chart of a chapter."""
    notebook = jupytext.read(path)
    return [(i, value) for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"
            for value in description_arguments(cell.source)]


def test_the_scan_finds_typed_numbers_and_ignores_computed_ones():
    cell = ('charts.curve_chart(d, description=f"Rises to {x:.2f} s at 30 clients, then {n} '
            'clients of system 7000 under M/M/1/B/K: " + ", ".join(labels) + " 4 panels")')
    [value] = description_arguments(cell)
    typed = [n for text in literal_parts(value) for n in typed_numbers(text)]
    assert typed == ["30", "4"]


def test_there_are_descriptions_to_check():
    count = sum(len(chapter_descriptions(p)) for p in CHAPTERS)
    assert count >= 40, f"found only {count} chart descriptions in {len(CHAPTERS)} chapters"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_description_types_a_number(path):
    typed = {}
    for cell, value in chapter_descriptions(path):
        numbers = [n for text in literal_parts(value) for n in typed_numbers(text)]
        if numbers:
            typed[f"cell {cell}: {ast.unparse(value)[:80]}..."] = numbers
    assert typed == {}, (
        f"{path.name}: numbers typed into chart descriptions (compute them from the chart's "
        f"data instead): {typed}")
