"""Charts over categories: counts, grids, intervals, bars and stated ranges."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import altair as alt
import pandas as pd

from queuetune.charts._common import (
    category_axis,
    fade,
    field_columns,
    field_tooltips,
    first_seen,
    heading,
    legend_highlight,
    number_format,
    printed,
    require_columns,
    require_texts,
    series_colour,
)
from queuetune.charts._style import LEGEND_LABEL_LIMIT, NARROW_WIDTH, PALETTE


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
    colors: Mapping[str, str] | None = None,
    palette: Sequence[str] | None = None,
) -> alt.Chart:
    """Horizontal bars counting rows per ``category``, stacked by ``stack``.

    Hovering a segment shows its exact count; clicking a legend entry highlights that stack.
    The legend sits below the bars and the plot keeps to NARROW_WIDTH, so that labels, bars
    and legend fit the text column of a desktop page together.
    """
    require_columns(data, [category, stack])
    require_texts(title=title, description=description, category_title=category_title,
                  stack_title=stack_title)
    counts = data.groupby([category, stack]).size().rename("count").reset_index()
    order = list(stack_order) if stack_order else sorted(counts[stack].unique())
    counts["_order"] = counts[stack].map({s: i for i, s in enumerate(order)})
    highlight = legend_highlight(stack)
    return alt.Chart(counts).mark_bar().encode(
        y=alt.Y(f"{category}:N", title=category_title, sort=sorted(counts[category].unique())),
        x=alt.X("sum(count):Q", title="Count", axis=alt.Axis(tickMinStep=1, format="d")),
        color=series_colour(stack, stack_title, order, legend=alt.Legend(
            orient="bottom", direction="horizontal", columns=2, labelLimit=LEGEND_LABEL_LIMIT),
            colors=colors, palette=palette),
        order=alt.Order("_order:Q"),
        opacity=fade(highlight),
        tooltip=[alt.Tooltip(f"{category}:N", title=category_title),
                 alt.Tooltip(f"{stack}:N", title=stack_title),
                 alt.Tooltip("count:Q", title="Count")],
    ).add_params(highlight).properties(title=title, description=description,
                                       width=NARROW_WIDTH, height=alt.Step(28))


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
    subtitle: str | Sequence[str] | None = None,
    cell_labels: bool = True,
    cell_size: tuple[int, int] = (32, 24),
    levels: bool = False,
) -> alt.Chart | alt.FacetChart:
    """Cells of an ``x`` by ``y`` grid coloured by ``value``, each cell printing its value.

    ``x`` and ``y`` are ordinal (their values in ascending order), so uneven levels such as
    10, 25, 50, 100, 200 threads get equal cells. ``label`` names a column holding each cell's
    text (default: ``value`` formatted with ``value_format``); ``tooltip_fields`` adds
    ``(column, title)`` pairs to the tooltip, e.g. the measured values as printed.
    ``diverging`` colours around 0 (blue below, orange above) on a symmetric scale.
    ``facet`` draws one small grid per value of that column, in order of appearance,
    ``facet_columns`` to a row.

    A dense grid (hundreds of cells) reads better without a number in every cell:
    ``cell_labels=False`` leaves the cells plain (the tooltip still gives every value),
    ``cell_size`` = (width, height) in pixels makes them smaller, and ``levels=True`` colours a
    value that takes a few whole levels (a count) with one distinct shade per level, each
    named in the legend, instead of a continuous ramp. Crowded x labels are thinned out.
    """
    _check_heatmap(data, x=x, y=y, value=value, title=title, description=description,
                   x_title=x_title, y_title=y_title, value_title=value_title, label=label,
                   tooltip_fields=tooltip_fields, facet=facet, facet_columns=facet_columns,
                   cell_size=cell_size)
    frame = data.copy()
    if label is None and cell_labels:
        label = "_label"
        frame[label] = printed(frame[value], value_format)
    scale, strong = _heatmap_scale(frame[value], value, diverging)
    tooltip = _heatmap_tooltip(x=x, y=y, value=value, x_title=x_title, y_title=y_title,
                               value_title=value_title, value_format=value_format,
                               tooltip_fields=tooltip_fields, facet=facet,
                               facet_title=facet_title)
    base = alt.Chart(frame).encode(
        x=alt.X(f"{x}:O", title=x_title, sort=sorted(frame[x].unique().tolist()),
                axis=alt.Axis(labelAngle=0, grid=False,
                              **({"labelOverlap": "parity"} if cell_size[0] < 32 else {}))),
        y=alt.Y(f"{y}:O", title=y_title, sort=sorted(frame[y].unique().tolist()),
                axis=alt.Axis(grid=False)),
        tooltip=tooltip,
    )
    colour = _heatmap_colour(value, value_title, scale, value_format, levels)
    layers = _heatmap_layers(base, colour, label, strong, cell_labels, cell_size)
    layered = alt.layer(*layers).properties(width=alt.Step(cell_size[0]),
                                            height=alt.Step(cell_size[1]))
    head = heading(title, subtitle)
    if facet is None:
        return layered.properties(title=head, description=description)
    return _facet_grids(layered, frame[facet], facet, facet_columns).properties(
        title=head, description=description)


# The steps of heatmap: its checks, its colour scale, tooltip and layers, and its facets.

def _check_heatmap(data: pd.DataFrame, *, x: str, y: str, value: str, title: str,
                   description: str, x_title: str, y_title: str, value_title: str,
                   label: str | None, tooltip_fields: Sequence[tuple[str, str]],
                   facet: str | None, facet_columns: int, cell_size: tuple[int, int]) -> None:
    """Check heatmap's arguments."""
    require_columns(data, [x, y, value] + ([label] if label else []) + ([facet] if facet else [])
                     + field_columns(tooltip_fields))
    require_texts(title=title, description=description, x_title=x_title, y_title=y_title,
                  value_title=value_title)
    if facet_columns < 1:
        raise ValueError(f"facet_columns must be an integer >= 1, got {facet_columns!r}")
    if len(cell_size) != 2 or min(cell_size) < 4:
        raise ValueError(f"cell_size must be (width, height) in pixels, each >= 4, got "
                         f"{cell_size!r}")


