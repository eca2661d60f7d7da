"""Formulas as MathML written at build time: no MathJax in the reader's browser.

A Sphinx extension of this book (listed in ``_config.yml``, which sets
``html_math_renderer: mathml``). Every formula of the text and of the cells' outputs is converted
once, while the page is written, by MathJax's TeX parser running in node (``tex2mml.js``, the
pinned ``mathjax`` npm package), into MathML that browsers draw themselves (MathML Core:
Chromium 109+, Firefox, Safari). A page with formulas thus loads no script and no font for
them (MathJax in the browser added 0.82 MB to each such page), the formulas read the same to
screen readers, and a TeX error fails the build with the formula's page and line.

Hand-written rather than a MathML package from PyPI: the ones tried (latex2mathml 3.81) drop
``aligned`` alignments, ``\\mathrm`` and ``\\tt``, which MathJax parses as the browser version did.
"""

from __future__ import annotations

import atexit
import json
import re
import subprocess
from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.locale import _
from sphinx.util.math import get_node_equation_number

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("tex2mml.js")
BETWEEN_TAGS = re.compile(r">\s+<")
# A formula tagged with \tag{...}: MathJax writes its row as <mlabeledtr>, the label in the first
# cell; MathML Core (what Chromium draws) has no <mlabeledtr>, so the label is set beside it.
LABELLED_ROW = re.compile(r"<mlabeledtr>\s*<mtd[^>]*>\s*<mtext>([^<]*)</mtext>\s*</mtd>(.*?)"
                          r"</mlabeledtr>", re.DOTALL)
MATHJAX_ATTRIBUTE = re.compile(r' data-mjx-[a-z-]+="[^"]*"')


class MathMLConverter:
    """One node process for the whole build, started at the first formula."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None
        self._done: dict[tuple[str, bool], str] = {}

    def _start(self) -> subprocess.Popen[str]:
        if not (ROOT / "node_modules" / "mathjax").is_dir():
            raise ExtensionError("node_modules/mathjax is missing: run `npm ci` (make setup does)")
        process = subprocess.Popen(["node", str(SCRIPT), str(ROOT)], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True, encoding="utf-8")
        atexit.register(self.stop)
        return process

    def __call__(self, tex: str, display: bool) -> str:
        key = (tex, display)
        if key not in self._done:
            if self._process is None:
                self._process = self._start()
            assert self._process.stdin and self._process.stdout
            self._process.stdin.write(json.dumps({"tex": tex, "display": display}) + "\n")
            self._process.stdin.flush()
            line = self._process.stdout.readline()
            if not line:
                raise ExtensionError("the MathML converter (node tex2mml.js) stopped")
            answer = json.loads(line)
            if "error" in answer:
                raise ValueError(answer["error"])
            mathml = BETWEEN_TAGS.sub("><", answer["mathml"].strip())
            self._done[key] = MATHJAX_ATTRIBUTE.sub("", mathml)
        return self._done[key]

    def stop(self, *_args) -> None:
        if self._process is not None:
            process, self._process = self._process, None
            if process.stdin:
                process.stdin.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


CONVERT = MathMLConverter()


def _mathml(translator, node, tex: str, display: bool) -> tuple[str | None, str]:
    """The formula's \\tag label (display formulas only, else None) and its MathML; a formula
    that cannot be written fails the build naming its page and line."""
    try:
        mathml = CONVERT(tex, display)
        return split_label(mathml) if display else (None, mathml)
    except ValueError as err:
        raise ExtensionError(f"{node.source or translator.builder.current_docname}:"
                             f"{node.line or '?'}: in ${tex}$: {err}") from err


def _display_tex(node: nodes.math_block) -> str:
    """The TeX of a display formula as Sphinx's MathJax writer would send it: blank-line
    separated equations aligned together, a line break inside one made a ``split``."""
    if node["nowrap"]:
        return node.astext()
    parts = [part for part in node.astext().split("\n\n") if part.strip()]
    parts = [rf"\begin{{split}}{p}\end{{split}}" if r"\\" in p else p for p in parts]
    if len(parts) > 1:
        return r"\begin{aligned}" + r"\\".join(parts) + r"\end{aligned}"
    return parts[0] if parts else ""


def split_label(mathml: str) -> tuple[str | None, str]:
    """The label of a tagged display formula and the formula without it (a plain row).

    >>> split_label('<math><mtable><mlabeledtr><mtd id="e"><mtext>(1)</mtext></mtd>'
    ...             '<mtd><mi>x</mi></mtd></mlabeledtr></mtable></math>')
    ('(1)', '<math><mtable><mtr><mtd><mi>x</mi></mtd></mtr></mtable></math>')
    """
    labels = LABELLED_ROW.findall(mathml)
    if not labels:
        return None, mathml
    if len(labels) > 1 or "<mlabeledtr" in LABELLED_ROW.sub("", mathml):
        raise ValueError("only one \\tag per display formula can be set beside it")
    return labels[0][0], LABELLED_ROW.sub(lambda row: f"<mtr>{row.group(2)}</mtr>", mathml)


def visit_math(self, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight"))
    self.body.append(_mathml(self, node, node.astext(), display=False)[1] + "</span>")
    raise nodes.SkipNode


def visit_displaymath(self, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    label, mathml = _mathml(self, node, _display_tex(node), display=True)
    if node["number"]:
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    elif label is not None:
        self.body.append(f'<span class="eqno">{self.encode(label)}</span>')
    self.body.append(mathml + "</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    app.connect("build-finished", CONVERT.stop)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": False}
