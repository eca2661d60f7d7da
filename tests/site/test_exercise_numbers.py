"""Each page numbers its exercises from 1, and each solution names its exercise's number."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from site_pages import SITE, site_pages

_EXERCISE = re.compile(r'<span class="caption-number">Exercise (\d+) </span>')
_SOLUTION = re.compile(r"Solution to(?:<[^>]*>|\s)*Exercise (\d+)")


def pages_with_exercises() -> list[Path]:
    return [p for p in site_pages() if _EXERCISE.search(p.read_text(encoding="utf-8"))]


def test_some_pages_have_exercises():
    assert len(pages_with_exercises()) >= 3


@pytest.mark.parametrize("page", pages_with_exercises(), ids=lambda p: str(p.relative_to(SITE)))
def test_exercises_are_numbered_from_one_on_each_page(page: Path):
    html = page.read_text(encoding="utf-8")
    numbers = [int(n) for n in _EXERCISE.findall(html)]
    assert numbers == list(range(1, len(numbers) + 1))
    solutions = {int(n) for n in _SOLUTION.findall(html)}
    assert solutions == set(numbers)
