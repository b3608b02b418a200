"""Sphinx extension: the search index splits Korean words from their particles.

Sphinx has no search language for Korean, so it indexes a Korean page with its English
splitter: a word is what lies between spaces and punctuation, particle included
(야코비안은, 마스크가, 기울기로), and a reader's 야코비안 finds only the pages that also
happen to carry the bare form.  Here the search language ``ko`` cuts every word that holds
Hangul where its particles and endings begin, as the morphological analyser Kiwi
(kiwipiepy, at build time only) reads the sentence: 야코비안은 → 야코비안, 기울기로 →
기울기, 역전파를 → 역전파, softmax의 → softmax, d_k가 → d_k; the whole word is indexed
too, for where the analyser errs (길이 차이 → 길 + 이).  The index keeps the word's
own surface up to that point, not Kiwi's morphemes, so a compound the analyser splits
(역전파 → 역 + 전파, 드롭아웃 → 드롭 + 아웃) stays one term.  Where Kiwi leaves a word
whole but it ends with a particle of the search page's list (빈 함수의, at the end of a
text node; 야코비안이 행, read as 야코비안 + the determiner 이), the word is indexed with and
without it, if two letters are left.  Words without Hangul go
through Sphinx's English splitter and Porter stemmer, as before.

The browser's side is ``_assets/search_ko.js`` (loaded by ``_templates/search.html`` on the
search page only): it strips a particle from the query's word where the index knows what is
left, matches a Korean term also inside longer terms (행렬 in 행렬곱), requires every word
of the query, ranks pages whose title or headings have the word first, and shows the
sentence that holds it.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from sphinx.search import languages
from sphinx.search.en import SearchEnglish

HANGUL = re.compile(r"[\uac00-\ud7a3]")
WORD = re.compile(r"\w+")
# Kiwi's tags that end a Korean word without being part of what it names: particles (J…),
# the copula 이다 (VCP) and verbal endings (EP, EF, EC, ETM).  Not ETN: the nominaliser -기
# of 기울기 belongs to the noun.
_TRAILING = {"VCP", "EP", "EF", "EC", "ETM"}


@cache
def particles() -> tuple[str, ...]:
    """The particles and endings the search page strips from a query word, longest first: one
    list, in _assets/search_ko.js, read here."""
    js = (Path(__file__).parents[1] / "_assets" / "search_ko.js").read_text(encoding="utf-8")
    found = re.search(r"const PARTICLES = \[(.*?)\];", js, re.S)
    return tuple(sorted(re.findall(r'"([^"]+)"', found.group(1)), key=len, reverse=True))


def _unparticled(word: str) -> str | None:
    """``word`` without the particle it ends with, when at least two letters are left (the
    analyser's misses: 빈 함수의, 야코비안이 read as 야코비안 + the determiner 이)."""
    for p in particles():
        if word.endswith(p) and len(word) - len(p) >= 2 and HANGUL.search(word[-len(p) - 1]):
            return word[:-len(p)]
    return None


@cache
def _kiwi():
    from kiwipiepy import Kiwi  # imported only when a page is indexed

    return Kiwi()


def _trailing(tag: str) -> bool:
    return tag.startswith("J") or tag in _TRAILING


def korean_split(text: str) -> list[str]:
    """The words of ``text`` (runs of \\w, as Sphinx's splitter finds them), each word that
    holds Hangul cut where its particles and endings begin."""
    spans = [(m.start(), m.end()) for m in WORD.finditer(text)]
    if not HANGUL.search(text):
        return [text[a:b] for a, b in spans]
    cut = {}  # word start -> where its trailing particles/endings begin
    tokens = sorted(_kiwi().tokenize(text), key=lambda t: (t.start, t.end))
    i = 0
    for a, b in spans:
        if not HANGUL.search(text, a, b):
            continue
        while i < len(tokens) and tokens[i].start < a:
            i += 1
        j = i
        while j < len(tokens) and tokens[j].start < b:
            j += 1
        inside = tokens[i:j]
        end = b
        for t in reversed(inside):
            if not _trailing(t.tag):
                break
            end = min(end, t.start)
        cut[a] = end if end > a else b
        i = j
    words = []
    for a, b in spans:
        words.append(text[a:cut.get(a, b)])
        if a not in cut:
            continue
        if cut[a] < b:  # the whole word too: where the analyser cut a noun (길이 → 길 + 이)
            words.append(text[a:b])
        elif rest := _unparticled(text[a:b]):
            words.append(rest)
    return words


class SearchKorean(SearchEnglish):
    """Korean words without their particles; other words as Sphinx's English."""

    lang = "ko"
    language_name = "Korean"

    def split(self, input: str) -> list[str]:  # noqa: A002 (Sphinx's signature)
        return korean_split(input)

    def stem(self, word: str) -> str:
        if HANGUL.search(word):
            return word
        return super().stem(word)


def setup(app):
    languages["ko"] = SearchKorean
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
