"""Wrong answers by class (the classes of reviews/grader.md and a few more): each is caught, with
the hint that names its mistake where the grader gives one, and without a hint where it cannot
tell the mistake. Written the way readers write them (loops, einsum, torch), independently of
the float64 variants the checkers compare against and of test_check.py's mutants.

``HINTED`` collects the hints these tests reach (test_check.test_every_hint_is_reachable).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_check import fails_silently, fails_with, flat, graded, passes

from attnlib import check
from attnlib import numpy as A

torch = pytest.importorskip("torch")
from attnlib import torch as T  # noqa: E402

ANY = "any"  # caught; a hint, if any, is not what the test is about


def tr(x):
    """The last two axes swapped, NumPy or torch."""
    return np.swapaxes(x, -1, -2) if isinstance(x, np.ndarray) else x.transpose(-1, -2)


def rsqrt_d(Q):
    return 1 / math.sqrt(Q.shape[-1])


def caught(text, hint):
    if hint is ANY:
        return text.startswith("✘")
    if hint is None:
        return fails_silently(text)
    return fails_with(text, hint)


def params(table):
    return [pytest.param(checker, kw, fn, hint, id=f"{name}-{hint}")
            for name, checker, kw, fn, hint in table]


# ---------------------------------------------------- a forward without the max subtraction ----


def _five(G, Q, K, V, P, s):
    """dQ, dK, dV from P with the row rule (helper for the answers below)."""
    U = G @ tr(V)
    D = P * (U - (P * U).sum(-1, keepdims=True))
    return D @ K * s, tr(D) @ Q * s, tr(P) @ G


def backward_exp(G, Q, K, V):
    s = rsqrt_d(Q)
    E = np.exp(np.einsum("...id,...jd->...ij", Q, K) * s)
    return _five(G, Q, K, V, E / E.sum(-1, keepdims=True), s)


def backward_torch_exp(G, Q, K, V):
    s = rsqrt_d(Q)
    E = torch.exp(Q @ K.mT * s)
    return _five(G, Q, K, V, E / E.sum(-1, keepdim=True), s)


def backward_mean_shift(G, Q, K, V):
    s = rsqrt_d(Q)
    S = Q @ tr(K) * s
    E = np.exp(S - S.mean(-1, keepdims=True))  # shift-invariant, but not safe
    return _five(G, Q, K, V, E / E.sum(-1, keepdims=True), s)


def backward_first_shift(G, Q, K, V):
    s = rsqrt_d(Q)
    S = Q @ tr(K) * s
    E = np.exp(S - S[..., :1])
    return _five(G, Q, K, V, E / E.sum(-1, keepdims=True), s)


def replace_exp(G, Q, K, V, mask, fill):
    s = rsqrt_d(Q)
    E = np.exp(np.where(mask, Q @ tr(K) * s, fill))
    P = E / E.sum(-1, keepdims=True)
    U = G @ tr(V)
    D = np.where(mask, P * (U - (P * U).sum(-1, keepdims=True)), 0.0)
    return D @ K * s, tr(D) @ Q * s, tr(P) @ G


def add_exp(G, Q, K, V, bias):
    s = rsqrt_d(Q)
    E = np.exp(Q @ tr(K) * s) * np.exp(bias)  # e^(S + bias) as a product
    return _five(G, Q, K, V, E / E.sum(-1, keepdims=True), s)


def dropout_exp(G, Q, K, V, M, p_drop):
    s = rsqrt_d(Q)
    E = np.exp(Q @ tr(K) * s)
    P = E / E.sum(-1, keepdims=True)
    U = (G @ tr(V)) * M / (1 - p_drop)
    D = P * (U - (P * U).sum(-1, keepdims=True))
    return D @ K * s, tr(D) @ Q * s, tr(P * M / (1 - p_drop)) @ G


def lse_divided(G, Q, K, V, O, lse):
    s = rsqrt_d(Q)
    P = np.exp(Q @ tr(K) * s) / np.exp(lse)[..., None]
    D = P * (G @ tr(V) - (G * O).sum(-1, keepdims=True))
    return D @ K * s, tr(D) @ Q * s, tr(P) @ G


def lse_torch_divided(G, Q, K, V, O, lse):
    s = rsqrt_d(Q)
    P = torch.exp(Q @ K.mT * s) / torch.exp(lse).unsqueeze(-1)
    D = P * (G @ V.mT - (G * O).sum(-1, keepdim=True))
    return D @ K * s, D.mT @ Q * s, P.mT @ G


def blockwise(G, Q, K, V, O, lse, bq, bk, *, causal=False, P_of=None, keys=None, queries=None,
              skip=None, r_of=None, acc="add"):
    """A reader's blockwise backward; the keywords put one slip in (a sketch with knobs, like a
    reader's second try)."""
    n, m = Q.shape[-2], K.shape[-2]
    s = rsqrt_d(Q)
    r = (G * O).sum(-1) if r_of is None else r_of(G, O)
    dQ, dK, dV = np.zeros(Q.shape), np.zeros(K.shape), np.zeros(V.shape)
    for j in range(0, m, bk) if keys is None else keys:
        for i in range(0, n, bq) if queries is None else queries:
            last = min(i + bq, n) - 1
            if causal and j > (skip(i, last) if skip else last):
                continue
            S = Q[..., i:i + bq, :] @ tr(K[..., j:j + bk, :]) * s
            if causal:
                S = np.where(np.arange(j, min(j + bk, m)) <= np.arange(i, last + 1)[:, None],
                             S, -np.inf)
            lse_I = lse[..., i:i + bq]
            P = np.exp(S - lse_I[..., None]) if P_of is None else P_of(S, lse_I)
            D = P * (G[..., i:i + bq, :] @ tr(V[..., j:j + bk, :]) - r[..., i:i + bq, None])
            if acc == "add":
                dV[..., j:j + bk, :] += tr(P) @ G[..., i:i + bq, :]
                dQ[..., i:i + bq, :] += D @ K[..., j:j + bk, :] * s
                dK[..., j:j + bk, :] += tr(D) @ Q[..., i:i + bq, :] * s
            else:
                dV[..., j:j + bk, :] = tr(P) @ G[..., i:i + bq, :]
                dQ[..., i:i + bq, :] = D @ K[..., j:j + bk, :] * s
                dK[..., j:j + bk, :] = tr(D) @ Q[..., i:i + bq, :] * s
    return dQ, dK, dV


def _divided(S, lse):
    return np.exp(S) / np.exp(lse[..., None])


