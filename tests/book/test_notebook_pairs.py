"""Every chapter is a pair, notebooks/<name>.md (the text people edit and review) and
notebooks/<name>.ipynb (the same cells, stored executed), and the two agree.

scripts/execute_notebooks.py writes the .ipynb from the .md; these tests fail when one of the
two was edited alone, and when a stored notebook would change on re-running an unchanged
chapter (cell ids that are not derived from the cells, chart ids that are random).
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
TEXTS = sorted(NOTEBOOKS.glob("*.md"))
_spec = importlib.util.spec_from_file_location("execute_notebooks",
                                               ROOT / "scripts" / "execute_notebooks.py")
execute_notebooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(execute_notebooks)


def test_every_notebook_has_its_text_and_every_text_its_notebook():
    assert {p.stem for p in TEXTS} == {p.stem for p in NOTEBOOKS.glob("*.ipynb")}
    assert TEXTS, "no chapters under notebooks/"


@pytest.mark.parametrize("text", TEXTS, ids=lambda p: p.stem)
def test_the_pair_holds_the_same_cells(text: Path):
    expected = execute_notebooks.paired_notebook(text)
    stored = nbformat.read(text.with_suffix(".ipynb"), as_version=4)
    assert len(stored.cells) == len(expected.cells), (
        f"{text.name} and its .ipynb differ in cells: run make execute-notebooks")
    for i, (want, got) in enumerate(zip(expected.cells, stored.cells, strict=True)):
        assert (got.cell_type, got.source) == (want.cell_type, want.source), (
            f"{text.stem}: cell {i} differs between .md and .ipynb: run make execute-notebooks")
        assert got.metadata == want.metadata, f"{text.stem}: metadata of cell {i} differ"
        assert got.id == want.id, f"{text.stem}: cell {i} has an id not derived from it"
    for key in ("kernelspec", "jupytext", "mystnb"):
        assert stored.metadata.get(key) == expected.metadata.get(key), f"{text.stem}: {key}"


@pytest.mark.parametrize("text", TEXTS, ids=lambda p: p.stem)
def test_the_text_is_jupytext_myst(text: Path):
    head = text.read_text(encoding="utf-8").split("---", 2)[1]
    assert "format_name: myst" in head and "formats: ipynb,md:myst" in head
    assert "jupytext_version" not in head, "the writing jupytext version is filtered out"
    assert jupytext.read(text).cells


@pytest.mark.parametrize("text", TEXTS, ids=lambda p: p.stem)
def test_chart_output_ids_are_derived_from_the_charts(text: Path):
    stored = text.with_suffix(".ipynb").read_text(encoding="utf-8")
    ids = re.findall(r"altair-viz-[0-9a-f]{32}(?:-\d+)?", stored)
    assert all(re.fullmatch(r"altair-viz-[0-9a-f]{32}(-\d+)?", i) for i in ids)
    # one id per chart: each chart output names its div a fixed number of times
    per_output = {}
    for cell in json.loads(stored)["cells"]:
        for out in cell.get("outputs", []):
            html = "".join(out.get("data", {}).get("text/html", []))
            found = set(re.findall(r"altair-viz-[0-9a-f]{32}(?:-\d+)?", html))
            assert len(found) <= 1
            for i in found:
                assert i not in per_output, f"{text.stem}: two charts share the id {i}"
                per_output[i] = True


def test_stable_ids_depend_on_the_cell_alone():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A"),
                                         nbformat.v4.new_code_cell("x = 1"),
                                         nbformat.v4.new_code_cell("x = 1")])
    execute_notebooks.stable_ids(nb)
    first = [c.id for c in nb.cells]
    nb.cells.insert(0, nbformat.v4.new_markdown_cell("new"))
    execute_notebooks.stable_ids(nb)
    assert [c.id for c in nb.cells[1:]] == first
    assert first[2] == f"{first[1]}-2"


def test_printed_text_is_stored_as_one_output_per_stream():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1); print(2)")])
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n"),
                           nbformat.v4.new_output("stream", name="stdout", text="2\n"),
                           nbformat.v4.new_output("stream", name="stderr", text="w\n"),
                           nbformat.v4.new_output("stream", name="stdout", text="3\n")]
    execute_notebooks.merge_streams(nb)
    assert [(o.name, o.text) for o in nb.cells[0].outputs] == [
        ("stdout", "1\n2\n"), ("stderr", "w\n"), ("stdout", "3\n")]


@pytest.mark.parametrize("text", TEXTS, ids=lambda p: p.stem)
def test_no_stream_is_stored_in_pieces(text: Path):
    stored = nbformat.read(text.with_suffix(".ipynb"), as_version=4)
    for cell in stored.cells:
        outputs = cell.get("outputs", [])
        for a, b in zip(outputs, outputs[1:], strict=False):
            assert not (a.output_type == b.output_type == "stream" and a.name == b.name), (
                f"{text.stem}: a stream stored in pieces: run make execute-notebooks")