def _heatmap_scale(values: pd.Series, value: str, diverging: bool) -> tuple[alt.Scale, str]:
    """The colour scale of the cells, and the test of a cell so dark that its text is white:
    above 60 % of the range (of the largest magnitude, when ``diverging`` around 0)."""
    extent = float(values.abs().max()) or 1.0
    if diverging:
        scale = alt.Scale(scheme="blueorange", domain=[-extent, extent], domainMid=0)
        return scale, f"abs(datum['{value}']) > {0.6 * extent!r}"
    low, high = float(values.min()), float(values.max())
    return alt.Scale(scheme="blues"), f"datum['{value}'] > {low + 0.6 * (high - low)!r}"


def _heatmap_tooltip(*, x: str, y: str, value: str, x_title: str, y_title: str,
                     value_title: str, value_format: str | None,
                     tooltip_fields: Sequence[tuple[str, str]], facet: str | None,
                     facet_title: str | None) -> list[alt.Tooltip]:
    """A cell's tooltip: its facet, row and column, the extra fields and its value."""
    return ([alt.Tooltip(f"{facet}:N", title=facet_title or facet)] if facet else []) + [
        alt.Tooltip(f"{y}:O", title=y_title),
        alt.Tooltip(f"{x}:O", title=x_title),
        *field_tooltips(tooltip_fields),
        alt.Tooltip(f"{value}:Q", title=value_title,
                    **number_format(value_format)),
    ]


def _heatmap_colour(value: str, value_title: str, scale: alt.Scale, value_format: str | None,
                    levels: bool) -> alt.Color:
    """The cells' colour: a ramp on ``scale``, or with ``levels`` one shade per level."""
    if levels:
        # One distinct colour per level, yellow to dark blue, the lightest still clearly
        # coloured against the white page.
        return alt.Color(f"{value}:O", title=value_title, legend=alt.Legend(
            orient="bottom", direction="horizontal", **number_format(value_format)),
            scale=alt.Scale(scheme={"name": "yellowgreenblue", "extent": [0.15, 1.0]}),
            sort="ascending")
    legend = alt.Legend(orient="bottom", direction="horizontal", gradientLength=220,
                        **number_format(value_format))
    return alt.Color(f"{value}:Q", title=value_title, scale=scale, legend=legend)


def _heatmap_layers(base: alt.Chart, colour: alt.Color, label: str | None, strong: str,
                    cell_labels: bool, cell_size: tuple[int, int]) -> list[alt.Chart]:
    """The cells and, with ``cell_labels``, their texts (white on the darkest cells)."""
    cells = base.mark_rect(stroke="white", strokeWidth=1 if min(cell_size) >= 12 else 0.5
                           ).encode(color=colour)
    layers = [cells]
    if cell_labels:
        layers.append(base.mark_text(fontSize=10).encode(
            text=alt.Text(f"{label}:N"),
            color=alt.condition(strong, alt.value("white"), alt.value("#222")),
        ))
    return layers


