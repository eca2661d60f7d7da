"""curve_chart, used by the imre-appserver chapter: model curves on a fine grid marked at the
measured settings (its block diagram: test_diagrams)."""

from __future__ import annotations

import pandas as pd
import pytest

from queuetune import charts


@pytest.fixture
def curves():
    ks = list(range(1, 21))
    return pd.DataFrame({
        "clients": ks * 3,
        "value": [k / 10 for k in ks] + [k / 20 for k in ks] + [min(k / 8, 1.5) for k in ks],
        "series": ["model A"] * 20 + ["model B"] * 20 + ["bound"] * 20,
    })


def curve(curves, **overrides):
    kwargs = dict(x="clients", y="value", series="series", title="T", description="D",
                  x_title="Clients (K)", y_title="Value (s)", series_title="Curve")
    kwargs.update(overrides)
    return charts.curve_chart(curves, **kwargs)


def layers_by_mark(spec):
    return [(layer["mark"]["type"], layer) for layer in spec["layer"]]


def test_curve_chart_draws_lines_hover_targets_and_marks(curves):
    spec = curve(curves, marks_at=[5, 10, 15]).to_dict()
    assert spec["title"] == "T" and spec["description"] == "D"
    marks = [m for m, _ in layers_by_mark(spec)]
    assert marks == ["line", "point", "point"]
    line, targets, marked = (layer for _, layer in layers_by_mark(spec))
    assert targets["mark"]["opacity"] == 0  # invisible hover targets at every grid row
    assert "transform" not in targets
    [where] = marked["transform"]
    assert where["filter"] == {"field": "clients", "oneOf": [5.0, 10.0, 15.0]}
    tips = [(t["field"], t["title"]) for t in targets["encoding"]["tooltip"]]
    assert tips == [("series", "Curve"), ("clients", "Clients (K)"), ("value", "Value (s)")]
    assert targets["encoding"]["tooltip"][2]["format"] == ".3f"
    colour = line["encoding"]["color"]["scale"]
    assert colour["domain"] == ["model A", "model B", "bound"]  # order of first appearance
    assert "range" not in colour  # the configuration's distinct category colours


def test_curve_chart_highlights_from_the_legend(curves):
    spec = curve(curves).to_dict()
    [param] = spec["params"]  # Altair lifts the lines' selection to the top level
    assert param["select"]["fields"] == ["series"] and param["bind"] == "legend"
    assert param["views"] == [spec["layer"][0]["name"]]
    line = spec["layer"][0]
    assert line["encoding"]["opacity"]["condition"]["param"] == param["name"]
    marked = curve(curves, marks_at=[5]).to_dict()["layer"][2]
    assert marked["encoding"]["opacity"]["condition"]["param"] == param["name"]


def test_curve_chart_dashes_and_leaves_unmarked_the_named_series(curves):
    spec = curve(curves, marks_at=[10], dashed=["bound"], unmarked=["bound"]).to_dict()
    line = layers_by_mark(spec)[0][1]
    dash = line["encoding"]["strokeDash"]["scale"]
    assert dash["domain"] == ["model A", "model B", "bound"]
    assert dash["range"] == [[1, 0], [1, 0], [7, 4]]
    marked = layers_by_mark(spec)[2][1]
    assert {"filter": {"field": "series", "oneOf": ["model A", "model B"]}} in marked["transform"]


def test_curve_chart_without_marks_has_no_marked_layer(curves):
    assert len(curve(curves).to_dict()["layer"]) == 2
    everything_unmarked = curve(curves, marks_at=[10],
                                unmarked=["model A", "model B", "bound"]).to_dict()
    assert len(everything_unmarked["layer"]) == 2


def test_curve_chart_stated_points_rules_and_bands(curves):
    points = pd.DataFrame({"clients": [5, 10], "value": [0.0, 0.0], "label": ["a", "b"]})
    rules = pd.DataFrame({"value": [1.5], "label": ["ceiling"]})
    bands = pd.DataFrame({"low": [1.0], "high": [1.2], "label": ["stated level"]})
    chart = curve(curves, points=points, points_name="stated zero", y_rules=rules,
                  y_bands=bands, y_domain=(0, 2))
    spec = chart.to_dict()
    marks = [m for m, _ in layers_by_mark(spec)]
    assert marks == ["rect", "text", "rule", "text", "line", "point", "point"]
    stated = spec["layer"][-1]
    assert stated["mark"]["filled"] is False
    assert stated["encoding"]["shape"]["scale"] == {"domain": ["stated zero"],
                                                    "range": ["square"]}
    assert [t["field"] for t in stated["encoding"]["tooltip"]] == ["label", "clients", "value"]
    assert spec["resolve"] == {"legend": {"shape": "independent"}}
    line = spec["layer"][4]
    assert line["encoding"]["y"]["scale"]["domain"] == [0, 2]
    assert line["mark"]["clip"] is True
    rule_tips = {t["field"] for t in spec["layer"][2]["encoding"]["tooltip"]}
    assert rule_tips == {"label", "value"}
    band_label = spec["layer"][1]
    assert band_label["encoding"]["y"]["field"] == "high"  # on the band's upper edge
    assert band_label["mark"]["baseline"] == "bottom"


def test_curve_chart_takes_a_subtitle_of_several_lines(curves):
    spec = curve(curves, subtitle=["first line", "second line"]).to_dict()
    assert spec["title"] == {"text": "T", "subtitle": ["first line", "second line"]}


@pytest.mark.parametrize("overrides, message", [
    ({"title": " "}, "title"),
    ({"description": ""}, "description"),
    ({"x_title": ""}, "x_title"),
    ({"dashed": ["nope"]}, "dashed names series"),
    ({"unmarked": ["nope"]}, "unmarked names series"),
    ({"y": "missing"}, "lacks column"),
    ({"y_domain": (2, 1)}, "y_domain"),
    ({"series_title": "Value (s)"}, "series_title must differ"),
    ({"y_rules": pd.DataFrame({"value": [1]})}, "y_rules lacks"),
    ({"y_bands": pd.DataFrame({"low": [2], "high": [1], "label": ["x"]})}, "low <= high"),
    ({"points": pd.DataFrame({"clients": [1], "value": [0], "label": ["a"]})}, "points_name"),
])
def test_curve_chart_refuses_bad_input(curves, overrides, message):
    with pytest.raises(ValueError, match=message):
        curve(curves, **overrides)
