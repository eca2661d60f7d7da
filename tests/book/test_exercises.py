"""Every chapter of the book has at least three exercises, and every solution is computed.

A chapter is a notebook listed in _toc.yml that is not a reference page. Exercises use
sphinx-exercise's directives: an exercise (``{exercise}``, or gated: ``{exercise-start}``, the
question as plain markdown cells, ``{exercise-end}``), and a gated solution, a markdown cell
``{solution-start} <label>``, the code cells that compute it, and a markdown cell
``{solution-end}``. A gated solution without a code cell, or a one-cell ``{solution}`` (which
cannot hold code), fails: solutions are computed so that nbval checks them.

In JupyterLab a chapter reads as text: the cells holding only the directives' markers are
hidden there (``jupyter.source_hidden``), so a question shows as plain markdown, and the
solutions come after all the questions, under a heading JupyterLab opens collapsed
(``jp-MarkdownHeadingCollapsed``), not executed right under their question. The site renders
the same cells as numbered exercises and dropdown solutions.
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
    r"^[ \t]*(?:`{3,}|:{3,})"
    r"\{(exercise|exercise-start|exercise-end|solution|solution-start|solution-end)\}[ \t]*(\S*)",
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
            if kind in ("exercise", "exercise-start"):
                exercises += 1
            elif kind == "exercise-end":
                continue
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


# An opening and its closing fence of one sphinx-exercise directive, with its options.
_MARKER = re.compile(r"^[ \t]*(`{3,}|:{3,})\{(?:exercise|solution)[a-z-]*\}[^\n]*\n"
                     r"(?:[ \t]*:[a-z]+:[^\n]*\n)*[ \t]*\1[ \t]*$", re.MULTILINE)
_HEADING = re.compile(r"^(#{1,6}) ", re.MULTILINE)


def jupyterlab_problems(cells: list[dict]) -> list[str]:
    """What a reader would see wrongly in JupyterLab (empty when nothing): a directive's marker
    shown as raw MyST, a question inside a directive (raw text in JupyterLab), prose hidden
    with the markers, a solution before the last question, or solutions not under a heading
    that JupyterLab opens collapsed."""
    found: list[str] = []
    last_exercise = first_solution = None
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell.get("source", ""))
        kinds = [kind for kind, _ in _DIRECTIVE.findall(source)]
        if not kinds:
            continue
        if "exercise" in kinds or "solution" in kinds:
            found.append(f"cell {i}: an ungated directive shows its text as raw MyST")
        if _MARKER.sub("", source).strip():
            found.append(f"cell {i}: text beside the directives' markers")
        if not cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"):
            found.append(f"cell {i}: the directives' markers are not hidden in JupyterLab")
        if "exercise-start" in kinds or "exercise" in kinds:
            last_exercise = i
        if first_solution is None and ("solution-start" in kinds or "solution" in kinds):
            first_solution = i
    if first_solution is None:
        return found + ["no solution"]
    if last_exercise is not None and last_exercise > first_solution:
        found.append("a solution comes before the last exercise")
    headings = [(i, len(m.group(1))) for i, c in enumerate(cells[:first_solution])
                if c["cell_type"] == "markdown"
                for m in [_HEADING.search("".join(c.get("source", "")))] if m]
    if not headings or not cells[headings[-1][0]].get("metadata", {}).get(
            "jp-MarkdownHeadingCollapsed"):
        found.append("the solutions are not under a heading JupyterLab opens collapsed")
    else:
        level = headings[-1][1]
        after = [c for c in cells[first_solution:] if c["cell_type"] == "markdown"
                 for m in _HEADING.finditer("".join(c.get("source", "")))
                 if len(m.group(1)) <= level]
        if after:
            found.append("a heading after the solutions' heading ends its collapsed section")
    return found


@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.stem)
def test_in_jupyterlab_questions_are_text_and_solutions_collapsed_after_them(path: Path):
    found = jupyterlab_problems(notebook_cells(path))
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


def hidden(text: str) -> dict:
    return {"cell_type": "markdown", "source": text,
            "metadata": {"jupyter": {"source_hidden": True}}}


def as_in_jupyterlab(labels: str = "abc") -> list[dict]:
    """Questions as text between hidden markers, then the solutions under a collapsed heading."""
    cells = [md("## Exercises")]
    for label in labels:
        cells += [hidden(f"```{{exercise-start}}\n:label: {label}\n```"), md("Why?"),
                  hidden("```{exercise-end}\n```")]
    cells.append({"cell_type": "markdown", "source": "## Solutions",
                  "metadata": {"jp-MarkdownHeadingCollapsed": True}})
    for label in labels:
        cells += [hidden(f"```{{solution-start}} {label}\n:class: dropdown\n```"),
                  code("print(1)"), md("Because."), hidden("```{solution-end}\n```")]
    return cells


def test_checker_passes_gated_questions_and_collapsed_solutions():
    assert problems(as_in_jupyterlab()) == []
    assert jupyterlab_problems(as_in_jupyterlab()) == []


def test_jupyterlab_checker_flags_raw_markers_and_solutions_under_their_question():
    assert jupyterlab_problems(exercise("a") + exercise("b") + exercise("c")) == [
        "cell 0: an ungated directive shows its text as raw MyST",
        "cell 0: text beside the directives' markers",
        "cell 0: the directives' markers are not hidden in JupyterLab",
        "cell 1: the directives' markers are not hidden in JupyterLab",
        "cell 3: text beside the directives' markers",
        "cell 3: the directives' markers are not hidden in JupyterLab",
        "cell 4: an ungated directive shows its text as raw MyST",
        "cell 4: text beside the directives' markers",
        "cell 4: the directives' markers are not hidden in JupyterLab",
        "cell 5: the directives' markers are not hidden in JupyterLab",
        "cell 7: text beside the directives' markers",
        "cell 7: the directives' markers are not hidden in JupyterLab",
        "cell 8: an ungated directive shows its text as raw MyST",
        "cell 8: text beside the directives' markers",
        "cell 8: the directives' markers are not hidden in JupyterLab",
        "cell 9: the directives' markers are not hidden in JupyterLab",
        "cell 11: text beside the directives' markers",
        "cell 11: the directives' markers are not hidden in JupyterLab",
        "a solution comes before the last exercise",
        "the solutions are not under a heading JupyterLab opens collapsed",
    ]


def test_jupyterlab_checker_flags_an_open_heading_and_a_heading_after_it():
    cells = as_in_jupyterlab()
    heading = next(i for i, c in enumerate(cells) if c["source"] == "## Solutions")
    opened = cells[:heading] + [md("## Solutions")] + cells[heading + 1:]
    assert jupyterlab_problems(opened) == [
        "the solutions are not under a heading JupyterLab opens collapsed"]
    assert jupyterlab_problems(cells + [md("## Notes")]) == [
        "a heading after the solutions' heading ends its collapsed section"]
