"""Sphinx extension: page assets for the book.

Each page's <script> list is kept free of duplicates.  With Jupyter Book 1, sphinx-thebe
registers its inline configuration (``const THEBE_JS_URL = ...``) once per read phase,
so it can land on a page twice and the second copy throws "Identifier 'THEBE_JS_URL' has
already been declared".  Any script listed twice is dropped here after the first copy (an
explorer script loaded twice would also wire every explorer twice).

The extensions' scripts (Sphinx's doctools, copybutton, togglebutton, sphinx-design, …)
run deferred: each of them waits for the DOM anyway, and as blocking scripts in <head>
they held up the parsing of the page (and with it the first explorer) until every
stylesheet had arrived.  Deferred scripts keep their order.  Two exceptions:
documentation_options.js, which inline scripts of every page extend as they are parsed,
and the search page, whose own search scripts expect doctools.js to have run.
The explorer script (``vendor/explorer.js``) is not among them: _ext/explorers.py puts it in
the body, before the page's first explorer, so that each explorer is wired as the parser reads
it, not once the whole page is parsed and the deferred scripts have run.

pydata-sphinx-theme (0.17.1) gives every overflowing code block and cell output a tab stop:
at the window's load event it measures all of them, and again after every change anywhere in
the article (a MutationObserver on #main-content, so after every frame an explorer shows:
a frame replaces the explorer's pictures).
Each measurement lays out the whole page: on a chapter it is the longest task of the page's
first second and of every slider move.  The build removes that call from the theme's script
(a build error if the theme's code changes) and _assets/book.js does the same job for the same
elements in idle moments, re-measuring only an element whose size changed.

sphinx-design (which Jupyter Book 1 always loads) adds its stylesheet (55 kB, a fifth of the
rules a page's style matching goes through besides the theme's) and its tab script to every
page; no page of the book uses one of its components (cards, tabs, grids, badges: classes
``sd-…``).  A page whose body has none does without both (issue 33: the first explorer waits
for the page's stylesheets to be parsed and for every style recalculation during the parse).

Korean for the interface: the folds over hidden code that MyST-NB writes carry
``aria-label="Toggle hidden content"``, in English and unlike what they show (「코드 보기」):
the label is dropped, so the summary is named by its visible text.  sphinx-book-theme's
catalogue lacks strings the book shows (and the book's templates made translatable):
``_locale/<language>/LC_MESSAGES/booktheme.po`` is compiled and added behind it.
"""

from __future__ import annotations

import re
from pathlib import Path


def _dedupe_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for js in scripts:
        attrs = getattr(js, "attributes", {}) or {}
        name = getattr(js, "filename", js) or ""  # None and "" both mean an inline script
        key = (str(name), tuple(sorted((k, str(v)) for k, v in attrs.items())))
        if key not in seen:
            seen.add(key)
            kept.append(js)
    scripts[:] = kept


_BLOCKING = ("_static/documentation_options.js",)


def _defer_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts or pagename == "search":
        return
    for i, js in enumerate(scripts):
        attrs = getattr(js, "attributes", None)
        name = str(getattr(js, "filename", "") or "")
        if attrs is None or not name or name in _BLOCKING or {"async", "defer"} & attrs.keys():
            continue
        # A new object: the builder shares these between pages (the search page included).
        scripts[i] = type(js)(js.filename, priority=js.priority, **attrs, defer="defer")


# sphinx-design's files, and what marks a page that uses one of its components.
_DESIGN_FILES = ("sphinx-design.min.css", "design-tabs.js")
_DESIGN_USED = re.compile(r'class="(?:[^"]*\s)?sd-')


def _file_name(f) -> str:
    """The file name of a page's stylesheet or script ("" for an inline script)."""
    return str(getattr(f, "filename", f) or "").split("?")[0].rsplit("/", 1)[-1]


def _drop_files(context, drop) -> None:
    """Removes from the page's stylesheets and scripts those for which ``drop`` holds."""
    for key in ("css_files", "script_files"):
        if context.get(key):
            context[key] = [f for f in context[key] if not drop(f)]


def _unused_design(app, pagename, templatename, context, doctree):
    if not _DESIGN_USED.search(context.get("body") or ""):
        _drop_files(context, lambda f: _file_name(f) in _DESIGN_FILES)


# sphinx-thebe (which Jupyter Book 1 always loads) adds a stylesheet, a script and an inline
# configuration to every page for its "live code" launch button; the book has that button off
# (`launch_buttons.thebe: false`: its live mode is its own, live.js) and no page uses Thebe, so
# they go: one render-blocking stylesheet and a script fewer before the first explorer.
_THEBE_FILES = ("sphinx-thebe.css", "sphinx-thebe.js")
_THEBE_INLINE = "const THEBE_JS_URL"


def _unused_thebe(app, pagename, templatename, context, doctree):
    def thebe(f) -> bool:
        if _file_name(f):
            return _file_name(f) in _THEBE_FILES
        return _THEBE_INLINE in str((getattr(f, "attributes", None) or {}).get("body", ""))

    _drop_files(context, thebe)


