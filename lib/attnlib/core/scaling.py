"""Part I's scaling devices: where max|J| peaks along a multiplier, LayerNorm-ed dot products,
the initial scale of W_Q and W_K, and a toy training run in which that initial scale drifts."""

import math
from typing import Any, NamedTuple

import numpy as np

from . import validate
from .attention import row_softmax
from .layernorm import layernorm


class DriftHistory(NamedTuple):
    """Per recorded step t: L, Var(S) of the scores softmax sees, ‖W‖/‖W₀‖ of [W_Q, W_K]."""

    step: Any
    loss: Any
    score_var: Any
    weight_growth: Any


def jacobian_peak_multiplier(xp, s, *, d_k=1, tol=1e-13):
    """The α > 0 at which max p of softmax(α s / sqrt(d_k)) is 1/2, i.e. max_ij |J_ij| = 1/4.

    max p grows monotonically with α (for a unique top score), so bisection finds it.
    """
    s = validate.array(xp, s, "s", min_ndim=1)
    if s.ndim != 1 or s.shape[0] < 3:
        raise ValueError(f"s must be one row of at least 3 scores, got shape {tuple(s.shape)}")

    def max_p(alpha):
        return float(xp.max(row_softmax(xp, s * (alpha / math.sqrt(d_k)))))

    top = xp.max(s)
    if float(xp.sum(s == top)) > 1:
        raise ValueError("s has a tied top score: max p never passes 1/2")
    lo, hi = 0.0, 1.0
    while max_p(hi) < 0.5:
        lo, hi = hi, 2 * hi
    while hi - lo > tol * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if max_p(mid) < 0.5 else (lo, mid)
    return 0.5 * (lo + hi)


def layernorm_dot_samples(xp, d_k, n_samples, *, shift=3.0, stretch=5.0, seed=0):
    """Samples of LN(x)·LN(y) for x, y with iid components shift + stretch·(Exp(1) − 1).

    Var = d_k²/(d_k − 1) for any iid components: LayerNorm fixes each vector's mean and variance
    (Σ y = 0, Σ y² = d_k) but makes its components correlated (−1/(d_k − 1)), so the
    'independent, mean 0, variance 1' assumption of Var(q·k) = d_k holds only roughly (ch. 5).
    """
    rng = np.random.default_rng(seed)
    x = shift + stretch * (rng.exponential(size=(n_samples, d_k)) - 1.0)  # (n_samples, d_k)
    y = shift + stretch * (rng.exponential(size=(n_samples, d_k)) - 1.0)  # (n_samples, d_k)
    ln_x, _ = layernorm(xp, xp.as_float(x))
    ln_y, _ = layernorm(xp, xp.as_float(y))
    return xp.sum(ln_x * ln_y, axis=-1)  # (n_samples,)


def init_score_samples(xp, d_model, d_k, n_samples, *, w_var=1.0, n_draws=100, seed=0):
    """Undivided scores s = (x W_Q)·(y W_K) for x, y ~ N(0, I), W entries ~ N(0, w_var/d_model).

    Each of ``n_draws`` weight pairs scores n_samples/n_draws input pairs; Var(s) = d_k · w_var².
    """
    rng = np.random.default_rng(seed)
    per = n_samples // n_draws
    std = math.sqrt(w_var / d_model)
    W_Q = rng.standard_normal((n_draws, d_model, d_k)) * std  # (n_draws, d_model, d_k)
    W_K = rng.standard_normal((n_draws, d_model, d_k)) * std  # (n_draws, d_model, d_k)
    x = rng.standard_normal((n_draws, per, d_model))  # (n_draws, per, d_model)
    y = rng.standard_normal((n_draws, per, d_model))  # (n_draws, per, d_model)
    q = xp.as_float(x) @ xp.as_float(W_Q)  # (n_draws, per, d_model) @ (n_draws, d_model, d_k)
    k = xp.as_float(y) @ xp.as_float(W_K)  # -> (n_draws, per, d_k)
    return xp.sum(q * k, axis=-1).reshape(-1)  # (n_draws · per,)


def train_score_drift(xp, *, fix="scale", d_model=64, d_k=64, n=16, batch=8, steps=300, lr=0.5,
                      every=10, seed=0, autograd=False):
    """SGD on W_Q, W_K so that each token attends to itself (cross-entropy on P's diagonal).

    ``fix="scale"``: W entries ~ N(0, 1/d_model), S = X W_Q (X W_K)ᵀ / sqrt(d_k).
    ``fix="init"``:  the same W times d_k^(−1/4) (std shrunk), S = X W_Q (X W_K)ᵀ.
    Both start from identical scores; Var(S) is measured on a held-out batch every ``every``
    steps. The gradient is hand-written in both backends; ``autograd=True`` takes it from torch
    autograd instead (torch backend only).
    """
    if fix not in ("scale", "init"):
        raise ValueError(f"fix must be 'scale' or 'init', got {fix!r}")
    rng = np.random.default_rng(seed)
    W0 = rng.standard_normal((2, d_model, d_k)) / math.sqrt(d_model)  # [W_Q, W_K]
    scale = 1.0 / math.sqrt(d_k)
    if fix == "init":
        W0, scale = W0 * d_k ** -0.25, 1.0
    X = xp.as_float(rng.standard_normal((batch, n, d_model)))  # (batch, n, d_model)
    X_test = xp.as_float(rng.standard_normal((batch, n, d_model)))  # held out
    W = xp.as_float(W0)
    eye = xp.eye(n, like=W)  # targets: token i attends to token i

    def scores(W, X):
        Q, K = X @ W[0], X @ W[1]  # (batch, n, d_model) @ (d_model, d_k) -> (batch, n, d_k)
        return scale * (Q @ xp.mT(K)), Q, K  # (batch, n, d_k) @ (batch, d_k, n) -> (batch, n, n)

    def loss_of(P):  # cross-entropy of each row against its own token
        return -xp.sum(xp.log(xp.sum(P * eye, axis=-1))) * (1.0 / (batch * n))

    def var(S):
        return float(xp.sum((S - S.mean()) ** 2)) / (batch * n * n)

    norm0 = math.sqrt(float(xp.sum(W * W)))
    rows = []
    for t in range(steps + 1):
        if autograd:
            loss, g = xp.value_and_grad(lambda W: loss_of(row_softmax(xp, scores(W, X)[0])), W)
        else:
            S, Q, K = scores(W, X)
            P = row_softmax(xp, S)  # (batch, n, n)
            loss = loss_of(P)
            dS = (P - eye) * (scale / (batch * n))  # ∂L/∂S · scale: (batch, n, n)
            dQ, dK = dS @ K, xp.mT(dS) @ Q  # (batch, n, d_k)
            g = xp.stack([xp.sum(xp.mT(X) @ dQ, axis=0), xp.sum(xp.mT(X) @ dK, axis=0)])
        if t % every == 0:
            growth = math.sqrt(float(xp.sum(W * W))) / norm0
            rows.append((t, float(loss), var(scores(W, X_test)[0]), growth))
        W = W - lr * g
    return DriftHistory(*(xp.as_float(np.array(col)) for col in zip(*rows, strict=True)))