def online(Q, K, V, block_k, *, causal=False, reference="max", alpha="exp", lse="add",
           rescale=True, blocks=None, scale=None, seen=None):
    """A reader's online softmax loop; the keywords put one slip in."""
    n, m = Q.shape[-2], K.shape[-2]
    s = rsqrt_d(Q) if scale is None else scale(Q)
    s_max = np.full(Q.shape[:-1], -np.inf)
    ell = np.zeros(Q.shape[:-1])
    acc = np.zeros(Q.shape[:-1] + V.shape[-1:])
    for j in blocks(m, block_k) if blocks else range(0, m, block_k):
        J = np.arange(j, min(j + block_k, m))
        S = Q @ tr(K[..., J, :]) * s
        if causal or seen:
            S = np.where((seen or (lambda i, j, n, m: j <= i))(np.arange(n)[:, None], J, n, m),
                         S, -np.inf)
        s_new = np.maximum(s_max, S.max(-1)) if reference == "max" else np.zeros_like(s_max)
        a = np.exp(s_max - s_new) if alpha == "exp" else np.exp(s_max) / np.exp(s_new)
        E = np.exp(S - s_new[..., None])
        ell = (a * ell if rescale else ell) + E.sum(-1)
        acc = (a[..., None] * acc if rescale else acc) + E @ V[..., J, :]
        s_max = s_new
    lse_ = {"add": s_max + np.log(ell), "exp": np.log(ell * np.exp(s_max)),
            "none": np.log(ell)}[lse]
    return acc / ell[..., None], lse_


def online_torch_no_max(Q, K, V, block_k):
    ell = torch.zeros(Q.shape[:-1], dtype=Q.dtype)
    acc = torch.zeros(Q.shape[:-1] + V.shape[-1:], dtype=Q.dtype)
    for j in range(0, K.shape[-2], block_k):
        E = torch.exp(Q @ K[..., j:j + block_k, :].mT / math.sqrt(Q.shape[-1]))
        ell, acc = ell + E.sum(-1), acc + E @ V[..., j:j + block_k, :]
    return acc / ell[..., None], torch.log(ell)


def softmax_rows(S):
    """One row at a time, no max."""
    S = np.atleast_2d(S)
    out = np.stack([np.exp(row) / np.exp(row).sum() for row in S.reshape(-1, S.shape[-1])])
    return out.reshape(S.shape).squeeze() if S.shape[0] == 1 else out.reshape(S.shape)


def causal(**kw):
    return lambda Q, K, V, b: online(Q, K, V, b, causal=True, **kw)


def plain(**kw):
    return lambda Q, K, V, b: online(Q, K, V, b, **kw)


CAUSAL = {"causal": True}

LARGE_SCORES = [
    ("backward-einsum", check.attention_backward, {}, backward_exp, "overflow"),
    ("backward-torch", check.attention_backward, {}, backward_torch_exp, "overflow"),
    ("backward-mean", check.attention_backward, {}, backward_mean_shift, "overflow"),
    ("backward-first", check.attention_backward, {}, backward_first_shift, ANY),
    ("replace", check.mask_replace, {}, replace_exp, "overflow"),
    ("add", check.mask_add, {}, add_exp, ANY),
    ("dropout", check.dropout_backward, {}, dropout_exp, "overflow"),
    ("lse", check.lse_backward, {}, lse_divided, "lse_overflow"),
    ("lse-torch", check.lse_backward, {}, lse_torch_divided, "lse_overflow"),
    ("blockwise", check.blockwise_backward, {},
     lambda *a: blockwise(*a, P_of=_divided), "lse_overflow"),
    ("blockwise-causal", check.blockwise_backward, CAUSAL,
     lambda *a: blockwise(*a, causal=True, P_of=_divided), "lse_overflow"),
    ("online", check.online_softmax, {}, plain(reference="zero"), "online_no_max"),
    ("online-torch", check.online_softmax, {}, online_torch_no_max, ANY),
    ("softmax-rows", check.softmax, {}, softmax_rows, "overflow"),
]


@pytest.mark.parametrize("checker, kw, fn, hint", params(LARGE_SCORES))
def test_no_max_subtraction_is_caught(checker, kw, fn, hint):
    text = graded(checker, fn, **kw)
    assert caught(text, hint), text
    assert "NaN 이나 inf" in text or "오류" in text, text


# --------------------------------------------------------- the causal online softmax ----

CAUSAL_ONLINE = [
    ("no-running-max", check.online_softmax, CAUSAL, causal(reference="zero"), "online_no_max"),
    ("torch-no-max", check.online_softmax, CAUSAL, lambda Q, K, V, b: online_torch_no_max(
        Q, K, V, b), ANY),
    ("alpha-divided", check.online_softmax, CAUSAL, causal(alpha="divide"),
     "online_alpha_division"),
    ("lse-exp", check.online_softmax, CAUSAL, causal(lse="exp"), "online_lse_overflow"),
    ("lse-no-max", check.online_softmax, CAUSAL, causal(lse="none"), "online_lse"),
    ("never-rescaled", check.online_softmax, CAUSAL, causal(rescale=False),
     "online_no_rescale_both"),
    ("plain-alpha-divided", check.online_softmax, {}, plain(alpha="divide"),
     "online_alpha_division"),
    ("plain-lse-exp", check.online_softmax, {}, plain(lse="exp"), "online_lse_overflow"),
    ("plain-never-rescaled", check.online_softmax, {}, plain(rescale=False),
     "online_no_rescale_both"),
]


@pytest.mark.parametrize("checker, kw, fn, hint", params(CAUSAL_ONLINE))
def test_online_softmax_without_a_working_running_max_is_caught(checker, kw, fn, hint):
    text = graded(checker, fn, **kw)
    assert caught(text, hint), text


def test_two_nan_mistakes_get_their_own_hints():
    """Both give NaN: the grader tells them apart by where the NaN fall, not by NaN alone."""
    texts = [graded(check.online_softmax, causal(reference="zero"), causal=True),
             graded(check.online_softmax, causal(alpha="divide"), causal=True)]
    assert fails_with(texts[0], "online_no_max") and not fails_with(texts[0],
                                                                    "online_alpha_division")
    assert fails_with(texts[1], "online_alpha_division") and not fails_with(texts[1],
                                                                            "online_no_max")


# --------------------------------------------------------- float32 where it matters ----


def ln_one_pass(G, x):
    mu = x.mean(-1, keepdims=True)
    sigma = np.sqrt((x * x).mean(-1, keepdims=True) - mu * mu)
    y = (x - mu) / sigma
    return (G - G.mean(-1, keepdims=True) - y * (G * y).mean(-1, keepdims=True)) / sigma


def ln_torch_one_pass(G, x):
    d = x.shape[-1]
    var = (x**2).sum(-1, keepdim=True) / d - (x.sum(-1, keepdim=True) / d) ** 2
    y = (x - x.mean(-1, keepdim=True)) * var.rsqrt()
    return (G - G.mean(-1, keepdim=True) - y * (G * y).mean(-1, keepdim=True)) * var.rsqrt()


