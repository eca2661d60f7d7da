"""Quotation marks mean the source's exact words: every quoted span of the book's prose occurs
verbatim in the transcribed text under ``data/``, or is registered as the book's own wording
(``tests/book/own_wording.csv``, with a reason per entry). See ``tests/helpers/quotations.py``."""

from __future__ import annotations

import csv
import json

import pytest
import quotations

from queuetune import data


def test_every_quotation_is_verbatim_or_the_books_own_wording():
    bad = quotations.unverified()
    assert bad == [], (
        "quoted but not verbatim in data/ (quote the source's words exactly, drop the quotation "
        "marks, or register the book's own wording in tests/book/own_wording.csv):\n"
        + "\n".join(f"  {q.page}: \"{q.text}\"" for q in bad))


def test_the_check_reads_every_chapter_and_page():
    pages = {p.relative_to(quotations.ROOT).as_posix() for p in quotations.pages()}
    assert {f"notebooks/{p.stem}.md" for p in (quotations.ROOT / "notebooks").glob("*.md")} <= pages
    assert "book/intro.md" in pages
    found = quotations.quotations()
    assert len(found) > 100
    assert {q.page.split(" ")[0] for q in found} >= {"notebooks/iplanet-tuning.md",
                                                     "notebooks/imre-appserver.md"}


def test_own_wording_entries_have_a_reason_and_are_used():
    own = quotations.own_wording()
    assert own, "the register of the book's own wording is empty"
    assert all(len(reason) > 10 for reason in own.values()), own
    used = {q.text for q in quotations.quotations()}
    assert sorted(set(own) - used) == [], "registered wording no page quotes any more"
    texts = quotations.source_texts()
    verbatim = sorted(span for span in own if quotations.is_verbatim(span, texts))
    assert verbatim == [], "verbatim quotations need no entry in the register"


def _book(tmp_path, page: str, outputs: list[dict] | None = None):
    """A book in ``tmp_path`` with the repository's data and one chapter ``page``."""
    (tmp_path / "data").symlink_to(data.data_dir(), target_is_directory=True)
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks" / "chapter.md").write_text(page, encoding="utf-8")
    if outputs is not None:
        cell = {"cell_type": "code", "source": "", "metadata": {}, "outputs": outputs}
        (tmp_path / "notebooks" / "chapter.ipynb").write_text(
            json.dumps({"cells": [cell]}), encoding="utf-8")
    return tmp_path


def _a_stated_sentence() -> str:
    path = data.data_dir() / "imre-appserver" / "stated_values.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        return max((row["sentence"] for row in csv.DictReader(handle)
                    if not set(row["sentence"]) & set("\"“”[]…")), key=len)


@pytest.mark.parametrize("open_, close", [('"', '"'), ("“", "”")])
def test_an_altered_quotation_is_caught(tmp_path, open_, close):
    sentence = _a_stated_sentence()
    words = sentence.split()
    altered = " ".join(words[:3] + ["never"] + words[3:])
    page = ("# A chapter\n\nThe paper says " + open_ + sentence + close + ", and\nelsewhere "
            + open_ + " ".join(words[:2]) + "\n" + " ".join(words[2:6]) + close + ".\n\n"
            "```{code-cell} ipython3\nx = \"" + altered + "\"  # code is not prose\n```\n\n"
            "A misquotation: " + open_ + altered + close + ".\n")
    root = _book(tmp_path, page)
    bad = quotations.unverified(root, wording={})
    assert [q.text for q in bad] == [quotations.normalize(altered)]
    assert quotations.unverified(root, wording={quotations.normalize(altered): "a test"}) == []


def test_an_elided_quotation_must_match_piece_by_piece(tmp_path):
    words = _a_stated_sentence().split()
    good = " ".join(words[:3]) + " [...] " + " ".join(words[5:8])
    bad = " ".join(words[:3]) + " [...] " + " ".join(words[5:7]) + " nonsense"
    root = _book(tmp_path, f'Elided "{good}" and "{bad}".\n')
    assert [q.text for q in quotations.unverified(root, wording={})] == [bad]


def test_prose_printed_by_code_counts(tmp_path):
    words = _a_stated_sentence().split()
    outputs = [
        {"output_type": "display_data", "metadata": {},
         "data": {"text/markdown": 'The paper: "' + " ".join(words[:4]) + ' always".'}},
        {"output_type": "display_data", "metadata": {"scrapbook": {"name": "x"}},
         "data": {"application/papermill.record/text/plain":
                  repr('glued "' + " ".join(words[:4]) + '"')}},
    ]
    root = _book(tmp_path, "# A chapter\n", outputs)
    bad = quotations.unverified(root, wording={})
    assert [(q.page, q.text) for q in bad] == [
        ("notebooks/chapter.md (output)", " ".join(words[:4]) + " always")]
