"""Scaled dot-product attention and its five-line backward pass.

Conventions (shared by every backend):

- ``S = scale · Q Kᵀ``; ``scale`` defaults to ``1/sqrt(d_k)``; a multiplier α is passed as
  ``scale=α/sqrt(d_k)``.
- ``mask``: boolean, broadcastable to ``(..., n, m)``, True where query i may attend key j (as
  SDPA's boolean ``attn_mask``). Masked scores are *replaced* by ``fill`` (default ``-inf``).
  A replaced score no longer depends on Q and K, so its Δ does not reach dQ and dK (it is 0
  anyway with ``-inf``), though with a finite fill it still shapes r and dV.
- A row with every key masked: NaN with ``fill=-inf`` (plus a RuntimeWarning naming the rows),
  the uniform row with a finite fill.
- ``dropout_mask`` M: 0/1, shaped like P; ``P̃ = P ⊙ M / (1 − p_drop)``, ``O = P̃ V``.
- Shapes: Q (..., n, d_k), K (..., m, d_k), V (..., m, d_v), S P U Δ (..., n, m),
  O G (..., n, d_v), r lse (..., n).
"""

import math
from typing import Any, NamedTuple

from . import _validate
from .softmax import softmax_

NEG_INF = -math.inf


class AttentionParts(NamedTuple):
    """The intermediates of the backward: S, P, P̃, U, r, Δ (= ∂L/∂S) and the three gradients."""

    S: Any
    P: Any
    P_tilde: Any
    U: Any
    r: Any
    delta: Any
    dQ: Any
    dK: Any
    dV: Any


def scores(xp, Q, K, *, scale=None, mask=None, fill=NEG_INF):
    """S = scale · Q Kᵀ, masked scores replaced by ``fill``."""
    a = _validate.attention_args(xp, Q, K, None, scale, mask, fill, None, 0.0)
    return _scores(xp, a)


def attention(xp, Q, K, V, *, scale=None, mask=None, fill=NEG_INF, dropout_mask=None,
              p_drop=0.0):
    """O = P̃ V with P = softmax(scale · Q Kᵀ) row by row; returns (O, P)."""
    a = _validate.attention_args(xp, Q, K, V, scale, mask, fill, dropout_mask, p_drop)
    P = _probabilities(xp, a)  # (..., n, m)
    O = _dropped(xp, a, P) @ a.V  # (..., n, m) @ (..., m, d_v) -> (..., n, d_v)
    return O, P


def attention_backward(xp, G, Q, K, V, *, scale=None, mask=None, fill=NEG_INF,
                       dropout_mask=None, p_drop=0.0, P=None):
    """(dQ, dK, dV) by the five lines U = G Vᵀ, r, Δ = P ⊙ (U − r), dV = P̃ᵀG, dQ, dK = scale·Δ…

    P is recomputed from Q and K unless the forward's P is passed (then it is trusted).
    """
    a = _validate.attention_args(xp, Q, K, V, scale, mask, fill, dropout_mask, p_drop)
    G = _upstream(xp, a, G)
    if P is None:
        P = _probabilities(xp, a)
    else:
        P = xp.cast_like(_validate.array(xp, P, "P", like=a.Q, finite=False), a.Q)
        _validate.same_shape("P", P, a.S_shape, "the scores")
    return five_lines(xp, a, G, P)[-3:]


def attention_backward_parts(xp, G, Q, K, V, *, scale=None, mask=None, fill=NEG_INF,
                             dropout_mask=None, p_drop=0.0):
    """The backward with its intermediates: (S, P, P_tilde, U, r, delta, dQ, dK, dV)."""
    a = _validate.attention_args(xp, Q, K, V, scale, mask, fill, dropout_mask, p_drop)
    G = _upstream(xp, a, G)
    S = _scores(xp, a)
    P = row_softmax(xp, S, overwrite=False)
    return AttentionParts(S, *five_lines(xp, a, G, P, keep_parts=True))


def five_lines(xp, a, G, P, r=None, keep_parts=False):
    """U = G Vᵀ (⊙ M/(1−p)), r = rowsum(P ⊙ U), Δ = P ⊙ (U − r), dV = P̃ᵀG, dQ = sΔK, dK = sΔᵀQ.

    Returns (P, P̃, U, r, Δ, dQ, dK, dV); U is overwritten by Δ unless ``keep_parts``.
    """
    U = G @ xp.mT(a.V)  # (..., n, d_v) @ (..., d_v, m) -> (..., n, m)
    if a.keep is not None:
        U = xp.imul(U, a.keep)  # dropout enters through U
    if r is None:
        r = xp.einsum("...ij,...ij->...i", P, U)  # (..., n)
    if keep_parts:
        delta = P * (U - r[..., None])  # (..., n, m)
    else:
        delta = xp.imul(xp.isub(U, r[..., None]), P)  # in U's buffer
    delta_QK = delta if a.mask is None else xp.where(a.mask, delta, 0.0)  # replaced scores
    P_tilde = _dropped(xp, a, P)
    dV = xp.mT(P_tilde) @ G  # (..., m, n) @ (..., n, d_v) -> (..., m, d_v)
    dQ = delta_QK @ a.K  # (..., n, m) @ (..., m, d_k) -> (..., n, d_k)
    dK = xp.mT(delta_QK) @ a.Q  # (..., m, n) @ (..., n, d_k) -> (..., m, d_k)
    dQ, dK = xp.imul(dQ, a.scale), xp.imul(dK, a.scale)
    grads = (sum_to(xp, dQ, a.Q.shape), sum_to(xp, dK, a.K.shape), sum_to(xp, dV, a.V.shape))
    return (P, P_tilde, U if keep_parts else None, r, delta) + grads


def _scores(xp, a):
    """S = scale · Q Kᵀ with masked entries replaced by fill: (..., n, m)."""
    S = a.Q @ xp.mT(a.K)  # (..., n, d_k) @ (..., d_k, m) -> (..., n, m)
    S = xp.imul(S, a.scale)
    if a.mask is not None:
        S = xp.where(a.mask, S, a.fill)
    return S


def _probabilities(xp, a):
    """P = softmax(S) row by row, computed in S's own buffer."""
    return row_softmax(xp, _scores(xp, a), overwrite=True)


def row_softmax(xp, S, overwrite):
    """softmax along the last axis; ``overwrite`` reuses S's buffer (rows of -inf give NaN)."""
    with xp.errstate():
        shift = xp.detach(xp.max(S, axis=-1, keepdims=True))  # (..., n, 1)
        return softmax_(xp, xp.isub(S, shift) if overwrite else S - shift)


def _dropped(xp, a, P):
    """P̃ = P ⊙ M / (1 − p_drop) (P itself without dropout)."""
    return P if a.keep is None else P * a.keep


def _upstream(xp, a, G):
    """G = ∂L/∂O, checked to be shaped like O and cast to the inputs' dtype."""
    return xp.cast_like(_validate.gradient_like(xp, G, a.O_shape, like=a.Q), a.Q)


def sum_to(xp, x, shape):
    """Sum ``x`` over the axes along which an input of ``shape`` was broadcast."""
    while x.ndim > len(shape):
        x = x.sum(0)
    for axis, size in enumerate(shape):
        if size == 1 and x.shape[axis] != 1:
            x = xp.sum(x, axis=axis, keepdims=True)
    return x
