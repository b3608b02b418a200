"""What the book sets in 「」 as an article's words is the article's text (issue 34, class c).

Every 「…」 that the chapters' prose attributes to an article (the words before it name the
article: 「글은」, 「첫 글의」, 「두 번째 글이」, …) and every article quotation in the ledger
(``attnlib.claims``: ``expected`` and ``note`` quotations) must appear verbatim in one of the two
seed articles, once whitespace and math markup are normalised ($…$, braces, ``\\,``, ``\\times``,
superscript digits, the minus sign). A quotation may leave words out with 「…」. A paraphrase is
written without 「」. The check fails on a planted change of one word.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from attnlib.claims import CLAIMS

ROOT = Path(__file__).resolve().parents[2]
# The two articles: shared/seeds/ beside the checkout (where CI lays it), else this machine's.
SEEDS = next((found for folder in (ROOT.parent / "shared" / "seeds", Path("/work/shared/seeds"))
              if (found := sorted(folder.glob("*.txt")))), [])
CHAPTERS = sorted(p for p in (ROOT / "chapters").rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts)

pytestmark = pytest.mark.skipif(not SEEDS, reason="the seed articles are not on this machine")

QUOTE = re.compile(r"「([^「」]*(?:「[^「」]*」[^「」]*)*)」")
# the words just before a quotation that give it to an article: 글은, 첫 글의, 두 번째 글이, (글: …
ARTICLE = re.compile(r"(?:^|[\s(])(?:첫 |두 번째 |둘째 |이 |그 )?"
                     r"글(?:은|이|의|에서|에|도|:|이라| )")
SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def normalise(text: str) -> str:
    """Whitespace and math markup out: ``$10^{-6}$``, ``10⁻⁶`` and ``10^-6`` read the same."""
    text = text.replace("\\,", "").replace("\\!", "").replace("\\times", "×")
    text = text.replace("\\sqrt", "√").replace("\\cdot", "·").replace("−", "-")
    text = re.sub(r"\\(?:mathsf|mathrm|operatorname|text|left|right)", "", text)
    text = re.sub(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+", lambda m: "^" + m.group(0).translate(SUPERSCRIPT), text)
    return re.sub(r"[\s${}^`*]", "", text)


def _seed_text() -> str:
    return normalise("\n".join(p.read_text(encoding="utf-8") for p in SEEDS))


def verbatim(quote: str, source: str) -> bool:
    """Is ``quote`` in ``source`` (both normalised), its pieces around 「…」 in order?"""
    pieces = [normalise(p) for p in re.split(r"…|\.\.\.", quote) if normalise(p)]
    at = 0
    for piece in pieces:
        at = source.find(piece, at)
        if at < 0:
            return False
        at += len(piece)
    return bool(pieces)


def attributed(text: str):
    """The 「…」 in ``text`` whose preceding words (same sentence, 20 characters) name an
    article."""
    for m in QUOTE.finditer(text):
        before = text[max(0, m.start() - 20):m.start()]
        before = re.split(r"[.。!?]\s", before)[-1]
        if ARTICLE.search(before) and m.group(1).strip(" …."):  # 「…」 alone: a placeholder
            yield m.group(1)


def chapter_quotations():
    for path in CHAPTERS:
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "markdown":
                for q in attributed(cell.source):
                    yield f"{path.stem} cell {i}", q


def ledger_quotations():
    for key, claim in CLAIMS.items():
        for field in ("text", "expected", "note"):
            value = getattr(claim, field, "") or ""
            texts = [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)]
            for text in texts:
                quotes = QUOTE.findall(text) if field != "note" else list(attributed(text))
                for q in quotes:
                    yield f"{key} ({field})", q


def test_every_article_quotation_in_the_chapters_is_verbatim():
    source = _seed_text()
    wrong = [f"{where}: 「{q}」" for where, q in chapter_quotations() if not verbatim(q, source)]
    assert not wrong, "quoted as the article's words but not in the article:\n" + "\n".join(wrong)


def test_every_article_quotation_in_the_ledger_is_verbatim():
    source = _seed_text()
    wrong = [f"{where}: 「{q}」" for where, q in ledger_quotations() if not verbatim(q, source)]
    assert not wrong, "quoted as the article's words but not in the article:\n" + "\n".join(wrong)


def test_the_check_reads_quotations_and_fails_on_a_planted_change():
    source = _seed_text()
    quotes = list(chapter_quotations())
    assert len(quotes) > 20, len(quotes)
    where, q = next((w, q) for w, q in quotes if len(q) > 8)
    assert verbatim(q, source)
    planted = q.replace(q[len(q) // 2], "X", 1)
    assert not verbatim(planted, source), (where, planted)
    # a paraphrase of the article's 「나누지 않은 쪽은 50걸음쯤에서 손실 1.893에 얼어붙고」
    assert not verbatim("50걸음쯤에서 얼어붙는다", source)
    assert verbatim("50걸음쯤에서 손실 1.893에 얼어붙고", source)
    assert list(attributed("글은 이것을 「50걸음쯤에서 얼어붙는다」고 적었지만")) == [
        "50걸음쯤에서 얼어붙는다"]
    assert list(attributed("아래 「실시간 계산 켜기」를 누르면")) == []
