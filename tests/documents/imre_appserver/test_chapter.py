"""The imre-appserver chapter shows the printed equations from the data and its model charts;
what every document chapter shows (inventory items, figure statuses, the claims audit, gated
exercises) is tested in test_chapter_common.py."""

from __future__ import annotations

import chapters as chapter
import pytest
import yaml

from queuetune import data

DOC = "imre-appserver"


@pytest.fixture(scope="module")
def cells():
    return chapter.load_notebook(DOC)["cells"]


def test_the_printed_equations_are_typeset_from_the_data(cells):
    shown = chapter.outputs(cells, "text/markdown")
    for row in data.load(DOC, "equations").itertuples():
        assert f"$$\n{row.latex} \\tag{{{row.equation}}}\n$$" in shown


def test_markdown_outputs_are_parsed_for_math():
    metadata = chapter.load_notebook(DOC)["metadata"]
    assert metadata["mystnb"]["render_markdown_format"] == "myst"


def test_model_charts_say_the_measured_points_are_not_in_the_text(cells):
    html = chapter.outputs(cells, "text/html")
    for figure in ("IM-F5", "IM-F6", "IM-F7", "IM-F8"):
        assert f"({figure})" in html
    assert html.count("Recomputed model curve; the measured") >= 4
    assert "(IM-F1), redrawn" in html


def test_the_chapter_is_in_the_table_of_contents():
    toc = yaml.safe_load((chapter.ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    assert "notebooks/imre-appserver" in files


# --- queuetune.documents.imre_appserver.chapter -------------------------------------------

def test_printed_equation_is_the_latex_of_the_data_with_its_number():
    from queuetune.documents.imre_appserver import chapter as helpers

    for row in data.load(DOC, "equations").itertuples():
        assert helpers.printed_equation(row.equation) == (
            f"$$\n{row.latex} \\tag{{{row.equation}}}\n$$")
    with pytest.raises(ValueError, match="number must be one of"):
        helpers.printed_equation(99)


def test_tidy_keeps_the_expression_and_writes_positive_powers():
    import sympy as sp

    from queuetune.documents.imre_appserver import chapter as helpers
    from queuetune.models import symbolic

    for expr in (symbolic.mm1bk_state_probability(), symbolic.mm1bk_mean_in_system(),
                 symbolic.mm1bk_error_rate()):
        tidied = helpers.tidy(expr)
        # the same expression, only arranged differently
        assert sp.simplify(tidied.doit() - expr) == 0
        assert "^{-" not in sp.latex(tidied)
    x = sp.Symbol("x")
    assert helpers.tidy(x) is x
    with pytest.raises(ValueError, match="expr must be a SymPy expression"):
        helpers.tidy("x")


def test_figure_status_wraps_the_status_and_note():
    from queuetune.documents.imre_appserver import chapter as helpers

    figures = data.load(DOC, "figures").set_index("figure_id")
    text = helpers.figure_status("IM-F5")
    assert " ".join(text.split()) == " ".join(
        f"IM-F5 status: {figures.loc['IM-F5', 'status']}. {figures.loc['IM-F5', 'note']}".split())
    assert max(len(line) for line in text.splitlines()) <= 72
    assert max(len(line) for line in helpers.figure_status("IM-F5", width=40).splitlines()) <= 40
    with pytest.raises(ValueError, match="figure_id must be one of"):
        helpers.figure_status("IM-F99")
