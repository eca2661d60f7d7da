"""Chart builders: one look for every chart in the book.

Every builder returns an :class:`altair.Chart` that carries a title, a description for screen
readers, axis titles with units and a tooltip with the exact values. Call :func:`enable` once per
notebook: it registers the theme and picks the renderer.

Rendering. The book stores each chart as Altair's HTML output. Its loader skips the CDN when the
page already holds vega, vega-lite and vega-embed of the same versions; the book serves that
bundle itself (``scripts/build_assets.py``), so pages need no network. In a live JupyterLab
session started with ``QUEUELAB_LIVE=1`` (``make lab``) the widget renderer is used instead,
which also works offline.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import altair as alt
import pandas as pd

THEME_NAME = "queuelab"
WIDTH = 520
HEIGHT = 300
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
# Colour-blind-safe categorical palette (Okabe & Ito, 2008).
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
FADED_OPACITY = 0.15
# vega-embed's menu: keep the image exports, drop the links that open another site.
EMBED_OPTIONS = {"renderer": "svg", "actions": {"export": True, "source": False,
                                                "compiled": False, "editor": False}}
# Altair's loader falls back to this base URL only when the page lacks the offline bundle;
# a relative path keeps even that fallback on the site's own host.
OFFLINE_BASE_URL = "_static/vendor"


@alt.theme.register(THEME_NAME, enable=False)
def theme() -> alt.theme.ThemeConfig:
    """The book's chart theme: readable sizes, a plain frame, a colour-blind-safe palette."""
    return {
        "config": {
            "view": {"continuousWidth": WIDTH, "continuousHeight": HEIGHT, "stroke": None},
            "font": FONT,
            "title": {"fontSize": 15, "anchor": "start", "subtitleFontSize": 12,
                      "subtitleColor": "#555"},
            "axis": {"labelFontSize": 12, "titleFontSize": 13, "grid": True,
                     "gridColor": "#e6e6e6", "domainColor": "#888", "tickColor": "#888"},
            "legend": {"labelFontSize": 12, "titleFontSize": 12},
            "range": {"category": PALETTE},
            "point": {"size": 60, "filled": True},
            "line": {"strokeWidth": 2.5},
        }
    }


def palette(n: int) -> list[str]:
    """``n`` colours from the book's palette, repeating it when more are needed."""
    return [PALETTE[i % len(PALETTE)] for i in range(n)]


def live_session() -> bool:
    """True inside a reader's live JupyterLab started by ``make lab`` (QUEUELAB_LIVE=1)."""
    return os.environ.get("QUEUELAB_LIVE", "") not in ("", "0")


def enable() -> None:
    """Register the theme and the renderer: stored HTML for the book, widgets when live."""
    alt.theme.enable(THEME_NAME)
    if live_session():
        alt.renderers.enable("jupyter", offline=True)
    else:
        # One call: set_embed_options() would replace the base_url option.
        alt.renderers.enable("html", base_url=OFFLINE_BASE_URL, embed_options=EMBED_OPTIONS)


