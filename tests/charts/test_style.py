"""The chart builders give every chart a title, a description, unit-bearing axes and tooltips."""

from __future__ import annotations

import json
import re

import altair as alt
import numpy as np
import pandas as pd
import pytest

from queuetune import charts, data


@pytest.fixture
def frame():
    return data.load("domino-threads", "webmail_response_time")


def build(frame, **overrides):
    kwargs = dict(x="users", y="response_time_s", series="http_threads", title="T",
                  description="D", x_title="Users", y_title="Response time (s)",
                  series_title="HTTP threads", y_format=".3f")
    kwargs.update(overrides)
    return charts.line_chart(frame, **kwargs)


def test_line_chart_carries_title_description_axes_and_tooltips(frame):
    spec = build(frame).to_dict()
    assert spec["title"] == "T"
    assert spec["description"] == "D"
    layer = spec["layer"][0]
    assert layer["encoding"]["x"]["title"] == "Users"
    assert layer["encoding"]["y"]["title"] == "Response time (s)"
    tips = {t["field"]: t for t in layer["encoding"]["tooltip"]}
    assert tips["response_time_s"]["format"] == ".3f"
    assert set(tips) == {"users", "response_time_s", "http_threads"}


def test_legend_selection_highlights_a_series(frame):
    spec = build(frame).to_dict()
    params = spec["params"]
    assert params[0]["bind"] == "legend"
    assert params[0]["select"]["fields"] == ["http_threads"]
    opacity = spec["layer"][0]["encoding"]["opacity"]
    assert opacity["condition"]["param"] == params[0]["name"]
    assert opacity["value"] == charts.FADED_OPACITY


def test_series_in_numeric_order_with_distinct_colours(frame):
    colour = build(frame).to_dict()["layer"][0]["encoding"]["color"]
    assert colour["scale"]["domain"] == [10, 25, 50, 100, 200]
    assert "range" not in colour["scale"]  # the theme's category colours, all distinct
    assert len(set(charts.PALETTE)) == len(charts.PALETTE) >= 5


def test_palette_repeats_beyond_its_length():
    colours = charts.palette(len(charts.PALETTE) + 2)
    assert colours[len(charts.PALETTE)] == charts.PALETTE[0]


@pytest.mark.parametrize("name", ["title", "description", "x_title", "y_title"])
def test_missing_text_is_refused(frame, name):
    with pytest.raises(ValueError, match=name):
        build(frame, **{name: "  "})


def test_unknown_column_is_refused(frame):
    with pytest.raises(ValueError, match="lacks column"):
        build(frame, y="nope")


def test_enable_uses_the_offline_html_renderer(monkeypatch, frame):
    monkeypatch.delenv("QUEUETUNE_LIVE", raising=False)
    charts.enable()
    html = build(frame)._repr_mimebundle_()["text/html"]
    assert "cdn.jsdelivr" not in html and "https://" not in html.replace(
        "https://vega.github.io/schema", "")
    assert '"renderer": "svg"' in html
    assert alt.theme.active == charts.THEME_NAME


def test_output_ids_come_from_the_chart(monkeypatch, frame):
    """The same chart gets the same output id in every session (a stored notebook does not
    change when re-run); a second display in one session gets its own id."""
    monkeypatch.delenv("QUEUETUNE_LIVE", raising=False)
    charts.enable()
    renderer = charts.StableHTMLRenderer()
    spec = build(frame).to_dict()
    first, again = renderer.div_id(spec), renderer.div_id(spec)
    assert re.fullmatch(r"altair-viz-[0-9a-f]{32}", first)
    assert again == f"{first}-2"
    assert charts.StableHTMLRenderer().div_id(spec) == first
    other = build(frame, title="Another title").to_dict()
    assert charts.StableHTMLRenderer().div_id(other) != first
    html = build(frame)._repr_mimebundle_()["text/html"]
    assert len(set(re.findall(r"altair-viz-[0-9a-f]{32}", html))) == 1


def test_a_chart_whose_numbers_differ_in_the_last_bits_is_stored_the_same(monkeypatch, frame):
    """Another processor computes the chart's numbers a few ulps apart: the stored page, its
    dataset's name and the output id are the same; a change the stored digits show changes
    them."""
    monkeypatch.delenv("QUEUETUNE_LIVE", raising=False)
    charts.enable()
    numeric = frame.select_dtypes("float").columns
    assert len(numeric) > 0

    def stored(data):
        spec = build(data).to_dict()
        renderer = charts.StableHTMLRenderer()
        return renderer.div_id(spec), json.dumps(charts.compact_spec(spec), sort_keys=True)

    here = stored(frame)
    nudged = frame.copy()
    nudged[numeric] = np.nextafter(np.nextafter(frame[numeric].to_numpy(), np.inf), np.inf)
    assert not nudged[numeric].equals(frame[numeric])
    assert stored(nudged) == here
    assert build(nudged).to_dict()["datasets"].keys() != build(frame).to_dict()["datasets"].keys()
    shown = frame.copy()
    shown[numeric[0]] = frame[numeric[0]] * (1 + 1e-4)
    moved = stored(shown)
    assert moved[0] != here[0] and moved[1] != here[1]
    renamed = json.loads(here[1])
    assert all(re.fullmatch(r"data-[0-9a-f]{32}", name) for name in renamed["datasets"])
    assert renamed["data"]["name"] in renamed["datasets"]


