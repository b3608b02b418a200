"""KaTeX's MathML rewritten into what MathML Core draws (Chromium, Firefox, Safari).

KaTeX writes MathML 3.  Three of its habits MathML Core does not read, so ``styled``,
``tables`` and ``boxes`` rewrite them (``_ext/katex_math.py`` calls all three); what they
cannot rewrite is left for ``left_over`` to name or raises ``ValueError`` (a build warning):

- ``mathvariant`` other than ``normal`` on a token (``<mi>``, ``<mn>``, ``<mo>``, ``<ms>``,
  ``<mtext>``; Core reads only ``normal``, on ``<mi>``): ``\\mathbf 1``, ``\\mathsf T``,
  ``\\mathcal L`` and ``\\mathbb R`` come out of KaTeX as ``<mn mathvariant="bold">1</mn>``
  and the like, which those browsers draw in the plain face.  The letters of those styles
  have code points of their own (Mathematical Alphanumeric Symbols, U+1D400–U+1D7FF, with a
  few in Letterlike Symbols): ``styled`` writes each token's text in them and drops the
  attribute, as MathML Core asks; a token with a character Unicode has no such letter for
  (``\\mathsf\\Sigma``, ``\\boldsymbol\\infty``) keeps the attribute.
- a table's ``columnalign``, ``columnspacing`` and ``rowspacing`` (``aligned``, ``array``):
  Core centres every cell and pads it alike, so the ``=`` of an aligned block would not line
  up.  ``tables`` writes them on each cell as CSS (``text-align``, ``padding``).  Lines,
  frames, a table's width and equation tags (``\\hline``, ``array{c|c}``, ``\\tag``) are
  not drawn by Core and not rewritten: ``ValueError``.
- ``\\boxed`` as ``<menclose notation="box">``: Chromium draws no frame, Firefox its own.
  ``boxes`` makes it an ``<mrow>`` with a CSS border, which both draw alike.

``spacing`` then gives back three spacings of TeX that KaTeX's MathML loses in a MathML Core
browser: a thin space between an operator name and an ordinary neighbour (``8 ln 10``,
``α tanh(α)``, ``log 6``; U+2061, which KaTeX writes after the name, has none); the bars
``\\vert`` and ``\\Vert``, which KaTeX writes as "divides" and "parallel to" (U+2223, U+2225:
relations, set apart by thick spaces) and which are U+007C and U+2016 with no space of their
own; and ``:=`` and ``\\mathrel{+}=`` as one relation (``:=``, not ``: =``).
"""

from __future__ import annotations

import html
import re
import unicodedata

# variant: (code point of its capital A, of its small a)
LATIN = {
    "bold": (0x1D400, 0x1D41A), "italic": (0x1D434, 0x1D44E),
    "bold-italic": (0x1D468, 0x1D482), "script": (0x1D49C, 0x1D4B6),
    "bold-script": (0x1D4D0, 0x1D4EA), "fraktur": (0x1D504, 0x1D51E),
    "double-struck": (0x1D538, 0x1D552), "bold-fraktur": (0x1D56C, 0x1D586),
    "sans-serif": (0x1D5A0, 0x1D5BA), "bold-sans-serif": (0x1D5D4, 0x1D5EE),
    "sans-serif-italic": (0x1D608, 0x1D622), "sans-serif-bold-italic": (0x1D63C, 0x1D656),
    "monospace": (0x1D670, 0x1D68A),
}
# variant: code point of its digit zero
DIGITS = {"bold": 0x1D7CE, "double-struck": 0x1D7D8, "sans-serif": 0x1D7E2,
          "bold-sans-serif": 0x1D7EC, "monospace": 0x1D7F6}
# variant: code point of its capital Alpha; the small letters follow 26 places on
GREEK = {"bold": 0x1D6A8, "italic": 0x1D6E2, "bold-italic": 0x1D71C,
         "bold-sans-serif": 0x1D756, "sans-serif-bold-italic": 0x1D790}
