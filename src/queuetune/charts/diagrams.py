"""Schematic charts: stated points against reference lines, and block diagrams."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import altair as alt
import pandas as pd

from queuetune.charts._common import (
    field_columns,
    field_tooltips,
    first_seen,
    heading,
    number_format,
    require_columns,
    require_domain,
    require_frame,
    require_texts,
    series_colour,
)
from queuetune.charts._style import HEIGHT, PALETTE, WIDTH


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
    colors: Mapping[str, str] | None = None,
    palette: Sequence[str] | None = None,
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
    require_texts(title=title, description=description, x_title=x_title, y_title=y_title)
    require_frame(y_rules, ["value", "label"], "y_rules")
    require_frame(x_rules, ["value", "label"], "x_rules")
    require_frame(y_bands, ["low", "high", "label"], "y_bands")
    require_frame(x_bands, ["low", "high", "label"], "x_bands")
    if points is None and (x_domain is None or y_domain is None):
        raise ValueError("without points, x_domain and y_domain must both be given")
    require_domain(x_domain, "x_domain")
    require_domain(y_domain, "y_domain")
    fmt = number_format(value_format)
    x_scale = alt.Scale(domain=list(x_domain)) if x_domain else alt.Scale(zero=True)
    y_scale = alt.Scale(domain=list(y_domain)) if y_domain else alt.Scale(zero=True)

    def x_enc(field: str) -> alt.X:
        return alt.X(f"{field}:Q", title=x_title, scale=x_scale)

    def y_enc(field: str) -> alt.Y:
        return alt.Y(f"{field}:Q", title=y_title, scale=y_scale)

    layers: list[alt.Chart] = []
    if y_bands is not None:
        layers += _y_band_layers(y_bands, y_enc, y_title, fmt)
    if x_bands is not None:
        layers += _x_band_layers(x_bands, x_enc, x_title)
    if y_rules is not None:
        layers += _y_rule_layers(y_rules, y_enc, y_title, fmt)
    if x_rules is not None:
        layers += _x_rule_layers(x_rules, x_enc, x_title, fmt)
    if points is not None:
        require_columns(points, [x, y] + ([series] if series else [])
                         + field_columns(tooltip_fields))
        layers.append(_point_layer(points, x_enc(x), y_enc(y), x=x, y=y, x_title=x_title,
                                   y_title=y_title, series=series, series_title=series_title,
                                   tooltip_fields=tooltip_fields, fmt=fmt,
                                   colours=(colors, palette)))
    if not layers:
        raise ValueError("nothing to draw: give points, rules or bands")
    return alt.layer(*layers).properties(
        title=heading(title, subtitle),
        description=description, width=WIDTH, height=HEIGHT)


# The layers of reference_chart, one kind each (encoders passed in keep the chart's scales).

def _y_band_layers(y_bands: pd.DataFrame, y_enc, y_title: str, fmt: dict) -> list[alt.Chart]:
    """Shaded horizontal bands with their labels at the left edge."""
    colours = (y_bands["colour"].tolist() if "colour" in y_bands.columns
               else ["#888"] * len(y_bands))
    bands = y_bands.assign(_mid=(y_bands["low"] + y_bands["high"]) / 2, _colour=colours)
    tips = [alt.Tooltip("label:N", title="Band"),
            alt.Tooltip("low:Q", title=f"{y_title}, from", **fmt),
            alt.Tooltip("high:Q", title=f"{y_title}, to", **fmt)]
    return [alt.Chart(bands).mark_rect(opacity=0.16).encode(
                y=y_enc("low"), y2="high:Q", fill=alt.Fill("_colour:N", scale=None, legend=None),
                tooltip=tips),
            alt.Chart(bands).mark_text(align="left", baseline="middle", dx=6,
                                       color="#333", fontSize=12).encode(
                x=alt.value(0), y=y_enc("_mid"), text="label:N", tooltip=tips)]


def _x_band_layers(x_bands: pd.DataFrame, x_enc, x_title: str) -> list[alt.Chart]:
    """Shaded vertical bands, neighbours alternating in shade, labelled at the top."""
    bands = x_bands.assign(_mid=(x_bands["low"] + x_bands["high"]) / 2,
                           _shade=[0.10 if i % 2 == 0 else 0.22 for i in range(len(x_bands))])
    tips = [alt.Tooltip("label:N", title="Band"),
            alt.Tooltip("low:Q", title=f"{x_title}, from"),
            alt.Tooltip("high:Q", title=f"{x_title}, to")]
    return [alt.Chart(bands).mark_rect(color="#555").encode(
                x=x_enc("low"), x2="high:Q",
                opacity=alt.Opacity("_shade:Q", scale=None, legend=None), tooltip=tips),
            alt.Chart(bands).mark_text(align="center", baseline="top", dy=4,
                                       color="#333", fontSize=12).encode(
                x=x_enc("_mid"), y=alt.value(0), text="label:N", tooltip=tips)]


def _rule_tips(title: str, fmt: dict) -> list[alt.Tooltip]:
    return [alt.Tooltip("label:N", title="Line"), alt.Tooltip("value:Q", title=title, **fmt)]


def _dashed(rules: pd.DataFrame) -> alt.Chart:
    return alt.Chart(rules).mark_rule(strokeDash=[6, 4], strokeWidth=2, color="#444")


def _y_rule_layers(rules: pd.DataFrame, y_enc, y_title: str, fmt: dict) -> list[alt.Chart]:
    """Dashed lines across the chart, labelled at the right end."""
    tips = _rule_tips(y_title, fmt)
    return [_dashed(rules).encode(y=y_enc("value"), tooltip=tips),
            alt.Chart(rules).mark_text(
                align="right", baseline="bottom", dy=-4, color="#222", fontSize=12).encode(
                x=alt.value(WIDTH - 4), y=y_enc("value"), text="label:N", tooltip=tips)]


def _x_rule_layers(rules: pd.DataFrame, x_enc, x_title: str, fmt: dict) -> list[alt.Chart]:
    """Dashed vertical lines from below the x bands' labels down to the axis, labelled."""
    tips = _rule_tips(x_title, fmt)
    return [_dashed(rules).encode(x=x_enc("value"), y=alt.value(20), y2=alt.value(HEIGHT),
                                  tooltip=tips),
            alt.Chart(rules).mark_text(
                align="left", baseline="bottom", dx=5, color="#222", fontSize=12).encode(
                x=x_enc("value"), y=alt.value(HEIGHT - 4), text="label:N", tooltip=tips)]


