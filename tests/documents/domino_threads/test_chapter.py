"""queuetune.documents.domino_threads.chapter: the grids as printed, their figures and rows."""

from __future__ import annotations

import pytest

from queuetune import data, provenance
from queuetune.documents.domino_threads import chapter
from queuetune.documents.domino_threads import claims as dt

DOC = "domino-threads"


@pytest.mark.parametrize("name", sorted(dt.GRIDS))
def test_printed_matches_the_verbatim_excerpt(name):
    frame = chapter.printed(name)
    source = provenance.parse_excerpt(DOC, name)[dt.GRIDS[name]].tolist()
    assert frame["printed"].tolist() == source
    places = chapter.printed_places(name)
    assert places == len(source[0].partition(".")[2])
    # the printed text reads back to the stored value
    assert all(abs(float(t) - v) < 0.5 * 10 ** -places + 1e-12
               for t, v in zip(frame["printed"], frame[dt.GRIDS[name]], strict=True))


def test_printed_refuses_a_value_not_as_printed(monkeypatch):
    original = data.load

    def altered(document, table, **kw):
        frame = original(document, table, **kw)
        if table == "webmail_response_time":
            frame = frame.copy()
            frame.loc[frame.index[0], "response_time_s"] += 0.01
        return frame

    monkeypatch.setattr(data, "load", altered)
    with pytest.raises(ValueError, match="webmail_response_time is not shown as printed"):
        chapter.printed("webmail_response_time")


def test_shown_grid_is_the_printed_text_in_the_article_layout():
    wide = chapter.shown_grid("webmail_response_time")
    grid = dt.grid("webmail_response_time")
    assert list(wide.index) == list(grid.index) and list(wide.columns) == list(grid.columns)
    assert wide.index.name == "WebMail users" and wide.columns.name == "HTTP threads →"
    places = chapter.printed_places("webmail_response_time")
    for users in grid.index:
        for threads in grid.columns:
            assert wide.loc[users, threads] == f"{grid.loc[users, threads]:.{places}f}"


def test_rows_read_writes_each_row_change_as_printed():
    name = "webmail_response_time"
    rows = chapter.rows_read(name)
    grid = dt.grid(name)
    places = chapter.printed_places(name)
    assert list(rows.index) == list(grid.index)
    for users, row in grid.iterrows():
        shown = rows.loc[users]
        assert shown["at 10 threads"] == f"{row.iloc[0]:.{places}f}"
        assert shown["at 200 threads"] == f"{row.iloc[-1]:.{places}f}"
        assert shown["lowest (threads)"] == f"{row.min():.{places}f} ({int(row.idxmin())})"
        assert shown["spread"] == f"{row.max() - row.min():.{places}f}"
        change = 100 * (row.min() / row.iloc[0] - 1)
        assert shown["lowest vs 10"] == (f"{change:+.1f} %" if change else "0 %")
        assert shown["never falls"] == ("yes" if row.is_monotonic_increasing else "no")


def test_figure_is_titled_by_its_caption_and_status():
    figures = data.load(DOC, "figures").set_index("figure_id")
    figure_id = figures.index[0]
    table = [n for n in dt.GRIDS if data.describe(DOC, n)["inventory_id"]][0]
    spec = chapter.figure(table, figure_id, "y (unit)", "A description.").to_dict()
    text = str(spec)
    assert figures.loc[figure_id, "caption"] in text
    assert f"Figure {figure_id} · {figures.loc[figure_id, 'status']} from table" in text
    with pytest.raises(ValueError, match="figure_id must be one of"):
        chapter.figure(table, "DT-F99", "y", "d")
    with pytest.raises(ValueError, match="name must be one of"):
        chapter.printed("nope")
