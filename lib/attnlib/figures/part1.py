"""Figures of Part I, chapters 2–5 (drawing only: the numbers come from ``attnlib.numpy``)."""

from __future__ import annotations

import numpy as np

from .. import numpy as A
from .. import plots

__all__ = [
    "CollapseBars",
    "JacobianPanel",
    "JacobianCurves",
    "GammaFrame",
    "collapse_bars",
    "two_distributions",
    "jacobian_panel",
    "jacobian_curves",
    "training_curves",
    "drift_curves",
]

_SCALED, _RAW = plots.COLORS["sample"], plots.COLORS["theory"]


def _log_axis(ax, which="y", base=10):
    """A log axis with plain-text tick labels (see ``plots.plain_log_axis``)."""
    plots.plain_log_axis(ax, which, base)


def _stats(scores, alpha, d_k):
    """p and (max p, H, max|J|) of softmax(α s / sqrt(d_k)), from the backend."""
    s = np.asarray(scores, dtype=float)
    p = A.softmax(s * (alpha / d_k**0.5))
    st = A.multiplier_stats(s, [alpha], d_k=d_k)
    return p, float(st.max_p[0]), float(st.entropy[0]), float(st.jacobian_max[0])


def _bar_label(v: float) -> str:
    return f"{v:.3f}" if v >= 1e-3 else f"{v:.0e}"


def _prob_bars(ax, p, color):
    """Bars of p_j with the value over each bar; returns (bars, labels) to update in place."""
    m = len(p)
    bars = ax.bar(np.arange(1, m + 1), p, color=color, width=0.7)
    ax.axhline(1 / m, color=plots.COLORS["muted"], ls=":", lw=1, gid=f"균등 분포 1/{m}")
    ax.set_ylim(0, 1.12)
    ax.set_xticks(np.arange(1, m + 1))
    ax.set_xlabel("자리 j")
    ax.set_ylabel("$p_j$")
    ax.spines[["top", "right"]].set_visible(False)
    labels = [ax.text(i + 1, v + 0.02, _bar_label(v), ha="center", va="bottom", fontsize=9)
              for i, v in enumerate(p)]
    return list(bars), labels


def _set_prob_bars(bars, labels, p, color=None):
    for bar, label, v in zip(bars, labels, p, strict=True):
        bar.set_height(v)
        if color is not None:
            bar.set_color(color)
        label.set_y(v + 0.02)
        label.set_text(_bar_label(v))


class CollapseBars(plots.View):
    """Bars of p = softmax(α s/√d_k) with max p, entropy and max|J| written on the figure;
    ``view(alpha=α)`` moves to the multiplier α."""

    def __init__(self, scores, *, d_k=64):
        self.scores, self.d_k = np.asarray(scores, dtype=float), d_k
        fig, ax = plots.new_figure(4.8, 3)  # one panel: its text scales with it on a phone
        super().__init__(fig)
        m = len(self.scores)
        self.bars, self.labels = self.track(*_prob_bars(ax, np.full(m, 1 / m), _SCALED))
        self.log_m = float(A.entropy(np.full(m, 1 / m)))
        self.title = self.track(ax.set_title(" ", fontsize=10))
        self.box = self.track(ax.text(0.99, 0.97, "\n\n", transform=ax.transAxes, ha="right",
                                      va="top", fontsize=10,
                                      bbox=dict(boxstyle="round", fc="white",
                                                ec=plots.COLORS["muted"])))

    def update(self, alpha):
        p, max_p, H, J = _stats(self.scores, alpha, self.d_k)
        color = _SCALED if alpha <= 2 else (_RAW if alpha >= 8 else plots.COLORS["accent"])
        _set_prob_bars(self.bars, self.labels, p, color)
        self.title.set_text(f"배수 α = {alpha:g}  (α = 1: $\\sqrt{{d_k}}$ 로 나눔, α = 8: 안 나눔)")
        self.box.set_text(f"최대 p = {max_p:.4f}\n엔트로피 = {H:.3f}  (균등 {self.log_m:.3f})\n"
                          f"최대 |J| = {J:.2e}")


def collapse_bars(scores, alpha, *, d_k=64):
    """One frame of :class:`CollapseBars` as a plain figure."""
    return CollapseBars(scores, d_k=d_k)(alpha=alpha).fig


