"""The book's chart style: sizes, palette, theme and renderer."""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections import Counter
from typing import Any

import altair as alt
from altair.utils.display import HTMLRenderer
from altair.utils.mimebundle import spec_to_mimebundle
from altair.vegalite.v6.display import html_renderer as _altair_html

THEME_NAME = "queuetune"
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
# Significant digits of the numbers a stored chart carries: more than any tooltip or axis shows
# (they print at most four), half the bytes of Python's 17-digit floats.
STORED_DIGITS = 6
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
    """True inside a reader's live JupyterLab started by ``make lab`` (QUEUETUNE_LIVE=1)."""
    return os.environ.get("QUEUETUNE_LIVE", "") not in ("", "0")


def stored_number(value: float) -> float:
    """``value`` rounded to ``STORED_DIGITS`` significant digits, but never in its integer part
    (1234567.891 -> 1234567.9); NaN and infinities as they are.

    >>> stored_number(0.24154589371980678), stored_number(1234567.891), stored_number(-3e-12)
    (0.241546, 1234567.9, -3e-12)
    """
    if value == 0 or not math.isfinite(value):
        return value
    decimals = STORED_DIGITS - 1 - math.floor(math.log10(abs(value)))
    return round(value, max(decimals, 1))


def _compact(data: Any) -> Any:
    """``data`` (a chart's datasets) with every float stored as ``stored_number`` writes it."""
    if isinstance(data, float):
        return stored_number(data)
    if isinstance(data, list):
        return [_compact(item) for item in data]
    if isinstance(data, dict):
        return {key: _compact(item) for key, item in data.items()}
    return data


def _used_fields(records: Any, rest: str) -> Any:
    """``records`` (a dataset: a list of rows) without the columns that ``rest`` (the JSON of
    the specification outside its datasets) never names, kept whole when a tooltip may show
    every column (``"content": "data"``). A column whose name JSON or Vega would escape is kept.
    """
    if not isinstance(records, list) or '"content": "data"' in rest:
        return records
    names = {key for row in records if isinstance(row, dict) for key in row}
    unused = {name for name in names
              if name not in rest and json.dumps(name)[1:-1] not in rest
              and not any(c in name for c in '.[]\\"\'')}
    if not unused:
        return records
    return [{k: v for k, v in row.items() if k not in unused} if isinstance(row, dict) else row
            for row in records]


def _dataset_name(records: Any) -> str:
    """``data-`` and 32 hex digits of the SHA-256 of ``records`` (as stored, rounded): the same
    name wherever the rounded data are the same, whatever the last bits of the floats before
    rounding (Altair names a dataset by a hash of its unrounded values)."""
    text = json.dumps(records, sort_keys=True, separators=(",", ":"))
    return "data-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _renamed(item: Any, names: dict[str, str]) -> Any:
    """``item`` with every string that is a key of ``names`` (a dataset's name) replaced."""
    if isinstance(item, str):
        return names.get(item, item)
    if isinstance(item, list):
        return [_renamed(part, names) for part in item]
    if isinstance(item, dict):
        return {key: _renamed(part, names) for key, part in item.items()}
    return item


def compact_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` as the stored page carries it: the numbers of its data (``datasets`` and inline
    ``values``) rounded by ``stored_number``, and the columns of its datasets that nothing in
    the specification uses left out. Encodings, scales, titles and every drawn value are kept;
    the numbers outside the data (a scale's domain computed from the data, a parameter's value)
    are rounded the same way. Each dataset is named from its stored (rounded) records, so that
    the page, and the chart's id made from it, do not change with the last bits of the numbers
    (another processor or library build).
    """
    out = dict(spec)
    if "datasets" in out:
        rest = json.dumps({k: v for k, v in out.items() if k != "datasets"}, sort_keys=True)
        stored = {name: _compact(_used_fields(records, rest))
                  for name, records in out["datasets"].items()}
        names = {name: _dataset_name(records) for name, records in stored.items()}
        out = _renamed({k: v for k, v in out.items() if k != "datasets"}, names)
        out["datasets"] = {names[name]: records for name, records in stored.items()}
    for key, item in out.items():
        if key == "data" and isinstance(item, dict) and "values" in item:
            out[key] = {**item, "values": _compact(item["values"])}
        elif key in ("layer", "hconcat", "vconcat", "concat") and isinstance(item, list):
            out[key] = [compact_spec(part) for part in item]
        elif key == "spec" and isinstance(item, dict):
            out[key] = compact_spec(item)
        elif key != "datasets":
            out[key] = _compact(item)
    return out


class StableHTMLRenderer(HTMLRenderer):
    """Altair's HTML renderer with an output ``<div>`` id derived from the chart itself.

    Altair names each chart's ``<div>`` ``altair-viz-<uuid4>``, a new random id at every
    display, so re-running an unchanged notebook would change its stored output. Here the id is
    ``altair-viz-`` and the first 32 hex digits of the SHA-256 of the chart's specification as
    stored (``compact_spec``'s: its numbers rounded, its datasets named from them), so that the
    id is the same on every processor; the n-th display of the same chart in one session gets
    ``-n`` appended, so that ids stay unique on a page. The stored specification is written
    without spaces.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shown: Counter[str] = Counter()

    def div_id(self, spec: dict[str, Any]) -> str:
        """The output ``<div>`` id of the next display of ``spec``."""
        text = json.dumps(compact_spec(spec), sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
        self._shown[digest] += 1
        count = self._shown[digest]
        return f"altair-viz-{digest}" if count == 1 else f"altair-viz-{digest}-{count}"

    def __call__(self, spec: dict[str, Any], **metadata: Any) -> dict[str, str]:
        kwargs = self.kwargs.copy()
        kwargs.update(**metadata, output_div=self.div_id(spec),
                      json_kwds={"separators": (",", ":")})
        return spec_to_mimebundle(compact_spec(spec), format="html", **kwargs)


#: The renderer of the stored outputs: Altair's "html" renderer with stable output ids.
RENDERER_NAME = "queuetune-html"
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
