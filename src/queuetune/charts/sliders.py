"""The slider explorer: precomputed model results steered by range sliders."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from queuetune.charts._common import (
    escape,
    heading,
    require_columns,
    require_texts,
    series_colour,
    stroke_legend,
)
from queuetune.charts._style import PALETTE

EXPLORER_DIGITS = 4  # significant digits the slider explorer stores of each value
EXPLORER_COLUMNS = 2  # views to a row of the slider explorer, where its box is wide enough
EXPLORER_SPACING = 24  # pixels between its views
# Room a view takes beside its plot (the y axis, its labels and title), in pixels.
_AXIS_ROOM = 56


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
) -> alt.ConcatChart:
    """Small panels of precomputed model results against ``x``, steered by range sliders.

    A static page runs no Python: ``grid`` holds every panel's value at every combination of
    the slider columns and of ``x`` (all its values are drawn). ``sliders`` lists
    ``(column, label)``: the column's values must be evenly spaced and its name a valid
    identifier (it names the slider's parameter); ``initial`` maps columns to starting values
    (default: the smallest). ``panels`` lists ``(column, y_title, tooltip_format, scale)``,
    scale ``"linear"`` or ``"log"``; each panel's y range is fixed over the whole grid, so a
    moved slider moves the curve, not the axis. Hovering anywhere above an ``x`` value shows a
    tooltip with the values of all panels there; a tap (or click) also writes the panel's value
    above it, for touch screens, which show no tooltip. Values are stored with
    EXPLORER_DIGITS significant digits (``decimals`` maps a column to decimal places instead).

    ``pool = (slider column, panel column, label)`` draws the slider's value as a dashed rule
    on that panel (the pool size over the busy threads, say). ``answers`` adds a panel: one
    line per ``answer_series`` ``(column, label)`` of whole numbers against ``x``, selected by
    the sliders whose columns it has, and a readout of every answer at the ``x`` picked by an
    extra slider named ``load`` (label ``load_label``; ``initial["load"]`` starts it). Its y axis
    is logarithmic and fixed over all the answers (whole numbers >= 1) and the pool sizes.

    The views sit two to a row (EXPLORER_COLUMNS) where the chart's box is wide enough, and in
    one column where it is not (a phone): a patch of the compiled spec, which vega-embed
    applies, makes the number of columns follow the width of the box.
    """
    _check_explorer(grid, x=x, x_title=x_title, sliders=sliders, panels=panels, title=title,
                    description=description)
    slider_cols = [c for c, _ in sliders]
    xs = sorted(float(v) for v in grid[x].unique())
    params, tests = _slider_params(grid, sliders, initial)
    explorer = _Explorer(x=x, x_title=x_title, xs=xs, tests=tests, pool=pool,
                         width=panel_width, height=panel_height)
    # The records go into the top-level datasets at the very end: Altair copies every spec it
    # combines, and copying tens of thousands of inline numbers again and again is slow.
    datasets = {"explorer_grid": _explorer_pack(grid, x, slider_cols, [p[0] for p in panels],
                                                dict(decimals or {}))}
    views = explorer.panels(grid, slider_cols, panels)
    if answers is not None:
        keys = [c for c in slider_cols if c in answers.columns]
        _check_answers(answers, x=x, xs=xs, keys=keys, answer_series=answer_series,
                       answer_title=answer_title, answer_y_title=answer_y_title,
                       load_label=load_label)
        params.append(_load_param(xs, initial, load_label))
        answer_cols = [c for c, _ in answer_series]
        datasets["explorer_answers"] = _explorer_pack(answers, x, keys, answer_cols,
                                                      {c: 0 for c in answer_cols})
        shown = [answers[c].astype(float) for c in answer_cols]
        if pool is not None:
            shown.append(grid[pool[0]].astype(float))
        views += explorer.answers(keys, answer_series, answer_title, answer_y_title,
                                  pd.concat(shown, ignore_index=True))
    chart = alt.concat(*views, columns=EXPLORER_COLUMNS, spacing=EXPLORER_SPACING).add_params(
        *params).properties(title=heading(title, subtitle), description=description,
                            usermeta={"embedOptions": {"patch": _stacking_patch(panel_width)}})
    chart.datasets = datasets
    return chart


def _stacking_patch(panel_width: int) -> list[dict]:
    """A JSON patch of the compiled Vega spec (applied by vega-embed) that lays the views out
    in one column when the chart's box is narrower than two columns of them, as on a phone:
    the number of columns becomes a signal of the box's width, updated when the window is
    resized."""
    two_columns = EXPLORER_COLUMNS * (panel_width + _AXIS_ROOM) + EXPLORER_SPACING
    # The window's width stands in for the box's while the box has none (not yet laid out).
    width = "(containerSize()[0] > 0 ? containerSize()[0] : windowSize()[0])"
    columns = f"{width} < {two_columns} ? 1 : {EXPLORER_COLUMNS}"
    return [
        {"op": "add", "path": "/signals/-",
         "value": {"name": "explorer_columns", "init": columns,
                   "on": [{"events": {"source": "window", "type": "resize"},
                           "update": columns}]}},
        {"op": "add", "path": "/layout/columns", "value": {"signal": "explorer_columns"}},
    ]


# The steps of slider_explorer: its checks, its parameters, and the views it draws.

def _check_explorer(grid: pd.DataFrame, *, x: str, x_title: str,
                    sliders: Sequence[tuple[str, str]],
                    panels: Sequence[tuple[str, str, str, str]], title: str,
                    description: str) -> None:
    """Check slider_explorer's arguments that do not depend on the answers."""
    if not sliders or not panels:
        raise ValueError("sliders and panels must each list at least one entry")
    slider_cols = [c for c, _ in sliders]
    require_columns(grid, [x, *slider_cols, *(p[0] for p in panels)])
    require_texts(x_title=x_title, title=title, description=description)
    for column in slider_cols:
        if not column.isidentifier() or column == "load":
            raise ValueError(f"slider column {column!r} must be a valid identifier other than "
                             "'load' (it names the slider's parameter)")
    for column, _, _, scale_type in panels:
        if scale_type not in ("linear", "log"):
            raise ValueError(f"panel scale must be 'linear' or 'log', got {scale_type!r} for "
                             f"{column!r}")


def _check_answers(answers: pd.DataFrame, *, x: str, xs: list[float], keys: list[str],
                   answer_series: Sequence[tuple[str, str]], answer_title: str,
                   answer_y_title: str, load_label: str) -> None:
    """Check the answers panel's arguments."""
    answer_cols = [c for c, _ in answer_series]
    require_columns(answers, [x, *keys, *answer_cols])
    require_texts(answer_title=answer_title, answer_y_title=answer_y_title,
                  load_label=load_label)
    if not answer_cols:
        raise ValueError("answer_series must list at least one (column, label)")
    if sorted(float(v) for v in answers[x].unique()) != xs:
        raise ValueError(f"answers must have the same {x} values as grid, {xs}")
    low = float(answers[answer_cols].min().min())
    if not low >= 1:
        raise ValueError(f"answers must be numbers >= 1 (the panel's axis is logarithmic), "
                         f"got {low!r}")


def _slider_params(grid: pd.DataFrame, sliders: Sequence[tuple[str, str]],
                   initial: dict[str, float]) -> tuple[list[alt.Parameter], dict[str, str]]:
    """One range-slider parameter per slider column, and for each column the test (with a
    ``{}`` for the record field's number) that picks the record at the slider's value."""
    import numpy as np

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
    return params, tests


def _load_param(xs: list[float], initial: dict[str, float], load_label: str) -> alt.Parameter:
    """The ``load`` slider: the x at which the answers are read out."""
    import numpy as np

    start = float(initial.get("load", xs[len(xs) // 2]))
    if not any(np.isclose(start, v) for v in xs):
        raise ValueError(f"initial['load'] must be one of {xs}, got {start!r}")
    return alt.param(name="load", value=_explorer_number(start),
                     bind=alt.binding_range(min=xs[0], max=xs[-1], step=_x_step(xs),
                                            name=f"{load_label} "))


def _x_step(xs: list[float]) -> float:
    return xs[1] - xs[0] if len(xs) > 1 else 1.0


def _one_row() -> alt.Chart:
    """A chart of one empty row, for marks computed from the parameters alone."""
    return alt.Chart(pd.DataFrame({"_": [0]}))


def _panel_scale(values: pd.Series, scale_type: str, fmt: str) -> tuple[alt.Scale, alt.Axis]:
    """A panel's y scale, fixed over the whole grid, and its axis."""
    if scale_type == "log":
        positive = values[values > 0]
        domain = [float(positive.min()) / 1.25, float(positive.max()) * 1.25]
    else:
        domain = [min(0.0, float(values.min())), float(values.max()) * 1.05 or 1.0]
    scale = alt.Scale(type=scale_type, domain=domain, nice=False)
    axis = alt.Axis(format=".0%") if fmt.endswith("%") else (
        alt.Axis(format="~g") if scale_type == "log" else alt.Axis())
    return scale, axis


class _Explorer:
    """What the explorer's views share: the x axis, the slider tests, the pool rule."""

    def __init__(self, *, x: str, x_title: str, xs: list[float], tests: dict[str, str],
                 pool: tuple[str, str, str] | None, width: int, height: int) -> None:
        import json

        self.x, self.x_title, self.xs, self.tests, self.pool = x, x_title, xs, tests, pool
        self.width, self.height = width, height
        self.x_list = json.dumps([_explorer_number(v) for v in xs])
        self.x_enc = alt.X(f"{x}:Q", title=x_title,
                           scale=alt.Scale(domain=[0, xs[-1]], nice=False),
                           axis=alt.Axis(format="d"))

    def selected(self, chart: alt.Chart, columns: Sequence[str], n: int) -> alt.Chart:
        """The one record the sliders pick, unpacked to one row per x."""
        condition = " && ".join(self.tests[c].format(i) for i, c in enumerate(columns)) or "true"
        return chart.transform_filter(condition).transform_flatten(
            [f"m{j}" for j in range(n)]).transform_window(_i="row_number()").transform_calculate(
            **{self.x: f"{self.x_list}[datum._i - 1]"})

    def slider_rule(self) -> alt.Chart:
        """The pool slider's value (``_v``) and its label (``_label``)."""
        column, _, label = self.pool
        return _one_row().transform_calculate(_v=column, _label=f"'{escape(label)} ' + {column}")

    def pool_marks(self, y: alt.Y | str) -> list[alt.Chart]:
        """The pool slider's value as a labelled dashed rule at height ``y``."""
        rule = self.slider_rule()
        return [rule.mark_rule(strokeDash=[6, 4], color=PALETTE[3]).encode(
            y=y, tooltip=[alt.Tooltip("_label:N", title="Line")]),
            rule.mark_text(align="left", baseline="bottom", dx=4, dy=-3,
                           color=PALETTE[3]).encode(x=alt.value(0), y="_v:Q", text="_label:N")]

    def panels(self, grid: pd.DataFrame, slider_cols: list[str],
               panels: Sequence[tuple[str, str, str, str]]) -> list[alt.LayerChart]:
        """One view per panel: the picked curve as a line with dots, the pool rule on its
        panel, and on top a transparent column over each x that carries the tooltip (all
        panels' values) and, on a tap or click, marks the point and writes its value above the
        plot: touch screens show no tooltip."""
        tips = [alt.Tooltip(f"{self.x}:Q", title=self.x_title, format="d")] + [
            alt.Tooltip(f"m{j}:Q", title=y_title, format=fmt)
            for j, (_, y_title, fmt, _) in enumerate(panels)]
        data = alt.NamedData(name="explorer_grid")
        views = []
        for j, (column, y_title, fmt, scale_type) in enumerate(panels):
            scale, axis = _panel_scale(grid[column].astype(float), scale_type, fmt)
            picked = self.selected(alt.Chart(), slider_cols, len(panels))
            base = picked.encode(
                x=self.x_enc, y=alt.Y(f"m{j}:Q", title=y_title, scale=scale, axis=axis),
                tooltip=tips)
            layers = [base.mark_line(color=PALETTE[0]),
                      base.mark_point(filled=True, size=36, color=PALETTE[0])]
            if self.pool is not None and self.pool[1] == column:
                layers += self.pool_marks(alt.Y("_v:Q", scale=scale))
            layers += self.tap_marks(picked, base, j, fmt, tips)
            views.append(alt.layer(*layers, data=data).properties(width=self.width,
                                                                  height=self.height))
        return views

    def tap_marks(self, picked: alt.Chart, base: alt.Chart, j: int, fmt: str,
                  tips: list[alt.Tooltip]) -> list[alt.Chart]:
        """The tapped point of panel ``j``: a rule and a larger dot there, its value written
        above the plot, and the transparent columns (drawn last, on top) that catch the taps
        and the hovering."""
        tap = alt.selection_point(name=f"tap_{j}", fields=[self.x], on="pointerdown",
                                  empty=False)
        half = _x_step(self.xs) / 2
        scale = alt.Scale(domain=[0, self.xs[-1]], nice=False)
        value = (f"format(datum.{self.x}, 'd') + ' {escape(self.x_title.lower())}: ' + "
                 f"format(datum.m{j}, '{escape(fmt)}')")
        chosen = picked.transform_filter(tap)
        return [
            chosen.mark_rule(color="#444", strokeDash=[2, 2]).encode(x=self.x_enc),
            base.transform_filter(tap).mark_point(filled=True, size=110, color=PALETTE[0],
                                                  stroke="#222"),
            chosen.transform_calculate(_tap=value).mark_text(
                align="right", baseline="bottom", dy=-4, fontSize=12, fontWeight="bold").encode(
                x=alt.value(self.width), y=alt.value(0), text="_tap:N"),
            picked.transform_calculate(
                _x0=f"datum.{self.x} - {half!r}", _x1=f"datum.{self.x} + {half!r}").mark_rect(
                opacity=0, clip=True).encode(
                x=alt.X("_x0:Q", title=self.x_title, scale=scale, axis=alt.Axis(format="d")),
                x2="_x1:Q", y=alt.value(0), y2=alt.value(self.height), tooltip=tips,
            ).add_params(tap),
        ]

    def answers(self, keys: list[str], answer_series: Sequence[tuple[str, str]],
                answer_title: str, answer_y_title: str,
                values: pd.Series) -> list[alt.LayerChart]:
        """The answers panel (one line per answer against x, the load marked, on a fixed log
        scale over ``values``) and the readout of every answer at the load."""
        labels = [label for _, label in answer_series]
        fields = [f"m{j}" for j in range(len(answer_series))]
        series = " : ".join(f"datum.key == '{f}' ? '{escape(label)}'"
                            for f, label in zip(fields, labels, strict=True)) + " : ''"
        base = self.selected(alt.Chart(alt.NamedData(name="explorer_answers")), keys,
                             len(fields)).transform_fold(fields).transform_calculate(
            series=series)
        colour = series_colour("series", None, labels, stroke_legend("bottom", "vertical"))
        scale, axis = _panel_scale(values, "log", "d")
        enc = {"x": self.x_enc,
               "y": alt.Y("value:Q", title=f"{answer_y_title} (log scale)", scale=scale,
                          axis=axis),
               "color": colour,
               "tooltip": [alt.Tooltip("series:N", title="Answer"),
                           alt.Tooltip(f"{self.x}:Q", title=self.x_title, format="d"),
                           alt.Tooltip("value:Q", title=answer_y_title, format="d")]}
        here = base.transform_filter(f"abs(datum.{self.x} - load) < {_x_step(self.xs) / 2!r}")
        cursor = _one_row().transform_calculate(_x="load").mark_rule(
            color="#666", strokeDash=[3, 3]).encode(x="_x:Q")
        layers = [cursor, base.mark_line(strokeWidth=2).encode(**enc),
                  base.mark_point(filled=True, size=30).encode(**enc),
                  here.mark_point(filled=True, size=120, stroke="#222").encode(**enc)]
        lines = [""] + labels
        if self.pool is not None:
            layers += self.pool_marks(alt.Y("_v:Q", scale=scale))
            lines.append(self.pool[2])
        sizing = alt.layer(*layers).properties(title=answer_title, width=self.width,
                                               height=self.height + 40)
        readout = self.readout(here, lines, colour, answer_y_title)
        table = alt.layer(*readout).properties(width=self.width, height=24 * len(lines),
                                               view={"stroke": None})
        return [sizing, table]

    def readout(self, here: alt.Chart, lines: list[str], colour: alt.Color,
                answer_y_title: str) -> list[alt.Chart]:
        """The readout's text lines: the load, each answer at it, and the pool."""
        row = alt.Y("series:N", sort=lines, axis=None)
        readout = [
            _one_row().transform_calculate(
                series="''",
                _line=f"'At ' + format(load, 'd') + ' {escape(self.x_title.lower())}:'"
            ).mark_text(align="left", fontWeight="bold", fontSize=13).encode(
                x=alt.value(0), y=row, text="_line:N"),
            here.transform_calculate(
                _line=f"datum.series + ': ' + format(datum.value, 'd') + "
                      f"' {escape(answer_y_title.lower())}'"
            ).mark_text(align="left", fontSize=13).encode(
                x=alt.value(0), y=row, text="_line:N", color=colour)]
        if self.pool is not None:
            readout.append(self.slider_rule().transform_calculate(
                series=f"'{escape(self.pool[2])}'").mark_text(
                align="left", fontSize=13, color=PALETTE[3]).encode(
                x=alt.value(0), y=row, text="_label:N"))
        return readout
