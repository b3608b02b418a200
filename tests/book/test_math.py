"""The formulas' MathML as browsers draw it: mathvariant as Unicode's mathematical letters
(_ext/mathml_core.py, checked against Unicode's own names and compatibility mappings), and
the math font cut to what the formulas draw (_ext/math_font.py)."""

from __future__ import annotations

import io
import re
import string
import unicodedata
from pathlib import Path

import math_font  # _ext/ is on the tests' path (pyproject.toml)
import mathml_core as mv
import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"

# How Unicode's character names spell each variant.
NAMES = {"bold": "BOLD", "italic": "ITALIC", "bold-italic": "BOLD ITALIC", "script": "SCRIPT",
         "bold-script": "BOLD SCRIPT", "fraktur": "FRAKTUR", "double-struck": "DOUBLE-STRUCK",
         "bold-fraktur": "BOLD FRAKTUR", "sans-serif": "SANS-SERIF",
         "bold-sans-serif": "SANS-SERIF BOLD", "sans-serif-italic": "SANS-SERIF ITALIC",
         "sans-serif-bold-italic": "SANS-SERIF BOLD ITALIC", "monospace": "MONOSPACE"}
GREEK_LETTERS = ([chr(c) for c in range(0x391, 0x3AA) if c != 0x3A2] + ["\u03f4", "\u2207"]
                 + [chr(c) for c in range(0x3B1, 0x3CA)]
                 + ["\u2202", "\u03f5", "\u03d1", "\u03f0", "\u03d5", "\u03f1", "\u03d6"])


def _cases():
    for variant in NAMES:
        yield from ((c, variant) for c in string.ascii_letters)
        if variant in mv.DIGITS:
            yield from ((c, variant) for c in string.digits)
        if variant in mv.GREEK:
            yield from ((c, variant) for c in GREEK_LETTERS)


@pytest.mark.parametrize("variant", sorted(NAMES))
def test_every_styled_letter_is_unicodes_letter_of_that_style(variant):
    """Unicode's compatibility mapping takes the styled letter back to the letter, and its
    name says the style (or it is one of the Letterlike Symbols the block leaves out)."""
    for c, v in _cases():
        if v != variant:
            continue
        s = mv.styled_char(c, v)
        assert s != c and unicodedata.normalize("NFKC", s) == unicodedata.normalize("NFKC", c), \
            (c, v, hex(ord(s)))
        name = unicodedata.name(s)
        if 0x2100 <= ord(s) <= 0x214F:
            assert ord(s) in mv.HOLES.values(), (c, v, name)
        else:
            assert name.startswith(f"MATHEMATICAL {NAMES[v]} "), (c, v, name)
            rest = name[len(f"MATHEMATICAL {NAMES[v]} "):]
            assert rest.split()[0] in ("CAPITAL", "SMALL", "DIGIT", "NABLA", "PARTIAL",
                                       "EPSILON", "THETA", "KAPPA", "PHI", "RHO", "PI"), name


def test_what_has_no_styled_letter_stays():
    assert [mv.styled_char(c, "script") for c in "1-("] == ["1", "-", "("]
    assert mv.styled_char("x", "normal") == "x"
    assert mv.styled_char("\u03b1", "script") == "\u03b1"


def test_styled_rewrites_tokens_and_keeps_normal_and_entities():
    got = mv.styled('<mrow><mi mathvariant="double-struck">R</mi>'
                    '<mn mathvariant="bold">1</mn><mi mathvariant="normal">d</mi>'
                    '<mtext mathvariant="bold">&#x61; b</mtext></mrow>')
    assert got == ('<mrow><mi>\u211d</mi><mn>\U0001d7cf</mn><mi mathvariant="normal">d</mi>'
                   '<mtext>\U0001d41a \U0001d41b</mtext></mrow>')
    assert mv.left_over(got) == []
    assert mv.left_over('<mstyle mathvariant="bold"><mi>x</mi></mstyle>') == [
        'mathvariant="bold"']


def test_a_token_unicode_cannot_style_keeps_its_variant_and_is_named():
    """\\mathsf\\Sigma: no sans-serif Sigma in Unicode; dropped, the one-letter <mi> would be
    drawn italic.  Kept, left_over names it (a build warning)."""
    for token in ('<mi mathvariant="sans-serif">\u03a3</mi>', '<mi mathvariant="bold">&lt;</mi>'):
        assert mv.styled(token) == token
        assert len(mv.left_over(token)) == 1


def test_plain_char_undoes_only_the_styled_letters():
    assert [mv.plain_char(c) for c in "\U0001d5b3\u211d\U0001d7cf\u2113\u2026\u03f5x"] == [
        "T", "R", "1", "\u2113", "\u2026", "\u03f5", "x"]
    assert mv.styled_char("\u0131", "italic") == "\U0001d6a4"  # dotless i


