"""Scaled dot-product attention and its five-line backward pass.

Conventions (shared by every backend):

- ``S = scale · Q Kᵀ``; ``scale`` defaults to ``1/sqrt(d_k)``; a multiplier α is passed as
  ``scale=α/sqrt(d_k)``.
- ``mask`` as SDPA's ``attn_mask``, broadcastable to ``(..., n, m)``. Boolean: True where query i
  may attend key j; masked scores are *replaced* by ``fill`` (default ``-inf``). A replaced score
  no longer depends on Q and K, so its Δ does not reach dQ and dK (it is 0 anyway with ``-inf``),
  though with a finite fill it still shapes r and dV. Float: *added* to the scores (``-inf``
  masks; gradients still flow through every score); ``fill`` is for boolean masks only. Any other
  dtype (integers too) is a ValueError.
- ``is_causal=True``: the boolean mask j ≤ i, aligned upper left as SDPA's ``is_causal``;
  flash-attention aligns it lower right (j ≤ i + m − n) when n ≠ m: ``causal_mask(n, m,
  align="lower_right")``.
- A fully masked row (every score −inf): softmax is 0/0. ``fully_masked="nan"`` (default) gives
  the math's NaN in P and O (plus a RuntimeWarning naming the rows); ``fully_masked="zero"`` gives
  P = 0, O = 0 and zero gradients from the row, as SDPA (torch ≥ 2.5) and flash-attention do.
  In both modes a row whose upstream gradient G is 0 adds nothing to any gradient.
  A row masked by a finite fill is uniform (not fully masked in this sense).
- ``enable_gqa=True``: K and V may have fewer heads (axis -3) than Q, a divisor of Q's; query
  head h reads key/value head h // (H / H_kv), as SDPA's ``enable_gqa``; dK and dV are summed
  over the query heads that share them.
- ``dropout_mask`` M: 0/1, shaped like P; ``P̃ = P ⊙ M / (1 − p_drop)``, ``O = P̃ V``.
- Shapes: Q (..., n, d_k), K (..., m, d_k), V (..., m, d_v), S P U Δ (..., n, m),
  O G (..., n, d_v), r lse (..., n).
"""

import math
from typing import Any, NamedTuple

from . import validate
from .validate import attention_inputs

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


def causal_mask(xp, n, m, *, align="upper_left"):
    """The boolean causal mask (n, m): j ≤ i ("upper_left", SDPA's is_causal) or j ≤ i + m − n
    ("lower_right", flash-attention's causal; for n > m its first n − m rows are fully masked)."""
    n, m = validate.positive_int(n, "n"), validate.positive_int(m, "m")
    if align not in ("upper_left", "lower_right"):
        raise ValueError(f"align must be 'upper_left' or 'lower_right', got {align!r}")
    return validate.causal(xp, n, m, 0 if align == "upper_left" else m - n)


def scores(xp, Q, K, *, scale=None, mask=None, fill=NEG_INF, is_causal=False, enable_gqa=False):
    """S = scale · Q Kᵀ, masked scores replaced by ``fill`` (boolean mask) or the mask added."""
    inputs = attention_inputs(xp, Q, K, None, scale=scale, mask=mask, fill=fill,
                              is_causal=is_causal, enable_gqa=enable_gqa,
                              fully_masked="zero")  # no P here: no NaN warning
    return masked_scores(xp, inputs)


def attention(xp, Q, K, V, *, scale=None, mask=None, fill=NEG_INF, is_causal=False,
              fully_masked="nan", enable_gqa=False, dropout_mask=None, p_drop=0.0):
    """O = P̃ V with P = softmax(scale · Q Kᵀ) row by row; returns (O, P)."""
    inputs = attention_inputs(xp, Q, K, V, scale=scale, mask=mask, fill=fill, is_causal=is_causal,
                              fully_masked=fully_masked, enable_gqa=enable_gqa,
                              dropout_mask=dropout_mask, p_drop=p_drop)
    P = probabilities(xp, inputs)  # (..., n, m)
    O = dropped(P, inputs.dropout) @ inputs.V  # (..., n, m) @ (..., m, d_v) -> (..., n, d_v)
    return O, P


def attention_backward(xp, G, Q, K, V, *, scale=None, mask=None, fill=NEG_INF, is_causal=False,
                       fully_masked="nan", enable_gqa=False, dropout_mask=None, p_drop=0.0,
                       P=None):
    """(dQ, dK, dV) by the five lines U = G Vᵀ, r, Δ = P ⊙ (U − r), dV = P̃ᵀG, dQ, dK = scale·Δ…

    P is recomputed from Q and K unless the forward's P is passed (then it is trusted).
    """
    inputs = attention_inputs(xp, Q, K, V, G=G, scale=scale, mask=mask, fill=fill,
                              is_causal=is_causal, fully_masked=fully_masked,
                              enable_gqa=enable_gqa, dropout_mask=dropout_mask, p_drop=p_drop)
    if P is None:
        P = probabilities(xp, inputs)
    else:
        P = xp.cast_like(validate.array(xp, P, "P", like=inputs.Q, finite=False), inputs.Q)
        validate.same_shape("P", P, inputs.S_shape, "the scores")
    grads = five_lines(xp, inputs, P=P)
    return grads.dQ, grads.dK, grads.dV