def _require_text(value: str, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string (charts need it for readers)")
    return value


def _require_columns(data: pd.DataFrame, columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise ValueError(f"data lacks column(s) {missing}; it has {list(data.columns)}")


def line_chart(
    data: pd.DataFrame,
    *,
    x: str,
    y: str,
    series: str,
    title: str,
    description: str,
    x_title: str,
    y_title: str,
    series_title: str | None = None,
    y_format: str | None = None,
    subtitle: str | None = None,
    y_zero: bool = True,
) -> alt.Chart:
    """Lines with points, one line per value of ``series``.

    Hovering a point shows its exact values; clicking a legend entry highlights that series
    (shift-click adds more, clicking the background resets).

    ``x_title`` and ``y_title`` name the quantities with their units, e.g. "Response time (s)".
    ``y_format`` is a d3 format for the tooltip value (".3f" keeps three printed decimals).
    """
    _require_columns(data, [x, y, series])
    for name in ("title", "description", "x_title", "y_title"):
        _require_text(locals()[name], name)
    series_title = series_title or series
    highlight = alt.selection_point(fields=[series], bind="legend", name="highlight")
    tooltip = [
        alt.Tooltip(f"{series}:N", title=series_title),
        alt.Tooltip(f"{x}:Q", title=x_title),
        alt.Tooltip(f"{y}:Q", title=y_title, **({"format": y_format} if y_format else {})),
    ]
    series_order = sorted(data[series].unique().tolist())
    base = alt.Chart(data).encode(
        x=alt.X(f"{x}:Q", title=x_title),
        y=alt.Y(f"{y}:Q", title=y_title, scale=alt.Scale(zero=y_zero)),
        color=alt.Color(f"{series}:N", title=series_title, sort=series_order,
                        scale=alt.Scale(domain=series_order, range=palette(len(series_order))),
                        legend=alt.Legend(symbolType="stroke", symbolStrokeWidth=3)),
        opacity=alt.condition(highlight, alt.value(1.0), alt.value(FADED_OPACITY)),
        tooltip=tooltip,
    )
    lines = base.mark_line()
    points = base.mark_point(filled=True, size=70)
    return alt.layer(lines.add_params(highlight), points).properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title,
        description=description,
    )


def stacked_count_chart(
    data: pd.DataFrame,
    *,
    category: str,
    stack: str,
    title: str,
    description: str,
    category_title: str,
    stack_title: str,
    stack_order: Sequence[str] | None = None,
) -> alt.Chart:
    """Horizontal bars counting rows per ``category``, stacked by ``stack``.

    Hovering a segment shows its exact count; clicking a legend entry highlights that stack.
    """
    _require_columns(data, [category, stack])
    for name in ("title", "description", "category_title", "stack_title"):
        _require_text(locals()[name], name)
    counts = data.groupby([category, stack]).size().rename("count").reset_index()
    order = list(stack_order) if stack_order else sorted(counts[stack].unique())
    counts["_order"] = counts[stack].map({s: i for i, s in enumerate(order)})
    highlight = alt.selection_point(fields=[stack], bind="legend", name="highlight")
    return alt.Chart(counts).mark_bar().encode(
        y=alt.Y(f"{category}:N", title=category_title, sort=sorted(counts[category].unique())),
        x=alt.X("sum(count):Q", title="Count", axis=alt.Axis(tickMinStep=1, format="d")),
        color=alt.Color(f"{stack}:N", title=stack_title, sort=order,
                        scale=alt.Scale(domain=order, range=palette(len(order)))),
        order=alt.Order("_order:Q"),
        opacity=alt.condition(highlight, alt.value(1.0), alt.value(FADED_OPACITY)),
        tooltip=[alt.Tooltip(f"{category}:N", title=category_title),
                 alt.Tooltip(f"{stack}:N", title=stack_title),
                 alt.Tooltip("count:Q", title="Count")],
    ).add_params(highlight).properties(title=title, description=description,
                                       height=alt.Step(28))


def heatmap(
    data: pd.DataFrame,
    *,
    x: str,
    y: str,
    value: str,
    title: str,
    description: str,
    x_title: str,
    y_title: str,
    value_title: str,
    value_format: str | None = None,
    label: str | None = None,
    tooltip_fields: Sequence[tuple[str, str]] = (),
    facet: str | None = None,
    facet_title: str | None = None,
    facet_columns: int = 3,
    diverging: bool = False,
    subtitle: str | None = None,
) -> alt.Chart | alt.FacetChart:
    """Cells of an ``x`` by ``y`` grid coloured by ``value``, each cell printing its value.

    ``x`` and ``y`` are ordinal (their values in ascending order), so uneven levels such as
    10, 25, 50, 100, 200 threads get equal cells. ``label`` names a column holding each cell's
    text (default: ``value`` formatted with ``value_format``); ``tooltip_fields`` adds
    ``(column, title)`` pairs to the tooltip, e.g. the measured values as printed.
    ``diverging`` colours around 0 (blue below, orange above) on a symmetric scale.
    ``facet`` draws one small grid per value of that column, in order of appearance,
    ``facet_columns`` to a row.
    """
    _require_columns(data, [x, y, value] + ([label] if label else []) + ([facet] if facet else [])
                     + [f for f, _ in tooltip_fields])
    for name in ("title", "description", "x_title", "y_title", "value_title"):
        _require_text(locals()[name], name)
    if facet_columns < 1:
        raise ValueError(f"facet_columns must be an integer >= 1, got {facet_columns!r}")
    frame = data.copy()
    if label is None:
        label = "_label"
        fmt = (lambda v: format(v, value_format)) if value_format else str
        frame[label] = [fmt(v) for v in frame[value]]
    extent = float(frame[value].abs().max()) or 1.0
    if diverging:
        scale = alt.Scale(scheme="blueorange", domain=[-extent, extent], domainMid=0)
        strong = f"abs(datum['{value}']) > {0.6 * extent!r}"
    else:
        low, high = float(frame[value].min()), float(frame[value].max())
        scale = alt.Scale(scheme="blues")
        strong = f"datum['{value}'] > {low + 0.6 * (high - low)!r}"
    tooltip = ([alt.Tooltip(f"{facet}:N", title=facet_title or facet)] if facet else []) + [
        alt.Tooltip(f"{y}:O", title=y_title),
        alt.Tooltip(f"{x}:O", title=x_title),
        *[alt.Tooltip(f"{f}:N", title=t) for f, t in tooltip_fields],
        alt.Tooltip(f"{value}:Q", title=value_title,
                    **({"format": value_format} if value_format else {})),
    ]
    base = alt.Chart(frame).encode(
        x=alt.X(f"{x}:O", title=x_title, sort=sorted(frame[x].unique().tolist()),
                axis=alt.Axis(labelAngle=0, grid=False)),
        y=alt.Y(f"{y}:O", title=y_title, sort=sorted(frame[y].unique().tolist()),
                axis=alt.Axis(grid=False)),
        tooltip=tooltip,
    )
    legend = alt.Legend(orient="bottom", direction="horizontal", gradientLength=220,
                        **({"format": value_format} if value_format else {}))
    cells = base.mark_rect(stroke="white", strokeWidth=1).encode(
        color=alt.Color(f"{value}:Q", title=value_title, scale=scale, legend=legend))
    text = base.mark_text(fontSize=10).encode(
        text=alt.Text(f"{label}:N"),
        color=alt.condition(strong, alt.value("white"), alt.value("#222")),
    )
    layered = alt.layer(cells, text).properties(width=alt.Step(32), height=alt.Step(24))
    heading = alt.Title(title, subtitle=subtitle) if subtitle else title
    if facet is None:
        return layered.properties(title=heading, description=description)
    order = list(dict.fromkeys(frame[facet].tolist()))
    # Each small grid draws its own x axis, so a short last row leaves no orphaned axis.
    return layered.facet(
        facet=alt.Facet(f"{facet}:N", title=None, sort=order,
                        header=alt.Header(labelFontSize=12, labelFontWeight="bold")),
        columns=facet_columns,
    ).resolve_axis(x="independent").properties(title=heading, description=description)


def interval_chart(
    data: pd.DataFrame,
    *,
    category: str,
    estimate: str,
    low: str,
    high: str,
    title: str,
    description: str,
    category_title: str,
    value_title: str,
    value_format: str | None = None,
    reference: tuple[float, float] | None = None,
    reference_label: str | None = None,
    subtitle: str | None = None,
) -> alt.LayerChart:
    """Point estimates with their intervals, one row per ``category`` (in data order).

    ``reference`` = (low, high) shades a band of stated values to compare with, labelled
    ``reference_label``. Hovering a point shows the estimate and its interval.
    """
    _require_columns(data, [category, estimate, low, high])
    for name in ("title", "description", "category_title", "value_title"):
        _require_text(locals()[name], name)
    fmt = {"format": value_format} if value_format else {}
    tooltip = [alt.Tooltip(f"{category}:N", title=category_title),
               alt.Tooltip(f"{estimate}:Q", title=value_title, **fmt),
               alt.Tooltip(f"{low}:Q", title="Interval from", **fmt),
               alt.Tooltip(f"{high}:Q", title="Interval to", **fmt)]
    order = [str(c) for c in dict.fromkeys(data[category].tolist())]
    frame = data.assign(**{category: data[category].astype(str)})
    base = alt.Chart(frame).encode(
        y=alt.Y(f"{category}:N", title=category_title, sort=order),
        tooltip=tooltip,
    )
    bars = base.mark_rule(strokeWidth=3, color=PALETTE[0]).encode(
        x=alt.X(f"{low}:Q", title=value_title), x2=f"{high}:Q")
    points = base.mark_point(filled=True, size=90, color=PALETTE[0]).encode(x=f"{estimate}:Q")
    layers = [bars, points]
    if reference is not None:
        ref_low, ref_high = (float(v) for v in reference)
        if not ref_low <= ref_high:
            raise ValueError(f"reference must be (low, high) with low <= high, got {reference!r}")
        band_data = pd.DataFrame({"ref_low": [ref_low], "ref_high": [ref_high],
                                  "ref_label": [reference_label or "reference"]})
        band = alt.Chart(band_data).mark_rect(color=PALETTE[1], opacity=0.35).encode(
            x="ref_low:Q", x2="ref_high:Q",
            tooltip=[alt.Tooltip("ref_label:N", title="Band"),
                     alt.Tooltip("ref_low:Q", title="From", **fmt),
                     alt.Tooltip("ref_high:Q", title="To", **fmt)])
        note = alt.Chart(band_data).mark_text(align="left", baseline="top", dx=6, dy=4,
                                              color="#8a5a00").encode(
            x="ref_high:Q", y=alt.value(0), text="ref_label:N")
        layers = [band, note, *layers]
    heading = alt.Title(title, subtitle=subtitle) if subtitle else title
    return alt.layer(*layers).properties(title=heading, description=description,
                                         height=alt.Step(36))


LEGEND_LABEL_LIMIT = 420  # pixels: legend labels that explain a mark are not cut short
BAND_COLOUR = "#999999"  # uncertainty bands: grey, behind the coloured marks


def settings_panels_chart(
    data: pd.DataFrame,
    *,
    x: str,
    panels: Sequence[tuple[str, str, str]],
    label: str,
    title: str,
    description: str,
    x_title: str,
    label_title: str,
    measured_name: str,
    reference_name: str,
    subtitle: str | Sequence[str] | None = None,
    x_log: bool = True,
) -> alt.VConcatChart:
    """Measurements against a setting, one panel per measured quantity, stacked with one x axis.

    ``panels`` lists ``(column, y_title, tooltip_format)`` for each panel. Rows whose ``x`` is
    missing were measured at a setting the source does not state: they cannot be placed on the
    x axis and are drawn as dashed horizontal rules across the panel instead, in their own
    colour (legend entry ``reference_name``; the measured points are ``measured_name``).
    ``label`` names the column that labels each row in the tooltips (the test as printed).
    """
    if not panels:
        raise ValueError("panels must list at least one (column, y_title, format) tuple")
    _require_columns(data, [x, label] + [p[0] for p in panels])
    for name in ("title", "description", "x_title", "label_title", "measured_name",
                 "reference_name"):
        _require_text(locals()[name], name)
    placed = data[data[x].notna()].copy()
    references = data[data[x].isna()].copy()
    if placed.empty:
        raise ValueError(f"no row of data has a value of {x!r} to place on the x axis")
    placed[x] = placed[x].astype(float)
    domain = [measured_name, reference_name] if len(references) else [measured_name]
    colour_scale = alt.Scale(domain=domain, range=[PALETTE[0], PALETTE[3]][:len(domain)])
    x_values = sorted(placed[x].unique().tolist())
    x_scale = alt.Scale(type="log", domain=[x_values[0] / 1.6, x_values[-1] * 1.6]) if x_log \
        else alt.Scale(zero=False)
    charts = []
    for column, y_title, fmt in panels:
        _require_text(y_title, "y_title")
        tooltip = [alt.Tooltip(f"{label}:N", title=label_title),
                   alt.Tooltip(f"{column}:Q", title=y_title, format=fmt)]
        x_enc = alt.X(f"{x}:Q", title=x_title, scale=x_scale,
                      axis=alt.Axis(values=x_values, format="d"))
        base = alt.Chart(placed).encode(
            x=x_enc,
            y=alt.Y(f"{column}:Q", title=y_title, scale=alt.Scale(zero=True)),
            color=alt.Color("_kind:N", title=None, scale=colour_scale,
                            legend=alt.Legend(orient="top", symbolStrokeWidth=3,
                                              labelLimit=LEGEND_LABEL_LIMIT)),
            tooltip=[alt.Tooltip(f"{label}:N", title=label_title),
                     alt.Tooltip(f"{x}:Q", title=x_title, format="d"),
                     tooltip[1]],
        ).transform_calculate(_kind=f"'{_escape(measured_name)}'")
        layers = [base.mark_line(), base.mark_point(filled=True, size=80)]
        if len(references):
            rule = alt.Chart(references).transform_calculate(
                _kind=f"'{_escape(reference_name)}'").encode(
                y=alt.Y(f"{column}:Q"),
                color=alt.Color("_kind:N", scale=colour_scale),
                tooltip=tooltip,
            )
            layers.append(rule.mark_rule(strokeDash=[6, 4], strokeWidth=2.5))
        charts.append(alt.layer(*layers).properties(height=HEIGHT * 0.7))
    return alt.vconcat(*charts, spacing=18).resolve_scale(color="shared").properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title,
        description=description,
    )


def _escape(text: str) -> str:
    """``text`` as the body of a single-quoted Vega expression string."""
    return text.replace("\\", "\\\\").replace("'", "\\'")


