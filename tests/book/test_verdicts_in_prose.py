"""A chapter names the verdict the claims audit computes: in the section of a claim (from its
label ``(xx-cn)=`` to the next inventory label or level-two heading), every verdict word set in
emphasis (``**partly**``, ``*Not testable.*``) is the audit's verdict for that claim."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from figure_charts import LABEL

from queuetune import audit

ROOT = Path(__file__).resolve().parents[2]
_EMPHASIS = re.compile(r"(\*{1,2})([^*]+?)\1")
_WORDS = sorted(audit.VERDICTS, key=len, reverse=True)


def claim_sections(text: str) -> dict[str, str]:
    """Claim ID -> the prose of its section in one chapter (code cells left out)."""
    text = re.sub(r"```\{code-cell\}.*?\n```", "", text, flags=re.DOTALL)
    marks = [(m.start(), m.group(1).upper()) for m in LABEL.finditer(text)]
    marks += [(m.start(), None) for m in re.finditer(r"^## ", text, re.MULTILINE)]
    marks.sort()
    sections: dict[str, str] = {}
    for (start, item), (end, _) in zip(marks, marks[1:] + [(len(text), None)], strict=True):
        if item and re.match(r"^[A-Z]{2}-C\d+$", item):
            sections[item] = sections.get(item, "") + text[start:end]
    return sections


def named_verdicts(section: str) -> set[str]:
    """The verdict words a section sets in emphasis."""
    found = set()
    for match in _EMPHASIS.finditer(section):
        words = re.sub(r"\s+", " ", match.group(2)).strip().rstrip(".:").lower()
        for word in _WORDS:
            if words == word or words.startswith(word + " "):
                found.add(word)
                break
    return found


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.md")), ids=lambda p: p.stem)
def test_a_chapter_names_the_audits_verdict(path):
    sections = claim_sections(path.read_text(encoding="utf-8"))
    wrong = {}
    for claim, section in sections.items():
        if claim not in audit.registered():
            continue
        named = named_verdicts(section)
        verdict = audit.run(claim).verdict
        if named - {verdict}:
            wrong[claim] = (sorted(named), verdict)
    assert wrong == {}, f"{path.name}: prose names another verdict than the audit: {wrong}"


def test_the_check_catches_a_stale_verdict():
    page = ("(dc-c4)=\n### DC-C4 guidelines\n\nNothing to hold them against. "
            "Verdict: **partly**.\n\n(dc-c5)=\n### DC-C5\n\n*Not testable.*\n\n"
            "## What it means\n\n**supported**\n")
    sections = claim_sections(page)
    assert named_verdicts(sections["DC-C4"]) == {"partly"}
    assert named_verdicts(sections["DC-C5"]) == {"not testable"}
    assert audit.run("DC-C4").verdict not in named_verdicts(sections["DC-C4"])
