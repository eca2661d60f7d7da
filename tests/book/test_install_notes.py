"""Every chapter notebook opens with what to install and from where, under the package's own
name and version: its first cell, before the title, is a short note naming the wheel the site
offers (``queuetune-<version>-py3-none-any.whl``, with its ``notebooks`` extra), the install from
a checkout and the site's install page; the site leaves the note out (tag ``remove-cell``).
Every wheel file name the book, README and CONTRIBUTING state carries the package's version,
and the install page links the wheel that the build puts in the site
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


def install_note_problems(source: str, tags: list[str]) -> list[str]:
    """What is wrong with a chapter's first cell as its opening install note."""
    lines = [line for line in source.splitlines() if line.strip()]
    problems = []
    if not lines or not all(line.startswith(">") for line in lines):
        problems.append("is not a note (a quoted paragraph) alone")
    note = " ".join(lines)
    for needed in (FROM_WHEEL, FROM_CHECKOUT, f"]({INSTALL_PAGE})"):
        if needed not in note:
            problems.append(f"note lacks {needed}")
    # The site shows the install page instead: on every page the note would push the chapter's
    # findings and first chart down (tests/site/test_openings.py).
    if "remove-cell" not in tags:
        problems.append("is not tagged remove-cell (the site leaves the note out)")
    return problems


def first_cells(chapter: Path):
    cells = jupytext.read(chapter).cells
    return cells[0], cells[1]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_opens_with_what_to_install(chapter: Path):
    note, title = first_cells(chapter)
    assert note.cell_type == "markdown", f"{chapter.name} opens with a code cell"
    problems = install_note_problems(note.source, note.metadata.get("tags", []))
    assert problems == [], f"{chapter.name}: its first cell " + "; ".join(problems)
    heading = [line for line in title.source.splitlines() if line.strip()]
    if heading and re.fullmatch(r"\([a-z0-9-]+\)=", heading[0]):
        heading = heading[1:]  # the chapter's label
    assert heading and heading[0].startswith("# "), f"{chapter.name}: no title after the note"


def test_the_check_refuses_a_missing_or_stale_note():
    note, title = first_cells(CHAPTERS[0])
    tags = note.metadata["tags"]
    assert install_note_problems(note.source, tags) == []
    assert install_note_problems(title.source, tags)  # the title, no note
    stale = note.source.replace(WHEEL, "queuetune-0.0.1-py3-none-any.whl")
    assert f"note lacks {FROM_WHEEL}" in install_note_problems(stale, tags)
    bare = note.source.replace(FROM_WHEEL, "pip install queuetune")
    assert f"note lacks {FROM_WHEEL}" in install_note_problems(bare, tags)
    assert install_note_problems(note.source, [])


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
