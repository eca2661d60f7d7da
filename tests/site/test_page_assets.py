"""Static check of what each built page links: the chart library only on pages with a chart,
no script for formulas (they are MathML written at build time), Sphinx's search index only on
the search page, and Font Awesome's 1.5 MB icon script nowhere (not even in the site). The
browser test (``test_weight.py``) checks the same at run time and weighs every page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from site_pages import SITE, site_pages

SCRIPT_SRC = re.compile(r'<script[^>]*\ssrc="([^"]+)"')
PRELOAD = re.compile(r'<link[^>]*rel="preload"[^>]*href="([^"]+)"')
# A formula as the build writes it (book/_ext/mathml_math.py): its span or div, then MathML.
FORMULA = re.compile(r'class="math notranslate nohighlight"[^>]*>\s*(?:<span class="eqno">.*?'
                     r'</span>)?(<math .*?</math>)', re.DOTALL)
TEX_LEFT = re.compile(r"\\[a-zA-Z]+|\$")
# MathML elements that browsers drawing MathML Core (Chromium) do not lay out.
NOT_MATHML_CORE = re.compile(r"<(mlabeledtr|menclose|mfenced|mglyph|malignmark|maligngroup|"
                             r"mstack|mlongdiv|msgroup|msrow|msline|mscarries|mscarry)\b")


def loads(html: str) -> list[str]:
    """The scripts a page loads or preloads, without their ?v= query."""
    return [src.split("?")[0] for src in SCRIPT_SRC.findall(html) + PRELOAD.findall(html)]


@pytest.mark.parametrize("path", site_pages(), ids=lambda p: str(p.relative_to(SITE)))
def test_page_links_only_the_libraries_it_uses(path: Path):
    rel = path.relative_to(SITE).as_posix()
    html = path.read_text(encoding="utf-8")
    scripts = loads(html)
    charts = [s for s in scripts if s.endswith("vendor/vega-offline.js")]
    mathjax = [s for s in scripts if "mathjax" in s.lower()]
    if "altair-viz-" in html:
        assert len(charts) == 1, f"{rel} has charts but does not load the chart library"
        # Before the first chart cell: the stored outputs look for it as they run.
        assert html.index("vega-offline.js") < html.index("altair-viz-")
    else:
        assert charts == [], f"{rel} has no chart but loads {charts}"
    assert mathjax == [], f"{rel} loads {mathjax}"
    formulas = FORMULA.findall(html)
    assert html.count('class="math') == len(formulas), f"{rel}: a formula is not MathML"
    left = [f for f in formulas if TEX_LEFT.search(f)]
    assert left == [], f"{rel}: TeX left in a formula: {left[:2]}"
    outside = sorted({m for f in formulas for m in NOT_MATHML_CORE.findall(f)})
    assert outside == [], f"{rel}: formulas use {outside}, which MathML Core does not draw"
    assert not [s for s in scripts if "fontawesome" in s], f"{rel} loads Font Awesome's script"
    search = [s for s in scripts if s.endswith(("searchindex.js", "searchtools.js"))]
    if rel == "search.html":
        assert len(search) == 2
    else:
        assert search == [], f"{rel} loads the search index: {search}"


def test_the_site_serves_no_mathjax():
    assert not (SITE / "_static" / "vendor" / "mathjax").exists()


def test_the_icon_script_is_not_in_the_site():
    assert list(SITE.rglob("fontawesome.js*")) == []
    # The theme's stylesheet draws the icons with its web font, which the site serves.
    assert (SITE / "_static" / "vendor" / "fontawesome" / "webfonts" / "fa-solid-900.woff2"
            ).is_file()


def test_search_from_file_has_the_text_of_every_page():
    text = (SITE / "_static" / "search-pages.js").read_text(encoding="utf-8")
    for page in site_pages():
        rel = page.relative_to(SITE).with_suffix("").as_posix()
        if rel in ("index", "search", "genindex"):
            continue
        assert f'"{rel}":"<div role=\\"main\\">' in text, f"{rel} is missing from search-pages.js"
