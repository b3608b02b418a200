"""Sphinx extension: a table a cell prints keeps its columns on a narrow screen.

A line a cell prints wraps where the column ends (``book.css``: on a phone a long
sentence reads on, instead of widening the page). A printed table wraps too, and its
columns come apart: on a 390 px phone chapter 17's 「블록 본 키 s_max ℓ O」 table put each
row's last number on a line of its own. Here the rows of a printed table (two or
more lines in a row whose columns are set apart by two spaces or more, each lined up
with the one before and with about as many columns, at least one with three columns
or more; not a ledger line ✔/✘) and a NumPy matrix printed over several lines become
one block that keeps its lines and scrolls sideways where the column is narrower
(``.attn-rows`` in ``book.css``). It has a tab stop from the start, so that a
keyboard can scroll it as soon as the page is parsed (axe-core's
scrollable-region-focusable at any moment); ``book.js`` takes the stop away again,
in idle time, from a block that does not scroll at the window's width
(``data-book-scroll``: a stop it manages), and gives it back if a narrower window
makes it scroll. The sentences around it still wrap. Only plain text is touched: an
output that the highlighter coloured is left as it is.
"""

from __future__ import annotations

import re
import unicodedata

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


def _gaps(line: str) -> int:
    return len(_GAP.findall(line))


def _width(text: str) -> int:
    """Columns on screen: a Hangul syllable or other wide character takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _edges(line: str) -> set[tuple[str, int]]:
    """Where the line's columns end (a gap begins) and begin (a gap ends), counted both in
    characters (a program that padded with ``len``) and on screen (one that padded to the
    width a reader sees)."""
    edges = set()
    for m in _GAP.finditer(line):
        for kind, i in (("end", m.start()), ("begin", m.end())):
            edges |= {(kind, i), (kind + " on screen", _width(line[:i]))}
    return edges


def _same_table(line: str, before: str) -> bool:
    """A row goes on from the row before it: about as many columns (one more or fewer: a
    header, a last column left empty) and a column that ends, or begins, in the same place."""
    return abs(_gaps(line) - _gaps(before)) <= 1 and bool(_edges(line) & _edges(before))


def _array_end(lines: list[str], i: int) -> int | None:
    """When ``lines[i]`` opens a NumPy matrix printed over several lines (``[[`` without its
    ``]]``, the next lines ``[`` …), the index after its last line."""
    at = lines[i].find("[[")
    if at < 0 or "]]" in lines[i][at:]:
        return None
    for k in range(i + 1, len(lines)):
        if not lines[k].lstrip().startswith("["):
            return None
        if "]]" in lines[k]:
            return k + 1
    return None


def groups(lines: list[str]) -> list[tuple[bool, list[str]]]:
    """The lines in order, as (a table?, its lines): a NumPy matrix printed over several
    lines; a run of table rows, each going on from the row before (:func:`_same_table`), at
    least one with three columns or more; any other line alone."""
    out: list[tuple[bool, list[str]]] = []
    run: list[str] = []

    def flush():
        if len(run) >= MIN_ROWS and max(_gaps(line) for line in run) >= 2:
            out.append((True, run[:]))
        else:
            out.extend((False, [line]) for line in run)
        run.clear()

    i = 0
    while i < len(lines):
        end = _array_end(lines, i)
        if end is not None:
            flush()
            out.append((True, lines[i:end]))
            i = end
            continue
        line = lines[i]
        if is_row(line):
            if run and not _same_table(line, run[-1]):
                flush()
            run.append(line)
        else:
            flush()
            out.append((False, [line]))
        i += 1
    flush()
    return out


def mark_rows(text: str) -> str:
    """``text`` (a ``<pre>``'s HTML) with each table of :func:`groups` wrapped in :data:`ROWS`
    (its last newline inside, so no empty line follows it); unchanged when it holds markup
    other than Pygments' opening empty span."""
    lead = _EMPTY_SPAN if text.startswith(_EMPTY_SPAN) else ""
    body = text[len(lead):]
    if "<" in body:
        return text
    lines = re.split(r"(?<=\n)", body)  # each line with its newline ("\n" only)
    return lead + "".join(ROWS + "".join(part) + "</span>" if table else "".join(part)
                          for table, part in groups([ln for ln in lines if ln]))


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