def fit_chart(
    points: pd.DataFrame,
    curve: pd.DataFrame,
    *,
    x: str,
    y: str,
    fit: str,
    low: str,
    high: str,
    title: str,
    description: str,
    x_title: str,
    y_title: str,
    measured_name: str,
    fit_name: str,
    band_name: str,
    predictions: pd.DataFrame | None = None,
    prediction_name: str | None = None,
    label: str | None = None,
    label_title: str | None = None,
    y_format: str = ".1f",
    subtitle: str | Sequence[str] | None = None,
    x_log: bool = True,
    y_domain: tuple[float, float] | None = None,
) -> alt.LayerChart:
    """Measured points with a fitted curve and its band, and optional model predictions.

    ``points`` holds the measurements (``x``, ``y``, optionally a ``label`` column shown in the
    tooltip); ``curve`` the fitted curve on a grid of ``x`` (columns ``fit``, ``low``, ``high``).
    ``predictions`` (columns ``x`` and ``y``) are values of the model at settings never measured;
    they are drawn as diamonds under the legend entry ``prediction_name`` so that no
    reader takes them for data. Every layer has a legend entry drawn like its mark (dot, line,
    diamond; the band in a legend of its own) and a tooltip with the exact values.

    ``y_domain`` fixes the y range; marks are then clipped to it (say so in the subtitle when
    the band runs off the chart: its tooltip still gives the exact limits). ``subtitle`` may be
    a list of lines.
    """
    _require_columns(points, [x, y] + ([label] if label else []))
    _require_columns(curve, [x, fit, low, high])
    for name in ("title", "description", "x_title", "y_title", "measured_name", "fit_name",
                 "band_name"):
        _require_text(locals()[name], name)
    if predictions is not None:
        _require_columns(predictions, [x, y])
        _require_text(prediction_name, "prediction_name")
    if y_domain is not None and (len(y_domain) != 2 or not y_domain[0] < y_domain[1]):
        raise ValueError(f"y_domain must be (low, high) with low < high, got {y_domain!r}")
    names = [measured_name, fit_name] + ([prediction_name] if predictions is not None else [])
    colour = alt.Scale(domain=names, range=[PALETTE[0], PALETTE[1], PALETTE[3]][:len(names)])
    shape = alt.Scale(domain=names, range=["circle", "stroke", "diamond"][:len(names)])
    # Legends below the plot, one entry per line: long, explicit names stay readable.
    legend = alt.Legend(orient="bottom", direction="vertical", title=None, symbolStrokeWidth=3,
                        labelLimit=LEGEND_LABEL_LIMIT)
    x_values = sorted(set(points[x].astype(float)) | (
        set(predictions[x].astype(float)) if predictions is not None else set()))
    x_all = pd.concat([points[x], curve[x]] + ([predictions[x]] if predictions is not None
                                               else [])).astype(float)
    x_domain = [float(x_all.min()), float(x_all.max())]
    x_enc = alt.X(f"{x}:Q", title=x_title,
                  scale=alt.Scale(type="log" if x_log else "linear", domain=x_domain,
                                  nice=False, zero=False),
                  axis=alt.Axis(values=x_values, format="d"))
    y_scale = alt.Scale(domain=list(y_domain)) if y_domain is not None else alt.Scale()
    clip = y_domain is not None
    fmt = {"format": y_format}
    x_tip = alt.Tooltip(f"{x}:Q", title=x_title, format="d")

    def kind(frame: pd.DataFrame, name: str) -> alt.Chart:
        return alt.Chart(frame).transform_calculate(_kind=f"'{_escape(name)}'")

    def coloured(with_shape: bool) -> dict:
        enc = {"color": alt.Color("_kind:N", scale=colour, legend=legend)}
        if with_shape:
            enc["shape"] = alt.Shape("_kind:N", scale=shape, legend=legend)
        return enc

    band = kind(curve, band_name).mark_area(opacity=0.3, clip=clip).encode(
        x=x_enc, y=alt.Y(f"{low}:Q", title=y_title, scale=y_scale), y2=f"{high}:Q",
        fill=alt.Fill("_kind:N", scale=alt.Scale(domain=[band_name], range=[BAND_COLOUR]),
                      legend=alt.Legend(orient="bottom", direction="vertical", title=None,
                                        symbolType="square", labelLimit=LEGEND_LABEL_LIMIT)),
        tooltip=[x_tip, alt.Tooltip(f"{low}:Q", title=f"{band_name}, low", **fmt),
                 alt.Tooltip(f"{high}:Q", title=f"{band_name}, high", **fmt)],
    )
    line = kind(curve, fit_name).mark_line(clip=clip).encode(
        x=x_enc, y=alt.Y(f"{fit}:Q", title=y_title), **coloured(False),
        tooltip=[x_tip, alt.Tooltip(f"{fit}:Q", title=fit_name, **fmt)],
    )
    label_tip = [alt.Tooltip(f"{label}:N", title=label_title or label)] if label else []
    measured = kind(points, measured_name).mark_point(filled=True, size=90, clip=clip).encode(
        x=x_enc, y=alt.Y(f"{y}:Q", title=y_title), **coloured(True),
        tooltip=label_tip + [x_tip, alt.Tooltip(f"{y}:Q", title=y_title, **fmt)],
    )
    layers = [band, line, measured]
    if predictions is not None:
        layers.append(kind(predictions, prediction_name).mark_point(
            filled=True, size=150, clip=clip).encode(
            x=x_enc, y=alt.Y(f"{y}:Q", title=y_title), **coloured(True),
            tooltip=[x_tip, alt.Tooltip(f"{y}:Q", title=prediction_name, **fmt)],
        ))
    return alt.layer(*layers).resolve_legend(fill="independent").properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title,
        description=description,
    )


# Charts with long category labels (bar_chart, range_chart) keep their plot narrower so that
# labels and plot fit the page's text column together.
NARROW_WIDTH = 380
CATEGORY_LABEL_LIMIT = 260


def _category_axis() -> alt.Axis:
    """A category axis whose title sits above its labels, clear of labels of any length."""
    return alt.Axis(labelLimit=CATEGORY_LABEL_LIMIT, titleAngle=0, titleAlign="right",
                    titleBaseline="bottom", titleX=-6, titleY=-6)


def bar_chart(
    data: pd.DataFrame,
    *,
    category: str,
    value: str,
    title: str,
    description: str,
    category_title: str,
    value_title: str,
    value_format: str | None = None,
    label: str | None = None,
    tooltip_fields: Sequence[tuple[str, str]] = (),
    subtitle: str | None = None,
    width: int = NARROW_WIDTH,
) -> alt.LayerChart:
    """Horizontal bars, one per ``category`` in data order, each printing its value at its end.

    ``label`` names a column holding each bar's printed text (default: ``value`` formatted
    with ``value_format``); ``tooltip_fields`` adds ``(column, title)`` pairs to the tooltip,
    e.g. the value as the source prints it. ``width`` is the plot's width in pixels, narrower
    than the other charts' to leave room for long category labels.
    """
    _require_columns(data, [category, value] + ([label] if label else [])
                     + [f for f, _ in tooltip_fields])
    for name in ("title", "description", "category_title", "value_title"):
        _require_text(locals()[name], name)
    frame = data.assign(**{category: data[category].astype(str)})
    if label is None:
        label = "_label"
        fmt = (lambda v: format(v, value_format)) if value_format else str
        frame[label] = [fmt(v) for v in frame[value]]
    order = list(dict.fromkeys(frame[category].tolist()))
    base = alt.Chart(frame).encode(
        y=alt.Y(f"{category}:N", title=category_title, sort=order,
                axis=_category_axis()),
        x=alt.X(f"{value}:Q", title=value_title, scale=alt.Scale(zero=True)),
        tooltip=[alt.Tooltip(f"{category}:N", title=category_title),
                 *[alt.Tooltip(f"{f}:N", title=t) for f, t in tooltip_fields],
                 alt.Tooltip(f"{value}:Q", title=value_title,
                             **({"format": value_format} if value_format else {}))],
    )
    bars = base.mark_bar(color=PALETTE[0], height={"band": 0.7})
    text = base.mark_text(align="left", dx=4, color="#222", fontSize=12).encode(
        text=alt.Text(f"{label}:N"))
    return alt.layer(bars, text).properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title,
        description=description, height=alt.Step(34), width=width)


def range_chart(
    data: pd.DataFrame,
    *,
    category: str,
    low: str,
    high: str,
    title: str,
    description: str,
    category_title: str,
    value_title: str,
    series: str | None = None,
    series_title: str | None = None,
    value_format: str | None = None,
    tooltip_fields: Sequence[tuple[str, str]] = (),
    subtitle: str | None = None,
    width: int = NARROW_WIDTH,
) -> alt.LayerChart:
    """Stated ranges, one row per ``category`` (in data order): a bar from ``low`` to ``high``
    with a dot at each end, so that a single value (``low == high``) shows as one dot.

    Nothing is drawn between the ends but the bar: no midpoint or estimate is implied.
    ``series`` colours the rows by a column (with a legend), e.g. guideline against reading;
    ``tooltip_fields`` adds ``(column, title)`` pairs to the tooltip; ``width`` is the plot's
    width in pixels.
    """
    _require_columns(data, [category, low, high] + ([series] if series else [])
                     + [f for f, _ in tooltip_fields])
    for name in ("title", "description", "category_title", "value_title"):
        _require_text(locals()[name], name)
    if (data[low] > data[high]).any():
        raise ValueError(f"every row needs {low} <= {high}")
    frame = data.assign(**{category: data[category].astype(str)})
    order = list(dict.fromkeys(frame[category].tolist()))
    fmt = {"format": value_format} if value_format else {}
    tooltip = [alt.Tooltip(f"{category}:N", title=category_title),
               *([alt.Tooltip(f"{series}:N", title=series_title or series)] if series else []),
               *[alt.Tooltip(f"{f}:N", title=t) for f, t in tooltip_fields],
               alt.Tooltip(f"{low}:Q", title=f"{value_title}, from", **fmt),
               alt.Tooltip(f"{high}:Q", title=f"{value_title}, to", **fmt)]
    if series:
        kinds = list(dict.fromkeys(frame[series].astype(str).tolist()))
        colour = alt.Color(f"{series}:N", title=series_title or series, sort=kinds,
                           scale=alt.Scale(domain=kinds, range=palette(len(kinds))),
                           legend=alt.Legend(orient="top", symbolStrokeWidth=3))
    else:
        colour = alt.value(PALETTE[0])
    base = alt.Chart(frame).encode(
        y=alt.Y(f"{category}:N", title=category_title, sort=order,
                axis=_category_axis()),
        color=colour,
        tooltip=tooltip,
    )
    bar = base.mark_rule(strokeWidth=6).encode(
        x=alt.X(f"{low}:Q", title=value_title, scale=alt.Scale(zero=True)), x2=f"{high}:Q")
    ends = [base.mark_point(filled=True, size=110, opacity=1).encode(
        x=alt.X(f"{end}:Q", title=value_title)) for end in (low, high)]
    return alt.layer(bar, *ends).properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title,
        description=description, height=alt.Step(34), width=width)


