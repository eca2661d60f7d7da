"""Checks and building blocks shared by the chart builders."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import altair as alt
import pandas as pd

from queuetune.charts._style import (
    CATEGORY_LABEL_LIMIT,
    FADED_OPACITY,
    LEGEND_LABEL_LIMIT,
)
from queuetune.charts._style import (
    palette as book_palette,
)


def require_text(value: str, name: str) -> str:
    """``value`` if it is a non-empty string; a ValueError naming ``name`` otherwise."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string (charts need it for readers)")
    return value


def require_texts(**values: str) -> None:
    """Check every keyword argument with :func:`require_text`, in order."""
    for name, value in values.items():
        require_text(value, name)


def require_columns(data: pd.DataFrame, columns: Sequence[str]) -> None:
    """A ValueError listing the ``columns`` that ``data`` lacks, if any."""
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise ValueError(f"data lacks column(s) {missing}; it has {list(data.columns)}")


def require_frame(frame: pd.DataFrame | None, columns: Sequence[str], name: str) -> None:
    """An optional frame (rules, bands) must have ``columns``; bands need low <= high."""
    if frame is None:
        return
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} lacks column(s) {missing}; it has {list(frame.columns)}")
    if "low" in columns and (frame["low"] > frame["high"]).any():
        raise ValueError(f"{name}: every band needs low <= high")


def require_domain(domain: Sequence[float] | None, name: str) -> None:
    """An optional axis range must be ``(low, high)`` with low < high."""
    if domain is not None and not (len(domain) == 2 and domain[0] < domain[1]):
        raise ValueError(f"{name} must be (low, high) with low < high, got {domain!r}")


def escape(text: str) -> str:
    """``text`` as the body of a single-quoted Vega expression string."""
    return text.replace("\\", "\\\\").replace("'", "\\'")


def heading(title: str, subtitle: str | Sequence[str] | None) -> str | alt.Title:
    """A chart title, with its subtitle (a string or a list of lines) when there is one."""
    return alt.Title(title, subtitle=subtitle) if subtitle else title


def legend_highlight(field: str, name: str = "highlight") -> alt.Parameter:
    """A selection of ``field`` values made by clicking legend entries."""
    return alt.selection_point(fields=[field], bind="legend", name=name)


def fade(highlight: alt.Parameter, opacity: float = 1.0) -> alt.OpacityValue:
    """Full ``opacity`` for the highlighted series (all when none is), faded for the rest."""
    return alt.condition(highlight, alt.value(opacity), alt.value(FADED_OPACITY))


def series_colours(order: Sequence[str], colors: Mapping[str, str] | None = None,
                   palette: Sequence[str] | None = None) -> list[str] | None:
    """The colour of each series of ``order`` that a chapter chose, or None to leave them to
    the chart's configuration (the book's theme, or the chapter's ``configure_range``).

    ``colors`` maps a series to its colour; ``palette`` gives colours to the series in order
    (repeated when shorter), and to those that ``colors`` leaves out. A ValueError names the
    argument that is not a colour list or names a series that the chart lacks.

    >>> series_colours(["a", "b", "c"], colors={"b": "red"}, palette=["#111", "#222"])
    ['#111', 'red', '#111']
    >>> series_colours(["a", "b"]) is None
    True
    """
    if palette is not None and (isinstance(palette, str) or not len(palette)
                                or not all(isinstance(c, str) and c for c in palette)):
        raise ValueError(f"palette must be a non-empty list of colour strings, got {palette!r}")
    if colors is not None:
        unknown = sorted(set(colors) - set(order))
        if unknown:
            raise ValueError(f"colors names series {unknown} that the chart lacks; "
                             f"series: {list(order)}")
        if not all(isinstance(c, str) and c for c in colors.values()):
            raise ValueError(f"colors must map series to colour strings, got {colors!r}")
    if colors is None and palette is None:
        return None
    fill = list(palette) if palette is not None else book_palette(len(order))
    return [(colors or {}).get(s, fill[i % len(fill)]) for i, s in enumerate(order)]


def series_colour(field: str, title: str | None, order: Sequence[str],
                  legend: alt.Legend | None, colors: Mapping[str, str] | None = None,
                  palette: Sequence[str] | None = None) -> alt.Color:
    """One colour per value of ``field``, in ``order``, under ``title``: the chapter's
    (``colors``, ``palette``; see :func:`series_colours`) or else the configuration's category
    range, so that a chapter's ``configure_range(category=...)`` recolours the chart."""
    scale = alt.Scale(domain=list(order))
    chosen = series_colours(order, colors, palette)
    if chosen is not None:
        scale = alt.Scale(domain=list(order), range=chosen)
    return alt.Color(f"{field}:N", title=title, sort=list(order), legend=legend, scale=scale)


def first_seen(values: pd.Series) -> list[str]:
    """The distinct values of ``values`` as strings, in order of first appearance."""
    return [str(v) for v in dict.fromkeys(values.tolist())]


def category_axis() -> alt.Axis:
    """A category axis whose title sits above its labels, clear of labels of any length."""
    return alt.Axis(labelLimit=CATEGORY_LABEL_LIMIT, titleAngle=0, titleAlign="right",
                    titleBaseline="bottom", titleX=-6, titleY=-6)


def number_format(value_format: str | None) -> dict[str, str]:
    """Keyword arguments giving a tooltip or axis the d3 ``value_format``, when there is one."""
    return {"format": value_format} if value_format else {}


def printed(values: pd.Series, value_format: str | None) -> list[str]:
    """Each value as a label prints it: formatted with ``value_format``, else as ``str``."""
    fmt = (lambda v: format(v, value_format)) if value_format else str
    return [fmt(v) for v in values]


def field_tooltips(fields: Sequence[tuple[str, str]]) -> list[alt.Tooltip]:
    """A text tooltip for each ``(column, title)`` pair."""
    return [alt.Tooltip(f"{f}:N", title=t) for f, t in fields]


def field_columns(fields: Sequence[tuple[str, str]]) -> list[str]:
    """The columns of ``(column, title)`` pairs."""
    return [f for f, _ in fields]


def stroke_legend(orient: str, direction: str | None = None, **options) -> alt.Legend:
    """A legend whose symbols are short thick strokes, like the lines they name."""
    if direction is not None:
        options["direction"] = direction
    return alt.Legend(orient=orient, symbolType="stroke", symbolStrokeWidth=3,
                      labelLimit=LEGEND_LABEL_LIMIT, **options)


def marked_at(base: alt.Chart, x: str, marks_at: Sequence[float]) -> alt.Chart:
    """The rows of ``base`` whose ``x`` is one of ``marks_at`` (where a source measured)."""
    return base.transform_filter(alt.FieldOneOfPredicate(field=x,
                                                         oneOf=[float(v) for v in marks_at]))


def kind_chart(frame: pd.DataFrame, name: str) -> alt.Chart:
    """A chart of ``frame`` whose rows carry the field ``_kind`` = ``name``: a legend entry
    for a whole layer (measured, fitted, stated) rather than for a column's values."""
    return alt.Chart(frame).transform_calculate(_kind=f"'{escape(name)}'")


def settings_scale(values: Sequence[float], log: bool, pad: float) -> alt.Scale:
    """An x scale over sorted setting ``values``: logarithmic with a margin of ``pad`` times
    at either end, or linear not forced to include zero."""
    if log:
        return alt.Scale(type="log", domain=[values[0] / pad, values[-1] * pad])
    return alt.Scale(zero=False)
