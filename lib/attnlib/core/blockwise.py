"""Blockwise attention: the online softmax forward and the backward that recomputes P from lse.

No ``(..., n, m)`` array is ever made: the forward walks the keys in blocks of ``block_k``
with a running max ``s_max`` (the largest score so far; ``m`` is the number of keys), a running
sum ``l_i`` and an unnormalised output, rescaled by ``exp(s_max_old − s_max_new)`` whenever the max
grows; the backward recomputes each ``block_q × block_k`` block of P as ``exp(S − lse)`` and uses
``r = rowsum(G ⊙ O)``. Conventions (scale, mask, fill, is_causal, fully_masked, enable_gqa,
dropout_mask, shapes) are those of ``attention``; a block whose every score is −inf is skipped (it
adds exactly nothing). With ``fully_masked="nan"`` and a fully masked row that G reads, NaN
reaches dV only in the key blocks that are not skipped.
"""

import math
from typing import Any, NamedTuple

import numpy as np

from . import validate
from .attention import (
    NEG_INF,
    block,
    dropped,
    masked_scores,
    normalizer,
    quiet_rows,
    sum_to_inputs,
)
from .attention_lse import probabilities_from_lse, saved_forward
from .validate import attention_inputs


class OnlineSteps(NamedTuple):
    """The online softmax after each key block (axis 0 of the arrays): ``stop`` (keys seen so far),
    running max s_max (a shift: no gradient) and sum l (..., n),
    acc = Σ_j e^{S_ij − s_max} (M/(1−p))_ij V_j, O = acc / l."""

    stop: Any
    s_max: Any
    l: Any
    acc: Any
    O: Any


def attention_blockwise(xp, Q, K, V, *, block_q, block_k, scale=None, mask=None, fill=NEG_INF,
                        is_causal=False, fully_masked="nan", enable_gqa=False, dropout_mask=None,
                        p_drop=0.0):
    """O and lse = s_max + log l by the online softmax over key blocks; returns (O, lse)."""
    inputs = attention_inputs(xp, Q, K, V, scale=scale, mask=mask, fill=fill, is_causal=is_causal,
                              fully_masked=fully_masked, enable_gqa=enable_gqa,
                              dropout_mask=dropout_mask, p_drop=p_drop)
    bq, bk = _block_size(block_q, "block_q"), _block_size(block_k, "block_k")
    n, m = inputs.Q.shape[-2], inputs.K.shape[-2]
    O = _zeros_in_graph(xp, inputs, inputs.O_shape)  # (..., n, d_v)
    lse = _zeros_in_graph(xp, inputs, inputs.S_shape[:-1])  # (..., n)
    for rows in _blocks(n, bq):
        s_max, l_i, acc = _online_start(xp, inputs, rows)
        for cols in _blocks(m, bk):
            if not _skipped(xp, inputs, rows, cols):  # a block of −inf scores adds nothing
                s_max, l_i, acc = _online_step(xp, inputs, s_max, l_i, acc, rows=rows, cols=cols)
        with xp.errstate():
            l_i, lse[..., rows] = normalizer(xp, s_max, l_i, inputs.fully_masked)  # l = 0: masked
            O[..., rows, :] = acc / l_i[..., None]  # 0/0 = NaN there, or 0/1 = 0
    return O, lse


def attention_blockwise_steps(xp, Q, K, V, *, block_k, scale=None, mask=None, fill=NEG_INF,
                              is_causal=False, fully_masked="nan", enable_gqa=False,
                              dropout_mask=None, p_drop=0.0):
    """The online softmax block by block: OnlineSteps(stop, s_max, l, acc, O), axis 0 = step."""
    inputs = attention_inputs(xp, Q, K, V, scale=scale, mask=mask, fill=fill, is_causal=is_causal,
                              fully_masked=fully_masked, enable_gqa=enable_gqa,
                              dropout_mask=dropout_mask, p_drop=p_drop)
    bk = _block_size(block_k, "block_k")
    rows = slice(0, inputs.Q.shape[-2])  # every query row at once
    s_max, l_i, acc = _online_start(xp, inputs, rows)
    steps = []
    for cols in _blocks(inputs.K.shape[-2], bk):
        s_max, l_i, acc = _online_step(xp, inputs, s_max, l_i, acc, rows=rows, cols=cols)
        with xp.errstate():
            Z, _ = normalizer(xp, s_max, l_i, inputs.fully_masked)
            steps.append((cols.stop, s_max, l_i, acc, acc / Z[..., None]))
    stop, *arrays = zip(*steps, strict=True)
    return OnlineSteps(stop, *(xp.stack(x) for x in arrays))