def ln_one_pass_loop(G, x):
    """Per row, with Python's sum of squares."""
    out = np.empty_like(G)
    for idx in np.ndindex(x.shape[:-1]):
        row, g = x[idx], G[idx]
        d = row.size
        var = np.sum(row**2) / d - (np.sum(row) / d) ** 2
        y = (row - row.mean()) / np.sqrt(var)
        out[idx] = (g - g.mean() - y * (g * y).mean()) / np.sqrt(var)
    return out


@pytest.mark.parametrize("fn", [ln_one_pass, ln_torch_one_pass, ln_one_pass_loop])
def test_a_one_pass_variance_fails_in_float32(fn):
    text = graded(check.layernorm_backward, fn)
    assert fails_with(text, "ln_one_pass") and "float32" in text.splitlines()[1], text


def test_a_failure_in_float32_only_is_told():
    def half_way(P, U):
        """float32 inputs "saved" as float16 for the product, the answer back in float32."""
        PU = (P.astype(np.float16) * U.astype(np.float16)) if P.dtype == np.float32 else P * U
        return P * (U - PU.sum(-1, keepdims=True).astype(P.dtype))

    text = graded(check.softmax_vjp, half_way)
    assert fails_with(text, "float32_only") and "float32" in text.splitlines()[1], text


# --------------------------------------------------------------------- side effects ----


def softmax_in_place(S):
    S -= S.max(-1, keepdims=True)
    np.exp(S, out=S)
    S /= S.sum(-1, keepdims=True)
    return S.copy()


def layernorm_centred_in_place(G, x):
    x -= x.mean(-1, keepdims=True)
    sigma = np.sqrt((x * x).mean(-1, keepdims=True))
    x /= sigma
    return (G - G.mean(-1, keepdims=True) - x * (G * x).mean(-1, keepdims=True)) / sigma


def backward_scaling_Q(G, Q, K, V):
    s = rsqrt_d(Q)
    Q *= s  # fold the scale into Q... in the caller's array
    S = Q @ tr(K)
    P = np.exp(S - S.max(-1, keepdims=True))
    P /= P.sum(-1, keepdims=True)
    U = G @ tr(V)
    D = P * (U - (P * U).sum(-1, keepdims=True))
    return D @ K * s, tr(D) @ Q, tr(P) @ G


def backward_torch_in_place(G, Q, K, V):
    s = rsqrt_d(Q)
    P = torch.softmax(Q @ K.mT * s, -1)
    U = G @ V.mT
    U.sub_((P * U).sum(-1, keepdim=True))
    D = P * U
    dV = P.mT @ G
    return D @ K.mul_(s), D.mT @ Q * s, dV  # K scaled in place


def entropy_clipped(P):
    np.clip(P, 1e-300, None, out=P)  # no more log 0... in the caller's P
    return (-(P * np.log(P)).sum(-1) / np.log(P.shape[-1])).mean(-1)


def entropy_torch_clamped(P):
    P.clamp_(min=1e-300)
    return (-(P * P.log()).sum(-1) / math.log(P.shape[-1])).mean(-1)


def dropout_scaling_M(G, Q, K, V, M, p_drop):
    M /= 1 - p_drop  # the kept entries' factor, once, in the caller's M
    s = rsqrt_d(Q)
    P = A.softmax(Q @ tr(K) * s)
    U = (G @ tr(V)) * M
    D = P * (U - (P * U).sum(-1, keepdims=True))
    return D @ K * s, tr(D) @ Q * s, tr(P * M) @ G


def replace_masking_G(G, Q, K, V, mask, fill):
    G[...] = G  # harmless
    K -= 0.0  # harmless
    out = A.attention_backward(G, Q, K, V, mask=mask, fill=fill)
    mask &= True  # harmless: the values stay
    V *= 2.0  # not harmless
    return out


SIDE_EFFECTS = [
    ("softmax", check.softmax, {}, softmax_in_place, "S"),
    ("layernorm", check.layernorm_backward, {}, layernorm_centred_in_place, "x"),
    ("backward-Q", check.attention_backward, {}, backward_scaling_Q, "Q"),
    ("backward-torch", check.attention_backward, {"backend": "torch"}, backward_torch_in_place,
     "K"),
    ("entropy", check.normalized_entropy, {}, entropy_clipped, "P"),
    ("entropy-torch", check.normalized_entropy, {"backend": "torch"}, entropy_torch_clamped, "P"),
    ("dropout", check.dropout_backward, {}, dropout_scaling_M, "M"),
    ("replace", check.mask_replace, {}, replace_masking_G, "V"),
]


@pytest.mark.parametrize("checker, kw, fn, name",
                         [pytest.param(c, kw, f, n, id=i) for i, c, kw, f, n in SIDE_EFFECTS])
def test_changing_an_input_is_caught_and_named(checker, kw, fn, name):
    text = graded(checker, fn, **kw)
    assert f"함수가 입력 {name} 를 바꿔 놓았습니다" in flat(text), text
    assert fails_with(text, "mutated") and f"함수가 받은 {name} 를" in flat(text), text


_BUFFERS = {}


def softmax_into_a_buffer(S):
    out = _BUFFERS.setdefault(S.shape, np.empty(S.shape))
    out[...] = A.softmax(S)
    return out


def vjp_default_out(P, U, out=np.zeros(0)):  # noqa: B008 (the slip under test)
    if out.shape != P.shape:
        out.resize(P.shape, refcheck=False)
    out[...] = A.softmax_vjp(P, U)
    return out


def test_an_output_a_later_call_overwrites_is_caught():
    for checker, fn in ((check.softmax, softmax_into_a_buffer),
                        (check.softmax_vjp, vjp_default_out)):
        text = graded(checker, fn)
        assert fails_with(text, "reused_output") and "바뀌었습니다" in text, text


def test_an_output_that_is_a_view_of_an_input_is_caught():
    text = graded(check.normalized_entropy, lambda P: P[..., 0, 0])
    assert fails_with(text, "alias") and "입력 P 와 메모리를 함께 씁니다" in flat(text), text
    text = graded(check.pv_backward, lambda G, P, V: (tr(P) @ G, tr(tr(G @ tr(V)))))
    assert passes(text), text  # a view of its own new array is fine


# ------------------------------------------------------------ constraints: no n×m array ----


def online_whole_S(Q, K, V, block_k):
    S = Q @ tr(K) * rsqrt_d(Q)  # the whole n×m, sliced afterwards
    s_max = np.full(Q.shape[:-1], -np.inf)
    ell, acc = np.zeros(Q.shape[:-1]), np.zeros(Q.shape[:-1] + V.shape[-1:])
    for j in range(0, K.shape[-2], block_k):
        S_j = S[..., j:j + block_k]
        s_new = np.maximum(s_max, S_j.max(-1))
        a = np.exp(s_max - s_new)
        E = np.exp(S_j - s_new[..., None])
        ell, acc = a * ell + E.sum(-1), a[..., None] * acc + E @ V[..., j:j + block_k, :]
        s_max = s_new
    return acc / ell[..., None], s_max + np.log(ell)


