"""queuetune.chapters.show: what a chapter displays, as IPython receives it."""

from __future__ import annotations

import pytest
from IPython.display import Markdown

from queuetune import stated
from queuetune.chapters import show


@pytest.fixture
def shown(monkeypatch):
    objects = []
    monkeypatch.setattr(show, "_display", lambda *items: objects.extend(items))
    return objects


def test_math_block():
    assert show.math_block("a = b") == "$$\na = b\n$$"
    assert show.math_block("a", "b", "c") == "$$\na \\\\ b \\\\ c\n$$"
    assert show.math_block(r"p_k = p_0", tag=3) == "$$\np_k = p_0 \\tag{3}\n$$"
    with pytest.raises(ValueError, match="lines must be one or more LaTeX strings"):
        show.math_block()
    with pytest.raises(ValueError, match="lines must be one or more LaTeX strings"):
        show.math_block(1)


def test_markdown_and_math_display_markdown(shown):
    show.markdown("**bold**")
    show.math("x = 1", "y = 2")
    assert [type(o) for o in shown] == [Markdown, Markdown]
    assert shown[0].data == "**bold**"
    assert shown[1].data == "$$\nx = 1 \\\\ y = 2\n$$"
    with pytest.raises(ValueError, match="text must be a string"):
        show.markdown(3)


def test_figure_displays_the_note_then_the_sentences(shown):
    note, sentences = stated.figure_statements("imre-appserver", "IM-F2")
    show.figure("imre-appserver", "IM-F2")
    assert shown[0].data == note
    assert shown[1].equals(sentences)


def test_figure_without_stated_numbers_says_so(shown):
    from queuetune import data

    figures = data.load("domino-curves", "figures")
    silent = figures.loc[figures["stated_in_text"].isna(), "figure_id"].iloc[0]
    show.figure("domino-curves", silent)
    assert [o.data for o in shown][1] == "*The text states no number about this chart.*"
