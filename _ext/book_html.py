"""Sphinx extension: page assets for the book.

MathJax is loaded on every page (chapter titles with math appear in every page's
navigation, also on pages whose own text has none).

Each page's <script> list is kept free of duplicates.

With Jupyter Book 1, sphinx-thebe registers its inline configuration
(``const THEBE_JS_URL = ...``) once per read phase, so it can land on a page twice and
the second copy throws "Identifier 'THEBE_JS_URL' has already been declared".  Any
script listed twice is dropped here after the first copy (a widget manager loaded twice
would also render every widget view twice).

The redirect ``index.html`` that sphinx-external-toc writes (a bare ``<meta>`` refresh)
becomes a small page of its own with the book's icon: without a ``<link rel="icon">`` a
browser asks for ``/favicon.ico`` while it waits to follow the redirect, and logs a 404
when the redirect is slow enough (a busy machine).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

_REFRESH = re.compile(r'<meta http-equiv="Refresh" content="0; url=([^"]+)"\s*/?>')


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


def _redirect_page(app, exception):
    """Give the root redirect a charset, a title and the book's favicon."""
    if exception is not None or app.builder.format != "html":
        return
    index = Path(app.outdir) / "index.html"
    text = index.read_text(encoding="utf-8").strip() if index.is_file() else ""
    found = _REFRESH.fullmatch(text)
    if found is None:  # a real index page, or none at all
        return
    target = html.escape(found.group(1))
    icon = Path(app.config.html_favicon or "").name
    icon_link = f'<link rel="icon" href="_static/{icon}">' if icon else ""
    title = html.escape(app.config.html_title or app.config.project or "")
    index.write_text(
        "<!DOCTYPE html>\n"
        f'<html lang="{app.config.language or "en"}"><head><meta charset="utf-8">'
        f"<title>{title}</title>{icon_link}"
        f'<meta http-equiv="Refresh" content="0; url={target}"></head>'
        f'<body><a href="{target}">{title}</a></body></html>\n',
        encoding="utf-8",
    )


def setup(app):
    app.set_html_assets_policy("always")
    # Early: html-page-context stops at the first handler that returns a template name.
    app.connect("html-page-context", _dedupe_scripts, priority=100)
    # Late: after sphinx-external-toc has written its redirect (default priority 500).
    app.connect("build-finished", _redirect_page, priority=900)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
