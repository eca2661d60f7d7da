"""The bar, range and reference chart builders used by the domino-curves chapter."""

from __future__ import annotations

import pandas as pd
import pytest
import vl_convert

from queuetune import charts


def svg(chart) -> str:
    """The chart drawn by Vega (fails on a spec that does not compile or render)."""
    return vl_convert.vegalite_to_svg(chart.to_dict())


# -- bar_chart --------------------------------------------------------------------------------

@pytest.fixture
def memory():
    return pd.DataFrame({"system": ["B system", "A system"], "mb": [512, 1280],
                         "printed": ["512MB", "1280MB"]})


def bars(frame, **overrides):
    kwargs = dict(category="system", value="mb", title="T", description="D",
                  category_title="System", value_title="Memory (MB)", value_format="d",
                  tooltip_fields=[("printed", "As printed")])
    kwargs.update(overrides)
    return charts.bar_chart(frame, **kwargs)


def test_bar_chart_keeps_data_order_and_labels_each_bar(memory):
    spec = bars(memory).to_dict()
    assert spec["title"] == "T" and spec["description"] == "D"
    assert spec["width"] == charts.NARROW_WIDTH
    bar, text = spec["layer"]
    assert bar["encoding"]["y"]["sort"] == ["B system", "A system"]
    assert bar["encoding"]["x"]["title"] == "Memory (MB)"
    assert {t["title"] for t in bar["encoding"]["tooltip"]} == {"System", "As printed",
                                                               "Memory (MB)"}
    assert text["encoding"]["text"]["field"] == "_label"
    drawn = svg(bars(memory))
    assert "1280" in drawn and "B system" in drawn


def test_bar_chart_uses_a_given_label_column(memory):
    spec = bars(memory, label="printed").to_dict()
    assert spec["layer"][1]["encoding"]["text"]["field"] == "printed"


@pytest.mark.parametrize("name", ["title", "description", "category_title", "value_title"])
def test_bar_chart_needs_its_texts(memory, name):
    with pytest.raises(ValueError, match=name):
        bars(memory, **{name: ""})


def test_bar_chart_refuses_unknown_columns(memory):
    with pytest.raises(ValueError, match="lacks column"):
        bars(memory, tooltip_fields=[("nope", "Nope")])


# -- range_chart ------------------------------------------------------------------------------

@pytest.fixture
def ranges():
    return pd.DataFrame({"what": ["Groupware", "Mail", "Database"], "lo": [20, 15, 0],
                         "hi": [20, 20, 10], "kind": ["single", "range", "range"]})


def span(frame, **overrides):
    kwargs = dict(category="what", low="lo", high="hi", title="T", description="D",
                  category_title="Workload", value_title="Less CPU (%)")
    kwargs.update(overrides)
    return charts.range_chart(frame, **kwargs)


def test_range_chart_draws_a_bar_and_both_ends(ranges):
    spec = span(ranges).to_dict()
    bar, low_end, high_end = spec["layer"]
    assert bar["mark"]["type"] == "rule"
    assert bar["encoding"]["x"]["field"] == "lo" and bar["encoding"]["x2"]["field"] == "hi"
    assert low_end["encoding"]["x"]["field"] == "lo"
    assert high_end["encoding"]["x"]["field"] == "hi"
    tips = [t["title"] for t in bar["encoding"]["tooltip"]]
    assert tips == ["Workload", "Less CPU (%), from", "Less CPU (%), to"]
    assert bar["encoding"]["y"]["sort"] == ["Groupware", "Mail", "Database"]
    assert "Groupware" in svg(span(ranges))


def test_range_chart_colours_a_series_with_a_legend(ranges):
    spec = span(ranges, series="kind", series_title="Kind").to_dict()
    encoding = spec["layer"][0]["encoding"]
    colour = encoding["color"]
    assert colour["scale"]["domain"] == ["single", "range"]
    assert colour["title"] == "Kind"
    assert "Kind" in [t["title"] for t in encoding["tooltip"]]


def test_range_chart_refuses_reversed_ranges(ranges):
    with pytest.raises(ValueError, match="lo <= hi"):
        span(ranges.assign(lo=[30, 15, 0]))


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
