"""A chapter chooses a chart's colours: ``colors=`` and ``palette=`` of the builders, or its own
``configure_range``, which only works when the builders leave the scale's range to the
configuration. The colours are checked where a reader sees them: in the SVG that Vega draws."""

from __future__ import annotations

import re

import altair as alt
import pandas as pd
import pytest
import vl_convert as vlc

from queuetune import charts
from queuetune.charts import _common
from queuetune.charts._common import series_colours

CHOSEN = ["#112233", "#445566", "#778899"]


@pytest.fixture
def curves():
    ks = list(range(1, 11))
    return pd.DataFrame({
        "clients": ks * 3,
        "value": [k / 10 for k in ks] + [k / 20 for k in ks] + [k / 30 for k in ks],
        "series": ["model A"] * 10 + ["model B"] * 10 + ["bound"] * 10,
    })


def curve(curves, **overrides):
    kwargs = dict(x="clients", y="value", series="series", title="T", description="D",
                  x_title="Clients (K)", y_title="Value (s)", series_title="Curve")
    kwargs.update(overrides)
    return charts.curve_chart(curves, **kwargs)


def line_strokes(chart) -> list[str]:
    """The stroke colours of the lines Vega draws for ``chart``, in drawing order."""
    svg = vlc.vegalite_to_svg(chart.to_dict())
    paths = re.findall(r'<path[^>]*aria-roledescription="line mark"[^>]*>', svg)
    return [re.search(r'stroke="([^"]+)"', p).group(1).lower() for p in paths]


def test_by_default_the_series_take_the_theme_palette(curves):
    charts.enable()
    assert line_strokes(curve(curves)) == [c.lower() for c in charts.PALETTE[:3]]


def test_a_chapter_recolours_a_chart_with_configure_range(curves):
    chart = curve(curves).configure_range(category=CHOSEN)
    assert line_strokes(chart) == [c.lower() for c in CHOSEN]


def test_palette_and_colors_choose_the_colours(curves):
    assert line_strokes(curve(curves, palette=CHOSEN)) == [c.lower() for c in CHOSEN]
    coloured = curve(curves, colors={"model B": "#ff0000"}, palette=CHOSEN)
    assert line_strokes(coloured) == ["#112233", "#ff0000", "#778899"]


@pytest.mark.parametrize("builder", ["line_chart", "step_chart"])
def test_series_builders_take_a_palette(curves, builder):
    chart = getattr(charts, builder)(curves, x="clients", y="value", series="series", title="T",
                                     description="D", x_title="Clients", y_title="Value (s)",
                                     palette=CHOSEN)
    assert sorted(line_strokes(chart)) == sorted(c.lower() for c in CHOSEN)


def test_fit_chart_kinds_take_colors():
    points = pd.DataFrame({"n": [5, 10, 100], "t": [180.0, 97.0, 81.0]})
    curve_rows = pd.DataFrame({"n": [5, 10, 100], "fit": [170.0, 100.0, 82.0],
                               "low": [150.0, 90.0, 70.0], "high": [190.0, 110.0, 90.0]})
    chart = charts.fit_chart(points, curve_rows, x="n", y="t", fit="fit", low="low", high="high",
                             title="T", description="D", x_title="n", y_title="t (ms)",
                             measured_name="measured", fit_name="fitted", band_name="band",
                             colors={"fitted": "#00ff00"})
    assert line_strokes(chart) == ["#00ff00"]


def test_series_colours_fill_from_the_palette_in_order():
    assert series_colours(["a", "b", "c"], palette=["#1", "#2"]) == ["#1", "#2", "#1"]
    assert series_colours(["a", "b"], colors={"a": "red"}) == ["red", charts.PALETTE[1]]
    assert series_colours(["a", "b"]) is None


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"colors": {"nope": "red"}}, "colors"),
    ({"colors": {"a": ""}}, "colors"),
    ({"palette": []}, "palette"),
    ({"palette": "#123456"}, "palette"),
])
def test_bad_colours_are_refused_naming_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        series_colours(["a", "b"], **kwargs)


