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
    """The cases at the given indices again, in float32 (the same inputs object: a float32 case
    knows its float64 twin)."""
    return [cases[i]._replace(dtype="float32") for i in picks]


def causal(n, m):
    """The boolean mask j ≤ i (upper left, as SDPA's is_causal): True where i may see j."""
    return np.tril(np.ones((n, m), dtype=bool))


def rows_of_probabilities(seed, shape, *, spread=1.0):
    """softmax of normal scores times ``spread``, along the last axis."""
    S = spread * normal(seed, S=shape)["S"]
    E = np.exp(S - S.max(-1, keepdims=True))
    return E / E.sum(-1, keepdims=True)


def case(inputs, *tags, note="", memory=None):
    """A float64 case; ``tags``: what it adds to the success line's 「시험한 것」."""
    return Case(inputs, "float64", note, tags, memory)


ROW_OFFSETS = (0.0, 900.0, 40.0, 1500.0, -900.0)  # e^S overflows in the rows above 709 only, so a
# forward without the max subtraction gives NaN in some rows, not in all; in the last row e^S
# underflows to 0 unless the row's own max is subtracted (a reference point of 0 gives 0/0)
ROW_RAMPS = (0.0, 0.0, 2500.0, 0.0, 0.0)  # row 2's scores climb from −2500 to 2500 along the keys:
# e^(S − mean) and e^(S − S_0) overflow there too (only the max makes every exponent ≤ 0)
OFFSETS_NOTE = "행마다 점수가 0, 900, 40, 1500, −900 만큼 크고, 셋째 행은 −2500 에서 2500 까지 오름"


def offset_rows(x, offsets=ROW_OFFSETS, ramps=ROW_RAMPS):
    """Q and K whose scores S = QKᵀ/√d_k along row i are ``offsets[i]`` plus ``ramps[i]`` times
    a ramp from −1 (key 0) to 1 (key m − 1), plus the scores of the other coordinates (a few
    units): the first two coordinates of K are set to 1 and to the ramp, those of Q_i to
    offsets[i]·√d_k and ramps[i]·√d_k. A row's offset does not change its softmax, so the answer
    stays well conditioned, but e^S overflows (e^709 is float64's largest) unless the row's max
    is subtracted; a row with a large ramp is (nearly) one-hot."""
    x = dict(x)
    Q, K = x["Q"].copy(), x["K"].copy()
    root = np.sqrt(Q.shape[-1])
    K[..., 0], K[..., 1] = 1.0, np.linspace(-1.0, 1.0, K.shape[-2])
    Q[..., 0] = root * np.asarray(offsets, dtype=np.float64)
    Q[..., 1] = root * np.asarray(ramps, dtype=np.float64)
    x["Q"], x["K"] = Q, K
    return x


def rising_keys(seed, batch, n, m, d_k, d_v, *, top):
    """Q, K, V whose scores rise along each row i, from about 0 at key 0 to about ``top[i]`` at
    key m − 1 (± a few units): the running max moves in every block, and under the causal mask
    the largest score a query sees is at its last visible key."""
    x = normal(seed, Q=batch + (n, d_k), K=batch + (m, d_k), V=batch + (m, d_v))
    x["K"][..., 0] = np.linspace(0.0, 1.0, m)
    x["Q"][..., 0] = np.sqrt(d_k) * np.broadcast_to(np.asarray(top, dtype=np.float64), (n,))
    return x


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


def five(G, Q, K, V, P, *, r=None, keep=None, to_qk=None, scale=None):
    """The five lines on a given P: U = G Vᵀ (⊙ keep), r = rowsum(P ⊙ U) unless given,
    Δ = P ⊙ (U − r), dV = (P ⊙ keep)ᵀ G; only Δ where ``to_qk`` reaches dQ and dK, which are
    multiplied by ``scale`` (1/sqrt(d_k) unless given)."""
    U = G @ swap(V)  # (..., n, m)
    if keep is not None:
        U = U * keep
    r = (P * U).sum(-1) if r is None else r  # (..., n)
    delta = P * (U - r[..., None])
    dQ, dK = qk(delta if to_qk is None else np.where(to_qk, delta, 0.0), Q, K,
                scale_of(Q) if scale is None else scale)
    P_tilde = P if keep is None else P * keep
    return dQ, dK, swap(P_tilde) @ G


def softmax(S, axis=-1):
    """Row softmax in float64 (a row of −inf gives NaN, as the math)."""
    with np.errstate(invalid="ignore"):
        E = np.exp(S - S.max(axis, keepdims=True))
        return E / E.sum(axis, keepdims=True)


def softmax_no_max(S, shift=None):
    """softmax without subtracting the max (``shift(S)`` subtracted instead: the mean, …): e^S
    overflows above 709 and the row becomes NaN."""
    with np.errstate(over="ignore", invalid="ignore"):
        E = np.exp(S if shift is None else S - shift(S))
        return E / E.sum(-1, keepdims=True)


def row_mean(S):
    return S.mean(-1, keepdims=True)
