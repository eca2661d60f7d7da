"""Line charts: measured series, step series, speedups, model curves and panels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import altair as alt
import pandas as pd

from queuetune.charts._common import (
    fade,
    field_columns,
    field_tooltips,
    first_seen,
    heading,
    kind_chart,
    legend_highlight,
    marked_at,
    number_format,
    require_columns,
    require_domain,
    require_frame,
    require_text,
    require_texts,
    series_colour,
    series_colours,
    settings_scale,
    stroke_legend,
)
from queuetune.charts._style import BAND_COLOUR, HEIGHT, LEGEND_LABEL_LIMIT, PALETTE, WIDTH


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
    colors: Mapping[str, str] | None = None,
    palette: Sequence[str] | None = None,
) -> alt.Chart:
    """Lines with points, one line per value of ``series``.

    Hovering a point shows its exact values; clicking a legend entry highlights that series
    (shift-click adds more, clicking the background resets).

    ``x_title`` and ``y_title`` name the quantities with their units, e.g. "Response time (s)".
    ``y_format`` is a d3 format for the tooltip value (".3f" keeps three printed decimals).
    """
    require_columns(data, [x, y, series])
    require_texts(title=title, description=description, x_title=x_title, y_title=y_title)
    series_title = series_title or series
    highlight = legend_highlight(series)
    tooltip = [
        alt.Tooltip(f"{series}:N", title=series_title),
        alt.Tooltip(f"{x}:Q", title=x_title),
        alt.Tooltip(f"{y}:Q", title=y_title, **number_format(y_format)),
    ]
    series_order = sorted(data[series].unique().tolist())
    base = alt.Chart(data).encode(
        x=alt.X(f"{x}:Q", title=x_title),
        y=alt.Y(f"{y}:Q", title=y_title, scale=alt.Scale(zero=y_zero)),
        color=series_colour(series, series_title, series_order,
                            legend=alt.Legend(symbolType="stroke", symbolStrokeWidth=3),
                            colors=colors, palette=palette),
        opacity=fade(highlight),
        tooltip=tooltip,
    )
    lines = base.mark_line()
    points = base.mark_point(filled=True, size=70)
    return alt.layer(lines.add_params(highlight), points).properties(
        title=heading(title, subtitle),
        description=description,
    )


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
    colors: Mapping[str, str] | None = None,
    palette: Sequence[str] | None = None,
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
    require_columns(data, [x, label] + [p[0] for p in panels])
    require_texts(title=title, description=description, x_title=x_title, label_title=label_title,
                  measured_name=measured_name, reference_name=reference_name)
    placed = data[data[x].notna()].copy()
    references = data[data[x].isna()].copy()
    if placed.empty:
        raise ValueError(f"no row of data has a value of {x!r} to place on the x axis")
    placed[x] = placed[x].astype(float)
    domain = [measured_name, reference_name] if len(references) else [measured_name]
    chosen = series_colours(domain, colors, palette)
    colour_scale = alt.Scale(domain=domain, range=[PALETTE[0], PALETTE[3]][:len(domain)]
                             if chosen is None else chosen)
    x_values = sorted(placed[x].unique().tolist())
    x_scale = settings_scale(x_values, x_log, pad=1.6)
    charts = []
    for column, y_title, fmt in panels:
        require_text(y_title, "y_title")
        tooltip = [alt.Tooltip(f"{label}:N", title=label_title),
                   alt.Tooltip(f"{column}:Q", title=y_title, format=fmt)]
        x_enc = alt.X(f"{x}:Q", title=x_title, scale=x_scale,
                      axis=alt.Axis(values=x_values, format="d"))
        base = kind_chart(placed, measured_name).encode(
            x=x_enc,
            y=alt.Y(f"{column}:Q", title=y_title, scale=alt.Scale(zero=True)),
            color=alt.Color("_kind:N", title=None, scale=colour_scale,
                            legend=alt.Legend(orient="top", symbolStrokeWidth=3,
                                              labelLimit=LEGEND_LABEL_LIMIT)),
            tooltip=[alt.Tooltip(f"{label}:N", title=label_title),
                     alt.Tooltip(f"{x}:Q", title=x_title, format="d"),
                     tooltip[1]],
        )
        layers = [base.mark_line(), base.mark_point(filled=True, size=80)]
        if len(references):
            rule = kind_chart(references, reference_name).encode(
                y=alt.Y(f"{column}:Q"),
                color=alt.Color("_kind:N", scale=colour_scale),
                tooltip=tooltip,
            )
            layers.append(rule.mark_rule(strokeDash=[6, 4], strokeWidth=2.5))
        charts.append(alt.layer(*layers).properties(height=HEIGHT * 0.7))
    return alt.vconcat(*charts, spacing=18).resolve_scale(color="shared").properties(
        title=heading(title, subtitle),
        description=description,
    )


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
    colors: Mapping[str, str] | None = None,
    palette: Sequence[str] | None = None,
) -> alt.LayerChart:
    """A time series that holds each value until the next sample, one step line per ``series``.

    For counts that jump (threads in a pool, connections in a queue) sampled at regular times:
    each line is drawn ``step-after``, and every sample carries a tooltip with its exact values
    (hover along a line). Clicking a legend entry highlights that series. ``y_rules`` /
    ``x_rules`` (columns ``value`` and ``label``) draw labelled dashed reference lines, e.g. a
    configured limit or the moment the load changes; series keep the order of first appearance.
    A long ``subtitle`` can be given as a list of lines.
    """
    require_columns(data, [x, y, series])
    require_texts(title=title, description=description, x_title=x_title, y_title=y_title)
    require_frame(y_rules, ["value", "label"], "y_rules")
    require_frame(x_rules, ["value", "label"], "x_rules")
    series_title = series_title or series
    order = first_seen(data[series])
    frame = data.assign(**{series: data[series].astype(str)})
    highlight = legend_highlight(series)
    x_fmt = number_format(x_format)
    x_enc = alt.X(f"{x}:Q", title=x_title, scale=alt.Scale(zero=True, nice=False),
                  axis=alt.Axis(**x_fmt))
    colour = series_colour(series, series_title, order, legend=stroke_legend("top"),
                           colors=colors, palette=palette)
    tooltip = [alt.Tooltip(f"{series}:N", title=series_title),
               alt.Tooltip(f"{x}:Q", title=x_title, **x_fmt),
               alt.Tooltip(f"{y}:Q", title=y_title)]
    lines = alt.Chart(frame).mark_line(interpolate="step-after", strokeWidth=2).encode(
        x=x_enc, y=alt.Y(f"{y}:Q", title=y_title, scale=alt.Scale(zero=True)), color=colour,
        opacity=fade(highlight),
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
        title=heading(title, subtitle),
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
    colors: Mapping[str, str] | None = None,
    palette: Sequence[str] | None = None,
) -> alt.LayerChart:
    """Speedup against the number of CPUs, one line with points per ``series`` (in data order),
    over a dashed grey line of linear speedup (C(p) = p).

    The x axis ticks are the CPU counts in the data. Hovering a point shows its exact values and
    the ``tooltip_fields`` (``(column, title)`` pairs); clicking a legend entry highlights a
    series. The legend sits under the chart, two entries to a row. A long ``subtitle`` can be
    given as a list of lines.
    """
    require_columns(data, [cpus, speedup, series] + field_columns(tooltip_fields))
    require_texts(title=title, description=description, series_title=series_title,
                  x_title=x_title, y_title=y_title, linear_label=linear_label)
    frame = data.assign(**{series: data[series].astype(str)})
    order = first_seen(frame[series])
    ticks = sorted({int(v) for v in frame[cpus]})
    highlight = legend_highlight(series)
    x_enc = alt.X(f"{cpus}:Q", title=x_title, scale=alt.Scale(domain=[0, ticks[-1]]),
                  axis=alt.Axis(values=ticks, format="d"))
    y_enc = alt.Y(f"{speedup}:Q", title=y_title, scale=alt.Scale(domain=[0, ticks[-1]]))
    tooltip = [alt.Tooltip(f"{series}:N", title=series_title),
               *field_tooltips(tooltip_fields),
               alt.Tooltip(f"{cpus}:Q", title=x_title),
               alt.Tooltip(f"{speedup}:Q", title=y_title, format=".2f")]
    base = alt.Chart(frame).encode(
        x=x_enc, y=y_enc,
        color=series_colour(series, series_title, order,
                            legend=stroke_legend("bottom", "vertical", columns=2),
                            colors=colors, palette=palette),
        opacity=fade(highlight),
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
        title=heading(title, subtitle),
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
    colors: Mapping[str, str] | None = None,
    palette: Sequence[str] | None = None,
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
    order = _check_curves(curves, x=x, y=y, series=series, title=title,
                          description=description, x_title=x_title, y_title=y_title,
                          unmarked=unmarked, dashed=dashed, points=points,
                          points_name=points_name, y_rules=y_rules, y_bands=y_bands,
                          y_domain=y_domain)
    series_title = series_title or series
    if series_title in (x_title, y_title):
        raise ValueError(f"series_title must differ from x_title and y_title (a tooltip shows "
                         f"each once), got {series_title!r}")
    frame = curves.assign(**{series: curves[series].astype(str)})
    highlight = legend_highlight(series)
    y_scale = alt.Scale(domain=list(y_domain)) if y_domain is not None else alt.Scale(zero=True)
    clip = y_domain is not None
    x_enc = alt.X(f"{x}:Q", title=x_title, scale=alt.Scale(zero=True, nice=False))
    y_enc = alt.Y(f"{y}:Q", title=y_title, scale=y_scale)
    legend = stroke_legend("bottom", "vertical")
    colour = series_colour(series, series_title, order, legend, colors, palette)
    dash = alt.StrokeDash(f"{series}:N", title=series_title, sort=order, legend=legend,
                          scale=alt.Scale(domain=order, range=[[7, 4] if s in dashed else [1, 0]
                                                               for s in order]))
    tooltip = [alt.Tooltip(f"{series}:N", title=series_title),
               alt.Tooltip(f"{x}:Q", title=x_title, format=x_format),
               alt.Tooltip(f"{y}:Q", title=y_title, format=y_format)]
    faded = fade(highlight)
    base = alt.Chart(frame).encode(x=x_enc, y=y_enc, color=colour, tooltip=tooltip)
    lines = base.mark_line(strokeWidth=2.5, clip=clip).encode(
        strokeDash=dash, opacity=faded).add_params(highlight)
    # Invisible points: a hover target with the exact values at every grid row.
    targets = base.mark_point(size=45, opacity=0, filled=True, clip=clip)
    layers: list[alt.Chart] = []
    if y_bands is not None:
        layers += _curve_band_layers(y_bands, y_scale, y_title, y_format)
    if y_rules is not None:
        layers += _curve_rule_layers(y_rules, y_scale, y_title, y_format)
    layers += [lines, targets]
    if len(marks_at) and set(order) - set(unmarked):
        layers.append(_curve_marks(base, x, series, order, marks_at, unmarked, clip, faded))
    if points is not None:
        layers.append(_curve_points_layer(
            points, points_name, x=x, y=y, x_title=x_title, y_title=y_title,
            x_format=x_format, y_format=y_format, y_scale=y_scale, clip=clip))
    chart = alt.layer(*layers)
    if points is not None:  # the stated points' legend stands apart from the series'
        chart = chart.resolve_legend(shape="independent")
    return chart.properties(
        title=heading(title, subtitle),
        description=description, width=WIDTH, height=HEIGHT)


# The steps of curve_chart: its checks, and its layers one kind each.

def _check_curves(curves: pd.DataFrame, *, x: str, y: str, series: str, title: str,
                  description: str, x_title: str, y_title: str, unmarked: Sequence[str],
                  dashed: Sequence[str], points: pd.DataFrame | None, points_name: str | None,
                  y_rules: pd.DataFrame | None, y_bands: pd.DataFrame | None,
                  y_domain: tuple[float, float] | None) -> list[str]:
    """Check curve_chart's arguments; the series in order of first appearance."""
    require_columns(curves, [x, y, series])
    require_texts(title=title, description=description, x_title=x_title, y_title=y_title)
    order = first_seen(curves[series])
    for names, name in ((dashed, "dashed"), (unmarked, "unmarked")):
        unknown = sorted(set(names) - set(order))
        if unknown:
            raise ValueError(f"{name} names series {unknown} that curves lack; series: {order}")
    require_frame(y_rules, ["value", "label"], "y_rules")
    require_frame(y_bands, ["low", "high", "label"], "y_bands")
    require_frame(points, [x, y, "label"], "points")
    if points is not None:
        require_text(points_name, "points_name")
    require_domain(y_domain, "y_domain")
    return order


