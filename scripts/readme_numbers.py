"""The numbers README states, written from their one source (the stored results).

    python scripts/readme_numbers.py          # rewrite README's block between the markers
    python scripts/readme_numbers.py --check  # exit 1 if README's block is not what it writes

README states only the numbers between ``<!-- numbers: begin -->`` and ``<!-- numbers: end -->``;
they are sentences of :mod:`queuetune.chapters.thread_pool_model`, which the thread-pool
chapter prints too, read from ``results/``, and the lab chapter's accuracy by regime
(:func:`queuetune.lab.experiments.imre.chapter.accuracy_headline`, from the chapter's data
set). Run after ``make benchmark`` or a new lab campaign.
"""

from __future__ import annotations

import sys
from pathlib import Path

from queuetune.chapters import thread_pool_model
from queuetune.lab.experiments.imre import chapter as lab_chapter

README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN, END = "<!-- numbers: begin -->", "<!-- numbers: end -->"


def block() -> str:
    """The block between the markers: one list item per stated result."""
    lines = [f"- {thread_pool_model.approximation_headline()}",
             f"- {thread_pool_model.sizing_headline()}",
             f"- {lab_chapter.accuracy_headline(lab_chapter.BOOK_DATASET)}"]
    return "\n".join([BEGIN, *lines, END])


def current(text: str) -> str:
    """README's block as it is (the markers included)."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[start:end]


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    if "--check" in argv:
        return 0 if current(text) == block() else 1
    README.write_text(text.replace(current(text), block()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
