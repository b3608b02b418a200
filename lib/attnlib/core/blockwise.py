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

from . import _validate
from .attention import NEG_INF, _upstream, input_grads, normalizer, quiet_rows
from .attention_lse import probabilities_from_lse, saved_forward


class OnlineSteps(NamedTuple):
    """The online softmax after each key block (axis 0 of the arrays): ``stop`` (keys seen so far),
    running max s_max and sum l (..., n), acc = Σ_j e^{S_ij − s_max} (M/(1−p))_ij V_j,
    O = acc / l."""

    stop: Any
    s_max: Any
    l: Any
    acc: Any
    O: Any


def attention_blockwise(xp, Q, K, V, *, block_q, block_k, scale=None, mask=None, fill=NEG_INF,
                        is_causal=False, fully_masked="nan", enable_gqa=False, dropout_mask=None,
                        p_drop=0.0):
    """O and lse = s_max + log l by the online softmax over key blocks; returns (O, lse)."""
    a = _validate.attention_args(xp, Q, K, V, scale=scale, mask=mask, fill=fill,
                                 is_causal=is_causal, fully_masked=fully_masked,
                                 enable_gqa=enable_gqa, dropout_mask=dropout_mask, p_drop=p_drop)
    bq, bk = _block(block_q, "block_q"), _block(block_k, "block_k")
    n = a.Q.shape[-2]
    O = _zeros(xp, a.O_shape, a.Q)  # (..., n, d_v)
    lse = _zeros(xp, a.S_shape[:-1], a.Q)  # (..., n)
    for i0, i1 in _blocks(n, bq):
        s_max, l_i, acc = _online_start(xp, a, i0, i1)
        for j0, j1 in _blocks(a.K.shape[-2], bk):
            state = _online_step(xp, a, i0, i1, j0, j1, s_max, l_i, acc)
            if state is not None:
                s_max, l_i, acc = state
        with xp.errstate():
            l_i, lse[..., i0:i1] = normalizer(xp, s_max, l_i, a.fully_masked)  # l = 0: fully masked
            O[..., i0:i1, :] = acc / l_i[..., None]  # 0/0 = NaN there, or 0/1 = 0
    return O, lse


def attention_blockwise_steps(xp, Q, K, V, *, block_k, scale=None, mask=None, fill=NEG_INF,
                              is_causal=False, fully_masked="nan", enable_gqa=False,
                              dropout_mask=None, p_drop=0.0):
    """The online softmax block by block: OnlineSteps(stop, s_max, l, acc, O), axis 0 = step."""
    a = _validate.attention_args(xp, Q, K, V, scale=scale, mask=mask, fill=fill,
                                 is_causal=is_causal, fully_masked=fully_masked,
                                 enable_gqa=enable_gqa, dropout_mask=dropout_mask, p_drop=p_drop)
    bk = _block(block_k, "block_k")
    n = a.Q.shape[-2]
    s_max, l_i, acc = _online_start(xp, a, 0, n)
    steps = []
    for j0, j1 in _blocks(a.K.shape[-2], bk):
        s_max, l_i, acc = _online_step(xp, a, 0, n, j0, j1, s_max, l_i, acc, skip=False)
        with xp.errstate():
            Z, _ = normalizer(xp, s_max, l_i, a.fully_masked)
            steps.append((j1, s_max, l_i, acc, acc / Z[..., None]))
    stop, *arrays = zip(*steps, strict=True)
    return OnlineSteps(stop, *(xp.stack(x) for x in arrays))


