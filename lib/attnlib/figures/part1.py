"""Figures of Part I, chapters 2–5 (drawing only: the numbers come from ``attnlib.numpy``)."""

from __future__ import annotations

import numpy as np

from .. import numpy as A
from .. import plots

__all__ = [
    "collapse_bars",
    "two_distributions",
    "jacobian_panel",
    "jacobian_curves",
    "training_curves",
    "gamma_frame",
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


def _label_bars(ax, p):
    for i, v in enumerate(p):
        text = f"{v:.3f}" if v >= 1e-3 else f"{v:.0e}"
        ax.text(i + 1, v + 0.02, text, ha="center", va="bottom", fontsize=8)


def _prob_bars(ax, p, color):
    m = len(p)
    ax.bar(np.arange(1, m + 1), p, color=color, width=0.7)
    ax.axhline(1 / m, color=plots.COLORS["muted"], ls=":", lw=1)
    ax.set_ylim(0, 1.12)
    ax.set_xticks(np.arange(1, m + 1))
    ax.set_xlabel("자리 j")
    ax.set_ylabel("$p_j$")
    ax.spines[["top", "right"]].set_visible(False)
    _label_bars(ax, p)


def collapse_bars(scores, alpha, *, d_k=64):
    """Bars of p = softmax(α s/√d_k) with max p, entropy and max|J| written on the figure."""
    p, max_p, H, J = _stats(scores, alpha, d_k)
    fig, ax = plots.new_figure(6, 3)
    color = _SCALED if alpha <= 2 else (_RAW if alpha >= 8 else plots.COLORS["accent"])
    _prob_bars(ax, p, color)
    log_m = float(A.entropy(np.full(len(p), 1 / len(p))))
    ax.set_title(f"배수 α = {alpha:g}  (α = 1: √d_k 로 나눔, α = 8: 나누지 않음)", fontsize=10)
    ax.text(0.99, 0.97, f"최대 p = {max_p:.4f}\n엔트로피 = {H:.3f}  (균등 {log_m:.3f})\n"
            f"최대 |J| = {J:.2e}", transform=ax.transAxes, ha="right", va="top", fontsize=9,
            bbox=dict(boxstyle="round", fc="white", ec=plots.COLORS["muted"]))
    return fig


def two_distributions(scores, *, d_k=64):
    """The six scores divided by √d_k (left) and undivided (right), p on a log axis."""
    fig, axes = plots.new_figure(8, 3, ncols=2, sharey=True)
    for ax, alpha, color, title in [(axes[0], 1, _SCALED, "√d_k 로 나눈 점수"),
                                    (axes[1], d_k**0.5, _RAW, "나누지 않은 점수")]:
        p, max_p, H, _ = _stats(scores, alpha, d_k)
        m = len(p)
        ax.bar(np.arange(1, m + 1), p, color=color, width=0.7)
        _log_axis(ax)
        ax.set_ylim(1e-8, 2)
        ax.axhline(1e-6, color=plots.COLORS["muted"], ls=":", lw=1)
        ax.set_xticks(np.arange(1, m + 1))
        ax.set_xlabel("자리 j")
        ax.set_title(f"{title}: 최대 p {max_p:.4f}, 엔트로피 {H:.4f}", fontsize=10)
        ax.spines[["top", "right"]].set_visible(False)
    axes[0].set_ylabel("$p_j$ (로그 축)")
    return fig


def jacobian_panel(scores, alpha, *, d_k=64):
    """Bars of p beside the heatmap of J = diag(p) − p pᵀ on a fixed colour scale ±0.25."""
    p, max_p, _, J_max = _stats(scores, alpha, d_k)
    J = A.softmax_jacobian(p)
    fig, (ax_p, ax_j) = plots.new_figure(8, 3.4, ncols=2, width_ratios=[1, 1.25])
    _prob_bars(ax_p, p, _SCALED)
    ax_p.set_title(f"α = {alpha:g}: 최대 p = {max_p:.4f}", fontsize=10)
    m = len(p)
    im = ax_j.imshow(J, cmap="RdBu_r", vmin=-0.25, vmax=0.25)
    for i in range(m):
        for j in range(m):
            v = J[i, j]
            text = "0" if abs(v) < 0.005 else f"{v:+.2f}".replace("-", "−")
            ax_j.text(j, i, text, ha="center", va="center", fontsize=7,
                      color="white" if abs(v) > 0.15 else "black")
    ax_j.set_xticks(range(m), [str(j + 1) for j in range(m)])
    ax_j.set_yticks(range(m), [str(i + 1) for i in range(m)])
    ax_j.set_xlabel("j")
    ax_j.set_ylabel("i")
    ax_j.set_title(f"$J_{{ij}} = p_i(\\delta_{{ij}} - p_j)$, 최대 |J| = {J_max:.2e}", fontsize=10)
    fig.colorbar(im, ax=ax_j, shrink=0.85)
    return fig


def jacobian_curves(scores, alphas, *, d_k=64, marker=None, peak=None, marks=()):
    """max|J| and entropy against the multiplier α (log axis), with a dot at α = ``marker``.

    ``alphas``: the grid of the curves; ``peak``: the α where max|J| = 1/4 (dashed green);
    ``marks``: pairs (α, label) drawn as grey vertical lines.
    """
    alphas = np.asarray(alphas, dtype=float)
    stats = A.multiplier_stats(np.asarray(scores, dtype=float), alphas, d_k=d_k)
    fig, (ax_j, ax_h) = plots.new_figure(8, 3, ncols=2, sharex=True)
    ax_j.plot(alphas, stats.jacobian_max, color=_RAW)
    ax_j.axhline(0.25, color=plots.COLORS["muted"], ls=":", lw=1)
    ax_j.set_ylabel("최대 |J|")
    ax_j.set_ylim(0, 0.27)
    ax_h.plot(alphas, stats.entropy, color=_SCALED)
    ax_h.set_ylabel("엔트로피")
    ax_h.set_ylim(0, 1.9)
    for ax in (ax_j, ax_h):
        _log_axis(ax, "x", base=2)
        ax.set_xlabel("배수 α (로그 축)")
        ax.spines[["top", "right"]].set_visible(False)
        if peak is not None:
            ax.axvline(peak, color=plots.COLORS["accent"], ls="--", lw=1)
        for a, label in marks:
            ax.axvline(a, color=plots.COLORS["muted"], ls="--", lw=1)
            ax.text(a, ax.get_ylim()[1], label, rotation=90, ha="right", va="top", fontsize=8)
    if marker is not None:
        _, max_p, H, J = _stats(scores, marker, d_k)
        ax_j.plot([marker], [J], "o", color="black")
        ax_h.plot([marker], [H], "o", color="black")
        ax_j.set_title(f"α = {marker:.3g}: 최대 |J| = {J:.2e}", fontsize=10)
        ax_h.set_title(f"엔트로피 = {H:.4f}, 최대 p = {max_p:.4f}", fontsize=10)
    return fig


def training_curves(runs):
    """Loss, p_target and ‖∂L/∂q‖ (log) against the step; ``runs`` maps a label to a History."""
    fig, axes = plots.new_figure(10, 3, ncols=3, sharex=True)
    colors = [_SCALED, _RAW, plots.COLORS["accent"], plots.COLORS["muted"]]
    for (label, h), color in zip(runs.items(), colors, strict=False):
        steps = np.arange(len(h.loss))
        axes[0].plot(steps, h.loss, color=color, label=label)
        axes[1].plot(steps, h.p_target, color=color)
        axes[2].plot(steps, np.asarray(h.grad_norm) + 1e-300, color=color)
    axes[0].set_ylabel("손실 L")
    axes[1].set_ylabel("목표 자리의 확률 $p_4$")
    axes[2].set_ylabel(r"$\|\partial L/\partial q\|$")
    _log_axis(axes[2])
    axes[0].legend(frameon=False, fontsize=9)
    for ax in axes:
        ax.set_xlabel("걸음")
        ax.spines[["top", "right"]].set_visible(False)
    return fig


def gamma_frame(history, gamma, seed, *, d_k=64, reference=None):
    """One explorer frame: loss and max p against the step for scores ÷ d_k^γ (γ = 1/2 in grey)."""
    fig, (ax_l, ax_p) = plots.new_figure(7, 3, ncols=2, sharex=True)
    steps = np.arange(len(history.loss))
    if reference is not None:
        ax_l.plot(steps, reference.loss, color=plots.COLORS["muted"], lw=1, label="γ = 0.5")
        ax_p.plot(steps, reference.p_target, color=plots.COLORS["muted"], lw=1)
    ax_l.plot(steps, history.loss, color=_RAW, label=f"γ = {gamma:g}")
    ax_p.plot(steps, history.max_p, color=_RAW, label="최대 p")
    ax_p.plot(steps, history.p_target, color=_SCALED, ls="--", label="목표 자리 $p_4$")
    ax_l.set_ylabel("손실 L")
    ax_l.legend(frameon=False, fontsize=8)
    ax_p.set_ylim(-0.03, 1.05)
    ax_p.legend(frameon=False, fontsize=8, loc="center right")
    for ax in (ax_l, ax_p):
        ax.set_xlabel("걸음")
        ax.spines[["top", "right"]].set_visible(False)
    fig.suptitle(f"점수 ÷ d_k^γ = ÷ {d_k**gamma:.3g}, 시드 {seed}: 마지막 손실 "
                 f"{float(history.loss[-1]):.4f}, 최대 p {float(history.max_p[-1]):.4f}",
                 fontsize=10)
    return fig


def drift_curves(runs):
    """Var(S) on held-out tokens and ‖W‖/‖W₀‖ against the step; ``runs``: label → DriftHistory."""
    fig, (ax_v, ax_w) = plots.new_figure(9, 3, ncols=2, sharex=True)
    colors = [_SCALED, _RAW, plots.COLORS["accent"], plots.COLORS["muted"]]
    for (label, h), color in zip(runs.items(), colors, strict=False):
        ax_v.plot(h.step, h.score_var, color=color, label=label)
        ax_w.plot(h.step, h.weight_growth, color=color, label=label)
    ax_v.axhline(1, color=plots.COLORS["muted"], ls=":", lw=1)
    ax_v.set_ylabel("softmax 에 들어가는 점수의 분산")
    ax_w.set_ylabel(r"$\|W\| / \|W_0\|$")
    ax_v.legend(frameon=False, fontsize=8)
    for ax in (ax_v, ax_w):
        ax.set_xlabel("걸음")
        ax.spines[["top", "right"]].set_visible(False)
    return fig
