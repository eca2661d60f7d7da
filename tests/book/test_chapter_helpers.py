"""Chapters import their helpers from the package: a function defined in a code cell is one
no test pins. The one exception is the thread-pool-model chapter's textbook MVA recursion,
written out in the chapter because it is the object being demonstrated (and shown to fail)."""

from __future__ import annotations

import ast
from pathlib import Path

import jupytext
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
ALLOWED = {"thread-pool-model": {"textbook_load_dependent_mva"}}


def functions_defined(text: str) -> set[str]:
    """Names of the functions and classes a chapter's code cells define (lambdas excluded)."""
    notebook = jupytext.reads(text, fmt="md:myst")
    names = set()
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        source = "\n".join(line for line in cell.source.splitlines()
                           if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
    return names


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.md")), ids=lambda p: p.stem)
def test_chapters_define_no_helper_functions(path):
    assert functions_defined(path.read_text()) == ALLOWED.get(path.stem, set())


def test_the_check_sees_a_function_in_a_cell():
    text = "```{code-cell} ipython3\nx = 1\n\n\ndef helper(y):\n    return y\n```\n"
    assert functions_defined(text) == {"helper"}
    assert functions_defined(text.replace("def helper(y):\n    return y", "f = len")) == set()
