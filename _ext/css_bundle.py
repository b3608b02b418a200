"""Sphinx extension: a page's stylesheets served as one file.

Jupyter Book 1 gives every page eleven stylesheets (the two themes', Sphinx's pygments,
togglebutton, copybutton, MyST-NB, sphinx-exercise, KaTeX, the book's own two), and the
theme's ``theme.css`` only ``@import``s Sphinx's ``basic.css``: twelve requests, one of them
known only once another has arrived, and nothing is drawn (nor any script run) until the last
has been parsed.  After the build the stylesheets a page links in its ``<head>`` are joined,
in the page's order, into one file (``@import`` inlined, every relative ``url()`` rewritten
for the new place), and the page links that file instead.  The cascade is the same: the same
rules in the same order.  Issue 33 measured it (copies of the built book in turn, 12 pages ×
5 cold visits, `benchmarks/first_slider_ab.py`): the first working slider 66–78 ms sooner on
the mean of the pages' medians.

The joined file is ``_static/bundle-<hash of its sources' names>.css?v=<hash of its text>``;
the page's link names its sources (``data-bundle``), so that an incremental build, which
rewrites only some pages, joins every page's sources again from the files just copied.
A stylesheet link the page's head writes with anything else (``media``, ``title``, an outside
address) or a ``<style>`` among the links would change what joining means: the build stops
and says so.  ``bundle_css`` and ``join`` are used by ``tests/book/test_book_meta.py``.
"""

from __future__ import annotations

import hashlib
import itertools
import posixpath
import re
from pathlib import Path

STATIC = "_static"
_LINK = re.compile(r'[ \t]*<link\b(?=[^>]*\brel="stylesheet")[^>]*>\n?')
_ATTR = re.compile(r'([a-z-]+)="([^"]*)"')
_PLAIN = {"rel", "type", "href"}  # a stylesheet link with these only is joined
# an @import (its address in group 1) or a url() (its quote in 2, its address in 3)
_REF = re.compile(r'@import\s+(?:url\(\s*)?"([^"]+)"\s*\)?\s*;|url\(\s*(["\']?)([^)"\']+)\2\s*\)')
_OUTSIDE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|/|#)", re.I)  # data:, https:, /abs, #frag


def join(static: Path, sources: list[str]) -> str:
    """The stylesheets ``sources`` (paths under ``static``), in order, as one stylesheet
    placed in ``static``: ``@import``s inlined, relative ``url()``s pointing where they did."""
    def read(rel: str, seen: tuple[str, ...]) -> str:
        if rel in seen:
            raise ValueError(f"stylesheet imports itself: {' -> '.join((*seen, rel))}")
        path = static / rel
        if not path.is_file():
            raise ValueError(f"stylesheet not found: {STATIC}/{rel}")
        css = path.read_text(encoding="utf-8")
        folder = posixpath.dirname(rel)

        def ref(m: re.Match) -> str:
            if m.group(1):  # the imported file in place of the @import, its url()s its own
                return read(posixpath.normpath(posixpath.join(folder, m.group(1))), (*seen, rel))
            if _OUTSIDE.match(m.group(3)):
                return m.group(0)
            moved = posixpath.normpath(posixpath.join(folder, m.group(3)))
            return f"url({m.group(2)}{moved}{m.group(2)})"

        joined = _REF.sub(ref, css)
        if "@import" in _REF.sub("", css):
            raise ValueError(f"{STATIC}/{rel}: an @import this extension cannot read")
        return joined

    return "\n".join(read(rel, ()) for rel in sources)


def _attrs(tag: str) -> dict[str, str]:
    return dict(_ATTR.findall(tag))


def _static_path(href: str, page_dir: str) -> str | None:
    """``href`` (as a page in ``page_dir`` writes it) as a path under _static/, or None."""
    path = href.split("?")[0]
    if _OUTSIDE.match(path):
        return None
    full = posixpath.normpath(posixpath.join(page_dir, path))
    return full[len(STATIC) + 1:] if full.startswith(STATIC + "/") else None


def _sources(head: str, page_dir: str, where: str) -> tuple[list[str], list[re.Match]]:
    """The page's stylesheets (paths under _static/, in order) and their link tags."""
    links = list(_LINK.finditer(head))
    sources: list[str] = []
    for m in links:
        attrs = _attrs(m.group(0))
        if "data-bundle" in attrs:  # joined by an earlier build
            sources += attrs["data-bundle"].split()
            continue
        rel = _static_path(attrs.get("href", ""), page_dir)
        if rel is None or set(attrs) - _PLAIN:
            raise ValueError(f"{where}: a stylesheet link that cannot be joined: "
                             f"{m.group(0).strip()}")
        sources.append(rel)
    if links and "<style" in head[links[0].start():links[-1].end()]:
        raise ValueError(f"{where}: a <style> between the stylesheet links")
    return sources, links


def _name(sources: list[str]) -> str:
    return "bundle-" + hashlib.sha1(" ".join(sources).encode()).hexdigest()[:10] + ".css"


def bundle_css(outdir: Path) -> dict[str, list[str]]:
    """Joins each built page's stylesheets (see the module docstring); returns
    ``{bundle file name: its sources}``."""
    static = outdir / STATIC
    bundles: dict[str, list[str]] = {}
    versions: dict[str, str] = {}
    for page in sorted(outdir.rglob("*.html")):
        rel = page.relative_to(outdir).as_posix()
        if rel.startswith(STATIC + "/"):
            continue  # files the book serves as they are (the live book's, the vendors')
        text = page.read_text(encoding="utf-8")
        end = text.find("</head>")
        if end < 0:
            continue
        head = text[:end]
        page_dir = posixpath.dirname(rel)
        sources, links = _sources(head, page_dir, rel)
        if not sources:
            continue
        name = _name(sources)
        if name not in bundles:
            css = join(static, sources)
            (static / name).write_text(css, encoding="utf-8")
            bundles[name] = sources
            versions[name] = hashlib.sha1(css.encode()).hexdigest()[:8]
        href = posixpath.relpath(f"{STATIC}/{name}", page_dir or ".")
        tag = (f'<link rel="stylesheet" href="{href}?v={versions[name]}" '
               f'data-bundle="{" ".join(sources)}" />\n')
        # the joined file's link in place of the first; what stood between the links stays
        kept = "".join(head[a.end():b.start()] for a, b in itertools.pairwise(links))
        head = head[:links[0].start()] + tag + kept + head[links[-1].end():]
        page.write_text(head + text[end:], encoding="utf-8")
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
