"""No test compares computed floats with a stored file exactly.

A float computed here and one stored from a run on another machine (another processor, another
build of NumPy, OpenBLAS or libm) may differ by a few units in the last place; a test that holds
them equal passes only where the file was written. A stored value is compared with a bound in
units in the last place or in relative error that the algorithm guarantees, stated beside the
comparison (``numpy.testing.assert_allclose``, ``assert_array_max_ulp``, ``pytest.approx``).

Every module under ``tests/`` is read with :mod:`ast`. A value is *stored* when it comes from a
file kept beside the tests or among the results: a path built from ``__file__`` that names a
``.csv``, ``.json``, ``.npy``, ``.npz`` or ``.txt`` file, or any path naming a ``results``
folder; and every name assigned, looped over or parametrized from a stored value is stored too
(followed to a fixed point, within the module and each function). The check then refuses:

* ``==``, ``!=`` (and ``is``) with a stored value on either side, unless the other side is a
  string constant or a side is ``len(...)``;
* ``assert_array_equal``, ``assert_equal``, ``assert_frame_equal``, ``assert_series_equal``
  and ``.equals(...)`` given a stored value.

A comparison that is exact on purpose (a label, a count) says so on its line, with the reason:
``# exact: <why>``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
STORED_SUFFIXES = (".csv", ".json", ".npy", ".npz", ".txt")
EXACT_CALLS = {"assert_array_equal", "assert_equal", "assert_frame_equal", "assert_series_equal",
               "equals"}
WAIVER = re.compile(r"#\s*exact:\s*\S")


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _is_stored_path(node: ast.AST) -> bool:
    """A path to a stored file: built from ``__file__`` and naming a data file, or naming a
    ``results`` folder."""
    strings = [n.value for n in ast.walk(node)
               if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    from_here = "__file__" in _names(node)
    return (from_here and any(s.endswith(STORED_SUFFIXES) for s in strings)) or any(
        s == "results" or s.startswith("results/") for s in strings)


def _targets(node: ast.AST) -> set[str]:
    return _names(node) if node is not None else set()


def _bindings(tree: ast.AST) -> list[tuple[set[str], ast.AST]]:
    """(names bound, the expression they are bound from) for every binding in ``tree``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            out.append((set().union(*(_targets(t) for t in node.targets)), node.value))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            out.append((_targets(node.target), node.value))
        elif isinstance(node, ast.NamedExpr):
            out.append((_targets(node.target), node.value))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            out.append((_targets(node.target), node.iter))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            out.extend((_targets(item.optional_vars), item.context_expr)
                       for item in node.items if item.optional_vars is not None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.extend(_parametrized(node))
    return out


def _parametrized(function: ast.FunctionDef) -> list[tuple[set[str], ast.AST]]:
    """The arguments of ``@pytest.mark.parametrize("a, b", values)``, bound from ``values``."""
    out = []
    for decorator in function.decorator_list:
        if (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
                and decorator.func.attr == "parametrize" and len(decorator.args) >= 2
                and isinstance(decorator.args[0], ast.Constant)):
            names = {n.strip() for n in str(decorator.args[0].value).split(",")}
            out.append((names, decorator.args[1]))
    return out


def stored_names(tree: ast.AST) -> set[str]:
    """Every name of ``tree`` bound, directly or through other names, from a stored file.

    Names are not told apart by scope: a name stored anywhere in the module counts as stored
    everywhere in it (the check errs on the side of refusing)."""
    bindings = _bindings(tree)
    stored: set[str] = set()
    changed = True
    while changed:
        changed = False
        for names, value in bindings:
            if names - stored and (_is_stored_path(value) or _names(value) & stored):
                stored |= names
                changed = True
    return stored


def _holds_stored(node: ast.AST, stored: set[str]) -> bool:
    return _is_stored_path(node) or bool(_names(node) & stored)


def _harmless_side(node: ast.AST) -> bool:
    """A string constant or a length: comparing it exactly is comparing no float."""
    return ((isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))
            or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "len"))


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def exact_comparisons(source: str) -> list[tuple[int, str]]:
    """(line, code) of every exact comparison of a stored value in ``source``."""
    tree = ast.parse(source)
    stored = stored_names(tree)
    lines = source.splitlines()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            exact = any(isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot))
                        for op in node.ops)
            if (exact and any(_holds_stored(s, stored) for s in sides)
                    and not any(_harmless_side(s) for s in sides)):
                found.append(node)
        elif isinstance(node, ast.Call) and _call_name(node) in EXACT_CALLS:
            given = [*node.args, *(k.value for k in node.keywords)]
            if isinstance(node.func, ast.Attribute):
                given.append(node.func.value)
            if any(_holds_stored(a, stored) for a in given):
                found.append(node)
    return sorted((n.lineno, lines[n.lineno - 1].strip()) for n in found
                  if not any(WAIVER.search(lines[i - 1])
                             for i in range(n.lineno, (n.end_lineno or n.lineno) + 1)))


def _test_modules() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_test_compares_a_stored_float_exactly():
    found = [f"{path.relative_to(TESTS.parent)}:{line}: {code}"
             for path in _test_modules()
             for line, code in exact_comparisons(path.read_text(encoding="utf-8"))]
    assert not found, ("exact comparisons of stored values (compare with a bound the algorithm "
                       "guarantees, or mark a label or count '# exact: <why>'):\n"
                       + "\n".join(found))


# -- the check itself, on examples ---------------------------------------------------------------

REFUSED = {
    "csv, compared by !=": '''
LEGACY = Path(__file__).parent / "data" / "old.csv"
def test_old():
    with LEGACY.open() as f:
        old = list(csv.DictReader(f))
    new = solve()
    assert not [m for o, n in zip(old, new) for m in o if o[m] != n[m]]
''',
    "json, parametrized, ==": '''
CASES = json.loads((Path(__file__).parent / "data" / "samples.json").read_text())
@pytest.mark.parametrize("case", CASES["runs"])
def test_same(case):
    assert simulate(**case["point"]).samples == case["samples"]
''',
    "results folder, assert_array_equal": '''
def test_results():
    stored = pd.read_csv(ROOT / "results" / "bench.csv")
    np.testing.assert_array_equal(compute(), stored["value"])
''',
    "a frame's .equals": '''
def test_frame():
    stored = pd.read_csv(Path(__file__).parent / "data" / "table.csv")
    assert compute().equals(stored)
''',
}

ACCEPTED = {
    "a bound": '''
LEGACY = Path(__file__).parent / "data" / "old.csv"
def test_old():
    old = pd.read_csv(LEGACY)
    assert len(old) == 3
    np.testing.assert_allclose(solve(), old["x"], rtol=1e-13, atol=0)
''',
    "a label and a waiver": '''
LEGACY = Path(__file__).parent / "data" / "old.csv"
def test_old():
    old = pd.read_csv(LEGACY)
    assert old.columns[0] == "method"
    assert old["clients"].tolist() == [1, 2]  # exact: counts written as integers
''',
    "no stored file": '''
def test_same_twice():
    assert solve() == solve()
''',
}


@pytest.mark.parametrize("source", REFUSED.values(), ids=REFUSED.keys())
def test_the_check_finds_exact_comparisons(source):
    assert len(exact_comparisons(source)) == 1


@pytest.mark.parametrize("source", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_the_check_accepts_bounds_labels_and_waivers(source):
    assert exact_comparisons(source) == []
