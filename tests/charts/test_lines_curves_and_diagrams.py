"""The two builders of the imre-appserver chapter: model curves on a fine grid marked at the
measured settings, and a block diagram of boxes and arrows."""

from __future__ import annotations

import altair as alt
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


# --- block_diagram --------------------------------------------------------------------------

@pytest.fixture
def boxes():
    return pd.DataFrame([
        dict(x=10, y=10, x2=110, y2=90, label="Clients\n(K)", detail="They think."),
        dict(x=200, y=10, x2=300, y2=90, label="Queue", detail="It waits.", fill="#fdf1dc",
             anchor="top"),
        dict(x=210, y=50, x2=230, y2=80, label="", detail="A place."),
    ])


@pytest.fixture
def arrows():
    return pd.DataFrame([
        dict(x=110, y=40, x2=200, y2=40, label="request", detail="Sent."),
        dict(x=200, y=70, x2=110, y2=70, label="refused", detail="Back.", dashed=True, ly=85),
        dict(x=250, y=90, x2=250, y2=120, label="", detail="Down.", head=False),
        dict(x=60, y=120, x2=60, y2=90, label="", detail="Up."),
    ])


def diagram(boxes, arrows, **overrides):
    kwargs = dict(title="Diagram", description="Boxes and arrows.", width=320, height=130)
    kwargs.update(overrides)
    return charts.block_diagram(boxes, arrows, **kwargs)


def test_block_diagram_layers_and_hidden_axes(boxes, arrows):
    spec = diagram(boxes, arrows).to_dict()
    assert spec["title"] == "Diagram" and spec["description"] == "Boxes and arrows."
    assert (spec["width"], spec["height"]) == (320, 130)
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["rect", "text", "text", "rule", "point", "text"]
    rect = spec["layer"][0]
    assert rect["encoding"]["x"]["axis"] is None and rect["encoding"]["y"]["axis"] is None
    assert rect["encoding"]["y"]["scale"]["reverse"] is True  # y grows downwards
    tips = [t["title"] for t in rect["encoding"]["tooltip"]]
    assert tips == ["Part", "What it does"]


def test_block_diagram_labels_split_into_lines_and_fills_default(boxes, arrows):
    spec = diagram(boxes, arrows).to_dict()
    rows = spec["datasets"][spec["layer"][0]["data"]["name"]]
    assert rows[0]["_lines"] == ["Clients", "(K)"] and rows[0]["_tip"] == "Clients (K)"
    assert [r["fill"] for r in rows] == ["#ffffff", "#fdf1dc", "#ffffff"]
    assert [r["anchor"] for r in rows] == ["middle", "top", "middle"]


def test_block_diagram_arrowheads_point_along_the_arrow(boxes, arrows):
    spec = diagram(boxes, arrows).to_dict()
    heads = spec["layer"][4]
    rows = spec["datasets"][heads["data"]["name"]]
    # right, left and up; the third arrow has no head
    assert [round(r["_angle"]) for r in rows] == [90, 270, 0]
    assert rows[0]["_hx"] == pytest.approx(195) and rows[0]["_hy"] == pytest.approx(40)
    shafts = spec["datasets"][spec["layer"][3]["data"]["name"]]
    assert [bool(r["dashed"]) for r in shafts] == [False, True, False, False]
    notes = spec["datasets"][spec["layer"][5]["data"]["name"]]
    assert [(r["label"], r["_lx"], r["_ly"]) for r in notes] == [
        ("request", 155.0, 32.0), ("refused", 155.0, 85.0)]


@pytest.mark.parametrize("change, message", [
    (lambda b, a: b.assign(x2=b["x"]), "x < x2"),
    (lambda b, a: b.assign(anchor="left"), "anchor must be"),
    (lambda b, a: b.assign(y2=500), "must lie within"),
    (lambda b, a: b.drop(columns="detail"), "lacks column"),
])
def test_block_diagram_refuses_bad_boxes(boxes, arrows, change, message):
    with pytest.raises(ValueError, match=message):
        diagram(change(boxes, arrows), arrows)


def test_block_diagram_refuses_arrows_off_the_canvas_and_missing_text(boxes, arrows):
    with pytest.raises(ValueError, match="arrows must lie within"):
        diagram(boxes, arrows.assign(x2=-5))
    with pytest.raises(ValueError, match="description"):
        diagram(boxes, arrows, description=" ")


def test_block_diagram_is_an_altair_chart(boxes, arrows):
    assert isinstance(diagram(boxes, arrows), alt.LayerChart)
