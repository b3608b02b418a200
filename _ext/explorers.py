"""Sphinx extension: the book's explorers (``attnlib.explorer_page``) on their pages.

- A page with an explorer (``class="attn-explorer"`` in its body) loads
  ``vendor/explorer.js``, which brings its native controls to life; other pages load nothing
  of it.  The script is a classic one placed right before the page's first explorer: the
  parser runs it there (the preload scanner has fetched it long before), and each explorer's
  block, which queues itself as the parser reads it, is wired at once.  An asynchronous
  script in the head was run only after the deferred scripts when the page had been parsed
  first (Chromium 156, a trace of chapter 3: arrived at 0.20 s, run at 0.455 s; docs/DESIGN.md,
  "The first explorer").
- The page's first explorer also carries, after its data, the frames of a reader's first
  move (``attnlib.explorer_page.first_moves_html``): the neighbours of its first frame.
- The chapters' kernels write every frame into ``$ATTNLIB_FRAMES_DIR`` (``make book`` sets it;
  default ``_build/frames``): the folder is emptied when the build starts, and after the
  build the frames that the pages name are copied into ``_static/frames/``.  A page naming a
  frame that no kernel wrote is a build error.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import zlib
from pathlib import Path

from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

DATA = re.compile(r'<script type="application/vnd\.attnlib\.explorer\+json">(.*?)</script>', re.S)
SCRIPT = "vendor/explorer.js"
START = '<div class="attn-explorer"'  # how attnlib.explorer_page.explorer_html opens a block


def page_explorers(text: str) -> list[dict]:
    """The explorers' page data a built page carries, in page order."""
    return [json.loads(m) for m in DATA.findall(text)]


def _frames_dir(app) -> Path:
    folder = os.environ.get("ATTNLIB_FRAMES_DIR") or str(Path(app.outdir).parent / "frames")
    return Path(folder)


def _start(app):
    folder = _frames_dir(app)
    if folder.exists():
        shutil.rmtree(folder)  # frames of an earlier build would hide a missing one
    folder.mkdir(parents=True)
    os.environ["ATTNLIB_FRAMES_DIR"] = str(folder)  # the kernels inherit it


def script_tag(app, pathto) -> str:
    """The explorer script's element, its URL versioned by its content as Sphinx does."""
    src = Path(app.confdir) / app.config.html_static_path[0] / SCRIPT
    try:
        version = zlib.crc32(src.read_bytes().translate(None, b"\r"))
    except FileNotFoundError as err:
        raise ExtensionError(f"explorers: {src} is missing (make vendor)") from err
    return f'<script src="{pathto("_static/" + SCRIPT, 1)}?v={version:08x}"></script>'


def _page_script(app, pagename, templatename, context, doctree):
    body = context.get("body") or ""
    at = body.find(START)
    if at < 0:
        return
    body = body[:at] + script_tag(app, context["pathto"]) + body[at:]
    # The page's first explorer carries the frames of a reader's first move, so that move
    # waits for no file (while the page is still being parsed, a frame file's script and its
    # pictures' decoding wait behind the parser: docs/DESIGN.md, "The first explorer").
    first = DATA.search(body)
    if first is not None:
        from attnlib.explorer_page import first_moves_html

        try:
            moves = first_moves_html(json.loads(first.group(1)), _frames_dir(app))
        except FileNotFoundError as err:
            raise ExtensionError(f"explorers: {pagename}: a first move's frame no kernel "
                                 f"wrote: {err}") from err
        body = body[:first.end()] + moves + body[first.end():]
    context["body"] = body


def _copy_frames(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    src = _frames_dir(app)
    out = Path(app.outdir) / "_static" / "frames"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    names, missing = set(), []
    for page in sorted(Path(app.outdir).rglob("*.html")):
        for data in page_explorers(page.read_text(encoding="utf-8")):
            for name in data["frames"]:
                if not (src / f"{name}.js").is_file():
                    missing.append(f"{page.name}: {name}")
                names.add(name)
    if missing:
        raise ExtensionError(f"explorers: frames no kernel wrote ({src}): {missing[:5]}")
    for name in names:
        shutil.copyfile(src / f"{name}.js", out / f"{name}.js")
    logger.info(f"explorers: {len(names)} frame files in _static/frames/")


def setup(app):
    app.connect("builder-inited", _start)
    app.connect("html-page-context", _page_script, priority=550)
    app.connect("build-finished", _copy_frames)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