def attention_blockwise_backward(xp, G, Q, K, V, O, lse, *, block_q, block_k, scale=None,
                                 mask=None, fill=NEG_INF, is_causal=False, fully_masked="nan",
                                 enable_gqa=False, dropout_mask=None, p_drop=0.0):
    """(dQ, dK, dV) block by block: P_ij = exp(S_ij − lse_i), r = rowsum(G ⊙ O), Δ = P ⊙ (U − r)."""
    a = _validate.attention_args(xp, Q, K, V, scale=scale, mask=mask, fill=fill,
                                 is_causal=is_causal, fully_masked=fully_masked,
                                 enable_gqa=enable_gqa, dropout_mask=dropout_mask, p_drop=p_drop)
    bq, bk = _block(block_q, "block_q"), _block(block_k, "block_k")
    G = _upstream(xp, a, G)
    O, lse = saved_forward(xp, a, O, lse)
    n, m = a.Q.shape[-2], a.K.shape[-2]
    batch = a.O_shape[:-2]
    r = xp.einsum("...ia,...ia->...i", G, O)  # (..., n): one number per row, no P needed
    quiet = quiet_rows(xp, a, G)  # (..., n) or None: fully masked rows that add nothing
    if quiet is not None:
        r = xp.where(quiet, 0.0, r)
    dQ = _zeros(xp, batch + (n, a.Q.shape[-1]), a.Q)  # (..., n, d_k)
    dK = _zeros(xp, batch + (m, a.K.shape[-1]), a.Q)  # (..., m, d_k)
    dV = _zeros(xp, batch + (m, a.V.shape[-1]), a.Q)  # (..., m, d_v)
    for j0, j1 in _blocks(m, bk):  # outer loop over keys: dK_j and dV_j stay in one place
        K_j, V_j = a.K[..., j0:j1, :], a.V[..., j0:j1, :]  # (..., bk, d_k), (..., bk, d_v)
        for i0, i1 in _blocks(n, bq):
            if _skipped(xp, a, i0, i1, j0, j1):
                continue  # every score of the block is −inf: P_ij = 0, nothing to add
            Q_i, G_i = a.Q[..., i0:i1, :], G[..., i0:i1, :]  # (..., bq, d_k), (..., bq, d_v)
            S_ij = _block_scores(xp, a, Q_i, K_j, i0, i1, j0, j1)  # (..., bq, bk)
            P_ij = probabilities_from_lse(xp, S_ij, lse[..., i0:i1], _rows(a.uniform, i0, i1),
                                          m)  # (..., bq, bk)
            if quiet is not None:
                P_ij = xp.where(quiet[..., i0:i1, None], 0.0, P_ij)
            keep_ij = _block_of(xp, a, a.keep, i0, i1, j0, j1)
            P_tilde = P_ij if keep_ij is None else P_ij * keep_ij
            dV[..., j0:j1, :] += xp.mT(P_tilde) @ G_i  # (..., bk, bq) @ (..., bq, d_v)
            U_ij = G_i @ xp.mT(V_j)  # (..., bq, d_v) @ (..., d_v, bk) -> (..., bq, bk)
            if keep_ij is not None:
                U_ij = xp.imul(U_ij, keep_ij)  # dropout enters through U
            delta = xp.imul(xp.isub(U_ij, r[..., i0:i1, None]), P_ij)  # (..., bq, bk)
            if a.mask is not None:  # a replaced score does not depend on Q, K
                delta = xp.where(_block_of(xp, a, a.mask, i0, i1, j0, j1), delta, 0.0)
            dQ[..., i0:i1, :] += (delta @ K_j) * a.scale  # (..., bq, bk) @ (..., bk, d_k)
            dK[..., j0:j1, :] += (xp.mT(delta) @ Q_i) * a.scale  # (..., bk, bq) @ (..., bq, d_k)
    return input_grads(xp, a, dQ, dK, dV)


# ---------------------------------------------------------------- the online softmax step ----


def _online_start(xp, a, i0, i1):
    """s_max = −inf, l = 0 (like lse's rows) and acc = 0 (like O's rows) for query rows i0:i1."""
    rows = a.S_shape[:-2] + (i1 - i0,)
    s_max = _zeros(xp, rows, a.Q) - math.inf  # (..., bq)
    l_i = _zeros(xp, rows, a.Q)  # (..., bq)
    acc = _zeros(xp, a.O_shape[:-2] + (i1 - i0, a.V.shape[-1]), a.Q)  # (..., bq, d_v)
    return s_max, l_i, acc


def _online_step(xp, a, i0, i1, j0, j1, s_max, l_i, acc, skip=True):
    """Fold key block j0:j1 into (s_max, l, acc): s' = max(s_max, max_j S_ij),
    l' = e^{s_max−s'} l + Σ_j e^{S_ij−s'}, acc' = e^{s_max−s'} acc + Σ_j e^{S_ij−s'} V_j.

    Returns None when the block can be skipped (every score −inf).
    """
    if skip and _skipped(xp, a, i0, i1, j0, j1):
        return None
    S_ij = _block_scores(xp, a, a.Q[..., i0:i1, :], a.K[..., j0:j1, :], i0, i1, j0, j1)
    with xp.errstate():
        s_max_new = xp.detach(_maximum(xp, s_max, xp.max(S_ij, axis=-1)))  # (..., bq)
        shift = xp.where(s_max_new == -math.inf, 0.0, s_max_new)  # nothing seen yet: 0, not NaN
        alpha = xp.exp(s_max - shift)  # (..., bq): rescales what was summed under the old max
        E = xp.exp_(xp.isub(S_ij, shift[..., None]))  # (..., bq, bk)
        keep_ij = _block_of(xp, a, a.keep, i0, i1, j0, j1)
        l_new = alpha * l_i + xp.sum(E, axis=-1)  # (..., bq)
        E_tilde = E if keep_ij is None else E * keep_ij
        acc = acc * alpha[..., None] + E_tilde @ a.V[..., j0:j1, :]  # (.., bq, bk) @ (.., bk, d_v)
    return s_max_new, l_new, acc


