"""Figures of Part III (chapters 17–19): the online softmax step by step, the block grid of the
blockwise backward, and the memory of the two paths.

Drawing only; the numbers come from ``attnlib.numpy`` (and ``attnlib.measure``). Each ``*_frame``
function is one position of an explorer and returns ``(Figure, text)``.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from attnlib import numpy as A
from attnlib import plots
from attnlib.core.blockwise import block_grid

__all__ = ["online_step_frame", "block_size_frame", "memory_figure"]

C = plots.COLORS


def online_step_frame(q, K, V, *, step, block_k):
    """Step ``step`` (from 1) of the online softmax of one query ``q`` (1, d_k) over K, V."""
    steps = A.attention_blockwise_steps(q, K, V, block_k=block_k)
    s = A.scores(q, K)[0]  # (m,)
    O_final, _ = A.attention(q, K, V)
    k = step - 1
    stop, start = steps.stop[k], (steps.stop[k - 1] if k > 0 else 0)
    m_k, l_k = float(steps.m[k, 0]), float(steps.l[k, 0])
    m_prev = float(steps.m[k - 1, 0]) if k > 0 else -np.inf

    fig, (ax, bx) = plots.new_figure(width=6.4, height=3.0, ncols=2,
                                     gridspec_kw={"width_ratios": [1.7, 1]})
    j = np.arange(len(s))
    colors = np.where(j < start, C["sample"], np.where(j < stop, C["accent"], "#D9D9D9"))
    ax.bar(j, s, color=colors, width=0.8)
    for b in steps.stop[:-1]:
        ax.axvline(b - 0.5, color="0.75", lw=0.6)
    ax.axhline(m_k, color=C["theory"], ls="--", lw=1.4, label=f"m = {m_k:.2f}")
    if np.isfinite(m_prev) and m_prev != m_k:
        ax.axhline(m_prev, color=C["theory"], ls=":", lw=1.0, alpha=0.7,
                   label=f"이전 m = {m_prev:.2f}")
    ax.set_xlabel("키 j", fontsize=8)
    ax.set_title("점수 $s_j$ (초록: 지금 블록)", fontsize=9)
    ax.tick_params(labelsize=7)
    ax.legend(frameon=False, fontsize=7, loc="lower right")
    ax.spines[["top", "right"]].set_visible(False)

    Vn = np.asarray(V)
    Op = np.asarray(steps.O[:, 0])  # (steps, d_v)
    bx.scatter(Vn[:, 0], Vn[:, 1], s=10, color="#BBBBBB", label="$V_j$")
    bx.plot(Op[: k + 1, 0], Op[: k + 1, 1], "-o", color=C["sample"], ms=3, lw=1,
            label="부분 출력")
    bx.plot(*Op[k], "o", color=C["accent"], ms=6)
    bx.plot(*np.asarray(O_final)[0], "*", color=C["theory"], ms=10, label="최종 O")
    seen = np.vstack([Op, np.asarray(O_final)])
    lo, hi = seen.min(axis=0), seen.max(axis=0)
    pad = 0.25 * max(float((hi - lo).max()), 0.2)
    bx.set_xlim(lo[0] - pad, hi[0] + pad)
    bx.set_ylim(lo[1] - pad, hi[1] + pad)
    bx.set_title("$O^{(k)} = a^{(k)} / l^{(k)}$", fontsize=9)
    bx.tick_params(labelsize=7)
    bx.legend(frameon=False, fontsize=7, loc="best")
    alpha = np.exp(m_prev - m_k) if np.isfinite(m_prev) else 0.0
    O_k = Op[k]
    text = (f"블록 {step}/{len(steps.stop)} (키 {start}–{stop - 1}): m = {m_k:.3f}, "
            f"재조정 배수 e^(m_old − m) = {alpha:.3f}, l = {l_k:.3f}, "
            f"O = ({O_k[0]:+.3f}, {O_k[1]:+.3f})")
    return fig, text


_GRID_COLORS = ListedColormap(["#EEEEEE", "#F2C57C", C["sample"]])


def block_size_frame(Q, K, V, G, *, block, mask=None):
    """The block grid of the blockwise backward at ``block_q = block_k = block``, checked."""
    n, m = Q.shape[-2], K.shape[-2]
    grid = block_grid(n, m, block_q=block, block_k=block, mask=mask)
    O, lse = A.attention_blockwise(Q, K, V, block_q=block, block_k=block, mask=mask)
    ours = A.attention_blockwise_backward(G, Q, K, V, O, lse, block_q=block, block_k=block,
                                          mask=mask)
    ref = A.attention_backward(G, Q, K, V, mask=mask)
    worst = max(float(np.abs(a - b).max()) for a, b in zip(ours, ref, strict=True))

    fig, (ax, bx) = plots.new_figure(width=6.0, height=3.0, ncols=2,
                                     gridspec_kw={"width_ratios": [1, 1.1]})
    rows = [min(block, n - s) for s in range(0, n, block)]  # the last block may be shorter
    cols = [min(block, m - s) for s in range(0, m, block)]
    cells = np.repeat(np.repeat(grid, rows, axis=0), cols, axis=1)  # (n, m)
    ax.imshow(cells, cmap=_GRID_COLORS, vmin=0, vmax=2, extent=(0, m, n, 0),
              interpolation="nearest")
    for b in range(0, n + 1, block):
        ax.axhline(min(b, n), color="white", lw=0.8)
    for b in range(0, m + 1, block):
        ax.axvline(min(b, m), color="white", lw=0.8)
    ax.set_xlabel("키 j", fontsize=8)
    ax.set_ylabel("질의 i", fontsize=8)
    ax.set_title(f"블록 {block}×{block}", fontsize=9)
    ax.tick_params(labelsize=7)
    ax.legend(handles=[Patch(color=_GRID_COLORS(i), label=t) for i, t in
                       enumerate(["건너뜀", "일부 가림", "전부 계산"])],
              frameon=False, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3)

    counts = [int((grid == v).sum()) for v in (2, 1, 0)]
    bx.bar(["전부 계산", "일부 가림", "건너뜀"], counts,
           color=[C["sample"], "#F2C57C", "#BBBBBB"])
    for x, c in enumerate(counts):
        bx.text(x, c, str(c), ha="center", va="bottom", fontsize=8)
    bx.set_title("블록 수", fontsize=9)
    bx.tick_params(labelsize=7)
    bx.spines[["top", "right"]].set_visible(False)
    text = (f"블록 {block}×{block}: 블록 {grid.size}개 중 {counts[2]}개 건너뜀, "
            f"임시 배열 하나 {block * block}개 (P 전체 {n * m}개의 {block * block / (n * m):.1%}), "
            f"attention_backward와 최대 차이 < 1e-12: {worst < 1e-12}")
    return fig, text


def memory_figure(run, *, per_row, per_entry):
    """Peak extra memory against n, log-log, both paths (an ``attnlib.measure.MemoryRun``),
    labelled with the fitted bytes per n² (whole matrix) and per n (blockwise)."""
    fig, ax = plots.new_figure(width=6.0, height=3.2)
    mib = 2.0**20
    ax.loglog(run.n, run.whole / mib, "o-", color=C["theory"],
              label=f"행렬 전체 경로 ≈ {per_entry:.1f}·n² 바이트")
    ax.loglog(run.n, run.blockwise / mib, "o-", color=C["sample"],
              label=f"블록 경로 ≈ {per_row:.0f}·n 바이트 + 상수")
    ax.loglog(run.n, run.outputs / mib, ":", color=C["muted"],
              label="결과 자체 (O, lse, dQ, dK, dV)")
    ax.set_xlabel("시퀀스 길이 n (= m)", fontsize=9)
    ax.set_ylabel("최대 추가 메모리 (MiB)", fontsize=9)
    ax.set_xticks(run.n, [str(n) for n in run.n])
    ax.minorticks_off()
    ax.tick_params(labelsize=8)
    ax.legend(frameon=False, fontsize=8)
    ax.grid(alpha=0.3, which="major")
    return fig
