"""The answer a reader comes for is one click from the landing page: the practical chapter comes
right after the introduction, which links to it, and the foundations page that every chapter
can link to (label ``foundations``) holds the glossary the chapters cite with {term}."""

from __future__ import annotations

import re

from toc import ROOT, toc_files

INTRO = ROOT / "book" / "intro.md"
FOUNDATIONS = ROOT / "book" / "foundations.md"
PRACTICAL = ROOT / "notebooks" / "practical.md"


def test_the_practical_chapter_comes_right_after_the_introduction():
    files = toc_files()
    assert files[0] == "book/intro"
    assert files[1] == "notebooks/practical"
    assert "book/foundations" in files


def test_the_landing_page_links_to_the_practical_chapter_before_anything_else():
    text = INTRO.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)]+)\)", text)
    assert links and links[0] == "../notebooks/practical.ipynb"


def test_the_foundations_page_has_its_label_symbols_and_glossary():
    text = FOUNDATIONS.read_text(encoding="utf-8")
    assert text.startswith("(foundations)=\n# ")
    for symbol in ("$K$", "$Z$", "$s_c$", "$s_w$", "$S$", "$T$", "$B$", "$X$", "$R$", "$U$"):
        assert f"| {symbol} |" in text, symbol
    glossary = text.split("```{glossary}", 1)[1].split("\n```", 1)[0]
    terms = set(re.findall(r"^(\S[^\n]*)$", glossary, re.MULTILINE))
    for term in ("accept queue", "backlog", "acceptor thread", "keep-alive", "TIME_WAIT",
                 "thread pool", "connection queue", "knee", "bottleneck"):
        assert term in terms, term


def test_every_term_the_practical_chapter_cites_is_in_the_glossary():
    glossary = FOUNDATIONS.read_text(encoding="utf-8").split("```{glossary}", 1)[1]
    terms = set(re.findall(r"^(\S[^\n]*)$", glossary.split("\n```", 1)[0], re.MULTILINE))
    cited = re.findall(r"\{term\}`(?:[^`<]*<)?([^`>]+)>?`", PRACTICAL.read_text(encoding="utf-8"))
    assert cited
    assert sorted(set(cited) - terms) == []