def attention_blockwise_backward(xp, G, Q, K, V, O, lse, *, block_q, block_k, scale=None,
                                 mask=None, fill=NEG_INF, is_causal=False, fully_masked="nan",
                                 enable_gqa=False, dropout_mask=None, p_drop=0.0):
    """(dQ, dK, dV) block by block: P_ij = exp(S_ij − lse_i), r = rowsum(G ⊙ O), Δ = P ⊙ (U − r)."""
    inputs = attention_inputs(xp, Q, K, V, G=G, scale=scale, mask=mask, fill=fill,
                              is_causal=is_causal, fully_masked=fully_masked,
                              enable_gqa=enable_gqa, dropout_mask=dropout_mask, p_drop=p_drop)
    bq, bk = _block_size(block_q, "block_q"), _block_size(block_k, "block_k")
    O, lse = saved_forward(xp, inputs, O=O, lse=lse)
    G, Q, K, V, scale = inputs.G, inputs.Q, inputs.K, inputs.V, inputs.scale
    n, m = Q.shape[-2], K.shape[-2]
    batch = inputs.O_shape[:-2]
    r = xp.einsum("...ia,...ia->...i", G, O)  # (..., n): one number per row, no P needed
    quiet = quiet_rows(xp, inputs, G)  # (..., n) or None: fully masked rows that add nothing
    if quiet is not None:
        r = xp.where(quiet, 0.0, r)
    dQ = _zeros_in_graph(xp, inputs, batch + (n, Q.shape[-1]), O, lse)  # (..., n, d_k)
    dK = _zeros_in_graph(xp, inputs, batch + (m, K.shape[-1]), O, lse)  # (..., m, d_k)
    dV = _zeros_in_graph(xp, inputs, batch + (m, V.shape[-1]), O, lse)  # (..., m, d_v)
    for cols in _blocks(m, bk):  # outer loop over keys: dK_j and dV_j stay in one place
        K_j, V_j = K[..., cols, :], V[..., cols, :]  # (..., bk, d_k), (..., bk, d_v)
        for rows in _blocks(n, bq):
            if _skipped(xp, inputs, rows, cols):
                continue  # every score of the block is −inf: P_ij = 0, nothing to add
            Q_i, G_i = Q[..., rows, :], G[..., rows, :]  # (..., bq, d_k), (..., bq, d_v)
            S_ij = masked_scores(xp, inputs, rows=rows, cols=cols)  # (..., bq, bk)
            uniform = None if inputs.uniform is None else inputs.uniform[..., rows]
            P_ij = probabilities_from_lse(xp, S_ij, lse[..., rows], uniform=uniform, m=m)
            if quiet is not None:
                P_ij = xp.where(quiet[..., rows, None], 0.0, P_ij)
            M_ij = block(xp, inputs, inputs.dropout, rows, cols)  # M/(1 − p) or None
            dV[..., cols, :] += xp.mT(dropped(P_ij, M_ij)) @ G_i  # (.., bk, bq) @ (.., bq, d_v)
            U_ij = G_i @ xp.mT(V_j)  # (..., bq, d_v) @ (..., d_v, bk) -> (..., bq, bk)
            if M_ij is not None:
                U_ij = U_ij * M_ij  # dropout enters through U
            # Δ_ij = P_ij ⊙ (U_ij − r_i), in U_ij's buffer (measure.in_place_sweep; appendix)
            delta = xp.imul(xp.isub(U_ij, r[..., rows, None]), P_ij)  # (..., bq, bk)
            if inputs.mask is not None:  # a replaced score does not depend on Q, K
                delta = xp.where(block(xp, inputs, inputs.mask, rows, cols), delta, 0.0)
            dQ[..., rows, :] += scale * (delta @ K_j)  # (..., bq, bk) @ (..., bk, d_k)
            dK[..., cols, :] += scale * (xp.mT(delta) @ Q_i)  # (..., bk, bq) @ (..., bq, d_k)
    return sum_to_inputs(xp, inputs, dQ=dQ, dK=dK, dV=dV)


# ---------------------------------------------------------------- the online softmax step ----