def _facet_grids(layered: alt.LayerChart, facets: pd.Series, facet: str,
                 facet_columns: int) -> alt.FacetChart:
    """One small grid per value of ``facet``, in order of appearance, ``facet_columns`` to a
    row; each draws its own x axis, so a short last row leaves no orphaned axis."""
    order = list(dict.fromkeys(facets.tolist()))
    return layered.facet(
        facet=alt.Facet(f"{facet}:N", title=None, sort=order,
                        header=alt.Header(labelFontSize=12, labelFontWeight="bold")),
        columns=facet_columns,
    ).resolve_axis(x="independent")


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
    require_columns(data, [category, estimate, low, high])
    require_texts(title=title, description=description, category_title=category_title,
                  value_title=value_title)
    fmt = number_format(value_format)
    tooltip = [alt.Tooltip(f"{category}:N", title=category_title),
               alt.Tooltip(f"{estimate}:Q", title=value_title, **fmt),
               alt.Tooltip(f"{low}:Q", title="Interval from", **fmt),
               alt.Tooltip(f"{high}:Q", title="Interval to", **fmt)]
    order = first_seen(data[category])
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
    return alt.layer(*layers).properties(title=heading(title, subtitle), description=description,
                                         height=alt.Step(36))


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
    require_columns(data, [category, value] + ([label] if label else [])
                     + field_columns(tooltip_fields))
    require_texts(title=title, description=description, category_title=category_title,
                  value_title=value_title)
    frame = data.assign(**{category: data[category].astype(str)})
    if label is None:
        label = "_label"
        frame[label] = printed(frame[value], value_format)
    order = first_seen(frame[category])
    base = alt.Chart(frame).encode(
        y=alt.Y(f"{category}:N", title=category_title, sort=order,
                axis=category_axis()),
        x=alt.X(f"{value}:Q", title=value_title, scale=alt.Scale(zero=True)),
        tooltip=[alt.Tooltip(f"{category}:N", title=category_title),
                 *field_tooltips(tooltip_fields),
                 alt.Tooltip(f"{value}:Q", title=value_title,
                             **number_format(value_format))],
    )
    bars = base.mark_bar(color=PALETTE[0], height={"band": 0.7})
    text = base.mark_text(align="left", dx=4, color="#222", fontSize=12).encode(
        text=alt.Text(f"{label}:N"))
    return alt.layer(bars, text).properties(
        title=heading(title, subtitle),
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
    colors: Mapping[str, str] | None = None,
    palette: Sequence[str] | None = None,
) -> alt.LayerChart:
    """Stated ranges, one row per ``category`` (in data order): a bar from ``low`` to ``high``
    with a dot at each end, so that a single value (``low == high``) shows as one dot.

    Nothing is drawn between the ends but the bar: no midpoint or estimate is implied.
    ``series`` colours the rows by a column (with a legend), e.g. guideline against reading;
    ``tooltip_fields`` adds ``(column, title)`` pairs to the tooltip; ``width`` is the plot's
    width in pixels.
    """
    require_columns(data, [category, low, high] + ([series] if series else [])
                     + field_columns(tooltip_fields))
    require_texts(title=title, description=description, category_title=category_title,
                  value_title=value_title)
    if (data[low] > data[high]).any():
        raise ValueError(f"every row needs {low} <= {high}")
    frame = data.assign(**{category: data[category].astype(str)})
    order = first_seen(frame[category])
    fmt = number_format(value_format)
    tooltip = [alt.Tooltip(f"{category}:N", title=category_title),
               *([alt.Tooltip(f"{series}:N", title=series_title or series)] if series else []),
               *field_tooltips(tooltip_fields),
               alt.Tooltip(f"{low}:Q", title=f"{value_title}, from", **fmt),
               alt.Tooltip(f"{high}:Q", title=f"{value_title}, to", **fmt)]
    if series:
        colour = series_colour(series, series_title or series, first_seen(frame[series]),
                               legend=alt.Legend(orient="top", symbolStrokeWidth=3),
                               colors=colors, palette=palette)
    else:
        colour = alt.value(PALETTE[0])
    base = alt.Chart(frame).encode(
        y=alt.Y(f"{category}:N", title=category_title, sort=order,
                axis=category_axis()),
        color=colour,
        tooltip=tooltip,
    )
    bar = base.mark_rule(strokeWidth=6).encode(
        x=alt.X(f"{low}:Q", title=value_title, scale=alt.Scale(zero=True)), x2=f"{high}:Q")
    ends = [base.mark_point(filled=True, size=110, opacity=1).encode(
        x=alt.X(f"{end}:Q", title=value_title)) for end in (low, high)]
    return alt.layer(bar, *ends).properties(
        title=heading(title, subtitle),
        description=description, height=alt.Step(34), width=width)
