"""Figures of Part II, second half (chapters 11–16): drawing only; the numbers come from attnlib."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..plots import COLORS, View, new_figure, plain_log_axis, static

__all__ = ["static", "GradcheckView", "ScaleView", "row_peaks", "monitor_curves", "StackView",
           "depth_scaling"]

_GRADS = (r"$\partial L/\partial Q$", r"$\partial L/\partial K$", r"$\partial L/\partial V$")
_TRIO = (COLORS["sample"], COLORS["theory"], COLORS["accent"])


def _log_y(ax):
    """Log y axis with plain-text labels (1e-06, 0.5, 20): see ``plots.plain_log_axis``."""
    plain_log_axis(ax, "y")


def _log2_x(ax, ticks):
    """Log₂ x axis with ticks at the given values, labelled 0.25, 1, 4, ..."""
    plain_log_axis(ax, "x", 2, ticks)


class GradcheckView(View):
    """Left: worst relative error of each gradient (log scale); right: ‖dK‖ true vs implemented.
    ``frames[d_k, bug] = (errors, dK_norms)``; ``view(d_k=..., bug=...)`` shows one."""

    ROUNDOFF = 1e-8  # a passing check's error: central differences' own, shown as a bound

    def __init__(self, frames, *, threshold=1e-6):
        self.frames, self.threshold = frames, threshold
        fig, (ax, bx) = new_figure(6.4, 2.9, ncols=2, gridspec_kw={"width_ratios": [3, 2]})
        super().__init__(fig)
        self.bars = self.track(ax.bar(_GRADS, [1.0] * 3))
        _log_y(ax)
        ax.set_ylim(1e-13, 3)
        ax.axhline(threshold, color=COLORS["muted"], ls="--", lw=1, gid="통과 기준")
        ax.text(2.45, threshold * 1.6, "통과 기준", ha="right", fontsize=8, color=COLORS["muted"])
        self.labels = [self.track(ax.text(b.get_x() + b.get_width() / 2, 1.0, "", ha="center",
                                          fontsize=8)) for b in self.bars]
        self.title = self.track(ax.set_title(" ", fontsize=10))
        ax.set_ylabel("최대 상대오차")
        self.dK_bars = self.track(bx.bar(["참값", "구현"], [0.0, 0.0], color=COLORS["muted"]))
        bx.set_title(r"$\Vert\partial L/\partial K\Vert$", fontsize=10)
        self.bx = self.track(bx.yaxis).axes  # the ‖dK‖ axis follows each frame's true norm
        for a in (ax, bx):
            a.spines[["top", "right"]].set_visible(False)

    def update(self, d_k, bug):
        errors, dK_norms = self.frames[d_k, bug]
        errors = np.maximum(np.asarray(errors, dtype=float), 1e-16)
        for b, label, e in zip(self.bars, self.labels, errors, strict=True):
            b.set_height(e)
            b.set_color(COLORS["theory"] if e > self.threshold else COLORS["accent"])
            label.set_y(e * 1.5)
            label.set_text(f"{e:.1e}" if e >= self.ROUNDOFF else f"< {self.ROUNDOFF:.0e}")
        self.title.set_text(f"기울기 검사 ($d_k$ = {d_k}, 버그 {'켬' if bug else '끔'})")
        for b, h in zip(self.dK_bars, dK_norms, strict=True):
            b.set_height(h)
        self.dK_bars[1].set_color(COLORS["theory"] if bug else COLORS["accent"])
        self.bx.set_ylim(0, 1.25 * max(dK_norms))


class ScaleView(View):
    """P and Δ as heat maps at multiplier α, and ‖dQ‖, ‖dK‖, ‖dV‖ over all multipliers;
    ``parts[α]`` has ``.P`` and ``.delta``; ``view(alpha=α)`` moves the marker to α."""

    def __init__(self, alphas, parts, norms):
        self.parts = parts
        delta_lim = max(np.abs(p.delta).max() for p in parts.values())  # one colour scale
        fig, (a0, a1, a2) = new_figure(7.2, 2.7, ncols=3, gridspec_kw={"width_ratios": [1, 1, 1.3]})
        super().__init__(fig)
        shape = next(iter(parts.values())).P.shape  # (n, m)
        self.P_img = self.track(a0.imshow(np.zeros(shape), cmap="Blues", vmin=0, vmax=1,
                                          aspect="auto"))
        self.delta_img = self.track(a1.imshow(np.zeros(shape), cmap="RdBu_r", vmin=-delta_lim,
                                              vmax=delta_lim, aspect="auto"))
        self.P_title = self.track(a0.set_title(" ", fontsize=10))
        self.delta_title = self.track(a1.set_title(" ", fontsize=10))
        for ax in (a0, a1):
            ax.set_xlabel("키 j")
            ax.set_ylabel("질의 i")
            ax.set_xticks([])
            ax.set_yticks([])
        for values, label, color in zip(norms, _GRADS, _TRIO, strict=True):
            a2.plot(alphas, values, "o-", ms=3, color=color, label=label)
        self.marker = self.track(a2.axvline(alphas[0], color=COLORS["muted"], lw=1))
        _log2_x(a2, alphas[::2])
        _log_y(a2)
        a2.set_xlabel("배수 α")
        a2.set_title("기울기의 크기", fontsize=10)
        a2.legend(frameon=False, fontsize=8, loc="lower left")
        a2.spines[["top", "right"]].set_visible(False)

    def update(self, alpha):
        p = self.parts[alpha]
        self.P_img.set_data(p.P)
        self.delta_img.set_data(p.delta)
        self.P_title.set_text(f"P (α = {alpha:g})")
        self.delta_title.set_text(f"Δ (최대 |Δ| = {np.abs(p.delta).max():.1e})")
        self.marker.set_xdata([alpha, alpha])


def row_peaks(alphas, dQ_rows, max_p_rows, total):
    """Per query row: ‖(∂L/∂Q)_i‖ and max_j P_ij over the multiplier α; ``total`` = ‖∂L/∂Q‖."""
    fig, (ax, bx) = new_figure(6.4, 2.8, ncols=2)
    dQ_rows, max_p_rows = np.asarray(dQ_rows), np.asarray(max_p_rows)
    for i in range(dQ_rows.shape[1]):
        ax.plot(alphas, dQ_rows[:, i], "o-", ms=3, label=f"행 {i}")
        bx.plot(alphas, max_p_rows[:, i], "o-", ms=3, label=f"행 {i}")
    ax.plot(alphas, total, "k--", lw=1.2, label="전체")
    for a in (ax, bx):
        _log2_x(a, alphas[::2])
        a.set_xlabel("배수 α")
        a.spines[["top", "right"]].set_visible(False)
    _log_y(ax)
    ax.set_title(r"행별 $\Vert(\partial L/\partial Q)_i\Vert$", fontsize=10)
    ax.legend(frameon=False, fontsize=8)
    bx.set_title("행별 최대 P", fontsize=10)
    return fig


def monitor_curves(healthy, collapsed, *, head):
    """Loss of both runs (left) and each head's normalized entropy in the collapsed run (right)."""
    fig, (ax, bx) = new_figure(6.4, 2.8, ncols=2)
    steps = np.arange(len(healthy.loss))
    ax.plot(steps, healthy.loss, color=COLORS["sample"], label="모든 헤드 정상")
    ax.plot(steps, collapsed.loss, color=COLORS["theory"], label=f"헤드 {head} 붕괴")
    ax.set_ylim(bottom=0)
    ax.set_title("손실", fontsize=10)
    ax.legend(frameon=False, fontsize=8)
    H = np.asarray(collapsed.entropy)
    others = [h for h in range(H.shape[1]) if h != head]
    for h in range(H.shape[1]):
        label = (f"헤드 {head}" if h == head
                 else "다른 헤드" if h == others[0] else None)  # one entry for the grey curves
        bx.plot(steps, H[:, h], color=COLORS["theory"] if h == head else COLORS["muted"],
                lw=2 if h == head else 1, label=label)
    bx.set_ylim(0, 1.05)
    bx.set_title("H(P)/log m (붕괴한 실행)", fontsize=10)
    bx.legend(frameon=False, fontsize=8)
    for a in (ax, bx):
        a.set_xlabel("걸음")
        a.spines[["top", "right"]].set_visible(False)
    return fig