def test_stored_charts_carry_six_significant_digits(monkeypatch):
    """The stored page rounds the chart's numbers, not its meaning: every float keeps six
    significant digits (never fewer than its integer part), integers and text are untouched."""
    monkeypatch.delenv("QUEUETUNE_LIVE", raising=False)
    charts.enable()
    values = [0.24154589371980678, 1234567.891234, 2 / 3 * 1e-9, 7.0, -12.345678901]
    frame = pd.DataFrame({"x": range(len(values)), "y": values, "label": list("abcde")})
    chart = alt.Chart(frame).mark_point().encode(x="x:Q", y="y:Q", tooltip=["label:N"])
    html = chart._repr_mimebundle_()["text/html"]
    stored = [float(v) for v in re.findall(r'"y":([-0-9.e]+)', html)]
    assert stored == [0.241546, 1234567.9, 6.66667e-10, 7.0, -12.3457]
    for old, new in zip(values, stored, strict=True):
        assert new == pytest.approx(old, rel=5e-6)
    assert '"label":"e"' in html and '"x":4' in html
    layered = charts.compact_spec({"layer": [{"data": {"values": [{"v": 1 / 3}]}}]})
    assert layered == {"layer": [{"data": {"values": [{"v": 0.333333}]}}]}


def test_stored_charts_leave_out_only_columns_nothing_uses(monkeypatch):
    monkeypatch.delenv("QUEUETUNE_LIVE", raising=False)
    charts.enable()
    frame = pd.DataFrame({"x": [1, 2], "y": [3.0, 4.0], "tip": ["a", "b"], "unused": [5, 6],
                          "in_expression": [7, 8], "odd.name": [9, 10]})
    chart = alt.Chart(frame).mark_point().encode(x="x:Q", y="y:Q", tooltip=["tip:N"]) \
        .transform_calculate(twice="2 * datum.in_expression")
    html = chart._repr_mimebundle_()["text/html"]
    row = re.search(r'\{"x":1,[^}]*\}', html).group(0)
    assert "unused" not in html
    assert all(f'"{name}"' in row for name in ("y", "tip", "in_expression", "odd.name"))
    everything = alt.Chart(frame).mark_point(tooltip={"content": "data"}).encode(x="x:Q")
    assert '"unused":5' in everything._repr_mimebundle_()["text/html"]


@pytest.mark.parametrize("value", [0.0, -0.0, float("nan"), float("inf"), -float("inf")])
def test_stored_numbers_keep_zero_and_non_finite_values(value):
    out = charts.stored_number(value)
    assert out is value or (out != out and value != value)


def test_live_sessions_use_the_offline_widget_renderer(monkeypatch):
    monkeypatch.setenv("QUEUETUNE_LIVE", "1")
    try:
        charts.enable()
        assert alt.renderers.active == "jupyter"
    finally:
        monkeypatch.delenv("QUEUETUNE_LIVE")
        charts.enable()
    assert alt.renderers.active == charts.RENDERER_NAME


def test_theme_sets_sizes_and_palette():
    config = charts.theme()["config"]
    assert config["view"]["continuousWidth"] == charts.WIDTH
    assert config["range"]["category"] == charts.PALETTE


def test_tables_grid_keeps_source_layout():
    from queuetune import tables

    frame = pd.DataFrame({"u": [1, 1, 2, 2], "t": [5, 6, 5, 6], "v": [0.1, 0.2, 0.3, 0.4]})
    wide = tables.grid(frame, rows="u", columns="t", values="v", row_label="Users")
    assert wide.index.name == "Users"
    assert wide.loc[2, 6] == 0.4
    with pytest.raises(ValueError, match="missing cells"):
        tables.grid(frame.iloc[:3], rows="u", columns="t", values="v")
    with pytest.raises(ValueError, match="repeat"):
        tables.grid(pd.concat([frame, frame]), rows="u", columns="t", values="v")


def test_a_scale_domain_computed_from_the_data_is_stored_rounded(monkeypatch):
    """A domain computed from the data (the explorer's sliders set one) sits outside the
    datasets: a few ulps of it change neither the stored page nor the output id."""
    monkeypatch.delenv("QUEUETUNE_LIVE", raising=False)
    charts.enable()
    frame = pd.DataFrame({"x": [0.0, 1.0], "y": [0.5, 2.0]})
    top = 39.93725418643312

    def stored(high):
        spec = alt.Chart(frame).mark_line().encode(
            x="x:Q", y=alt.Y("y:Q", scale=alt.Scale(domain=[0.084, high]))).to_dict()
        renderer = charts.StableHTMLRenderer()
        return renderer.div_id(spec), json.dumps(charts.compact_spec(spec), sort_keys=True)

    here = stored(top)
    assert stored(float(np.nextafter(top, 0.0))) == here
    assert "39.9373" in here[1] and "39.93725418643312" not in here[1]
    assert stored(top * (1 + 1e-4)) != here
