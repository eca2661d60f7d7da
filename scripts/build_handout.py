"""Print every chapter of the built book to a PDF handout, offline.

    .venv/bin/python scripts/build_handout.py                   # every notebook page in _toc.yml
    .venv/bin/python scripts/build_handout.py domino-threads what-if --solutions
    .venv/bin/python scripts/build_handout.py --site DIR/_build/html --out DIR/handout

Each page of the built site (``make book``) is opened in headless Chromium (Debian's
``chromium``, driven by Playwright) from a server on 127.0.0.1 with every request to another
host aborted; once its charts are drawn (SVG) and its mathematics typeset, the page is printed
to ``<out>/<chapter>.pdf`` (A4) with the book theme's print style, so charts stay vector
graphics. Interactive charts print in their initial state. Solutions are left out unless
``--solutions`` is given (then the files are ``<chapter>-solutions.pdf``, solutions expanded);
``--hide-code`` leaves out the code cells and keeps their outputs.
"""

from __future__ import annotations

import argparse
import functools
import shutil
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 30_000
# Printed pages: the explorer's sliders do not stick, chart menus and widgets' chrome go, charts
# and tables are not split across pages.
PRINT_CSS = """
@media print {
  .vega-embed > details, .vega-embed summary, .toggle-button { display: none !important; }
  .vega-embed .chart-wrapper > .vega-bindings { position: static !important; }
  div.output { overflow: visible !important; }
  div.cell_output .vega-embed, div.cell_output table, div.cell_input { break-inside: avoid; }
  .admonition, div.math-wrapper { break-inside: avoid; }
  div.cell_input pre, div.cell_output pre { white-space: pre-wrap; overflow-wrap: anywhere; }
}
"""
NO_SOLUTIONS_CSS = "@media print { .solution { display: none !important; } }"
NO_CODE_CSS = "@media print { div.cell_input, .cell .input { display: none !important; } }"
FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;color:#555;">'
          '<span class="title"></span> &middot; <span class="pageNumber"></span> / '
          '<span class="totalPages"></span></div>')


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature fixed by the base class
        pass


def notebook_pages(toc: Path = ROOT / "_toc.yml") -> list[str]:
    """The notebook pages of the table of contents, in reading order (e.g. notebooks/what-if)."""
    def walk(entries) -> list[str]:
        found = []
        for entry in entries or []:
            if "file" in entry:
                found.append(entry["file"])
            for key in ("chapters", "sections", "parts"):
                found += walk(entry.get(key))
        return found

    spec = yaml.safe_load(toc.read_text(encoding="utf-8"))
    files = [spec["root"], *walk(spec.get("parts")), *walk(spec.get("chapters"))]
    return [f for f in files if (ROOT / f"{f}.ipynb").is_file()]


def print_pages(site: Path, out: Path, pages: list[str], *, solutions: bool,
                hide_code: bool) -> list[Path]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's chromium is not installed: run `make chromium`")
    if not (site / "index.html").is_file():
        raise SystemExit(f"{site} holds no built book: run `make book` first")
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(_QuietHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    css = PRINT_CSS + ("" if solutions else NO_SOLUTIONS_CSS) + (NO_CODE_CSS if hide_code
                                                                 else "")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            for name in pages:
                html = site / f"{name}.html"
                if not html.is_file():
                    raise SystemExit(f"{name}.html is not in {site}: rebuild the book")
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()
                outside: list[str] = []

                def route(r, outside=outside):
                    if r.request.url.startswith(base) or r.request.url.startswith("data:"):
                        r.continue_()
                    else:
                        outside.append(r.request.url)
                        r.abort()

                page.route("**/*", route)
                page.goto(f"{base}/{name}.html", wait_until="load")
                charts = page.locator("div[id^='altair-viz-']")
                for i in range(charts.count()):
                    charts.nth(i).locator("svg.marks, canvas.marks").first.wait_for(
                        state="attached", timeout=TIMEOUT_MS)
                if page.locator(".math").count():
                    page.wait_for_function(
                        "() => [...document.querySelectorAll('.math')]"
                        ".every(e => e.querySelector('mjx-container'))", timeout=TIMEOUT_MS)
                if solutions:  # expand the dropdowns (sphinx-togglebutton)
                    page.evaluate("() => document.querySelectorAll('.toggle-hidden')"
                                  ".forEach(e => e.classList.remove('toggle-hidden'))")
                page.add_style_tag(content=css)
                page.wait_for_timeout(300)
                target = out / (Path(name).name + ("-solutions" if solutions else "") + ".pdf")
                page.pdf(path=str(target), format="A4", print_background=True, scale=0.8,
                         margin={"top": "14mm", "bottom": "16mm", "left": "12mm",
                                 "right": "12mm"},
                         display_header_footer=True, header_template="<div></div>",
                         footer_template=FOOTER)
                context.close()
                if outside:
                    raise SystemExit(f"{name}: the page asked other hosts for {outside}")
                written.append(target)
                shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
                print(f"{shown}: {target.stat().st_size / 1e6:.1f} MB")
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return written


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*",
                        help="chapter names (e.g. what-if); default: every notebook page")
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "handout")
    parser.add_argument("--solutions", action="store_true", help="print solutions expanded")
    parser.add_argument("--hide-code", action="store_true", help="leave out the code cells")
    args = parser.parse_args(argv)
    pages = notebook_pages()
    if args.chapters:
        known = {Path(p).name: p for p in pages}
        unknown = [c for c in args.chapters if c not in known]
        if unknown:
            raise SystemExit(f"unknown chapter(s) {unknown}; chapters: {sorted(known)}")
        pages = [known[c] for c in args.chapters]
    print_pages(args.site.resolve(), args.out.resolve(), pages, solutions=args.solutions,
                hide_code=args.hide_code)


if __name__ == "__main__":
    main(sys.argv[1:])
