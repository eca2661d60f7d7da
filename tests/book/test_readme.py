"""README.md stays short and states no number of its own (the block it takes from ``results/``,
written by ``scripts/readme_numbers.py``, excepted): it says what the book is,
gives the two commands, says where things are and how to contribute, and links the book's page
*Reproducing this book* (commands, timings, the kit, the handout, the lab) and CONTRIBUTING.md
for the rest. Every measured number (a size, a duration, a share, a count of tests or wheels)
lives on the book's pages only, so that it has one source."""

from __future__ import annotations

import re

from toc import ROOT, toc_files

README = ROOT / "README.md"
LIMIT_BYTES = 8 * 1024
# A number with the unit of a measurement: sizes, durations, shares, counts of things run.
MEASURED = re.compile(
    r"\b\d[\d,.]*\s*(?:[kMG]B|KiB|MiB|GiB|bytes?|ms|s|sec|seconds?|min|minutes?|h|hours?|%|×"
    r"|tests?|runs?|wheels?|states|configurations)\b|\b\d[\d,.]*\s*%", re.IGNORECASE)


def measured_numbers(text: str) -> list[str]:
    """Every number with a unit of measurement in ``text`` (code blocks included)."""
    return [m.group(0) for m in MEASURED.finditer(text)]


def test_readme_is_short():
    size = README.stat().st_size
    assert size < LIMIT_BYTES, (f"README.md is {size} bytes, over {LIMIT_BYTES}: move the detail "
                                "to book/reproducing.md or CONTRIBUTING.md and link it")


def _outside_the_numbers_block(text: str) -> str:
    begin, end = "<!-- numbers: begin -->", "<!-- numbers: end -->"
    return text[:text.index(begin)] + text[text.index(end):]


def test_readme_states_no_measured_number():
    found = measured_numbers(_outside_the_numbers_block(README.read_text(encoding="utf-8")))
    assert found == [], ("README.md states measured numbers; state them on the book's pages "
                         f"(book/reproducing.md) and link there: {found}")


def test_the_check_finds_measured_numbers():
    assert measured_numbers("make test takes 7 min 27 s; the kit is 189 MB, 130 wheels") == [
        "7 min", "27 s", "189 MB", "130 wheels"]
    assert measured_numbers("Python 3.11, five documents (1998 to 2023), port 8000") == []


def test_readme_gives_the_commands_and_links_the_rest():
    text = README.read_text(encoding="utf-8")
    for needed in ("make book", "make test", "book/reproducing.md", "book/install.md",
                   "CONTRIBUTING.md"):
        assert needed in text, f"README.md does not mention {needed}"
    for page in ("book/reproducing", "book/install", "book/workshop", "book/settings"):
        assert page in toc_files(), f"{page} is not in _toc.yml"
        assert (ROOT / f"{page}.md").is_file()


def test_every_path_readme_lists_exists():
    text = README.read_text(encoding="utf-8")
    table = text.split("## Where things are", 1)[1].split("\n## ", 1)[0]
    paths = re.findall(r"^\| `([^`]+)`", table, re.MULTILINE)
    paths += re.findall(r"^\| `[^`]+`, `([^`]+)`", table, re.MULTILINE)
    assert len(paths) >= 6
    missing = [p for p in paths if not (ROOT / p.rstrip("/")).exists()]
    assert missing == [], f"README.md lists paths that do not exist: {missing}"


def test_the_numbers_block_is_written_from_the_results():
    """README's numbers are the sentences the thread-pool chapter prints, from results/."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_numbers",
                                                  ROOT / "scripts" / "readme_numbers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = README.read_text(encoding="utf-8")
    assert module.current(text) == module.block(), (
        "README's numbers differ from results/: run scripts/readme_numbers.py")
