"""Sphinx extension: the verification ledger table (appendix 「검증 장부」).

The chapters check the articles' numbers with ``attnlib.ledger.claim`` while the
build executes them; each check is appended to ``$ATTNLIB_CLAIMS_DIR/*.jsonl``.
The ``{ledger-table}`` directive leaves a placeholder that is filled once every
page has been read (``doctree-resolved``), joining those records with the
registry ``attnlib.claims.CLAIMS``: every claim of both articles appears, with
the chapter that checks it and what the check found.  With ``ledger_strict``
set, a registered claim that no chapter checked is a build warning (an error
under ``-W``).

The ``{sentence-table}`` directive does the same for the book's own sentences
(:mod:`attnlib.sentences`, held by ``attnlib.ledger.holds``): each sentence, the chapter whose
cell holds it, what that cell computed; under ``ledger_strict`` a registered sentence that no
chapter held is a build warning too.

The ``{ledger-summary}`` directive puts the same one-paragraph count (how many claims,
how many of each status) on another page, e.g. the book's front page, so the counts a
reader sees there are the ledger's own, not typed by hand.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

STATUS_TEXT = {
    "exact": "✔ 자리까지 재현",
    "shape": "≈ 같은 모양 (시드·조건이 다르거나 글이 어림값만 적음)",
    "erratum": "≠ 글과 다름 (정오표)",
    "roundoff": "✔ 반올림 크기 (한계 아래에서 재현)",
    "qualified": "△ 조건이 붙어야 맞음 (조건을 계산으로 확인)",
    "confirmed": "✔ 숫자 없는 문장, 계산으로 확인",
    "unchecked": "— 계산할 대상 아님",
    "missing": "✘ 아직 확인하지 않음",
}
ARTICLE_TEXT = {"000": "글 1 (√d_k)", "002": "글 2 (그래디언트)"}


class ledger_placeholder(nodes.General, nodes.Element):
    pass


class ledger_summary_placeholder(nodes.General, nodes.Element):
    pass


class sentence_placeholder(nodes.General, nodes.Element):
    pass


class SentenceTable(SphinxDirective):
    has_content = False

    def run(self):
        return [sentence_placeholder()]


class LedgerTable(SphinxDirective):
    has_content = False

    def run(self):
        return [ledger_placeholder()]


class LedgerSummary(SphinxDirective):
    has_content = False

    def run(self):
        return [ledger_summary_placeholder()]


def _records(folder: Path) -> dict[str, dict]:
    found: dict[str, dict] = {}
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            found.setdefault(rec["key"], rec)
    return found


def _chapter_doc(env, stem: str) -> str | None:
    for doc in sorted(env.found_docs):
        if doc.rsplit("/", 1)[-1] == stem:
            return doc
    return None


def anchor(key: str) -> str:
    """The row's HTML id on the ledger page (``ledger.html#ledger-09_masks-exp_minus10``): the
    chapters' lines show what was checked in the chapter's words, not the key, so a maintainer
    who has the key from a cell's code reaches its row with this anchor."""
    return "ledger-" + re.sub(r"[^A-Za-z0-9_.-]", "-", key)


def _row(cells, ids=None):
    row = nodes.row(ids=[ids] if ids else [])
    for cell in cells:
        entry = nodes.entry()
        for part in cell if isinstance(cell, list) else [cell]:
            entry += part if isinstance(part, nodes.Node) else nodes.paragraph(text=str(part))
        row += entry
    return row


def _where(app, docname, key, prefix=""):
    """「prefix → chapter key」: a link to the chapter that checks ``key`` and the key's name."""
    stem, name = key.split("/", 1)
    target = _chapter_doc(app.env, stem)
    item = nodes.paragraph()
    if prefix:
        item += nodes.Text(prefix)
    if target:
        item += nodes.reference("", stem, internal=True,
                                refuri=app.builder.get_relative_uri(docname, target))
    else:
        item += nodes.Text(stem)
    item += nodes.Text(" ")
    item += nodes.literal(text=name)
    return item


def _table(app, docname, claims, records, warn=True):
    headers = ["#", "항목", "글의 수", "책이 계산한 값", "상태"]
    table = nodes.table(classes=["ledger-table"])
    group = nodes.tgroup(cols=len(headers))
    for width in (3, 30, 18, 18, 31):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    head += _row(headers)
    group += head
    body = nodes.tbody()
    counts: dict[str, int] = {}
    for i, spec in enumerate(claims.values(), 1):
        rec = records.get(spec.key)
        status = spec.status if (rec or spec.status == "unchecked") else "missing"
        counts[status] = counts.get(status, 0) + 1
        title = nodes.paragraph()
        title += nodes.strong(text=spec.text)
        item = _where(app, docname, spec.key, f"{ARTICLE_TEXT[spec.article]}, {spec.where} → ")
        ours = rec["ours"] if rec else ("" if spec.status == "unchecked" else "—")
        if rec and rec.get("measured"):
            ours += f" (이 빌드의 기계: {rec['measured']})"
        note = [nodes.paragraph(text=STATUS_TEXT[status])]
        if spec.note:
            note.append(nodes.paragraph("", "", nodes.emphasis(text=spec.note)))
        body += _row([i, [title, item], ", ".join(spec.expected), ours, note], anchor(spec.key))
        if status == "missing" and app.config.ledger_strict and warn:
            logger.warning("ledger: claim %r is not checked by any chapter", spec.key,
                           location=docname)
    group += body
    table += group
    return table, counts


