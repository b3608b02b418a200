"""Explorers as library objects of explicit inputs: ``Thing(**inputs)(**values)``.

Each class here is what a chapter's explorer cell passes to :func:`attnlib.live.explorer`:
its inputs are numbers, strings and arrays (so the built page can carry them and the
browser rebuild the object, :mod:`attnlib.live`), and calling it with the control values
returns the frame the cell shows (a view and its line of text).  The figures themselves
are the ``View`` classes of :mod:`attnlib.plots` and the chapters' figure modules.
"""

from __future__ import annotations

from .. import numpy as A
from .. import plots

__all__ = ["ScoreSamples"]


class ScoreSamples:
    """Chapter 1: ``n_samples`` scores q·k drawn at ``d_k`` (seeded), their histogram
    against N(0, d_k) and, divided by √d_k, against N(0, 1); the text gives the std."""

    def __init__(self, *, n_samples: int = 2000, seed: int = 1):
        self.n_samples, self.seed = n_samples, seed
        self.view = plots.ScoreHistograms()

    def __call__(self, d_k: int):
        s = A.dot_product_samples(d_k, self.n_samples, seed=self.seed)
        text = f"d_k = {d_k}:  std = {s.std():.2f},  √d_k = {d_k**0.5:.2f}"
        return self.view(s=s, s_scaled=s / d_k**0.5, d_k=d_k), text
