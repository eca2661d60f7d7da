"""The heat-map and interval chart builders used by the domino-threads chapter."""

from __future__ import annotations

import pandas as pd
import pytest

from queuetune import charts


@pytest.fixture
def cells():
    rows = [(m, u, t, v + shift) for m, shift in (("A", 0.0), ("B", -30.0))
            for u in (25, 200) for t, v in ((10, 0.0), (50, 12.5), (200, -25.0))]
    frame = pd.DataFrame(rows, columns=["measure", "users", "threads", "change"])
    frame["as_printed"] = frame["change"].map("{:.2f} s".format)
    return frame


def heat(frame, **overrides):
    kwargs = dict(x="threads", y="users", value="change", title="T", description="D",
                  x_title="HTTP threads", y_title="Users", value_title="Change (%)",
                  value_format="+.0f")
    kwargs.update(overrides)
    return charts.heatmap(frame, **kwargs)


def test_heatmap_has_title_description_axes_and_exact_tooltips(cells):
    spec = heat(cells, tooltip_fields=[("as_printed", "Measured")]).to_dict()
    assert spec["title"] == "T" and spec["description"] == "D"
    rect, text = spec["layer"]
    assert rect["mark"]["type"] == "rect" and text["mark"]["type"] == "text"
    assert rect["encoding"]["x"]["title"] == "HTTP threads"
    assert rect["encoding"]["y"]["title"] == "Users"
    assert rect["encoding"]["x"]["type"] == "ordinal"
    assert rect["encoding"]["x"]["sort"] == [10, 50, 200]
    assert rect["encoding"]["x"]["axis"]["grid"] is False
    tips = {t["field"]: t for t in rect["encoding"]["tooltip"]}
    assert tips["change"]["format"] == "+.0f"
    assert tips["as_printed"]["title"] == "Measured"
    assert set(tips) == {"users", "threads", "change", "as_printed"}


def test_heatmap_labels_cells_with_the_formatted_value(cells):
    chart = heat(cells)
    labels = chart.data["_label"].tolist()
    assert labels == [format(v, "+.0f") for v in cells["change"]]
    assert chart.to_dict()["layer"][1]["encoding"]["text"]["field"] == "_label"
    assert "_label" not in cells.columns  # the caller's frame is left alone


def test_heatmap_diverging_scale_is_symmetric_around_zero(cells):
    scale = heat(cells, diverging=True).to_dict()["layer"][0]["encoding"]["color"]["scale"]
    extent = cells["change"].abs().max()
    assert scale["domain"] == [-extent, extent]
    assert scale["domainMid"] == 0
    sequential = heat(cells).to_dict()["layer"][0]["encoding"]["color"]["scale"]
    assert "domainMid" not in sequential


def test_heatmap_facets_in_order_of_appearance(cells):
    spec = heat(cells.iloc[::-1], facet="measure", facet_title="Measure",
                facet_columns=2).to_dict()
    assert spec["facet"]["field"] == "measure"
    assert spec["facet"]["sort"] == ["B", "A"]
    assert spec["columns"] == 2
    assert spec["title"] == "T" and spec["description"] == "D"
    tips = {t["field"]: t["title"] for t in spec["spec"]["layer"][0]["encoding"]["tooltip"]}
    assert tips["measure"] == "Measure"


@pytest.mark.parametrize("name", ["title", "description", "x_title", "y_title", "value_title"])
def test_heatmap_refuses_missing_text(cells, name):
    with pytest.raises(ValueError, match=name):
        heat(cells, **{name: " "})


def test_heatmap_refuses_unknown_columns_and_bad_facet_columns(cells):
    with pytest.raises(ValueError, match="lacks column"):
        heat(cells, tooltip_fields=[("nope", "Nope")])
    with pytest.raises(ValueError, match="facet_columns must be an integer >= 1"):
        heat(cells, facet="measure", facet_columns=0)


@pytest.fixture
def estimates():
    return pd.DataFrame({"load": ["25 users", "200 users"], "est": [338.0, 433.0],
                         "lo": [241.0, 388.0], "hi": [435.0, 477.0]})


