"""The book's chart style: sizes, palette, theme and renderer."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from typing import Any

import altair as alt
from altair.utils.display import HTMLRenderer
from altair.utils.mimebundle import spec_to_mimebundle
from altair.vegalite.v6.display import html_renderer as _altair_html

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
LEGEND_LABEL_LIMIT = 420  # pixels: legend labels that explain a mark are not cut short
BAND_COLOUR = "#999999"  # uncertainty bands: grey, behind the coloured marks
# Charts with long category labels (bar_chart, range_chart) keep their plot narrower so that
# labels and plot fit the page's text column together.
NARROW_WIDTH = 380
CATEGORY_LABEL_LIMIT = 260


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


class StableHTMLRenderer(HTMLRenderer):
    """Altair's HTML renderer with an output ``<div>`` id derived from the chart itself.

    Altair names each chart's ``<div>`` ``altair-viz-<uuid4>``, a new random id at every
    display, so re-running an unchanged notebook would change its stored output. Here the id is
    ``altair-viz-`` and the first 32 hex digits of the SHA-256 of the chart's specification; the
    n-th display of the same chart in one session gets ``-n`` appended, so that ids stay unique
    on a page.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shown: Counter[str] = Counter()

    def div_id(self, spec: dict[str, Any]) -> str:
        """The output ``<div>`` id of the next display of ``spec``."""
        text = json.dumps(spec, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
        self._shown[digest] += 1
        count = self._shown[digest]
        return f"altair-viz-{digest}" if count == 1 else f"altair-viz-{digest}-{count}"

    def __call__(self, spec: dict[str, Any], **metadata: Any) -> dict[str, str]:
        kwargs = self.kwargs.copy()
        kwargs.update(**metadata, output_div=self.div_id(spec))
        return spec_to_mimebundle(spec, format="html", **kwargs)


#: The renderer of the stored outputs: Altair's "html" renderer with stable output ids.
RENDERER_NAME = "queuelab-html"
alt.renderers.register(RENDERER_NAME, StableHTMLRenderer(**_altair_html.kwargs))


def enable() -> None:
    """Register the theme and the renderer: stored HTML for the book, widgets when live."""
    alt.theme.enable(THEME_NAME)
    if live_session():
        alt.renderers.enable("jupyter", offline=True)
    else:
        # One call: set_embed_options() would replace the base_url option.
        alt.renderers.enable(RENDERER_NAME, base_url=OFFLINE_BASE_URL,
                             embed_options=EMBED_OPTIONS)
