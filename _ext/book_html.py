"""Sphinx extension: page assets for the book.

MathJax is loaded on every page (chapter titles with math appear in every page's
navigation, also on pages whose own text has none).

Each page's <script> list is kept free of duplicates.

With Jupyter Book 1, sphinx-thebe registers its inline configuration
(``const THEBE_JS_URL = ...``) once per read phase, so it can land on a page twice and
the second copy throws "Identifier 'THEBE_JS_URL' has already been declared".  Any
script listed twice is dropped here after the first copy (a widget manager loaded twice
would also render every widget view twice).
"""

from __future__ import annotations


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


def setup(app):
    app.set_html_assets_policy("always")
    # Early: html-page-context stops at the first handler that returns a template name.
    app.connect("html-page-context", _dedupe_scripts, priority=100)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
