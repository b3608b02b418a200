"""LayerNorm without gain and bias, its Jacobian J_LN = (1/σ)(I − 11ᵀ/d − y yᵀ/d) and its VJP."""

from . import validate


def layernorm(xp, x, *, eps=0.0):
    """y = (x − μ)/σ over the last axis, σ = sqrt(mean((x − μ)²) + eps); returns (y, σ)."""
    x = validate.array(xp, x, "x", min_ndim=1)
    d = x.shape[-1]
    xc = x - xp.sum(x, axis=-1, keepdims=True) * (1.0 / d)  # (..., d)
    sigma = xp.sqrt(xp.sum(xc * xc, axis=-1) * (1.0 / d) + float(eps))  # (...,)
    if not bool((sigma > 0).all()):
        raise ValueError("x has a constant vector (σ = 0) along the last axis: pass eps > 0")
    return xc / sigma[..., None], sigma


def layernorm_jacobian(xp, x, *, eps=0.0):
    """J_LN = ∂y/∂x = (1/σ)(I − 11ᵀ/d − y yᵀ/d): (..., d) → (..., d, d)."""
    y, sigma = layernorm(xp, x, eps=eps)
    d = y.shape[-1]
    J = xp.eye(d, like=y) - 1.0 / d - y[..., :, None] * y[..., None, :] * (1.0 / d)  # (..., d, d)
    return J / sigma[..., None, None]


def layernorm_backward(xp, G, x, *, eps=0.0):
    """∂L/∂x = J_LNᵀ G = (1/σ)(G − mean(G) − y · mean(G ⊙ y)), G = ∂L/∂y shaped like x."""
    y, sigma = layernorm(xp, x, eps=eps)
    G = validate.array(xp, G, "G", like=y)
    validate.same_shape("G", G, y.shape, "x")
    d = y.shape[-1]
    mean_G = xp.sum(G, axis=-1, keepdims=True) * (1.0 / d)  # (..., 1)
    mean_Gy = xp.sum(G * y, axis=-1, keepdims=True) * (1.0 / d)  # (..., 1)
    return (G - mean_G - y * mean_Gy) / sigma[..., None]
