"""Every internal link of the built site leads to a page that exists, and to its anchor."""

from __future__ import annotations

import functools
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from site_pages import SITE, site_pages


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key):
                self.ids.add(attrs[key])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])


@functools.cache  # a page links to the anchors of a few others, many times over
def parse(path: Path) -> _Anchors:
    parser = _Anchors()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.mark.parametrize("page", site_pages(), ids=lambda p: str(p.relative_to(SITE)))
def test_internal_links_resolve(page: Path):
    broken = []
    here = parse(page)
    for href in here.links:
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
            continue
        target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            broken.append(f"{href}: no such file")
            continue
        if parts.fragment and target.suffix == ".html":
            ids = here.ids if target == page else parse(target).ids
            if unquote(parts.fragment) not in ids:
                broken.append(f"{href}: no anchor #{parts.fragment}")
    assert broken == [], f"{page.relative_to(SITE)} has broken links:\n" + "\n".join(broken)