# Greek letters after the 25 of each case, in Unicode's order: capital theta symbol and nabla
# after the capitals, the partial sign and the five variant forms after the small letters.
_GREEK_CAPITAL_EXTRA = {"\u03f4": 17, "\u2207": 25}
_GREEK_SMALL_EXTRA = {"\u2202": 25, "\u03f5": 26, "\u03d1": 27, "\u03f0": 28, "\u03d5": 29,
                      "\u03f1": 30, "\u03d6": 31}
# Letters encoded before the block was: the block leaves their places empty.
HOLES = {
    0x1D455: 0x210E,  # italic h
    0x1D49D: 0x212C, 0x1D4A0: 0x2130, 0x1D4A1: 0x2131, 0x1D4A3: 0x210B, 0x1D4A4: 0x2110,
    0x1D4A7: 0x2112, 0x1D4A8: 0x2133, 0x1D4AD: 0x211B,  # script B E F H I L M R
    0x1D4BA: 0x212F, 0x1D4BC: 0x210A, 0x1D4C4: 0x2134,  # script e g o
    0x1D506: 0x212D, 0x1D50B: 0x210C, 0x1D50C: 0x2111, 0x1D515: 0x211C,
    0x1D51D: 0x2128,  # fraktur C H I R Z
    0x1D53A: 0x2102, 0x1D53F: 0x210D, 0x1D545: 0x2115, 0x1D547: 0x2119, 0x1D548: 0x211A,
    0x1D549: 0x211D, 0x1D551: 0x2124,  # double-struck C H N P Q R Z
}


def styled_char(c: str, variant: str) -> str:
    """``c`` in the style ``variant`` (``styled_char("R", "double-struck") == "ℝ"``);
    ``c`` itself where Unicode has no such letter (punctuation, a script digit)."""
    point = None
    if "A" <= c <= "Z" and variant in LATIN:
        point = LATIN[variant][0] + ord(c) - ord("A")
    elif "a" <= c <= "z" and variant in LATIN:
        point = LATIN[variant][1] + ord(c) - ord("a")
    elif "0" <= c <= "9" and variant in DIGITS:
        point = DIGITS[variant] + ord(c) - ord("0")
    elif variant == "italic" and c in "\u0131\u0237":  # dotless i and j
        point = 0x1D6A4 + "\u0131\u0237".index(c)
    elif variant in GREEK:
        if "\u0391" <= c <= "\u03a9" and c != "\u03a2":
            point = GREEK[variant] + ord(c) - 0x391
        elif c in _GREEK_CAPITAL_EXTRA:
            point = GREEK[variant] + _GREEK_CAPITAL_EXTRA[c]
        elif "\u03b1" <= c <= "\u03c9":
            point = GREEK[variant] + 26 + ord(c) - 0x3B1
        elif c in _GREEK_SMALL_EXTRA:
            point = GREEK[variant] + 26 + _GREEK_SMALL_EXTRA[c]
    if point is None:
        return c
    return chr(HOLES.get(point, point))


_PLAIN = {chr(v): chr(k) for k, v in HOLES.items()}


def plain_char(c: str) -> str:
    """The letter a mathematical letter styles (``plain_char("𝖳") == "T"``); any other
    character as it is (``ℓ`` stays ``ℓ``, although Unicode folds it to ``l``)."""
    if 0x1D400 <= ord(c) <= 0x1D7FF or c in _PLAIN:
        return unicodedata.normalize("NFKC", c)
    return c


_TOKEN = re.compile(r'<(mi|mn|mo|ms|mtext)\b([^>]*?)\s+mathvariant="([a-z-]+)"([^>]*)>'
                    r"([^<]*)</\1>")
_LEFT = re.compile(r'\smathvariant="(?!normal")[a-z-]+"')


def styled(mathml: str) -> str:
    """``mathml`` with every token's ``mathvariant`` other than ``normal`` written into its
    text and the attribute dropped (``normal`` stays: MathML Core reads it on ``<mi>``)."""

    def one(m: re.Match) -> str:
        tag, before, variant, after, text = m.groups()
        plain = html.unescape(text)
        new = [styled_char(c, variant) for c in plain]
        unstyled = [c for c, s in zip(plain, new, strict=True) if c == s and not c.isspace()]
        if variant == "normal" or unstyled:
            return m.group(0)  # left for left_over to name
        new = "".join(new)
        return f"<{tag}{before}{after}>{html.escape(new, quote=False)}</{tag}>"

    return _TOKEN.sub(one, mathml)


