"""A ledger line speaks to the reader, not to the build (issue 34).

A line that a chapter's stored output starts with a mark (✔ ≈ ≠ △ ✘) says what was checked in
the chapter's words; the ledger's internal key (``09_masks/exp_minus10``) is for a maintainer and
stays in the cell's code, the build's records and the ledger page's row anchors.  This test reads
every stored plain-text output (streams and ``text/plain`` of rich outputs) and fails on a line
that starts with a mark (after its indent) and shows a key of :mod:`attnlib.claims` or
:mod:`attnlib.sentences`, or anything shaped like one (a chapter stem, a slash, a name), or a key's
name alone where it has an underscore (「seed11_misses_cut 과 같은 검사」: review 3, F3).
"""

from __future__ import annotations

import re

import nbformat
import pytest
from stored_outputs import NOTEBOOKS, plain_outputs

from attnlib.claims import CLAIMS
from attnlib.sentences import SENTENCES

KEYS = set(CLAIMS) | set(SENTENCES)
STEMS = sorted({k.split("/", 1)[0] for k in KEYS}, key=len, reverse=True)
KEY_SHAPED = re.compile(r"(?<![\w/])(?:" + "|".join(map(re.escape, STEMS)) + r")/[\w.]+")
# a key's name without its chapter (``seed11_misses_cut``); one-word names (``P``, ``autograd``)
# are ordinary words of a line, so only names with an underscore count
NAMES = sorted({k.split("/", 1)[1] for k in KEYS if "_" in k.split("/", 1)[1]}, key=len,
               reverse=True)
NAME_ALONE = re.compile(r"(?<![\w/.])(?:" + "|".join(map(re.escape, NAMES)) + r")(?![\w(])")
MARKS = "✔≈≠△✘"


def keyed_lines(nb) -> list[str]:
    """``cell i: line`` for every mark line of the stored outputs that shows a ledger key."""
    found = []
    for i, text in plain_outputs(nb):
        for line in map(str.strip, text.splitlines()):
            if line[:1] in MARKS and (KEY_SHAPED.search(line) or NAME_ALONE.search(line)
                                      or any(k in line for k in KEYS)):
                found.append(f"cell {i}: {line}")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_ledger_key_in_a_mark_line(path):
    found = keyed_lines(nbformat.read(path, as_version=4))
    assert not found, (f"{path.stem}: a line the reader sees shows the ledger key "
                       "(say what was checked in the chapter's words):\n" + "\n".join(found))


def test_the_check_fails_on_a_planted_key():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("ledger.claim('09_masks/exp_minus10', x)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                           text="✔ e⁻¹⁰: 4.5e-05  (글: 4.5e-5)\n")]
    nb.cells.append(cell)
    assert keyed_lines(nb) == []  # the key in the code is fine
    cell.outputs.append(nbformat.v4.new_output(
        "display_data", data={"text/plain": "✔ 09_masks/exp_minus10: 4.5e-05  (글: 4.5e-5)"}))
    assert keyed_lines(nb) == ["cell 0: ✔ 09_masks/exp_minus10: 4.5e-05  (글: 4.5e-5)"]
    assert keyed_lines(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        outputs=[nbformat.v4.new_output("stream", name="stdout", text="△ performance/new: 1\n")])]))
    assert keyed_lines(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        outputs=[nbformat.v4.new_output("stream", name="stdout",
                                        text="표:\n  ✔ 15_verify/lse_P — 최대 차이\n")])]))
    assert keyed_lines(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        outputs=[nbformat.v4.new_output("stream", name="stdout",
                                        text="✔ 「문장」: seed11_misses_cut 과 같은 검사\n")])]))
