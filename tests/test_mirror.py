"""``tests/`` mirrors ``src/queuetune/``: every module has its test file at the mirror path.

``src/queuetune/a/b.py`` is tested by ``tests/a/test_b.py``, a top-level module
``src/queuetune/b.py`` by ``tests/test_b.py``; a private module's leading underscores are
dropped (``charts/_style.py`` -> ``tests/charts/test_style.py``, ``lab/__main__.py`` ->
``tests/lab/test_main.py``); a top-level module whose tests fill several files may have a folder
instead (``simulation.py`` -> ``tests/simulation/``). The only modules allowed
without one are listed in :data:`NO_LOGIC`, each with the reason, and each must hold no function
or class (the test checks it): a package's ``__init__`` that only re-exports.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "queuetune"
TESTS = ROOT / "tests"

#: Modules without logic, which need no test file of their own (path under src/queuetune).
NO_LOGIC = {
    # the package and its subpackages: docstrings and re-exports of what their modules define
    "chapters/__init__.py": "docstring only",
    "charts/__init__.py": "re-exports the chart builders",
    "documents/__init__.py": "re-exports queuetune.homes' loader",
    "documents/domino_curves/__init__.py": "imports claims and parsers (registers them)",
    "documents/domino_keepalive/__init__.py": "imports claims and parsers (registers them)",
    "documents/domino_threads/__init__.py": "imports claims and parsers (registers them)",
    "documents/imre_appserver/__init__.py": "imports claims and parsers (registers them)",
    "documents/iplanet_tuning/__init__.py": "imports claims and parsers (registers them)",
    "fit/__init__.py": "re-exports the fitters",
    "lab/__init__.py": "docstring only",
}


def mirror(module: Path) -> Path:
    """The test file of ``module`` (a path under src/queuetune)."""
    relative = module.relative_to(PACKAGE)
    return TESTS / relative.parent / f"test_{relative.stem.strip('_')}.py"


def folder_mirror(module: Path) -> Path | None:
    """The folder that may hold the tests of a top-level module (None for other modules)."""
    relative = module.relative_to(PACKAGE)
    return TESTS / relative.stem.strip("_") if relative.parent == Path(".") else None


def mirrored(module: Path) -> bool:
    folder = folder_mirror(module)
    return mirror(module).is_file() or (folder is not None and folder.is_dir()
                                        and any(folder.glob("test_*.py")))


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def has_logic(path: Path) -> bool:
    """A function or a class anywhere in the module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
               for node in ast.walk(tree))


def test_every_module_has_a_mirror_test_file():
    missing = [f"{m.relative_to(PACKAGE)} -> {mirror(m).relative_to(ROOT)}" for m in modules()
               if str(m.relative_to(PACKAGE)) not in NO_LOGIC and not mirrored(m)]
    assert not missing, (f"{len(missing)} modules have no test file at their mirror path:\n"
                         + "\n".join(missing))


def test_the_exceptions_have_no_logic_and_exist():
    listed = {name: PACKAGE / name for name in NO_LOGIC}
    gone = sorted(name for name, path in listed.items() if not path.is_file())
    assert not gone, f"NO_LOGIC lists modules that do not exist: {gone}"
    with_logic = sorted(name for name, path in listed.items() if has_logic(path))
    assert not with_logic, f"NO_LOGIC lists modules with functions or classes: {with_logic}"


def test_mirror_paths():
    assert mirror(PACKAGE / "charts" / "_style.py") == TESTS / "charts" / "test_style.py"
    assert mirror(PACKAGE / "data.py") == TESTS / "test_data.py"
    assert (mirror(PACKAGE / "documents" / "domino_threads" / "claims.py")
            == TESTS / "documents" / "domino_threads" / "test_claims.py")
    assert folder_mirror(PACKAGE / "simulation.py") == TESTS / "simulation"
    assert folder_mirror(PACKAGE / "models" / "mean_value.py") is None


def test_no_test_file_runs_a_modules_doctests_again():
    """pytest's --doctest-modules (pyproject.toml) runs every module's doctests once, from
    src/; a test calling doctest.testmod or DocTestSuite on a module runs them a second time."""
    rerun = sorted(str(path.relative_to(ROOT)) for path in TESTS.rglob("*.py")
                   if any(isinstance(node, ast.Attribute) and node.attr in {"testmod",
                                                                           "DocTestSuite"}
                          for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))))
    assert not rerun, f"these test files run doctests that --doctest-modules runs already: {rerun}"
