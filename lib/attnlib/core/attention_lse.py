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
    O, lse = saved_forward(xp, a, O, lse)
    P = probabilities_from_lse(xp, _scores(xp, a), lse, dead_rows(xp, a))  # (..., n, m)
    r = xp.einsum("...ia,...ia->...i", G, O)  # (..., n)
    return five_lines(xp, a, G, P, r=r)[-3:]


def dead_rows(xp, a):
    """Rows whose every key is replaced by a finite ``fill``: bool (..., n), or None if none."""
    if a.mask is None or a.fill == NEG_INF:
        return None
    dead = ~xp.any(xp.broadcast_to(a.mask, a.S_shape), axis=-1)  # (..., n)
    return dead if bool(xp.any(dead)) else None


def probabilities_from_lse(xp, S, lse, dead, m=None):
    """P = exp(S − lse); a dead row (every score = fill) is the uniform 1/m, set exactly.

    ``S`` may be a block of columns; ``m`` is then the row's full number of keys.

    There S − lse subtracts two large, nearly equal numbers (fill and fill + log m): in float32
    at fill = −1e9 the log m is rounded away and exp gives 1 instead of 1/m.
    """
    with xp.errstate():
        P = xp.exp_(xp.isub(S, lse[..., None]))  # (..., n, m)
    if dead is not None:
        P = xp.where(dead[..., None], 1.0 / (m or S.shape[-1]), P)
    return P


def saved_forward(xp, a, O, lse):
    """The forward's saved (O, lse), checked against the inputs' shapes and cast to their dtype."""
    O = _validate.array(xp, O, "O", like=a.Q, finite=False)
    _validate.same_shape("O", O, a.O_shape, "the attention output")
    lse = _validate.array(xp, lse, "lse", like=a.Q, finite=False)
    _validate.same_shape("lse", lse, a.S_shape[:-1], "the scores' rows (..., n)")
    return xp.cast_like(O, a.Q), xp.cast_like(lse, a.Q)
