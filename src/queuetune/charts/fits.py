"""Charts of fitted models: a fit with its band, and the goodness of fit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import altair as alt
import pandas as pd

from queuetune.charts._common import (
    fade,
    first_seen,
    heading,
    kind_chart,
    legend_highlight,
    marked_at,
    require_columns,
    require_domain,
    require_text,
    require_texts,
    series_colour,
    series_colours,
    settings_scale,
)
from queuetune.charts._style import BAND_COLOUR, LEGEND_LABEL_LIMIT, PALETTE


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
    band_at_settings: bool = False,
    colors: Mapping[str, str] | None = None,
    palette: Sequence[str] | None = None,
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

    ``band_at_settings`` draws the band as a thick grey bar at each measured and predicted
    setting (rows of ``curve`` at those ``x``, which it must hold) instead of an area along the
    curve: a band so wide that it runs off the chart would otherwise grey the whole plot.
    """
    _check_fit(points, curve, x=x, y=y, fit=fit, low=low, high=high, title=title,
               description=description, x_title=x_title, y_title=y_title,
               measured_name=measured_name, fit_name=fit_name, band_name=band_name,
               predictions=predictions, prediction_name=prediction_name, label=label,
               y_domain=y_domain)
    names = [measured_name, fit_name] + ([prediction_name] if predictions is not None else [])
    kinds = _FitKinds(names, colors, palette)
    x_values = _fit_settings(points, predictions, x)
    x_enc = alt.X(f"{x}:Q", title=x_title,
                  scale=_fit_x_scale(points, curve, predictions, x, x_log),
                  axis=alt.Axis(values=x_values, format="d"))
    y_scale = alt.Scale(domain=list(y_domain)) if y_domain is not None else alt.Scale()
    clip = y_domain is not None
    fmt = {"format": y_format}
    x_tip = alt.Tooltip(f"{x}:Q", title=x_title, format="d")
    band_tips = [x_tip, alt.Tooltip(f"{low}:Q", title=f"{band_name}, low", **fmt),
                 alt.Tooltip(f"{high}:Q", title=f"{band_name}, high", **fmt)]
    band_y = alt.Y(f"{low}:Q", title=y_title, scale=y_scale)
    if band_at_settings:
        band = _fit_band_at_settings(curve, band_name, x=x, high=high, x_values=x_values,
                                     x_enc=x_enc, band_y=band_y, tips=band_tips, clip=clip)
    else:
        band = _fit_band_area(curve, band_name, high=high, x_enc=x_enc, band_y=band_y,
                              tips=band_tips, clip=clip)
    line = kind_chart(curve, fit_name).mark_line(clip=clip).encode(
        x=x_enc, y=alt.Y(f"{fit}:Q", title=y_title), **kinds.encoding(False),
        tooltip=[x_tip, alt.Tooltip(f"{fit}:Q", title=fit_name, **fmt)],
    )
    label_tip = [alt.Tooltip(f"{label}:N", title=label_title or label)] if label else []
    layers = [band, line, _fit_dots(points, measured_name, kinds, size=90, clip=clip,
                                    x_enc=x_enc, y_enc=alt.Y(f"{y}:Q", title=y_title),
                                    tooltip=label_tip + [x_tip, alt.Tooltip(
                                        f"{y}:Q", title=y_title, **fmt)])]
    if predictions is not None:
        layers.append(_fit_dots(predictions, prediction_name, kinds, size=150, clip=clip,
                                x_enc=x_enc, y_enc=alt.Y(f"{y}:Q", title=y_title),
                                tooltip=[x_tip, alt.Tooltip(f"{y}:Q", title=prediction_name,
                                                            **fmt)]))
    return alt.layer(*layers).resolve_legend(
        **({"stroke": "independent"} if band_at_settings else {"fill": "independent"})
    ).properties(
        title=heading(title, subtitle),
        description=description,
    )


# The steps of fit_chart: its checks, its x axis, its legend of kinds, and its band.

def _check_fit(points: pd.DataFrame, curve: pd.DataFrame, *, x: str, y: str, fit: str,
               low: str, high: str, title: str, description: str, x_title: str, y_title: str,
               measured_name: str, fit_name: str, band_name: str,
               predictions: pd.DataFrame | None, prediction_name: str | None,
               label: str | None, y_domain: tuple[float, float] | None) -> None:
    """Check fit_chart's arguments."""
    require_columns(points, [x, y] + ([label] if label else []))
    require_columns(curve, [x, fit, low, high])
    require_texts(title=title, description=description, x_title=x_title, y_title=y_title,
                  measured_name=measured_name, fit_name=fit_name, band_name=band_name)
    if predictions is not None:
        require_columns(predictions, [x, y])
        require_text(prediction_name, "prediction_name")
    require_domain(y_domain, "y_domain")


def _fit_settings(points: pd.DataFrame, predictions: pd.DataFrame | None,
                  x: str) -> list[float]:
    """The measured and predicted settings, sorted: the ticks of the x axis."""
    return sorted(set(points[x].astype(float)) | (
        set(predictions[x].astype(float)) if predictions is not None else set()))


def _fit_x_scale(points: pd.DataFrame, curve: pd.DataFrame, predictions: pd.DataFrame | None,
                 x: str, x_log: bool) -> alt.Scale:
    """An x scale from the smallest to the largest x of points, curve and predictions."""
    x_all = pd.concat([points[x], curve[x]] + ([predictions[x]] if predictions is not None
                                               else [])).astype(float)
    x_domain = [float(x_all.min()), float(x_all.max())]
    return alt.Scale(type="log" if x_log else "linear", domain=x_domain, nice=False, zero=False)