def left_over(mathml: str) -> list[str]:
    """The ``mathvariant`` attributes other than ``normal`` that ``styled`` could not write
    into text (on an element that is not a token), which browsers would not draw."""
    return [a.strip() for a in _LEFT.findall(mathml)]


_TABLE = re.compile(r"<mtable\b([^>]*)>(.*?)</mtable>", re.S)
_ROW = re.compile(r"<mtr\b[^>]*>(.*?)</mtr>", re.S)
_CELL = re.compile(r"<mtd\b([^>/]*)(/?)>")
_ATTR = re.compile(r'(\w+)="([^"]*)"')


def _nth(values: list[str], i: int, default: str) -> str:
    """MathML's list attributes: the last value repeats."""
    return values[min(i, len(values) - 1)] if values else default


def _half(length: str) -> str:
    number = re.fullmatch(r"(\d*\.?\d+)(em|ex|px)", length)
    if not number:
        raise ValueError(f"a table spacing KaTeX does not write: {length!r}")
    return f"{float(number.group(1)) / 2:g}{number.group(2)}"


# KaTeX's array strut (0.7 and 0.3 of a 1.2em baseline skip): in an aligned block its
# rowspacing (\\jot) is what comes on top of it, as in LaTeX.
STRUT = '<mspace height="0.84em" depth="0.36em"></mspace>'


def tables(mathml: str) -> str:
    """Every ``<mtable>``'s alignment and spacing written on its cells (``<mtd style=…>``):
    a cell's ``text-align`` is its column's ``columnalign``, half the spacing between two
    columns (rows) pads each side of it, none outside the table.  An aligned block's cells
    (columns right, left, …) also hold ``STRUT``, so that short rows keep a line's height."""

    def one(m: re.Match) -> str:
        attrs = dict(_ATTR.findall(m.group(1)))
        if "<mtable" in m.group(2) or any(re.search(r"\sstyle=", a)
                                           for a, _ in _CELL.findall(m.group(2))):
            raise ValueError("a table within a table, or a cell with a style: not rewritten")
        undrawn = sorted(set(attrs) & {"columnlines", "rowlines", "frame", "width"})
        if undrawn or "<mlabeledtr" in m.group(2) or "mtr-glue" in m.group(2):
            raise ValueError(f"a table with what MathML Core does not draw: "
                             f"{undrawn or 'an equation tag'}")
        align = attrs.get("columnalign", "").split()
        cols = attrs.get("columnspacing", "").split()
        rows = attrs.get("rowspacing", "").split()
        body = m.group(2)
        strut = align[:2] == ["right", "left"]  # aligned: rows a baseline skip apart
        n_rows = len(_ROW.findall(body))
        n_cells = max((len(_CELL.findall(cells)) for cells in _ROW.findall(body)), default=0)
        row_index = iter(range(n_rows))

        def row(rm: re.Match) -> str:
            r = next(row_index)
            col_index = iter(range(n_cells))  # a short row's cells pad as in a full row

            def cell(cm: re.Match) -> str:
                c = next(col_index)
                top = _half(_nth(rows, r - 1, "0em")) if r > 0 else "0"
                bottom = _half(_nth(rows, r, "0em")) if r < n_rows - 1 else "0"
                left = _half(_nth(cols, c - 1, "0em")) if c > 0 else "0"
                right = _half(_nth(cols, c, "0em")) if c < n_cells - 1 else "0"
                # Chromium 156 aligns a cell's math by -webkit-left/-right only (plain
                # "right" leaves it at the left); a browser without them keeps the first
                a = _nth(align, c, "center")
                style = (f"text-align:{a};text-align:-webkit-{a};"
                         f"padding:{top} {right} {bottom} {left}")
                if not strut:
                    return f'<mtd{cm.group(1)} style="{style}"{cm.group(2)}>'
                if cm.group(2):  # <mtd/>: an empty cell holds the strut alone
                    return f'<mtd{cm.group(1)} style="{style}">{STRUT}</mtd>'
                return f'<mtd{cm.group(1)} style="{style}">{STRUT}'

            return rm.group(0).replace(rm.group(1), _CELL.sub(cell, rm.group(1)), 1)

        # columnalign stays for browsers that read it (the same alignment); the spacings
        # go, or such a browser would add them to the cells' padding
        kept = " ".join(f'{k}="{v}"' for k, v in attrs.items()
                        if k not in ("columnspacing", "rowspacing"))
        return f"<mtable{' ' + kept if kept else ''}>{_ROW.sub(row, body)}</mtable>"

    return _TABLE.sub(one, mathml)