# ---------------------------------------------------------------------- block helpers ----


def _block(x, name):
    """A block size: a positive integer, else ValueError naming it."""
    return _validate.positive_int(x, name)


def _blocks(size, b):
    """The (start, stop) pairs that cut range(size) into blocks of b (the last may be shorter)."""
    return [(s, min(s + b, size)) for s in range(0, size, b)]


def _zeros(xp, shape, like):
    """A zero array of ``shape`` with ``like``'s dtype and device."""
    zero = xp.cast_like(xp.asraw(0.0, like), like)
    return xp.copy(xp.broadcast_to(zero, tuple(shape)))


def _maximum(xp, x, y):
    """Elementwise max of two arrays of one shape."""
    return xp.where(x >= y, x, y)


def _rows(x, i0, i1):
    """Rows i0:i1 of a per-row array (..., n), or None."""
    return None if x is None else x[..., i0:i1]


def _block_of(xp, a, X, i0, i1, j0, j1):
    """Block (..., i0:i1, j0:j1) of an array broadcast to the scores' shape (a view), or None."""
    if X is None:
        return None
    return xp.broadcast_to(X, a.S_shape)[..., i0:i1, j0:j1]


def _skipped(xp, a, i0, i1, j0, j1):
    """Is every score of the block −inf (boolean mask with fill = −inf, or a float mask)?"""
    if a.bias is not None:
        return not bool(xp.any(_block_of(xp, a, a.bias, i0, i1, j0, j1) > NEG_INF))
    if a.mask is not None and a.fill == NEG_INF:
        return not bool(xp.any(_block_of(xp, a, a.mask, i0, i1, j0, j1)))
    return False


def _block_scores(xp, a, Q_i, K_j, i0, i1, j0, j1):
    """S_ij = scale · Q_i K_jᵀ, masked scores replaced by fill or the float mask added."""
    S_ij = Q_i @ xp.mT(K_j)  # (..., bq, d_k) @ (..., d_k, bk) -> (..., bq, bk)
    S_ij = xp.imul(S_ij, a.scale)
    if a.mask is not None:
        S_ij = xp.where(_block_of(xp, a, a.mask, i0, i1, j0, j1), S_ij, a.fill)
    if a.bias is not None:
        S_ij = S_ij + _block_of(xp, a, a.bias, i0, i1, j0, j1)
    return S_ij


def block_grid(n, m, *, block_q, block_k, mask=None, fill=NEG_INF):
    """Per (query block, key block): 0 skipped (every score −inf), 1 partly masked, 2 full.

    The same decision the loops above make, as a NumPy int array (n_q_blocks, n_k_blocks);
    ``mask`` boolean (replaced by ``fill``) or float (added: its −inf entries mask).
    """
    import numpy as np

    bq, bk = _block(block_q, "block_q"), _block(block_k, "block_k")
    raw = np.ones((n, m), bool) if mask is None else np.asarray(mask)
    if raw.dtype.kind == "f":
        live, fill = raw > NEG_INF, NEG_INF  # an added −inf masks; finite values do not
    elif raw.dtype == bool:
        live = raw
    else:
        raise ValueError(f"mask must be boolean or float, got dtype {raw.dtype}")
    live = np.broadcast_to(live, (n, m))
    grid = np.zeros((len(_blocks(n, bq)), len(_blocks(m, bk))), dtype=int)
    for a, (i0, i1) in enumerate(_blocks(n, bq)):
        for b, (j0, j1) in enumerate(_blocks(m, bk)):
            block = live[i0:i1, j0:j1]
            grid[a, b] = 2 if block.all() else (1 if block.any() or fill != NEG_INF else 0)
    return grid


API = (attention_blockwise, attention_blockwise_backward, attention_blockwise_steps)
TYPES = {"OnlineSteps": OnlineSteps}
