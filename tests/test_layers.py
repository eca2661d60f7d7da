"""The package's layers: no import circle, and no module importing a layer above its own.

Every ``import`` of every module of ``src/queuetune`` is read with :mod:`ast` (also imports
inside functions: a lazy import is still a dependency), resolved to the module it names, and
checked against :data:`LAYERS`, lowest first. A module may import modules of its own layer and of
the layers below it, never one above. Beside that:

* no circle of imports at all, within a layer or across layers;
* a document's home (``documents.<document>``) imports no other document's home;
* nothing inside the package imports the package itself (``queuetune/__init__.py`` only
  re-exports: import a name from the module that defines it) or its command line
  (``queuetune/__main__.py``): these two are above every layer and may import any of them.

A new top-level module or package must be placed in a layer here (the test fails until it is).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "queuetune"

#: Lowest first. A module's layer is that of the longest prefix in this table that names it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # checks of the inputs: imports nothing of the package
    ("validation", ("_validation",)),
    # the data and its bookkeeping: tables, stated values, provenance, the claims audit, the
    # status of the inventory. They know the documents by name (from the data), never by
    # import: homes.py imports each document's home by name to fill the registries.
    ("data", ("data", "tables", "stated", "provenance", "homes", "audit", "status")),
    # the analytic models
    ("models", ("models",)),
    # generic methods on the models: fitting, simulation, charts, sizing, the what-if grids
    ("methods", ("fit", "simulation", "charts", "sizing", "fleet_sizing", "snippets",
                 "explorer")),
    # helpers of the chapters that are not about one document (text, rich output, ...)
    ("chapters", ("chapters",)),
    # one home per source document, and the lab (the experiment re-run on a real Tomcat)
    ("homes", ("documents", "lab")),
)
RANK = {prefix: rank for rank, (_, prefixes) in enumerate(LAYERS) for prefix in prefixes}
#: Above every layer: the package's re-exports and its command line.
ENTRY_POINTS = (PACKAGE, f"{PACKAGE}.__main__")


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    modules = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


MODULES = module_files()


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def _resolve(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules of the package that one import statement of ``module`` imports."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            base = module.split(".")
            if not _is_package(module):
                base = base[:-1]
            base = base[:len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        # `from a import b` imports module a.b when b is a module, else a name of a
        names = [f"{target}.{alias.name}" if f"{target}.{alias.name}" in MODULES else target
                 for alias in node.names]
    found = []
    for name in names:
        # `import a.b.c` of a name that is not a module: the longest module prefix
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name.split(".")[0] == PACKAGE and name:
            found.append(name)
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of the package it imports (anywhere in its file)."""
    graph = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                targets.update(_resolve(module, node))
        targets.discard(module)
        graph[module] = targets
    return graph


def layer_of(module: str) -> int | None:
    """The rank of ``module``'s layer in :data:`LAYERS` (None for the package itself)."""
    parts = module.split(".")[1:]
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in RANK:
            return RANK[prefix]
    return None


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm).

    Written out (20 lines) rather than taking networkx or grimp as a dependency of the tests
    for one function; the standard library's graphlib reports one cycle at a time only.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


GRAPH = import_graph()


def test_every_module_is_in_a_layer():
    unplaced = [m for m in MODULES if m not in ENTRY_POINTS and layer_of(m) is None]
    assert not unplaced, f"place these modules in LAYERS of {Path(__file__).name}: {unplaced}"


def test_no_import_circles():
    found = circles(GRAPH)
    assert not found, "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def _above(module: str, target: str) -> bool:
    """``target``'s layer is above ``module``'s (modules in no layer are reported apart)."""
    ranks = layer_of(module), layer_of(target)
    return None not in ranks and ranks[1] > ranks[0]


def test_no_upward_imports():
    upward = [f"{m} ({LAYERS[layer_of(m)][0]}) imports {t} ({LAYERS[layer_of(t)][0]})"
              for m, targets in sorted(GRAPH.items()) for t in sorted(targets) if _above(m, t)]
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_nothing_imports_the_package_itself():
    importers = sorted(f"{m} imports {t}" for m, targets in GRAPH.items() if m not in ENTRY_POINTS
                       for t in targets if t in ENTRY_POINTS)
    assert not importers, (f"import names from the module that defines them, not from "
                           f"{PACKAGE}/__init__.py (or __main__.py): {importers}")


def _home(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "documents" else None


def test_no_home_imports_another_documents_home():
    crossing = [f"{m} imports {t}" for m, targets in sorted(GRAPH.items()) if _home(m)
                for t in sorted(targets) if _home(t) and _home(t) != _home(m)]
    assert not crossing, "\n".join(crossing)


# --- the checker itself -------------------------------------------------------------------------

def test_the_graph_holds_known_imports():
    """The resolution of absolute, relative and `from . import` imports, on modules whose
    imports are stable."""
    assert "queuetune.data" in GRAPH["queuetune.stated"]  # from . import data
    assert "queuetune.models" in GRAPH["queuetune.simulation"]  # from .models import ...
    assert "queuetune.charts._style" in GRAPH["queuetune.charts"]  # absolute
    assert "queuetune.data" in GRAPH["queuetune.documents.domino_curves.chapter"]  # from ...


@pytest.mark.parametrize(("graph", "expected"), [
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d"}}, [["a", "b", "c"]]),
])
def test_circles_finds_the_strongly_connected_components(graph, expected):
    assert circles(graph) == expected


def shadowing_names(init: Path) -> list[str]:
    """Names a package's ``__init__`` binds to something other than its submodule of the same
    name (``from .thread_pool import thread_pool``, a function ``locustfile`` beside a module
    ``locustfile.py``): after ``import pkg.name`` the attribute is the module, before it the
    other object, so ``import pkg.name as m`` may give either."""
    package = init.parent
    submodules = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    submodules |= {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
    bound = []
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            bound += [alias.asname or alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            bound += [alias.asname or alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.append(node.name)
        elif isinstance(node, ast.Assign):
            bound += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return sorted(set(bound) & submodules)


def test_no_package_shadows_a_submodule():
    found = {str(init.parent.relative_to(SRC)): names
             for init in sorted((SRC / PACKAGE).rglob("__init__.py"))
             if (names := shadowing_names(init))}
    assert not found, f"packages binding a submodule's name to another object: {found}"


def test_the_shadowing_check_finds_a_re_exported_function(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "model.py").write_text("def model():\n    return 1\n", encoding="utf-8")
    (package / "__init__.py").write_text("from .model import model\n", encoding="utf-8")
    assert shadowing_names(package / "__init__.py") == ["model"]
    (package / "__init__.py").write_text("from . import model\n", encoding="utf-8")
    assert shadowing_names(package / "__init__.py") == []