def _point_layer(points: pd.DataFrame, x_channel: alt.X, y_channel: alt.Y, *, x: str, y: str,
                 x_title: str, y_title: str, series: str | None, series_title: str | None,
                 tooltip_fields: Sequence[tuple[str, str]], fmt: dict,
                 colours: tuple = (None, None)) -> alt.Chart:
    """The stated points as large dots, coloured by series when there is one (``colours`` =
    the chapter's ``(colors, palette)``)."""
    tips = [*([alt.Tooltip(f"{series}:N", title=series_title or series)] if series else []),
            *field_tooltips(tooltip_fields),
            alt.Tooltip(f"{x}:Q", title=x_title),
            alt.Tooltip(f"{y}:Q", title=y_title, **fmt)]
    if series:
        colour = series_colour(series, series_title or series, first_seen(points[series]),
                               alt.Legend(orient="bottom", direction="vertical",
                                          symbolOpacity=1, labelLimit=WIDTH), *colours)
    else:
        colour = alt.value(PALETTE[0])
    return alt.Chart(points).mark_point(filled=True, size=130, opacity=1).encode(
        x=x_channel, y=y_channel, color=colour, tooltip=tips)


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

    require_columns(boxes, ["x", "y", "x2", "y2", "label", "detail"])
    require_columns(arrows, ["x", "y", "x2", "y2", "label", "detail"])
    require_texts(title=title, description=description)
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
        title=heading(title, subtitle),
        description=description, width=width, height=height)
