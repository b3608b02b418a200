"""Attention that saves one number per row, lse_i = log Σ_j exp S_ij, instead of P.

A fully masked row has lse = −inf (log 0) with ``fully_masked="nan"`` and lse = +inf with
``"zero"``, flash-attention's convention: there exp(S − lse) = 0, the row's P.
"""

from . import validate
from .attention import NEG_INF, dropped, five_lines, masked_scores, softmax_lse
from .validate import attention_inputs


def attention_lse(xp, Q, K, V, *, scale=None, mask=None, fill=NEG_INF, is_causal=False,
                  fully_masked="nan", enable_gqa=False, dropout_mask=None, p_drop=0.0):
    """O = P̃ V as in ``attention``, returning (O, lse) with lse = max S + log Σ exp(S − max S)."""
    inputs = attention_inputs(xp, Q, K, V, scale=scale, mask=mask, fill=fill, is_causal=is_causal,
                              fully_masked=fully_masked, enable_gqa=enable_gqa,
                              dropout_mask=dropout_mask, p_drop=p_drop)
    P, lse = softmax_lse(xp, masked_scores(xp, inputs), overwrite=True,
                         fully_masked=inputs.fully_masked)  # (..., n, m), (..., n)
    O = dropped(P, inputs.dropout) @ inputs.V  # (..., n, m) @ (..., m, d_v) -> (..., n, d_v)
    return O, lse


def attention_backward_lse(xp, G, Q, K, V, O, lse, *, scale=None, mask=None, fill=NEG_INF,
                           is_causal=False, fully_masked="nan", enable_gqa=False,
                           dropout_mask=None, p_drop=0.0):
    """(dQ, dK, dV) from the saved (O, lse): P = exp(S − lse), r = rowsum(G ⊙ O), then the rule."""
    inputs = attention_inputs(xp, Q, K, V, G=G, scale=scale, mask=mask, fill=fill,
                              is_causal=is_causal, fully_masked=fully_masked,
                              enable_gqa=enable_gqa, dropout_mask=dropout_mask, p_drop=p_drop)
    O, lse = saved_forward(xp, inputs, O=O, lse=lse)
    P = probabilities_from_lse(xp, masked_scores(xp, inputs), lse,
                               uniform=inputs.uniform)  # (..., n, m)
    r = xp.einsum("...ia,...ia->...i", inputs.G, O)  # r_i = Σ_a G_ia O_ia: (..., n)
    grads = five_lines(xp, inputs, P=P, r=r)
    return grads.dQ, grads.dK, grads.dV


def probabilities_from_lse(xp, S, lse, *, uniform, m=None):
    """P = exp(S − lse), computed in S's buffer; a row whose every score is a finite fill
    (``uniform``, (..., n) or None) is the uniform 1/m, set exactly.

    ``S`` may be a block of columns; ``m`` is then the row's full number of keys.

    There S − lse subtracts two large, nearly equal numbers (fill and fill + log m): in float32
    at fill = −1e9 the log m is rounded away and exp gives 1 instead of 1/m.
    """
    with xp.errstate():
        P = xp.exp_(xp.isub(S, lse[..., None]))  # (..., n, m)
    if uniform is not None:
        P = xp.where(uniform[..., None], 1.0 / (m or S.shape[-1]), P)
    return P


def saved_forward(xp, inputs, *, O, lse):
    """The forward's saved (O, lse), checked against the inputs' shapes and cast to their dtype."""
    O = validate.array(xp, O, "O", like=inputs.Q, finite=False)
    validate.same_shape("O", O, inputs.O_shape, "the attention output")
    lse = validate.array(xp, lse, "lse", like=inputs.Q, finite=False)
    validate.same_shape("lse", lse, inputs.S_shape[:-1], "the scores' rows (..., n)")
    return xp.cast_like(O, inputs.Q), xp.cast_like(lse, inputs.Q)