def two_distributions(scores, *, d_k=64):
    """The six scores divided by √d_k (left) and undivided (right), p on a log axis."""
    fig, axes = plots.new_figure(7.6, 3, ncols=2, sharey=True)
    for ax, alpha, color, title in [(axes[0], 1, _SCALED, r"$\sqrt{d_k}$ 로 나눈 점수"),
                                    (axes[1], d_k**0.5, _RAW, "나누지 않은 점수")]:
        p, max_p, H, _ = _stats(scores, alpha, d_k)
        m = len(p)
        ax.bar(np.arange(1, m + 1), p, color=color, width=0.7)
        _log_axis(ax)
        ax.set_ylim(1e-8, 2)
        ax.axhline(1e-6, color=plots.COLORS["muted"], ls=":", lw=1, gid="백만분의 일")
        ax.set_xticks(np.arange(1, m + 1))
        ax.set_xlabel("자리 j")
        ax.set_title(f"{title}: 최대 p {max_p:.4f}, 엔트로피 {H:.4f}", fontsize=10)
        ax.spines[["top", "right"]].set_visible(False)
    axes[0].set_ylabel("$p_j$ (로그 축)")
    return fig


def _jacobian_cell(v: float) -> str:
    return "0" if abs(v) < 0.005 else f"{v:+.2f}".replace("-", "−")


class JacobianPanel(plots.View):
    """Bars of p beside the heatmap of J = diag(p) − p pᵀ on a fixed colour scale ±0.25;
    ``view(alpha=α)`` moves to the multiplier α."""

    def __init__(self, scores, *, d_k=64):
        self.scores, self.d_k = np.asarray(scores, dtype=float), d_k
        m = len(self.scores)
        fig, (ax_p, ax_j) = plots.new_figure(7.6, 3.4, ncols=2, width_ratios=[1, 1.25])
        super().__init__(fig)
        self.bars, self.labels = self.track(*_prob_bars(ax_p, np.full(m, 1 / m), _SCALED))
        self.title_p = self.track(ax_p.set_title(" ", fontsize=10))
        self.image = self.track(ax_j.imshow(np.zeros((m, m)), cmap="RdBu_r",
                                            vmin=-0.25, vmax=0.25))
        self.cells = self.track(plots.CellLabels(ax_j, (m, m), fontsize=8))
        ax_j.set_xticks(range(m), [str(j + 1) for j in range(m)])
        ax_j.set_yticks(range(m), [str(i + 1) for i in range(m)])
        ax_j.set_xlabel("j")
        ax_j.set_ylabel("i")
        # the formula is static (mathtext is parsed once); only the number on the right moves
        ax_j.set_title(r"$J_{ij} = p_i(\delta_{ij} - p_j)$", fontsize=10, loc="left")
        self.title_j = self.track(ax_j.set_title(" ", fontsize=10, loc="right"))
        fig.colorbar(self.image, ax=ax_j, shrink=0.85)

    def update(self, alpha):
        p, max_p, _, J_max = _stats(self.scores, alpha, self.d_k)
        J = A.softmax_jacobian(p)
        _set_prob_bars(self.bars, self.labels, p)
        self.title_p.set_text(f"α = {alpha:g}: 최대 p = {max_p:.4f}")
        self.image.set_data(J)
        self.cells.texts = [_jacobian_cell(v) for v in J.ravel()]
        self.cells.colors = plots.text_colors(self.image, J)
        self.title_j.set_text(f"최대 |J| = {J_max:.2e}")


def jacobian_panel(scores, alpha, *, d_k=64):
    """One frame of :class:`JacobianPanel` as a plain figure."""
    return JacobianPanel(scores, d_k=d_k)(alpha=alpha).fig


