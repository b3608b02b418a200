"""Inputs the checkers try, and the float64 pieces their known mistakes are built from.

Every case is drawn from ``np.random.default_rng(seed)`` with a fixed seed, so a checker tries
the same inputs on every machine and every run.
"""

import numpy as np

from .. import pure
from ._grade import Case


def normal(seed, **shapes):
    """Standard normal float64 arrays, one per keyword, drawn in the keywords' order."""
    rng = np.random.default_rng(seed)
    return {name: rng.standard_normal(shape) for name, shape in shapes.items()}


def attention(seed, batch, n, m, d_k, d_v):
    """G (..., n, d_v), Q (..., n, d_k), K (..., m, d_k), V (..., m, d_v): a backward's inputs."""
    return normal(seed, G=batch + (n, d_v), Q=batch + (n, d_k), K=batch + (m, d_k),
                  V=batch + (m, d_v))


def small_example():
    """The second article's example: n = 2, m = 3, d_k = 4, d_v = 2."""
    return {k: np.array(v, dtype=np.float64) for k, v in
            (("G", pure.SMALL_G), ("Q", pure.SMALL_Q), ("K", pure.SMALL_K), ("V", pure.SMALL_V))}


def in_float32(cases, *picks):
    """The cases at the given indices again, in float32."""
    return [cases[i]._replace(dtype="float32") for i in picks]


def causal(n, m):
    """The boolean mask j ≤ i (upper left, as SDPA's is_causal): True where i may see j."""
    return np.tril(np.ones((n, m), dtype=bool))


def rows_of_probabilities(seed, shape, *, spread=1.0):
    """softmax of normal scores times ``spread``, along the last axis."""
    S = spread * normal(seed, S=shape)["S"]
    E = np.exp(S - S.max(-1, keepdims=True))
    return E / E.sum(-1, keepdims=True)


def case(inputs, dtype="float64", note=""):
    return Case(inputs, dtype, note)


# ------------------------------------------------------- float64 pieces of wrong answers ----


def swap(x):
    """The last two axes swapped (Xᵀ for a batch of matrices)."""
    return np.swapaxes(x, -1, -2)


def scale_of(Q):
    """1/sqrt(d_k)."""
    return 1.0 / np.sqrt(Q.shape[-1])


def scores(Q, K):
    """S = Q Kᵀ / sqrt(d_k): (..., n, m)."""
    return scale_of(Q) * (Q @ swap(K))


def qk(delta, Q, K, scale):
    """dQ = scale · Δ K, dK = scale · Δᵀ Q."""
    return scale * (delta @ K), scale * (swap(delta) @ Q)


def five(G, Q, K, V, P, *, r=None, keep=None, to_qk=None):
    """The five lines on a given P: U = G Vᵀ (⊙ keep), r = rowsum(P ⊙ U) unless given,
    Δ = P ⊙ (U − r), dV = (P ⊙ keep)ᵀ G; only Δ where ``to_qk`` reaches dQ and dK."""
    U = G @ swap(V)  # (..., n, m)
    if keep is not None:
        U = U * keep
    r = (P * U).sum(-1) if r is None else r  # (..., n)
    delta = P * (U - r[..., None])
    dQ, dK = qk(delta if to_qk is None else np.where(to_qk, delta, 0.0), Q, K, scale_of(Q))
    P_tilde = P if keep is None else P * keep
    return dQ, dK, swap(P_tilde) @ G


def softmax(S):
    """Row softmax in float64 (a row of −inf gives NaN, as the math)."""
    with np.errstate(invalid="ignore"):
        E = np.exp(S - S.max(-1, keepdims=True))
        return E / E.sum(-1, keepdims=True)
