"""The builder of the thread-pool-model chapter: model curves in a grid of small panels, a row
per quantity and a column per setting, with one legend that highlights a series everywhere."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd
import pytest

from queuetune import charts, thread_pool


@pytest.fixture(scope="module")
def curves():
    clients = np.arange(1, 31)
    frames = []
    for capacity in (20, 10):  # deliberately not in ascending order
        for threads in (4, 1):
            res = thread_pool(clients=clients, capacity=capacity, threads=threads, cpu_time=0.05,
                              wait_time=0.1, think_time=4.0, method="fes")
            frames.append(pd.DataFrame({
                "clients": clients, "pool": f"T = {threads}", "queue": f"B = {capacity}",
                "throughput": res.throughput, "refused": res.rejection_probability,
            }))
    return pd.concat(frames, ignore_index=True)


def build(curves, **overrides):
    kwargs = dict(
        x="clients", series="pool", column="queue",
        panels=[("throughput", "Throughput (1/s)", ".2f"), ("refused", "Share refused", ".4f")],
        title="T", description="D", x_title="Clients (K)", series_title="Thread pool",
        column_title="Connection queue", marks_at=[10, 20, 30])
    kwargs.update(overrides)
    return charts.curve_panels_chart(curves, **kwargs)


def test_one_row_per_quantity_with_title_description_and_y_titles(curves):
    spec = build(curves).to_dict()
    assert spec["title"] == "T" and spec["description"] == "D"
    assert len(spec["vconcat"]) == 2
    y_titles = [row["spec"]["layer"][0]["encoding"]["y"]["title"] for row in spec["vconcat"]]
    assert y_titles == ["Throughput (1/s)", "Share refused"]
    # the x title only under the last row; the column headers only over the first
    x_titles = [row["spec"]["layer"][0]["encoding"]["x"].get("title", "") for row in
                spec["vconcat"]]
    assert x_titles == [None, "Clients (K)"]
    assert spec["vconcat"][0]["facet"]["column"]["title"] == "Connection queue"
    assert spec["vconcat"][1]["facet"]["column"]["header"]["labels"] is False


def test_columns_and_series_keep_their_order_of_appearance(curves):
    spec = build(curves).to_dict()
    row = spec["vconcat"][0]
    assert row["facet"]["column"]["sort"] == ["B = 20", "B = 10"]
    colour = row["spec"]["layer"][0]["encoding"]["color"]
    assert colour["scale"]["domain"] == ["T = 4", "T = 1"]
    assert len(set(colour["scale"]["range"])) == 2


def test_tooltips_give_exact_values_with_the_panel_format(curves):
    spec = build(curves).to_dict()
    for row, (field, fmt) in zip(spec["vconcat"], [("throughput", ".2f"), ("refused", ".4f")],
                                 strict=True):
        tips = {t["field"]: t for t in row["spec"]["layer"][1]["encoding"]["tooltip"]}
        assert set(tips) == {"pool", "queue", "clients", field}
        assert tips[field]["format"] == fmt
        assert row["spec"]["layer"][1]["mark"]["opacity"] == 0  # the hover target


def test_one_legend_selection_fades_the_other_series_in_every_row(curves):
    spec = build(curves).to_dict()
    # Altair lifts the selection to the top level, naming the one view that defines it
    defined = spec["params"]
    assert len(defined) == 1 and defined[0]["bind"] == "legend"
    assert len(defined[0]["views"]) == 1
    assert defined[0]["select"]["fields"] == ["pool"]
    for row in spec["vconcat"]:
        opacity = row["spec"]["layer"][0]["encoding"]["opacity"]
        assert opacity["condition"]["param"] == defined[0]["name"]
        assert opacity["value"] == charts.FADED_OPACITY


def test_marks_only_at_the_chosen_x(curves):
    spec = build(curves).to_dict()
    marked = spec["vconcat"][0]["spec"]["layer"][2]
    assert marked["transform"][0]["filter"]["oneOf"] == [10.0, 20.0, 30.0]
    unmarked = build(curves, marks_at=()).to_dict()
    assert len(unmarked["vconcat"][0]["spec"]["layer"]) == 2


def test_data_embedded_once_for_all_rows(curves):
    spec = build(curves).to_dict()
    assert len(spec["datasets"]) == 1
    (rows,) = spec["datasets"].values()
    assert len(rows) == len(curves)


def test_compiles_to_vega(curves):
    import vl_convert as vlc

    vega = vlc.vegalite_to_vega(build(curves).to_dict())
    assert vega["description"] == "D"
    assert isinstance(build(curves), alt.VConcatChart)


@pytest.mark.parametrize("name", ["title", "description", "x_title", "series_title",
                                  "column_title"])
def test_missing_text_is_refused(curves, name):
    with pytest.raises(ValueError, match=name):
        build(curves, **{name: " "})


def test_missing_columns_and_empty_panels_are_refused(curves):
    with pytest.raises(ValueError, match="lacks column"):
        build(curves, panels=[("busy", "Busy threads", ".2f")])
    with pytest.raises(ValueError, match="at least one"):
        build(curves, panels=[])
    with pytest.raises(ValueError, match="y_title"):
        build(curves, panels=[("throughput", "", ".2f")])


def _measured(curves):
    at = curves[curves["clients"].isin([10, 20])]
    return at[["clients", "queue", "throughput", "refused"]].assign(
        throughput=lambda f: f["throughput"] * 0.9).drop_duplicates(["clients", "queue"])


def test_measured_points_are_unjoined_circles_with_their_own_legend(curves):
    measured = _measured(curves)
    spec = build(curves, measured=measured, measured_name="measured on Tomcat").to_dict()
    (rows,) = spec["datasets"].values()
    assert len(rows) == len(curves) + len(measured)
    for row in spec["vconcat"]:
        layers = row["spec"]["layer"]
        assert layers[0]["transform"][0]["filter"] == "(datum._kind === 'curve')"
        points = layers[-1]
        assert points["mark"]["type"] == "point" and points["mark"]["filled"] is False
        assert points["transform"] == [{"filter": "(datum._kind === 'measured on Tomcat')"}]
        assert points["encoding"]["shape"]["scale"]["domain"] == ["measured on Tomcat"]
        assert "color" not in points["encoding"]  # black, not a series colour


def test_measured_needs_every_panel_quantity(curves):
    with pytest.raises(ValueError, match="refused"):
        build(curves, measured=_measured(curves).drop(columns="refused"))
