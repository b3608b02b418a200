"""Attention that saves one number per row, lse_i = log Σ_j exp S_ij, instead of P."""

from . import _validate
from .attention import NEG_INF, _dropped, _scores, _upstream, five_lines


def attention_lse(xp, Q, K, V, *, scale=None, mask=None, fill=NEG_INF, dropout_mask=None,
                  p_drop=0.0):
    """O = P̃ V as in ``attention``, returning (O, lse) with lse = max S + log Σ exp(S − max S)."""
    a = _validate.attention_args(xp, Q, K, V, scale, mask, fill, dropout_mask, p_drop)
    S = _scores(xp, a)  # (..., n, m)
    with xp.errstate():
        shift = xp.detach(xp.max(S, axis=-1, keepdims=True))  # (..., n, 1)
        E = xp.exp_(xp.isub(S, shift))  # (..., n, m)
        Z = xp.sum(E, axis=-1, keepdims=True)  # (..., n, 1)
        lse = (shift + xp.log(Z))[..., 0]  # (..., n)
        P = xp.idiv(E, Z)
    O = _dropped(xp, a, P) @ a.V  # (..., n, m) @ (..., m, d_v) -> (..., n, d_v)
    return O, lse


def attention_backward_lse(xp, G, Q, K, V, O, lse, *, scale=None, mask=None, fill=NEG_INF,
                           dropout_mask=None, p_drop=0.0):
    """(dQ, dK, dV) from the saved (O, lse): P = exp(S − lse), r = rowsum(G ⊙ O), then the rule."""
    a = _validate.attention_args(xp, Q, K, V, scale, mask, fill, dropout_mask, p_drop)
    G = _upstream(xp, a, G)
    O = _validate.array(xp, O, "O", like=a.Q, finite=False)
    _validate.same_shape("O", O, a.O_shape, "the attention output")
    lse = _validate.array(xp, lse, "lse", like=a.Q, finite=False)
    _validate.same_shape("lse", lse, a.S_shape[:-1], "the scores' rows (..., n)")
    O, lse = xp.cast_like(O, a.Q), xp.cast_like(lse, a.Q)
    with xp.errstate():
        P = xp.exp_(xp.isub(_scores(xp, a), lse[..., None]))  # (..., n, m)
    r = xp.einsum("...ia,...ia->...i", G, O)  # (..., n)
    return five_lines(xp, a, G, P, r=r)[-3:]
