"""Sphinx extension: a table a cell prints keeps its columns on a narrow screen.

A line a cell prints wraps where the column ends (``book.css``: on a phone a long sentence
reads on, instead of widening the page).  A printed table wraps too, and its columns come
apart: on a 390 px phone chapter 17's 「블록 본 키 s_max ℓ O」 table put each row's last
number on a line of its own.  Here the rows of a printed table (two or more lines in a row
whose columns are set apart by two spaces or more, at least one of them with three columns
or more; not a ledger line ✔/✘) become one block
that keeps its lines and scrolls sideways where the column is narrower (``.attn-rows`` in
``book.css``).  It has a tab stop from the start, so that a keyboard can scroll it as soon as
the page is parsed (axe-core's scrollable-region-focusable at any moment); ``book.js`` takes
the stop away again, in idle time, from a block that does not scroll at the window's width
(``data-book-scroll``: a stop it manages), and gives it back if a narrower window makes it
scroll.
The sentences around it still wrap.  Only plain text is touched: an output that the
highlighter coloured is left as it is.
"""

from __future__ import annotations

import re

_STREAM = re.compile(
    r'(<div class="output stream[^"]*"><div class="highlight"><pre>)(.*?)(</pre>)', re.S)
_GAP = re.compile(r"(?<=\S) {2,}(?=\S)")  # between two columns: two spaces or more
_EMPTY_SPAN = "<span></span>"  # Pygments opens every block with one
ROWS = '<span class="attn-rows" tabindex="0" data-book-scroll="">'
MIN_ROWS = 2


def is_row(line: str) -> bool:
    """A line of a printed table: columns two spaces apart or more, and not a ledger line
    (✔/✘ …, whose 「(글: …)」 is a sentence)."""
    return bool(_GAP.search(line)) and not line.lstrip().startswith(("✔", "✘"))


def mark_rows(text: str) -> str:
    """``text`` (a ``<pre>``'s HTML) with each run of ``MIN_ROWS`` or more table rows wrapped
    in :data:`ROWS` (its last newline inside, so no empty line follows it);
    unchanged when it holds markup other than Pygments' opening empty span."""
    lead = _EMPTY_SPAN if text.startswith(_EMPTY_SPAN) else ""
    body = text[len(lead):]
    if "<" in body:
        return text
    lines = body.splitlines(keepends=True)
    out: list[str] = []
    run: list[str] = []

    def flush():
        # two sentences that each set a clause apart with two spaces are not a table
        if len(run) >= MIN_ROWS and max(len(_GAP.findall(line)) for line in run) >= 2:
            out.append(ROWS + "".join(run) + "</span>")
        else:
            out.extend(run)
        run.clear()

    for line in lines:
        if is_row(line):
            run.append(line)
        else:
            flush()
            out.append(line)
    flush()
    return lead + "".join(out)


def page_rows(body: str) -> str:
    """Every printed output of a page's body with its tables marked (:func:`mark_rows`)."""
    return _STREAM.sub(lambda m: m.group(1) + mark_rows(m.group(2)) + m.group(3), body)


def _rows(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if body and 'class="output stream' in body:
        context["body"] = page_rows(body)


def setup(app):
    app.connect("html-page-context", _rows, priority=600)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
