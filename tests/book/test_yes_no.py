"""The book's printed answers are Korean: a yes/no a chapter prints goes through
``attnlib.text.yes_no`` (예 / 아니요), never Python's ``True``/``False`` (review r6, R6-1-4).

Reads every stored plain-text output (streams and ``text/plain`` of rich outputs) of the chapters
and fails on a bare ``True`` or ``False``.  Python written out as code keeps its words: an
argument or a default shown in an output (``causal=True``, ``strict=True``) is not an answer.
"""

from __future__ import annotations

import re

import nbformat
import pytest
from stored_outputs import NOTEBOOKS, plain_outputs

BARE = re.compile(r"(?<![=\w])(?:True|False)\b")


def english_answers(nb) -> list[str]:
    """``cell i: line`` for every stored output line that prints Python's True or False."""
    return [f"cell {i}: {line.strip()}" for i, text in plain_outputs(nb)
            for line in text.splitlines() if BARE.search(line)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_printed_answers_are_korean(path):
    found = english_answers(nbformat.read(path, as_version=4))
    assert not found, (f"{path.stem}: print the answer with attnlib.text.yes_no:\n"
                       + "\n".join(found))


def _nb(text: str):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(...)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    nb.cells.append(cell)
    return nb


def test_the_check_fails_on_a_printed_true_and_passes_code():
    assert english_answers(_nb("dV 일치: True\n")) == ["cell 0: dV 일치: True"]
    assert english_answers(_nb("numpy True, torch False\n"))
    assert not english_answers(_nb("dV 일치: 예\n… check.online_softmax(causal=True): 통과\n"))
    assert not english_answers(_nb("def f(scaled=True, steps=400):\n"))