def _online_start(xp, inputs, rows):
    """s_max = −inf, l = 0 (like lse's rows) and acc = 0 (like O's rows) for the query rows."""
    n_rows = rows.stop - rows.start
    s_max = xp.zeros(inputs.S_shape[:-2] + (n_rows,), inputs.Q) - math.inf  # (..., bq)
    l_i = xp.zeros(inputs.S_shape[:-2] + (n_rows,), inputs.Q)  # (..., bq)
    acc = xp.zeros(inputs.O_shape[:-2] + (n_rows, inputs.V.shape[-1]), inputs.Q)  # (.., bq, d_v)
    return s_max, l_i, acc


def _online_step(xp, inputs, s_max, l_i, acc, *, rows, cols):
    """Fold key block ``cols`` into (s_max, l, acc): s' = max(s_max, max_j S_ij),
    l' = e^{s_max−s'} l + Σ_j e^{S_ij−s'}, acc' = e^{s_max−s'} acc + Σ_j e^{S_ij−s'} V_j."""
    S_ij = masked_scores(xp, inputs, rows=rows, cols=cols)  # (..., bq, bk)
    with xp.errstate():
        s_max_new = xp.detach(_maximum(xp, s_max, xp.max(S_ij, axis=-1)))  # (..., bq)
        shift = xp.where(s_max_new == -math.inf, 0.0, s_max_new)  # nothing seen yet: 0, not NaN
        alpha = xp.exp(s_max - shift)  # (..., bq): rescales what was summed under the old max
        E = xp.exp_(xp.isub(S_ij, shift[..., None]))  # e^(S_ij − s'), in S_ij's buffer
        l_new = alpha * l_i + xp.sum(E, axis=-1)  # (..., bq)
        E_tilde = dropped(E, block(xp, inputs, inputs.dropout, rows, cols))  # (..., bq, bk)
        acc = acc * alpha[..., None] + E_tilde @ inputs.V[..., cols, :]  # (.., bk) @ (.., bk, d_v)
    return s_max_new, l_new, acc


# ---------------------------------------------------------------------- block helpers ----


def _block_size(x, name):
    """A block size: a positive integer, else ValueError naming it."""
    return validate.positive_int(x, name)


def _zeros_in_graph(xp, inputs, shape, *saved):
    """Zeros for the blocks to fill, attached to the autograd graph of the inputs (and of the saved
    O, lse): where every block is skipped, torch autograd still finds the result and gives zero
    gradients, as SDPA does for a fully masked row."""
    return xp.attach(xp.zeros(shape, inputs.Q), inputs.Q, inputs.K, inputs.V, inputs.bias,
                     inputs.G, *saved)


def _blocks(size, b):
    """The slices that cut range(size) into blocks of b (the last may be shorter)."""
    return [slice(start, min(start + b, size)) for start in range(0, size, b)]


def _maximum(xp, x, y):
    """Elementwise max of two arrays of one shape."""
    return xp.where(x >= y, x, y)


def _skipped(xp, inputs, rows, cols):
    """Is every score of the block −inf (boolean mask with fill = −inf, or a float mask)?"""
    if inputs.bias is not None:
        return not bool(xp.any(block(xp, inputs, inputs.bias, rows, cols) > NEG_INF))
    if inputs.mask is not None and inputs.fill == NEG_INF:
        return not bool(xp.any(block(xp, inputs, inputs.mask, rows, cols)))
    return False


def block_grid(n, m, *, block_q, block_k, mask=None, fill=NEG_INF):
    """Per (query block, key block): 0 skipped (every score −inf), 1 partly masked, 2 full.

    The decision the loops of ``attention_blockwise[_backward]`` make, as a NumPy int array
    (n_q_blocks, n_k_blocks): a table for figures, the same in both backends. ``mask`` boolean
    (replaced by ``fill``) or float (added: its −inf entries mask), as NumPy (or CPU tensor).
    """
    bq, bk = _block_size(block_q, "block_q"), _block_size(block_k, "block_k")
    raw = np.ones((n, m), bool) if mask is None else np.asarray(mask)
    if raw.dtype.kind == "f":
        live, fill = raw > NEG_INF, NEG_INF  # an added −inf masks; finite values do not
    elif raw.dtype == bool:
        live = raw
    else:
        raise ValueError(f"mask must be boolean or float, got dtype {raw.dtype}")
    live = np.broadcast_to(live, (n, m))
    grid = np.zeros((len(_blocks(n, bq)), len(_blocks(m, bk))), dtype=int)
    for i, rows in enumerate(_blocks(n, bq)):
        for j, cols in enumerate(_blocks(m, bk)):
            live_ij = live[rows, cols]
            grid[i, j] = 2 if live_ij.all() else (1 if live_ij.any() or fill != NEG_INF else 0)
    return grid