class StackView(View):
    """‖∂L/∂x_l‖ at each layer l of a stack of depth N, pre-LN and post-LN (log scale);
    ``frames[depth, alpha] = (pre, post)``; ``view(depth=N, alpha=α)`` shows one."""

    def __init__(self, frames):
        self.frames = frames
        fig, ax = new_figure(5.0, 2.8)  # one panel: its text scales with it on a phone
        super().__init__(fig)
        self.pre, = self.track(ax.plot([], [], "o-", ms=3, color=COLORS["sample"],
                                       label="pre-LN"))
        self.post, = self.track(ax.plot([], [], "o-", ms=3, color=COLORS["theory"],
                                        label="post-LN"))
        _log_y(ax)
        # y fits every frame (sizes compare across depths and α); x follows the depth, so
        # the x axis is a tracked artist, redrawn with the curves
        values = np.concatenate([np.concatenate(f) for f in frames.values()])
        ax.set_ylim(values.min() / 1.3, values.max() * 1.3)
        self.ax = self.track(ax.xaxis).axes
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # layers are whole numbers
        ax.set_xlabel("층 l (0 = 입력, N = 출력)")
        ax.set_ylabel(r"$\Vert\partial L/\partial x_l\Vert$")
        self.title = self.track(ax.set_title(" ", fontsize=10))
        ax.legend(frameon=False, fontsize=10, loc="upper right")
        ax.spines[["top", "right"]].set_visible(False)

    def update(self, depth, alpha):
        pre, post = self.frames[depth, alpha]
        layers = np.arange(len(pre))
        self.pre.set_data(layers, pre)
        self.post.set_data(layers, post)
        self.title.set_text(f"깊이 N = {len(pre) - 1}, 배수 α = {alpha:g}")
        self.ax.set_xlim(-0.02 * layers[-1], 1.02 * layers[-1])


def depth_scaling(depths, pre_ratio, post_ratio):
    """‖∂L/∂x_0‖ / ‖∂L/∂x_N‖ against the depth N, pre-LN and post-LN; y ticks at powers of 2."""
    fig, ax = new_figure(5.0, 2.8)
    ax.plot(depths, pre_ratio, "o-", color=COLORS["sample"], label="pre-LN")
    ax.plot(depths, post_ratio, "o-", color=COLORS["theory"], label="post-LN")
    ax.axhline(1, color=COLORS["muted"], lw=1, ls="--")
    _log2_x(ax, depths)
    ratios = np.concatenate([pre_ratio, post_ratio, [1.0]])
    lo, hi = np.floor(np.log2(ratios.min())), np.ceil(np.log2(ratios.max()))
    plain_log_axis(ax, "y", ticks=2.0 ** np.arange(lo, hi + 1))  # several ticks, not one decade
    ax.set_xlabel("깊이 N")
    ax.set_ylabel("입력 / 출력 기울기 크기")
    ax.legend(frameon=False, fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    return fig