def reference_chart(
    points: pd.DataFrame | None = None,
    *,
    x: str,
    y: str,
    title: str,
    description: str,
    x_title: str,
    y_title: str,
    series: str | None = None,
    series_title: str | None = None,
    y_rules: pd.DataFrame | None = None,
    y_bands: pd.DataFrame | None = None,
    x_rules: pd.DataFrame | None = None,
    x_bands: pd.DataFrame | None = None,
    x_domain: tuple[float, float] | None = None,
    y_domain: tuple[float, float] | None = None,
    value_format: str | None = None,
    tooltip_fields: Sequence[tuple[str, str]] = (),
    subtitle: str | None = None,
) -> alt.LayerChart:
    """Stated points against the guide lines and bands the source gives, with no curve.

    For a figure whose data are lost: ``points`` (columns ``x``, ``y``, optionally ``series``
    and the ``tooltip_fields``) are the few readings the text states, drawn as dots and never
    joined. ``y_rules`` / ``x_rules`` (columns ``value``, ``label``) draw labelled dashed lines
    across the chart (a ceiling, an average, a crossover); ``y_bands`` / ``x_bands`` (columns
    ``low``, ``high``, ``label``, optionally ``colour``) shade labelled ranges (rating classes,
    an interval of users); y bands are grey unless a ``colour`` column gives their colours.
    Every mark has a tooltip. ``points`` may be ``None`` for a schematic of references only,
    which then needs ``x_domain`` and ``y_domain``.
    """
    for name in ("title", "description", "x_title", "y_title"):
        _require_text(locals()[name], name)
    for frame, cols, name in ((y_rules, ["value", "label"], "y_rules"),
                              (x_rules, ["value", "label"], "x_rules"),
                              (y_bands, ["low", "high", "label"], "y_bands"),
                              (x_bands, ["low", "high", "label"], "x_bands")):
        if frame is not None:
            missing = [c for c in cols if c not in frame.columns]
            if missing:
                raise ValueError(f"{name} lacks column(s) {missing}; it has {list(frame.columns)}")
            if "low" in cols and (frame["low"] > frame["high"]).any():
                raise ValueError(f"{name}: every band needs low <= high")
    if points is None and (x_domain is None or y_domain is None):
        raise ValueError("without points, x_domain and y_domain must both be given")
    for domain, name in ((x_domain, "x_domain"), (y_domain, "y_domain")):
        if domain is not None and not (len(domain) == 2 and domain[0] < domain[1]):
            raise ValueError(f"{name} must be (low, high) with low < high, got {domain!r}")
    fmt = {"format": value_format} if value_format else {}
    x_scale = alt.Scale(domain=list(x_domain)) if x_domain else alt.Scale(zero=True)
    y_scale = alt.Scale(domain=list(y_domain)) if y_domain else alt.Scale(zero=True)

    def x_enc(field: str) -> alt.X:
        return alt.X(f"{field}:Q", title=x_title, scale=x_scale)

    def y_enc(field: str) -> alt.Y:
        return alt.Y(f"{field}:Q", title=y_title, scale=y_scale)

    layers: list[alt.Chart] = []
    if y_bands is not None:
        colours = (y_bands["colour"].tolist() if "colour" in y_bands.columns
                   else ["#888"] * len(y_bands))
        bands = y_bands.assign(_mid=(y_bands["low"] + y_bands["high"]) / 2, _colour=colours)
        tips = [alt.Tooltip("label:N", title="Band"),
                alt.Tooltip("low:Q", title=f"{y_title}, from", **fmt),
                alt.Tooltip("high:Q", title=f"{y_title}, to", **fmt)]
        layers.append(alt.Chart(bands).mark_rect(opacity=0.16).encode(
            y=y_enc("low"), y2="high:Q", fill=alt.Fill("_colour:N", scale=None, legend=None),
            tooltip=tips))
        layers.append(alt.Chart(bands).mark_text(align="left", baseline="middle", dx=6,
                                                 color="#333", fontSize=12).encode(
            x=alt.value(0), y=y_enc("_mid"), text="label:N", tooltip=tips))
    if x_bands is not None:
        # Neighbouring bands alternate in shade so that each stays visible.
        bands = x_bands.assign(_mid=(x_bands["low"] + x_bands["high"]) / 2,
                               _shade=[0.10 if i % 2 == 0 else 0.22 for i in range(len(x_bands))])
        tips = [alt.Tooltip("label:N", title="Band"),
                alt.Tooltip("low:Q", title=f"{x_title}, from"),
                alt.Tooltip("high:Q", title=f"{x_title}, to")]
        layers.append(alt.Chart(bands).mark_rect(color="#555").encode(
            x=x_enc("low"), x2="high:Q", opacity=alt.Opacity("_shade:Q", scale=None, legend=None),
            tooltip=tips))
        layers.append(alt.Chart(bands).mark_text(align="center", baseline="top", dy=4,
                                                 color="#333", fontSize=12).encode(
            x=x_enc("_mid"), y=alt.value(0), text="label:N", tooltip=tips))
    for rules, axis in ((y_rules, "y"), (x_rules, "x")):
        if rules is None:
            continue
        tips = [alt.Tooltip("label:N", title="Line"),
                alt.Tooltip("value:Q", title=y_title if axis == "y" else x_title, **fmt)]
        line = alt.Chart(rules).mark_rule(strokeDash=[6, 4], strokeWidth=2, color="#444")
        if axis == "y":
            layers.append(line.encode(y=y_enc("value"), tooltip=tips))
            layers.append(alt.Chart(rules).mark_text(
                align="right", baseline="bottom", dy=-4, color="#222", fontSize=12).encode(
                x=alt.value(WIDTH - 4), y=y_enc("value"), text="label:N", tooltip=tips))
        else:
            # From below the x bands' labels down to the axis.
            layers.append(line.encode(x=x_enc("value"), y=alt.value(20),
                                      y2=alt.value(HEIGHT), tooltip=tips))
            layers.append(alt.Chart(rules).mark_text(
                align="left", baseline="bottom", dx=5, color="#222", fontSize=12).encode(
                x=x_enc("value"), y=alt.value(HEIGHT - 4), text="label:N", tooltip=tips))
    if points is not None:
        _require_columns(points, [x, y] + ([series] if series else [])
                         + [f for f, _ in tooltip_fields])
        tips = [*([alt.Tooltip(f"{series}:N", title=series_title or series)] if series else []),
                *[alt.Tooltip(f"{f}:N", title=t) for f, t in tooltip_fields],
                alt.Tooltip(f"{x}:Q", title=x_title),
                alt.Tooltip(f"{y}:Q", title=y_title, **fmt)]
        if series:
            kinds = list(dict.fromkeys(points[series].astype(str).tolist()))
            colour = alt.Color(f"{series}:N", title=series_title or series, sort=kinds,
                               scale=alt.Scale(domain=kinds, range=palette(len(kinds))),
                               legend=alt.Legend(orient="bottom", direction="vertical",
                                                 symbolOpacity=1, labelLimit=WIDTH))
        else:
            colour = alt.value(PALETTE[0])
        layers.append(alt.Chart(points).mark_point(filled=True, size=130, opacity=1).encode(
            x=x_enc(x), y=y_enc(y), color=colour, tooltip=tips))
    if not layers:
        raise ValueError("nothing to draw: give points, rules or bands")
    return alt.layer(*layers).properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title,
        description=description, width=WIDTH, height=HEIGHT)


def step_chart(
    data: pd.DataFrame,
    *,
    x: str,
    y: str,
    series: str,
    title: str,
    description: str,
    x_title: str,
    y_title: str,
    series_title: str | None = None,
    y_rules: pd.DataFrame | None = None,
    x_rules: pd.DataFrame | None = None,
    x_format: str | None = None,
    subtitle: str | Sequence[str] | None = None,
) -> alt.LayerChart:
    """A time series that holds each value until the next sample, one step line per ``series``.

    For counts that jump (threads in a pool, connections in a queue) sampled at regular times:
    each line is drawn ``step-after``, and every sample carries a tooltip with its exact values
    (hover along a line). Clicking a legend entry highlights that series. ``y_rules`` /
    ``x_rules`` (columns ``value`` and ``label``) draw labelled dashed reference lines, e.g. a
    configured limit or the moment the load changes; series keep the order of first appearance.
    A long ``subtitle`` can be given as a list of lines.
    """
    _require_columns(data, [x, y, series])
    for name in ("title", "description", "x_title", "y_title"):
        _require_text(locals()[name], name)
    for frame, name in ((y_rules, "y_rules"), (x_rules, "x_rules")):
        if frame is not None:
            missing = [c for c in ("value", "label") if c not in frame.columns]
            if missing:
                raise ValueError(f"{name} lacks column(s) {missing}; it has {list(frame.columns)}")
    series_title = series_title or series
    order = [str(s) for s in dict.fromkeys(data[series].tolist())]
    frame = data.assign(**{series: data[series].astype(str)})
    highlight = alt.selection_point(fields=[series], bind="legend", name="highlight")
    x_fmt = {"format": x_format} if x_format else {}
    x_enc = alt.X(f"{x}:Q", title=x_title, scale=alt.Scale(zero=True, nice=False),
                  axis=alt.Axis(**x_fmt))
    colour = alt.Color(f"{series}:N", title=series_title, sort=order,
                       scale=alt.Scale(domain=order, range=palette(len(order))),
                       legend=alt.Legend(orient="top", symbolType="stroke",
                                         symbolStrokeWidth=3, labelLimit=LEGEND_LABEL_LIMIT))
    tooltip = [alt.Tooltip(f"{series}:N", title=series_title),
               alt.Tooltip(f"{x}:Q", title=x_title, **x_fmt),
               alt.Tooltip(f"{y}:Q", title=y_title)]
    lines = alt.Chart(frame).mark_line(interpolate="step-after", strokeWidth=2).encode(
        x=x_enc, y=alt.Y(f"{y}:Q", title=y_title, scale=alt.Scale(zero=True)), color=colour,
        opacity=alt.condition(highlight, alt.value(1.0), alt.value(FADED_OPACITY)),
        tooltip=tooltip,
    ).add_params(highlight)
    # Invisible points: one hover target with the exact values per sample.
    targets = alt.Chart(frame).mark_point(size=50, opacity=0, filled=True).encode(
        x=x_enc, y=alt.Y(f"{y}:Q"), color=colour, tooltip=tooltip)
    layers: list[alt.Chart] = []
    for rules, axis in ((y_rules, "y"), (x_rules, "x")):
        if rules is None:
            continue
        axis_title = y_title if axis == "y" else x_title
        tips = [alt.Tooltip("label:N", title="Line"),
                alt.Tooltip("value:Q", title=axis_title)]
        line = alt.Chart(rules).mark_rule(strokeDash=[5, 4], strokeWidth=1.5, color="#666")
        if axis == "y":
            layers.append(line.encode(y=alt.Y("value:Q"), tooltip=tips))
            layers.append(alt.Chart(rules).mark_text(
                align="left", baseline="bottom", dx=4, dy=-3, color="#333", fontSize=11).encode(
                x=alt.value(0), y=alt.Y("value:Q"), text="label:N", tooltip=tips))
        else:
            layers.append(line.encode(x=alt.X("value:Q"), tooltip=tips))
            layers.append(alt.Chart(rules).mark_text(
                align="left", baseline="top", dx=4, dy=4, color="#333", fontSize=11).encode(
                x=alt.X("value:Q"), y=alt.value(0), text="label:N", tooltip=tips))
    return alt.layer(*layers, lines, targets).properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title,
        description=description, width=WIDTH, height=HEIGHT)


