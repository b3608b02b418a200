"""The experiments of the first article: Var(q·k) = d_k, sharpening with a multiplier, and the
400-step single-query training run that freezes without the 1/sqrt(d_k)."""

import math
import random
from typing import Any, NamedTuple

import numpy as np

from . import validate
from .attention import NEG_INF, attention_backward_parts, row_softmax
from .softmax import entropy, softmax_jacobian, softmax_vjp


class MultiplierStats(NamedTuple):
    """Per multiplier α: the largest probability, the entropy and the largest |J_ij| of each row."""

    max_p: Any
    entropy: Any
    jacobian_max: Any


class GradNorms(NamedTuple):
    """Per multiplier α: the largest P and the Frobenius norms of dQ, dK, dV."""

    max_p: Any
    dQ: Any
    dK: Any
    dV: Any


class History(NamedTuple):
    """Per step t (before its update): L, p_target, max_j p_j and ‖∂L/∂q‖."""

    loss: Any
    p_target: Any
    max_p: Any
    grad_norm: Any


def dot_product_samples(xp, d_k, n_samples, *, seed=0):
    """Samples of s = q·k = Σ_i q_i k_i with q, k ~ N(0, I_{d_k}); Var(s) = d_k."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_samples, d_k))  # (n_samples, d_k)
    k = rng.standard_normal((n_samples, d_k))  # (n_samples, d_k)
    return xp.as_float(np.einsum("si,si->s", q, k))  # (n_samples,)


def multiplier_stats(xp, S, multipliers, *, d_k=1):
    """For each α: P = softmax(α S / sqrt(d_k)) and its max p, entropy H(p), max_ij |J_ij|."""
    S = validate.array(xp, S, "S", min_ndim=1)
    rows = []
    for alpha in validate.numbers(multipliers, "multipliers"):
        P = row_softmax(xp, S * (alpha / math.sqrt(d_k)))  # (..., m)
        J = softmax_jacobian(xp, P)  # (..., m, m)
        rows.append((xp.max(P, axis=-1), entropy(xp, P), xp.max(xp.max(xp.abs(J), -1), -1)))
    return MultiplierStats(*(xp.stack(col) for col in zip(*rows, strict=True)))


def multiplier_grad_norms(xp, G, Q, K, V, multipliers, *, mask=None, fill=NEG_INF):
    """For each α (scale = α/sqrt(d_k)): max P, ‖dQ‖, ‖dK‖, ‖dV‖ — Δ dies, dV does not.

    ``mask`` and ``fill`` as in ``attention``.
    """
    d_k = validate.array(xp, Q, "Q", min_ndim=2).shape[-1]
    rows = []
    for alpha in validate.numbers(multipliers, "multipliers"):
        parts = attention_backward_parts(xp, G, Q, K, V, scale=alpha / math.sqrt(d_k),
                                         mask=mask, fill=fill)
        rows.append((xp.max(parts.P),) + tuple(xp.sqrt(xp.sum(g * g))
                                               for g in (parts.dQ, parts.dK, parts.dV)))
    return GradNorms(*(xp.stack(col) for col in zip(*rows, strict=True)))


def train_single_query(xp, *, scaled=True, gamma=None, steps=400, lr=0.5, d_k=64, d_v=8, m=8,
                       seed=11, target=3, autograd=False):
    """Learn q so that o = softmax(q Kᵀ / d_k^γ) V hits v_target; L = ½‖o − v_target‖².

    γ = 1/2 when ``scaled`` (else 0) unless ``gamma`` is given. K, V and q are the article's:
    N(0, 1) from Python's ``random.Random(seed)``, drawn in that order (the numbers of
    ``attnlib.pure.single_query_problem``). The gradient is the hand-written row rule in both
    backends; ``autograd=True`` takes it from torch autograd instead (torch backend only).
    """
    gamma = (0.5 if scaled else 0.0) if gamma is None else float(gamma)
    scale = d_k ** -gamma
    rng = random.Random(seed)

    def draw(rows, cols):  # N(0, 1) entries, row by row, from the article's generator
        return xp.as_float(np.array([[rng.gauss(0, 1) for _ in range(cols)]
                                     for _ in range(rows)]))

    K, V, q = draw(m, d_k), draw(m, d_v), draw(1, d_k)[0]  # in this order: (m, d_k) (m, d_v) (d_k,)
    v_target = V[target]  # (d_v,)

    def forward(q):
        p = row_softmax(xp, scale * (K @ q))  # (m, d_k) @ (d_k,) -> (m,)
        residual = p @ V - v_target  # (m,) @ (m, d_v) -> (d_v,)
        return p, residual, 0.5 * xp.sum(residual * residual)

    history = []
    for _ in range(steps):
        p, residual, loss = forward(q)
        if autograd:
            _, g_q = xp.value_and_grad(lambda q: forward(q)[2], q)
        else:
            u = V @ residual  # ∂L/∂p: (m, d_v) @ (d_v,) -> (m,)
            g_q = scale * (softmax_vjp(xp, p, u) @ K)  # Jᵀu then (m,) @ (m, d_k) -> (d_k,)
        history.append((float(loss), float(p[target]), float(xp.max(p)),
                        float(xp.sqrt(xp.sum(g_q * g_q)))))
        q = q - lr * g_q
    columns = list(zip(*history, strict=True)) or [()] * 4
    return History(*(xp.as_float(np.array(col, dtype=np.float64)) for col in columns))
