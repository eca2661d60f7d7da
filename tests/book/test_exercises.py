"""Every chapter of the book has at least three exercises, and every solution is computed.

A chapter is a notebook listed in _toc.yml that is not a reference page. Exercises use
sphinx-exercise's directives: an ``{exercise}`` in a markdown cell, then a gated solution, a
markdown cell ``{solution-start} <label>``, the code cells that compute it, and a markdown cell
``{solution-end}``. A gated solution without a code cell, or a one-cell ``{solution}`` (which
cannot hold code), fails: solutions are computed so that nbval checks them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from toc import toc_notebooks

MIN_EXERCISES = 3
# Pages that are not chapters: the reference pages, the introduction and the workshop page
# (which has its own test below).
NOT_CHAPTERS = {"reproduction-status", "claims-audit", "what-if", "bibliography", "intro"}
# An opening fence (``` or :::, three or more) followed by a directive of sphinx-exercise.
_DIRECTIVE = re.compile(
    r"^[ \t]*(?:`{3,}|:{3,})\{(exercise|solution|solution-start|solution-end)\}[ \t]*(\S*)",
    re.MULTILINE)


def chapters() -> list[Path]:
    return [p for p in toc_notebooks() if p.stem not in NOT_CHAPTERS]


def problems(cells: list[dict], minimum: int = MIN_EXERCISES) -> list[str]:
    """What is wrong with the exercises of a notebook's cells (empty when nothing)."""
    found: list[str] = []
    exercises = 0
    open_solution: str | None = None
    code_cells = 0
    for cell in cells:
        source = "".join(cell.get("source", ""))
        if cell["cell_type"] == "code":
            if open_solution is not None and source.strip():
                code_cells += 1
            continue
        if cell["cell_type"] != "markdown":
            continue
        for kind, label in _DIRECTIVE.findall(source):
            if kind == "exercise":
                exercises += 1
            elif kind == "solution":
                found.append(f"solution {label or '?'} is a single {{solution}} directive: "
                             "solutions must be gated (solution-start/-end) around code cells")
            elif kind == "solution-start":
                if open_solution is not None:
                    found.append(f"solution {open_solution} has no solution-end")
                open_solution, code_cells = label or "?", 0
            elif open_solution is None:
                found.append("solution-end without a solution-start")
            else:
                if code_cells == 0:
                    found.append(f"solution {open_solution} has no code cell")
                open_solution = None
    if open_solution is not None:
        found.append(f"solution {open_solution} has no solution-end")
    if exercises < minimum:
        found.append(f"{exercises} exercise(s), at least {minimum} needed")
    return found


def notebook_cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def test_there_are_chapters():
    assert chapters(), "no chapter notebook found in _toc.yml"


@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.stem)
def test_chapter_has_three_exercises_with_computed_solutions(path: Path):
    found = problems(notebook_cells(path))
    assert not found, f"{path.name}: " + "; ".join(found)


def test_the_workshop_page_has_exercises_too():
    path = next(p for p in toc_notebooks() if p.stem == "what-if")
    found = problems(notebook_cells(path))
    assert not found, f"{path.name}: " + "; ".join(found)


# --- the checker itself -------------------------------------------------------------------------

def md(text: str) -> dict:
    return {"cell_type": "markdown", "source": text}


def code(text: str) -> dict:
    return {"cell_type": "code", "source": text}


def exercise(label: str, solution_code: str = "print(1)") -> list[dict]:
    return [md(f"```{{exercise}}\n:label: {label}\n\nWhy?\n```"),
            md(f"```{{solution-start}} {label}\n:class: dropdown\n```"),
            code(solution_code),
            md("Because.\n\n```{solution-end}\n```")]


def test_checker_passes_three_computed_exercises():
    cells = exercise("a") + exercise("b") + exercise("c")
    assert problems(cells) == []


def test_checker_counts_exercises():
    assert problems(exercise("a") + exercise("b")) == ["2 exercise(s), at least 3 needed"]


def test_checker_flags_a_solution_without_code():
    cells = exercise("a") + exercise("b") + exercise("c", solution_code="  \n")
    assert problems(cells) == ["solution c has no code cell"]


def test_checker_flags_an_ungated_solution_and_a_missing_end():
    cells = exercise("a") + exercise("b") + [
        md("```{exercise}\n:label: c\nWhy?\n```\n\n```{solution} c\nBecause.\n```")]
    assert problems(cells) == ["solution c is a single {solution} directive: solutions must be "
                               "gated (solution-start/-end) around code cells"]
    unclosed = exercise("a") + exercise("b") + exercise("c")[:-1]
    assert problems(unclosed) == ["solution c has no solution-end"]


def test_checker_reads_colon_fences_and_exercises_sharing_a_cell():
    cells = [md(":::{exercise}\n:label: a\nWhy?\n:::\n\n```{exercise}\n:label: b\nWhy?\n```"),
             md("```{solution-start} b\n```"), code("x = 1"),
             md("```{solution-end}\n```\n\n````{exercise}\n:label: c\nWhy?\n````")]
    assert problems(cells) == []
