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
    # chapter 9: two sentences that set clauses apart with two spaces, not alike
    clauses = ("한 걸음 뒤 W_V 의 NaN: 36 / 36,  다음 순전파 O 의 NaN: 24 / 24\n"
               "두 걸음 뒤 NaN: W_Q 36 / 36,  W_K 36 / 36,  W_V 36 / 36\n")
    assert rows.mark_rows(clauses) == clauses
    two = "α =  1: tr J = 0.79\nα = 32: tr J = 4.1e-05\n"
    assert rows.mark_rows(two) == two  # two columns at most: no table
    coloured = '<span></span><span class="-Color">a   b</span>\nc   d\n'
    assert rows.mark_rows(coloured) == coloured


def test_a_page_marks_printed_outputs_only():
    pre = '<div class="output stream highlight-myst-ansi notranslate"><div class="highlight"><pre>'
    code = '<div class="highlight-ipython3 notranslate"><div class="highlight"><pre>'
    body = f"{pre}<span></span>{TABLE}</pre></div></div>{code}{TABLE}</pre></div></div>"
    out = rows.page_rows(body)
    assert out.count(rows.ROWS) == 1 and out.index(rows.ROWS) < out.index(code)


def test_a_sentence_after_a_table_is_not_one_of_its_rows():
    """Chapter 2: the sentence under the table still wraps."""
    table = ("나눈 것:     2.19e-01  1.92e-01  3.07e-01  1.65e-01  6.04e-02  5.75e-02\n"
             "안 나눈 것:  6.11e-02  2.18e-02  9.11e-01  6.26e-03  2.08e-06  1.39e-06\n")
    sentence = "안 나눈 쪽 5·6번째 자리: 2.08e-06, 1.39e-06  (둘 다 10⁻⁶ 보다 작은가: 아니요)\n"
    assert rows.mark_rows(table + sentence) == rows.ROWS + table + "</span>" + sentence


def test_a_numpy_matrix_is_one_block_from_its_first_row_to_its_last():
    """Chapter 3 printed its matrix's first row one space apart (left out before) and
    chapter 10 has the line after the matrix two spaces apart (taken in before)."""
    matrix = ("[[ 0.171 -0.042 -0.067]\n"
              " [-0.042  0.155 -0.059]\n"
              " [-0.067 -0.059  0.213]]\n")
    after = "r = [-0.7795  0.412   0.0758  1.16  ]\n"
    text = "J =\n" + matrix + after + "대칭인가: 예   행 합: 0\n"
    assert rows.mark_rows(text) == ("J =\n" + rows.ROWS + matrix + "</span>" + after
                                    + "대칭인가: 예   행 합: 0\n")
    # a matrix on one line, or one whose rows stop before "]]", is not one
    assert rows.mark_rows("[[1 2]]\n") == "[[1 2]]\n"
    cut = "[[1  2  3]\n끝\n"
    assert rows.mark_rows(cut) == cut


def test_lines_are_split_at_newlines_only_and_the_last_may_lack_one():
    text = "a\x0cb\n" + TABLE.rstrip("\n")
    assert rows.mark_rows(text) == "a\x0cb\n" + rows.ROWS + TABLE.rstrip("\n") + "</span>"
