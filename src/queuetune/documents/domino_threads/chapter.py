"""The helpers of the domino-threads chapter: the five grids shown as the article prints them,
drawn as its figures, and read row by row.

>>> printed_places("webmail_response_time")
3
>>> shown_grid("webmail_response_time").loc[25, 10]
'0.481'
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from ... import charts, data, provenance, tables
from .claims import DOC, GRIDS, row_changes

__all__ = ["printed", "printed_places", "shown_grid", "figure", "rows_read"]


def _check_name(name: str) -> None:
    if name not in GRIDS:
        raise ValueError(f"name must be one of {sorted(GRIDS)}, got {name!r}")


def printed(name: str) -> pd.DataFrame:
    """The rows of grid ``name`` (by users, then threads) with each value as printed: column
    ``printed`` holds the text and ``places`` its decimals, checked cell by cell against the
    verbatim excerpt of the source (``ValueError`` if they differ)."""
    _check_name(name)
    frame = data.load(DOC, name).sort_values(["users", "http_threads"])
    column = GRIDS[name]
    source = provenance.parse_excerpt(DOC, name)[column].tolist()
    places = len(source[0].partition(".")[2])
    text = [f"{v:.{places}f}" for v in frame[column]]
    if text != source:
        raise ValueError(f"{name} is not shown as printed: {text} against the excerpt's {source}")
    return frame.assign(printed=text, places=places)


def printed_places(name: str) -> int:
    """The decimals grid ``name`` is printed with."""
    return int(printed(name)["places"].iloc[0])


def shown_grid(name: str) -> pd.DataFrame:
    """Grid ``name`` as printed: users down, HTTP threads across, the printed text in the
    cells."""
    return tables.grid(printed(name), rows="users", columns="http_threads",
                       values="printed", row_label="WebMail users",
                       column_label="HTTP threads →")


def figure(name: str, figure_id: str, y_title: str, description: str) -> alt.TopLevelMixin:
    """The article's figure ``figure_id`` of grid ``name``: one line per thread setting against
    the users, titled by its caption and labelled with its status."""
    _check_name(name)
    figures = data.load(DOC, "figures").set_index("figure_id")
    if figure_id not in figures.index:
        raise ValueError(f"figure_id must be one of {sorted(figures.index)}, got {figure_id!r}")
    caption, status = figures.loc[figure_id, ["caption", "status"]]
    table_id = data.describe(DOC, name)["inventory_id"]
    return charts.line_chart(
        data.load(DOC, name), x="users", y=GRIDS[name],
        series="http_threads", series_title="HTTP threads",
        title=caption, description=description,
        subtitle=f"Figure {figure_id} · {status} from table {table_id} "
                 "(Demetriou, 1998)",
        x_title="WebMail users", y_title=y_title,
        y_format=f".{printed_places(name)}f")


def rows_read(name: str) -> pd.DataFrame:
    """Each row of grid ``name`` read across the thread settings (:func:`.claims.row_changes`),
    with the values written as printed: at 10 and at 200 threads, the lowest (and its setting),
    the lowest against 10 threads in percent, the spread, and whether the row never falls."""
    r, p = row_changes(name), printed_places(name)
    fmt = f"{{:.{p}f}}".format
    lowest = [f"{fmt(v)} ({t})"
              for v, t in zip(r["best"], r["best_threads"], strict=True)]
    return pd.DataFrame({
        "WebMail users": r["users"],
        "at 10 threads": r["fewest"].map(fmt),
        "at 200 threads": r["most"].map(fmt),
        "lowest (threads)": lowest,
        "lowest vs 10": [f"{v:+.1f} %" if v else "0 %"
                         for v in r["best_vs_fewest_pct"]],
        "spread": r["range"].map(fmt),
        "never falls": r["monotone_up"].map({True: "yes", False: "no"}),
    }).set_index("WebMail users")
