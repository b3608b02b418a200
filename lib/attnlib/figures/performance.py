"""Figures of the appendix 「성능과 메모리」: what each backward costs as the sizes grow.

Drawing only: the numbers come from ``attnlib.measure`` sweeps (rows of dicts).
"""

from __future__ import annotations

from matplotlib.ticker import LogLocator

from attnlib import plots

MB = 1e6


def _loglog(ax, xlabel, ylabel, title):
    plots.plain_log_axis(ax, "x", 2)
    plots.plain_log_axis(ax, "y")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=11)
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(True, which="major", alpha=0.3)


def row_rule_costs(rows):
    """Time (left) and peak memory (right) of the softmax VJP against m: Jacobian vs row rule."""
    fig, (ax_t, ax_m) = plots.new_figure(width=7.0, height=3.0, ncols=2)
    m = [r["m"] for r in rows]
    jac, row = plots.COLORS["theory"], plots.COLORS["sample"]
    ax_t.plot(m, [r["t_jacobian"] * 1e3 for r in rows], "o-", color=jac, label="야코비안")
    ax_t.plot(m, [r["t_row"] * 1e3 for r in rows], "s-", color=row, label="행별 규칙")
    _loglog(ax_t, "키의 수 m", "시간 (ms)", f"시간 (n = {rows[0]['n']})")
    ax_m.plot(m, [r["mem_jacobian"] / MB for r in rows], "o-", color=jac, label="야코비안")
    ax_m.plot(m, [r["mem_row"] / MB for r in rows], "s-", color=row, label="행별 규칙")
    _loglog(ax_m, "키의 수 m", "최대 메모리 (MB)", "최대 추가 메모리")
    ax_m.legend(frameon=False, fontsize=9)
    return fig


def lse_memory(rows):
    """Bytes kept from forward to backward (left) and the backward's peak (right) against n = m."""
    fig, (ax_k, ax_p) = plots.new_figure(width=7.0, height=3.0, ncols=2)
    n = [r["n"] for r in rows]
    saved, lse, blk = plots.COLORS["theory"], plots.COLORS["sample"], plots.COLORS["accent"]
    ax_k.plot(n, [r["kept_saved_p"] / MB for r in rows], "o-", color=saved, label="P 저장 (O, P)")
    ax_k.plot(n, [r["kept_lse"] / MB for r in rows], "s-", color=lse, label="LSE (O, lse)")
    _loglog(ax_k, "n = m", "MB", "순전파가 남기는 것")
    ax_k.legend(frameon=False, fontsize=9)
    ax_p.plot(n, [r["peak_bwd_recompute"] / MB for r in rows], "o-", color=saved,
              label="P를 다시 만드는 역전파")
    ax_p.plot(n, [r["peak_bwd_lse"] / MB for r in rows], "s--", color=lse, label="LSE 역전파")
    if "peak_bwd_blockwise" in rows[0]:
        ax_p.plot(n, [r["peak_bwd_blockwise"] / MB for r in rows], "^-", color=blk,
                  label=f"블록 LSE 역전파 ({rows[0]['block']}×{rows[0]['block']} 블록)")
    _loglog(ax_p, "n = m", "MB (결과 dQ, dK, dV 포함)", "역전파의 최대 추가 메모리")
    ax_p.legend(frameon=False, fontsize=8)
    return fig
