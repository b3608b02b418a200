"""The book's own conclusions, held by its build: the second kind of ledger entry.

:mod:`attnlib.claims` lists what the two articles print; this package lists what the book itself
concludes from its own data — a trend, a comparison, an "only" or "always", the step or threshold
at which something happens, a cause.  Each entry quotes the sentence as the chapter writes it
(``text``, a verbatim fragment of one markdown cell of the chapter the key's prefix names) and
says in a few words what its cell computes (``check``).  The chapter's cell computes the
condition and calls :func:`attnlib.ledger.holds`, which prints one ✔ line and raises a
:class:`~attnlib.ledger.ClaimError` quoting the sentence when the data stops supporting it, so a
seed, a library change or another CPU that breaks a sentence stops the build.

``tests/book/test_sentences.py`` ties the registry to the chapters: every ``text`` appears in its
chapter, every key is held by exactly one code cell there, every ``holds`` call names a
registered key, and every bullet of a 「정리」 section in :data:`SUMMARIZED` quotes a registered
sentence.  The ledger page lists them in a table of their own.

The entries live in one module per part (``part1``, ``part2``, ``part3``, ``appendix``) so
that the parts can be edited independently.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Sentence", "SENTENCES", "SUMMARIZED", "sentence"]


@dataclass(frozen=True)
class Sentence:
    key: str  # "<chapter stem>/<name>", like the article claims
    text: str  # the sentence (or its deciding clause) exactly as the chapter writes it
    check: str  # what the cell computes to hold it, in a few words


def sentence(key: str, text: str, check: str) -> Sentence:
    return Sentence(key, " ".join(text.split()), check)


# Chapters whose every 「정리」 bullet must quote a registered sentence (the test enforces it).
SUMMARIZED: tuple[str, ...] = (
    "01_variance", "02_collapse", "03_jacobian", "04_experiment", "05_devices",
    "06_shapes", "07_batch_heads", "08_row_rule", "09_masks", "10_dropout", "11_dq_dk",
    "12_row_sum", "13_peaked", "14_residual", "15_verify", "16_closing",
    "17_online_softmax", "18_blockwise_backward", "19_memory", "performance",
)


def _collect() -> dict[str, Sentence]:
    from . import appendix, part1, part2, part3

    found: dict[str, Sentence] = {}
    for module in (part1, part2, part3, appendix):
        for s in module.SENTENCES:
            if s.key in found:
                raise ValueError(f"key: {s.key!r} is registered twice")
            found[s.key] = s
    return found


SENTENCES: dict[str, Sentence] = _collect()
