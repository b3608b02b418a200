"""The book's search finds Korean words whatever particle follows them (issue 36).

The terms are taken from the built book's own prose, not listed: Korean nouns (as Kiwi, the
analyser the index uses, reads them) that the text writes with a particle after them
(마스크가, 기울기로), in at least two pages, the most widespread first; and the words the
issue measured.  A page "uses" a term when a word of its prose begins with it: the
article's text without code, typeset math, scripts, cell outputs and interface labels, as
tests/book/test_browser.py reads it, here from the HTML files.  For each term the search
must return every such page (recall 100 %), and the same pages when the query carries a
particle; likewise three English terms, and two words at once (every page with both).  A
chapter's first visit loads no search index; a reader at 390 px searches from the keyboard
and gets Korean results, each with the sentence that holds the word, the word marked.

    pytest tests/book/test_search.py -m browser    (after `make book`)
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from urllib.parse import quote

import pytest
import test_browser as tb
from test_browser import _CUT, _ENGLISH, HTML, PAGES, PHONE, _assert_clean, _axe, _missing

# test_browser's fixtures: a server of _build/html, Chromium, a page visit that records requests
origin, browser, visit = tb.origin, tb.browser, tb.visit

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("search")]

ISSUE_TERMS = ["야코비안", "마스크", "기울기", "드롭아웃", "분산", "역전파", "엔트로피", "블록"]
ENGLISH_TERMS = ["softmax", "LayerNorm", "dQ"]
TWO_WORDS = [("마스크", "드롭아웃"), ("분산", "softmax")]
MIN_TERMS = 30
HANGUL = re.compile(r"[\uac00-\ud7a3]")
# not prose: code, math, scripts, and the interface's words (a fold's 「코드 보기」, buttons)
NOT_PROSE = ("pre", "code", "script", "style", "math", "svg", "summary", "button")
NOT_PROSE_CLASSES = ("katex", "widget-subarea", "cell_output")


def _prose(path) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    root = soup.find("article") or soup.body
    for el in root.find_all(NOT_PROSE):
        el.decompose()
    for cls in NOT_PROSE_CLASSES:
        for el in root.find_all(class_=cls):
            el.decompose()
    return root.get_text(" ")


@cache
def _headings(path) -> str:
    """The page's title and headings, and the titles of its exercises and admonitions."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    root = soup.find("article") or soup.body
    titles = root.find_all(re.compile(r"^h[1-6]$")) + root.find_all(class_="admonition-title")
    return " ".join(h.get_text(" ") for h in titles)


@cache
def _book() -> dict[str, str]:
    """Each page of the book (search page and index aside) and its prose."""
    return {rel: _prose(HTML / rel) for rel in PAGES if rel not in ("search.html", "genindex.html")}


def _using(*words: str) -> set[str]:
    """The pages that use every one of ``words``: their prose has a word that begins with it
    (마스크 in 마스크가, 마스크된; not 가지 in 들어가지)."""
    found = [re.compile(r"(?<![\w])" + re.escape(w), re.I) for w in words]
    return {rel for rel, text in _book().items() if all(f.search(text) for f in found)}


@cache
def _terms() -> list[tuple[str, str]]:
    """(noun, the particle the book writes after it most often): nouns the prose writes
    with a particle, in at least two pages, the most widespread first."""
    from kiwipiepy import Kiwi

    kiwi = Kiwi()
    particles: dict[str, Counter] = {}
    for text in _book().values():
        for line in text.splitlines():
            if not HANGUL.search(line):
                continue
            tokens = kiwi.tokenize(line)
            for t, after in zip(tokens, tokens[1:], strict=False):
                if (t.tag in ("NNG", "NNP") and len(t.form) >= 2
                        and all(HANGUL.match(c) for c in t.form)
                        and after.tag.startswith("J") and after.start == t.end
                        and line[t.start:t.end] == t.form):
                    particles.setdefault(t.form, Counter())[line[after.start:after.end]] += 1
    spread = {w: len(_using(w)) for w in particles}
    chosen = sorted((w for w in particles if spread[w] >= 2), key=lambda w: (-spread[w], w))
    terms = list(dict.fromkeys(ISSUE_TERMS + chosen[:40]))
    return [(w, particles[w].most_common(1)[0][0] if w in particles else _topic(w)) for w in terms]


def _topic(word: str) -> str:
    """은 after a final consonant, 는 after a vowel."""
    return "은" if (ord(word[-1]) - 0xAC00) % 28 else "는"


_QUERY = """(q) => {
  const [query, terms, excluded, highlight, objects] = Search._parseQuery(q);
  const found = Search._performSearch(query, terms, excluded, highlight, objects);
  return found.reverse().map(r => r[0] + '.html');  // best first, as the page lists them
}"""


@pytest.fixture(scope="module")
def search(browser, origin):
    if "search.html" not in PAGES:
        _missing("no search page")
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{origin}/search.html", wait_until="load")
    page.wait_for_function("() => typeof Search !== 'undefined' && Search.hasIndex()")
    docs = set(page.evaluate("() => Search._index.docnames.map(d => d + '.html')"))
    assert set(_book()) <= docs, f"pages the index lacks: {sorted(set(_book()) - docs)}"

    def run(q: str) -> list[str]:
        return page.evaluate(_QUERY, q)

    yield run
    context.close()


