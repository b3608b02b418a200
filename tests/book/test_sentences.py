"""The book's own sentences (attnlib.sentences) are tied to the chapters that say them.

- every registered sentence appears, word for word, in a markdown cell of its chapter;
- exactly one code cell of that chapter holds it (``ledger.holds("key", …)``), and the stored
  output of that cell shows its ✔ line (the sentence in 「」, as plain text);
- every ``holds`` call in a chapter names a registered sentence, a qualified article claim or an
  erratum stated in words;
- every bullet of a 「정리」 section of the chapters in ``SUMMARIZED`` quotes a registered
  sentence of its chapter, so a summary says nothing its cells do not hold.

That the check bites (a changed seed fails the build naming the sentence) is in
test_claims_bite.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from attnlib.claims import CLAIMS
from attnlib.sentences import SENTENCES, SUMMARIZED
from attnlib.text import plain

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = {p.stem: p for p in (ROOT / "chapters").rglob("*.ipynb")
             if ".ipynb_checkpoints" not in p.parts}
HOLDS = re.compile(r"""holds\(\s*(["'])(?P<key>[^"']+)\1""")


def _flat(text: str) -> str:
    return " ".join(text.split())


def _cells(stem: str, kind: str):
    nb = nbformat.read(NOTEBOOKS[stem], as_version=4)
    return [c for c in nb.cells if c.cell_type == kind]


def _output_text(cell) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


@pytest.mark.parametrize("key", list(SENTENCES))
def test_sentence_is_in_its_chapter_and_held_there(key):
    stem = key.split("/", 1)[0]
    assert stem in NOTEBOOKS, f"{key}: no chapter notebook named {stem}"
    prose = [_flat(c.source) for c in _cells(stem, "markdown")]
    text = SENTENCES[key].text
    assert any(text in p for p in prose), f"{key}: 「{text}」 is not in {stem}'s prose"
    holding = [c for c in _cells(stem, "code")
               if any(m.group("key") == key for m in HOLDS.finditer(c.source))]
    assert len(holding) == 1, f"{key}: held by {len(holding)} cells of {stem}, not one"
    line = f"✔ 「{plain(SENTENCES[key].text)}」:"
    assert line in _output_text(holding[0]), (
        f"{key}: the stored output of its cell has no line {line} (run `make notebooks`)")


@pytest.mark.parametrize("stem", sorted(NOTEBOOKS))
def test_every_holds_call_names_a_registered_sentence(stem):
    keys = [m.group("key") for c in _cells(stem, "code") for m in HOLDS.finditer(c.source)]
    unknown = [k for k in keys if k not in SENTENCES
               and not (k in CLAIMS
                        and CLAIMS[k].status in ("qualified", "erratum", "confirmed"))]
    assert not unknown, f"{stem}: holds() of unregistered keys {unknown}"
    assert all(k.startswith(stem + "/") for k in keys), f"{stem}: keys of another chapter"


def _summary_bullets(stem: str) -> list[str]:
    for cell in _cells(stem, "markdown"):
        head, _, body = cell.source.partition("\n")
        if head.strip() == "## 정리":
            bullets = re.split(r"\n- ", "\n" + body.split("\n\n")[0].strip())
            return [_flat(b) for b in bullets if b.strip()]
    raise AssertionError(f"{stem}: no 「## 정리」 cell")


@pytest.mark.parametrize("stem", SUMMARIZED)
def test_every_summary_bullet_quotes_a_held_sentence(stem):
    mine = [s.text for k, s in SENTENCES.items() if k.startswith(stem + "/")]
    bare = [b[:80] for b in _summary_bullets(stem) if not any(t in b for t in mine)]
    assert not bare, f"{stem}: 「정리」 bullets that no registered sentence backs: {bare}"


def test_qualified_article_claims_are_held_somewhere():
    held = {m.group("key") for stem in NOTEBOOKS for c in _cells(stem, "code")
            for m in HOLDS.finditer(c.source)}
    missing = [k for k, c in CLAIMS.items()
               if c.status in ("qualified", "confirmed") and k not in held]
    assert not missing, f"qualified claims no chapter holds: {missing}"
