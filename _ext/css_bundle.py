"""Sphinx extension: a page's stylesheets served as one file.

Jupyter Book 1 gives every page eleven stylesheets (the two themes', Sphinx's pygments,
togglebutton, copybutton, MyST-NB, sphinx-exercise, the math font's, the book's own two), and the
theme's ``theme.css`` only ``@import``s Sphinx's ``basic.css``: twelve requests, one of them
known only once another has arrived, and nothing is drawn (nor any script run) until the last
has been parsed.  After the build the stylesheets a page links in its ``<head>`` are joined,
in the page's order, into one file (``@import`` inlined, every relative ``url()`` rewritten
for the new place), and the page links that file instead.  The cascade is the same: the same
rules in the same order, read as a browser reads them (comments and strings are left as
they are; a source map's comment, which would point nowhere from the new place, is dropped).
Issue 33 measured it (copies of the built book in turn, 12 pages × 5 cold visits,
`benchmarks/first_slider_ab.py`, three rounds): the first working slider 66–100 ms sooner
on the mean of the pages' medians.

The joined file is ``_static/bundle-<hash of its sources' names>.css?v=<hash of its text>``;
the page's link names its sources (``data-bundle``), so that an incremental build, which
rewrites only some pages, joins every page's sources again from the files just copied, and
a joined file no page links any more is removed.  What joining would change stops the build
with the page and the file named: a stylesheet link with anything else (``media``,
``title``, ``disabled``, an outside address) or inside ``<noscript>``, a ``<style>`` among
the links, an ``@import`` that is not first, has a media list or reaches outside
``_static/``, ``@namespace``, ``image-set()``, braces or a comment that do not close.
``bundle_css`` and ``join`` are used by ``tests/book/test_css_bundle.py``.
"""

from __future__ import annotations

import hashlib
import itertools
import posixpath
import re
from pathlib import Path

