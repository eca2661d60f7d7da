"""Static check of the built site: no page makes the browser fetch anything from another host.

A page may *link* to other sites (an ``<a href>`` is navigation, not a request). It may not
load a script, stylesheet, image, font or frame from one, nor name one in an inline script
or style. The browser test checks the same at run time; this check names the file and line.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import altair as alt
import pytest
from site_pages import SITE, site_pages

EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)
URL_IN_TEXT = re.compile(r"(?:https?:|wss?:)?//([a-z0-9.-]+\.[a-z]{2,})(?::\d+)?/?[^\s\"'<>)]*",
                         re.IGNORECASE)
# Hosts that appear in inline code as identifiers, never fetched: the JSON-schema id that
# every Vega-Lite spec carries, and XML namespace names.
IDENTIFIER_HOSTS = {"vega.github.io", "www.w3.org"}
# Attributes that make the browser fetch, per tag ('*' = any tag).
FETCHING = {
    "script": {"src"}, "img": {"src", "srcset"}, "iframe": {"src"}, "embed": {"src"},
    "object": {"data"}, "source": {"src", "srcset"}, "video": {"src", "poster"},
    "audio": {"src"}, "track": {"src"}, "input": {"src"}, "image": {"href"},
}
LINK_FETCHING_RELS = {"stylesheet", "preload", "prefetch", "modulepreload", "icon",
                      "shortcut", "apple-touch-icon", "manifest", "dns-prefetch", "preconnect"}


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.offences: list[str] = []
        self._in = None  # 'script' or 'style' while inside one

    def _flag(self, what: str) -> None:
        self.offences.append(f"line {self.getpos()[0]}: {what}")

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        fetching = set(FETCHING.get(tag, ()))
        if tag == "link" and LINK_FETCHING_RELS & set((attrs.get("rel") or "").lower().split()):
            fetching.add("href")
        for name in fetching:
            for url in (attrs.get(name) or "").replace(",", " ").split():
                if EXTERNAL.match(url):
                    self._flag(f"<{tag} {name}={url!r}>")
        style = attrs.get("style") or ""
        if "url(" in style and URL_IN_TEXT.search(style):
            self._flag(f"inline style {style!r}")
        if tag in ("script", "style") and "src" not in attrs:
            self._in = tag

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in is None:
            return
        for match in URL_IN_TEXT.finditer(data):
            if match.group(1).lower() not in IDENTIFIER_HOSTS:
                self._flag(f"inline <{self._in}> names {match.group(0)!r}")


def offences(html: str) -> list[str]:
    collector = _Collector()
    collector.feed(html)
    return collector.offences


@pytest.mark.parametrize("page", site_pages(), ids=lambda p: str(p.relative_to(SITE)))
def test_page_fetches_nothing_from_another_host(page: Path):
    found = offences(page.read_text(encoding="utf-8"))
    assert not found, f"{page.relative_to(SITE)} references another host:\n" + "\n".join(found)


def test_css_fetches_nothing_from_another_host():
    found = []
    for css in sorted(SITE.rglob("*.css")):
        for match in re.finditer(r"(?:url\(|@import)\s*['\"]?((?:https?:)?//[^'\")\s]+)",
                                 css.read_text(encoding="utf-8", errors="replace")):
            found.append(f"{css.relative_to(SITE)}: {match.group(1)}")
    assert not found, "stylesheets load from another host:\n" + "\n".join(found)


def test_offline_bundle_claims_the_versions_the_charts_ask_for():
    """A chart loads vega from the CDN unless the page's bundle claims its exact versions."""
    bundle = (SITE / "_static" / "vendor" / "vega-offline.js").read_text(encoding="utf-8")
    claimed = json.loads(re.search(r"var marks = (\{.*?\});", bundle).group(1))
    assert claimed == {"vega_version": alt.VEGA_VERSION,
                       "vegalite_version": alt.VEGALITE_VERSION,
                       "vegaembed_version": alt.VEGAEMBED_VERSION}
    for page in site_pages():
        html = page.read_text(encoding="utf-8")
        for lib, version in re.findall(r'maybeLoadScript\("([a-z-]+)", "([^"]+)"\)', html):
            key = lib.replace("-", "") + "_version"
            assert claimed[key] == version, (
                f"{page.relative_to(SITE)} stores a chart made for {lib} {version}, the bundle "
                f"has {claimed[key]}: re-run the notebooks (make execute-notebooks)"
            )


def test_the_checker_catches_what_it_should():
    """The rules above must flag a CDN script, stylesheet and inline loader, and allow links."""
    bad = (
        '<script src="https://cdn.jsdelivr.net/npm/vega@6"></script>'
        '<link rel="stylesheet" href="//fonts.googleapis.com/css">'
        '<script>s.src = "https://unpkg.com/thebe@0.8.2/lib/index.js"</script>'
        '<img srcset="a.png 1x, https://example.org/b.png 2x">'
    )
    assert len(offences(bad)) == 4
    fine = ('<a href="https://example.org/">a link</a><script src="_static/x.js"></script>'
            '<script>var spec = {"$schema": "https://vega.github.io/schema/vega-lite/v6.json"}'
            '</script>')
    assert offences(fine) == []