def speedup_chart(
    data: pd.DataFrame,
    *,
    cpus: str,
    speedup: str,
    series: str,
    title: str,
    description: str,
    series_title: str,
    x_title: str = "CPUs",
    y_title: str = "Speedup over one CPU (×)",
    tooltip_fields: Sequence[tuple[str, str]] = (),
    linear_label: str = "linear speedup",
    subtitle: str | Sequence[str] | None = None,
) -> alt.LayerChart:
    """Speedup against the number of CPUs, one line with points per ``series`` (in data order),
    over a dashed grey line of linear speedup (S(n) = n).

    The x axis ticks are the CPU counts in the data. Hovering a point shows its exact values and
    the ``tooltip_fields`` (``(column, title)`` pairs); clicking a legend entry highlights a
    series. The legend sits under the chart, two entries to a row. A long ``subtitle`` can be
    given as a list of lines.
    """
    _require_columns(data, [cpus, speedup, series] + [f for f, _ in tooltip_fields])
    for name in ("title", "description", "series_title", "x_title", "y_title", "linear_label"):
        _require_text(locals()[name], name)
    frame = data.assign(**{series: data[series].astype(str)})
    order = list(dict.fromkeys(frame[series].tolist()))
    ticks = sorted({int(v) for v in frame[cpus]})
    highlight = alt.selection_point(fields=[series], bind="legend", name="highlight")
    x_enc = alt.X(f"{cpus}:Q", title=x_title, scale=alt.Scale(domain=[0, ticks[-1]]),
                  axis=alt.Axis(values=ticks, format="d"))
    y_enc = alt.Y(f"{speedup}:Q", title=y_title, scale=alt.Scale(domain=[0, ticks[-1]]))
    tooltip = [alt.Tooltip(f"{series}:N", title=series_title),
               *[alt.Tooltip(f"{f}:N", title=t) for f, t in tooltip_fields],
               alt.Tooltip(f"{cpus}:Q", title=x_title),
               alt.Tooltip(f"{speedup}:Q", title=y_title, format=".2f")]
    base = alt.Chart(frame).encode(
        x=x_enc, y=y_enc,
        color=alt.Color(f"{series}:N", title=series_title, sort=order,
                        scale=alt.Scale(domain=order, range=palette(len(order))),
                        legend=alt.Legend(orient="bottom", direction="vertical", columns=2,
                                          symbolType="stroke", symbolStrokeWidth=3,
                                          labelLimit=LEGEND_LABEL_LIMIT)),
        opacity=alt.condition(highlight, alt.value(1.0), alt.value(FADED_OPACITY)),
        tooltip=tooltip,
    )
    linear = pd.DataFrame({"n": [1, ticks[-1]], "s": [1, ticks[-1]],
                           "label": [linear_label, linear_label]})
    reference = alt.Chart(linear).mark_line(strokeDash=[6, 4], strokeWidth=1.5,
                                            color="#888").encode(
        x=alt.X("n:Q"), y=alt.Y("s:Q"),
        tooltip=[alt.Tooltip("label:N", title="Line")])
    note = alt.Chart(linear.tail(1)).mark_text(align="right", baseline="bottom", dx=-4, dy=-4,
                                               color="#555", fontSize=11).encode(
        x=alt.X("n:Q"), y=alt.Y("s:Q"), text="label:N")
    return alt.layer(reference, note, base.mark_line().add_params(highlight),
                     base.mark_point(filled=True, size=60)).properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title,
        description=description, width=WIDTH, height=HEIGHT)


def curve_chart(
    curves: pd.DataFrame,
    *,
    x: str,
    y: str,
    series: str,
    title: str,
    description: str,
    x_title: str,
    y_title: str,
    series_title: str | None = None,
    marks_at: Sequence[float] = (),
    unmarked: Sequence[str] = (),
    dashed: Sequence[str] = (),
    y_format: str = ".3f",
    x_format: str = "d",
    points: pd.DataFrame | None = None,
    points_name: str | None = None,
    y_rules: pd.DataFrame | None = None,
    y_bands: pd.DataFrame | None = None,
    y_domain: tuple[float, float] | None = None,
    subtitle: str | Sequence[str] | None = None,
) -> alt.LayerChart:
    """Curves computed on a fine grid of ``x``, one line per ``series``, marked at chosen x.

    For a model evaluated at every setting (every client count, say) where the source measured
    only some: each line runs through the whole grid, a dot marks it at every x in
    ``marks_at``, and every grid row carries a tooltip with its exact values (hover along a
    line). Clicking a legend entry highlights a series. Series keep the order of first
    appearance; those named in ``dashed`` are drawn dashed (a second definition of the same
    quantity, a bound), and those named in ``unmarked`` get no dots (a bound is no model).

    ``points`` (columns ``x``, ``y`` and ``label``) are values the source states, drawn as open
    squares and never joined, under the legend entry ``points_name`` (above the plot).
    ``y_rules`` (columns ``value``, ``label``) draw labelled dashed lines across the chart;
    ``y_bands`` (columns ``low``, ``high``, ``label``) shade labelled ranges. ``y_domain``
    fixes the y range. A long ``subtitle`` can be given as a list of lines.
    """
    _require_columns(curves, [x, y, series])
    for name in ("title", "description", "x_title", "y_title"):
        _require_text(locals()[name], name)
    order = [str(s) for s in dict.fromkeys(curves[series].tolist())]
    for names, name in ((dashed, "dashed"), (unmarked, "unmarked")):
        unknown = sorted(set(names) - set(order))
        if unknown:
            raise ValueError(f"{name} names series {unknown} that curves lack; series: {order}")
    for frame, cols, name in ((y_rules, ["value", "label"], "y_rules"),
                              (y_bands, ["low", "high", "label"], "y_bands"),
                              (points, [x, y, "label"], "points")):
        if frame is not None:
            missing = [c for c in cols if c not in frame.columns]
            if missing:
                raise ValueError(f"{name} lacks column(s) {missing}; it has {list(frame.columns)}")
    if y_bands is not None and (y_bands["low"] > y_bands["high"]).any():
        raise ValueError("y_bands: every band needs low <= high")
    if points is not None:
        _require_text(points_name, "points_name")
    if y_domain is not None and (len(y_domain) != 2 or not y_domain[0] < y_domain[1]):
        raise ValueError(f"y_domain must be (low, high) with low < high, got {y_domain!r}")
    series_title = series_title or series
    if series_title in (x_title, y_title):
        raise ValueError(f"series_title must differ from x_title and y_title (a tooltip shows "
                         f"each once), got {series_title!r}")
    frame = curves.assign(**{series: curves[series].astype(str)})
    highlight = alt.selection_point(fields=[series], bind="legend", name="highlight")
    y_scale = alt.Scale(domain=list(y_domain)) if y_domain is not None else alt.Scale(zero=True)
    clip = y_domain is not None
    x_enc = alt.X(f"{x}:Q", title=x_title, scale=alt.Scale(zero=True, nice=False))
    y_enc = alt.Y(f"{y}:Q", title=y_title, scale=y_scale)
    legend = alt.Legend(orient="bottom", direction="vertical", symbolType="stroke",
                        symbolStrokeWidth=3, labelLimit=LEGEND_LABEL_LIMIT)
    colour = alt.Color(f"{series}:N", title=series_title, sort=order, legend=legend,
                       scale=alt.Scale(domain=order, range=palette(len(order))))
    dash = alt.StrokeDash(f"{series}:N", title=series_title, sort=order, legend=legend,
                          scale=alt.Scale(domain=order, range=[[7, 4] if s in dashed else [1, 0]
                                                               for s in order]))
    tooltip = [alt.Tooltip(f"{series}:N", title=series_title),
               alt.Tooltip(f"{x}:Q", title=x_title, format=x_format),
               alt.Tooltip(f"{y}:Q", title=y_title, format=y_format)]
    faded = alt.condition(highlight, alt.value(1.0), alt.value(FADED_OPACITY))
    base = alt.Chart(frame).encode(x=x_enc, y=y_enc, color=colour, tooltip=tooltip)
    lines = base.mark_line(strokeWidth=2.5, clip=clip).encode(
        strokeDash=dash, opacity=faded).add_params(highlight)
    # Invisible points: a hover target with the exact values at every grid row.
    targets = base.mark_point(size=45, opacity=0, filled=True, clip=clip)
    layers: list[alt.Chart] = []
    if y_bands is not None:
        bands = y_bands
        tips = [alt.Tooltip("label:N", title="Band"),
                alt.Tooltip("low:Q", title=f"{y_title}, from", format=y_format),
                alt.Tooltip("high:Q", title=f"{y_title}, to", format=y_format)]
        layers.append(alt.Chart(bands).mark_rect(color=BAND_COLOUR, opacity=0.22).encode(
            y=alt.Y("low:Q", scale=y_scale), y2="high:Q", tooltip=tips))
        # the label sits on the band's upper edge, at the right, clear of curves inside it
        layers.append(alt.Chart(bands).mark_text(align="right", baseline="bottom", dy=-3,
                                                 color="#333", fontSize=12).encode(
            x=alt.value(WIDTH - 4), y=alt.Y("high:Q", scale=y_scale), text="label:N",
            tooltip=tips))
    if y_rules is not None:
        tips = [alt.Tooltip("label:N", title="Line"),
                alt.Tooltip("value:Q", title=y_title, format=y_format)]
        layers.append(alt.Chart(y_rules).mark_rule(strokeDash=[3, 3], strokeWidth=1.5,
                                                   color="#444").encode(
            y=alt.Y("value:Q", scale=y_scale), tooltip=tips))
        layers.append(alt.Chart(y_rules).mark_text(align="right", baseline="bottom", dy=-4,
                                                   color="#222", fontSize=12).encode(
            x=alt.value(WIDTH - 4), y=alt.Y("value:Q", scale=y_scale), text="label:N",
            tooltip=tips))
    layers += [lines, targets]
    if len(marks_at) and set(order) - set(unmarked):
        marked = base.transform_filter(alt.FieldOneOfPredicate(
            field=x, oneOf=[float(v) for v in marks_at]))
        if unmarked:
            marked = marked.transform_filter(alt.FieldOneOfPredicate(
                field=series, oneOf=[s for s in order if s not in unmarked]))
        marked = marked.mark_point(
            filled=True, size=60, clip=clip).encode(opacity=faded)
        layers.append(marked)
    resolve: dict[str, str] = {}
    if points is not None:
        kind = alt.Scale(domain=[points_name], range=["square"])
        layers.append(alt.Chart(points).transform_calculate(
            _kind=f"'{_escape(points_name)}'").mark_point(
            filled=False, size=120, strokeWidth=2, color="#222", opacity=1, clip=clip).encode(
            x=alt.X(f"{x}:Q"), y=alt.Y(f"{y}:Q", scale=y_scale),
            shape=alt.Shape("_kind:N", scale=kind, legend=alt.Legend(
                orient="top", title=None, labelLimit=LEGEND_LABEL_LIMIT)),
            tooltip=[alt.Tooltip("label:N", title="Stated"),
                     alt.Tooltip(f"{x}:Q", title=x_title, format=x_format),
                     alt.Tooltip(f"{y}:Q", title=y_title, format=y_format)]))
        resolve["shape"] = "independent"
    chart = alt.layer(*layers)
    if resolve:
        chart = chart.resolve_legend(**resolve)
    return chart.properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title,
        description=description, width=WIDTH, height=HEIGHT)


