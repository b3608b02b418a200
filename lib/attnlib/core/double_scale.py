"""The backward of an implementation that folds the scale into Q' = scale · Q, with and without the
double-scale bug (multiplying dK by the scale once more)."""

from . import _validate
from .attention import _upstream, row_softmax


def attention_backward_folded(xp, G, Q, K, V, *, scale=None, double_scale=False):
    """(dQ, dK, dV) with S = Q' Kᵀ, Q' = scale·Q; ``double_scale`` adds the bug dK ← scale·dK.

    Correct: dQ = scale · Δ K (the chain rule through Q'), dK = Δᵀ Q' (the scale is already in Q').
    """
    a = _validate.attention_args(xp, Q, K, V, scale=scale)
    G = _upstream(xp, a, G)
    Qs = a.Q * a.scale  # Q' (..., n, d_k): the scale folded in once, forward
    P = row_softmax(xp, Qs @ xp.mT(a.K), overwrite=True)  # (..., n, m)
    U = G @ xp.mT(a.V)  # (..., n, d_v) @ (..., d_v, m) -> (..., n, m)
    r = xp.sum(P * U, axis=-1, keepdims=True)  # (..., n, 1)
    delta = P * (U - r)  # (..., n, m)
    dV = xp.mT(P) @ G  # (..., m, n) @ (..., n, d_v) -> (..., m, d_v)
    dQ = (delta @ a.K) * a.scale  # ∂L/∂Q' = Δ K, then ∂Q'/∂Q = scale: (..., n, d_k)
    dK = xp.mT(delta) @ Qs  # Δᵀ Q' already carries the scale: (..., m, d_k)
    if double_scale:
        dK = dK * a.scale  # the bug: 1/sqrt(d_k) "out of habit", a second time
    return dQ, dK, dV
