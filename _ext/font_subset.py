"""A font cut down to some code points: the one fontTools call the book's two font
extensions share (``icon_fonts``: the theme's icons; ``math_font``: the formulas' font).

The subset keeps every layout feature (a math font's script-size forms; the MATH table
keeps the larger and stretched glyphs of the characters kept), the font's names and its
metrics, and the source's timestamp, so the same code points give the same bytes.
"""

from __future__ import annotations

import io
from pathlib import Path


def cut(source: Path, points: set[int], flavor: str | None) -> tuple[bytes, set[int]]:
    """``source`` keeping only ``points`` (a space when it has none of them), as bytes in
    ``flavor`` (``"woff2"``, or ``None`` for the source's own format); and the points of
    ``points`` the font does not have."""
    from fontTools import subset as ft_subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(source), recalcTimestamp=False)
    have = set(font.getBestCmap())
    options = ft_subset.Options()
    options.flavor = flavor
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    subsetter = ft_subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(points & have) or [0x20])
    subsetter.subset(font)
    out = io.BytesIO()
    ft_subset.save_font(font, out, options)
    return out.getvalue(), points - have