def block_diagram(
    boxes: pd.DataFrame,
    arrows: pd.DataFrame,
    *,
    title: str,
    description: str,
    subtitle: str | Sequence[str] | None = None,
    width: int = WIDTH + 120,
    height: int = 260,
) -> alt.LayerChart:
    """A diagram of boxes joined by arrows, drawn in pixels (x to the right, y downwards).

    ``boxes``: columns ``x``, ``y``, ``x2``, ``y2`` (two corners), ``label`` (lines split at
    "\\n"; may be empty) and ``detail`` (the tooltip's sentence); optional ``fill`` (a colour)
    and ``anchor`` ("middle", the default, or "top" to put the label along the top edge, over
    boxes drawn inside it). ``arrows``: columns ``x``, ``y`` (tail), ``x2``, ``y2`` (head),
    ``label`` and ``detail``; optional ``lx``, ``ly`` place the label (default: the middle,
    just above), ``head`` (default True) draws the arrowhead (False for the first legs of a
    bent arrow) and ``dashed`` (default False) dashes the shaft. Every box and arrow has a
    tooltip. The axes are hidden.
    """
    import math

    _require_columns(boxes, ["x", "y", "x2", "y2", "label", "detail"])
    _require_columns(arrows, ["x", "y", "x2", "y2", "label", "detail"])
    for name in ("title", "description"):
        _require_text(locals()[name], name)
    for frame, name in ((boxes, "boxes"), (arrows, "arrows")):
        coords = frame[["x", "y", "x2", "y2"]].astype(float)
        inside = ((coords[["x", "x2"]] >= 0) & (coords[["x", "x2"]] <= width)).all(axis=None) \
            and ((coords[["y", "y2"]] >= 0) & (coords[["y", "y2"]] <= height)).all(axis=None)
        if not inside:
            raise ValueError(f"{name} must lie within 0..width = {width} and 0..height = "
                             f"{height} pixels")
    if ((boxes["x"] >= boxes["x2"]) | (boxes["y"] >= boxes["y2"])).any():
        raise ValueError("boxes need x < x2 and y < y2 (x, y the top-left corner)")
    x_scale = alt.Scale(domain=[0, width], nice=False, zero=False)
    y_scale = alt.Scale(domain=[0, height], nice=False, zero=False, reverse=True)

    def xy(field_x: str, field_y: str) -> dict:
        return {"x": alt.X(f"{field_x}:Q", scale=x_scale, axis=None),
                "y": alt.Y(f"{field_y}:Q", scale=y_scale, axis=None)}

    box = boxes.assign(
        fill=boxes["fill"].fillna("#ffffff") if "fill" in boxes.columns else "#ffffff",
        anchor=boxes["anchor"].fillna("middle") if "anchor" in boxes.columns else "middle",
        _tip=boxes["label"].str.replace("\n", " ", regex=False),
        _lines=boxes["label"].str.split("\n"),
    )
    bad = sorted(set(box["anchor"]) - {"middle", "top"})
    if bad:
        raise ValueError(f"anchor must be 'middle' or 'top', got {bad}")
    box["_tx"] = (box["x"] + box["x2"]) / 2
    box["_ty"] = [y + 8 if a == "top" else (y + y2) / 2 - 8 * (len(lines) - 1)
                  for y, y2, a, lines in zip(box["y"], box["y2"], box["anchor"], box["_lines"],
                                             strict=True)]
    box["_baseline"] = ["top" if a == "top" else "middle" for a in box["anchor"]]
    box_tips = [alt.Tooltip("_tip:N", title="Part"), alt.Tooltip("detail:N", title="What it does")]
    rects = alt.Chart(box).mark_rect(stroke="#333", strokeWidth=1.5, cornerRadius=4).encode(
        **xy("x", "y"), x2="x2:Q", y2="y2:Q", fill=alt.Fill("fill:N", scale=None),
        tooltip=box_tips)
    labelled = box[box["label"].str.len() > 0]
    texts = [alt.Chart(labelled[labelled["_baseline"] == b]).mark_text(
        fontSize=13, color="#111", baseline=b, lineHeight=16).encode(
        **xy("_tx", "_ty"), text=alt.Text("_lines:N"), tooltip=box_tips)
        for b in ("top", "middle") if (labelled["_baseline"] == b).any()]
    arrow = arrows.assign(
        head=arrows["head"].fillna(True) if "head" in arrows.columns else True,
        dashed=arrows["dashed"].fillna(False) if "dashed" in arrows.columns else False,
    )
    dx = arrow["x2"].astype(float) - arrow["x"].astype(float)
    dy = arrow["y2"].astype(float) - arrow["y"].astype(float)
    # a triangle points up at angle 0 and turns clockwise; on screen y grows downwards
    arrow["_angle"] = [math.degrees(math.atan2(a, -b)) % 360 for a, b in zip(dx, dy, strict=True)]
    # the triangle is drawn about its centre: step back so that its tip ends at the head
    length = (dx**2 + dy**2) ** 0.5
    arrow["_hx"] = arrow["x2"] - 5 * dx / length
    arrow["_hy"] = arrow["y2"] - 5 * dy / length
    middle_x, above_y = (arrow["x"] + arrow["x2"]) / 2, (arrow["y"] + arrow["y2"]) / 2 - 8
    arrow["_lx"] = arrow["lx"].fillna(middle_x) if "lx" in arrow.columns else middle_x
    arrow["_ly"] = arrow["ly"].fillna(above_y) if "ly" in arrow.columns else above_y
    arrow_tips = [alt.Tooltip("label:N", title="Arrow"), alt.Tooltip("detail:N", title="Meaning")]
    shafts = alt.Chart(arrow).mark_rule(strokeWidth=2, color="#333").encode(
        **xy("x", "y"), x2="x2:Q", y2="y2:Q", tooltip=arrow_tips,
        strokeDash=alt.condition("datum.dashed", alt.value([6, 4]), alt.value([1, 0])))
    heads = alt.Chart(arrow[arrow["head"].astype(bool)]).mark_point(
        shape="triangle", size=110, filled=True, color="#333", opacity=1).encode(
        **xy("_hx", "_hy"), angle=alt.Angle("_angle:Q", scale=None), tooltip=arrow_tips)
    notes = alt.Chart(arrow[arrow["label"].str.len() > 0]).mark_text(
        fontSize=12, color="#333", fontStyle="italic").encode(
        **xy("_lx", "_ly"), text="label:N", tooltip=arrow_tips)
    return alt.layer(rects, *texts, shafts, heads, notes).properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title,
        description=description, width=width, height=height)


