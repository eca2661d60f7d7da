"""Quotations in the book's prose, and the source text they must quote verbatim.

A quotation is a span between straight double quotes ("...") or curly double quotes (“...”) in
the prose of a chapter or page: the markdown cells of ``notebooks/*.md`` and ``book/*.md``
(code cells, fenced code and inline code left out), and the prose the code cells produce (the
Markdown they display and the glued text, read from the stored outputs of
``notebooks/*.ipynb``). A quotation is verbatim when it occurs, whitespace-normalized, in the
transcribed text under ``data/``: the sentences of every ``stated_values.csv``, the captions of
every ``figures.csv`` (printed as in the document) and every verbatim excerpt under a
``source/`` folder. An elision (``[...]``, ``[…]``, ``...``, ``…``) splits a quotation into
pieces, each of which must occur. Anything else in quotation marks must be the book's own
wording, registered with a reason in ``tests/book/own_wording.csv``.
"""

from __future__ import annotations

import ast
import csv
import json
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OWN_WORDING = ROOT / "tests" / "book" / "own_wording.csv"

_SPACE = re.compile(r"\s+")
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
_ELISION = re.compile(r"\[\.\.\.\]|\[…\]|\.\.\.|…")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
# Fenced blocks whose body is prose: MyST directives other than code cells and code blocks.
_CODE_DIRECTIVES = ("{code-cell}", "{code-block}", "{code}", "{math}", "{glue:figure}")
# Outputs of code cells that the page shows as prose.
_PROSE_MIMES = ("text/markdown", "application/papermill.record/text/markdown")
_GLUE_TEXT = "application/papermill.record/text/plain"


def normalize(text: str) -> str:
    """``text`` with every run of whitespace one space, stripped."""
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class Quotation:
    """One quoted span: the page it is on (``notebooks/fitting.md``) and its text."""

    page: str
    text: str


def prose_of_markdown(text: str) -> str:
    """The prose of a MyST Markdown page: front matter, code cells, fenced code and inline
    code removed; directives whose body is prose (exercises, notes, dropdowns) kept."""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        text = text[end + 5:] if end >= 0 else text
    kept: list[str] = []
    fence: str | None = None
    skipping = False
    for line in text.splitlines():
        match = _FENCE.match(line.strip())
        if fence is None and match:
            info = match.group(2).strip()
            fence = match.group(1)
            skipping = not info.startswith("{") or info.startswith(_CODE_DIRECTIVES)
            continue
        if fence is not None and line.strip() == fence:
            fence, skipping = None, False
            continue
        if not skipping and not line.startswith("+++"):  # jupytext's cell breaks and metadata
            kept.append(line)
    return _INLINE_CODE.sub("", "\n".join(kept))


def prose_of_outputs(notebook: dict) -> list[str]:
    """The prose the code cells of a stored notebook produce: displayed Markdown and glued
    text."""
    texts: list[str] = []
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            data = output.get("data", {})
            for mime in _PROSE_MIMES:
                if mime in data:
                    texts.append("".join(data[mime]))
            if _GLUE_TEXT in data:
                value = "".join(data[_GLUE_TEXT])
                try:
                    value = ast.literal_eval(value)
                except (ValueError, SyntaxError):
                    pass
                if isinstance(value, str):
                    texts.append(value)
    return texts


def quoted_spans(text: str) -> list[str]:
    """Every quoted span of ``text``, paragraph by paragraph (a quotation mark left open at the
    end of a paragraph does not swallow the next one), whitespace-normalized."""
    spans = []
    for paragraph in re.split(r"\n\s*\n", text):
        for match in _QUOTED.finditer(paragraph):
            span = normalize(match.group(1) or match.group(2))
            if span:
                spans.append(span)
    return spans


def pages(root: Path = ROOT) -> list[Path]:
    """Every chapter and prose page: ``notebooks/*.md`` and ``book/*.md``."""
    return sorted((root / "notebooks").glob("*.md")) + sorted((root / "book").glob("*.md"))


def quotations(root: Path = ROOT) -> list[Quotation]:
    """Every quotation of the book's prose, page by page."""
    found = []
    for path in pages(root):
        page = path.relative_to(root).as_posix()
        for span in quoted_spans(prose_of_markdown(path.read_text(encoding="utf-8"))):
            found.append(Quotation(page, span))
        stored = path.with_suffix(".ipynb")
        if stored.parent.name == "notebooks" and stored.exists():
            notebook = json.loads(stored.read_text(encoding="utf-8"))
            for text in prose_of_outputs(notebook):
                for span in quoted_spans(text):
                    found.append(Quotation(f"{page} (output)", span))
    return found


def source_texts(root: Path = ROOT) -> list[str]:
    """The transcribed text under ``data/``, whitespace-normalized: sentences of the stated
    values, figure captions and verbatim excerpts, of every document and data set."""
    texts = []
    data_dir = root / "data"
    for path in sorted(data_dir.rglob("*.csv")):
        if path.name not in ("stated_values.csv", "figures.csv"):
            continue
        column = "sentence" if path.name == "stated_values.csv" else "caption"
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                if row.get(column):
                    texts.append(normalize(row[column]))
    for path in sorted(data_dir.rglob("*.txt")):
        if "source" in path.relative_to(data_dir).parts:
            texts.append(normalize(path.read_text(encoding="utf-8")))
    return texts


def own_wording(path: Path = OWN_WORDING) -> dict[str, str]:
    """The book's own wording that may stand in quotation marks: span -> reason."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return {normalize(r["span"]): r["reason"].strip() for r in rows}


def _pieces(span: str) -> list[str]:
    return [p.strip() for p in _ELISION.split(span) if p.strip(" ,;:")]


def _found(piece: str, corpus: str) -> bool:
    if piece in corpus:
        return True
    # A quotation may begin a sentence of the book with a capital, or end in the book's
    # punctuation; the words themselves must be the source's.
    variants = {piece[:1].lower() + piece[1:], piece[:1].upper() + piece[1:]}
    variants |= {v.rstrip(".,;:") for v in variants}
    return any(v and v in corpus for v in variants)


def is_verbatim(span: str, texts: list[str]) -> bool:
    """Every piece of ``span`` between elisions occurs in one of the source ``texts``."""
    corpus = "\n".join(texts)
    pieces = _pieces(span)
    return bool(pieces) and all(_found(p, corpus) for p in pieces)


def unverified(root: Path = ROOT, wording: dict[str, str] | None = None) -> list[Quotation]:
    """The quotations that are neither verbatim in ``data/`` nor registered as the book's own
    wording."""
    own = own_wording() if wording is None else wording
    texts = source_texts(root)
    return [q for q in quotations(root) if q.text not in own and not is_verbatim(q.text, texts)]
