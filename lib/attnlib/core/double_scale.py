"""The backward of an implementation that folds the scale into Q' = scale · Q, with and without the
double-scale bug (multiplying dK by the scale once more)."""

from . import validate
from .attention import row_softmax


def attention_backward_folded(xp, G, Q, K, V, *, scale=None, double_scale=False):
    """(dQ, dK, dV) with S = Q' Kᵀ, Q' = scale·Q; ``double_scale`` adds the bug dK ← scale·dK.

    Correct: dQ = scale · Δ K (the chain rule through Q'), dK = Δᵀ Q' (the scale is already in Q').
    """
    inputs = validate.attention_inputs(xp, Q, K, V, G=G, scale=scale)
    G, Q, K, V, scale = inputs.G, inputs.Q, inputs.K, inputs.V, inputs.scale
    Q_folded = Q * scale  # Q' (..., n, d_k): the scale folded in once, forward
    P = row_softmax(xp, Q_folded @ xp.mT(K))  # (..., n, m)
    U = G @ xp.mT(V)  # (..., n, d_v) @ (..., d_v, m) -> (..., n, m)
    r = xp.sum(P * U, axis=-1, keepdims=True)  # (..., n, 1)
    delta = P * (U - r)  # (..., n, m)
    dV = xp.mT(P) @ G  # (..., m, n) @ (..., n, d_v) -> (..., m, d_v)
    dQ = scale * (delta @ K)  # ∂L/∂Q' = Δ K, then ∂Q'/∂Q = scale: (..., n, d_k)
    dK = xp.mT(delta) @ Q_folded  # Δᵀ Q' already carries the scale: (..., m, d_k)
    if double_scale:
        dK = scale * dK  # the bug: 1/sqrt(d_k) "out of habit", a second time
    return dQ, dK, dV