def attention_backward_parts(xp, G, Q, K, V, *, scale=None, mask=None, fill=NEG_INF,
                             is_causal=False, fully_masked="nan", enable_gqa=False,
                             dropout_mask=None, p_drop=0.0):
    """The backward with its intermediates: (S, P, P_tilde, U, r, delta, dQ, dK, dV)."""
    inputs = attention_inputs(xp, Q, K, V, G=G, scale=scale, mask=mask, fill=fill,
                              is_causal=is_causal, fully_masked=fully_masked,
                              enable_gqa=enable_gqa, dropout_mask=dropout_mask, p_drop=p_drop)
    S = masked_scores(xp, inputs)  # (..., n, m)
    P = row_softmax(xp, S, fully_masked=inputs.fully_masked)  # S is kept
    return five_lines(xp, inputs, P=P, S=S, keep_U=True)


def five_lines(xp, inputs, *, P, r=None, S=None, keep_U=False):
    """U = G Vᵀ (⊙ M/(1−p)), r = rowsum(P ⊙ U), Δ = P ⊙ (U − r), dV = P̃ᵀG,
    dQ = scale · Δ K, dK = scale · Δᵀ Q, for validated ``inputs`` (G among them).

    Returns AttentionParts (``S`` as given; ``U`` only with ``keep_U``: Δ is built in U's buffer).
    The rows ``quiet_rows`` names take P = 0 (and r = 0): they add nothing to any gradient.
    """
    G, Q, K, V, scale = inputs.G, inputs.Q, inputs.K, inputs.V, inputs.scale
    quiet = quiet_rows(xp, inputs, G)  # (..., n) or None
    if quiet is not None:
        P = xp.where(quiet[..., None], 0.0, P)  # not 0 · NaN = NaN in every key's dV
        r = None if r is None else xp.where(quiet, 0.0, r)
    U = G @ xp.mT(V)  # (..., n, d_v) @ (..., d_v, m) -> (..., n, m)
    if inputs.dropout is not None:
        U = U * inputs.dropout  # dropout enters through U
    if r is None:
        r = xp.einsum("...ij,...ij->...i", P, U)  # r_i = Σ_j P_ij U_ij: (..., n)
    U_kept = xp.copy(U) if keep_U else None
    # Δ = P ⊙ (U − r 1ᵀ), written as U −= r, U *= P so that Δ takes U's buffer (unless autograd
    # records U): the backward's peak holds two n×m arrays, not four (measure.in_place_sweep,
    # printed in the appendix 「성능과 메모리」; the peaks of chapters 15 and 19)
    delta = xp.imul(xp.isub(U, r[..., None]), P)  # (..., n, m)
    # a score the boolean mask replaced does not depend on Q and K: no gradient reaches them
    delta_QK = delta if inputs.mask is None else xp.where(inputs.mask, delta, 0.0)
    P_tilde = dropped(P, inputs.dropout)  # (..., n, m)
    dV = xp.mT(P_tilde) @ G  # (..., m, n) @ (..., n, d_v) -> (..., m, d_v)
    # dQ = scale · Δ K and dK = scale · Δᵀ Q, each scaled in the product's own buffer: a
    # `scale * (Δ K)` would hold one more n×d array whenever NumPy does not reuse the temporary
    dQ = xp.imul(delta_QK @ K, scale)  # (..., n, m) @ (..., m, d_k) -> (..., n, d_k)
    dK = xp.imul(xp.mT(delta_QK) @ Q, scale)  # (..., m, n) @ (..., n, d_k) -> (..., m, d_k)
    dQ, dK, dV = sum_to_inputs(xp, inputs, dQ=dQ, dK=dK, dV=dV)
    return AttentionParts(S=S, P=P, P_tilde=P_tilde, U=U_kept, r=r, delta=delta,
                          dQ=dQ, dK=dK, dV=dV)


def quiet_rows(xp, inputs, G):
    """Fully masked rows the backward leaves out, (..., n) or None: all of them with
    fully_masked="zero"; with "nan" those whose G row is 0 (the loss does not read them)."""
    if inputs.empty is None:
        return None
    if inputs.fully_masked == "zero":
        return inputs.empty
    quiet = inputs.empty & ~xp.any(G != 0, axis=-1)  # (..., n)
    return quiet if bool(xp.any(quiet)) else None


