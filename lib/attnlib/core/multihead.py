"""A multi-head attention layer (no biases) and its backward, with the per-head gradients.

``Q_h = X W_Q^(h)``, ``K_h = X W_K^(h)``, ``V_h = X W_V^(h)``, where ``W_Q`` is the column-wise
concatenation of the H blocks ``W_Q^(h)`` (d × d_k each); each head runs ``attention``; the heads'
outputs are concatenated (… × H·d_v) and, when ``W_O`` is given, multiplied by ``W_O``.

Shapes: X (..., n, d), W_Q W_K (d, H·d_k), W_V (d, H·d_v), W_O (H·d_v, d_out),
Q_h K_h V_h (..., H, n|m, d_k|d_v), G (..., n, d_out) (or (..., n, H·d_v) without W_O).
"""

from typing import Any, NamedTuple

from . import validate
from .attention import NEG_INF, attention, attention_backward_parts


class MultiheadGrads(NamedTuple):
    """∂L/∂X, the weight gradients, and the per-head pieces they are made of.

    ``dX_heads`` (H, ..., n, d): head h's contribution to ∂L/∂X (through its Q, K and V);
    ``dX = Σ_h dX_heads[h]``.  ``dQ, dK, dV`` (..., H, n|m, d_k|d_v): ∂L/∂Q_h etc.
    """

    dX: Any
    dW_Q: Any
    dW_K: Any
    dW_V: Any
    dW_O: Any
    dX_heads: Any
    dQ: Any
    dK: Any
    dV: Any


def split_heads(xp, X, W, H):
    """X W^(h) for every head: (..., n, d) , (d, H·e) -> (..., H, n, e)."""
    if W.shape[-1] % H:
        raise ValueError(f"the weight's {W.shape[-1]} columns do not split into H = {H} heads")
    XW = X @ W  # (..., n, d) @ (d, H·e) -> (..., n, H·e): head h is columns h·e … (h+1)·e − 1
    *lead, n, He = XW.shape
    return xp.einsum("...nhe->...hne", XW.reshape(*lead, n, H, He // H))  # (..., H, n, e)


def merge_heads(xp, O):
    """Concatenate the heads' outputs: (..., H, n, e) -> (..., n, H·e)."""
    *lead, H, n, e = O.shape
    return xp.einsum("...hne->...nhe", O).reshape(*lead, n, H * e)


def weight_grad(xp, X, D):
    """∂L/∂W for Z = X W given D = ∂L/∂Z: Xᵀ D summed over every batch axis and row,
    (..., n, a), (..., n, b) -> (a, b)."""
    return xp.mT(X.reshape(-1, X.shape[-1])) @ D.reshape(-1, D.shape[-1])  # (a, N) @ (N, b)


def multihead_attention(xp, X, W_Q, W_K, W_V, W_O=None, *, H, mask=None, fill=NEG_INF):
    """Y = concat_h attention(X W_Q^(h), X W_K^(h), X W_V^(h)) (· W_O); returns (Y, P)."""
    X, W_Q, W_K, W_V, W_O = _arrays(xp, X, W_Q, W_K, W_V, W_O)
    Qh, Kh, Vh = (split_heads(xp, X, W, H) for W in (W_Q, W_K, W_V))  # (..., H, n, e)
    O, P = attention(xp, Qh, Kh, Vh, mask=mask, fill=fill)  # (..., H, n, d_v)
    Y = merge_heads(xp, O)  # (..., n, H·d_v)
    return (Y if W_O is None else Y @ W_O), P  # (..., n, d_out)


def multihead_attention_backward(xp, G, X, W_Q, W_K, W_V, W_O=None, *, H, mask=None,
                                 fill=NEG_INF):
    """MultiheadGrads: ∂L/∂W_Q^(h) = Σ_batch Xᵀ ∂L/∂Q_h fills block h; ∂L/∂X = Σ_h (…)."""
    X, W_Q, W_K, W_V, W_O = _arrays(xp, X, W_Q, W_K, W_V, W_O)
    G = validate.array(xp, G, "G", like=X, min_ndim=2)
    G = xp.cast_like(G, X)
    d = X.shape[-1]
    Qh, Kh, Vh = (split_heads(xp, X, W, H) for W in (W_Q, W_K, W_V))  # (..., H, n, e)
    d_v = Vh.shape[-1]
    if W_O is None:
        dW_O, G_cat = None, G  # (..., n, H·d_v)
    else:
        O, _ = attention(xp, Qh, Kh, Vh, mask=mask, fill=fill)
        Y = merge_heads(xp, O)  # (..., n, H·d_v)
        dW_O = weight_grad(xp, Y, G)  # Yᵀ G, batch examples add: (H·d_v, d_out)
        G_cat = G @ xp.mT(W_O)  # (..., n, d_out) @ (d_out, H·d_v) -> (..., n, H·d_v)
    Gh = xp.einsum("...nhe->...hne", G_cat.reshape(*G_cat.shape[:-1], H, d_v))  # (..., H, n, d_v)
    parts = attention_backward_parts(xp, Gh, Qh, Kh, Vh, mask=mask, fill=fill)
    dQ, dK, dV = parts.dQ, parts.dK, parts.dV  # (..., H, n, e)
    # weights: X_bᵀ ∂L/∂Q_{b,h} fills head h's block, summed over the batch axes
    dW_Q, dW_K, dW_V = (weight_grad(xp, X, merge_heads(xp, dZ)) for dZ in (dQ, dK, dV))
    # input: each head sends ∂L/∂Q_h W_Q^(h)ᵀ (+ K and V); the heads add at X
    dX_heads = sum(xp.einsum("...hne,dhe->h...nd", dZ, W.reshape(d, H, -1))
                   for dZ, W in ((dQ, W_Q), (dK, W_K), (dV, W_V)))  # (H, ..., n, d)
    dX = xp.sum(dX_heads, axis=0)
    return MultiheadGrads(dX, dW_Q, dW_K, dW_V, dW_O, dX_heads, dQ, dK, dV)


def _arrays(xp, X, W_Q, W_K, W_V, W_O):
    X = validate.array(xp, X, "X", min_ndim=2)
    Ws = [validate.array(xp, W, name, like=X, min_ndim=2)
          for W, name in ((W_Q, "W_Q"), (W_K, "W_K"), (W_V, "W_V"))]
    if W_O is not None:
        Ws.append(validate.array(xp, W_O, "W_O", like=X, min_ndim=2))
    X, *Ws = xp.promote(X, *Ws)
    for W, name in zip(Ws[:3], ("W_Q", "W_K", "W_V"), strict=True):
        if W.shape[0] != X.shape[-1]:
            raise ValueError(f"{name} must have d = {X.shape[-1]} rows, got shape {tuple(W.shape)}")
    if Ws[0].shape != Ws[1].shape:
        raise ValueError(f"W_Q and W_K must have the same shape: {tuple(Ws[0].shape)}, "
                         f"{tuple(Ws[1].shape)}")
    if W_O is None:
        Ws.append(None)
    elif Ws[3].shape[0] != Ws[2].shape[1]:
        raise ValueError(f"W_O must have H·d_v = {Ws[2].shape[1]} rows, got {tuple(Ws[3].shape)}")
    return (X, *Ws)