class JacobianCurves(plots.View):
    """max|J| and entropy against the multiplier α (log axis); ``view(alpha=α)`` puts a dot
    at α and its numbers in the titles.

    ``alphas``: the grid of the curves; ``peak``: the α where max|J| = 1/4 (dashed green);
    ``marks``: pairs (α, label) drawn as grey vertical lines.
    """

    def __init__(self, scores, alphas, *, d_k=64, peak=None, marks=()):
        self.scores, self.d_k = np.asarray(scores, dtype=float), d_k
        alphas = np.asarray(alphas, dtype=float)
        stats = A.multiplier_stats(self.scores, alphas, d_k=d_k)
        fig, (ax_j, ax_h) = plots.new_figure(7.6, 3, ncols=2, sharex=True)
        super().__init__(fig)
        ax_j.plot(alphas, stats.jacobian_max, color=_RAW)
        ax_j.axhline(0.25, color=plots.COLORS["muted"], ls=":", lw=1, gid="꼭대기 1/4")
        ax_j.text(alphas.min(), 0.25, "1/4", ha="left", va="bottom", fontsize=9,
                  color=plots.COLORS["muted"])
        ax_j.set_ylabel("최대 |J|")
        ax_j.set_ylim(0, 0.27)
        ax_h.plot(alphas, stats.entropy, color=_SCALED)
        ax_h.set_ylabel("엔트로피")
        ax_h.set_ylim(0, 1.9)
        for ax in (ax_j, ax_h):
            _log_axis(ax, "x", base=2)
            ax.set_xlabel("배수 α (로그 축)")
            ax.spines[["top", "right"]].set_visible(False)
            # a few points beside its line (x in data, y in axes fraction), α*'s label to the
            # left and above the x axis, the marks' to the right (clear of the falling curve)
            # on a white ground where the dotted 1/4 passes: no line strikes a label through
            if peak is not None:
                ax.axvline(peak, color=plots.COLORS["accent"], ls="--", lw=1, gid="꼭대기 α*")
                ax.annotate(f"α* = {peak:.3f}", (peak, 0), xycoords=ax.get_xaxis_transform(),
                            xytext=(-3, 4), textcoords="offset points", rotation=90,
                            ha="right", va="bottom", fontsize=9, color=plots.COLORS["accent"])
            for a, label in marks:
                ax.axvline(a, color=plots.COLORS["muted"], ls="--", lw=1, gid=label)
                ax.annotate(label, (a, 1), xycoords=ax.get_xaxis_transform(), xytext=(3, -2),
                            textcoords="offset points", rotation=90, ha="left", va="top",
                            fontsize=9, bbox={"boxstyle": "square,pad=0.1", "fc": "white",
                                              "ec": "none"})
        ax_j.set_xlim(alphas.min() / 1.15, alphas.max() * 1.15)  # room for the dot at either end
        self.dot_j, = self.track(ax_j.plot([], [], "o", color="black"))
        self.dot_h, = self.track(ax_h.plot([], [], "o", color="black"))
        self.title_j = self.track(ax_j.set_title(" ", fontsize=10))
        self.title_h = self.track(ax_h.set_title(" ", fontsize=10))

    def update(self, alpha):
        _, max_p, H, J = _stats(self.scores, alpha, self.d_k)
        self.dot_j.set_data([alpha], [J])
        self.dot_h.set_data([alpha], [H])
        self.title_j.set_text(f"α = {alpha:.3g}: 최대 |J| = {J:.2e}")
        self.title_h.set_text(f"엔트로피 = {H:.4f}, 최대 p = {max_p:.4f}")


def jacobian_curves(scores, alphas, *, d_k=64, marker=None, peak=None, marks=()):
    """:class:`JacobianCurves` as a plain figure, with the dot at α = ``marker`` (or none)."""
    view = JacobianCurves(scores, alphas, d_k=d_k, peak=peak, marks=marks)
    if marker is not None:
        view.update(alpha=marker)
    return view.fig


def training_curves(runs):
    """Loss, p_target and ‖∂L/∂q‖ (log) against the step; ``runs`` maps a label to a History."""
    fig, axes = plots.new_figure(7.6, 3, ncols=3, sharex=True)
    colors = [_SCALED, _RAW, plots.COLORS["accent"], plots.COLORS["muted"]]
    for (label, h), color in zip(runs.items(), colors, strict=False):
        steps = np.arange(len(h.loss))
        axes[0].plot(steps, h.loss, color=color, label=label)
        # labelled in every panel (the legend is the first one's): the alt text names each line
        axes[1].plot(steps, h.p_target, color=color, label=label)
        axes[2].plot(steps, np.asarray(h.grad_norm) + 1e-300, color=color, label=label)
    axes[0].set_ylabel("손실 L")
    axes[1].set_ylabel("목표 자리의 확률 $p_4$")
    axes[2].set_ylabel(r"$\|\partial L/\partial q\|$")
    _log_axis(axes[2])
    axes[0].legend(frameon=False, fontsize=9)
    for ax in axes:
        ax.set_xlabel("걸음")
        ax.spines[["top", "right"]].set_visible(False)
    return fig


