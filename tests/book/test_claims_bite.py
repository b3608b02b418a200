"""The ledger keeps its teeth in the chapters themselves.

A chapter is run (its cells up to a claim) with one line changed, as a reader or a careless
edit might change it: a different random seed, a scale applied the wrong way.  The claim's
cell must then fail with a ClaimError that names the claim, so the book build stops there.
The same holds for the book's own sentences (``ledger.holds``): the error quotes the sentence.
Round-off claims are printed as bounds, but a computation that changed still fails them.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]

CASES = [
    # (notebook, line as committed, line as changed, the claim that must fail)
    ("chapters/part2/09_masks.ipynb", "rng = np.random.default_rng(1)",
     "rng = np.random.default_rng(3)", "09_masks/leak_10"),
    ("chapters/part2/07_batch_heads.ipynb",
     "dQ = np.einsum('bhij,bhjd->bhid', delta, K) / np.sqrt(d_k)",
     "dQ = np.einsum('bhij,bhjd->bhid', delta, K) / d_k", "07_batch_heads/head_vs_2d"),
    # a sentence of the book (attnlib.sentences), not an article's number: with another seed
    # the run does not freeze at step 11, and the build stops quoting the sentence
    ("chapters/part1/04_experiment.ipynb",
     "B.train_single_query(scaled=scaled, autograd=B is T)",
     "B.train_single_query(scaled=scaled, autograd=B is T, seed=1)",
     "04_experiment/freeze_step"),
]


def _up_to_claim(path: Path, old: str, new: str, key: str):
    nb = nbformat.read(path, as_version=4)
    changed = [c for c in nb.cells if c.cell_type == "code" and old in c.source]
    assert len(changed) == 1, f"{path.name}: the line {old!r} is not in exactly one cell"
    changed[0].source = changed[0].source.replace(old, new)
    last = next(i for i, c in enumerate(nb.cells)
                if c.cell_type == "code" and f'"{key}"' in c.source)
    nb.cells = nb.cells[: last + 1]
    return nb


@pytest.mark.parametrize(("notebook", "old", "new", "key"), CASES,
                         ids=[case[3] for case in CASES])
def test_a_changed_chapter_fails_naming_the_claim(notebook, old, new, key):
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = ROOT / notebook
    nb = _up_to_claim(path, old, new, key)
    client = NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    with pytest.raises(CellExecutionError) as failed:
        client.execute()
    message = str(failed.value)
    assert "ClaimError" in message and key in message, message[-2000:]
    from attnlib.sentences import SENTENCES

    if key in SENTENCES:  # a sentence of the book: the error quotes it
        assert SENTENCES[key].text in message, message[-2000:]


@pytest.mark.parametrize(("notebook", "old", "new", "key"), CASES,
                         ids=[case[3] for case in CASES])
def test_the_committed_chapter_passes_that_claim(notebook, old, new, key):
    """The unchanged cells do pass (so the failure above is the change's doing)."""
    from nbclient import NotebookClient

    path = ROOT / notebook
    nb = _up_to_claim(path, old, old, key)
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