def interval(frame, **overrides):
    kwargs = dict(category="load", estimate="est", low="lo", high="hi", title="T",
                  description="D", category_title="Load", value_title="KB per thread",
                  value_format=".0f")
    kwargs.update(overrides)
    return charts.interval_chart(frame, **kwargs)


def test_interval_chart_points_intervals_and_tooltips(estimates):
    spec = interval(estimates).to_dict()
    assert spec["title"] == "T" and spec["description"] == "D"
    rules_layer, points = spec["layer"]
    assert rules_layer["mark"]["type"] == "rule" and points["mark"]["type"] == "point"
    assert rules_layer["encoding"]["x"]["field"] == "lo"
    assert rules_layer["encoding"]["x2"]["field"] == "hi"
    assert rules_layer["encoding"]["x"]["title"] == "KB per thread"
    assert points["encoding"]["y"]["sort"] == ["25 users", "200 users"]
    tips = {t["field"]: t for t in points["encoding"]["tooltip"]}
    assert {"load", "est", "lo", "hi"} == set(tips)
    assert tips["est"]["format"] == ".0f"


def test_interval_chart_shades_the_reference_band(estimates):
    chart = interval(estimates, reference=(20, 40), reference_label="stated")
    band = chart.layer[0]
    assert band.data[["ref_low", "ref_high"]].iloc[0].tolist() == [20.0, 40.0]
    assert band.data["ref_label"].iloc[0] == "stated"
    assert len(chart.to_dict()["layer"]) == 4


def test_interval_chart_refuses_a_reversed_band_and_missing_text(estimates):
    with pytest.raises(ValueError, match="reference must be"):
        interval(estimates, reference=(40, 20))
    with pytest.raises(ValueError, match="value_title"):
        interval(estimates, value_title="")
    with pytest.raises(ValueError, match="lacks column"):
        interval(estimates, high="nope")


def test_heatmap_for_a_dense_grid_has_plain_small_cells_and_one_shade_per_level():
    """Hundreds of cells: no number in each, smaller cells, a few distinct levels in the
    legend, thinned x labels; the tooltip still gives every value."""
    frame = pd.DataFrame([(x / 20, y, (x + y) % 4 + 1) for x in range(1, 21) for y in range(10)],
                         columns=["share", "overhead", "held"])
    spec = heat(frame, x="share", y="overhead", value="held", value_format="d",
                cell_labels=False, cell_size=(16, 14), levels=True).to_dict()
    layers = spec["layer"]
    assert [layer["mark"]["type"] for layer in layers] == ["rect"]
    colour = layers[0]["encoding"]["color"]
    assert colour["type"] == "ordinal" and colour["legend"]["orient"] == "bottom"
    assert spec["width"] == {"step": 16} and spec["height"] == {"step": 14}
    assert layers[0]["encoding"]["x"]["axis"]["labelOverlap"] == "parity"
    assert {t["field"] for t in layers[0]["encoding"]["tooltip"]} == {"share", "overhead", "held"}
    with pytest.raises(ValueError, match="cell_size must be"):
        heat(frame, x="share", y="overhead", value="held", cell_size=(2, 14))


def test_heatmap_defaults_keep_labelled_cells(cells):
    spec = heat(cells).to_dict()
    assert spec["width"] == {"step": 32} and spec["height"] == {"step": 24}
    assert "labelOverlap" not in spec["layer"][0]["encoding"]["x"]["axis"]


def test_stacked_count_chart_keeps_its_legend_below_a_narrow_plot():
    frame = pd.DataFrame({"document": ["a", "a", "b", "b", "b"],
                          "status": ["reproduced", "recomputed", "reproduced",
                                     "not reproducible", "reproduced"]})
    spec = charts.stacked_count_chart(
        frame, category="document", stack="status", title="T", description="D",
        category_title="Document", stack_title="Status",
        stack_order=["reproduced", "recomputed", "not reproducible"]).to_dict()
    legend = spec["encoding"]["color"]["legend"]
    assert legend["orient"] == "bottom"
    assert spec["width"] == charts.NARROW_WIDTH
    assert spec["encoding"]["color"]["scale"]["domain"] == ["reproduced", "recomputed",
                                                             "not reproducible"]
