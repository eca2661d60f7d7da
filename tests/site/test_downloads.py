"""Every notebook page offers its notebook for download, and the download works.

The book theme's download button links to ``_sources/notebooks/<name>.ipynb``, the notebook
the page was built from. The check: the button is there, its link points at that file, the
file is in the built site, and served over HTTP it is a valid notebook of the same chapter.
"""

from __future__ import annotations

import json
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

import nbformat
import pytest
from site_pages import SITE
from toc import ROOT, toc_notebooks


class _DownloadLinks(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.title: list[str] = []
        self._in_h1 = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and "btn-download-source-button" in (attrs.get("class") or "").split():
            self.hrefs.append(attrs.get("href") or "")
        if tag == "h1" and not self.title:
            self._in_h1 = True

    def handle_endtag(self, tag):
        if tag == "h1":
            self._in_h1 = False

    def handle_data(self, data):
        if self._in_h1:
            self.title.append(data)


def _first_heading(nb) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return ""


@pytest.mark.parametrize("notebook", toc_notebooks(), ids=lambda p: p.stem)
def test_page_links_its_notebook_for_download(notebook: Path, site_url):
    rel = notebook.relative_to(ROOT).with_suffix(".html").as_posix()
    page = SITE / rel
    assert page.is_file(), f"{rel} is not in the built site"
    links = _DownloadLinks()
    links.feed(page.read_text(encoding="utf-8"))
    expected = f"_sources/{notebook.relative_to(ROOT).as_posix()}"
    ipynb = [h for h in links.hrefs if h.endswith(".ipynb")]
    assert len(ipynb) == 1, f"{rel}: download links {links.hrefs}, expected one .ipynb"
    target = (page.parent / ipynb[0]).resolve()
    assert target == (SITE / expected).resolve(), f"{rel} links {ipynb[0]}, not {expected}"
    assert target.is_file(), f"{expected} is missing from the built site"

    url = urljoin(f"{site_url}/{rel}", ipynb[0])
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 - 127.0.0.1 only
        assert response.status == 200
        body = response.read()
    nb = nbformat.reads(body.decode("utf-8"), as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert json.loads(body)["cells"], f"{expected} has no cells"
    assert _first_heading(nb) == "".join(links.title).strip().rstrip("#").strip(), (
        f"{expected} is not the notebook of {rel}")