def test_formula_chars_are_what_is_drawn_not_the_tex():
    page = ('<p>x</p><math><semantics><mrow><mi>x</mi><mo>=</mo><mi>\u03b1</mi>'
            '<mi mathvariant="normal">d</mi><mtext>\ud589</mtext><mo>&lt;</mo></mrow>'
            '<annotation encoding="application/x-tex">\\alpha</annotation></semantics></math>')
    got = math_font.formula_chars(page)
    # the one-letter <mi>s also as the italic the browser draws; "d" upright only
    assert got == {"x", "\U0001d465", "=", "\u03b1", "\U0001d6fc", "d", "\ud589", "<"}
    # a square root draws its sign from the font, though no text holds it
    assert "\u221a" in math_font.formula_chars("<math><msqrt><mn>2</mn></msqrt></math>")
    assert "\u221a" not in got


def test_the_subset_keeps_the_math_table_and_names_what_the_font_lacks():
    source = ROOT / math_font.SOURCE / math_font.SOURCE_FONT
    if not source.is_file():
        pytest.skip("the math font is not installed (make vendor)")
    from fontTools.ttLib import TTFont

    data, missing = math_font.subset(source, {"x", "\u2211", "\ud55c"})  # x, ∑, 한
    assert missing == {"\ud55c"}
    font = TTFont(io.BytesIO(data))
    assert "MATH" in font and font.flavor == "woff2"
    assert set(font.getBestCmap()) == {ord("x"), 0x2211}
    # the larger ∑ a display formula draws comes with it, through the MATH table
    variants = font["MATH"].table.MathVariants
    sigma = font.getBestCmap()[0x2211]
    index = variants.VertGlyphCoverage.glyphs.index(sigma)
    larger = [r.VariantGlyph for r in
              variants.VertGlyphConstruction[index].MathGlyphVariantRecord][1:]
    assert larger and set(larger) <= set(font.getGlyphOrder()), larger
    # the same characters give the same bytes (no build time in the font): its ?v= holds
    again, _ = math_font.subset(source, {"x", "\u2211", "\ud55c"})
    assert again == data
    assert font["head"].modified == TTFont(source)["head"].modified


def test_a_tables_alignment_and_spacing_go_on_its_cells():
    got = mv.tables('<mtable rowspacing="0.25em" columnalign="right left" columnspacing="1em">'
                    "<mtr><mtd><mi>a</mi></mtd><mtd><mo>=</mo></mtd></mtr>"
                    "<mtr><mtd/><mtd><mi>b</mi></mtd></mtr></mtable>")
    right, left = ("text-align:right;text-align:-webkit-right",
                   "text-align:left;text-align:-webkit-left")
    s = mv.STRUT  # an aligned block's rows keep a line's height
    assert got == ('<mtable columnalign="right left">'
                   f'<mtr><mtd style="{right};padding:0 0.5em 0.125em 0">{s}<mi>a</mi></mtd>'
                   f'<mtd style="{left};padding:0 0 0.125em 0.5em">{s}<mo>=</mo></mtd></mtr>'
                   f'<mtr><mtd style="{right};padding:0.125em 0.5em 0 0">{s}</mtd>'
                   f'<mtd style="{left};padding:0.125em 0 0 0.5em">{s}<mi>b</mi></mtd></mtr>'
                   "</mtable>")
    # the last value of a list repeats; no attribute: centred, no padding
    got = mv.tables('<mtable columnalign="left"><mtr><mtd>x</mtd><mtd>y</mtd></mtr></mtable>')
    assert got.count("text-align:left;") == 2
    assert "mspace" not in got  # a matrix or array: no strut
    assert mv.tables("<mtable><mtr><mtd>x</mtd></mtr></mtable>") == (
        '<mtable><mtr><mtd style="text-align:center;text-align:-webkit-center;padding:0 0 0 0">'
        "x</mtd></mtr></mtable>")


def test_a_short_rows_cells_pad_as_in_a_full_row():
    got = mv.tables('<mtable columnspacing="1em"><mtr><mtd>a</mtd><mtd>b</mtd></mtr>'
                    "<mtr><mtd>c</mtd></mtr></mtable>")
    first, _, short = (p.split() for p in re.findall(r"padding:([^\"]*)", got))
    assert first[1::2] == short[1::2] == ["0.5em", "0"]  # right, left


