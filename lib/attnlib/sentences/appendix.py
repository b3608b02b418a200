"""The book's own sentences held by its build: appendix (see :mod:`attnlib.sentences`)."""

from __future__ import annotations

from . import sentence as _s  # noqa: F401  (the parts add their sentences with _s)

SENTENCES = [
]
