"""Padding for printed tables whose labels mix Hangul and Latin.

Hangul (and other East Asian wide characters) take two columns in a terminal or a notebook's
monospace output, so ``f"{label:>8}"`` misaligns a column of Korean labels. :func:`pad` counts
wide and full-width characters (``unicodedata.east_asian_width`` ``W``/``F``) as two columns."""

from __future__ import annotations

import unicodedata

__all__ = ["width", "pad"]


def width(s: str) -> int:
    """Columns ``s`` takes in a monospace font: 2 for East Asian wide/full-width characters,
    0 for combining marks, 1 otherwise."""
    w = 0
    for ch in s:
        if unicodedata.combining(ch):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def pad(s: object, n: int, align: str = ">") -> str:
    """``s`` padded with spaces to ``n`` columns (``">"`` right, ``"<"`` left)."""
    s = str(s)
    fill = " " * max(0, n - width(s))
    return fill + s if align == ">" else s + fill