def online_collect_blocks(Q, K, V, block_k):
    parts = [Q @ tr(K[..., j:j + block_k, :]) * rsqrt_d(Q) for j in range(0, K.shape[-2],
                                                                         block_k)]
    S = np.concatenate(parts, -1)
    top = S.max(-1, keepdims=True)
    E = np.exp(S - top)
    return E @ V / E.sum(-1, keepdims=True), top[..., 0] + np.log(E.sum(-1))


def online_float32_scores(Q, K, V, block_k):
    S = (Q @ tr(K)).astype(np.float32)  # "half the memory"
    del S
    return online(Q, K, V, block_k)


def online_causal_float_mask(Q, K, V, block_k):
    n, m = Q.shape[-2], K.shape[-2]
    bias = np.triu(np.full((n, m), -np.inf), 1)  # an n×m float mask
    return online(Q, K, V, block_k, seen=lambda i, j, n_, m_: bias[i, j] == 0)


def blockwise_from(G, Q, K, V, O, lse, bq, bk, *, whole):
    """Blocks cut from a whole n×m array: P, U or a float causal mask (``whole``)."""
    n, m = Q.shape[-2], K.shape[-2]
    s = rsqrt_d(Q)
    P_all = np.exp(Q @ tr(K) * s - lse[..., None]) if whole == "P" else None
    U_all = G @ tr(V) if whole == "U" else None
    keep = np.tril(np.ones((n, m))) if whole == "mask" else None  # float64
    r = (G * O).sum(-1)
    dQ, dK, dV = np.zeros(Q.shape), np.zeros(K.shape), np.zeros(V.shape)
    for j in range(0, m, bk):
        J = slice(j, j + bk)
        for i in range(0, n, bq):
            I = slice(i, i + bq)
            P = (P_all[..., I, J] if P_all is not None
                 else np.exp(Q[..., I, :] @ tr(K[..., J, :]) * s - lse[..., I, None]))
            if keep is not None:
                P = np.where(keep[I, J] > 0, P, 0.0)
            U = U_all[..., I, J] if U_all is not None else G[..., I, :] @ tr(V[..., J, :])
            D = P * (U - r[..., I, None])
            dV[..., J, :] += tr(P) @ G[..., I, :]
            dQ[..., I, :] += D @ K[..., J, :] * s
            dK[..., J, :] += tr(D) @ Q[..., I, :] * s
    return dQ, dK, dV


def online_bool_mask(Q, K, V, block_k):
    seen = np.tril(np.ones((Q.shape[-2], K.shape[-2]), dtype=bool))  # n×m, 1 byte an entry
    return online(Q, K, V, block_k, seen=lambda i, j, n, m: seen[i, j])


def online_half_scores(Q, K, V, block_k):
    S16 = (Q @ tr(K)).astype(np.float16)  # n×m at 2 bytes an entry, "only to look at"
    assert np.isfinite(S16).any()
    return online(Q, K, V, block_k)


def blockwise_int8_mask(G, Q, K, V, O, lse, bq, bk):
    keep = np.tril(np.ones((Q.shape[-2], K.shape[-2]), dtype=np.int8))
    return blockwise(G, Q, K, V, O, lse, bq, bk, causal=True,
                     P_of=lambda S, lse_I: np.exp(S - lse_I[..., None]) * (keep.sum() > 0))


MEMORY = [
    ("online-S", check.online_softmax, {}, online_whole_S),
    ("online-bool-mask", check.online_softmax, CAUSAL, online_bool_mask),
    ("online-float16-S", check.online_softmax, {}, online_half_scores),
    ("blockwise-int8-mask", check.blockwise_backward, CAUSAL, blockwise_int8_mask),
    ("online-collect", check.online_softmax, {}, online_collect_blocks),
    ("online-float32", check.online_softmax, {}, online_float32_scores),
    ("online-causal-mask", check.online_softmax, CAUSAL, online_causal_float_mask),
    ("blockwise-P", check.blockwise_backward, {}, lambda *a: blockwise_from(*a, whole="P")),
    ("blockwise-U", check.blockwise_backward, {}, lambda *a: blockwise_from(*a, whole="U")),
    ("blockwise-causal-mask", check.blockwise_backward, CAUSAL,
     lambda *a: blockwise_from(*a, whole="mask")),
]


@pytest.mark.parametrize("checker, kw, fn", [pytest.param(c, kw, f, id=i)
                                             for i, c, kw, f in MEMORY])
def test_an_n_by_m_array_is_caught_by_its_memory(checker, kw, fn):
    text = graded(checker, fn, **kw)
    assert "값은 맞지만 메모리를" in flat(text) and fails_with(text, "memory"), text


def test_the_book_loops_are_within_the_limit():
    """The book's own loops pass: blocks, O(n) rows and the inputs' size fit under the limit."""
    assert passes(graded(check.blockwise_backward, lambda *a: blockwise(*a, causal=True),
                         causal=True))
    assert passes(graded(check.online_softmax, plain()))
    assert passes(graded(check.online_softmax, causal(), causal=True))


# ---------------------------------------------------------------------- the messages ----


def softmax_max_keepdims_only(S):
    E = np.exp(S - S.max(-1))  # keepdims forgotten here only
    return E / E.sum(-1, keepdims=True)


def softmax_sum_keepdims_only(S):
    E = np.exp(S - S.max(-1, keepdims=True))
    return E / np.sum(E, axis=-1)


def lse_r_without_keepdims(G, Q, K, V, O, lse):
    s = rsqrt_d(Q)
    P = np.exp(Q @ tr(K) * s - lse[..., None])
    D = P * (G @ tr(V) - np.einsum("...id,...id->...i", G, O))  # r of shape (..., n)
    return D @ K * s, tr(D) @ Q * s, tr(P) @ G


KEEPDIMS = [
    ("softmax-max", check.softmax, {}, softmax_max_keepdims_only, "keepdims"),
    ("softmax-sum", check.softmax, {}, softmax_sum_keepdims_only, "keepdims"),
    ("lse-r", check.lse_backward, {}, lse_r_without_keepdims, "keepdims"),
    ("vjp-r", check.softmax_vjp, {}, lambda P, U: P * (U - np.sum(P * U, axis=-1)),
     "keepdims_crash"),
    ("layernorm-mean", check.layernorm_backward, {}, lambda G, x: A.layernorm_backward(
        G, x - x.mean(-1) + x.mean(-1, keepdims=True)), "keepdims_crash"),
]


@pytest.mark.parametrize("checker, kw, fn, hint", params(KEEPDIMS))
def test_keepdims_is_named_when_it_is_the_mistake(checker, kw, fn, hint):
    text = graded(checker, fn, **kw)
    assert fails_with(text, hint), text