def _curve_band_layers(bands: pd.DataFrame, y_scale: alt.Scale, y_title: str,
                       y_format: str) -> list[alt.Chart]:
    """Shaded ranges of y, each labelled on its upper edge at the right (clear of curves
    inside it)."""
    tips = [alt.Tooltip("label:N", title="Band"),
            alt.Tooltip("low:Q", title=f"{y_title}, from", format=y_format),
            alt.Tooltip("high:Q", title=f"{y_title}, to", format=y_format)]
    return [alt.Chart(bands).mark_rect(color=BAND_COLOUR, opacity=0.22).encode(
                y=alt.Y("low:Q", scale=y_scale), y2="high:Q", tooltip=tips),
            alt.Chart(bands).mark_text(align="right", baseline="bottom", dy=-3,
                                       color="#333", fontSize=12).encode(
                x=alt.value(WIDTH - 4), y=alt.Y("high:Q", scale=y_scale), text="label:N",
                tooltip=tips)]


def _curve_rule_layers(rules: pd.DataFrame, y_scale: alt.Scale, y_title: str,
                       y_format: str) -> list[alt.Chart]:
    """Dashed lines across the chart, labelled at the right end."""
    tips = [alt.Tooltip("label:N", title="Line"),
            alt.Tooltip("value:Q", title=y_title, format=y_format)]
    return [alt.Chart(rules).mark_rule(strokeDash=[3, 3], strokeWidth=1.5,
                                       color="#444").encode(
                y=alt.Y("value:Q", scale=y_scale), tooltip=tips),
            alt.Chart(rules).mark_text(align="right", baseline="bottom", dy=-4,
                                       color="#222", fontSize=12).encode(
                x=alt.value(WIDTH - 4), y=alt.Y("value:Q", scale=y_scale), text="label:N",
                tooltip=tips)]


