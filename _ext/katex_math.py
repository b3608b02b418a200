"""Sphinx extension: every formula turned into MathML at build time with KaTeX; no math JavaScript.

The HTML math renderer ``katex`` (select it with ``html_math_renderer = "katex"``) sends
each formula to one long-lived ``node _ext/katex_render.js`` (``katex`` from npm, pinned
by package-lock.json) and writes the MathML it returns, rewritten where MathML Core would
draw it otherwise than KaTeX meant (``mathml_core``: styled letters, tables' alignment,
``\\boxed``, TeX's spacing; what it cannot rewrite is a warning).  The browser lays the formula out;
``_ext/math_font.py`` serves the one font it is drawn in.
KaTeX's own HTML rendering (a tree of absolutely sized boxes, 83–87 % of the elements of a
chapter's first screen) is not used: laying it out held the first explorer back (issue 33).

A formula in a heading or a link is also named by the text its MathML reads (``role="img"``,
``aria-label``): a heading or link whose only text is a formula would otherwise have no
accessible name.

KaTeX runs strict and throws on errors, so an undefined macro or malformed formula is a
Sphinx warning at the formula's source line (an error under ``-W``), never red text on
the page.  ``katex_macros`` maps a macro to its expansion, as KaTeX's ``macros`` option.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

from docutils import nodes
from mathml_core import boxes, left_over, plain_char, spacing, styled, tables
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)
RENDERER = Path(__file__).with_name("katex_render.js")


class KaTeX:
    """One node process for the whole build; answers are cached per formula."""

    def __init__(self, srcdir: str, macros: dict[str, str]):
        self.srcdir = srcdir
        self.macros = dict(macros)
        self.process: subprocess.Popen | None = None
        self.cache: dict[tuple[str, bool], dict] = {}

    def render(self, tex: str, display: bool) -> dict:
        key = (tex, display)
        if key not in self.cache:
            if self.process is None:
                self.process = subprocess.Popen(
                    ["node", str(RENDERER)], cwd=self.srcdir, text=True, encoding="utf-8",
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                )
            request = {"tex": tex, "display": display, "macros": self.macros}
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"{RENDERER.name} stopped (is `make vendor` done?)")
            self.cache[key] = json.loads(line)
        return self.cache[key]

    def close(self):
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait(timeout=10)
            self.process = None


def _typeset(self, node, tex: str, display: bool) -> str:
    answer = self.builder.app.katex.render(tex, display)
    if "mathml" in answer:
        mathml = spacing(styled(answer["mathml"]))
        for rewrite in (tables, boxes):
            try:
                mathml = rewrite(mathml)
            except ValueError as err:  # what MathML Core would draw otherwise than KaTeX meant
                logger.warning("%r: %s", tex, err, location=node, type="katex", subtype="core")
        if left := left_over(mathml):
            logger.warning("%r: the browser would not draw %s", tex, ", ".join(left),
                           location=node, type="katex", subtype="variant")
        return mathml
    logger.warning("KaTeX cannot typeset %r: %s", tex, answer["error"], location=node,
                   type="katex", subtype="error")
    return f'<span class="katex-error">{html.escape(tex)}</span>'


_MATHML = re.compile(r"<math.*?</math>", re.S)
_DISPLAY_STOP = '<span class="katex-display" tabindex="0" data-book-scroll="">'


def _spoken(typeset: str) -> str:
    """The formula's text as its MathML reads (``r=rowsum(G⊙O)``), for an accessible name."""
    found = _MATHML.search(typeset)
    if not found:
        return ""
    text = re.sub(r"<annotation.*?</annotation>", "", found.group(0), flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", text)).replace("\u2061", "")  # f⁡(x)
    # a screen reader names 𝖳 "mathematical sans-serif capital T": the name says "T"
    return "".join(plain_char(c) for c in "".join(text.split()))


def _in_name(node) -> bool:
    """Inside a title or a link: the formula may be all the text a heading or link has."""
    while node is not None:
        if isinstance(node, (nodes.title, nodes.reference)):
            return True
        node = node.parent
    return False


def visit_math(self, node):
    typeset = _typeset(self, node, node.astext(), display=False)
    if _in_name(node) and (spoken := _spoken(typeset)):
        # Headings and links take their accessible name from their text, which a browser
        # does not find in MathML: the formula is named by what its MathML reads.
        self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight",
                                       role="img", **{"aria-label": spoken}))
    else:
        self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight"))
    self.body.append(typeset)
    self.body.append("</span>")
    raise nodes.SkipNode


def visit_displaymath(self, node):
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    if node["number"]:
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    tex = node.astext()
    if not node["nowrap"]:
        # Several equations separated by blank lines are aligned, as sphinx.ext.mathjax does.
        parts = [p for p in tex.split("\n\n") if p.strip()]
        if len(parts) > 1:
            tex = r"\begin{aligned}" + r"\\".join(parts) + r"\end{aligned}"
    # A display formula wider than its column scrolls; the page cannot know which ones until
    # it is laid out, so each starts as a keyboard stop and book.js takes the stop away from
    # one that does not scroll (data-book-scroll: a stop book.js may remove).
    self.body.append(_DISPLAY_STOP + _typeset(self, node, tex, display=True) + "</span>")
    self.body.append("</div>\n")
    raise nodes.SkipNode


def _start(app):
    app.katex = KaTeX(app.srcdir, app.config.katex_macros)


def _stop(app, exception):
    app.katex.close()


def setup(app):
    app.add_config_value("katex_macros", {}, "html", types=[dict])
    app.add_html_math_renderer("katex", (visit_math, None), (visit_displaymath, None))
    app.connect("builder-inited", _start)
    app.connect("build-finished", _stop)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": False}
