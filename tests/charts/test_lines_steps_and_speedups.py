"""The step chart used for the thread-posting simulation of the iPlanet chapter."""

from __future__ import annotations

import pandas as pd
import pytest

from queuetune import charts


@pytest.fixture
def frame():
    return pd.DataFrame({
        "time": [0.0, 1.0, 2.0, 0.0, 1.0, 2.0],
        "count": [48, 56, 64, 0, 30, 5],
        "what": ["threads"] * 3 + ["queue"] * 3,
    })


def build(frame, **overrides):
    kwargs = dict(x="time", y="count", series="what", title="T", description="D",
                  x_title="Time (s)", y_title="Count", series_title="Quantity")
    kwargs.update(overrides)
    return charts.step_chart(frame, **kwargs)


def layers(spec):
    return {layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]: layer
            for layer in spec["layer"]}


def test_step_lines_with_title_description_axes_and_tooltips(frame):
    spec = build(frame).to_dict()
    assert spec["title"] == "T" and spec["description"] == "D"
    line = layers(spec)["line"]
    assert line["mark"]["interpolate"] == "step-after"
    assert line["encoding"]["x"]["title"] == "Time (s)"
    assert line["encoding"]["y"]["title"] == "Count"
    tips = {t["field"]: t["title"] for t in line["encoding"]["tooltip"]}
    assert tips == {"what": "Quantity", "time": "Time (s)", "count": "Count"}


def test_every_sample_has_an_invisible_hover_target(frame):
    point = layers(build(frame).to_dict())["point"]
    assert point["mark"]["opacity"] == 0
    assert {t["field"] for t in point["encoding"]["tooltip"]} == {"what", "time", "count"}


def test_series_keep_their_order_and_the_legend_highlights(frame):
    spec = build(frame).to_dict()
    line = layers(spec)["line"]
    assert line["encoding"]["color"]["scale"]["domain"] == ["threads", "queue"]
    param = spec["params"][0]
    assert param["bind"] == "legend" and param["select"]["fields"] == ["what"]
    assert line["encoding"]["opacity"]["condition"]["param"] == param["name"]
    assert line["encoding"]["opacity"]["value"] == charts.FADED_OPACITY


def test_reference_rules_are_labelled(frame):
    rules = pd.DataFrame({"value": [48, 128], "label": ["RqThrottleMin", "RqThrottle"]})
    moments = pd.DataFrame({"value": [1.0], "label": ["load step"]})
    spec = build(frame, y_rules=rules, x_rules=moments).to_dict()
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks.count("rule") == 2 and marks.count("text") == 2
    rule_layers = [layer for layer in spec["layer"] if layer["mark"]["type"] == "rule"]
    assert {"y", "x"} == {next(iter(k for k in ("x", "y") if k in layer["encoding"]))
                          for layer in rule_layers}


@pytest.mark.parametrize("name", ["title", "description", "x_title", "y_title"])
def test_missing_text_is_refused(frame, name):
    with pytest.raises(ValueError, match=name):
        build(frame, **{name: ""})


def test_unknown_columns_are_refused(frame):
    with pytest.raises(ValueError, match="lacks column"):
        build(frame, y="nope")
    with pytest.raises(ValueError, match="y_rules"):
        build(frame, y_rules=pd.DataFrame({"value": [1]}))


# ------------------------------------------------------------------ speedup_chart


@pytest.fixture
def speedups():
    return pd.DataFrame({
        "cpus": [1, 2, 4, 8, 1, 2, 4],
        "speedup": [1.0, 1.65, 2.7225, 4.49, 1.0, 2.0, 4.0],
        "series": ["65 %"] * 4 + ["100 %"] * 3,
        "figures": ["F1, F5"] * 4 + ["F2"] * 3,
    })


def speedup(frame, **overrides):
    kwargs = dict(cpus="cpus", speedup="speedup", series="series", title="T",
                  description="D", series_title="Stated factor",
                  tooltip_fields=[("figures", "Figures")])
    kwargs.update(overrides)
    return charts.speedup_chart(frame, **kwargs)


def test_speedup_chart_has_linear_reference_points_and_tooltips(speedups):
    spec = speedup(speedups).to_dict()
    assert spec["title"] == "T" and spec["description"] == "D"
    reference = spec["layer"][0]
    assert reference["mark"]["strokeDash"] and reference["mark"]["type"] == "line"
    data = spec["datasets"][reference["data"]["name"]]
    assert [(d["n"], d["s"]) for d in data] == [(1, 1), (8, 8)]
    points = spec["layer"][3]
    assert points["mark"]["type"] == "point"
    tips = {t["field"]: t.get("title") for t in points["encoding"]["tooltip"]}
    assert tips == {"series": "Stated factor", "figures": "Figures", "cpus": "CPUs",
                    "speedup": "Speedup over one CPU (×)"}


def test_speedup_chart_ticks_are_the_cpu_counts_and_series_keep_data_order(speedups):
    line = speedup(speedups).to_dict()["layer"][2]
    assert line["encoding"]["x"]["axis"]["values"] == [1, 2, 4, 8]
    assert line["encoding"]["color"]["scale"]["domain"] == ["65 %", "100 %"]
    assert line["encoding"]["color"]["legend"]["orient"] == "bottom"


@pytest.mark.parametrize("name", ["title", "description", "series_title", "linear_label"])
def test_speedup_chart_refuses_missing_text(speedups, name):
    with pytest.raises(ValueError, match=name):
        speedup(speedups, **{name: " "})


def test_speedup_chart_refuses_unknown_columns(speedups):
    with pytest.raises(ValueError, match="lacks column"):
        speedup(speedups, tooltip_fields=[("nope", "Nope")])
