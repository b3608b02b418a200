"""Blockwise attention: the online softmax forward and the backward that recomputes P from lse.

No ``(..., n, m)`` array is ever made: the forward walks the keys in blocks of ``block_k``
with a running max ``m_i``, a running sum ``l_i`` and an unnormalised output, rescaled by
``exp(m_old − m_new)`` whenever the max grows; the backward recomputes each ``block_q × block_k``
block of P as ``exp(S − lse)`` and uses ``r = rowsum(G ⊙ O)``. Conventions (scale, mask, fill,
dropout_mask, shapes) are those of ``attention``; a block with every key masked is skipped when
``fill = -inf`` (it adds exactly nothing).
"""

import math
import operator
from typing import Any, NamedTuple

from . import _validate
from .attention import NEG_INF, _upstream, sum_to
from .attention_lse import dead_rows, probabilities_from_lse, saved_forward


class OnlineSteps(NamedTuple):
    """The online softmax after each key block (axis 0 of the arrays): ``stop`` (keys seen so far),
    running max m and sum l (..., n), acc = Σ_j e^{S_ij − m_i} (M/(1−p))_ij V_j and O = acc / l."""

    stop: Any
    m: Any
    l: Any
    acc: Any
    O: Any


def attention_blockwise(xp, Q, K, V, *, block_q, block_k, scale=None, mask=None, fill=NEG_INF,
                        dropout_mask=None, p_drop=0.0):
    """O and lse = m + log l by the online softmax over key blocks; returns (O, lse)."""
    a = _validate.attention_args(xp, Q, K, V, scale, mask, fill, dropout_mask, p_drop)
    bq, bk = _block(block_q, "block_q"), _block(block_k, "block_k")
    n = a.Q.shape[-2]
    O = _zeros(xp, a.O_shape, a.Q)  # (..., n, d_v)
    lse = _zeros(xp, a.S_shape[:-1], a.Q)  # (..., n)
    for i0, i1 in _blocks(n, bq):
        m_i, l_i, acc = _online_start(xp, a, i0, i1)
        for j0, j1 in _blocks(a.K.shape[-2], bk):
            state = _online_step(xp, a, i0, i1, j0, j1, m_i, l_i, acc)
            if state is not None:
                m_i, l_i, acc = state
        with xp.errstate():
            O[..., i0:i1, :] = acc / l_i[..., None]  # 0/0 = NaN in a row with every key masked
            lse[..., i0:i1] = m_i + xp.log(l_i)
    return O, lse


def attention_blockwise_steps(xp, Q, K, V, *, block_k, scale=None, mask=None, fill=NEG_INF,
                              dropout_mask=None, p_drop=0.0):
    """The online softmax block by block: OnlineSteps(stop, m, l, acc, O), axis 0 = step."""
    a = _validate.attention_args(xp, Q, K, V, scale, mask, fill, dropout_mask, p_drop)
    bk = _block(block_k, "block_k")
    n = a.Q.shape[-2]
    m_i, l_i, acc = _online_start(xp, a, 0, n)
    steps = []
    for j0, j1 in _blocks(a.K.shape[-2], bk):
        state = _online_step(xp, a, 0, n, j0, j1, m_i, l_i, acc, skip=False)
        m_i, l_i, acc = state
        with xp.errstate():
            steps.append((j1, m_i, l_i, acc, acc / l_i[..., None]))
    stop, *arrays = zip(*steps, strict=True)
    return OnlineSteps(stop, *(xp.stack(x) for x in arrays))


