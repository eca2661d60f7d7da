"""Chart builders: one look for every chart in the book.

Every builder returns an Altair chart that carries a title, a description for screen readers,
axis titles with units and a tooltip with the exact values. Call :func:`enable` once per
notebook: it registers the theme and picks the renderer.

Rendering. The book stores each chart as Altair's HTML output. Its loader skips the CDN when the
page already holds vega, vega-lite and vega-embed of the same versions; the book serves that
bundle itself (``scripts/build_assets.py``), so pages need no network. In a live JupyterLab
session started with ``QUEUETUNE_LIVE=1`` (``make lab``) the widget renderer is used instead,
which also works offline.

Colours. A builder that colours series (or kinds of mark: measured, fitted, predicted) takes
``colors`` (a mapping from a series to its colour) and ``palette`` (colours given to the series in
order). Without them a series' colour comes from the chart's configuration: the book's theme
(``PALETTE``), or the chapter's own ``chart.configure_range(category=[...])``.

The builders live in small modules by kind: :mod:`~queuetune.charts.lines` (series and model
curves), :mod:`~queuetune.charts.categories` (bars, grids, intervals, ranges),
:mod:`~queuetune.charts.fits` (fitted models), :mod:`~queuetune.charts.diagrams` (reference
lines and block diagrams) and :mod:`~queuetune.charts.sliders` (the what-if explorer).
"""

from queuetune.charts._style import (
    BAND_COLOUR,
    CATEGORY_LABEL_LIMIT,
    EMBED_OPTIONS,
    FADED_OPACITY,
    FONT,
    HEIGHT,
    LEGEND_LABEL_LIMIT,
    NARROW_WIDTH,
    OFFLINE_BASE_URL,
    PALETTE,
    RENDERER_NAME,
    STORED_DIGITS,
    THEME_NAME,
    WIDTH,
    StableHTMLRenderer,
    compact_spec,
    enable,
    live_session,
    palette,
    stored_number,
    theme,
)
from queuetune.charts.categories import (
    bar_chart,
    heatmap,
    interval_chart,
    range_chart,
    stacked_count_chart,
)
from queuetune.charts.diagrams import block_diagram, reference_chart
from queuetune.charts.fits import fit_chart, goodness_of_fit_chart
from queuetune.charts.lines import (
    curve_chart,
    curve_panels_chart,
    line_chart,
    settings_panels_chart,
    speedup_chart,
    step_chart,
)
from queuetune.charts.sliders import EXPLORER_DIGITS, slider_explorer

__all__ = [
    "BAND_COLOUR", "CATEGORY_LABEL_LIMIT", "EMBED_OPTIONS", "EXPLORER_DIGITS", "FADED_OPACITY",
    "FONT", "HEIGHT", "LEGEND_LABEL_LIMIT", "NARROW_WIDTH", "OFFLINE_BASE_URL", "PALETTE",
    "RENDERER_NAME", "STORED_DIGITS", "StableHTMLRenderer", "THEME_NAME", "WIDTH", "bar_chart",
    "block_diagram", "compact_spec", "curve_chart", "curve_panels_chart",
    "enable", "fit_chart", "goodness_of_fit_chart", "heatmap", "interval_chart", "line_chart",
    "live_session", "palette", "range_chart", "reference_chart", "settings_panels_chart",
    "slider_explorer", "speedup_chart", "stacked_count_chart", "step_chart", "stored_number",
    "theme",
]
