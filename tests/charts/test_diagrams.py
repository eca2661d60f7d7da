"""queuetune.charts.diagrams: reference_chart (stated points against reference lines and bands)
and block_diagram (boxes joined by arrows)."""

from __future__ import annotations

import altair as alt
import pandas as pd
import pytest
import vl_convert

from queuetune import charts


def svg(chart) -> str:
    """The chart drawn by Vega (fails on a spec that does not compile or render)."""
    return vl_convert.vegalite_to_svg(chart.to_dict())


# -- reference_chart --------------------------------------------------------------------------

@pytest.fixture
def readings():
    return pd.DataFrame({"reading": ["system A", "system B"], "users": [1200, 1200],
                         "cpu": [40.0, 65.0]})


RULES = pd.DataFrame({"value": [75.0, 30.0], "label": ["Ceiling", "Average"]})
BANDS = pd.DataFrame({"low": [50.0], "high": [70.0], "label": ["Guideline"]})


def reference(points, **overrides):
    kwargs = dict(x="users", y="cpu", title="T", description="D", x_title="Users",
                  y_title="CPU (%)", series="reading", y_rules=RULES, y_bands=BANDS,
                  x_domain=(0, 1800), y_domain=(0, 100))
    kwargs.update(overrides)
    return charts.reference_chart(points, **kwargs)


def test_reference_chart_draws_points_rules_and_bands_without_a_line(readings):
    spec = reference(readings).to_dict()
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert "line" not in marks
    assert marks.count("point") == 1 and marks.count("rule") == 1 and marks.count("rect") == 1
    point = spec["layer"][-1]
    assert point["encoding"]["x"]["scale"]["domain"] == [0, 1800]
    assert point["encoding"]["color"]["legend"]["symbolOpacity"] == 1
    assert {t["title"] for t in point["encoding"]["tooltip"]} == {"reading", "Users",
                                                                 "CPU (%)"}
    band = spec["layer"][0]
    assert band["encoding"]["fill"]["scale"] is None  # no legend entry for a band
    drawn = svg(reference(readings))
    for text in ("Ceiling", "Average", "Guideline", "system B"):
        assert text in drawn


def test_reference_chart_band_colours(readings):
    grey = reference(readings).to_dict()["datasets"]
    assert any(row.get("_colour") == "#888" for rows in grey.values() for row in rows)
    coloured = reference(readings, y_bands=BANDS.assign(colour=["#009E73"])).to_dict()
    assert any(row.get("_colour") == "#009E73"
               for rows in coloured["datasets"].values() for row in rows)


def test_reference_chart_schematic_without_points():
    chart = charts.reference_chart(
        None, x="users", y="probe", title="T", description="D", x_title="Users",
        y_title="Probe (s)", y_bands=BANDS, x_rules=pd.DataFrame({"value": [325],
                                                                  "label": ["cross"]}),
        x_bands=pd.DataFrame({"low": [250, 300], "high": [300, 350], "label": ["a", "b"]}),
        x_domain=(200, 400), y_domain=(0, 6))
    spec = chart.to_dict()
    assert all(layer["mark"]["type"] != "point" for layer in spec["layer"])
    x_rule = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "rule")
    assert x_rule["encoding"]["y"] == {"value": 20}  # starts below the band labels
    assert "cross" in svg(chart)


def test_reference_chart_schematic_needs_both_domains():
    with pytest.raises(ValueError, match="x_domain and y_domain"):
        charts.reference_chart(None, x="u", y="c", title="T", description="D",
                               x_title="U", y_title="C", y_rules=RULES)


@pytest.mark.parametrize("overrides, message", [
    ({"y_rules": RULES.rename(columns={"value": "v"})}, "y_rules lacks"),
    ({"y_bands": BANDS.assign(low=[80.0])}, "y_bands: every band needs low <= high"),
    ({"x_domain": (10, 10)}, "x_domain must be"),
    ({"y_title": " "}, "y_title"),
])
def test_reference_chart_refuses_bad_input(readings, overrides, message):
    with pytest.raises(ValueError, match=message):
        reference(readings, **overrides)


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