def attention_blockwise_backward(xp, G, Q, K, V, O, lse, *, block_q, block_k, scale=None,
                                 mask=None, fill=NEG_INF, dropout_mask=None, p_drop=0.0):
    """(dQ, dK, dV) block by block: P_ij = exp(S_ij − lse_i), r = rowsum(G ⊙ O), Δ = P ⊙ (U − r)."""
    a = _validate.attention_args(xp, Q, K, V, scale, mask, fill, dropout_mask, p_drop)
    bq, bk = _block(block_q, "block_q"), _block(block_k, "block_k")
    G = _upstream(xp, a, G)
    O, lse = saved_forward(xp, a, O, lse)
    n, m = a.Q.shape[-2], a.K.shape[-2]
    batch = a.O_shape[:-2]
    r = xp.einsum("...ia,...ia->...i", G, O)  # (..., n): one number per row, no P needed
    dead = dead_rows(xp, a)  # (..., n) or None: rows whose every key is replaced by a finite fill
    dQ = _zeros(xp, batch + (n, a.Q.shape[-1]), a.Q)  # (..., n, d_k)
    dK = _zeros(xp, batch + (m, a.K.shape[-1]), a.Q)  # (..., m, d_k)
    dV = _zeros(xp, batch + (m, a.V.shape[-1]), a.Q)  # (..., m, d_v)
    for j0, j1 in _blocks(m, bk):  # outer loop over keys: dK_j and dV_j stay in one place
        K_j, V_j = a.K[..., j0:j1, :], a.V[..., j0:j1, :]  # (..., bk, d_k), (..., bk, d_v)
        for i0, i1 in _blocks(n, bq):
            mask_ij = _block_mask(xp, a, i0, i1, j0, j1)
            if mask_ij is False:
                continue  # every key of the block masked with -inf: P_ij = 0, nothing to add
            Q_i, G_i = a.Q[..., i0:i1, :], G[..., i0:i1, :]  # (..., bq, d_k), (..., bq, d_v)
            S_ij = _block_scores(xp, a, Q_i, K_j, mask_ij)  # (..., bq, bk)
            dead_i = None if dead is None else dead[..., i0:i1]
            P_ij = probabilities_from_lse(xp, S_ij, lse[..., i0:i1], dead_i, m)  # (..., bq, bk)
            keep_ij = _block_keep(xp, a, i0, i1, j0, j1)
            P_tilde = P_ij if keep_ij is None else P_ij * keep_ij
            dV[..., j0:j1, :] += xp.mT(P_tilde) @ G_i  # (..., bk, bq) @ (..., bq, d_v)
            U_ij = G_i @ xp.mT(V_j)  # (..., bq, d_v) @ (..., d_v, bk) -> (..., bq, bk)
            if keep_ij is not None:
                U_ij = xp.imul(U_ij, keep_ij)  # dropout enters through U
            delta = xp.imul(xp.isub(U_ij, r[..., i0:i1, None]), P_ij)  # (..., bq, bk)
            if mask_ij is not None:
                delta = xp.where(mask_ij, delta, 0.0)  # a replaced score does not depend on Q, K
            dQ[..., i0:i1, :] += (delta @ K_j) * a.scale  # (..., bq, bk) @ (..., bk, d_k)
            dK[..., j0:j1, :] += (xp.mT(delta) @ Q_i) * a.scale  # (..., bk, bq) @ (..., bq, d_k)
    return sum_to(xp, dQ, a.Q.shape), sum_to(xp, dK, a.K.shape), sum_to(xp, dV, a.V.shape)


# ---------------------------------------------------------------- the online softmax step ----


def _online_start(xp, a, i0, i1):
    """m = −inf, l = 0 (shaped like lse's rows) and acc = 0 (like O's rows) for query rows i0:i1."""
    rows = a.S_shape[:-2] + (i1 - i0,)
    m_i = _zeros(xp, rows, a.Q) - math.inf  # (..., bq)
    l_i = _zeros(xp, rows, a.Q)  # (..., bq)
    acc = _zeros(xp, a.O_shape[:-2] + (i1 - i0, a.V.shape[-1]), a.Q)  # (..., bq, d_v)
    return m_i, l_i, acc


