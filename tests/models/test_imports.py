"""The modules of ``queuetune.models`` and ``queuetune.fit`` import one another one way only:
no circle, not even through an import inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import queuetune

PACKAGE = Path(queuetune.__file__).parent


def _imports(path: Path, package: str) -> set[str]:
    """The sibling modules of ``package`` that ``path`` imports, anywhere in the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(
                f"queuetune.{package}."):
            found.add(node.module.split(".")[2])
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path + [node, nxt]
            if nxt not in state:
                found = visit(nxt, path + [node])
                if found:
                    return found
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


@pytest.mark.parametrize("package", ["models", "fit"])
def test_no_import_circle(package):
    folder = PACKAGE / package
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    graph = {m: _imports(folder / f"{m}.py", package) & modules for m in modules}
    assert _cycle(graph) is None, _cycle(graph)


def test_the_circle_finder_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"a"}}) is not None
    assert _cycle({"a": {"b"}, "b": set()}) is None
