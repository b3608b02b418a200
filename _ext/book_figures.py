"""Sphinx extension: a cell's pictures keep the alt text their output metadata carries.

``attnlib.pictures`` puts in each picture's output metadata (``{"image/png": {...}}``) its
CSS ``width``, an ``alt`` text written from what the figure plots, and ``text_px``, the
smallest text drawn in it.  MyST-NB (1.4) reads only ``width`` and ``height`` from there and
writes the image's file path as its alt text.  Here its image renderer is wrapped so that
the alt text is kept, and a picture with ``text_px`` gets the classes ``attn-tile`` (laid
out by ``_assets/book.css``) and ``attn-text-px-<n>`` (its smallest text, whole CSS px,
which tests/book/test_browser.py compares with the size the picture is shown at).

An image without that metadata is left as MyST-NB makes it.
"""

from __future__ import annotations

import math


def _with_alt(render_image):
    def render(self, data):
        nodes = render_image(self, data)
        meta = data.output_metadata.get(data.mime_type, {}) or {}
        for node in nodes:
            if "alt" in meta and str(meta["alt"]).strip():
                node["alt"] = str(meta["alt"])
            text_px = meta.get("text_px")
            if isinstance(text_px, (int, float)) and math.isfinite(text_px):
                node["classes"] += ["attn-tile", f"attn-text-px-{math.floor(text_px)}"]
        return nodes

    render.__wrapped__ = render_image
    return render


def setup(app):
    from myst_nb.core.render import NbElementRenderer

    if not hasattr(NbElementRenderer.render_image, "__wrapped__"):
        NbElementRenderer.render_image = _with_alt(NbElementRenderer.render_image)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