def curve_panels_chart(
    curves: pd.DataFrame,
    *,
    x: str,
    series: str,
    column: str,
    panels: Sequence[tuple[str, str, str]],
    title: str,
    description: str,
    x_title: str,
    series_title: str,
    column_title: str,
    marks_at: Sequence[float] = (),
    x_format: str = "d",
    subtitle: str | Sequence[str] | None = None,
    panel_width: int = 255,
    panel_height: int = 150,
) -> alt.VConcatChart:
    """Model curves in a grid of small panels: a row per quantity, a column per setting.

    For a model evaluated on a fine grid of ``x`` under several settings. ``panels`` lists
    ``(column, y_title, tooltip_format)`` for each row, a quantity with its unit; the panels of
    a row share one y axis, so that the columns (one per value of ``column``, e.g. two queue
    sizes, in order of first appearance) compare directly. One line per value of ``series``
    (order of first appearance), in the same colour in every panel; clicking a legend entry
    highlights that series in every panel. A dot marks each line at every x in ``marks_at``
    (the settings a source measured), and every grid row carries a tooltip with its exact
    values (hover along a line).
    """
    if not panels:
        raise ValueError("panels must list at least one (column, y_title, tooltip_format)")
    _require_columns(curves, [x, series, column] + [p[0] for p in panels])
    for name in ("title", "description", "x_title", "series_title", "column_title"):
        _require_text(locals()[name], name)
    for _, y_title, _ in panels:
        _require_text(y_title, "y_title of a panel")
    order = [str(s) for s in dict.fromkeys(curves[series].tolist())]
    settings = [str(c) for c in dict.fromkeys(curves[column].tolist())]
    frame = curves.assign(**{series: curves[series].astype(str),
                             column: curves[column].astype(str)})
    highlight = alt.selection_point(fields=[series], bind="legend", name="highlight")
    faded = alt.condition(highlight, alt.value(1.0), alt.value(FADED_OPACITY))
    legend = alt.Legend(orient="bottom", direction="horizontal", symbolType="stroke",
                        symbolStrokeWidth=3, labelLimit=LEGEND_LABEL_LIMIT)
    colour = alt.Color(f"{series}:N", title=series_title, sort=order, legend=legend,
                       scale=alt.Scale(domain=order, range=palette(len(order))))
    rows = []
    for i, (field, y_title, y_format) in enumerate(panels):
        last = i == len(panels) - 1
        tooltip = [alt.Tooltip(f"{series}:N", title=series_title),
                   alt.Tooltip(f"{column}:N", title=column_title),
                   alt.Tooltip(f"{x}:Q", title=x_title, format=x_format),
                   alt.Tooltip(f"{field}:Q", title=y_title, format=y_format)]
        base = alt.Chart().encode(
            x=alt.X(f"{x}:Q", title=x_title if last else None,
                    scale=alt.Scale(zero=True, nice=False)),
            y=alt.Y(f"{field}:Q", title=y_title, scale=alt.Scale(zero=True)),
            color=colour, tooltip=tooltip)
        lines = base.mark_line(strokeWidth=2.2).encode(opacity=faded)
        if i == 0:
            lines = lines.add_params(highlight)
        # Invisible points: a hover target with the exact values at every grid row.
        layers = [lines, base.mark_point(size=40, opacity=0, filled=True)]
        if len(marks_at):
            layers.append(base.transform_filter(alt.FieldOneOfPredicate(
                field=x, oneOf=[float(v) for v in marks_at])).mark_point(
                filled=True, size=36).encode(opacity=faded))
        header = (alt.Header(labelFontSize=12, labelFontWeight="bold", titleFontSize=13)
                  if i == 0 else alt.Header(labels=False, title=None))
        rows.append(alt.layer(*layers, data=frame).properties(
            width=panel_width, height=panel_height).facet(
            column=alt.Column(f"{column}:N", sort=settings, header=header,
                              title=column_title if i == 0 else None)))
    return alt.vconcat(*rows, spacing=14).properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title,
        description=description)


# --- slider explorer (the what-if page) -------------------------------------------------------

EXPLORER_DIGITS = 4  # significant digits the slider explorer stores of each value


def _explorer_number(value: float, decimals: int | None = None) -> float | int:
    """``value`` with EXPLORER_DIGITS significant digits (or ``decimals`` places), an int when
    whole: the explorer embeds tens of thousands of numbers in its page."""
    v = float(value)
    v = round(v, decimals) if decimals is not None else float(f"{v:.{EXPLORER_DIGITS}g}")
    return int(v) if v.is_integer() and abs(v) < 2**53 else v


def _explorer_slider(frame: pd.DataFrame, column: str) -> list[float]:
    """The sorted values of a slider column, which must be evenly spaced."""
    import numpy as np

    values = sorted({float(f"{v:.10g}") for v in frame[column]})
    steps = np.diff(values)
    if len(values) > 1 and not np.allclose(steps, steps[0], rtol=1e-9, atol=0):
        raise ValueError(f"slider column {column!r} must take evenly spaced values (a range "
                         f"slider has one step), got {values}")
    return values


def _explorer_pack(frame: pd.DataFrame, x: str, keys: Sequence[str], values: Sequence[str],
                   decimals: dict[str, int]) -> list[dict]:
    """One record per combination of ``keys`` (fields ``s0``, ``s1``, ...) holding each column
    of ``values`` as a list over the sorted ``x`` (fields ``m0``, ``m1``, ...)."""
    xs = sorted(frame[x].unique().tolist())
    records = []
    for combo, group in frame.sort_values([*keys, x]).groupby(list(keys), sort=True):
        if group[x].tolist() != xs:
            raise ValueError(f"the grid must hold every {x} value {xs} once for each "
                             f"combination of {list(keys)}; "
                             f"{dict(zip(keys, combo, strict=True))} has {group[x].tolist()}")
        record = {f"s{i}": _explorer_number(float(f"{v:.10g}")) for i, v in enumerate(combo)}
        for j, column in enumerate(values):
            record[f"m{j}"] = [_explorer_number(v, decimals.get(column)) for v in group[column]]
        records.append(record)
    return records