_ENCLOSE = re.compile(r'<menclose\b([^>]*)>')
BOX_STYLE = "border:.05em solid;padding:.2em .3em"


def boxes(mathml: str) -> str:
    """``<menclose notation="box">`` (``\\boxed``) as an ``<mrow>`` framed by CSS."""
    notations = [dict(_ATTR.findall(a)).get("notation") for a in _ENCLOSE.findall(mathml)]
    if any(n != "box" for n in notations):
        raise ValueError(f"a menclose other than a box: {notations}")
    if not notations:
        return mathml
    return _ENCLOSE.sub(f'<mrow style="{BOX_STYLE}">', mathml).replace("</menclose>", "</mrow>")


THIN = "0.1667em"  # TeX's \\, (3 mu): between an operator name and an ordinary neighbour
THICK = "0.2778em"  # TeX's \\; (5 mu): around a relation
_BARS = {"\u2223": "|", "\u2225": "\u2016"}  # divides, parallel to -> vertical line, double
_BAR = re.compile(r'<(mi|mo)\b([^>]*)>([\u2223\u2225])</\1>')
_FUNCTION = re.compile(r"(<mi\b[^>]*>[^<]{2,}</mi>)<mo>\u2061</mo>")
# What ends an ordinary atom before an operator name (TeX's Ord–Op: a thin space); a closing
# fence counts too (Close–Op).
_ORDINARY_END = re.compile(r"(?:</(?:mi|mn|mtext|msub|msup|msubsup|mover|munder|mfrac|msqrt"
                           r"|mroot)>|<mo\b[^>]*>[)\]}|\u2016\u27e9]</mo>)$")
# What follows an operator name without a space: an opening fence, another operator, the end
# of its row, a space of KaTeX's own.
_TIGHT_NEXT = re.compile(r"<mo\b|</|<mspace\b|<mtext\b")
# ":=" and "\\mathrel{+}=": two operators KaTeX writes side by side that TeX sets as one
# relation (no space between them)
_JOINED = re.compile(r"<mo>([+:])</mo><mo>=</mo>")


def spacing(mathml: str) -> str:
    """TeX's spacing around operator names, bars and ``\\mathrel{+}=`` (see the module)."""

    def bar(m: re.Match) -> str:
        tag, attrs, char = m.groups()
        if tag == "mi" and 'mathvariant="normal"' in attrs:  # |x| written with <mi>
            return f"<mi{attrs}>{_BARS[char]}</mi>"
        if tag == "mo" and re.search(r"\s(stretchy|fence)=", attrs):  # \\lvert, \\bigl|, \\lVert
            return f'<mo{attrs} lspace="0em" rspace="0em">{_BARS[char]}</mo>'
        return m.group(0)  # \\mid, \\parallel: the relations they are

    mathml = _BAR.sub(bar, mathml)
    out, pos = [], 0
    for m in _FUNCTION.finditer(mathml):
        before = mathml[pos:m.start()]
        out.append(before)
        if _ORDINARY_END.search(mathml[:m.start()]):
            out.append(f'<mspace width="{THIN}"></mspace>')
        out.append(m.group(1))
        tight = _TIGHT_NEXT.match(mathml, m.end())
        out.append("<mo>\u2061</mo>" if tight else f'<mo rspace="{THIN}">\u2061</mo>')
        pos = m.end()
    out.append(mathml[pos:])
    mathml = "".join(out)
    return _JOINED.sub(
        lambda m: f'<mo lspace="{THICK}" rspace="0em">{m.group(1)}</mo><mo lspace="0em">=</mo>',
        mathml)
