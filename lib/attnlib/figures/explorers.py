"""Explorers as library objects of explicit inputs: ``Thing(**inputs)(**values)``.

Each class here is what a chapter's explorer cell passes to :func:`attnlib.live.explorer`:
its inputs are numbers, strings and arrays (so the built page can carry them and the
browser rebuild the object, :mod:`attnlib.live`), and calling it with the control values
returns the frame the cell shows (a view and its line of text).  The figures themselves
are the ``View`` classes of :mod:`attnlib.plots` and the chapters' figure modules.
"""

from __future__ import annotations

import math

from .. import numpy as A
from .. import plots
from . import part2a, part2b
from .part1 import GammaFrame

__all__ = ["ScoreSamples", "GammaRuns", "MaskFill", "GradcheckFrames", "ScaleSweep",
           "StackFrames"]


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


class GammaRuns(GammaFrame):
    """Chapter 4: :class:`GammaFrame` over runs it trains itself, ``train_single_query(gamma,
    seed)`` for every listed γ and seed; a γ off the list (live in the book) is trained when
    first shown."""

    def __init__(self, *, gammas, seeds, d_k: int = 64, reference_gamma: float = 0.5):
        runs = {(g, s): A.train_single_query(gamma=g, seed=s) for g in gammas for s in seeds}
        super().__init__(runs, d_k=d_k, reference_gamma=reference_gamma)

    def update(self, gamma, seed):
        if (gamma, seed) not in self.runs:
            self.runs[gamma, seed] = A.train_single_query(gamma=gamma, seed=seed)
        super().update(gamma, seed)


class MaskFill:
    """Chapter 9: :class:`part2a.MaskFillView` with the chapter's Korean names for the two
    ways of masking (replace the score, or add to it); a frame is the view and its text."""

    HOW = {"바꿔 넣기": "replace", "더하기": "add"}

    def __init__(self, *, S0, G, V, hidden):
        self.view = part2a.MaskFillView(S0, G, V, hidden)

    def __call__(self, fill, dtype, how):
        return self.view(fill=fill, dtype=dtype, how=self.HOW[how]), self.view.text


class GradcheckFrames:
    """Chapter 11: :class:`part2b.GradcheckView` over ``frames[d_k, bug] = (errors, dK_norms)``
    and the ratio of the two ‖dK‖."""

    def __init__(self, *, frames):
        self.frames = frames
        self.view = part2b.GradcheckView(frames)

    def __call__(self, d_k, bug):
        dK_norms = self.frames[d_k, bug][1]
        text = (f"d_k = {d_k}: ‖dK 구현‖ / ‖dK 참값‖ = "
                f"{dK_norms[1] / dK_norms[0]:.3f}")
        return self.view(d_k=d_k, bug=bug), text


class ScaleSweep:
    """Chapter 13: the backward of one small layer at each multiplier α of the scale
    (``scale = α/√d_k``): P's peak and ‖dQ‖, ‖dK‖, ‖dV‖, shown by :class:`part2b.ScaleView`."""

    def __init__(self, *, G, Q, K, V, alphas):
        d_k = Q.shape[-1]
        self.alphas = list(alphas)
        self.sweep = A.multiplier_grad_norms(G, Q, K, V, self.alphas)
        parts = {a: A.attention_backward_parts(G, Q, K, V, scale=a / math.sqrt(d_k))
                 for a in self.alphas}
        self.view = part2b.ScaleView(self.alphas, parts,
                                     (self.sweep.dQ, self.sweep.dK, self.sweep.dV))

    def __call__(self, alpha):
        k, sweep = self.alphas.index(alpha), self.sweep
        text = (f"α = {alpha:g}: 최대 P {sweep.max_p[k]:.3f}, "
                f"‖dQ‖ {sweep.dQ[k]:.3g}, "
                f"‖dK‖ {sweep.dK[k]:.3g}, ‖dV‖ {sweep.dV[k]:.3g}")
        return self.view(alpha=alpha), text


class StackFrames:
    """Chapter 14: :class:`part2b.StackView` over ``frames[depth, α] = (pre-LN, post-LN)``
    gradient norms per layer, and the ratio of the input's to the output's."""

    def __init__(self, *, frames):
        self.frames = frames
        self.view = part2b.StackView(frames)

    def __call__(self, depth, alpha):
        pre, post = self.frames[depth, alpha]
        text = (f"N = {depth}, α = {alpha:g}: 입력/출력 기울기 비  "
                f"pre-LN {pre[0] / pre[-1]:.3g}, "
                f"post-LN {post[0] / post[-1]:.3g}")
        return self.view(depth=depth, alpha=alpha), text