def jacobian_1d(p):
    return np.diag(p) - np.outer(p, p)


def lse_r_columns(G, Q, K, V, O, lse):
    s = rsqrt_d(Q)
    P = np.exp(Q @ tr(K) * s - lse[..., None])
    D = P * (G @ tr(V) - (G * O).sum(-2, keepdims=True))
    return D @ K * s, tr(D) @ Q * s, tr(P) @ G


NOT_KEEPDIMS = [
    ("jacobian-1d", check.softmax_jacobian, {}, jacobian_1d, "jac_leading_axes"),
    ("lse-r-columns", check.lse_backward, {}, lse_r_columns, None),
    ("blockwise-r-columns", check.blockwise_backward, {},
     lambda *a: blockwise(*a, r_of=lambda G, O: (G * O).sum(-2)), ANY),
    ("blockwise-lse-by-key", check.blockwise_backward, {}, lambda G, Q, K, V, O, lse, bq, bk:
     blockwise(G, Q, K, V, O, lse, bq, bk,
               P_of=lambda S, lse_I: np.exp(S - lse_I[..., :S.shape[-1], None])), ANY),
]


@pytest.mark.parametrize("checker, kw, fn, hint", params(NOT_KEEPDIMS))
def test_a_broadcast_error_is_not_called_keepdims_unless_it_is(checker, kw, fn, hint):
    text = graded(checker, fn, **kw)
    assert caught(text, hint), text
    given = text.split("힌트:", 1)[1] if "힌트:" in text else ""
    assert "keepdims" not in given, text


def entropy_over_visible_keys(P):
    logP = np.log(np.where(P > 0, P, 1.0))
    H = -(P * logP).sum(-1)
    return (H / np.log(np.count_nonzero(P, axis=-1))).mean(-1)


def entropy_torch_nan(P):
    return (-(P * torch.log(P)).sum(-1) / math.log(P.shape[-1])).mean(-1)


def test_different_causes_of_nan_get_different_hints():
    text = graded(check.normalized_entropy, entropy_over_visible_keys)
    assert fails_with(text, "log_visible") and not fails_with(text, "zero_log_zero"), text
    text = graded(check.normalized_entropy, entropy_torch_nan)
    assert fails_with(text, "zero_log_zero"), text
    text = graded(check.normalized_entropy, lambda P: np.full(P.shape[:-2], np.nan))
    assert fails_silently(text), text  # NaN everywhere says nothing about why


ORDER = [
    ("pv", check.pv_backward, {}, lambda G, P, V: (G @ tr(V), tr(P) @ G), "order"),
    ("dq_dk", check.dq_dk, {}, lambda d, Q, K: (tr(d) @ Q * rsqrt_d(Q), d @ K * rsqrt_d(Q)),
     "order"),
    ("backward", check.attention_backward, {}, lambda G, Q, K, V: tuple(
        A.attention_backward(G, Q, K, V)[i] for i in (2, 0, 1)), "order"),
    ("pv-transposed", check.pv_backward, {}, lambda G, P, V: (tr(G) @ P, G @ tr(V)),
     "transposed"),
]


@pytest.mark.parametrize("checker, kw, fn, hint", params(ORDER))
def test_tuple_order_is_told_from_a_transpose(checker, kw, fn, hint):
    text = graded(checker, fn, **kw)
    assert fails_with(text, hint), text


def test_low_precision_outputs_are_named():
    text = graded(check.softmax_vjp, lambda P, U: A.softmax_vjp(P, U).astype(np.float32))
    assert fails_with(text, "low_precision") and "delta 를 float32 로" in flat(text), text
    text = graded(check.attention_backward, lambda G, Q, K, V: tuple(
        x.half() for x in T.attention_backward(G, Q, K, V)))
    assert fails_with(text, "low_precision") and "dQ 를 float16 로" in flat(text), text


# ------------------------------------------------- silent mistakes that now get a hint ----


def backward_with(G, Q, K, V, *, forward, backward, axis=-1):
    S = Q @ tr(K) * forward(Q)
    P = np.exp(S - S.max(axis, keepdims=True))
    P /= P.sum(axis, keepdims=True)
    U = G @ tr(V)
    D = P * (U - (P * U).sum(-1, keepdims=True))
    return D @ K * backward(Q), tr(D) @ Q * backward(Q), tr(P) @ G


def over_d(Q):
    return 1 / Q.shape[-1]


def one(Q):
    return 1.0