class GammaFrame(plots.View):
    """Loss and max p against the step for scores ÷ d_k^γ, with the γ = 1/2 run of the same seed in
    grey (labelled in both legends: its loss on the left, its p_target on the right); ``runs``
    maps ``(γ, seed)`` to a History, ``view(gamma=γ, seed=s)`` shows one run.

    The loss axis fits every run of the shown seed, so runs can be compared as γ moves; a new
    seed rescales it (the loss y axis is a tracked artist, redrawn with the curves).
    """

    def __init__(self, runs, *, d_k=64, reference_gamma=0.5):
        self.runs, self.d_k, self.ref = runs, d_k, reference_gamma
        fig, (ax_l, ax_p) = plots.new_figure(7, 3, ncols=2, sharex=True)
        super().__init__(fig)
        steps = np.arange(len(next(iter(runs.values())).loss))
        self.ylim = {}
        for seed in {seed for _, seed in runs}:
            loss = np.concatenate([np.asarray(h.loss, dtype=float)
                                   for (_, s), h in runs.items() if s == seed])
            pad = 0.05 * (loss.max() - loss.min())
            self.ylim[seed] = (loss.min() - pad, loss.max() + pad)
        self.ax_l = ax_l
        ax_l.set_xlim(steps[0], steps[-1])
        grey = dict(color=plots.COLORS["muted"], lw=1)
        self.ref_loss, = ax_l.plot(steps, steps * np.nan, label=f"γ = {reference_gamma:g}", **grey)
        self.ref_p, = ax_p.plot(steps, steps * np.nan, label=f"γ = {reference_gamma:g} 의 $p_4$",
                                **grey)
        self.loss, = ax_l.plot(steps, steps * np.nan, color=_RAW, label="γ")
        self.max_p, = ax_p.plot(steps, steps * np.nan, color=_RAW, label="최대 p")
        self.p_target, = ax_p.plot(steps, steps * np.nan, color=_SCALED, ls="--",
                                   label="목표 자리 $p_4$")
        ax_l.set_ylabel("손실 L")
        self.legend = ax_l.legend(frameon=False, fontsize=8)
        ax_p.set_ylim(-0.03, 1.05)
        ax_p.legend(frameon=False, fontsize=8, loc="center right")
        for ax in (ax_l, ax_p):
            ax.set_xlabel("걸음")
            ax.spines[["top", "right"]].set_visible(False)
        # a title per panel (no suptitle over both: on a phone the panels stack)
        self.title = ax_l.set_title(" ", fontsize=9)
        self.title_p = ax_p.set_title(" ", fontsize=9)
        self.track(self.ref_loss, self.ref_p, self.loss, self.max_p, self.p_target,
                   self.legend, self.title, self.title_p, ax_l.yaxis)

    def update(self, gamma, seed):
        h, ref = self.runs[gamma, seed], self.runs[self.ref, seed]
        self.ax_l.set_ylim(*self.ylim[seed])
        self.ref_loss.set_ydata(ref.loss)
        self.ref_p.set_ydata(ref.p_target)
        self.loss.set_ydata(h.loss)
        self.max_p.set_ydata(h.max_p)
        self.p_target.set_ydata(h.p_target)
        self.legend.get_texts()[1].set_text(f"γ = {gamma:g}")
        self.loss.set_label(f"γ = {gamma:g}")  # what the alt text names the line
        self.title.set_text(f"점수 ÷ {self.d_k**gamma:.3g}, 시드 {seed}: "
                            f"마지막 손실 {float(h.loss[-1]):.4f}")
        self.title_p.set_text(f"마지막 최대 p {float(h.max_p[-1]):.4f}")
        self.fig.alt = (f"점수를 d_k^γ = {self.d_k**gamma:.3g} 로 나눈 학습 "
                        f"(γ = {gamma:g}, 시드 {seed})")


def drift_curves(runs):
    """Var(S) on held-out tokens and ‖W‖/‖W₀‖ against the step; ``runs``: label → DriftHistory."""
    fig, (ax_v, ax_w) = plots.new_figure(7.6, 3, ncols=2, sharex=True)
    colors = [_SCALED, _RAW, plots.COLORS["accent"], plots.COLORS["muted"]]
    for (label, h), color in zip(runs.items(), colors, strict=False):
        ax_v.plot(h.step, h.score_var, color=color, label=label)
        ax_w.plot(h.step, h.weight_growth, color=color, label=label)
    ax_v.axhline(1, color=plots.COLORS["muted"], ls=":", lw=1, label="Var = 1")
    ax_v.set_ylabel("softmax 에 들어가는 점수의 분산")
    ax_w.set_ylabel(r"$\|W\| / \|W_0\|$")
    ax_v.legend(frameon=False, fontsize=8, loc="upper left")
    for ax in (ax_v, ax_w):
        ax.set_xlabel("걸음")
        ax.spines[["top", "right"]].set_visible(False)
    return fig
