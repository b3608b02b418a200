"""Figures of Part II, first half (chapters 6–10): Jacobian cost, mask fill values, dropout.

Drawing only; every number comes from ``attnlib.numpy``.  Each explorer figure is a
``plots.View``: built once, ``view(**values)`` moves it to one position of the explorer and
leaves the text the chapter prints under it in ``view.text``.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import PatchCollection
from matplotlib.patches import Rectangle
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from attnlib import numpy as A
from attnlib import plots

__all__ = ["Heatmap", "JacobianCostView", "MaskFillView", "DropoutView",
           "head_blocks_figure", "dropout_keep_mask"]


def _cell_text(v: float) -> str:
    """A cell's number in at most five characters (it must fit the cell): 0.25, -0.02, 3e-5,
    never a signed zero such as -0.00."""
    if v == 0:
        return "0"
    if not np.isfinite(v):
        return "nan"
    if abs(v) < 5e-3:  # .2f would print 0.00 or -0.00
        mantissa, exponent = f"{v:.0e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{v:.2f}"


def _heatmap_figure(width, height, ncols, wspace):
    """A row of ``ncols`` heatmap axes with fixed margins."""
    fig, axes = plots.new_figure(width, height, ncols, layout=None)
    fig.subplots_adjust(left=0.06, right=0.99, bottom=0.2, top=0.88, wspace=wspace)
    return fig, axes


class Heatmap:
    """An annotated heatmap of a small ``shape`` matrix, drawn once; ``set(X, marked)`` changes
    its values, colours and marked cells (outlined or crossed). ``artists``: what a View tracks."""

    def __init__(self, ax, shape, title, *, mark="outline", diverging=True, vmax=None,
                 annotate=True):
        n, m = shape
        self.diverging, self.vmax = diverging, vmax
        self.mid = 0.5 if diverging else 0.0  # the norm of the palest colour
        self.image = ax.imshow(np.zeros(shape), cmap="RdBu_r" if diverging else "Blues",
                               vmin=-1 if diverging else 0, vmax=1)
        self.cells = plots.CellLabels(ax, shape, fontsize=8) if annotate else None
        if mark == "outline":
            self.marks = ax.add_collection(PatchCollection(
                [], facecolor="none", linestyle="--", lw=1.6, edgecolor=plots.COLORS["theory"]))
        else:  # one line through every cross: NaN breaks the segments
            self.marks, = ax.plot([], [], color="0.3", lw=0.8)
        ax.set_xlim(-0.5, m - 0.5)
        ax.set_ylim(n - 0.5, -0.5)
        ax.set_xticks(range(m))
        ax.set_yticks(range(n))
        ax.tick_params(labelsize=8, length=0)
        ax.set_xlabel("키 j", fontsize=8)
        ax.set_ylabel("질의 i", fontsize=8)
        ax.set_title(title, fontsize=9)
        self.artists = [self.image, self.marks]
        if annotate:
            self.artists.append(self.cells)

    def set(self, X, marked=None):
        X = np.asarray(X, dtype=float)
        if self.diverging:  # the colour limit follows this matrix's own max |X|
            lim = self.vmax or max(float(np.nanmax(np.abs(X))), 1e-12)
            self.image.set_clim(-lim, lim)
        else:
            self.image.set_clim(0, self.vmax or 1.0)
        self.image.set_data(X)
        if self.cells is not None:
            self.cells.texts = [_cell_text(v) for v in X.ravel()]
            self.cells.colors = plots.text_colors(self.image, X)  # the more legible on the cell
        rows, cols = np.nonzero(np.zeros(X.shape, bool) if marked is None else marked)
        if isinstance(self.marks, PatchCollection):
            self.marks.set_paths([Rectangle((j - 0.5, i - 0.5), 1, 1)
                                  for i, j in zip(rows, cols, strict=True)])
        else:
            xs, ys = [], []
            for i, j in zip(rows, cols, strict=True):
                xs += [j - 0.45, j + 0.45, np.nan, j - 0.45, j + 0.45, np.nan]
                ys += [i - 0.45, i + 0.45, np.nan, i + 0.45, i - 0.45, np.nan]
            self.marks.set_data(xs, ys)


def _cells_text(marked) -> str:
    """The marked cells of a heat map in words, row by row: 「0행 1, 2, 3열; 2행 3열」."""
    rows = {}
    for i, j in zip(*np.nonzero(marked), strict=True):
        rows.setdefault(int(i), []).append(str(int(j)))
    return "; ".join(f"{i}행 {', '.join(js)}열" for i, js in rows.items()) or "없음"


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


class JacobianCostView(plots.View):
    """Memory and time of the explicit-Jacobian VJP vs the row rule; ``view(m=m)`` puts the
    marker line at m.

    ``rows``: what ``attnlib.measure.row_rule_sweep`` returns (one dict per m, same n, float32);
    ``m_values``: every m the explorer offers (the lines n·m², n·m span them all).
    """

    def __init__(self, rows, m_values):
        self.rows = rows
        self.n = n = rows[0]["n"]
        self.item = item = rows[0]["nm_bytes"] // (n * rows[0]["m"])
        ms = np.array([r["m"] for r in rows])
        grid = np.unique(np.append(ms, m_values))
        fig, (ax1, ax2) = plots.new_figure(width=7.2, height=2.8, ncols=2)
        super().__init__(fig)
        theory, sample = plots.COLORS["theory"], plots.COLORS["sample"]
        ax1.loglog(grid, n * grid**2 * item, color=theory, label="야코비안 n·m² (셈)")
        ax1.loglog(grid, n * grid * item, color=sample, label="행별 규칙 n·m (셈)")
        ax1.loglog(ms, [r["mem_jacobian"] for r in rows], "o", color=theory, ms=4,
                   label="야코비안 (측정)")
        ax1.loglog(ms, [r["mem_row"] for r in rows], "s", color=sample, ms=4,
                   label="행별 규칙 (측정)")
        ax1.set_ylabel("최대 메모리 (바이트)", fontsize=9)
        ax1.set_title(f"메모리 (n = {n})", fontsize=10)
        ax2.loglog(ms, [r["t_jacobian"] for r in rows], "o-", color=theory, ms=4,
                   label="야코비안")
        ax2.loglog(ms, [r["t_row"] for r in rows], "s-", color=sample, ms=4, label="행별 규칙")
        ax2.set_ylabel("초 (가장 빠른 회)", fontsize=9)
        ax2.set_title("시간 (측정)", fontsize=10)
        ax1.yaxis.set_major_locator(FixedLocator([1e4, 1e5, 1e6, 1e7, 1e8, 1e9]))
        _unit_axis(ax1.yaxis, _BYTES)
        ax2.yaxis.set_major_locator(FixedLocator([1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1]))
        _unit_axis(ax2.yaxis, _SECONDS)
        xlim = ax1.get_xlim()  # the lines span every m offered: one x range for all frames
        self.markers = []
        for ax in (ax1, ax2):
            ax.set_xlim(xlim)
            ax.xaxis.set_major_locator(FixedLocator([16, 64, 256, 1024]))
            _unit_axis(ax.xaxis, [])
            ax.set_xlabel("키의 수 m", fontsize=9)
            ax.tick_params(labelsize=8)
            ax.legend(fontsize=8, frameon=False, loc="upper left")
            self.markers.append(ax.axvline(xlim[0], color=plots.COLORS["muted"], lw=1, ls=":"))
        self.track(self.markers)
        self.text = ""

    def update(self, m):
        for line in self.markers:
            line.set_xdata([m, m])
        n, item = self.n, self.item
        jb, rb = n * m * m * item, n * m * item
        text = f"n = {n}, m = {m}: 야코비안 {jb / 1e6:.3g} MB, 행별 규칙 {rb / 1e3:.3g} KB (비 {m})"
        row = next((r for r in self.rows if r["m"] == m), None)
        if row is None:
            text += "\n(이 m 은 재지 않았다: 셈만)"
        else:
            mem = row["mem_jacobian"] / row["mem_row"]
            sec = row["t_jacobian"] / row["t_row"]
            text += f"\n측정: 최대 메모리 비 {mem:.0f}, 시간 비 {sec:.0f}"
        self.text = text


class MaskFillView(plots.View):
    """P, Δ = ∂L/∂S and the gradient that reaches QKᵀ for the scores S0 with the ``hidden``
    cells (outlined) masked by ``fill``, replaced (a boolean mask) or added (a float mask);
    ``view(fill=f, dtype=dt, how="replace" | "add")`` recomputes them in that dtype.

    The scores are S0 as Q = S0, K = I, scale 1, so ∂L/∂Q is exactly ∂L/∂(QKᵀ)."""

    HOW = {"replace": "바꿔 넣기", "add": "더하기"}

    def __init__(self, S0, G, V, hidden):
        self.S0, self.G, self.V, self.hidden = S0, G, V, np.asarray(hidden, bool)
        fig, (ax1, ax2, ax3) = _heatmap_figure(7.6, 2.7, ncols=3, wspace=0.3)
        super().__init__(fig)
        self.P = Heatmap(ax1, S0.shape, "P = softmax(S)", diverging=False)
        self.D = Heatmap(ax2, S0.shape, "Δ = P⊙(U − r)")
        self.R = Heatmap(ax3, S0.shape, "QKᵀ 로 가는 기울기")
        self.track(self.P.artists, self.D.artists, self.R.artists)
        self.text = ""

    def update(self, fill, dtype, how="replace"):
        dt, hidden = np.dtype(dtype), self.hidden
        if how == "replace":  # boolean mask: the hidden scores become fill
            masked = dict(mask=~hidden, fill=fill)
        elif how == "add":  # float mask: fill is added to the hidden scores
            masked = dict(mask=np.where(hidden, fill, 0.0).astype(dt))
        else:
            raise ValueError(f"how must be 'replace' or 'add', got {how!r}")
        m = self.S0.shape[-1]
        parts = A.attention_backward_parts(self.G.astype(dt), self.S0.astype(dt),
                                           np.eye(m, dtype=dt), self.V.astype(dt),
                                           scale=1.0, **masked)
        P, D, reach = parts.P, parts.delta, parts.dQ  # K = I: dQ = ∂L/∂(QKᵀ)
        self.P.set(P, hidden)
        self.D.set(D, hidden)
        self.R.set(reach, hidden)
        leak_p, leak_d = float(P[hidden].max()), float(np.abs(D[hidden]).max())
        leak_r = float(np.abs(reach[hidden]).max())
        label = "-inf" if np.isneginf(fill) else f"{fill:g}"
        self.fig.alt = [f"{self.HOW[how]}, fill = {label}, {dt.name}. 점선으로 두른 칸은 가린 "
                        f"자리: {_cells_text(hidden)}"] * 3  # one per panel
        self.text = (f"{self.HOW[how]}, fill = {label}, {dt.name}: 가린 자리(점선) "
                     f"max P = {leak_p:.2e}, max |Δ| = {leak_d:.2e}\n"
                     f"그 자리에서 QKᵀ 로 가는 기울기 max = {leak_r:.2e}")


def dropout_keep_mask(n, m, p_drop, seed):
    """A 0/1 dropout mask M: each entry kept with probability 1 − p_drop (``default_rng(seed)``)."""
    return (np.random.default_rng(seed).random((n, m)) >= p_drop).astype(float)


class DropoutView(plots.View):
    """M, U = (G Vᵀ) ⊙ M/(1 − p_drop) and Δ for one dropout mask, dropped cells crossed;
    ``view(p_drop=p, seed=s)`` draws the mask ``dropout_keep_mask(n, m, p, s)``."""

    def __init__(self, G, Q, K, V):
        self.G, self.Q, self.K, self.V = G, Q, K, V
        shape = (Q.shape[-2], K.shape[-2])  # (n, m)
        fig, axes = _heatmap_figure(7.6, 2.3, ncols=3, wspace=0.25)
        super().__init__(fig)
        self.M = Heatmap(axes[0], shape, "M (× = 떨어뜨림)", diverging=False, mark="cross",
                         annotate=False)
        self.U = Heatmap(axes[1], shape, r"$U = (GV^{\mathsf{T}})\odot M/(1-p_{\mathrm{drop}})$",
                         mark="cross")
        self.D = Heatmap(axes[2], shape, "Δ = P⊙(U − r)", mark="cross")
        self.track(self.M.artists, self.U.artists, self.D.artists)
        self.text = ""

    def update(self, p_drop, seed):
        n, m = self.Q.shape[-2], self.K.shape[-2]
        M = dropout_keep_mask(n, m, p_drop, seed)
        parts = A.attention_backward_parts(self.G, self.Q, self.K, self.V, dropout_mask=M,
                                           p_drop=p_drop)
        dropped = M == 0
        self.M.set(M, dropped)
        self.U.set(parts.U, dropped)
        self.D.set(parts.delta, dropped)
        r = " ".join(f"{v:+.3f}" for v in parts.r)
        d_drop = np.abs(parts.delta[dropped]).max() if dropped.any() else 0.0
        self.fig.alt = [f"p_drop = {p_drop:g}, 시드 {seed}. ×로 지운 칸은 떨어뜨린 자리: "
                        f"{_cells_text(dropped)}"] * 3  # one per panel
        self.text = (f"p_drop = {p_drop:g}, seed = {seed}: 떨어뜨린 자리 {int(dropped.sum())}개, "
                     f"그 자리 max |Δ| = {d_drop:.3f}\nr = ({r})")


_HEAD_BLOCKS_TITLE = r"$W_Q$ 의 기울기 $|\partial L/\partial W_Q|$: 헤드마다 제 블록"


def head_blocks_figure(dW_Q, H, title=_HEAD_BLOCKS_TITLE):
    """|∂L/∂W_Q| with the H column blocks (one per head) outlined and named above."""
    dW_Q = np.asarray(dW_Q)
    d, He = dW_Q.shape
    fig, ax = plots.new_figure(width=4.0, height=2.8)  # one panel: its text scales on a phone
    image = ax.imshow(np.abs(dW_Q), cmap="Greys", aspect="auto")
    bar = fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    bar.ax.tick_params(labelsize=8)
    e = He // H
    for h in range(H):
        ax.add_patch(Rectangle((h * e - 0.5, -0.5), e, d, fill=False,
                               edgecolor=plots.COLORS["theory"], lw=1.5))
        ax.text(h * e + e / 2 - 0.5, -0.7, f"헤드 {h}", ha="center", va="bottom", fontsize=9)
    ax.set_xlabel(r"열 (헤드마다 $d_k$ 개)", fontsize=9)
    ax.set_ylabel(r"행 ($d$)", fontsize=9)
    ax.set_title(title, fontsize=9, pad=20)  # above the head names
    ax.tick_params(labelsize=9)
    return fig