def _curve_marks(base: alt.Chart, x: str, series: str, order: Sequence[str],
                 marks_at: Sequence[float], unmarked: Sequence[str], clip: bool,
                 faded: alt.OpacityValue) -> alt.Chart:
    """Dots on the curves at every x of ``marks_at``, except on the ``unmarked`` series."""
    marked = marked_at(base, x, marks_at)
    if unmarked:
        marked = marked.transform_filter(alt.FieldOneOfPredicate(
            field=series, oneOf=[s for s in order if s not in unmarked]))
    return marked.mark_point(filled=True, size=60, clip=clip).encode(opacity=faded)


def _curve_points_layer(points: pd.DataFrame, points_name: str, *, x: str, y: str,
                        x_title: str, y_title: str, x_format: str, y_format: str,
                        y_scale: alt.Scale, clip: bool) -> alt.Chart:
    """The values the source states, as open squares under their own legend entry."""
    kind = alt.Scale(domain=[points_name], range=["square"])
    return kind_chart(points, points_name).mark_point(
        filled=False, size=120, strokeWidth=2, color="#222", opacity=1, clip=clip).encode(
        x=alt.X(f"{x}:Q"), y=alt.Y(f"{y}:Q", scale=y_scale),
        shape=alt.Shape("_kind:N", scale=kind, legend=alt.Legend(
            orient="top", title=None, labelLimit=LEGEND_LABEL_LIMIT)),
        tooltip=[alt.Tooltip("label:N", title="Stated"),
                 alt.Tooltip(f"{x}:Q", title=x_title, format=x_format),
                 alt.Tooltip(f"{y}:Q", title=y_title, format=y_format)])


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
    measured: pd.DataFrame | None = None,
    measured_name: str = "measured",
    colors: Mapping[str, str] | None = None,
    palette: Sequence[str] | None = None,
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

    ``measured`` (columns ``x``, ``column`` and the panels' quantities) adds measurements to
    every panel: black open circles, never joined, with their own legend entry
    ``measured_name`` and a tooltip with their exact values.
    """
    if not panels:
        raise ValueError("panels must list at least one (column, y_title, tooltip_format)")
    fields = [p[0] for p in panels]
    require_columns(curves, [x, series, column] + fields)
    require_frame(measured, [x, column] + fields, "measured")
    require_texts(title=title, description=description, x_title=x_title,
                  series_title=series_title, column_title=column_title,
                  measured_name=measured_name)
    for _, y_title, _ in panels:
        require_text(y_title, "y_title of a panel")
    order = first_seen(curves[series])
    settings = first_seen(curves[column])
    frame = _panel_frame(curves, measured, series, column, measured_name)
    highlight = legend_highlight(series)
    colour = series_colour(series, series_title, order, stroke_legend("bottom", "horizontal"),
                           colors, palette)
    rows = []
    for i, panel in enumerate(panels):
        layers = _panel_layers(panel, x=x, series=series, column=column, x_title=x_title,
                               series_title=series_title, column_title=column_title,
                               x_format=x_format, last=i == len(panels) - 1,
                               colour=colour, highlight=highlight, first=i == 0,
                               marks_at=marks_at, measured=measured is not None,
                               measured_name=measured_name)
        header = (alt.Header(labelFontSize=12, labelFontWeight="bold", titleFontSize=13)
                  if i == 0 else alt.Header(labels=False, title=None))
        rows.append(alt.layer(*layers, data=frame).properties(
            width=panel_width, height=panel_height).facet(
            column=alt.Column(f"{column}:N", sort=settings, header=header,
                              title=column_title if i == 0 else None)))
    return alt.vconcat(*rows, spacing=14).properties(
        title=heading(title, subtitle),
        description=description)


def _panel_frame(curves: pd.DataFrame, measured: pd.DataFrame | None, series: str,
                 column: str, measured_name: str) -> pd.DataFrame:
    """Curves and measurements in one table (a faceted chart has one data source), told apart
    by ``_kind``."""
    frame = curves.assign(**{series: curves[series].astype(str),
                             column: curves[column].astype(str)})
    if measured is None:
        return frame
    frame = frame.assign(_kind="curve")
    points = measured.assign(**{column: measured[column].astype(str)},
                             _kind=measured_name)
    if series not in points:
        points[series] = measured_name
    return pd.concat([frame, points[[c for c in frame.columns if c in points]]],
                     ignore_index=True)


def _panel_layers(panel: tuple[str, str, str], *, x: str, series: str, column: str,
                  x_title: str, series_title: str, column_title: str, x_format: str,
                  last: bool, colour: alt.Color, highlight: alt.Parameter, first: bool,
                  marks_at: Sequence[float], measured: bool, measured_name: str
                  ) -> list[alt.Chart]:
    """The layers of one row of panels: lines, hover targets, marks, measurements."""
    field, y_title, y_format = panel
    faded = fade(highlight)
    tooltip = [alt.Tooltip(f"{series}:N", title=series_title),
               alt.Tooltip(f"{column}:N", title=column_title),
               alt.Tooltip(f"{x}:Q", title=x_title, format=x_format),
               alt.Tooltip(f"{field}:Q", title=y_title, format=y_format)]
    axes = alt.Chart().encode(
        x=alt.X(f"{x}:Q", title=x_title if last else None,
                scale=alt.Scale(zero=True, nice=False)),
        y=alt.Y(f"{field}:Q", title=y_title, scale=alt.Scale(zero=True)))
    base = axes.encode(color=colour, tooltip=tooltip)
    if measured:
        base = base.transform_filter(alt.datum._kind == "curve")
    lines = base.mark_line(strokeWidth=2.2).encode(opacity=faded)
    if first:
        lines = lines.add_params(highlight)
    # Invisible points: a hover target with the exact values at every grid row.
    layers = [lines, base.mark_point(size=40, opacity=0, filled=True)]
    if len(marks_at):
        layers.append(marked_at(base, x, marks_at).mark_point(
            filled=True, size=36).encode(opacity=faded))
    if measured:
        shape = alt.Shape("_kind:N", title=None, scale=alt.Scale(
            domain=[measured_name], range=["circle"]), legend=alt.Legend(orient="bottom"))
        layers.append(axes.transform_filter(alt.datum._kind == measured_name).mark_point(
            filled=False, size=46, strokeWidth=1.6, color="black").encode(
            shape=shape,
            tooltip=[alt.Tooltip("_kind:N", title="what"),
                     alt.Tooltip(f"{column}:N", title=column_title), *tooltip[2:]]))
    return layers
