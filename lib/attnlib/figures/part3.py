"""Figures of Part III (chapters 17–19): the online softmax step by step, the block grid of the
blockwise backward, and the memory of the two paths.

Drawing only; the numbers come from ``attnlib.numpy`` (and ``attnlib.measure``). The explorers'
figures are ``plots.View``s: built once, then ``view(**values)`` moves to one position and
``view.text`` holds the line printed under it.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from attnlib import numpy as A
from attnlib import plots
from attnlib.numpy import block_grid

__all__ = ["OnlineStepView", "BlockSizeView", "memory_figure", "io_figure", "steps_figure"]

C = plots.COLORS
_PENDING = "#D9D9D9"


class OnlineStepView(plots.View):
    """The online softmax of one query ``q`` (1, d_k) over K, V, block by block, with the keys
    taken in one of ``orders`` (name → key indices); ``view(step=k, order=name)`` shows step k."""

    def __init__(self, q, K, V, orders, *, block_k):
        self.runs = {}  # name → (scores (m,), OnlineSteps)
        for name, idx in orders.items():
            self.runs[name] = (A.scores(q, K[idx])[0],
                               A.attention_blockwise_steps(q, K[idx], V[idx], block_k=block_k))
        O_final = np.asarray(A.attention(q, K, V)[0])[0]  # (d_v,), the same in every order
        s0, steps0 = next(iter(self.runs.values()))
        fig, (ax, bx) = plots.new_figure(width=6.4, height=3.0, ncols=2,
                                         gridspec_kw={"width_ratios": [1.7, 1]})
        super().__init__(fig)

        j = np.arange(len(s0))
        self.bars = self.track(ax.bar(j, s0, color=_PENDING, width=0.8))
        for b in steps0.stop[:-1]:
            ax.axvline(b - 0.5, color="0.75", lw=0.6, gid="블록 경계")
        self.m_line = self.track(ax.axhline(0, color=C["theory"], ls="--", lw=1.4, gid="s_max"))
        self.prev_line = self.track(ax.axhline(0, color=C["theory"], ls=":", lw=1.0, alpha=0.7,
                                               gid="이전 s_max"))
        s_all = np.concatenate([[0.0], *(s for s, _ in self.runs.values())])
        pad = 0.05 * (s_all.max() - s_all.min())
        ax.set_ylim(s_all.min() - pad, s_all.max() + pad)  # every order's scores fit
        ax.set_xlabel("키 j", fontsize=8)
        ax.set_title("점수 $s_j$ (초록: 지금 블록)", fontsize=9, loc="left")
        # s_max (dashed) and the s_max before this block (dotted) in words, clear of every bar
        self.m_title = self.track(ax.set_title(" ", fontsize=9, loc="right"))
        ax.tick_params(labelsize=8)
        ax.spines[["top", "right"]].set_visible(False)

        Vn = np.asarray(V)
        bx.scatter(Vn[:, 0], Vn[:, 1], s=10, color="#BBBBBB", label="$V_j$")
        self.path, = self.track(bx.plot([], [], "-o", color=C["sample"], ms=3, lw=1,
                                        label="부분 출력"))
        self.now, = self.track(bx.plot([], [], "o", color=C["accent"], ms=6,
                                       label=r"지금의 $O^{(k)}$"))
        self.track(bx.plot(*O_final, "*", color=C["theory"], ms=10, label="최종 O"))  # on top
        seen = np.vstack([O_final, Vn] + [np.asarray(st.O[:, 0]) for _, st in self.runs.values()])
        lo, hi = seen.min(axis=0), seen.max(axis=0)  # every V_j and every partial output fit
        pad = 0.08 * max(float((hi - lo).max()), 0.2)
        bx.set_xlim(lo[0] - pad, hi[0] + pad)
        bx.set_ylim(lo[1] - pad, hi[1] + pad)
        bx.set_title(r"$O^{(k)} = \mathrm{acc}^{(k)} / \ell^{(k)}$", fontsize=9)
        bx.tick_params(labelsize=8)
        bx.set_xlabel("1번째 성분", fontsize=8)
        bx.set_ylabel("2번째 성분", fontsize=8)
        bx.legend(frameon=False, fontsize=8, loc="upper left")
        self.text = ""

    def update(self, step, order):
        s, steps = self.runs[order]
        k = step - 1
        stop, start = steps.stop[k], (steps.stop[k - 1] if k > 0 else 0)
        s_k, l_k = float(steps.s_max[k, 0]), float(steps.l[k, 0])
        s_prev = float(steps.s_max[k - 1, 0]) if k > 0 else -np.inf
        for j, (bar, v) in enumerate(zip(self.bars, s, strict=True)):
            bar.set_height(v)
            bar.set_color(C["sample"] if j < start else (C["accent"] if j < stop else _PENDING))
        self.m_line.set_ydata([s_k, s_k])
        shown = bool(np.isfinite(s_prev) and s_prev != s_k)
        self.prev_line.set_visible(shown)
        if shown:
            self.prev_line.set_ydata([s_prev, s_prev])
        self.m_title.set_text(r"$s_{\max}$" + f" = {s_k:.2f}"
                              + (f", 이전 {s_prev:.2f}" if shown else ""))

        Op = np.asarray(steps.O[:, 0])  # (steps, d_v)
        self.path.set_data(Op[: k + 1, 0], Op[: k + 1, 1])
        self.now.set_data([Op[k, 0]], [Op[k, 1]])
        rescale = np.exp(s_prev - s_k) if np.isfinite(s_prev) else 0.0
        self.text = (f"블록 {step}/{len(steps.stop)} (키 {start}–{stop - 1}): s_max = {s_k:.3f}, "
                     f"재조정 배수 e^(이전 s_max − s_max) = {rescale:.3f}, ℓ = {l_k:.3f}, "
                     f"O = ({Op[k, 0]:+.3f}, {Op[k, 1]:+.3f})")


_GRID_COLORS = ListedColormap(["#EEEEEE", "#F2C57C", C["sample"]])


class BlockSizeView(plots.View):
    """The block grid of the blockwise backward at ``block_q = block_k = block`` and the count of
    each kind of block, checked against ``attention_backward``; ``masks``: name → mask or None;
    ``view(block=b, mask=name)``."""

    def __init__(self, Q, K, V, G, masks):
        self.Q, self.K, self.V, self.G, self.masks = Q, K, V, G, masks
        self.n, self.m = n, m = Q.shape[-2], K.shape[-2]
        self.ref = {name: A.attention_backward(G, Q, K, V, mask=mask)
                    for name, mask in masks.items()}
        fig, (ax, bx) = plots.new_figure(width=6.0, height=3.0, ncols=2,
                                         gridspec_kw={"width_ratios": [1, 1.1]})
        super().__init__(fig)
        self.ax = ax
        self.image = self.track(ax.imshow(np.zeros((n, m)), cmap=_GRID_COLORS, vmin=0, vmax=2,
                                          extent=(0, m, n, 0), interpolation="nearest"))
        ax.set_xlim(0, m)
        ax.set_ylim(n, 0)
        ax.set_xlabel("키 j", fontsize=8)
        ax.set_ylabel("질의 i", fontsize=8)
        self.title = self.track(ax.set_title(" ", fontsize=9))
        ax.tick_params(labelsize=8)
        ax.legend(handles=[Patch(color=_GRID_COLORS(i), label=t) for i, t in
                           enumerate(["건너뜀", "일부 가림", "전부 계산"])],
                  frameon=False, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.18),
                  ncol=3)

        self.bars = self.track(bx.bar(["전부 계산", "일부 가림", "건너뜀"], [0, 0, 0],
                                      color=[C["sample"], "#F2C57C", "#BBBBBB"]))
        self.counts = self.track([bx.text(x, 0, "", ha="center", va="bottom", fontsize=8)
                                  for x in range(3)])
        self.bx = bx
        self.track(bx.yaxis)  # the count axis follows each frame (one 32×32 block, or 121 small)
        bx.yaxis.set_major_locator(MaxNLocator(integer=True))
        bx.set_title("블록 수", fontsize=9)
        bx.tick_params(labelsize=8)
        bx.spines[["top", "right"]].set_visible(False)
        self.text = ""

    def update(self, block, mask):
        Q, K, V, G, n, m = self.Q, self.K, self.V, self.G, self.n, self.m
        grid = block_grid(n, m, block_q=block, block_k=block, mask=self.masks[mask])
        O, lse = A.attention_blockwise(Q, K, V, block_q=block, block_k=block,
                                       mask=self.masks[mask])
        ours = A.attention_blockwise_backward(G, Q, K, V, O, lse, block_q=block, block_k=block,
                                              mask=self.masks[mask])
        worst = max(float(np.abs(a - b).max()) for a, b in zip(ours, self.ref[mask], strict=True))

        rows = [min(block, n - s) for s in range(0, n, block)]  # the last block may be shorter
        cols = [min(block, m - s) for s in range(0, m, block)]
        self.image.set_data(np.repeat(np.repeat(grid, rows, axis=0), cols, axis=1))  # (n, m)
        self.replace("grid", [self.ax.axhline(min(b, n), color="white", lw=0.8)
                              for b in range(0, n + 1, block)]
                     + [self.ax.axvline(min(b, m), color="white", lw=0.8)
                        for b in range(0, m + 1, block)])
        self.title.set_text(f"블록 {block}×{block}")
        counts = [int((grid == v).sum()) for v in (2, 1, 0)]
        for bar, label, c in zip(self.bars, self.counts, counts, strict=True):
            bar.set_height(c)
            label.set_y(c)
            label.set_text(str(c))
        self.bx.set_ylim(0, 1.15 * max(counts))
        self.text = (f"블록 {block}×{block}: 블록 {grid.size}개 중 {counts[2]}개 건너뜀, "
                     f"임시 배열 하나 {block * block}개 (P 전체 {n * m}개의 "
                     f"{block * block / (n * m):.1%}), "
                     f"attention_backward 와 최대 차이 < 1e-12: {worst < 1e-12}")


def memory_figure(run, *, per_row, per_entry):
    """Peak extra memory against n, log-log, both paths (an ``attnlib.measure.MemoryRun``),
    labelled with the fitted bytes per n² (whole matrix) and per n (blockwise)."""
    fig, ax = plots.new_figure(width=5.0, height=3.2)  # one panel: its text scales on a phone
    mib = 2.0**20
    ax.loglog(run.n, run.whole / mib, "o-", color=C["theory"],
              # mathtext: the font's own ² is a barely visible glyph at legend size (review
              # part3 D13); the exponent typeset as math reads like the rest of the book
              label=f"행렬 전체 경로 ≈ ${per_entry:.1f}\\cdot n^2$ 바이트")
    ax.loglog(run.n, run.blockwise / mib, "o-", color=C["sample"],
              label=f"블록 경로 ≈ ${per_row:.0f}\\cdot n$ 바이트 + 상수")
    ax.loglog(run.n, run.outputs / mib, ":", color=C["muted"],
              label="결과 자체 (O, lse, dQ, dK, dV)")
    ax.set_xlabel("시퀀스 길이 n (= m)", fontsize=10)
    ax.set_ylabel("최대 추가 메모리 (MiB)", fontsize=10)
    ax.set_xticks(run.n, [str(n) for n in run.n])
    ax.minorticks_off()
    ax.tick_params(labelsize=10)
    ax.legend(frameon=False, fontsize=10)
    ax.grid(alpha=0.3, which="major")
    return fig


def io_figure(ns, curves):
    """HBM bytes of forward + backward against n, log-log: ``curves`` maps a label to bytes per n
    (``attnlib.core.io.io_bytes``); the standard path solid, the blockwise ones dashed."""
    fig, ax = plots.new_figure(width=4.0, height=3.2)  # one panel: its text scales on a phone
    mib = 2.0**20
    colors = [C["theory"], C["sample"], C["accent"], C["muted"]]
    for (label, ys), color in zip(curves.items(), colors, strict=False):
        ax.loglog(ns, np.asarray(ys) / mib, "o-" if "표준" in label else "o--", color=color,
                  ms=3, label=label)
    ax.set_xlabel("시퀀스 길이 n (= m)", fontsize=9)
    ax.set_ylabel("HBM 과 오간 바이트 (MiB)", fontsize=9)
    ax.set_xticks(ns, [str(n) for n in ns])
    ax.minorticks_off()
    ax.tick_params(labelsize=8)
    ax.legend(frameon=False, fontsize=8)
    ax.grid(alpha=0.3, which="major")
    return fig


def steps_figure(points, bound, dashed=()):
    """Relative error of ℓ (units of u) against the number of sequential steps m/b_k, log-log:
    ``points`` maps a label to (steps, errors), the labels in ``dashed`` drawn dashed with open
    markers (colors cycle over three); ``bound`` (steps, γ-like line) dotted."""
    fig, ax = plots.new_figure(width=4.0, height=3.4)  # one panel: its text scales on a phone
    colors = [C["theory"], C["sample"], C["accent"]]
    markers = ["o", "s", "^"]
    for i, (label, (xs, ys)) in enumerate(points.items()):
        style = "--" if label in dashed else "-"
        ax.loglog(xs, np.maximum(ys, 0.05), markers[i % 3] + style, color=colors[i % 3], ms=4,
                  lw=1, label=label, mfc="none" if label in dashed else colors[i % 3])
    ax.loglog(*bound, ":", color="0.4", label="$(m/b_k)\\,u$")
    ax.set_xlabel("차례로 밟는 걸음 수 $m/b_k$", fontsize=9)
    ax.set_ylabel("ℓ 의 상대오차 / u", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.legend(frameon=False, fontsize=8)
    ax.grid(alpha=0.3, which="major")
    return fig