def sum_to_inputs(xp, inputs, *, dQ, dK, dV):
    """dQ, dK, dV summed back to the inputs' shapes: over broadcast batch axes and, with
    enable_gqa, over the query heads that share a key/value head."""
    dK, dV = sum_to(xp, dK, inputs.K.shape), sum_to(xp, dV, inputs.V.shape)  # (..., H, m, ·)
    if inputs.groups > 1:
        dK, dV = (xp.sum(x.reshape(*x.shape[:-3], -1, inputs.groups, *x.shape[-2:]), axis=-3)
                  for x in (dK, dV))  # (..., H_kv, g, m, ·) -> (..., H_kv, m, ·)
    return (sum_to(xp, dQ, inputs.Q.shape), sum_to(xp, dK, inputs.K_shape),
            sum_to(xp, dV, inputs.V_shape))


def masked_scores(xp, inputs, *, rows=slice(None), cols=slice(None)):
    """S = scale · Q Kᵀ for the query rows ``rows`` and key columns ``cols`` (all of them, or one
    block), masked scores replaced by fill or the float mask added: (..., n, m)."""
    S = inputs.Q[..., rows, :] @ xp.mT(inputs.K[..., cols, :])  # (..., n, d_k) @ (..., d_k, m)
    S = xp.imul(S, inputs.scale)  # scale · S, in S's buffer (attnlib.measure)
    if inputs.mask is not None:
        S = xp.where(block(xp, inputs, inputs.mask, rows, cols), S, inputs.fill)
    if inputs.bias is not None:
        S = S + block(xp, inputs, inputs.bias, rows, cols)
    return S


def block(xp, inputs, X, rows, cols):
    """Block (..., rows, cols) of an array broadcast to the scores' shape (a view), or None."""
    if X is None:
        return None
    return xp.broadcast_to(X, inputs.S_shape)[..., rows, cols]


def probabilities(xp, inputs):
    """P = softmax(S) row by row, computed in S's own buffer."""
    return row_softmax(xp, masked_scores(xp, inputs), overwrite=True,
                       fully_masked=inputs.fully_masked)


def row_softmax(xp, S, *, overwrite=False, fully_masked="nan"):
    """softmax along the last axis; ``overwrite`` reuses S's buffer (see ``softmax_lse``)."""
    P, _ = softmax_lse(xp, S, overwrite=overwrite, fully_masked=fully_masked)
    return P


def softmax_lse(xp, S, *, overwrite=False, fully_masked="nan"):
    """P = softmax(S) and lse = log Σ_j exp S_ij along the last axis: (..., n, m), (..., n).

    ``overwrite``: e^(S − max) and then P are computed in S's own buffer (unless autograd records
    S), so that the forward holds one n×m array, not three (attnlib.measure; chapters 15, 19).
    A row of −inf sums to Z = 0: P = 0/0 = NaN, or 0 with ``fully_masked="zero"``.
    """
    with xp.errstate():
        shift = xp.detach(xp.max(S, axis=-1, keepdims=True))  # (..., n, 1)
        shift = xp.where(shift == NEG_INF, 0.0, shift)  # a row of −inf: e^(−inf − 0) = 0
        E = xp.exp_(xp.isub(S, shift)) if overwrite else xp.exp(S - shift)  # (..., n, m)
        Z, lse = normalizer(xp, shift, xp.sum(E, axis=-1, keepdims=True), fully_masked)
        return xp.idiv(E, Z), lse[..., 0]


def normalizer(xp, shift, Z, fully_masked):
    """(Z, lse = shift + log Z) for rows whose exponentials e^(S − shift) sum to Z.

    A fully masked row has Z = 0: "nan" keeps it (P = 0/0, lse = −inf, the math); "zero" divides
    by 1 instead and sets lse = +inf, as flash-attention does (then exp(S − lse) = 0).
    """
    if fully_masked == "nan":
        return Z, shift + xp.log(Z)
    empty = Z == 0
    Z = xp.where(empty, 1.0, Z)
    return Z, xp.where(empty, math.inf, shift + xp.log(Z))


def dropped(P, dropout):
    """P̃ = P ⊙ M / (1 − p_drop), ``dropout`` = M / (1 − p_drop) (P itself when it is None)."""
    return P if dropout is None else P * dropout


def sum_to(xp, x, shape):
    """Sum ``x`` over the axes along which an input of ``shape`` was broadcast."""
    while x.ndim > len(shape):
        x = x.sum(0)
    for axis, size in enumerate(shape):
        if size == 1 and x.shape[axis] != 1:
            x = xp.sum(x, axis=axis, keepdims=True)
    return x
