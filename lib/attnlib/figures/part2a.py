"""Figures of Part II, first half (chapters 6–10): Jacobian cost, mask fill values, dropout.

Drawing only; every number comes from ``attnlib.numpy``.  Each ``*_frame`` function is one
position of an explorer and returns ``(Figure, text)``.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from attnlib import numpy as A
from attnlib import plots

__all__ = ["heatmap", "jacobian_cost_frame", "mask_fill_frame", "dropout_frame",
           "head_blocks_figure", "dropout_keep_mask"]


def _cell_text(v: float) -> str:
    if v == 0:
        return "0"
    if not np.isfinite(v):
        return "nan"
    if abs(v) < 1e-3:
        return f"{v:.1e}"
    return f"{v:.2f}"


def _frame_figure(width, height, ncols, wspace):
    """Like ``plots.new_figure`` but with fixed margins: explorer frames are drawn many times,
    and constrained layout would be most of the cost."""
    plots.use_korean_font()
    fig = Figure(figsize=(width, height))
    axes = fig.subplots(1, ncols)
    fig.subplots_adjust(left=0.06, right=0.99, bottom=0.2, top=0.88, wspace=wspace)
    return fig, axes


def heatmap(ax, X, title, *, marked=None, mark="outline", diverging=True, vmax=None,
            annotate=True):
    """An annotated heatmap of a small matrix; ``marked`` cells outlined (or crossed)."""
    X = np.asarray(X, dtype=float)
    if diverging:
        lim = vmax or max(float(np.nanmax(np.abs(X))), 1e-12)
        im = ax.imshow(X, cmap="RdBu_r", vmin=-lim, vmax=lim)
    else:
        im = ax.imshow(X, cmap="Blues", vmin=0, vmax=vmax or 1.0)
    n, m = X.shape
    for i in range(n if annotate else 0):
        for j in range(m):
            v = X[i, j]
            dark = np.isfinite(v) and abs(im.norm(v) - (0.5 if diverging else 0.0)) > 0.35
            ax.text(j, i, _cell_text(v), ha="center", va="center", fontsize=6.5,
                    color="white" if dark else "black")
    if marked is not None:
        rows, cols = np.nonzero(np.asarray(marked))
        if mark == "outline":
            boxes = [Rectangle((j - 0.5, i - 0.5), 1, 1) for i, j in zip(rows, cols, strict=True)]
            ax.add_collection(PatchCollection(boxes, facecolor="none", linestyle="--", lw=1.6,
                                              edgecolor=plots.COLORS["theory"]))
        else:  # one line through every cross: NaN breaks the segments
            xs, ys = [], []
            for i, j in zip(rows, cols, strict=True):
                xs += [j - 0.45, j + 0.45, np.nan, j - 0.45, j + 0.45, np.nan]
                ys += [i - 0.45, i + 0.45, np.nan, i + 0.45, i - 0.45, np.nan]
            ax.plot(xs, ys, color="0.3", lw=0.8)
    ax.set_xticks(range(m))
    ax.set_yticks(range(n))
    ax.tick_params(labelsize=7, length=0)
    ax.set_xlabel("키 j", fontsize=8)
    ax.set_ylabel("질의 i", fontsize=8)
    ax.set_title(title, fontsize=9)
    return ax


def _unit_axis(axis, units):
    """Log-axis ticks at powers of 1000 (or 10), labelled in plain text with ``units``."""
    def label(v, _):
        for scale, name in units:
            if v >= scale:
                return f"{v / scale:g} {name}"
        return f"{v:g}"
    axis.set_major_formatter(FuncFormatter(label))
    axis.set_minor_formatter(NullFormatter())


_BYTES = [(1e9, "GB"), (1e6, "MB"), (1e3, "KB"), (1, "B")]
_SECONDS = [(1, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")]


def jacobian_cost_frame(m, rows):
    """Memory and time of the explicit-Jacobian VJP vs the row rule, marker at ``m``.

    ``rows``: what ``attnlib.perf.row_rule_sweep`` returns (one dict per m, same n, float32).
    Lines: the bytes the two methods must hold, n·m² and n·m numbers; points: the measurements.
    """
    n, item = rows[0]["n"], rows[0]["nm_bytes"] // (rows[0]["n"] * rows[0]["m"])
    ms = np.array([r["m"] for r in rows])
    grid = np.unique(np.append(ms, m))
    fig, (ax1, ax2) = plots.new_figure(width=6.4, height=2.8, ncols=2)
    ax1.loglog(grid, n * grid**2 * item, color=plots.COLORS["theory"], label="야코비안 n·m² (셈)")
    ax1.loglog(grid, n * grid * item, color=plots.COLORS["sample"], label="행별 규칙 n·m (셈)")
    ax1.loglog(ms, [r["mem_jacobian"] for r in rows], "o", color=plots.COLORS["theory"], ms=4,
               label="야코비안 (측정)")
    ax1.loglog(ms, [r["mem_row"] for r in rows], "s", color=plots.COLORS["sample"], ms=4,
               label="행별 규칙 (측정)")
    ax1.set_ylabel("최대 메모리 (바이트)", fontsize=8)
    ax1.set_title(f"메모리 (n = {n})", fontsize=9)
    ax2.loglog(ms, [r["t_jacobian"] for r in rows], "o-", color=plots.COLORS["theory"], ms=4,
               label="야코비안")
    ax2.loglog(ms, [r["t_row"] for r in rows], "s-", color=plots.COLORS["sample"], ms=4,
               label="행별 규칙")
    ax2.set_xlim(ax1.get_xlim())
    ax2.set_ylabel("초 (가장 빠른 회)", fontsize=8)
    ax2.set_title("시간 (측정)", fontsize=9)
    ax1.yaxis.set_major_locator(FixedLocator([1e4, 1e5, 1e6, 1e7, 1e8, 1e9]))
    _unit_axis(ax1.yaxis, _BYTES)
    ax2.yaxis.set_major_locator(FixedLocator([1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1]))
    _unit_axis(ax2.yaxis, _SECONDS)
    for ax in (ax1, ax2):
        ax.xaxis.set_major_locator(FixedLocator([16, 64, 256, 1024]))
        _unit_axis(ax.xaxis, [])
        ax.axvline(m, color=plots.COLORS["muted"], lw=1, ls=":")
        ax.set_xlabel("키의 수 m", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6, frameon=False, loc="upper left")
    jb, rb = n * m * m * item, n * m * item
    text = f"n = {n}, m = {m}: 야코비안 {jb / 1e6:.3g} MB, 행별 규칙 {rb / 1e3:.3g} KB (비 {m})"
    row = next((r for r in rows if r["m"] == m), None)
    if row is None:
        text += "\n(이 m 은 재지 않았다: 셈만)"
    else:
        mem = row["mem_jacobian"] / row["mem_row"]
        sec = row["t_jacobian"] / row["t_row"]
        text += f"\n측정: 최대 메모리 비 {mem:.0f}, 시간 비 {sec:.0f}"
    return fig, text


def mask_fill_frame(S0, G, V, hidden, fill, dtype):
    """P and Δ of the scores S0 with the ``hidden`` cells replaced by ``fill``, in ``dtype``."""
    dt = np.dtype(dtype)
    m = S0.shape[-1]
    parts = A.attention_backward_parts(G.astype(dt), S0.astype(dt), np.eye(m, dtype=dt),
                                       V.astype(dt), scale=1.0, mask=~hidden, fill=fill)
    P, D = parts.P, parts.delta
    fig, (ax1, ax2) = _frame_figure(5.6, 2.7, ncols=2, wspace=0.25)
    heatmap(ax1, P, "P = softmax(S)", marked=hidden, diverging=False)
    heatmap(ax2, D, "Δ = P⊙(U − r)", marked=hidden)
    leak_p, leak_d = float(P[hidden].max()), float(np.abs(D[hidden]).max())
    label = "-inf" if np.isneginf(fill) else f"{fill:g}"
    text = (f"fill = {label}, {dt.name}: 가린 자리(점선) max P = {leak_p:.2e}, "
            f"max |Δ| = {leak_d:.2e}")
    return fig, text


def dropout_keep_mask(n, m, p_drop, seed):
    """A 0/1 dropout mask M: each entry kept with probability 1 − p_drop (``default_rng(seed)``)."""
    return (np.random.default_rng(seed).random((n, m)) >= p_drop).astype(float)


def dropout_frame(G, Q, K, V, p_drop, seed):
    """M, U = (G Vᵀ) ⊙ M/(1 − p) and Δ for one dropout mask; dropped cells crossed."""
    n, m = Q.shape[-2], K.shape[-2]
    M = dropout_keep_mask(n, m, p_drop, seed)
    parts = A.attention_backward_parts(G, Q, K, V, dropout_mask=M, p_drop=p_drop)
    dropped = M == 0
    fig, axes = _frame_figure(7.0, 2.0, ncols=3, wspace=0.25)
    heatmap(axes[0], M, "M (× = 떨어뜨림)", diverging=False, marked=dropped, mark="cross",
            annotate=False)
    heatmap(axes[1], parts.U, "U = (GVᵀ)⊙M/(1−p)", marked=dropped, mark="cross")
    heatmap(axes[2], parts.delta, "Δ = P⊙(U − r)", marked=dropped, mark="cross")
    r = " ".join(f"{v:+.3f}" for v in parts.r)
    d_drop = np.abs(parts.delta[dropped]).max() if dropped.any() else 0.0
    text = (f"p_drop = {p_drop:g}, seed = {seed}: 떨어뜨린 자리 {int(dropped.sum())}개, "
            f"그 자리 max |Δ| = {d_drop:.3f}\nr = ({r})")
    return fig, text


def head_blocks_figure(dW_Q, H, title="W_Q 의 기울기 |dL/dW_Q|: 헤드마다 제 블록"):
    """|∂L/∂W_Q| with the H column blocks (one per head) outlined."""
    dW_Q = np.asarray(dW_Q)
    d, He = dW_Q.shape
    fig, ax = plots.new_figure(width=6.0, height=2.6)
    ax.imshow(np.abs(dW_Q), cmap="Greys", aspect="auto")
    e = He // H
    for h in range(H):
        ax.add_patch(Rectangle((h * e - 0.5, -0.5), e, d, fill=False,
                               edgecolor=plots.COLORS["theory"], lw=1.5))
        ax.text(h * e + e / 2 - 0.5, -0.9, f"헤드 {h}", ha="center", va="bottom", fontsize=8)
    ax.set_xlabel("열 (헤드마다 d_k 개)", fontsize=8)
    ax.set_ylabel("행 (d)", fontsize=8)
    ax.set_title(title, fontsize=9, pad=14)
    ax.tick_params(labelsize=7)
    return fig
