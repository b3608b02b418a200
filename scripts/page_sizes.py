"""The weight of each page of the built book, as a reader's first visit fetches it
(`make book` prints it and fails over budget).

For every page: its HTML (which carries each explorer's first frame; the other frames are
files, fetched only when a reader moves a control, and not counted here), and
the total with every local file the page loads: scripts, stylesheets (and what they
@import), images, the favicon, and the fonts its stylesheets would use.  Bytes are what a
server sends: text files gzip-compressed (level 6), fonts and images as they are.

Which fonts a page uses is estimated from its stylesheets: a face counts when a rule whose
classes (and MathML element names, ``_TYPES_NAMED``) all occur in the page names its family
(with that weight and style, or any of the family's faces when the rule leaves them open).
That can only over-count; the browser tests (tests/book/test_browser.py) check that every
file Chromium fetches is in this list.

    python scripts/page_sizes.py _build/html [--json out.json]

Budgets (gzip, page plus everything it loads): a page with explorers at most 0.6 MB (issue 33),
any other page 0.8 MB; a page's own HTML at most 3 MB uncompressed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

MB = 1_000_000
BUDGET_WIDGETS = 0.6 * MB  # a page with explorers
BUDGET_OTHER = 0.8 * MB
HTML_LIMIT = 3 * MB  # one page's own HTML, uncompressed
EXPLORER = "application/vnd.attnlib.explorer+json"  # an explorer's page data
TEXT = {".html", ".css", ".js", ".mjs", ".json", ".svg", ".txt", ".xml", ".map"}
LINK_RELS = {"stylesheet", "icon", "shortcut icon", "preload", "modulepreload", "manifest"}


def sent_bytes(path: Path) -> tuple[int, int]:
    """(raw, as sent): text gzip-compressed, binary formats as they are."""
    data = path.read_bytes()
    if path.suffix.lower() in TEXT:
        return len(data), len(gzip.compress(data, compresslevel=6, mtime=0))
    return len(data), len(data)


# ----------------------------------------------------------------------------- HTML ----


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.refs: list[str] = []
        self.classes: set[str] = set()
        self.has_widgets = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.classes.update((a.get("class") or "").split())
        if tag in _TYPES_NAMED:
            self.classes.add("<" + tag)  # an element a font rule may select by name
        if tag in ("script", "img", "source", "iframe") and a.get("src"):
            self.refs.append(a["src"])
        if tag == "script" and a.get("type") == EXPLORER:
            self.has_widgets = True
        if tag == "link" and a.get("href"):
            rels = (a.get("rel") or "").lower()
            if rels in LINK_RELS or set(rels.split()) & LINK_RELS:
                self.refs.append(a["href"])


def _local(ref: str, base: Path, root: Path) -> Path | None:
    """The file a relative URL names inside the book, or None (data:, outside, absent)."""
    parts = urlsplit(ref)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = (base.parent / unquote(parts.path)).resolve()
    if path.is_file() and root in path.parents:
        return path
    return None


# ------------------------------------------------------------------------------ CSS ----

_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")
_IMPORT = re.compile(r"""@import\s+(?:url\(\s*)?['"]?([^'")\s;]+)""")
_CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
# Element names that decide whether a font is used: the math font's rules (book.css's
# ``math {…}``) apply only on a page with a formula.  A selector naming one needs it, as
# "<math", among the page's classes.
_TYPES_NAMED = ("math", "mtext")
_TYPE = re.compile(r"(?<![\w.#:\[=-])(" + "|".join(_TYPES_NAMED) + r")(?![\w-])")


def _blocks(css: str):
    """Top-level (prelude, body) pairs; a body is None for statements such as @import."""
    i, n = 0, len(css)
    while i < n:
        j = i
        while j < n and css[j] not in "{;}":
            j += 1
        prelude = css[i:j].strip()
        if j >= n:
            return
        if css[j] in ";}":
            if prelude:
                yield prelude, None
            i = j + 1
            continue
        depth, k = 1, j + 1
        while k < n and depth:
            depth += {"{": 1, "}": -1}.get(css[k], 0)
            k += 1
        yield prelude, css[j + 1 : k - 1]
        i = k


def _decls(body: str) -> dict[str, str]:
    out = {}
    for decl in body.split(";"):
        if ":" in decl:
            key, value = decl.split(":", 1)
            out[key.strip().lower()] = value.strip()
    return out


def _families(value: str) -> list[str]:
    return [f.strip().strip("'\"").replace("\\ ", " ") for f in value.split(",")]


def _weight(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip().lower()
    return {"normal": 400, "bold": 700}.get(value) or (int(value) if value.isdigit() else None)


def _style(value: str | None) -> str | None:
    if value is None:
        return None
    return "italic" if value.strip().lower() in ("italic", "oblique") else "normal"


def _font_shorthand(value: str) -> tuple[list[str], int | None, str | None]:
    """font: [style] [weight] size[/line-height] family, …"""
    m = re.search(r"\d[\w.%]*(?:/[\w.%]+)?\s+(.+)$", value)
    if not m:
        return [], None, None
    head = value[: m.start()].split()
    weight = next((_weight(w) for w in head if _weight(w)), 400)
    style = "italic" if any(w in ("italic", "oblique") for w in head) else "normal"
    return _families(m.group(1)), weight, style


class Stylesheet:
    """What a stylesheet can make a page fetch: imports, font faces, rules with url()s."""

    def __init__(self, path: Path):
        self.path = path
        self.imports: list[Path] = []
        self.faces: list[tuple[str, int, str, Path]] = []  # family, weight, style, file
        # (selector class sets, families, weight, style, files)
        self.rules: list[tuple[list[set[str]], list[str], int | None, str | None, list[Path]]] = []
        self._parse(_COMMENT.sub("", path.read_text(encoding="utf-8", errors="replace")))

    def _file(self, ref: str) -> Path | None:
        if ref.startswith("data:"):
            return None
        path = (self.path.parent / unquote(urlsplit(ref).path)).resolve()
        return path if path.is_file() else None

    def _parse(self, css: str):
        for prelude, body in _blocks(css):
            low = prelude.lower()
            if body is None:
                m = _IMPORT.match(prelude)
                if m and (f := self._file(m.group(1))):
                    self.imports.append(f)
            elif low.startswith("@font-face"):
                d = _decls(body)
                src = next((self._file(u) for _, u in _URL.findall(d.get("src", ""))), None)
                if src:
                    family = _families(d.get("font-family", ""))[0]
                    self.faces.append((family, _weight(d.get("font-weight")) or 400,
                                       _style(d.get("font-style")) or "normal", src))
            elif low.startswith(("@media", "@supports", "@layer", "@container")):
                self._parse(body)
            elif low.startswith("@"):
                continue  # @keyframes, @page, …
            else:
                d = _decls(body)
                families, weight, style = [], _weight(d.get("font-weight")), _style(
                    d.get("font-style"))
                if "font" in d:
                    families, w, s = _font_shorthand(d["font"])
                    weight, style = weight or w, style or s
                if "font-family" in d:
                    families = _families(d["font-family"])
                files = [f for _, u in _URL.findall(body) if (f := self._file(u))]
                if families or files or weight or style:
                    selectors = [set(_CLASS.findall(s))
                                 | {"<" + e for e in _TYPE.findall(_CLASS.sub("", s))}
                                 for s in prelude.split(",")]
                    self.rules.append((selectors, families, weight, style, files))


@cache
def _stylesheet(path: Path) -> Stylesheet:
    return Stylesheet(path)


def _sheets(paths) -> list[Stylesheet]:
    out, todo, seen = [], list(paths), set()
    while todo:
        p = todo.pop(0)
        if p in seen:
            continue
        seen.add(p)
        sheet = _stylesheet(p)
        out.append(sheet)
        todo.extend(sheet.imports)
    return out


def _nearest(faces, weight: int, style: str) -> Path | None:
    """The face a browser picks for this weight and style (CSS font matching, simplified)."""
    same = [f for f in faces if f[2] == style] or faces
    if not same:
        return None
    heavier = weight > 500
    return min(same, key=lambda f: (abs(f[1] - weight), -f[1] if heavier else f[1]))[3]


def css_loads(stylesheets: list[Path], classes: set[str]) -> set[Path]:
    """Files the stylesheets make a page with these classes fetch: imports, fonts, images.

    A rule applies when all classes of one of its selectors occur in the page.  A rule
    that names a web font asks for the face of its weight and style; rules that set only
    a weight or style (``.fa-solid{font-weight:900}``, ``.katex .textbf{…}``) add theirs
    to every font rule they share a class with; a font rule left without a weight asks
    for all the family's faces."""
    sheets = _sheets(stylesheets)
    faces = [face for s in sheets for face in s.faces]
    web = {f for f, *_ in faces}
    loads = {s.path for s in sheets}
    applied = []  # (classes, web family or None, weight, style)
    for sheet in sheets:
        for selectors, families, weight, style, files in sheet.rules:
            matched = [sel for sel in selectors if sel <= classes]
            if not matched:
                continue
            loads.update(files)
            family = next((f for f in families if f in web), None)
            applied.append((set().union(*matched), family, weight, style))
    for cls, family, weight, style in applied:
        if family is None:
            continue
        related = [(w, s) for c, f, w, s in applied if f is None and c & cls]
        weights = {weight} - {None} | {w for w, _ in related if w}
        styles = {style} - {None} | {s for _, s in related if s} or {"normal"}
        family_faces = [f for f in faces if f[0] == family]
        if not weights:
            loads.update(f[3] for f in family_faces if f[2] in styles)
            continue
        for w in weights:
            for st in styles:
                if face := _nearest(family_faces, w, st):
                    loads.add(face)
    return loads


# ----------------------------------------------------------------------------- pages ----


def page_loads(root: Path, page: Path) -> tuple[set[Path], bool]:
    """Every local file a first visit of `page` fetches (itself included), and whether the
    page has explorers."""
    root = root.resolve()
    page = page.resolve()
    parsed = _Page()
    parsed.feed(page.read_text(encoding="utf-8", errors="replace"))
    files = {p for ref in parsed.refs if (p := _local(ref, page, root))}
    sheets = [p for p in files if p.suffix == ".css"]
    return {page} | files | css_loads(sheets, parsed.classes), parsed.has_widgets


def pages(root: Path) -> list[Path]:
    return [
        p for p in sorted(root.rglob("*.html"))
        if not p.relative_to(root).as_posix().startswith(("_static/", "_sources/", "_images/"))
    ]


def page_weights(root: Path) -> dict[str, dict]:
    report = {}
    for page in pages(root):
        loads, widgets = page_loads(root, page)
        html_raw, html_gz = sent_bytes(page)
        sizes = [sent_bytes(p) for p in loads]
        report[page.relative_to(root).as_posix()] = {
            "widgets": widgets,
            "html": html_raw,
            "html_gzip": html_gz,
            "raw": sum(r for r, _ in sizes),
            "gzip": sum(g for _, g in sizes),
            "budget": BUDGET_WIDGETS if widgets else BUDGET_OTHER,
            "files": sorted(p.relative_to(root.resolve()).as_posix() for p in loads),
        }
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--json", type=Path, help="write the table (and each page's files) here")
    args = ap.parse_args(argv)
    report = page_weights(args.root)
    print("bytes per page, first visit (MB = 10^6 bytes; gzip as a server sends them)")
    print(f"{'page':<42} {'HTML':>7} {'gzip':>7} {'+files':>7} {'gzip':>7} {'budget':>7}")
    over = []
    for rel, w in report.items():
        flag = ""
        if w["gzip"] > w["budget"] or w["html"] > HTML_LIMIT:
            over.append(rel)
            flag = "  OVER"
        print(
            f"{rel:<42} {w['html'] / MB:7.3f} {w['html_gzip'] / MB:7.3f}"
            f" {w['raw'] / MB:7.3f} {w['gzip'] / MB:7.3f} {w['budget'] / MB:7.2f}"
            f"{' W' if w['widgets'] else '  '}{flag}"
        )
    print("W: a page with explorers")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    if over:
        print(f"over budget: {', '.join(over)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
