"""The bar and range chart builders used by the domino-curves chapter (its reference chart:
tests/charts/test_diagrams.py)."""

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
