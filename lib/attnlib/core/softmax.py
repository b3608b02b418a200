"""Softmax, its entropy, its Jacobian and its vector-Jacobian product (the row rule)."""

from . import _validate


def softmax(xp, S, axis=-1):
    """P = exp(S − max S) / Σ exp(S − max S) along ``axis``."""
    S = _validate.array(xp, S, "S", finite=False)
    return softmax_(xp, S - xp.detach(xp.max(S, axis=axis, keepdims=True)), axis)


def softmax_(xp, E, axis=-1):
    """Softmax of the already max-shifted scores ``E``, overwriting ``E`` where that is safe."""
    with xp.errstate():
        E = xp.exp_(E)
        return xp.idiv(E, xp.sum(E, axis=axis, keepdims=True))


def entropy(xp, P, axis=-1):
    """H(p) = −Σ_j p_j log p_j (natural log, 0·log 0 = 0)."""
    P = _validate.array(xp, P, "P", finite=False)
    live = P > 0
    return -xp.sum(xp.where(live, P * xp.log(xp.where(live, P, 1.0)), 0.0), axis=axis)


def softmax_jacobian(xp, p):
    """J = diag(p) − p pᵀ, i.e. J_ij = p_i (δ_ij − p_j): (..., m) → (..., m, m)."""
    p = _validate.array(xp, p, "p", min_ndim=1, finite=False)
    return p[..., :, None] * xp.eye(p.shape[-1], like=p) - p[..., :, None] * p[..., None, :]


def softmax_vjp(xp, P, U):
    """The row rule ∂L/∂S = P ⊙ (U − r 1ᵀ) with r_i = Σ_j P_ij U_ij (uᵀJ without building J)."""
    P = _validate.array(xp, P, "P", min_ndim=1, finite=False)
    U = _validate.array(xp, U, "U", like=P, min_ndim=1)
    _validate.broadcastable(P, U, "P", "U")
    P, U = xp.promote(P, U)
    r = xp.sum(P * U, axis=-1, keepdims=True)  # (..., n, 1)
    return P * (U - r)  # (..., n, m)