SILENT = [
    ("backward-1/d", check.attention_backward, {},
     lambda *a: backward_with(*a, forward=over_d, backward=over_d), "scale_d"),
    ("backward-queries", check.attention_backward, {},
     lambda *a: backward_with(*a, forward=rsqrt_d, backward=rsqrt_d, axis=-2), "softmax_axis"),
    ("backward-unscaled-forward", check.attention_backward, {},
     lambda *a: backward_with(*a, forward=one, backward=rsqrt_d), "forward_unscaled"),
    ("backward-unscaled", check.attention_backward, {},
     lambda *a: backward_with(*a, forward=one, backward=one), "unscaled_everywhere"),
    ("online-1/d", check.online_softmax, {}, plain(scale=over_d), "scale_d"),
    ("online-unscaled", check.online_softmax, {}, plain(scale=one), "forward_unscaled"),
    ("online-tail", check.online_softmax, {},
     plain(blocks=lambda m, b: range(0, m - b + 1, b)), "tail_block"),
    ("online-tail-causal", check.online_softmax, CAUSAL,
     causal(blocks=lambda m, b: (k * b for k in range(m // b))), "tail_block"),
    ("blockwise-tail-keys", check.blockwise_backward, {}, lambda G, Q, K, V, O, lse, bq, bk:
     blockwise(G, Q, K, V, O, lse, bq, bk, keys=range(0, K.shape[-2] // bk * bk, bk)),
     "tail_block"),
    ("blockwise-tail-both", check.blockwise_backward, {}, lambda G, Q, K, V, O, lse, bq, bk:
     blockwise(G, Q, K, V, O, lse, bq, bk, keys=range(0, K.shape[-2] - bk + 1, bk),
               queries=range(0, Q.shape[-2] - bq + 1, bq)), "tail_block"),
    ("blockwise-tail-causal", check.blockwise_backward, CAUSAL, lambda G, Q, K, V, O, lse, bq, bk:
     blockwise(G, Q, K, V, O, lse, bq, bk, causal=True,
               queries=range(0, Q.shape[-2] // bq * bq, bq)), "tail_block"),
]


@pytest.mark.parametrize("checker, kw, fn, hint", params(SILENT))
def test_common_silent_mistakes_get_a_hint(checker, kw, fn, hint):
    text = graded(checker, fn, **kw)
    assert fails_with(text, hint), text


# ------------------------------------------------------ classes the review did not list ----


def dropout_with(G, Q, K, V, M, p_drop, *, keep):
    P = A.softmax(Q @ tr(K) * rsqrt_d(Q))
    U = (G @ tr(V)) * keep(M, p_drop)
    D = P * (U - (P * U).sum(-1, keepdims=True))
    s = rsqrt_d(Q)
    return D @ K * s, tr(D) @ Q * s, tr(P * keep(M, p_drop)) @ G


def backward_batch_T(G, Q, K, V):
    s = rsqrt_d(Q)
    S = Q @ K.T * s if Q.ndim == 2 else np.einsum("...id,...jd->...ij", Q, K) * s
    P = A.softmax(S)
    U = G @ V.T if G.ndim == 2 else G @ V.transpose()  # .T-like on a batch
    D = P * (U - (P * U).sum(-1, keepdims=True))
    return D @ K * s, tr(D) @ Q * s, tr(P) @ G


def backward_2d_einsum(G, Q, K, V):
    s = rsqrt_d(Q)
    P = A.softmax(np.einsum("id,jd->ij", Q, K) * s)
    U = np.einsum("ia,ja->ij", G, V)
    D = P * (U - (P * U).sum(-1, keepdims=True))
    return (np.einsum("ij,jd->id", D, K) * s, np.einsum("ij,id->jd", D, Q) * s,
            np.einsum("ij,ia->ja", P, G))


def backward_flattened(G, Q, K, V):
    """Batch and heads folded into the rows: queries then see the other heads' keys."""
    d, dv = Q.shape[-1], V.shape[-1]
    dQ, dK, dV = A.attention_backward(G.reshape(-1, dv), Q.reshape(-1, d), K.reshape(-1, d),
                                      V.reshape(-1, dv))
    return dQ.reshape(Q.shape), dK.reshape(K.shape), dV.reshape(V.shape)


def blockwise_shared_buffer(G, Q, K, V, O, lse, bq, bk):
    dQ, dK, dV = blockwise(G, Q, K, V, O, lse, bq, bk)
    grads = np.zeros(Q.shape)  # one buffer for dQ and dK when the shapes agree...
    grads += dQ
    if K.shape == Q.shape:
        grads += dK
        return grads, grads, dV
    return dQ, dK, dV


MORE = [
    ("online-lower-right", check.online_softmax, CAUSAL, lambda Q, K, V, b: online(
        Q, K, V, b, seen=lambda i, j, n, m: j <= i + m - n), "causal_lower_right"),
    ("blockwise-lower-right", check.blockwise_backward, CAUSAL,
     lambda G, Q, K, V, O, lse, bq, bk: _lower_right(G, Q, K, V, O, lse), "causal_lower_right"),
    ("replace-mask-transposed", check.mask_replace, {}, lambda G, Q, K, V, mask, fill:
     A.attention_backward(G, Q, K, V, mask=tr(mask), fill=fill), ANY),
    ("dropout-no-rescale", check.dropout_backward, {},
     lambda *a: dropout_with(*a, keep=lambda M, p: M), "dropout_no_rescale"),
    ("dropout-over-p", check.dropout_backward, {},
     lambda *a: dropout_with(*a, keep=lambda M, p: M / p), "dropout_over_p"),
    ("dropout-times-1-p", check.dropout_backward, {},
     lambda *a: dropout_with(*a, keep=lambda M, p: M * (1 - p)), ANY),
    ("batch-T", check.attention_backward, {}, backward_batch_T, ANY),
    ("batch-einsum-2d", check.attention_backward, {}, backward_2d_einsum, "batch_axes"),
    ("batch-flattened", check.attention_backward, {}, backward_flattened, "batch_axes"),
    ("pv-T", check.pv_backward, {}, lambda G, P, V: (P.T @ G, G @ V.T), "batch_axes"),
    ("vjp-2d-einsum", check.softmax_vjp, {}, lambda P, U: P * (U - np.einsum(
        "ij,ij->i", np.atleast_2d(P), np.atleast_2d(U))[:, None]), ANY),
    ("blockwise-shared-buffer", check.blockwise_backward, {}, blockwise_shared_buffer, ANY),
]


def _lower_right(G, Q, K, V, O, lse):
    n, m = Q.shape[-2], K.shape[-2]
    seen = np.tril(np.ones((n, m), dtype=bool), k=m - n)
    s = rsqrt_d(Q)
    P = np.where(seen, np.exp(Q @ tr(K) * s - lse[..., None]), 0.0)
    D = P * (G @ tr(V) - (G * O).sum(-1, keepdims=True))
    return D @ K * s, tr(D) @ Q * s, tr(P) @ G


@pytest.mark.parametrize("checker, kw, fn, hint", params(MORE))
def test_more_classes_are_caught(checker, kw, fn, hint):
    text = graded(checker, fn, **kw)
    assert caught(text, hint), text


# ----------------------------------------- holes a second referee found (rows, memory, calls) ----


def online_from_zero(Q, K, V, block_k, *, causal=False):
    """s_max starts at 0, not −inf: harmless while a row has a score above 0."""
    n, m = Q.shape[-2], K.shape[-2]
    top = np.zeros(Q.shape[:-1])
    ell, acc = np.zeros(Q.shape[:-1]), np.zeros(Q.shape[:-1] + V.shape[-1:])
    for j in range(0, m, block_k):
        S = np.einsum("...id,...jd->...ij", Q, K[..., j:j + block_k, :]) * rsqrt_d(Q)
        if causal:
            S = np.where(np.arange(j, min(j + block_k, m)) <= np.arange(n)[:, None], S, -np.inf)
        new = np.maximum(top, S.max(-1))
        E = np.exp(S - new[..., None])
        ell = ell * np.exp(top - new) + E.sum(-1)
        acc = acc * np.exp(top - new)[..., None] + np.einsum("...ij,...jd->...id", E,
                                                            V[..., j:j + block_k, :])
        top = new
    return acc / ell[..., None], top + np.log(ell)


def online_torch_from_zero(Q, K, V, block_k):
    top = torch.zeros(Q.shape[:-1], dtype=Q.dtype)
    ell, acc = torch.zeros_like(top), torch.zeros(Q.shape[:-1] + V.shape[-1:], dtype=Q.dtype)
    for j in range(0, K.shape[-2], block_k):
        S = Q @ K[..., j:j + block_k, :].mT / math.sqrt(Q.shape[-1])
        new = torch.maximum(top, S.amax(-1))
        E = torch.exp(S - new[..., None])
        a = torch.exp(top - new)
        ell, acc, top = a * ell + E.sum(-1), a[..., None] * acc + E @ V[..., j:j + block_k, :], new
    return acc / ell[..., None], top + torch.log(ell)


def backward_max_at_least_0(G, Q, K, V):
    s = rsqrt_d(Q)
    S = Q @ tr(K) * s
    E = np.exp(S - np.maximum(S.max(-1, keepdims=True), 0.0))  # "the max, but never below 0"
    return _five(G, Q, K, V, E / E.sum(-1, keepdims=True), s)


NEGATIVE_ROWS = [
    ("online-from-zero", check.online_softmax, {}, online_from_zero, "online_zero_start"),
    ("online-causal-from-zero", check.online_softmax, CAUSAL,
     lambda *a: online_from_zero(*a, causal=True), "online_zero_start"),
    ("online-torch-from-zero", check.online_softmax, {"backend": "torch"},
     online_torch_from_zero, "online_zero_start"),
    ("backward-max-at-least-0", check.attention_backward, {}, backward_max_at_least_0, ANY),
]


@pytest.mark.parametrize("checker, kw, fn, hint", params(NEGATIVE_ROWS))
def test_a_reference_point_of_0_fails_on_very_negative_rows(checker, kw, fn, hint):
    text = graded(checker, fn, **kw)
    assert caught(text, hint) and "NaN 이나 inf" in text, text


def online_torch_whole(Q, K, V, block_k):
    Qt, Kt, Vt = (torch.from_numpy(x) for x in (Q, K, V))
    S = Qt @ Kt.mT / math.sqrt(Q.shape[-1])  # n×m, in torch's memory
    return (torch.softmax(S, -1) @ Vt).numpy(), torch.logsumexp(S, -1).numpy()


def blockwise_torch_P(G, Q, K, V, O, lse, bq, bk):
    P = torch.exp(torch.as_tensor(Q) @ torch.as_tensor(K).mT * rsqrt_d(Q)
                  - torch.as_tensor(lse)[..., None]).numpy()  # n×m, made by torch
    return blockwise(G, Q, K, V, O, lse, bq, bk,
                     P_of=lambda S, lse_I: np.exp(S - lse_I[..., None]) + 0 * P.flat[0])


@pytest.mark.parametrize("checker, fn", [(check.online_softmax, online_torch_whole),
                                         (check.blockwise_backward, blockwise_torch_P)])
def test_torch_work_inside_a_numpy_call_is_not_claimed_as_measured(checker, fn):
    text = flat(graded(checker, fn))
    assert "NumPy 배열은 최대 <" in text and "함수 안의 torch 계산은 재지 않았습니다" in text, text
    assert "(n×m float64 배열 하나가" not in text, text


def test_unchecked_constraints_are_said():
    text = flat(graded(check.online_softmax, plain()))
    assert "검사하지 않은 것: 키 블록을 한 번만 훑는지, block_k 개씩 자르는지" in text, text
    text = flat(graded(check.blockwise_backward, lambda *a: blockwise(*a, causal=True),
                       causal=True))
    assert "검사하지 않은 것: 통째로 가린 블록을 건너뛰는지" in text, text
    text = flat(graded(check.blockwise_backward, blockwise))
    assert "검사하지 않은 것: 루프의 순서(바깥이 키 블록인지)" in text, text


_BY_SHAPE = {}


def cached_by_shape(fn):
    """``fn``'s outputs written into arrays kept per (shape, dtype): a cache a reader might add."""
    def cached(*args):
        outs = fn(*args)
        single = not isinstance(outs, tuple)
        kept = []
        for x in (outs,) if single else outs:
            buffer = _BY_SHAPE.setdefault((fn, len(kept), x.shape, x.dtype), np.empty_like(x))
            buffer[...] = x
            kept.append(buffer)
        return kept[0] if single else tuple(kept)
    return cached


def online_one_buffer(Q, K, V, block_k, _out={}):  # noqa: B006 (the slip under test)
    O, lse = online(Q, K, V, block_k)
    if _out.get("O") is None or _out["O"].shape != O.shape:
        _out["O"] = np.empty_like(O)
    _out["O"][...] = O
    return _out["O"], lse


REUSED = [
    ("attention-backward", check.attention_backward,
     cached_by_shape(lambda G, Q, K, V: A.attention_backward(G, Q, K, V))),
    ("lse-backward", check.lse_backward,
     cached_by_shape(lambda G, Q, K, V, O, lse: A.attention_backward(G, Q, K, V))),
    ("layernorm", check.layernorm_backward, cached_by_shape(
        lambda G, x: (G - G.mean(-1, keepdims=True) - (x - x.mean(-1, keepdims=True))
                      / x.std(-1, keepdims=True) * (G * (x - x.mean(-1, keepdims=True))
                                                    / x.std(-1, keepdims=True)).mean(
                          -1, keepdims=True)) / x.std(-1, keepdims=True))),
    ("online", check.online_softmax, online_one_buffer),
    ("blockwise", check.blockwise_backward, cached_by_shape(blockwise)),
]


@pytest.mark.parametrize("checker, fn", [pytest.param(c, f, id=i) for i, c, f in REUSED])
def test_an_output_kept_per_shape_or_in_one_buffer_is_caught(checker, fn):
    _BY_SHAPE.clear()
    text = graded(checker, fn)
    assert fails_with(text, "reused_output"), text


def softmax_sum_down(S):
    E = np.exp(S - S.max(-1, keepdims=True))
    return E / E.sum(-2 if S.ndim > 1 else -1, keepdims=True)  # the max right, the sum down


def jacobian_summed_rows(p):
    if p.ndim == 1:
        return np.diag(p) - np.outer(p, p)
    outer = np.einsum("...i,...j->...ij", p, p).sum(0, keepdims=True)
    return p[..., :, None] * np.eye(p.shape[-1]) - outer


def layernorm_global(G, x):
    mu, sigma = x.mean(), x.std()  # over everything, not per row
    y = (x - mu) / sigma
    return (G - G.mean(-1, keepdims=True) - y * (G * y).mean(-1, keepdims=True)) / sigma


def backward_inverse_d(G, Q, K, V):
    return backward_with(G, Q, K, V, forward=rsqrt_d, backward=over_d)


AXES_AND_SCALE = [
    ("softmax-sum-down", check.softmax, softmax_sum_down, None),
    ("jacobian-summed-rows", check.softmax_jacobian, jacobian_summed_rows, None),
    ("layernorm-global", check.layernorm_backward, layernorm_global, None),
    ("backward-1/d-backward-only", check.attention_backward, backward_inverse_d, "double_scale"),
    ("dq_dk-1/d", check.dq_dk, lambda d, Q, K: (d @ K / Q.shape[-1], tr(d) @ Q / Q.shape[-1]),
     "double_scale"),
]


@pytest.mark.parametrize("checker, fn, hint", [pytest.param(c, f, h, id=i)
                                               for i, c, f, h in AXES_AND_SCALE])
def test_an_axis_slip_in_the_rows_gets_no_batch_hint_and_1_over_d_is_named(checker, fn, hint):
    text = graded(checker, fn)
    assert caught(text, hint), text
    assert "앞에 붙은 축이" not in text and "np.diag 와 np.outer" not in text, text


HINTED = {hint for table in (LARGE_SCORES, CAUSAL_ONLINE, KEEPDIMS, NOT_KEEPDIMS, ORDER, SILENT,
                             MORE, NEGATIVE_ROWS, AXES_AND_SCALE)
          for *_, hint in table if hint not in (ANY, None)}
HINTED |= {"mutated", "reused_output", "alias", "memory", "ln_one_pass", "log_visible",
           "zero_log_zero", "low_precision", "float32_only"}


def _vjp_via_jacobian(P, U):
    """Exercise 8-1 against its own rule: builds J = diag(p) − ppᵀ for every row."""
    J = P[..., :, None] * np.eye(P.shape[-1]) - P[..., :, None] * P[..., None, :]
    return (J @ U[..., :, None])[..., 0]


def _ln_via_jacobian(G, x):
    """Exercise 14's LayerNorm backward against its rule: builds the d×d J_LN."""
    d = x.shape[-1]
    xc = x - x.mean(-1, keepdims=True)
    sigma = np.sqrt((xc * xc).mean(-1, keepdims=True))
    y = xc / sigma
    J = (np.eye(d) - 1 / d - y[..., :, None] * y[..., None, :] / d) / sigma[..., None]
    return np.einsum("...ij,...i->...j", J, G)


def _lse_ignoring_lse_and_O(G, Q, K, V, O, lse):
    """Exercise 15's LSE backward against its rule: redoes the softmax, uses neither lse nor O."""
    S = Q @ np.swapaxes(K, -1, -2) * rsqrt_d(Q)
    P = np.exp(S - S.max(-1, keepdims=True))
    P = P / P.sum(-1, keepdims=True)
    U = G @ np.swapaxes(V, -1, -2)
    delta = P * (U - (P * U).sum(-1, keepdims=True))
    s = rsqrt_d(Q)
    return s * delta @ K, s * np.swapaxes(delta, -1, -2) @ Q, np.swapaxes(P, -1, -2) @ G


@pytest.mark.parametrize("checker, fn, said", [
    (check.softmax_vjp, _vjp_via_jacobian, "야코비안을 만들지 않는지"),
    (check.layernorm_backward, _ln_via_jacobian, "J_LN 을 만들지 않는지"),
    (check.lse_backward, _lse_ignoring_lse_and_O, "받은 lse 와 O 로 P 와 r 을 구하는지"),
], ids=["softmax_vjp", "layernorm_backward", "lse_backward"])
def test_a_rule_the_grader_does_not_check_is_said_when_an_answer_breaks_it(checker, fn, said):
    """D8 (round 3): each of these answers breaks its exercise's rule (a Jacobian built, lse and
    O ignored) and still passes, so the ✔ must say that the rule was not checked."""
    text = flat(graded(checker, fn))
    assert text.startswith("✔"), text
    assert "검사하지 않은 것: " + said in text, text


# ------------------------------- hints that named another mistake (round-4 referees) ----


def dropout_r_with(G, Q, K, V, M, p_drop, *, r_from):
    """Exercise 10-1 with r computed as ``r_from(P, P̃, U, GVᵀ)`` (U already dropped)."""
    s = rsqrt_d(Q)
    P = A.softmax(Q @ tr(K) * s)
    keep = M / (1 - p_drop)
    GV = G @ tr(V)
    U = GV * keep
    r = r_from(P, P * keep, U, GV)
    D = P * (U - r)
    return D @ K * s, tr(D) @ Q * s, tr(P * keep) @ G


@pytest.mark.parametrize("r_from", [
    lambda P, Pt, U, GV: (P * U).sum(-1, keepdims=True),    # P and the dropped U
    lambda P, Pt, U, GV: (Pt * GV).sum(-1, keepdims=True),  # P̃ and the undropped GVᵀ
], ids=["P-U", "P_tilde-GV"])
def test_r_from_p_tilde_with_the_undropped_gv_is_right(r_from):
    """Part 2 D1 (round 4): r = Σ P̃ ⊙ GVᵀ = G·O is as right as Σ P ⊙ U; it passes."""
    text = graded(check.dropout_backward, lambda *a: dropout_r_with(*a, r_from=r_from))
    assert passes(text), text


def test_the_mask_twice_in_r_is_named_as_such():
    """Part 2 D1 (round 4): r = Σ P̃ ⊙ U puts M/(1 − p) in twice; the hint says so and no longer
    blames P̃ (r from P̃ is right with the undropped GVᵀ, above)."""
    text = graded(check.dropout_backward, lambda *a: dropout_r_with(
        *a, r_from=lambda P, Pt, U, GV: (Pt * U).sum(-1, keepdims=True)))
    assert fails_with(text, "dropout_r_twice"), text
    assert "두 번 들어갔습니다" in flat(text) and "r 을 P̃ 로 구했습니다" not in flat(text), text


def blockwise_diagonal_unmasked(G, Q, K, V, O, lse, bq, bk):
    """Exercise 18-2 with the right skip (j0 > i1 − 1) but no mask inside the diagonal blocks."""
    n, m = Q.shape[-2], K.shape[-2]
    s = rsqrt_d(Q)
    r = (G * O).sum(-1)
    dQ, dK, dV = np.zeros(Q.shape), np.zeros(K.shape), np.zeros(V.shape)
    for i in range(0, n, bq):
        last = min(i + bq, n) - 1
        for j in range(0, m, bk):
            if j > last:  # the whole block lies above the diagonal
                continue
            P = np.exp(Q[..., i:i + bq, :] @ tr(K[..., j:j + bk, :]) * s
                       - lse[..., i:i + bq, None])  # no np.where(k ≤ q, P, 0) here
            D = P * (G[..., i:i + bq, :] @ tr(V[..., j:j + bk, :]) - r[..., i:i + bq, None])
            dV[..., j:j + bk, :] += tr(P) @ G[..., i:i + bq, :]
            dQ[..., i:i + bq, :] += D @ K[..., j:j + bk, :] * s
            dK[..., j:j + bk, :] += tr(D) @ Q[..., i:i + bq, :] * s
    return dQ, dK, dV


def test_a_mask_left_out_of_the_diagonal_blocks_is_not_called_no_mask():
    """Part 3 D2 (round 4): the reader skipped exactly the right blocks; the hint must say that the
    diagonal blocks were left unmasked, not that no causal mask was applied."""
    text = graded(check.blockwise_backward, blockwise_diagonal_unmasked, causal=True)
    assert fails_with(text, "causal_diagonal_unmasked"), text
    assert "인과 마스크를 걸지 않았습니다" not in flat(text), text
    # no mask and no skip at all is still the other mistake
    text = graded(check.blockwise_backward,
                  lambda G, Q, K, V, O, lse, bq, bk: blockwise(G, Q, K, V, O, lse, bq, bk),
                  causal=True)
    assert fails_with(text, "causal_missing"), text
