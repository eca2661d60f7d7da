"""The two builders of the domino-keepalive chapter: measurements against a setting (with rows
whose setting is not stated drawn as rules), and points with a fitted curve, band and
predictions."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd
import pytest

from queuetune import charts, data
from queuetune.documents.domino_keepalive import amortization


@pytest.fixture
def results():
    return data.load("domino-keepalive", "persistent_connection_results")


def panels(results, **overrides):
    kwargs = dict(
        x="requests_per_connection",
        panels=[("average_request_time_ms", "Average request time (ms)", "d"),
                ("total_run_time_s", "Total run time (s)", "d")],
        label="test", title="T", description="D", x_title="Requests per connection",
        label_title="Test", measured_name="stated setting", reference_name="TLS (not stated)")
    kwargs.update(overrides)
    return charts.settings_panels_chart(results, **kwargs)


def test_one_panel_per_quantity_with_title_and_description(results):
    spec = panels(results).to_dict()
    assert spec["title"] == "T" and spec["description"] == "D"
    assert len(spec["vconcat"]) == 2
    y_titles = [p["layer"][0]["encoding"]["y"]["title"] for p in spec["vconcat"]]
    assert y_titles == ["Average request time (ms)", "Total run time (s)"]


def test_rows_without_a_setting_become_rules_in_their_own_colour(results):
    spec = panels(results).to_dict()
    panel = spec["vconcat"][0]
    marks = [layer["mark"]["type"] for layer in panel["layer"]]
    assert marks == ["line", "point", "rule"]
    rule = panel["layer"][2]
    datasets = spec["datasets"]
    rule_rows = datasets[rule["data"]["name"]]
    assert [r["test"] for r in rule_rows] == ["TLS connection"]
    point_rows = datasets[panel["layer"][1]["data"]["name"]]
    assert sorted(r["requests_per_connection"] for r in point_rows) == [5, 10, 100]
    colour = panel["layer"][0]["encoding"]["color"]["scale"]
    assert colour["domain"] == ["stated setting", "TLS (not stated)"]
    assert len(set(colour["range"])) == 2


def test_panels_tooltips_give_exact_values_and_the_label(results):
    panel = panels(results).to_dict()["vconcat"][1]
    tips = {t["field"]: t for t in panel["layer"][1]["encoding"]["tooltip"]}
    assert set(tips) == {"test", "requests_per_connection", "total_run_time_s"}
    assert tips["total_run_time_s"]["title"] == "Total run time (s)"
    rule_tips = {t["field"] for t in panel["layer"][2]["encoding"]["tooltip"]}
    assert rule_tips == {"test", "total_run_time_s"}


def test_panels_log_axis_ticks_at_the_measured_settings(results):
    x = panels(results).to_dict()["vconcat"][0]["layer"][0]["encoding"]["x"]
    assert x["scale"]["type"] == "log"
    assert x["axis"]["values"] == [5.0, 10.0, 100.0]


def test_panels_without_references_have_one_legend_entry(results):
    spec = panels(results.dropna()).to_dict()
    panel = spec["vconcat"][0]
    assert [layer["mark"]["type"] for layer in panel["layer"]] == ["line", "point"]
    assert panel["layer"][0]["encoding"]["color"]["scale"]["domain"] == ["stated setting"]


@pytest.mark.parametrize("name", ["title", "description", "x_title", "measured_name",
                                  "reference_name"])
def test_panels_refuse_missing_text(results, name):
    with pytest.raises(ValueError, match=name):
        panels(results, **{name: " "})


def test_panels_refuse_bad_input(results):
    with pytest.raises(ValueError, match="at least one"):
        panels(results, panels=[])
    with pytest.raises(ValueError, match="lacks column"):
        panels(results, panels=[("nope", "Nope (ms)", "d")])
    with pytest.raises(ValueError, match="no row of data"):
        panels(results[results["requests_per_connection"].isna()])


@pytest.fixture
def fitted(results):
    measured = results.dropna().rename(columns={"requests_per_connection": "n"})
    fit = amortization.fit_setup_cost(measured["n"], measured["average_request_time_ms"])
    grid = np.array([4, 5, 10, 20, 40, 100, 150])
    low, high = fit.band(grid)
    curve = pd.DataFrame({"n": grid, "fit": fit.predict(grid), "low": low, "high": high})
    predictions = pd.DataFrame({"n": [40], "average_request_time_ms": [fit.predict(40)]})
    return measured, curve, predictions


def fit_chart(fitted, **overrides):
    measured, curve, predictions = fitted
    kwargs = dict(x="n", y="average_request_time_ms", fit="fit", low="low", high="high",
                  title="T", description="D", x_title="Requests per connection",
                  y_title="Average request time (ms)", measured_name="measured",
                  fit_name="fitted", band_name="95 % band", predictions=predictions,
                  prediction_name="model prediction (not measured)", label="test",
                  label_title="Test")
    kwargs.update(overrides)
    return charts.fit_chart(measured, curve, **kwargs)


def test_fit_chart_layers_band_line_points_predictions(fitted):
    spec = fit_chart(fitted).to_dict()
    assert spec["title"] == "T" and spec["description"] == "D"
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["area", "line", "point", "point"]
    band = spec["layer"][0]["encoding"]
    assert band["y"]["field"] == "low" and band["y2"]["field"] == "high"
    assert band["fill"]["scale"]["domain"] == ["95 % band"]


def test_fit_chart_legend_tells_measured_from_predicted(fitted):
    spec = fit_chart(fitted).to_dict()
    colour = spec["layer"][2]["encoding"]["color"]["scale"]
    shape = spec["layer"][2]["encoding"]["shape"]["scale"]
    names = ["measured", "fitted", "model prediction (not measured)"]
    assert colour["domain"] == names and shape["domain"] == names
    assert shape["range"] == ["circle", "stroke", "diamond"]
    assert len(set(colour["range"])) == 3
    kinds = [layer["transform"][0]["calculate"] for layer in spec["layer"]]
    assert kinds == ["'95 % band'", "'fitted'", "'measured'",
                     "'model prediction (not measured)'"]


def test_fit_chart_tooltips(fitted):
    spec = fit_chart(fitted).to_dict()
    band_tips = [t["title"] for t in spec["layer"][0]["encoding"]["tooltip"]]
    assert band_tips == ["Requests per connection", "95 % band, low", "95 % band, high"]
    point_tips = {t["field"]: t for t in spec["layer"][2]["encoding"]["tooltip"]}
    assert set(point_tips) == {"test", "n", "average_request_time_ms"}
    assert point_tips["average_request_time_ms"]["format"] == ".1f"
    prediction_tips = [t["title"] for t in spec["layer"][3]["encoding"]["tooltip"]]
    assert prediction_tips[-1] == "model prediction (not measured)"


def test_fit_chart_ticks_at_measured_and_predicted_settings(fitted):
    x = fit_chart(fitted).to_dict()["layer"][1]["encoding"]["x"]
    assert x["axis"]["values"] == [5.0, 10.0, 40.0, 100.0]


def test_fit_chart_y_domain_clips_every_layer(fitted):
    spec = fit_chart(fitted, y_domain=(0, 250)).to_dict()
    assert spec["layer"][0]["encoding"]["y"]["scale"]["domain"] == [0, 250]
    assert all(layer["mark"]["clip"] for layer in spec["layer"])
    unclipped = fit_chart(fitted).to_dict()
    assert not any(layer["mark"]["clip"] for layer in unclipped["layer"])


def test_fit_chart_without_predictions(fitted):
    spec = fit_chart(fitted, predictions=None, prediction_name=None).to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["area", "line", "point"]


def test_fit_chart_refuses_bad_input(fitted):
    with pytest.raises(ValueError, match="y_domain"):
        fit_chart(fitted, y_domain=(250, 0))
    with pytest.raises(ValueError, match="prediction_name"):
        fit_chart(fitted, prediction_name=None)
    with pytest.raises(ValueError, match="band_name"):
        fit_chart(fitted, band_name="")
    with pytest.raises(ValueError, match="lacks column"):
        fit_chart(fitted, low="nope")


def test_names_with_quotes_survive_the_vega_expression(fitted):
    spec = fit_chart(fitted, measured_name="client's measurement").to_dict()
    assert spec["layer"][2]["transform"][0]["calculate"] == "'client\\'s measurement'"
    assert isinstance(fit_chart(fitted), alt.LayerChart)


def test_goodness_of_fit_chart_has_two_panels_tooltips_and_text():
    frame = pd.DataFrame({"obs": [1.0, 2.0, 3.0], "fit": [1.1, 1.9, 3.2],
                          "res": [-0.1, 0.1, -0.2], "users": [10, 20, 40],
                          "model": ["a", "a", "b"]})
    chart = charts.goodness_of_fit_chart(
        frame, observed="obs", fitted="fit", residual="res", x="users", series="model",
        title="T", description="D", value_title="R (s)", x_title="Users",
        residual_title="Residual", series_title="Model")
    spec = chart.to_dict()
    assert spec["title"] == "T" and spec["description"] == "D"
    assert len(spec["hconcat"]) == 2
    scatter = spec["hconcat"][0]["layer"][1]["encoding"]
    assert {t["field"] for t in scatter["tooltip"]} >= {"obs", "fit", "res", "users", "model"}
    with pytest.raises(ValueError, match="lacks column"):
        charts.goodness_of_fit_chart(
            frame, observed="nope", fitted="fit", residual="res", x="users",
            series="model", title="T", description="D", value_title="R (s)",
            x_title="Users", residual_title="Residual", series_title="Model")


def test_fit_chart_band_at_settings_draws_bars_not_an_area(fitted):
    """A band wider than the chart, drawn as an area, greys the whole plot: drawn at the
    measured and predicted settings, it leaves the points and the curve on white."""
    spec = fit_chart(fitted, y_domain=(0, 250), band_at_settings=True).to_dict()
    band = spec["layer"][0]
    assert band["mark"]["type"] == "rule" and band["mark"]["clip"] is True
    assert band["encoding"]["stroke"]["scale"]["domain"] == ["95 % band"]
    assert band["encoding"]["y"]["field"] == "low" and band["encoding"]["y2"]["field"] == "high"
    kept = band["transform"][-1]["filter"]
    assert kept["field"] == "n" and kept["oneOf"] == [5.0, 10.0, 40.0, 100.0]
    assert spec["resolve"]["legend"] == {"stroke": "independent"}
    measured, curve, predictions = fitted
    with pytest.raises(ValueError, match=r"it lacks \[40.0\]"):
        charts.fit_chart(measured, curve[curve["n"] != 40], x="n", y="average_request_time_ms",
                         fit="fit", low="low", high="high", title="T", description="D",
                         x_title="n", y_title="t", measured_name="m", fit_name="f",
                         band_name="b", predictions=predictions, prediction_name="p",
                         band_at_settings=True)