def _online_step(xp, a, i0, i1, j0, j1, m_i, l_i, acc, skip=True):
    """Fold key block j0:j1 into (m, l, acc): m' = max(m, max_j S_ij),
    l' = e^{m−m'} l + Σ_j e^{S_ij−m'}, acc' = e^{m−m'} acc + Σ_j e^{S_ij−m'} V_j.

    Returns None when the block can be skipped (every key masked with fill = -inf).
    """
    mask_ij = _block_mask(xp, a, i0, i1, j0, j1)
    if mask_ij is False:
        if skip:
            return None
        mask_ij = _mask_slice(xp, a, i0, i1, j0, j1)
    S_ij = _block_scores(xp, a, a.Q[..., i0:i1, :], a.K[..., j0:j1, :], mask_ij)  # (..., bq, bk)
    with xp.errstate():
        m_new = xp.detach(_maximum(xp, m_i, xp.max(S_ij, axis=-1)))  # (..., bq)
        shift = xp.where(m_new == -math.inf, 0.0, m_new)  # a row with nothing yet: keep 0, not NaN
        alpha = xp.exp(m_i - shift)  # (..., bq): rescales what was summed under the old max
        E = xp.exp_(xp.isub(S_ij, shift[..., None]))  # (..., bq, bk)
        keep_ij = _block_keep(xp, a, i0, i1, j0, j1)
        l_new = alpha * l_i + xp.sum(E, axis=-1)  # (..., bq)
        E_tilde = E if keep_ij is None else E * keep_ij
        acc = acc * alpha[..., None] + E_tilde @ a.V[..., j0:j1, :]  # (.., bq, bk) @ (.., bk, d_v)
    return m_new, l_new, acc


# ---------------------------------------------------------------------- block helpers ----


def _block(x, name):
    """A block size: a positive integer, else ValueError naming it."""
    try:
        b = operator.index(x)
    except TypeError:
        raise ValueError(f"{name} must be a positive integer, got {x!r}") from None
    if b < 1:
        raise ValueError(f"{name} must be a positive integer, got {b}")
    return b


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


def _mask_slice(xp, a, i0, i1, j0, j1):
    """The mask's block (..., i0:i1, j0:j1) as a view (the mask is broadcast, never copied)."""
    return xp.broadcast_to(a.mask, a.S_shape)[..., i0:i1, j0:j1]


def _block_mask(xp, a, i0, i1, j0, j1):
    """The block of the mask; None without a mask, False when fill=-inf masks the whole block."""
    if a.mask is None:
        return None
    mask_ij = _mask_slice(xp, a, i0, i1, j0, j1)
    if a.fill == NEG_INF and not bool(xp.any(mask_ij)):
        return False
    return mask_ij


def _block_keep(xp, a, i0, i1, j0, j1):
    """The block of M / (1 − p_drop), or None without dropout."""
    if a.keep is None:
        return None
    return xp.broadcast_to(a.keep, a.S_shape)[..., i0:i1, j0:j1]


def _block_scores(xp, a, Q_i, K_j, mask_ij):
    """S_ij = scale · Q_i K_jᵀ, masked scores replaced by fill: (..., bq, bk)."""
    S_ij = Q_i @ xp.mT(K_j)  # (..., bq, d_k) @ (..., d_k, bk) -> (..., bq, bk)
    S_ij = xp.imul(S_ij, a.scale)
    if mask_ij is not None:
        S_ij = xp.where(mask_ij, S_ij, a.fill)
    return S_ij


def block_grid(n, m, *, block_q, block_k, mask=None, fill=NEG_INF):
    """Per (query block, key block): 0 skipped (all masked, fill = -inf), 1 partly masked, 2 full.

    The same decision the loops above make, as a NumPy int array (n_q_blocks, n_k_blocks).
    """
    import numpy as np

    bq, bk = _block(block_q, "block_q"), _block(block_k, "block_k")
    live = np.ones((n, m), bool) if mask is None else np.broadcast_to(np.asarray(mask, bool),
                                                                      (n, m))
    grid = np.zeros((len(_blocks(n, bq)), len(_blocks(m, bk))), dtype=int)
    for a, (i0, i1) in enumerate(_blocks(n, bq)):
        for b, (j0, j1) in enumerate(_blocks(m, bk)):
            block = live[i0:i1, j0:j1]
            grid[a, b] = 2 if block.all() else (1 if block.any() or fill != NEG_INF else 0)
    return grid


API = (attention_blockwise, attention_blockwise_backward, attention_blockwise_steps)
TYPES = {"OnlineSteps": OnlineSteps}