_SUMMARY_LABEL = '<summary aria-label="Toggle hidden content">'


# Docutils writes the bibliography as role="list" whose entries are role="doc-biblioentry"
# (deprecated in DPUB-ARIA 1.1, and not a list item): a list's children must be list items.
_BIBLIO_ENTRY = re.compile(r'(<div class="citation" id="[^"]*") role="doc-biblioentry"')


# A table wider than its column scrolls in the theme's container, which the theme gives a tab
# stop only after measuring it (book.js does that in idle time): until then a keyboard cannot
# scroll it, and axe-core's scrollable-region-focusable finds it, depending on when it looks.
# Every table container is a named, focusable region from the start (a few per chapter).
_TABLE_BOX = '<div class="pst-scrollable-table-container">'
TABLE_REGION = ('<div class="pst-scrollable-table-container" tabindex="0" role="region" '
                'aria-label="표">')


def _table_regions(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if body and _TABLE_BOX in body:
        context["body"] = body.replace(_TABLE_BOX, TABLE_REGION)


def _summary_label(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if body and _SUMMARY_LABEL in body:
        context["body"] = body.replace(_SUMMARY_LABEL, "<summary>")


def _bibliography_roles(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if body and 'role="doc-biblioentry"' in body:
        context["body"] = _BIBLIO_ENTRY.sub(r'\1 role="listitem"', body)


def _theme_catalog(app):
    """Compile and add the book's booktheme.po (the theme's own catalogue is tried first)."""
    from sphinx.util.i18n import CatalogInfo

    language = app.config.language
    for folder in app.config.locale_dirs or ():
        base = Path(app.srcdir, folder)
        messages = base / language / "LC_MESSAGES"
        if not (messages / "booktheme.po").is_file():
            continue
        info = CatalogInfo(str(messages), "booktheme", app.config.source_encoding)
        if info.is_outdated():
            info.write_mo(language)
        app.add_message_catalog("booktheme", str(base))


# Fonts every page of its kind draws text in, asked for with the page: found only by its
# first layout, they arrived after it (KaTeX's 0.1 s later on chapter 3), so that layout was
# redone for every formula, and until then a formula's text is invisible (font-display: block).
# The theme's icons are on every page; the math font on every page with a formula
# (_ext/math_font.py adds its version; tests/book/test_browser.py checks that each page uses
# what it preloads).
ICON_FONTS = ("vendor/fontawesome/webfonts/fa-solid-900.woff2",
              "vendor/fontawesome/webfonts/fa-brands-400.woff2")
FORMULA_FONTS = ("vendor/math/book-math.woff2",)


def preloaded_fonts(body: str) -> list[str]:
    """The fonts (paths under _static/) a page with this body preloads."""
    return [*ICON_FONTS, *(FORMULA_FONTS if 'class="katex"' in body else ())]


def _font_preloads(app, pagename, templatename, context, doctree):
    links = "".join(f'<link rel="preload" href="{context["pathto"]("_static/" + f, 1)}" '
                    'as="font" type="font/woff2" crossorigin="anonymous" />'
                    for f in preloaded_fonts(context.get("body") or ""))
    context["metatags"] = context.get("metatags", "") + links


# The theme's script ends by measuring every scrollable block at load (see above).
_THEME_JS = ("_static", "scripts", "pydata-sphinx-theme.js")
_THEME_TAB_STOPS = '"complete"===document.readyState?I():window.addEventListener("load",I)'
THEME_TAB_STOPS_REMOVED = "/* book: tab stops by book.js */void 0"


def _theme_tab_stops(app, exception):
    from sphinx.errors import ExtensionError

    path = Path(app.outdir, *_THEME_JS)
    if exception or app.builder.format != "html" or not path.is_file():
        return
    text = path.read_text(encoding="utf-8")
    if THEME_TAB_STOPS_REMOVED in text:
        return  # already done (an incremental build)
    if _THEME_TAB_STOPS not in text:
        raise ExtensionError(f"{'/'.join(_THEME_JS)}: the theme's tab-stop call changed; "
                             "update _ext/book_html.py and _assets/book.js")
    path.write_text(text.replace(_THEME_TAB_STOPS, THEME_TAB_STOPS_REMOVED), encoding="utf-8")


def setup(app):
    # Early: html-page-context stops at the first handler that returns a template name.
    app.connect("html-page-context", _dedupe_scripts, priority=100)
    # After MyST-NB and the themes (priority 500, 501) have added their scripts.
    app.connect("html-page-context", _defer_scripts, priority=600)
    app.connect("html-page-context", _unused_design, priority=600)
    app.connect("html-page-context", _unused_thebe, priority=600)
    app.connect("html-page-context", _summary_label, priority=600)
    app.connect("html-page-context", _table_regions, priority=600)
    app.connect("html-page-context", _bibliography_roles, priority=600)
    app.connect("html-page-context", _font_preloads, priority=600)
    app.connect("builder-inited", _theme_catalog)
    app.connect("build-finished", _theme_tab_stops)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