def test_a_table_core_mathml_cannot_rewrite_is_an_error():
    with pytest.raises(ValueError, match="within a table"):
        mv.tables("<mtable><mtr><mtd><mtable></mtable></mtd></mtr></mtable>")
    with pytest.raises(ValueError, match="a cell with a style"):
        mv.tables('<mtable><mtr><mtd style="x">x</mtd></mtr></mtable>')
    # KaTeX's cells hold <mstyle displaystyle="true">: not a style of the cell
    assert "text-align" in mv.tables(
        '<mtable><mtr><mtd><mstyle displaystyle="true"><mi>x</mi></mstyle></mtd></mtr></mtable>')
    for table in ('<mtable columnlines="solid"><mtr><mtd>x</mtd></mtr></mtable>',
                  '<mtable width="100%"><mtr><mtd class="mtr-glue"></mtd></mtr></mtable>'):
        with pytest.raises(ValueError, match="does not draw"):
            mv.tables(table)
    with pytest.raises(ValueError, match="spacing"):
        mv.tables('<mtable columnspacing="1pt"><mtr><mtd>x</mtd><mtd>y</mtd></mtr></mtable>')


def test_a_box_is_a_framed_row_and_other_enclosures_are_errors():
    got = mv.boxes('<menclose notation="box"><mi>x</mi></menclose><mo>+</mo>')
    assert got == f'<mrow style="{mv.BOX_STYLE}"><mi>x</mi></mrow><mo>+</mo>'
    assert mv.boxes("<mi>x</mi>") == "<mi>x</mi>"
    with pytest.raises(ValueError, match="other than a box"):
        mv.boxes('<menclose notation="updiagonalstrike"><mi>x</mi></menclose>')


@pytest.mark.built
def test_every_page_preloads_the_math_font_at_the_version_its_stylesheet_names():
    if not (HTML / "_static" / math_font.CSS).is_file():
        pytest.skip("the book is not built (make book)")
    css = (HTML / "_static" / math_font.CSS).read_text(encoding="utf-8")
    version = re.search(r"book-math\.woff2\?v=([0-9a-f]{12})", css).group(1)
    with_math = 0
    for page in HTML.rglob("*.html"):
        if "_static" in page.relative_to(HTML).parts:
            continue
        text = page.read_text(encoding="utf-8")
        preloads = re.findall(r'<link rel="preload" href="[^"]*book-math\.woff2([^"]*)"', text)
        if "<math" in text:
            with_math += 1
            assert preloads == [f"?v={version}"], (page, preloads)
        else:
            assert preloads == [], page
    assert with_math >= 20, with_math


def test_spacing_gives_back_texs_thin_spaces_bars_and_relations():
    """KaTeX's MathML as it comes for `8\\ln 10^6`, `\\alpha\\tanh(x)`, `\\log 6`, `|x|`,
    `\\lVert x\\rVert`, `\\mid`, `\\mathrel{+}=`, `:=`."""
    thin = f'<mspace width="{mv.THIN}"></mspace>'
    assert mv.spacing("<mn>8</mn><mi>ln</mi><mo>\u2061</mo><msup><mn>10</mn><mn>6</mn></msup>") == (
        f'<mn>8</mn>{thin}<mi>ln</mi><mo rspace="{mv.THIN}">\u2061</mo>'
        "<msup><mn>10</mn><mn>6</mn></msup>")
    # before an opening fence, at the start of a row: no space
    assert mv.spacing('<mrow><mi>tanh</mi><mo>\u2061</mo><mo stretchy="false">(</mo>') == (
        '<mrow><mi>tanh</mi><mo>\u2061</mo><mo stretchy="false">(</mo>')
    assert mv.spacing('<mi>\u03b1</mi><mi mathvariant="normal">diag</mi><mo>\u2061</mo>'
                      "<mo>(</mo>").startswith(f"<mi>\u03b1</mi>{thin}<mi")
    # \vert and \Vert: a bar with no space of its own; \mid stays a relation
    assert mv.spacing('<mi mathvariant="normal">\u2223</mi>') == '<mi mathvariant="normal">|</mi>'
    assert mv.spacing('<mo stretchy="false">\u2225</mo>') == (
        '<mo stretchy="false" lspace="0em" rspace="0em">\u2016</mo>')
    assert mv.spacing("<mo>\u2223</mo>") == "<mo>\u2223</mo>"
    assert mv.spacing("<mi>V</mi><mo>+</mo><mo>=</mo>") == (
        f'<mi>V</mi><mo lspace="{mv.THICK}" rspace="0em">+</mo><mo lspace="0em">=</mo>')
    assert mv.spacing("<mi>U</mi><mo>:</mo><mo>=</mo>") == (
        f'<mi>U</mi><mo lspace="{mv.THICK}" rspace="0em">:</mo><mo lspace="0em">=</mo>')