STATIC = "_static"
# a start tag <link ...> (any case); its attributes: name, then a value double-, single- or unquoted
_TAG = re.compile(r"<link\b[^>]*>", re.I)
_ATTR = re.compile(r"""([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")
_PLAIN = {"rel", "type", "href"}  # a stylesheet link with these only is joined
_HIDDEN = re.compile(r"<!--.*?-->|<noscript\b.*?</noscript>", re.S | re.I)
# What a stylesheet is read as: a comment, a string, an @import (its address in group
# "imp"), a url() (its address in "dq", "sq" or "bare"), a brace, or something not read here.
_TOKEN = re.compile(r"""
    (?P<comment>/\*.*?\*/)
  | (?P<open_comment>/\*)
  | @import\s+(?:url\(\s*)?(?:"(?P<imp>[^"]*)"|'(?P<imp_sq>[^']*)')\s*\)?\s*;
  | (?P<bad>@import|@namespace|image-set\()
  | url\(\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^)"'\s]*))\s*\)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<brace>[{}])
""", re.S | re.I | re.X)
_OUTSIDE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|/|#)", re.I)  # data:, https:, /abs, //host, #frag
_SOURCE_MAP = re.compile(r"^/\*# sourceMappingURL=")


def join(static: Path, sources: list[str]) -> str:
    """The stylesheets ``sources`` (paths under ``static``), in order, as one stylesheet
    placed in ``static``: ``@import``s inlined, relative ``url()``s pointing where they did.
    A ValueError names what could not be joined without changing what the rules mean."""
    def read(rel: str, seen: tuple[str, ...]) -> str:
        where = " -> ".join((*seen, rel))
        if rel in seen:
            raise ValueError(f"a stylesheet imports itself: {where}")
        if rel.startswith("../"):
            raise ValueError(f"a stylesheet outside {STATIC}/: {where}")
        path = static / rel
        if not path.is_file():
            raise ValueError(f"stylesheet not found: {STATIC}/{rel} ({where})")
        css = path.read_text(encoding="utf-8")
        folder = posixpath.dirname(rel)
        depth = 0
        rules = False  # a rule before: an @import after it is one the browser ignores

        def moved(url: str) -> str:
            return url if _OUTSIDE.match(url) else posixpath.normpath(posixpath.join(folder, url))

        def token(m: re.Match) -> str:
            nonlocal depth, rules
            kind = m.lastgroup
            if kind == "comment":
                return "" if _SOURCE_MAP.match(m.group(0)) else m.group(0)
            if kind in ("imp", "imp_sq"):
                address = m.group(kind)
                if _OUTSIDE.match(address) or rules or depth:
                    raise ValueError(f"{STATIC}/{rel}: an @import that cannot be inlined: "
                                     f"{m.group(0)}")
                return read(moved(address), (*seen, rel))
            if kind in ("open_comment", "bad"):
                raise ValueError(f"{STATIC}/{rel}: cannot be joined here: {m.group(0)!r}")
            if kind in ("dq", "sq", "bare"):
                quote = {"dq": '"', "sq": "'", "bare": ""}[kind]
                return f"url({quote}{moved(m.group(kind))}{quote})"
            if kind == "brace":
                depth += 1 if m.group(0) == "{" else -1
                rules = True
            return m.group(0)

        joined = _TOKEN.sub(token, css)
        if depth:
            raise ValueError(f"{STATIC}/{rel}: its braces do not close ({depth:+d})")
        return joined

    return "\n".join(read(rel, ()) for rel in sources)


def _attrs(tag: str) -> dict[str, str]:
    """A start tag's attributes, names in lower case (a bare attribute has the value "")."""
    inner = tag[len("<link"):].rstrip(">").rstrip("/")
    return {m.group(1).lower(): next((v for v in m.group(2, 3, 4) if v is not None), "")
            for m in _ATTR.finditer(inner)}


def _is_stylesheet(attrs: dict[str, str]) -> bool:
    return "stylesheet" in attrs.get("rel", "").lower().split()


def _static_path(href: str, page_dir: str) -> str | None:
    """``href`` (as a page in ``page_dir`` writes it) as a path under _static/, or None."""
    path = href.split("?")[0]
    if _OUTSIDE.match(path):
        return None
    full = posixpath.normpath(posixpath.join(page_dir, path))
    return full[len(STATIC) + 1:] if full.startswith(STATIC + "/") else None


def _sources(head: str, page_dir: str, where: str) -> tuple[list[str], list[re.Match]]:
    """The page's stylesheets (paths under _static/, in order) and their link tags."""
    # comments and <noscript> blanked out (same length): a link there is not one the page loads
    seen = _HIDDEN.sub(lambda m: " " * len(m.group(0)), head)
    for m in _HIDDEN.finditer(head):
        if m.group(0).lower().startswith("<noscript") and any(
                _is_stylesheet(_attrs(t)) for t in _TAG.findall(m.group(0))):
            raise ValueError(f"{where}: a stylesheet inside <noscript> cannot be joined")
    links = [m for m in _TAG.finditer(seen) if _is_stylesheet(_attrs(m.group(0)))]
    sources: list[str] = []
    for m in links:
        attrs = _attrs(m.group(0))
        if "data-bundle" in attrs and set(attrs) - _PLAIN == {"data-bundle"}:
            sources += attrs["data-bundle"].split()  # joined by an earlier build
            continue
        rel = _static_path(attrs.get("href", ""), page_dir)
        extra = sorted(set(attrs) - _PLAIN)
        if rel is None or extra:
            why = f"its {', '.join(extra)}" if extra else "not a file of the book's _static/"
            raise ValueError(f"{where}: a stylesheet link that cannot be joined ({why}): "
                             f"{m.group(0).strip()}")
        sources.append(rel)
    if links and "<style" in seen[links[0].start():links[-1].end()].lower():
        raise ValueError(f"{where}: a <style> between the stylesheet links")
    return sources, links


def _name(sources: list[str]) -> str:
    return "bundle-" + hashlib.sha1(" ".join(sources).encode()).hexdigest()[:10] + ".css"


def bundle_css(outdir: Path) -> dict[str, list[str]]:
    """Joins each built page's stylesheets (see the module docstring); returns
    ``{bundle file name: its sources}``.  Joined files no page links any more are removed."""
    static = outdir / STATIC
    bundles: dict[str, list[str]] = {}
    versions: dict[str, str] = {}
    for page in sorted(outdir.rglob("*.html")):
        rel = page.relative_to(outdir).as_posix()
        if rel.startswith(STATIC + "/"):
            continue  # files the book serves as they are (the live book's, the vendors')
        text = page.read_text(encoding="utf-8")
        end = text.lower().find("</head>")
        if end < 0:
            continue
        head = text[:end]
        page_dir = posixpath.dirname(rel)
        sources, links = _sources(head, page_dir, rel)
        if not sources:
            continue
        name = _name(sources)
        if name not in bundles:
            try:
                css = join(static, sources)
            except ValueError as err:
                raise ValueError(f"{rel}: {err}") from err
            (static / name).write_text(css, encoding="utf-8")
            bundles[name] = sources
            versions[name] = hashlib.sha1(css.encode()).hexdigest()[:8]
        href = posixpath.relpath(f"{STATIC}/{name}", page_dir or ".")
        tag = (f'<link rel="stylesheet" href="{href}?v={versions[name]}" '
               f'data-bundle="{" ".join(sources)}" />')
        # the joined file's link in place of the first; what stood between the links stays
        kept = "".join(head[a.end():b.start()] for a, b in itertools.pairwise(links))
        head = head[:links[0].start()] + tag + kept + head[links[-1].end():]
        page.write_text(head + text[end:], encoding="utf-8")
    for old in static.glob("bundle-*.css"):
        if old.name not in bundles:
            old.unlink()
    return bundles


def _bundle(app, exception):
    from sphinx.errors import ExtensionError

    if exception is not None or app.builder.format != "html":
        return
    try:
        bundle_css(Path(app.outdir))
    except ValueError as err:
        raise ExtensionError(f"css_bundle: {err}") from err


def setup(app):
    # last: after icon_fonts has cut the theme's stylesheet (900)
    app.connect("build-finished", _bundle, priority=950)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