def slider_explorer(
    grid: pd.DataFrame,
    *,
    x: str,
    x_title: str,
    sliders: Sequence[tuple[str, str]],
    panels: Sequence[tuple[str, str, str, str]],
    initial: dict[str, float],
    title: str,
    description: str,
    pool: tuple[str, str, str] | None = None,
    answers: pd.DataFrame | None = None,
    answer_series: Sequence[tuple[str, str]] = (),
    answer_title: str = "",
    answer_y_title: str = "",
    load_label: str = "",
    decimals: dict[str, int] | None = None,
    subtitle: str | Sequence[str] | None = None,
    panel_width: int = 270,
    panel_height: int = 160,
) -> alt.VConcatChart:
    """Small panels of precomputed model results against ``x``, steered by range sliders.

    A static page runs no Python: ``grid`` holds every panel's value at every combination of
    the slider columns and of ``x`` (all its values are drawn). ``sliders`` lists
    ``(column, label)``: the column's values must be evenly spaced and its name a valid
    identifier (it names the slider's parameter); ``initial`` maps columns to starting values
    (default: the smallest). ``panels`` lists ``(column, y_title, tooltip_format, scale)``,
    scale ``"linear"`` or ``"log"``, two panels to a row; each panel's y range is fixed over
    the whole grid, so a moved slider moves the curve, not the axis. Every point's tooltip
    gives the values of all panels. Values are stored with EXPLORER_DIGITS significant digits
    (``decimals`` maps a column to decimal places instead).

    ``pool = (slider column, panel column, label)`` draws the slider's value as a dashed rule
    on that panel (the pool size over the busy threads, say). ``answers`` adds a panel: one
    line per ``answer_series`` ``(column, label)`` of whole numbers against ``x``, selected by
    the sliders whose columns it has, and a readout of every answer at the ``x`` picked by an
    extra slider named ``load`` (label ``load_label``; ``initial["load"]`` starts it).
    """
    import json

    import numpy as np

    if not sliders or not panels:
        raise ValueError("sliders and panels must each list at least one entry")
    slider_cols = [c for c, _ in sliders]
    _require_columns(grid, [x, *slider_cols, *(p[0] for p in panels)])
    for name in ("x_title", "title", "description"):
        _require_text(locals()[name], name)
    for column in slider_cols:
        if not column.isidentifier() or column == "load":
            raise ValueError(f"slider column {column!r} must be a valid identifier other than "
                             "'load' (it names the slider's parameter)")
    for column, _, _, scale_type in panels:
        if scale_type not in ("linear", "log"):
            raise ValueError(f"panel scale must be 'linear' or 'log', got {scale_type!r} for "
                             f"{column!r}")
    decimals = dict(decimals or {})
    xs = sorted(float(v) for v in grid[x].unique())
    x_step = xs[1] - xs[0] if len(xs) > 1 else 1.0
    x_list = json.dumps([_explorer_number(v) for v in xs])
    params, tests = [], {}
    for column, label in sliders:
        values = _explorer_slider(grid, column)
        start = float(initial.get(column, values[0]))
        if not any(np.isclose(start, v) for v in values):
            raise ValueError(f"initial[{column!r}] must be one of {values}, got {start!r}")
        step = values[1] - values[0] if len(values) > 1 else 1.0
        params.append(alt.param(name=column, value=_explorer_number(start),
                                bind=alt.binding_range(min=values[0], max=values[-1],
                                                       step=step, name=f"{label} ")))
        tests[column] = f"abs(datum.s{{}} - {column}) < {step / 2!r}"

    def selected(chart: alt.Chart, columns: Sequence[str], n: int) -> alt.Chart:
        """The one record the sliders pick, unpacked to one row per x."""
        condition = " && ".join(tests[c].format(i) for i, c in enumerate(columns)) or "true"
        return chart.transform_filter(condition).transform_flatten(
            [f"m{j}" for j in range(n)]).transform_window(_i="row_number()").transform_calculate(
            **{x: f"{x_list}[datum._i - 1]"})

    def slider_rule(column: str, label: str) -> alt.Chart:
        return alt.Chart(pd.DataFrame({"_": [0]})).transform_calculate(
            _v=column, _label=f"'{_escape(label)} ' + {column}")

    x_enc = alt.X(f"{x}:Q", title=x_title, scale=alt.Scale(domain=[0, xs[-1]], nice=False),
                  axis=alt.Axis(format="d"))
    tips = [alt.Tooltip(f"{x}:Q", title=x_title, format="d")] + [
        alt.Tooltip(f"m{j}:Q", title=y_title, format=fmt)
        for j, (_, y_title, fmt, _) in enumerate(panels)]
    # The records go into the top-level datasets at the very end: Altair copies every spec it
    # combines, and copying tens of thousands of inline numbers again and again is slow.
    datasets = {"explorer_grid": _explorer_pack(grid, x, slider_cols, [p[0] for p in panels],
                                                decimals)}
    data = alt.NamedData(name="explorer_grid")
    views = []
    for j, (column, y_title, fmt, scale_type) in enumerate(panels):
        values = grid[column].astype(float)
        if scale_type == "log":
            positive = values[values > 0]
            domain = [float(positive.min()) / 1.25, float(positive.max()) * 1.25]
        else:
            domain = [min(0.0, float(values.min())), float(values.max()) * 1.05 or 1.0]
        scale = alt.Scale(type=scale_type, domain=domain, nice=False)
        axis = alt.Axis(format=".0%") if fmt.endswith("%") else (
            alt.Axis(format="~g") if scale_type == "log" else alt.Axis())
        base = selected(alt.Chart(), slider_cols, len(panels)).encode(
            x=x_enc, y=alt.Y(f"m{j}:Q", title=y_title, scale=scale, axis=axis), tooltip=tips)
        layers = [base.mark_line(color=PALETTE[0]),
                  base.mark_point(filled=True, size=36, color=PALETTE[0])]
        if pool is not None and pool[1] == column:
            rule = slider_rule(pool[0], pool[2])
            layers += [rule.mark_rule(strokeDash=[6, 4], color=PALETTE[3]).encode(
                y=alt.Y("_v:Q", scale=scale), tooltip=[alt.Tooltip("_label:N", title="Line")]),
                rule.mark_text(align="left", baseline="bottom", dx=4, dy=-3,
                               color=PALETTE[3]).encode(x=alt.value(0), y="_v:Q",
                                                        text="_label:N")]
        views.append(alt.layer(*layers, data=data).properties(width=panel_width,
                                                              height=panel_height))
    rows = [alt.hconcat(*views[i:i + 2], spacing=24) for i in range(0, len(views), 2)]

    if answers is not None:
        answer_cols = [c for c, _ in answer_series]
        keys = [c for c in slider_cols if c in answers.columns]
        _require_columns(answers, [x, *keys, *answer_cols])
        for name in ("answer_title", "answer_y_title", "load_label"):
            _require_text(locals()[name], name)
        if not answer_cols:
            raise ValueError("answer_series must list at least one (column, label)")
        if sorted(float(v) for v in answers[x].unique()) != xs:
            raise ValueError(f"answers must have the same {x} values as grid, {xs}")
        start = float(initial.get("load", xs[len(xs) // 2]))
        if not any(np.isclose(start, v) for v in xs):
            raise ValueError(f"initial['load'] must be one of {xs}, got {start!r}")
        params.append(alt.param(name="load", value=_explorer_number(start),
                                bind=alt.binding_range(min=xs[0], max=xs[-1], step=x_step,
                                                       name=f"{load_label} ")))
        labels = [label for _, label in answer_series]
        fields = [f"m{j}" for j in range(len(answer_cols))]
        series = " : ".join(f"datum.key == '{f}' ? '{_escape(label)}'"
                            for f, label in zip(fields, labels, strict=True)) + " : ''"
        datasets["explorer_answers"] = _explorer_pack(answers, x, keys, answer_cols,
                                                      {c: 0 for c in answer_cols})
        packed = alt.NamedData(name="explorer_answers")
        base = selected(alt.Chart(packed), keys, len(answer_cols)).transform_fold(
            fields).transform_calculate(series=series)
        colour = alt.Color("series:N", title=None, sort=labels,
                           scale=alt.Scale(domain=labels, range=palette(len(labels))),
                           legend=alt.Legend(orient="bottom", direction="vertical",
                                             symbolType="stroke", symbolStrokeWidth=3,
                                             labelLimit=LEGEND_LABEL_LIMIT))
        enc = {"x": x_enc, "y": alt.Y("value:Q", title=answer_y_title), "color": colour,
               "tooltip": [alt.Tooltip("series:N", title="Answer"),
                           alt.Tooltip(f"{x}:Q", title=x_title, format="d"),
                           alt.Tooltip("value:Q", title=answer_y_title, format="d")]}
        here = base.transform_filter(f"abs(datum.{x} - load) < {x_step / 2!r}")
        cursor = alt.Chart(pd.DataFrame({"_": [0]})).transform_calculate(_x="load").mark_rule(
            color="#666", strokeDash=[3, 3]).encode(x="_x:Q")
        layers = [cursor, base.mark_line(strokeWidth=2).encode(**enc),
                  base.mark_point(filled=True, size=30).encode(**enc),
                  here.mark_point(filled=True, size=120, stroke="#222").encode(**enc)]
        lines = [""] + labels
        readout = [
            alt.Chart(pd.DataFrame({"_": [0]})).transform_calculate(
                series="''", _line=f"'At ' + format(load, 'd') + ' {_escape(x_title.lower())}:'"
            ).mark_text(align="left", fontWeight="bold", fontSize=13).encode(
                x=alt.value(0), y=alt.Y("series:N", sort=lines, axis=None), text="_line:N"),
            here.transform_calculate(
                _line=f"datum.series + ': ' + format(datum.value, 'd') + "
                      f"' {_escape(answer_y_title.lower())}'"
            ).mark_text(align="left", fontSize=13).encode(
                x=alt.value(0), y=alt.Y("series:N", sort=lines, axis=None), text="_line:N",
                color=colour)]
        if pool is not None:
            rule = slider_rule(pool[0], pool[2])
            layers += [rule.mark_rule(strokeDash=[6, 4], color=PALETTE[3]).encode(
                y="_v:Q", tooltip=[alt.Tooltip("_label:N", title="Line")]),
                rule.mark_text(align="left", baseline="bottom", dx=4, dy=-3,
                               color=PALETTE[3]).encode(x=alt.value(0), y="_v:Q",
                                                        text="_label:N")]
            lines.append(pool[2])
            readout.append(rule.transform_calculate(series=f"'{_escape(pool[2])}'").mark_text(
                align="left", fontSize=13, color=PALETTE[3]).encode(
                x=alt.value(0), y=alt.Y("series:N", sort=lines, axis=None), text="_label:N"))
        sizing = alt.layer(*layers).properties(title=answer_title, width=panel_width,
                                               height=panel_height + 40)
        table = alt.layer(*readout).properties(width=panel_width,
                                               height=24 * len(lines), view={"stroke": None})
        rows.append(alt.hconcat(sizing, table, spacing=24))
    chart = alt.vconcat(*rows, spacing=20).add_params(*params).properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title,
        description=description)
    chart.datasets = datasets
    return chart


def goodness_of_fit_chart(
    data: pd.DataFrame,
    *,
    observed: str,
    fitted: str,
    residual: str,
    x: str,
    series: str,
    title: str,
    description: str,
    value_title: str,
    x_title: str,
    residual_title: str,
    series_title: str,
    label: str | None = None,
    label_title: str | None = None,
    value_format: str = ".3f",
    residual_format: str = "+.3f",
    x_log: bool = True,
    subtitle: str | Sequence[str] | None = None,
) -> alt.HConcatChart:
    """How well a fit matches its data, in two panels side by side.

    Left: each observation's ``observed`` value against its ``fitted`` value, over the dashed
    line of equality (a perfect fit puts every point on it). Right: the ``residual`` against
    ``x`` (a setting such as the user load), over a line at zero. One colour per ``series`` (a
    model, a fit), in order of appearance; clicking a legend entry highlights a series. Every
    point's tooltip holds the exact values and, with ``label``, which measurement it is.
    """
    _require_columns(data, [observed, fitted, residual, x, series] + ([label] if label else []))
    for name in ("title", "description", "value_title", "x_title", "residual_title",
                 "series_title"):
        _require_text(locals()[name], name)
    frame = data.assign(**{series: data[series].astype(str)})
    order = list(dict.fromkeys(frame[series].tolist()))
    highlight = alt.selection_point(fields=[series], bind="legend", name="fit_highlight")
    colour = alt.Color(f"{series}:N", title=series_title, sort=order,
                       scale=alt.Scale(domain=order, range=palette(len(order))),
                       legend=alt.Legend(orient="bottom", direction="vertical",
                                         labelLimit=LEGEND_LABEL_LIMIT))
    faded = alt.condition(highlight, alt.value(0.95), alt.value(FADED_OPACITY))
    tooltip = ([alt.Tooltip(f"{label}:N", title=label_title or label)] if label else []) + [
        alt.Tooltip(f"{series}:N", title=series_title),
        alt.Tooltip(f"{x}:Q", title=x_title),
        alt.Tooltip(f"{observed}:Q", title=f"Observed: {value_title}", format=value_format),
        alt.Tooltip(f"{fitted}:Q", title=f"Fitted: {value_title}", format=value_format),
        alt.Tooltip(f"{residual}:Q", title=residual_title, format=residual_format),
    ]
    low = float(min(frame[observed].min(), frame[fitted].min()))
    high = float(max(frame[observed].max(), frame[fitted].max()))
    pad = 0.05 * (high - low or 1.0)
    domain = [low - pad, high + pad]
    line = pd.DataFrame({"a": domain, "b": domain, "label": ["observed = fitted"] * 2})
    equality = alt.Chart(line).mark_line(strokeDash=[6, 4], strokeWidth=1.5,
                                         color="#888").encode(
        x=alt.X("a:Q", scale=alt.Scale(domain=domain, nice=False)),
        y=alt.Y("b:Q", scale=alt.Scale(domain=domain, nice=False)),
        tooltip=[alt.Tooltip("label:N", title="Line")])
    scatter = alt.Chart(frame).mark_point(filled=True, size=55).encode(
        x=alt.X(f"{fitted}:Q", title=f"Fitted: {value_title}",
                scale=alt.Scale(domain=domain, nice=False)),
        y=alt.Y(f"{observed}:Q", title=f"Observed: {value_title}",
                scale=alt.Scale(domain=domain, nice=False)),
        color=colour, opacity=faded, tooltip=tooltip).add_params(highlight)
    left = alt.layer(equality, scatter).properties(width=250, height=250,
                                                   title="Observed against fitted")
    x_values = sorted(frame[x].astype(float).unique().tolist())
    x_scale = alt.Scale(type="log", domain=[x_values[0] / 1.3, x_values[-1] * 1.3]) if x_log \
        else alt.Scale(zero=False)
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color="#888", strokeWidth=1.5)\
        .encode(y=alt.Y("zero:Q"))
    spread = alt.Chart(frame).mark_point(filled=True, size=55).encode(
        x=alt.X(f"{x}:Q", title=x_title, scale=x_scale,
                axis=alt.Axis(values=x_values, format="d")),
        y=alt.Y(f"{residual}:Q", title=residual_title),
        color=colour, opacity=faded, tooltip=tooltip)
    right = alt.layer(zero, spread).properties(width=250, height=250, title="Residuals")
    return alt.hconcat(left, right, spacing=30).properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title,
        description=description)
