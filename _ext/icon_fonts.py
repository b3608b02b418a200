"""Sphinx extension: the theme's icon fonts cut down to the icons the book shows.

pydata-sphinx-theme ships Font Awesome 6 (fa-solid-900, fa-regular-400, fa-brands-400: 300 kB
of woff2) for about twenty icons (the menu, search, theme switch, Colab and GitHub buttons,
the admonitions' marks).  Two of those fonts were half of a chapter's first visit.  After the
build each font is subset to the code points the book can show:

- the icons named by a class (``fa-bars``) anywhere in the built pages or in the scripts the
  book serves (a script may add an icon later), through the theme's own ``.fa-NAME:before
  {content: "\\fXXX"}`` rules;
- every icon code point (a private-use character, escaped or not) written in any other rule of
  the served stylesheets (the theme's ``--pst-icon-…`` variables for admonitions and external
  links).

The subset keeps the font's names and metrics; only the glyphs change.  A ``.ttf`` next to a
``.woff2`` is subset too (the stylesheet names both).

The theme's stylesheet names all of Font Awesome's icons: 1,881 rules of its 4,935 (87 kB of
its 397) are ``.fa-NAME:before`` rules, parsed and indexed by every page before its first
frame (issue 33: the first explorer waits for that).  The rules of the icons the book does not
show (whose glyphs the subset has dropped: they could only draw an empty box) are removed
from the served stylesheets.  ``code_points``, ``icon_names``, ``prune_icon_rules`` and
``subset`` are used by ``tests/book/test_book_meta.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

from font_subset import cut

FONTS = "_static/vendor/fontawesome/webfonts"
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_ICON_SELECTOR = re.compile(r"^\.fa-([a-z0-9-]+):{1,2}(?:before|after)$")
_ESCAPE = re.compile(r"\\([0-9a-fA-F]{4,6})")
_CLASS = re.compile(r"\bfa-([a-z0-9-]+)")
_PRIVATE = re.compile("[\ue000-\uf8ff\U000f0000-\U0010fffd]")


def _is_private(point: int) -> bool:
    return 0xE000 <= point <= 0xF8FF or point >= 0xF0000


def _icon_rules(css: str) -> tuple[dict[str, set[int]], set[int]]:
    """``({icon name: code points}, code points written in other rules)`` of a stylesheet."""
    icons: dict[str, set[int]] = {}
    other: set[int] = set()
    for selectors, body in _RULE.findall(css):
        # an icon is a private-use code point, written as an escape or as the character
        points = {int(h, 16) for h in _ESCAPE.findall(body)}
        points = {p for p in points if _is_private(p)} | {ord(c) for c in _PRIVATE.findall(body)}
        if not points:
            continue
        names = [_ICON_SELECTOR.match(s.strip()) for s in selectors.split(",")]
        if all(names):
            for m in names:
                icons.setdefault(m.group(1), set()).update(points)
        else:
            other |= points
    return icons, other


def icon_names(outdir: Path) -> set[str]:
    """The icon names (``fa-NAME`` classes) the built pages and served scripts write."""
    names: set[str] = set()
    for path in [*outdir.rglob("*.html"), *(outdir / "_static").rglob("*.js")]:
        if "/frames/" in path.as_posix() or "/live/" in path.as_posix():
            continue  # explorer frames and the live book's Python: no icons there
        names |= set(_CLASS.findall(path.read_text(encoding="utf-8", errors="replace")))
    return names


def code_points(outdir: Path, names: set[str] | None = None) -> set[int]:
    """The icon code points the built book can show (see the module docstring)."""
    icons: dict[str, set[int]] = {}
    points: set[int] = set()
    for css in (outdir / "_static").rglob("*.css"):
        found, other = _icon_rules(css.read_text(encoding="utf-8", errors="replace"))
        for name, p in found.items():
            icons.setdefault(name, set()).update(p)
        points |= other
    for name in icon_names(outdir) if names is None else names:
        points |= icons.get(name, set())
    return points


def prune_icon_rules(css: str, names: set[str]) -> str:
    """``css`` without the rules that only name icons outside ``names`` (``.fa-NAME:before``
    and nothing else in their selectors); every other rule is kept as it is written."""
    def keep(m: re.Match) -> str:
        found = [_ICON_SELECTOR.match(s.strip()) for s in m.group(1).split(",")]
        if all(found) and not any(f.group(1) in names for f in found):
            return ""
        return m.group(0)

    return _RULE.sub(keep, css)


def subset(font: Path, points: set[int]) -> None:
    """Keep only ``points`` (those the font has) in ``font``, in its own format."""
    data, _ = cut(font, points, "woff2" if font.suffix == ".woff2" else None)
    font.write_bytes(data)


def _cut_to_shown_icons(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    folder = outdir / FONTS
    if not folder.is_dir():
        return
    names = icon_names(outdir)
    points = code_points(outdir, names)
    for font in sorted(folder.glob("*")):
        if font.suffix in (".woff2", ".ttf"):
            subset(font, points)
    for css in sorted((outdir / "_static").rglob("*.css")):
        text = css.read_text(encoding="utf-8")
        pruned = prune_icon_rules(text, names)
        if pruned != text:
            css.write_text(pruned, encoding="utf-8")


def setup(app):
    # after the other extensions have written their files (priority: later than the default)
    app.connect("build-finished", _cut_to_shown_icons, priority=900)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