_INLINE = re.compile(r"(\$[^$]+\$|`[^`]+`)")


def _inline(text: str) -> list[nodes.Node]:
    """A sentence as the chapter writes it: ``$…$`` becomes math (typeset by KaTeX), ``…``
    code, the rest text."""
    parts = []
    for piece in _INLINE.split(text):
        if piece.startswith("$") and piece.endswith("$") and len(piece) > 1:
            parts.append(nodes.math(piece[1:-1], piece[1:-1]))
        elif piece.startswith("`") and piece.endswith("`") and len(piece) > 1:
            parts.append(nodes.literal(text=piece[1:-1]))
        elif piece:
            parts.append(nodes.Text(piece))
    return parts


def _sentence_table(app, docname, sentences, records, warn=True):
    headers = ["#", "책의 문장", "셀이 계산한 것", "상태"]
    table = nodes.table(classes=["ledger-table", "sentence-table"])
    group = nodes.tgroup(cols=len(headers))
    for width in (3, 50, 30, 17):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    head += _row(headers)
    group += head
    body = nodes.tbody()
    held = 0
    for i, sent in enumerate(sentences.values(), 1):
        rec = records.get(sent.key)
        quote = nodes.paragraph()
        quote += [nodes.Text("「"), *_inline(sent.text), nodes.Text("」")]
        item = _where(app, docname, sent.key)
        check = [nodes.paragraph("", "", nodes.emphasis(text=sent.check))]
        if rec:
            check.insert(0, nodes.paragraph(text=rec["ours"]))
            held += 1
            status = "✔ 셀이 데이터로 확인"
        else:
            status = STATUS_TEXT["missing"]
            if app.config.ledger_strict and warn:
                logger.warning("ledger: sentence %r is not held by any chapter", sent.key,
                               location=docname)
        body += _row([i, [quote, item], check, status], anchor(sent.key))
    group += body
    table += group
    return table, held


def _summary(claims, counts, sentences=None, held=0) -> nodes.paragraph:
    per_article = {a: sum(1 for c in claims.values() if c.article == a) for a in ARTICLE_TEXT}
    text = (
        f"글의 숫자와 문장 {len(claims)}개 항목 — "
        + ", ".join(f"{ARTICLE_TEXT[a]} {n}개" for a, n in per_article.items())
        + ". 상태별: "
        + ", ".join(f"{STATUS_TEXT[s]} {counts[s]}" for s in STATUS_TEXT if counts.get(s))
        + "."
    )
    if sentences is not None:
        text += " " + _sentence_summary(sentences, held).astext()
    return nodes.paragraph(text=text)


def _sentence_summary(sentences, held) -> nodes.paragraph:
    return nodes.paragraph(text=(
        f"책이 자기 데이터로 내린 결론 {len(sentences)}개 문장 — 셀이 확인한 것 {held}개"
        + (f", 아직 확인하지 않은 것 {len(sentences) - held}개" if held < len(sentences) else "")
        + "."))


def fill_ledger(app, doctree, docname):
    placeholders = list(doctree.findall(ledger_placeholder))
    summaries = list(doctree.findall(ledger_summary_placeholder))
    sentence_tables = list(doctree.findall(sentence_placeholder))
    if not placeholders and not summaries and not sentence_tables:
        return
    from attnlib.claims import CLAIMS
    from attnlib.sentences import SENTENCES

    folder = Path(os.environ.get("ATTNLIB_CLAIMS_DIR", Path(app.outdir).parent / "claims"))
    records = _records(folder) if folder.is_dir() else {}
    if placeholders:
        unknown = sorted(set(records) - set(CLAIMS) - set(SENTENCES))
        for key in unknown:
            logger.warning("ledger: a chapter checked %r, which attnlib.claims does not list",
                           key, location=docname)
    table, counts = _table(app, docname, CLAIMS, records, warn=bool(placeholders))
    s_table, held = _sentence_table(app, docname, SENTENCES, records,
                                    warn=bool(sentence_tables))
    for ph in placeholders:
        ph.replace_self([_summary(CLAIMS, counts), table])
    for ph in sentence_tables:
        ph.replace_self([_sentence_summary(SENTENCES, held), s_table])
    for ph in summaries:
        ph.replace_self(_summary(CLAIMS, counts, SENTENCES, held))


def setup(app):
    app.add_config_value("ledger_strict", False, "env")
    app.add_node(ledger_placeholder)
    app.add_node(ledger_summary_placeholder)
    app.add_node(sentence_placeholder)
    app.add_directive("sentence-table", SentenceTable)
    app.add_directive("ledger-table", LedgerTable)
    app.add_directive("ledger-summary", LedgerSummary)
    app.connect("doctree-resolved", fill_ledger)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