class _FitKinds:
    """The legend of fit_chart's kinds of mark (measured, fitted, predicted): one colour and
    one symbol each, under the plot."""

    def __init__(self, names: list[str], colors: Mapping[str, str] | None = None,
                 palette: Sequence[str] | None = None) -> None:
        chosen = series_colours(names, colors, palette)
        default = [PALETTE[0], PALETTE[1], PALETTE[3]][:len(names)]
        self.colour = alt.Scale(domain=names, range=default if chosen is None else chosen)
        self.shape = alt.Scale(domain=names, range=["circle", "stroke", "diamond"][:len(names)])
        # One entry per line: long, explicit names stay readable.
        self.legend = alt.Legend(orient="bottom", direction="vertical", title=None,
                                 symbolStrokeWidth=3, labelLimit=LEGEND_LABEL_LIMIT)

    def encoding(self, with_shape: bool) -> dict:
        """The colour (and, ``with_shape``, the symbol) channels of a layer of one kind."""
        enc = {"color": alt.Color("_kind:N", scale=self.colour, legend=self.legend)}
        if with_shape:
            enc["shape"] = alt.Shape("_kind:N", scale=self.shape, legend=self.legend)
        return enc


def _fit_dots(frame: pd.DataFrame, name: str, kinds: _FitKinds, *, size: int, clip: bool,
              x_enc: alt.X, y_enc: alt.Y, tooltip: list[alt.Tooltip]) -> alt.Chart:
    """The rows of ``frame`` as filled symbols of the kind ``name`` (measured, predicted)."""
    return kind_chart(frame, name).mark_point(filled=True, size=size, clip=clip).encode(
        x=x_enc, y=y_enc, **kinds.encoding(True), tooltip=tooltip)


def _band_scale(band_name: str) -> alt.Scale:
    return alt.Scale(domain=[band_name], range=[BAND_COLOUR])


def _fit_band_at_settings(curve: pd.DataFrame, band_name: str, *, x: str, high: str,
                          x_values: list[float], x_enc: alt.X, band_y: alt.Y,
                          tips: list[alt.Tooltip], clip: bool) -> alt.Chart:
    """The band as a thick grey bar at each of ``x_values`` (which ``curve`` must hold)."""
    missing = sorted(set(x_values) - set(curve[x].astype(float)))
    if missing:
        raise ValueError(f"curve must hold a row at every measured and predicted {x} "
                         f"for band_at_settings; it lacks {missing}")
    return marked_at(kind_chart(curve, band_name), x, x_values).mark_rule(
        strokeWidth=9, opacity=0.45, clip=clip).encode(
        x=x_enc, y=band_y, y2=f"{high}:Q",
        stroke=alt.Stroke("_kind:N", scale=_band_scale(band_name), legend=alt.Legend(
            orient="bottom", direction="vertical", title=None, symbolType="stroke",
            symbolStrokeWidth=9, labelLimit=LEGEND_LABEL_LIMIT)),
        tooltip=tips)


def _fit_band_area(curve: pd.DataFrame, band_name: str, *, high: str, x_enc: alt.X,
                   band_y: alt.Y, tips: list[alt.Tooltip], clip: bool) -> alt.Chart:
    """The band as a grey area along the curve."""
    return kind_chart(curve, band_name).mark_area(opacity=0.3, clip=clip).encode(
        x=x_enc, y=band_y, y2=f"{high}:Q",
        fill=alt.Fill("_kind:N", scale=_band_scale(band_name), legend=alt.Legend(
            orient="bottom", direction="vertical", title=None, symbolType="square",
            labelLimit=LEGEND_LABEL_LIMIT)),
        tooltip=tips)


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
    colors: Mapping[str, str] | None = None,
    palette: Sequence[str] | None = None,
) -> alt.HConcatChart:
    """How well a fit matches its data, in two panels side by side.

    Left: each observation's ``observed`` value against its ``fitted`` value, over the dashed
    line of equality (a perfect fit puts every point on it). Right: the ``residual`` against
    ``x`` (a setting such as the user load), over a line at zero. One colour per ``series`` (a
    model, a fit), in order of appearance; clicking a legend entry highlights a series. Every
    point's tooltip holds the exact values and, with ``label``, which measurement it is.
    """
    require_columns(data, [observed, fitted, residual, x, series] + ([label] if label else []))
    require_texts(title=title, description=description, value_title=value_title,
                  x_title=x_title, residual_title=residual_title, series_title=series_title)
    frame = data.assign(**{series: data[series].astype(str)})
    order = first_seen(frame[series])
    highlight = legend_highlight(series, "fit_highlight")
    colour = series_colour(series, series_title, order,
                           alt.Legend(orient="bottom", direction="vertical",
                                      labelLimit=LEGEND_LABEL_LIMIT), colors, palette)
    faded = fade(highlight, 0.95)
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
    x_scale = settings_scale(x_values, x_log, pad=1.3)
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color="#888", strokeWidth=1.5)\
        .encode(y=alt.Y("zero:Q"))
    spread = alt.Chart(frame).mark_point(filled=True, size=55).encode(
        x=alt.X(f"{x}:Q", title=x_title, scale=x_scale,
                axis=alt.Axis(values=x_values, format="d")),
        y=alt.Y(f"{residual}:Q", title=residual_title),
        color=colour, opacity=faded, tooltip=tooltip)
    right = alt.layer(zero, spread).properties(width=250, height=250, title="Residuals")
    return alt.hconcat(left, right, spacing=30).properties(
        title=heading(title, subtitle),
        description=description)
