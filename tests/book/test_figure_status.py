"""Status words of the figures mean what the book says they mean.

"reconstructed": redrawn from values the text states, so a chart of a reconstructed figure plots
no number its document does not state (read from the chart specs stored in the notebooks).
"recomputed": derived under an assumption, so every recomputed figure names it.
"""

from __future__ import annotations

import json

import figure_charts
import pytest

from queuetune import data, status


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _figures():
    return [(d, row) for d in data.documents() if "figures" in data.datasets(d)
            for row in data.load(d, "figures").itertuples()]


def test_no_reconstructed_figure_plots_a_value_the_text_does_not_state():
    assert figure_charts.unstated_points() == {}


def test_the_reconstructed_figures_have_charts_to_check():
    statuses = {row.figure_id: row.status for _, row in _figures()}
    charted = set()
    for path in sorted((figure_charts.ROOT / "notebooks").glob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for figures, _spec in figure_charts.figure_charts(notebook):
            charted |= set(figures)
    reconstructed = {f for f, s in statuses.items() if s == "reconstructed"}
    assert "DC-F1" in reconstructed and reconstructed <= charted


def test_every_recomputed_figure_names_its_assumption():
    missing = [row.figure_id for _, row in _figures()
               if row.status == "recomputed" and not _text(row.assumption)]
    assert missing == []
    stray = [row.figure_id for _, row in _figures()
             if row.status != "recomputed" and _text(row.assumption)]
    assert stray == [], "only a recomputed figure is computed under an assumption"
    table = status.status_table().set_index("id")
    for _, row in _figures():
        if row.status == "recomputed":
            assert "Computed under:" in table.loc[row.figure_id, "why"], row.figure_id


def _notebook(values: list[float]) -> dict:
    spec = {"$schema": "https://vega.github.io/schema/vega-lite/v6.json",
            "datasets": {"d1": [{"users": 1200, "cpu": v} for v in values]},
            "layer": [{"data": {"name": "d1"}, "mark": "point",
                       "encoding": {"x": {"field": "users", "type": "quantitative"},
                                    "y": {"field": "cpu", "type": "quantitative"}}}]}
    html = ("<script>vegaEmbed(outputDiv, spec, embedOpt)\n  })("
            + json.dumps(spec) + ", {\"mode\": \"vega-lite\"});</script>")
    return {"cells": [
        {"cell_type": "markdown", "source": "(dc-f1)=\n### DC-F1\n", "metadata": {}},
        {"cell_type": "code", "source": "", "metadata": {},
         "outputs": [{"output_type": "execute_result", "data": {"text/html": html}}]}]}


@pytest.mark.parametrize("values, stray", [([40.0, 65.0], {}), ([40.0, 47.5], {"DC-F1": [47.5]})])
def test_the_check_catches_an_invented_point(tmp_path, values, stray):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "x.ipynb").write_text(json.dumps(_notebook(values)),
                                                     encoding="utf-8")
    found = figure_charts.unstated_points(tmp_path, statuses={"DC-F1": "reconstructed"})
    assert found == stray
    # a recomputed figure may plot derived values
    assert figure_charts.unstated_points(tmp_path, statuses={"DC-F1": "recomputed"}) == {}


def test_axisless_layout_and_label_positions_are_not_plotted_values():
    spec = {"datasets": {"d": [{"x": 3.5, "y": 7.25, "x2": 9.5, "label": 60.0}]},
            "layer": [{"encoding": {"x": {"field": "x", "type": "quantitative", "axis": None},
                                    "x2": {"field": "x2"},
                                    "y": {"field": "y", "type": "quantitative", "axis": None}}},
                      {"mark": {"type": "text"},
                       "encoding": {"y": {"field": "label", "type": "quantitative"}}}]}
    assert figure_charts.plotted_values(spec) == set()


def test_the_old_status_of_the_iplanet_speedups_would_fail():
    # The speedups drawn for IP-F1 follow from one factor and a reading the book chose: had the
    # figure kept the status "reconstructed", the check would find numbers the guide never states.
    found = figure_charts.unstated_points(statuses={"IP-F1": "reconstructed"})
    assert set(found) == {"IP-F1"} and len(found["IP-F1"]) > 3
