"""_ext/output_rows.py: the rows of a printed table are marked to keep their columns (they
scroll on a phone instead of wrapping); sentences, ledger lines and coloured output are not."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "book_output_rows", Path(__file__).resolve().parents[2] / "_ext" / "output_rows.py")
rows = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rows)

TABLE = ("블록   본 키   s_max       ℓ      O\n"
         "   1       4   1.359   2.590   [0.417 0.124]\n"
         "   2       8   3.862   1.283   [-0.587 -0.581]\n")


def test_a_table_between_sentences_is_one_block_and_the_sentences_wrap():
    text = "<span></span>표를 봅니다.\n" + TABLE + "✔ 「ℓ 이 작아지는 블록은」:  (글: 예)\n"
    out = rows.mark_rows(text)
    assert out == ("<span></span>표를 봅니다.\n" + rows.ROWS + TABLE + "</span>"
                   + "✔ 「ℓ 이 작아지는 블록은」:  (글: 예)\n")


def test_what_is_not_a_table_is_left_alone():
    ledger = ("✔ P: 0.3662, 0.3125  (글: 0.3662, 0.3125)\n"
              "✔ O: 0.5462, -0.8613  (글: 0.5462, -0.8613)\n")
    assert rows.mark_rows(ledger) == ledger  # ledger lines are sentences
    one = "배수:    0.0625   0.125\n끝.\n"
    assert rows.mark_rows(one) == one  # a single row is not a table
    words = "a b c\nd e f\n"
    assert rows.mark_rows(words) == words  # one space apart: words, not columns
    clauses = "한 걸음 뒤 NaN: 36 / 36,  다음 순전파\n두 걸음 뒤 NaN: 36 / 36,  W_K 36\n"
    assert rows.mark_rows(clauses) == clauses  # two columns at most: sentences
    coloured = '<span></span><span class="-Color">a   b</span>\nc   d\n'
    assert rows.mark_rows(coloured) == coloured


def test_a_page_marks_printed_outputs_only():
    pre = '<div class="output stream highlight-myst-ansi notranslate"><div class="highlight"><pre>'
    code = '<div class="highlight-ipython3 notranslate"><div class="highlight"><pre>'
    body = f"{pre}<span></span>{TABLE}</pre></div></div>{code}{TABLE}</pre></div></div>"
    out = rows.page_rows(body)
    assert out.count(rows.ROWS) == 1 and out.index(rows.ROWS) < out.index(code)
