"""Sphinx extension: the font the browser draws the book's MathML in, cut to what it draws.

Formulas reach the page as MathML (``_ext/katex_math.py``); the browser lays them out with
the OpenType MATH table of the font they are set in (fraction rules, radicals, script sizes,
big operators and stretchy delimiters).  Readers' systems may have no such font, so the book
serves one: STIX Two Math (SIL Open Font License 1.1, no reserved names; from npm,
``@fontsource/stix-two-math``, pinned by package-lock.json), 403 kB of woff2 whole.

After the build every page's MathML is read and the font is cut down to the characters the
formulas hold, the mathematical italic of every one-letter ``<mi>`` (the browser draws it in
italic: ``text-transform: math-auto``), the radical sign of a square root (drawn, not
written), and what the MATH table needs for them (larger and stretched forms).  The subset
is ``_static/vendor/math/book-math.woff2`` (about 30 kB), named by ``_static/book-math.css``'s
``@font-face`` with ``?v=<hash of the font>``, and every page with a formula preloads that
same address (``_ext/book_html.py`` writes the link, this extension its version), so a new
subset is never read from a stale cache.

A character in a formula that the font does not have would be drawn in another font, off
the MATH table's metrics: it is a build warning (an error under ``-W``) naming the
character and a page, except Hangul, which ``\\text{}`` may hold and the page's Korean
faces draw.
"""

from __future__ import annotations

import hashlib
import html
import re
import shutil
from pathlib import Path

from font_subset import cut
from mathml_core import styled_char
from sphinx.util import logging

logger = logging.getLogger(__name__)

SOURCE = "node_modules/@fontsource/stix-two-math"  # math_font_source: relative to the sources
SOURCE_FONT = Path("files", "stix-two-math-latin-400-normal.woff2")
FONT = "vendor/math/book-math.woff2"  # under _static
CSS = "book-math.css"  # under _static
FAMILY = "Book Math"

_MATH = re.compile(r"<math\b.*?</math>", re.S)
_ANNOTATION = re.compile(r"<annotation\b.*?</annotation>", re.S)
_TAG = re.compile(r"<[^>]+>")
_PLAIN_MI = re.compile(r"<mi>([^<])</mi>")
_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_PRELOAD = re.compile(re.escape(FONT) + r'(?:\?v=[0-9a-f]*)?"')


# Characters an element draws that are not in its text: a radical's sign (MathML Core).
IMPLIED = {"msqrt": "\u221a", "mroot": "\u221a"}


def formula_chars(page: str) -> set[str]:
    """The characters a page's formulas draw: their MathML's text (not the TeX source in
    ``<annotation>``), the italic letter the browser draws for a one-letter ``<mi>``, and
    the radical sign of ``<msqrt>`` and ``<mroot>``."""
    chars: set[str] = set()
    for mathml in _MATH.findall(page):
        mathml = _ANNOTATION.sub("", mathml)
        chars |= set(html.unescape(_TAG.sub("", mathml)))
        chars |= {styled_char(c, "italic") for c in _PLAIN_MI.findall(mathml)}
        chars |= {c for tag, c in IMPLIED.items() if f"<{tag}" in mathml}
    return chars - {"\n", "\r", "\t"}


def subset(source: Path, chars: set[str]) -> tuple[bytes, set[str]]:
    """``source`` cut to ``chars`` and what its MATH table draws them with, as woff2;
    and the characters of ``chars`` the font does not have."""
    data, missing = cut(source, {ord(c) for c in chars}, "woff2")
    return data, {chr(p) for p in missing}


def font_face(version: str) -> str:
    return ("/* the book's math font: STIX Two Math cut to the book's formulas "
            "(_ext/math_font.py) */\n"
            f'@font-face {{ font-family: "{FAMILY}"; font-style: normal; font-weight: 400; '
            f'font-display: block; src: url("{FONT}?v={version}") format("woff2"); }}\n')


def _pages(outdir: Path):
    for path in sorted(outdir.rglob("*.html")):
        if "_static" not in path.relative_to(outdir).parts:
            yield path


def _start(app):
    if app.builder.format != "html":
        return
    app.add_css_file(CSS)
    css = Path(app.outdir, "_static", CSS)
    if not css.is_file():  # the pages' link needs the file; written for real at the end
        css.parent.mkdir(parents=True, exist_ok=True)
        css.write_text(font_face(""), encoding="utf-8")


def _finish(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    package = Path(app.srcdir, app.config.math_font_source)
    source = package / SOURCE_FONT
    if not source.is_file():
        from sphinx.errors import ExtensionError

        raise ExtensionError(f"math_font: {source} is missing (is `make vendor` done?)")
    pages = {path: path.read_text(encoding="utf-8") for path in _pages(outdir)}
    chars: set[str] = set()
    where: dict[str, str] = {}
    for path, text in pages.items():
        found = formula_chars(text)
        for c in found - chars:
            where[c] = path.relative_to(outdir).as_posix()
        chars |= found
    data, missing = subset(source, {c for c in chars if not _HANGUL.match(c)})
    for c in sorted(missing):
        logger.warning("math_font: U+%04X %r (in a formula of %s) is not in %s: it would be "
                       "drawn in another font", ord(c), c, where[c], SOURCE_FONT.name,
                       type="math_font", subtype="missing")
    version = hashlib.sha1(data).hexdigest()[:12]
    static = outdir / "_static"
    (static / FONT).parent.mkdir(parents=True, exist_ok=True)
    (static / FONT).write_bytes(data)
    shutil.copyfile(package / "LICENSE", (static / FONT).parent / "LICENSE")
    (static / CSS).write_text(font_face(version), encoding="utf-8")
    for path, text in pages.items():
        new = _PRELOAD.sub(f'{FONT}?v={version}"', text)
        if new != text:
            path.write_text(new, encoding="utf-8")


def setup(app):
    app.add_config_value("math_font_source", SOURCE, "html", types=[str])
    app.connect("builder-inited", _start)
    app.connect("build-finished", _finish, priority=850)  # before css_bundle joins book-math.css
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
