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
