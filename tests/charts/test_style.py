"""The chart builders give every chart a title, a description, unit-bearing axes and tooltips."""

from __future__ import annotations

import re

import altair as alt
import pandas as pd
import pytest

from queuelab import charts, data


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
    assert len(set(colour["scale"]["range"])) == 5


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
    monkeypatch.delenv("QUEUELAB_LIVE", raising=False)
    charts.enable()
    html = build(frame)._repr_mimebundle_()["text/html"]
    assert "cdn.jsdelivr" not in html and "https://" not in html.replace(
        "https://vega.github.io/schema", "")
    assert '"renderer": "svg"' in html
    assert alt.theme.active == charts.THEME_NAME


def test_output_ids_come_from_the_chart(monkeypatch, frame):
    """The same chart gets the same output id in every session (a stored notebook does not
    change when re-run); a second display in one session gets its own id."""
    monkeypatch.delenv("QUEUELAB_LIVE", raising=False)
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


def test_live_sessions_use_the_offline_widget_renderer(monkeypatch):
    monkeypatch.setenv("QUEUELAB_LIVE", "1")
    try:
        charts.enable()
        assert alt.renderers.active == "jupyter"
    finally:
        monkeypatch.delenv("QUEUELAB_LIVE")
        charts.enable()
    assert alt.renderers.active == charts.RENDERER_NAME


def test_theme_sets_sizes_and_palette():
    config = charts.theme()["config"]
    assert config["view"]["continuousWidth"] == charts.WIDTH
    assert config["range"]["category"] == charts.PALETTE


def test_tables_grid_keeps_source_layout():
    from queuelab import tables

    frame = pd.DataFrame({"u": [1, 1, 2, 2], "t": [5, 6, 5, 6], "v": [0.1, 0.2, 0.3, 0.4]})
    wide = tables.grid(frame, rows="u", columns="t", values="v", row_label="Users")
    assert wide.index.name == "Users"
    assert wide.loc[2, 6] == 0.4
    with pytest.raises(ValueError, match="missing cells"):
        tables.grid(frame.iloc[:3], rows="u", columns="t", values="v")
    with pytest.raises(ValueError, match="repeat"):
        tables.grid(pd.concat([frame, frame]), rows="u", columns="t", values="v")
