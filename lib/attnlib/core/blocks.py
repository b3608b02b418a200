"""Residual blocks around single-head self-attention, pre-LN and post-LN, with their backward,
and the gradient norm ‖∂L/∂x_l‖ at every layer of a stack of L blocks.

Weights ``W = (W_Q, W_K, W_V, W_O)``: W_Q, W_K (d, d_k), W_V (d, d_v), W_O (d_v, d).
Attention:  A(X) = attention(X W_Q, X W_K, X W_V) W_O.
Pre-LN:     Y = X + A(LN(X)),   ∂Y/∂X = I + (∂A/∂Z) J_LN.
Post-LN:    Y = LN(X + A(X)),   ∂Y/∂X = J_LN (I + ∂A/∂X).
"""

import math

import numpy as np

from . import validate
from .attention import attention, attention_backward_parts
from .layernorm import layernorm, layernorm_backward
from .multihead import weight_grad


def block_weights(xp, d, n_layers, *, d_k=None, d_v=None, std=None, seed=0):
    """``n_layers`` tuples (W_Q, W_K, W_V, W_O), entries N(0, std²), std = 1/sqrt(d) by default."""
    d_k = d if d_k is None else d_k
    d_v = d if d_v is None else d_v
    std = 1.0 / math.sqrt(d) if std is None else float(std)
    rng = np.random.default_rng(seed)
    shapes = ((d, d_k), (d, d_k), (d, d_v), (d_v, d))
    return [tuple(xp.as_float(std * rng.standard_normal(s)) for s in shapes)
            for _ in range(n_layers)]


def self_attention(xp, X, W, *, mask=None):
    """A(X) = attention(X W_Q, X W_K, X W_V) W_O."""
    X, W = _inputs(xp, X, W)
    O, _ = attention(xp, *_qkv(X, W), mask=mask)  # (..., n, d_v)
    return O @ W[3]  # (..., n, d_v) @ (d_v, d) -> (..., n, d)


def self_attention_backward(xp, G, X, W, *, mask=None):
    """(∂L/∂X, (∂L/∂W_Q, ∂L/∂W_K, ∂L/∂W_V, ∂L/∂W_O)) for L with ∂L/∂A = G."""
    X, W = _inputs(xp, X, W)
    G = validate.array(xp, G, "G", like=X)
    validate.same_shape("G", G, X.shape[:-1] + (W[3].shape[-1],), "the block output")
    W_Q, W_K, W_V, W_O = W
    G_O = G @ xp.mT(W_O)  # (..., n, d) @ (d, d_v) -> (..., n, d_v)
    Q, K, V = _qkv(X, W)
    parts = attention_backward_parts(xp, G_O, Q, K, V, mask=mask)
    O = parts.P_tilde @ V  # (..., n, n) @ (..., n, d_v) -> (..., n, d_v)
    dX = (parts.dQ @ xp.mT(W_Q) + parts.dK @ xp.mT(W_K)  # (..., n, d_k) @ (d_k, d) -> (..., n, d)
          + parts.dV @ xp.mT(W_V))  # (..., n, d_v) @ (d_v, d) -> (..., n, d)
    dW = (weight_grad(xp, X, parts.dQ), weight_grad(xp, X, parts.dK),
          weight_grad(xp, X, parts.dV), weight_grad(xp, O, G))
    return dX, dW


def pre_ln_block(xp, X, W, *, mask=None, eps=1e-5):
    """Y = X + A(LN(X))."""
    Z, _ = layernorm(xp, X, eps=eps)
    return validate.array(xp, X, "X") + self_attention(xp, Z, W, mask=mask)


def pre_ln_block_backward(xp, G, X, W, *, mask=None, eps=1e-5):
    """∂L/∂X = G + J_LNᵀ (∂A/∂Z)ᵀ G: the identity path is untouched; returns (dX, dW)."""
    Z, _ = layernorm(xp, X, eps=eps)
    dZ, dW = self_attention_backward(xp, G, Z, W, mask=mask)
    return xp.as_float(G, Z) + layernorm_backward(xp, dZ, X, eps=eps), dW


def post_ln_block(xp, X, W, *, mask=None, eps=1e-5):
    """Y = LN(X + A(X))."""
    X = validate.array(xp, X, "X")
    return layernorm(xp, X + self_attention(xp, X, W, mask=mask), eps=eps)[0]


def post_ln_block_backward(xp, G, X, W, *, mask=None, eps=1e-5):
    """∂L/∂X = (I + ∂A/∂X)ᵀ J_LNᵀ G: the identity path too goes through J_LN; returns (dX, dW)."""
    X = validate.array(xp, X, "X")
    H = X + self_attention(xp, X, W, mask=mask)  # (..., n, d)
    dH = layernorm_backward(xp, G, H, eps=eps)
    dX, dW = self_attention_backward(xp, dH, X, W, mask=mask)
    return dH + dX, dW


def stack_grad_norms(xp, X, weights, *, pre_ln=True, mask=None, eps=1e-5, G=None, seed=0):
    """‖∂L/∂x_l‖ for l = 0 … N through N = len(weights) blocks (x_0 = X, x_N the output),
    loss L = Σ G ⊙ x_N.

    G defaults to N(0, 1) entries drawn with ``seed``. Returns an array of length N + 1.
    """
    X = validate.array(xp, X, "X", min_ndim=2)
    block, backward = ((pre_ln_block, pre_ln_block_backward) if pre_ln
                       else (post_ln_block, post_ln_block_backward))
    xs = [X]
    for W in weights:
        xs.append(block(xp, xs[-1], W, mask=mask, eps=eps))
    if G is None:
        G = np.random.default_rng(seed).standard_normal(tuple(X.shape))
    g = xp.cast_like(validate.array(xp, G, "G", like=X), X)
    validate.same_shape("G", g, X.shape, "X")
    norms = [xp.sqrt(xp.sum(g * g))]
    for x, W in zip(reversed(xs[:-1]), reversed(weights), strict=True):
        g = backward(xp, g, x, W, mask=mask, eps=eps)[0]
        norms.append(xp.sqrt(xp.sum(g * g)))
    return xp.stack(norms[::-1])


def _inputs(xp, X, W):
    X = validate.array(xp, X, "X", min_ndim=2)
    if len(W) != 4:
        raise ValueError(f"W must be (W_Q, W_K, W_V, W_O), got {len(W)} arrays")
    W = tuple(validate.array(xp, w, name, like=X, min_ndim=2)
              for w, name in zip(W, ("W_Q", "W_K", "W_V", "W_O"), strict=True))
    if W[0].shape[0] != X.shape[-1]:
        raise ValueError(f"W_Q must have d = {X.shape[-1]} rows (X {tuple(X.shape)}), "
                         f"got {tuple(W[0].shape)}")
    if W[3].shape[0] != W[2].shape[1]:
        raise ValueError(f"W_O must have d_v rows: W_V {tuple(W[2].shape)}, "
                         f"W_O {tuple(W[3].shape)}")
    return X, W


def _qkv(X, W):
    """Q, K, V = X W_Q, X W_K, X W_V."""
    return X @ W[0], X @ W[1], X @ W[2]  # (..., n, d) @ (d, d_k|d_v) -> (..., n, d_k|d_v)

