"""Softmax, its entropy, its Jacobian and its vector-Jacobian product (the row rule)."""

from . import validate


def softmax(xp, S, axis=-1):
    """P = exp(S − max S) / Σ exp(S − max S) along ``axis``."""
    S = validate.array(xp, S, "S", finite=False)
    with xp.errstate():
        E = xp.exp(S - xp.detach(xp.max(S, axis=axis, keepdims=True)))  # e^(S − max S)
        return E / xp.sum(E, axis=axis, keepdims=True)


def entropy(xp, P, axis=-1):
    """H(p) = −Σ_j p_j log p_j (natural log, 0·log 0 = 0)."""
    P = validate.array(xp, P, "P", finite=False)
    live = P > 0
    return -xp.sum(xp.where(live, P * xp.log(xp.where(live, P, 1.0)), 0.0), axis=axis)


def softmax_jacobian(xp, p):
    """J = diag(p) − p pᵀ, i.e. J_ij = p_i (δ_ij − p_j): (..., m) → (..., m, m)."""
    p = validate.array(xp, p, "p", min_ndim=1, finite=False)
    return p[..., :, None] * xp.eye(p.shape[-1], like=p) - p[..., :, None] * p[..., None, :]


def softmax_vjp(xp, P, U):
    """The row rule ∂L/∂S = P ⊙ (U − r 1ᵀ) with r_i = Σ_j P_ij U_ij (uᵀJ without building J)."""
    P, U = _row_pair(xp, P, U)
    r = xp.sum(P * U, axis=-1, keepdims=True)  # (..., n, 1)
    return P * (U - r)  # (..., n, m)


def softmax_jacobian_vjp(xp, P, U):
    """uᵀJ per row with each row's J = diag(p) − p pᵀ built: the same ∂L/∂S as ``softmax_vjp``,
    through an (..., n, m, m) array (the cost chapter 8 and the performance appendix measure)."""
    P, U = _row_pair(xp, P, U, finite=False)
    J = softmax_jacobian(xp, P)  # (..., n, m) -> (..., n, m, m)
    return xp.einsum("...ij,...ijk->...ik", U, J)  # (..., n, m) · (..., n, m, m) -> (..., n, m)


def _row_pair(xp, P, U, *, finite=True):
    """P and U (rows of probabilities and of ∂L/∂P), checked to broadcast, in one dtype."""
    P = validate.array(xp, P, "P", min_ndim=1, finite=False)
    U = validate.array(xp, U, "U", like=P, min_ndim=1, finite=finite)
    validate.broadcastable(P, U, "P", "U")
    return xp.promote(P, U)