def test_settings_panels_kinds_take_a_palette():
    frame = pd.DataFrame({"n": [5.0, 10.0, None], "t": [180.0, 97.0, 187.0],
                          "test": ["a", "b", "TLS"]})
    chart = charts.settings_panels_chart(
        frame, x="n", panels=[("t", "Time (ms)", "d")], label="test", title="T",
        description="D", x_title="n", label_title="Test", measured_name="measured",
        reference_name="reference", palette=["#123456", "#654321"])
    assert line_strokes(chart) == ["#123456"]


# -- the checks and small building blocks the builders share -------------------------------------

@pytest.mark.parametrize("value", ["", "   ", None, 3])
def test_require_text_names_the_argument(value):
    with pytest.raises(ValueError, match="^x_title must be a non-empty string"):
        _common.require_text(value, "x_title")


def test_require_texts_checks_in_order_and_passes_good_text():
    assert _common.require_text("Clients", "x_title") == "Clients"
    with pytest.raises(ValueError, match="^description"):
        _common.require_texts(title="T", description=" ", x_title="")


def test_require_columns_lists_the_missing_ones():
    frame = pd.DataFrame({"a": [1], "b": [2]})
    _common.require_columns(frame, ["b", "a"])
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['c', 'd'\]; it has \['a', 'b'\]"):
        _common.require_columns(frame, ["a", "c", "d"])


def test_require_frame_accepts_none_and_checks_bands():
    _common.require_frame(None, ["value", "label"], "y_rules")
    bands = pd.DataFrame({"low": [1.0, 5.0], "high": [2.0, 5.0], "label": ["a", "b"]})
    _common.require_frame(bands, ["low", "high", "label"], "x_bands")  # low == high is a line
    with pytest.raises(ValueError, match="^x_bands: every band needs low <= high"):
        _common.require_frame(bands.assign(low=[3.0, 5.0]), ["low", "high", "label"], "x_bands")


@pytest.mark.parametrize("domain", [(1, 1), (2, 1), (0,), (0, 1, 2)])
def test_require_domain_needs_low_below_high(domain):
    _common.require_domain(None, "x_domain")
    _common.require_domain((0, 1), "x_domain")
    with pytest.raises(ValueError, match="^x_domain must be"):
        _common.require_domain(domain, "x_domain")


def test_escape_makes_a_single_quoted_vega_string():
    assert _common.escape("Little's law") == "Little\\'s law"
    assert _common.escape("a\\b") == "a\\\\b"
    # the escaped text evaluates back to itself in a chart's expression: Vega draws it
    text = "it's C:\\ 'quoted'"
    chart = alt.Chart(pd.DataFrame({"x": [1]})).transform_calculate(
        t=f"'{_common.escape(text)}'").mark_text().encode(text="t:N")
    drawn = vlc.vegalite_to_svg(chart.to_dict())
    assert "it&apos;s C:\\ &apos;quoted&apos;" in drawn or "it's C:\\ 'quoted'" in drawn


def test_heading_adds_a_subtitle_only_when_given():
    assert _common.heading("T", None) == "T"
    title = _common.heading("T", ["line 1", "line 2"])
    assert title.to_dict() == {"text": "T", "subtitle": ["line 1", "line 2"]}


def test_first_seen_keeps_the_order_of_appearance_as_strings():
    assert _common.first_seen(pd.Series([3, 1, 3, 2, 1])) == ["3", "1", "2"]


def test_printed_labels_use_the_format_or_str():
    assert _common.printed(pd.Series([1234.5, 0.25]), ",.1f") == ["1,234.5", "0.2"]
    assert _common.printed(pd.Series([2, 10]), None) == ["2", "10"]
    assert _common.number_format(".2%") == {"format": ".2%"}
    assert _common.number_format(None) == {} and _common.number_format("") == {}


def test_settings_scale_pads_a_log_axis_at_both_ends():
    scale = _common.settings_scale([10.0, 1000.0], log=True, pad=2.0).to_dict()
    assert scale == {"type": "log", "domain": [5.0, 2000.0]}
    assert _common.settings_scale([1.0, 2.0], log=False, pad=2.0).to_dict() == {"zero": False}


def test_field_tooltips_and_columns_of_pairs():
    pairs = [("printed", "As printed"), ("source", "Source")]
    assert _common.field_columns(pairs) == ["printed", "source"]
    assert [t.to_dict() for t in _common.field_tooltips(pairs)] == [
        {"field": "printed", "type": "nominal", "title": "As printed"},
        {"field": "source", "type": "nominal", "title": "Source"}]
