"""Every chapter notebook opens with what to install and from where, under the package's own
name and version: its first markdown cell holds the chapter's title and a short note naming the
wheel the site offers (``queuetune-<version>-py3-none-any.whl``, with its ``notebooks`` extra)
and the install from a checkout. Every wheel file name the book, README and CONTRIBUTING state
carries the package's version, and the install page links the wheel the build puts in the site
(``book/_ext/wheel_download.py``)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import jupytext
import pytest
from toc import ROOT, toc_files

import queuetune

WHEEL = f"queuetune-{queuetune.__version__}-py3-none-any.whl"
FROM_WHEEL = f'pip install "{WHEEL}[notebooks]"'
FROM_CHECKOUT = 'pip install -e ".[notebooks]"'
INSTALL_PAGE = "../book/install.md"
WHEEL_NAME = re.compile(r"queuetune-(\d[^-\s\"'`]*)-py3-none-any\.whl")
CHAPTERS = sorted((ROOT / "notebooks").glob("*.md"))


def install_note_problems(first_cell: str) -> list[str]:
    """What is wrong with a chapter's first markdown cell as its opening install note."""
    lines = [line for line in first_cell.splitlines() if line.strip()]
    if lines and re.fullmatch(r"\([a-z0-9-]+\)=", lines[0]):
        lines = lines[1:]  # the chapter's label
    problems = []
    if not lines or not lines[0].startswith("# "):
        problems.append("does not start with the chapter's title")
    note = " ".join(lines[1:])
    if len(lines) < 2 or not all(line.startswith(">") for line in lines[1:]):
        problems.append("holds no note (a quoted paragraph) under the title, or more than it")
    for needed in (FROM_WHEEL, FROM_CHECKOUT, f"]({INSTALL_PAGE})"):
        if needed not in note:
            problems.append(f"note lacks {needed}")
    return problems


def first_markdown_cell(chapter: Path) -> str:
    cells = jupytext.read(chapter).cells
    return next(c.source for c in cells if c.cell_type == "markdown")


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_opens_with_what_to_install(chapter: Path):
    problems = install_note_problems(first_markdown_cell(chapter))
    assert problems == [], f"{chapter.name}: its first cell " + "; ".join(problems)


def test_the_check_refuses_a_missing_or_stale_note():
    good = first_markdown_cell(CHAPTERS[0])
    assert install_note_problems(good) == []
    assert install_note_problems(good.split("\n\n>")[0])  # the title alone
    stale = good.replace(WHEEL, "queuetune-0.0.1-py3-none-any.whl")
    assert f"note lacks {FROM_WHEEL}" in install_note_problems(stale)
    bare = good.replace(FROM_WHEEL, "pip install queuetune")
    assert f"note lacks {FROM_WHEEL}" in install_note_problems(bare)


def stated_wheel_versions() -> dict[str, set[str]]:
    """The versions in every wheel file name of README, CONTRIBUTING, the pages and chapters."""
    files = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "book").glob("*.md")),
             *CHAPTERS]
    found = {}
    for path in files:
        versions = set(WHEEL_NAME.findall(path.read_text(encoding="utf-8")))
        if versions:
            found[path.relative_to(ROOT).as_posix()] = versions
    return found


def test_every_wheel_name_carries_the_package_version():
    found = stated_wheel_versions()
    assert "book/install.md" in found and len(found) > len(CHAPTERS)
    stale = {page: v for page, v in found.items() if v != {queuetune.__version__}}
    assert stale == {}, f"wheel names with another version than {queuetune.__version__}: {stale}"


def test_the_install_page_links_the_wheel_of_the_build():
    assert "book/install" in toc_files()
    text = (ROOT / "book" / "install.md").read_text(encoding="utf-8")
    assert re.search(r"\{wheel\}`[^`]+`", text), "book/install.md does not link the wheel"
    spec = importlib.util.spec_from_file_location(
        "wheel_download", ROOT / "book" / "_ext" / "wheel_download.py")
    extension = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(extension)
    assert extension.wheel_name() == WHEEL