def test_korean_terms_with_and_without_particles(search):
    """Every page whose prose has the term, for the bare term and with a particle after it."""
    terms = _terms()
    assert len(terms) >= MIN_TERMS, f"only {len(terms)} terms found in the book"
    missed, differ = [], []
    for word, particle in terms:
        want = _using(word)
        got = set(search(word))
        if want - got:
            missed.append(f"{word}: {sorted(want - got)}")
        for q in (word + particle, word + "의"):
            if set(search(q)) != got:
                differ.append(f"{q}: {sorted(set(search(q)) ^ got)}")
    assert not missed, f"pages the search misses ({len(missed)} of {len(terms)} terms): {missed}"
    assert not differ, f"a particle changes the pages found: {differ}"


@pytest.mark.parametrize("word", ENGLISH_TERMS)
def test_english_terms(search, word):
    want = _using(word)
    assert want, f"no page uses {word}"
    missed = want - set(search(word))
    assert not missed, f"{word}: pages the search misses: {sorted(missed)}"


@pytest.mark.parametrize("words", TWO_WORDS, ids=" ".join)
def test_two_words(search, words):
    want = _using(*words)
    assert want, f"no page uses {words}"
    got = set(search(" ".join(words)))
    assert want <= got, f"{words}: pages the search misses: {sorted(want - got)}"
    for rel in got:  # every word of the query is required
        text = (HTML / rel).read_text(encoding="utf-8").lower()
        assert all(w.lower() in text for w in words), f"{rel} lacks one of {words}"


def test_title_and_headings_first(search):
    """A page that has the word in its title or a heading (an exercise's title included) comes
    before one that has it only in its text."""
    for word in ISSUE_TERMS:
        ranked = search(word)
        headed = [HANGUL.search(word) and word in _headings(HTML / rel) for rel in ranked]
        if any(headed):
            last_headed = max(i for i, h in enumerate(headed) if h)
            ranking = list(zip(ranked, headed, strict=True))
            assert all(headed[: last_headed + 1]), f"{word}: ranking {ranking}"


def test_search_from_a_chapter_by_keyboard_on_a_phone(visit):
    """A chapter's first visit loads no index; at 390 px the reader opens the search with the
    keyboard, types a word with a particle and gets Korean results, each with the sentence that
    holds the word, marked; the results page passes axe-core and shows no English."""
    chapters = [p for p in PAGES if p.startswith("chapters/")]
    if not chapters:
        _missing("no chapter pages")
    rel = chapters[0]
    v = visit(rel)
    assert not {f for f in v.fetched if "searchindex" in f or f.endswith("searchtools.js")}, \
        f"{rel}: the first visit loads the search index: {sorted(v.fetched)}"
    page = v.page
    page.set_viewport_size(PHONE)
    page.keyboard.press("Control+k")
    box = page.locator("form.bd-search input[name=q]:visible").first
    box.wait_for(timeout=5_000)
    assert box.evaluate("e => e === document.activeElement"), "the search box has no focus"
    page.keyboard.type("야코비안은")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "search.html" in page.url and quote("야코비안은") in page.url
    # Sphinx appends a result every 5 ms and fetches its sentence after; the summary's text is
    # written once the last result is appended (until then every result shown may already have
    # its sentence, with more to come)
    page.wait_for_function("() => document.querySelector('#search-results .search-summary')"
                           "?.textContent.trim()"
                           " && !document.querySelector('#search-progress')?.textContent"
                           " && document.querySelectorAll('#search-results li').length"
                           " === document.querySelectorAll('#search-results li p.context')"
                           ".length", timeout=30_000)
    items = page.eval_on_selector_all("#search-results ul.search li", """els => els.map(li => [
        li.querySelector('a').getAttribute('href'), li.querySelector('p.context')?.textContent,
        Array.from(li.querySelectorAll('mark')).map(m => m.textContent)])""")
    pages = {href.split("#")[0] for href, _, _ in items}
    assert pages >= _using("야코비안"), f"missed: {sorted(_using('야코비안') - pages)}"
    for href, sentence, marks in items:
        assert sentence and "야코비안" in sentence, f"{href}: no sentence with the word"
        assert "야코비안" in marks, f"{href}: the word is not marked in {sentence!r}"
        assert len(sentence) <= 210, f"{href}: {len(sentence)} characters of context"
    status = page.inner_text("#search-results .search-summary")
    assert HANGUL.search(status) and str(len(items)) in status, status
    assert not page.evaluate(_ENGLISH), "English on the results page"
    cut = page.evaluate(_CUT)
    assert not cut, f"search results at {PHONE['width']} px: {cut[:5]}"
    page.set_viewport_size({"width": 1280, "height": 900})
    problems = _axe(page, "search.html", "light")
    assert not problems, "axe-core:\n" + "\n".join(problems)
    _assert_clean(v, "search.html")
