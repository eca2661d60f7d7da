"""What each page of the book loads: only what it needs.

A Sphinx extension of this book (listed in ``_config.yml``):

* **Charts.** ``vendor/vega-offline.js`` (vega, vega-lite and vega-embed, about 0.9 MB) is added
  to a page only when its HTML holds an Altair chart output (``altair-viz-``). The stored chart
  outputs find the bundle through the ``VEGA_DEBUG`` version marks it sets, so it must be a plain
  script in the page's head, before the chart cells run: it is. ``queuetune-charts.js`` follows
  it: it draws the charts dark in the theme's dark mode (and again when the reader switches), and
  works the what-if page's exercise buttons.
* **Formulas** need nothing: they are MathML written at build time (``mathml_math.py``).
* **sphinx-design** (a default extension of Jupyter Book): its stylesheet and tab script only on
  a page that uses one of its components (an ``sd-`` class).
* **Search from file://.** Sphinx's search page reads a summary of every result from the result's
  page with ``fetch()``, which browsers refuse for ``file://`` URLs (one console error per result,
  titles only). The build writes the text of every page's article to
  ``_static/search-pages.js``; opened from ``file://``, the search page loads that file and
  answers those reads from it. Served over HTTP, nothing changes.
* **Icons.** The theme's 1.5 MB Font Awesome script is not linked from any page (see
  ``book/_templates/static/webpack-macros.html``); the theme's stylesheet draws the same icons
  with its web font. The script and its source map are removed from the built site, and the
  stylesheet keeps the glyph rules (``.fa-name:before{content:...}``) of the icons that some page
  or script of the site names, about 30 of 1,900 (86 kB less on every page).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

VEGA_BUNDLE = "vendor/vega-offline.js"
# Charts that follow dark mode, and the what-if page's exercise buttons; after the bundle.
CHART_SCRIPT = "queuetune-charts.js"
CHART_MARK = "altair-viz-"
DESIGN_MARK = re.compile(r'class="[^"]*\bsd-')
DESIGN_FILES = ("sphinx-design.min.css", "design-tabs.js")
SEARCH_PAGES = "search-pages.js"
ICON_SCRIPTS = ("fontawesome.js", "fontawesome.js.map", "fontawesome.js.LICENSE.txt")
THEME_CSS = Path("styles") / "pydata-sphinx-theme.css"
# One glyph rule of Font Awesome: a list of ``.fa-name:before`` selectors and its content.
GLYPH_RULE = re.compile(r"((?:\.fa-[a-z0-9-]+:(?:before|after),?)+)(\{content:[^}]*\})")
ICON_CLASS = re.compile(r"\bfa-[a-z0-9-]+")

# On the search page, opened from file:// only: answer the summary reads of searchtools.js from
# the article texts in _static/search-pages.js instead of fetch(), which file:// refuses.
SEARCH_FROM_FILE = """
(function () {
  if (window.location.protocol !== "file:") return;
  var root = new URL(document.documentElement.dataset.content_root || "./", window.location.href);
  var pages = new Promise(function (resolve) {
    var script = document.createElement("script");
    script.src = new URL("_static/@FILE@", root).href;
    script.onload = function () { resolve(window.QUEUETUNE_SEARCH_PAGES || {}); };
    script.onerror = function () { resolve({}); };
    document.head.appendChild(script);
  });
  var suffix = DOCUMENTATION_OPTIONS.FILE_SUFFIX || ".html";
  window.fetch = function (resource) {
    var url = new URL(String(resource), window.location.href);
    var name = decodeURIComponent(url.pathname.slice(root.pathname.length));
    if (name.endsWith(suffix)) name = name.slice(0, -suffix.length);
    return pages.then(function (texts) { return new Response(texts[name] || ""); });
  };
})();
""".replace("@FILE@", SEARCH_PAGES)

ARTICLE = re.compile(r'<article class="bd-article">(.*?)</article>', re.DOTALL)
NOT_TEXT = re.compile(r"<(script|style)\b.*?</\1>|<a class=\"headerlink\".*?</a>",
                      re.DOTALL | re.IGNORECASE)
OPENING_TAG = re.compile(r"<([a-zA-Z][\w-]*)(\s[^>]*)?>")
ID = re.compile(r'\sid="[^"]*"')
SPACE = re.compile(r"\s+")


def page_assets(app, pagename, templatename, context, doctree) -> None:
    body = context.get("body") or ""
    if CHART_MARK in body:
        app.builder.add_js_file(VEGA_BUNDLE)
        app.builder.add_js_file(CHART_SCRIPT)
    if not DESIGN_MARK.search(body):
        # sphinx-design's stylesheet and tab script serve only its components (cards, tabs...).
        for assets in (context.get("css_files"), context.get("script_files")):
            if assets is not None:
                assets[:] = [a for a in assets
                             if not str(getattr(a, "filename", "") or "").endswith(DESIGN_FILES)]
    if pagename == "search":
        app.builder.add_js_file("", body=SEARCH_FROM_FILE)


def _article_text(html: str) -> str:
    """A page's article as searchtools.js reads it: its text and the ids of its elements,
    without scripts, styles and heading links."""
    match = ARTICLE.search(html)
    if not match:
        return ""
    article = NOT_TEXT.sub("", match.group(1))
    # Only the ids matter (a result may point at a section): every other attribute goes.
    article = OPENING_TAG.sub(
        lambda tag: f"<{tag.group(1)}{''.join(ID.findall(tag.group(2) or '')[:1])}>", article)
    return f'<div role="main">{SPACE.sub(" ", article).strip()}</div>'


def used_glyph_rules(css: str, names: set[str]) -> str:
    """``css`` with only the glyph rules of the icon classes in ``names`` (a rule naming several
    classes keeps the used ones); every other rule as it is.

    >>> used_glyph_rules('.a{x:1}.fa-b:before,.fa-c:before{content:"1"}.fa-d:before{content:"2"}',
    ...                  {"fa-c"})
    '.a{x:1}.fa-c:before{content:"1"}'
    """
    def keep(rule: re.Match) -> str:
        selectors = [s for s in rule.group(1).split(",")
                     if s and s[1:].split(":")[0] in names]
        return ",".join(selectors) + rule.group(2) if selectors else ""
    return GLYPH_RULE.sub(keep, css)


def prune_icon_stylesheet(out: Path) -> None:
    """Keep only the glyph rules of the icons the site's pages and scripts name."""
    names: set[str] = set()
    for path in sorted(out.rglob("*")):
        if path.suffix in (".html", ".js") and path.is_file():
            names.update(ICON_CLASS.findall(path.read_text(encoding="utf-8", errors="replace")))
    css = out / "_static" / THEME_CSS
    css.write_text(used_glyph_rules(css.read_text(encoding="utf-8"), names), encoding="utf-8")


def write_search_pages(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    texts = {}
    for docname in sorted(app.env.found_docs):
        page = out / app.builder.get_target_uri(docname)
        if page.is_file():
            texts[docname] = _article_text(page.read_text(encoding="utf-8"))
    static = out / "_static"
    payload = json.dumps(texts, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    (static / SEARCH_PAGES).write_text(
        "/* The article of every page, for the search page opened from file:// "
        "(queuetune_site.py). */\nwindow.QUEUETUNE_SEARCH_PAGES = " + payload + ";\n",
        encoding="utf-8")
    for name in ICON_SCRIPTS:
        (static / "scripts" / name).unlink(missing_ok=True)
    prune_icon_stylesheet(out)


def setup(app):
    # After the other extensions (priority 500) have added their assets.
    app.connect("html-page-context", page_assets, priority=900)
    app.connect("build-finished", write_search_pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
