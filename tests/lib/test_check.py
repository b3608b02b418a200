"""attnlib.check, the exercises' grader: correct answers pass in both backends and both dtypes
(under the strictest floating-point settings), typical wrong answers (mutants) fail with the hint
that names their mistake, misuse prints a message, every solution published in a chapter passes
its checker, and every hint a solution promises is given. ``test_check_wrong.py`` holds wrong
answers by class.

The mutants are written here the way a reader would write them, independently of the float64
variants the checkers compare against.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import unicodedata
import warnings
from pathlib import Path

import numpy as np
import pytest

from attnlib import check
from attnlib import numpy as A
from attnlib.check import HINTS

torch = pytest.importorskip("torch")
from attnlib import torch as T  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "chapters").glob("part*/*.ipynb"))


@contextlib.contextmanager
def strict():
    """The strictest settings a reader may have: every floating-point error raises, every
    warning is an error."""
    old = np.seterr(all="raise")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            yield
    finally:
        np.seterr(**old)


def graded(checker, fn, **kw) -> str:
    """What ``checker(fn, **kw)`` prints under ``strict()`` settings; it must not raise, and
    every printed line fits the page's 72 columns."""
    out = io.StringIO()
    with strict(), contextlib.redirect_stdout(out):
        assert checker(fn, **kw) is None
    text = out.getvalue()
    for line in text.splitlines():
        assert columns(line) <= 72, line
    return text


def columns(line):
    return len(line) + sum(unicodedata.east_asian_width(ch) in "WF" for ch in line)


def flat(text):
    """The printed text with its line breaks and indents (the grader wraps at 72 columns) undone."""
    return " ".join(text.split())


def passes(text):
    return text.startswith("✔") and "✘" not in text


def fails_with(text, hint):
    """Failed with the hint ``hint`` (its ``{…}`` fields may hold anything)."""
    pattern = ".+?".join(re.escape(part) for part in re.split(r"\{\w+\}", flat(HINTS[hint])))
    return text.startswith("✘") and re.search("힌트: " + pattern, flat(text)) is not None


def fails_silently(text):
    """Failed without a hint: the grader did not identify the mistake and says nothing."""
    return text.startswith("✘") and "힌트:" not in text


def swap(x):
    return x.swapaxes(-1, -2) if isinstance(x, np.ndarray) else x.transpose(-1, -2)


def causal_online(Q, K, V, bk):
    """The causal online softmax with the mask made block by block (attnlib's blockwise forward
    builds the whole n×m boolean mask, which the memory check no longer allows)."""
    n, m = Q.shape[-2], K.shape[-2]
    s_max = np.full(Q.shape[:-1], -np.inf)
    ell, acc = np.zeros(Q.shape[:-1]), np.zeros(Q.shape[:-1] + V.shape[-1:])
    for j in range(0, m, bk):
        J = np.arange(j, min(j + bk, m))
        S = np.where(J <= np.arange(n)[:, None], Q @ swap(K[..., J, :]) / math.sqrt(Q.shape[-1]),
                     -np.inf)
        s_new = np.maximum(s_max, S.max(-1))
        a, E = np.exp(s_max - s_new), np.exp(S - s_new[..., None])
        ell, acc, s_max = a * ell + E.sum(-1), a[..., None] * acc + E @ V[..., J, :], s_new
    return acc / ell[..., None], s_max + np.log(ell)


def causal_blockwise(G, Q, K, V, O, lse, bq, bk):
    """The causal blockwise backward, masks made block by block, masked blocks skipped."""
    n, m = Q.shape[-2], K.shape[-2]
    s, r = 1 / math.sqrt(Q.shape[-1]), (G * O).sum(-1)
    dQ, dK, dV = np.zeros(Q.shape), np.zeros(K.shape), np.zeros(V.shape)
    for j in range(0, m, bk):
        J = slice(j, j + bk)
        for i in range(j // bq * bq, n, bq):  # the blocks with a key j ≤ i
            I = slice(i, i + bq)
            seen = np.arange(j, min(j + bk, m)) <= np.arange(i, min(i + bq, n))[:, None]
            P = np.where(seen, np.exp(Q[..., I, :] @ swap(K[..., J, :]) * s
                                      - lse[..., I, None]), 0.0)
            D = P * (G[..., I, :] @ swap(V[..., J, :]) - r[..., I, None])
            dV[..., J, :] += swap(P) @ G[..., I, :]
            dQ[..., I, :] += D @ K[..., J, :] * s
            dK[..., J, :] += swap(D) @ Q[..., I, :] * s
    return dQ, dK, dV


def scale(Q):
    return 1 / math.sqrt(Q.shape[-1])


def softmax(S):
    E = np.exp(S - S.max(-1, keepdims=True))
    return E / E.sum(-1, keepdims=True)


# ------------------------------------------------------------ correct answers, both backends ----


def correct(B):
    """Correct answers built from a backend module: the same calls for NumPy and torch."""
    return {
        "softmax": (check.softmax, lambda S: B.softmax(S)),
        "softmax_jacobian": (check.softmax_jacobian, lambda p: B.softmax_jacobian(p)),
        "softmax_vjp": (check.softmax_vjp, lambda P, U: B.softmax_vjp(P, U)),
        "normalized_entropy": (check.normalized_entropy, lambda P: B.normalized_entropy(P)),
        "layernorm_backward": (check.layernorm_backward, lambda G, x: B.layernorm_backward(G, x)),
        "pv_backward": (check.pv_backward, lambda G, P, V: (swap(P) @ G, G @ swap(V))),
        "attention_backward": (check.attention_backward,
                               lambda G, Q, K, V: B.attention_backward(G, Q, K, V)),
        "dq_dk": (check.dq_dk, lambda d, Q, K: (scale(Q) * (d @ K), scale(Q) * (swap(d) @ Q))),
        "mask_replace": (check.mask_replace, lambda G, Q, K, V, mask, fill: B.attention_backward(
            G, Q, K, V, mask=mask, fill=fill)),
        "mask_add": (check.mask_add, lambda G, Q, K, V, bias: B.attention_backward(
            G, Q, K, V, mask=bias)),
        "dropout_backward": (check.dropout_backward, lambda G, Q, K, V, M, p: B.attention_backward(
            G, Q, K, V, dropout_mask=M, p_drop=p)),
        "lse_backward": (check.lse_backward, lambda G, Q, K, V, O, lse: B.attention_backward_lse(
            G, Q, K, V, O, lse)),
        "online_softmax": (check.online_softmax, lambda Q, K, V, bk: B.attention_blockwise(
            Q, K, V, block_q=64, block_k=bk)),
        "blockwise_backward": (check.blockwise_backward,
                               lambda G, Q, K, V, O, lse, bq, bk: B.attention_blockwise_backward(
                                   G, Q, K, V, O, lse, block_q=bq, block_k=bk)),
    }


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("name", sorted(correct(A)))
def test_correct_answers_pass_in_both_backends_and_dtypes(name, backend):
    checker, fn = correct(A if backend == "numpy" else T)[name]
    text = graded(checker, fn, backend=backend)
    assert passes(text), text
    assert "오차: float32 < 1e-4, float64 < 1e-10" in text
    assert ("torch 텐서" if backend == "torch" else "NumPy 배열") in text.splitlines()[0]
    if name in ("online_softmax", "blockwise_backward"):  # memory: measured for NumPy only
        measured = "메모리: 재지 않았습니다" if backend == "torch" else "에서 최대 < "
        assert measured in flat(text), text


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_causal_answers_pass(backend):
    """NumPy: loops that mask block by block (attnlib's blockwise functions build the whole
    n×m boolean mask, over the memory limit); torch: attnlib's (torch memory is not measured)."""
    if backend == "numpy":
        forward, backward = causal_online, causal_blockwise
    else:
        def forward(Q, K, V, bk):
            return T.attention_blockwise(Q, K, V, block_q=64, block_k=bk, is_causal=True)

        def backward(G, Q, K, V, O, lse, bq, bk):
            return T.attention_blockwise_backward(G, Q, K, V, O, lse, block_q=bq, block_k=bk,
                                                  is_causal=True)
    text = graded(check.online_softmax, forward, causal=True, backend=backend)
    assert passes(text), text
    text = graded(check.blockwise_backward, backward, causal=True, backend=backend)
    assert passes(text), text


def test_a_torch_function_is_found_without_being_asked():
    text = graded(check.softmax_vjp, lambda P, U: P * (U - torch.sum(P * U, -1, keepdim=True)))
    assert passes(text) and "torch 텐서" in text, text


def test_strict_floating_point_settings_do_not_make_a_checker_raise():
    """Every checker, a correct answer, np.seterr(all="raise") and warnings as errors: it passes
    (``graded`` runs under those settings everywhere; here they are spelled out)."""
    answers = [(checker, fn, {}) for checker, fn in correct(A).values()]
    answers += [(check.online_softmax, causal_online, {"causal": True}),
                (check.blockwise_backward, causal_blockwise, {"causal": True})]
    for checker, fn, kw in answers:
        out = io.StringIO()
        old = np.seterr(all="raise")
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(out):
                warnings.simplefilter("error")
                checker(fn, **kw)
        finally:
            np.seterr(**old)
        assert passes(out.getvalue()), out.getvalue()


def test_success_states_what_was_covered_and_bounds_not_digits():
    text = graded(check.softmax_vjp, lambda P, U: A.softmax_vjp(P, U))
    assert text.splitlines() == [
        "✔ check.softmax_vjp: 통과 (7가지 경우, NumPy 배열)",
        "  시험한 것: (n, m) n ≠ m, n = m, P = 0 인 자리, (m,), (B, H, n, m)",
        "  모든 경우에서: 입력을 바꾸지 않음, 호출마다 새 출력 배열",
        "  검사하지 않은 것: 야코비안을 만들지 않는지 (값만 봅니다)",
        "  오차: float32 < 1e-4, float64 < 1e-10",
    ]


@pytest.mark.parametrize("name, kinds", [
    ("softmax", ["점수가 수백", "행마다 크기가 1600 다른 점수", "−inf"]),
    ("attention_backward", ["점수가 수천인 행"]),
    ("mask_replace", ["점수가 수천인 행", "모든 키를 가린 행"]),
    ("mask_add", ["점수가 수천인 행"]),
    ("dropout_backward", ["점수가 수천인 행"]),
    ("lse_backward", ["점수가 수천인 행"]),
    ("layernorm_backward", ["평균이 큰 x (float32 로도)"]),
    ("online_softmax", ["블록마다 최댓값이 바뀜", "점수가 수천", "block_k 가 m 을 나누지 않음",
                        "메모리: n = 512, m = 8192, block_k = 16 에서 최대 < 1.6 MiB"]),
    ("blockwise_backward", ["점수가 수천인 행", "블록 크기가 n, m 을 나누지 않음",
                            "메모리: n = m = 2048, 블록 64×64 에서 최대 < 1.3 MiB"]),
])
def test_success_lists_the_kinds_of_case_run(name, kinds):
    checker, fn = correct(A)[name]
    text = flat(graded(checker, fn))
    for kind in kinds:
        assert kind in text, (kind, text)
    assert "입력을 바꾸지 않음, 호출마다 새 출력 배열" in text


def test_causal_success_lists_n_at_least_m_and_large_scores():
    text = flat(graded(check.online_softmax, causal_online, causal=True))
    for kind in ("인과 마스크 (j ≤ i)", "n > m", "n = m", "블록마다 최댓값이 바뀜", "점수가 수천"):
        assert kind in text, (kind, text)


def test_printed_lines_fit_72_columns():
    for fn in (lambda P, U: A.softmax_vjp(P, U), lambda P, U: P * U, 3):
        for line in graded(check.softmax_vjp, fn).splitlines():
            assert columns(line) <= 72, line


# ------------------------------------------------------------------------------ mutants ----


def _no_keepdims_vjp(P, U):
    return P * (U - (P * U).sum(-1))


MUTANTS = {
    "softmax": [
        ("overflow", lambda S: np.exp(S) / np.exp(S).sum(-1, keepdims=True)),
        ("global_max", lambda S: np.exp(S - S.max()) / np.exp(S - S.max()).sum(-1, keepdims=True)),
        ("keepdims", lambda S: np.exp(S - S.max(-1)) / np.exp(S - S.max(-1)).sum(-1)),
        ("axis", lambda S: np.exp(S - S.max(0, keepdims=True))
         / np.exp(S - S.max(0, keepdims=True)).sum(0, keepdims=True)),
    ],
    "softmax_jacobian": [
        ("jac_sign", lambda p: p[..., :, None] * p[..., None, :] - p[..., :, None]
         * np.eye(p.shape[-1])),
        ("jac_no_diag", lambda p: -p[..., :, None] * p[..., None, :]),
        ("jac_diag_only", lambda p: (p * (1 - p))[..., :, None] * np.eye(p.shape[-1])),
        ("jac_diag_p", lambda p: p[..., :, None] * np.eye(p.shape[-1])),
    ],
    "softmax_vjp": [
        ("r_without_P", lambda P, U: P * (U - U.mean(-1, keepdims=True))),
        ("r_without_P", lambda P, U: P * (U - U.sum(-1, keepdims=True))),
        ("no_P", lambda P, U: U - (P * U).sum(-1, keepdims=True)),
        ("no_r", lambda P, U: P * U),
        ("r_axis", lambda P, U: P * (U - (P * U).sum(-2, keepdims=True))),
        ("r_global", lambda P, U: P * (U - np.sum(P * U))),
        ("sign", lambda P, U: P * ((P * U).sum(-1, keepdims=True) - U)),
        ("keepdims_crash", _no_keepdims_vjp),  # (3, 5) raises a broadcasting error
    ],
    "normalized_entropy": [
        ("zero_log_zero", lambda P: (-(P * np.log(P)).sum(-1) / np.log(P.shape[-1])).mean(-1)),
        ("not_normalized", lambda P: A.normalized_entropy(P) * np.log(P.shape[-1])),
        ("log_n", lambda P: A.normalized_entropy(P) * np.log(P.shape[-1]) / np.log(P.shape[-2])),
        ("sign", lambda P: -A.normalized_entropy(P)),
    ],
    "layernorm_backward": [],  # below, they need a few lines
    "pv_backward": [
        ("U_times_P", lambda G, P, V: (swap(P) @ G, P * (G @ swap(V)))),
        ("mean_not_sum", lambda G, P, V: (swap(P) @ G / P.shape[-2], G @ swap(V))),
        ("transposed", lambda G, P, V: (swap(G) @ P, G @ swap(V))),
        ("batch_axes", lambda G, P, V: (P.T @ G, G @ V.T)),
    ],
}


def _ln(G, x, *, ddof=0, mean=True, y_term=True, sigma=True):
    xc = x - x.mean(-1, keepdims=True)
    s = x.std(-1, ddof=ddof, keepdims=True)
    y = xc / s
    dx = G - G.mean(-1, keepdims=True) if mean else G
    if y_term:
        dx = dx - y * (G * y).mean(-1, keepdims=True)
    return dx / s if sigma else dx


MUTANTS["layernorm_backward"] = [
    ("ln_no_mean", lambda G, x: _ln(G, x, mean=False)),
    ("ln_no_y", lambda G, x: _ln(G, x, y_term=False)),
    ("ln_no_sigma", lambda G, x: _ln(G, x, sigma=False)),
    ("ln_unbiased", lambda G, x: _ln(G, x, ddof=1)),
]


def _backward(G, Q, K, V, *, s_q=1.0, s_k=1.0, r="P"):
    """A reader's five lines with knobs: extra factors on the scale, how r is formed."""
    s = scale(Q)
    P = softmax(s * Q @ swap(K))
    U = G @ swap(V)
    r = {"P": (P * U).sum(-1, keepdims=True), "mean": U.mean(-1, keepdims=True),
         "columns": (P * U).sum(-2, keepdims=True)}[r]
    D = P * (U - r)
    return s * s_q * D @ K, s * s_k * swap(D) @ Q, swap(P) @ G


def _folded(G, Q, K, V):
    """The folded scale with the chapter 11 bug: Q' = Q/sqrt(d_k), dK = Δᵀ Q' times the scale."""
    s = scale(Q)
    Qs = Q * s
    P = softmax(Qs @ swap(K))
    U = G @ swap(V)
    D = P * (U - (P * U).sum(-1, keepdims=True))
    return (D @ K) * s, (swap(D) @ Qs) * s, swap(P) @ G


MUTANTS["attention_backward"] = [
    ("no_scale", lambda G, Q, K, V: _backward(G, Q, K, V, s_q=1 / scale(Q), s_k=1 / scale(Q))),
    ("double_scale", lambda G, Q, K, V: _backward(G, Q, K, V, s_q=scale(Q), s_k=scale(Q))),
    ("scale_inverted", lambda G, Q, K, V: _backward(G, Q, K, V, s_q=1 / scale(Q) ** 2,
                                                    s_k=1 / scale(Q) ** 2)),
    ("dK_double_scale", _folded),
    ("r_without_P", lambda G, Q, K, V: _backward(G, Q, K, V, r="mean")),
    ("r_axis", lambda G, Q, K, V: _backward(G, Q, K, V, r="columns")),
]

MUTANTS["dq_dk"] = [
    ("no_scale", lambda d, Q, K: (d @ K, swap(d) @ Q)),
    ("double_scale", lambda d, Q, K: (d @ K / Q.shape[-1], swap(d) @ Q / Q.shape[-1])),
    ("scale_inverted", lambda d, Q, K: (d @ K * math.sqrt(Q.shape[-1]),
                                        swap(d) @ Q * math.sqrt(Q.shape[-1]))),
    ("mirror", lambda d, Q, K: (scale(Q) * d @ Q, scale(Q) * swap(d) @ K)),
]


def _masked(G, Q, K, V, mask, fill, *, how="replace", delta_to_qk=False, after=False):
    """A reader's masked backward: replace or add the fill, optionally the classic slips."""
    s = scale(Q)
    S = s * Q @ swap(K)
    if after:
        P = softmax(S) * mask
    elif how == "replace":
        P = softmax(np.where(mask, S, fill))
    else:
        P = softmax(S + np.where(mask, 0.0, fill))
    U = G @ swap(V)
    D = P * (U - (P * U).sum(-1, keepdims=True))
    D_qk = D if (delta_to_qk or how == "add") else np.where(mask, D, 0.0)
    return s * D_qk @ K, s * swap(D_qk) @ Q, swap(P) @ G


MUTANTS["mask_replace"] = [
    ("masked_delta_to_qk", lambda G, Q, K, V, mask, fill: _masked(G, Q, K, V, mask, fill,
                                                                  delta_to_qk=True)),
    ("mask_inverted", lambda G, Q, K, V, mask, fill: _masked(G, Q, K, V, ~mask, fill)),
    ("mask_added", lambda G, Q, K, V, mask, fill: _masked(G, Q, K, V, mask, fill, how="add")),
    ("mask_missing", lambda G, Q, K, V, mask, fill: _masked(G, Q, K, V, True, fill)),
    ("mask_after_softmax", lambda G, Q, K, V, mask, fill: _masked(G, Q, K, V, mask, fill,
                                                                  after=True)),
]


def _biased(G, Q, K, V, bias, *, zero=False, before=False, use=True):
    s = scale(Q)
    S = s * (Q @ swap(K) + bias) if before else s * Q @ swap(K) + (bias if use else 0.0)
    P = softmax(S)
    U = G @ swap(V)
    D = P * (U - (P * U).sum(-1, keepdims=True))
    D_qk = np.where(bias == 0, D, 0.0) if zero else D
    return s * D_qk @ K, s * swap(D_qk) @ Q, swap(P) @ G


MUTANTS["mask_add"] = [
    ("bias_delta_zeroed", lambda G, Q, K, V, b: _biased(G, Q, K, V, b, zero=True)),
    ("bias_missing", lambda G, Q, K, V, b: _biased(G, Q, K, V, b, use=False)),
    ("bias_scaled", lambda G, Q, K, V, b: _biased(G, Q, K, V, b, before=True)),
]


def _dropped(G, Q, K, V, M, p, *, u_rescale=True, v_rescale=True, in_U=True, on_delta=False,
             in_dV=True, r_twice=False):
    s = scale(Q)
    P = softmax(s * Q @ swap(K))
    keep_U = M / (1 - p) if u_rescale else M
    keep_V = M / (1 - p) if v_rescale else M
    P_t = P * keep_V if in_dV else P
    U = G @ swap(V)
    if in_U:
        U = U * keep_U
    r = ((P * keep_V if r_twice else P) * U).sum(-1, keepdims=True)  # U already dropped
    D = P * (U - r)
    if on_delta:
        D = D * M / (1 - p)
    return s * D @ K, s * swap(D) @ Q, swap(P_t) @ G


MUTANTS["dropout_backward"] = [
    ("dropout_no_rescale", lambda G, Q, K, V, M, p: _dropped(G, Q, K, V, M, p, u_rescale=False,
                                                             v_rescale=False)),
    ("dropout_no_rescale_U", lambda G, Q, K, V, M, p: _dropped(G, Q, K, V, M, p,
                                                               u_rescale=False)),
    ("dropout_not_in_U", lambda G, Q, K, V, M, p: _dropped(G, Q, K, V, M, p, in_U=False)),
    ("dropout_on_delta", lambda G, Q, K, V, M, p: _dropped(G, Q, K, V, M, p, in_U=False,
                                                           on_delta=True)),
    ("dropout_not_in_dV", lambda G, Q, K, V, M, p: _dropped(G, Q, K, V, M, p, in_dV=False)),
    ("dropout_r_twice", lambda G, Q, K, V, M, p: _dropped(G, Q, K, V, M, p, r_twice=True)),
]


def _from_lse(G, Q, K, V, O, lse, *, axis_slip=False, use_lse=True, scaled=True, s_qk=1.0,
              keepdims=True):
    s = scale(Q)
    S = (s if scaled else 1.0) * Q @ swap(K)
    P = np.exp(S - (lse if axis_slip else lse[..., None]) if use_lse else S)
    U = G @ swap(V)
    r = (G * O).sum(-1, keepdims=keepdims)
    D = P * (U - r)
    return s * s_qk * D @ K, s * s_qk * swap(D) @ Q, swap(P) @ G


MUTANTS["lse_backward"] = [
    ("lse_axis", lambda G, Q, K, V, O, lse: _from_lse(G, Q, K, V, O, lse, axis_slip=True)),
    ("lse_missing", lambda G, Q, K, V, O, lse: _from_lse(G, Q, K, V, O, lse, use_lse=False)),
    ("lse_unscaled", lambda G, Q, K, V, O, lse: _from_lse(G, Q, K, V, O, lse, scaled=False)),
    ("no_scale", lambda G, Q, K, V, O, lse: _from_lse(G, Q, K, V, O, lse, s_qk=1 / scale(Q))),
    ("keepdims", lambda G, Q, K, V, O, lse: _from_lse(G, Q, K, V, O, lse, keepdims=False)),
]


def _online(Q, K, V, block_k, *, rescale_l=True, rescale_acc=True, use_max=True, add_m=True,
            normalize=True, mask=None):
    """A reader's online softmax loop with knobs (``mask(n, m)``: True where i may see j)."""
    n, m = Q.shape[-2], K.shape[-2]
    S_all = scale(Q) * Q @ swap(K)
    if mask is not None:
        S_all = np.where(mask(n, m), S_all, -np.inf)
    m_i = np.full(Q.shape[:-1], -np.inf)
    l_i = np.zeros(Q.shape[:-1])
    acc = np.zeros(Q.shape[:-1] + V.shape[-1:])
    for j0 in range(0, m, block_k):
        S = S_all[..., j0:j0 + block_k]
        m_new = np.maximum(m_i, S.max(-1)) if use_max else np.zeros_like(m_i)
        with np.errstate(invalid="ignore", over="ignore"):
            alpha = np.exp(m_i - m_new)
            E = np.exp(S - m_new[..., None])
        l_i = (alpha * l_i if rescale_l else l_i) + E.sum(-1)
        acc = (alpha[..., None] * acc if rescale_acc else acc) + E @ V[..., j0:j0 + block_k, :]
        m_i = m_new
    with np.errstate(invalid="ignore", divide="ignore"):
        O = acc / l_i[..., None] if normalize else acc
        return O, np.log(l_i) + (m_i if add_m else 0.0)


MUTANTS["online_softmax"] = [
    ("online_no_rescale_l", lambda Q, K, V, b: _online(Q, K, V, b, rescale_l=False)),
    ("online_no_rescale_acc", lambda Q, K, V, b: _online(Q, K, V, b, rescale_acc=False)),
    ("online_no_max", lambda Q, K, V, b: _online(Q, K, V, b, use_max=False)),
    ("online_lse", lambda Q, K, V, b: _online(Q, K, V, b, add_m=False)),
    ("online_no_normalize", lambda Q, K, V, b: _online(Q, K, V, b, normalize=False)),
]


def _upper_left(n, m):
    return np.tril(np.ones((n, m), bool))


CAUSAL_ONLINE = [
    ("causal_missing", lambda Q, K, V, b: _online(Q, K, V, b)),
    ("causal_lower_right", lambda Q, K, V, b: _online(
        Q, K, V, b, mask=lambda n, m: np.tril(np.ones((n, m), bool), k=m - n))),
    ("causal_strict", lambda Q, K, V, b: _online(
        Q, K, V, b, mask=lambda n, m: np.tril(np.ones((n, m), bool), k=-1))),
    ("online_no_rescale_l", lambda Q, K, V, b: _online(Q, K, V, b, rescale_l=False,
                                                       mask=_upper_left)),
]


def _blockwise(G, Q, K, V, O, lse, bq, bk, *, r_block=False, overwrite=False, s_qk=1.0,
               block_softmax=False, causal=False, mask_in_backward=True, skip="right"):
    """A reader's blockwise backward with knobs; ``skip``: 'right' (j0 > i1 − 1) or 'slip'."""
    n, m = Q.shape[-2], K.shape[-2]
    s = scale(Q)
    r = (G * O).sum(-1)
    dQ, dK, dV = np.zeros_like(Q), np.zeros_like(K), np.zeros_like(V)
    for j0 in range(0, m, bk):
        j1 = min(j0 + bk, m)
        for i0 in range(0, n, bq):
            i1 = min(i0 + bq, n)
            if causal and j0 > (i1 - 1 if skip == "right" else i0):
                continue
            S = s * Q[..., i0:i1, :] @ swap(K[..., j0:j1, :])
            if causal and mask_in_backward:
                S = np.where(np.arange(j0, j1)[None, :] <= np.arange(i0, i1)[:, None], S, -np.inf)
            P = np.exp(S - lse[..., i0:i1, None])
            if block_softmax:
                P = softmax(S)
            U = G[..., i0:i1, :] @ swap(V[..., j0:j1, :])
            r_I = (P * U).sum(-1) if r_block else r[..., i0:i1]
            D = P * (U - r_I[..., None])
            add_q, add_k, add_v = s * s_qk * D @ K[..., j0:j1, :], s * s_qk * swap(D) @ Q[
                ..., i0:i1, :], swap(P) @ G[..., i0:i1, :]
            # overwrite: True (all three) or the outputs written with = ("q", "kv", "k")
            written = "qkv" if overwrite is True else overwrite or ""
            for x, out, I, add in (("q", dQ, slice(i0, i1), add_q),
                                   ("k", dK, slice(j0, j1), add_k),
                                   ("v", dV, slice(j0, j1), add_v)):
                if x in written:
                    out[..., I, :] = add
                else:
                    out[..., I, :] += add
    return dQ, dK, dV


def _bw(**kw):
    return lambda G, Q, K, V, O, lse, bq, bk: _blockwise(G, Q, K, V, O, lse, bq, bk, **kw)


MUTANTS["blockwise_backward"] = [
    ("block_r", _bw(r_block=True)),
    ("block_overwrite", _bw(overwrite=True)),
    ("block_overwrite_dq", _bw(overwrite="q")),
    ("block_overwrite_dkdv", _bw(overwrite="kv")),
    ("block_overwrite_dk", _bw(overwrite="k")),
    ("no_scale", lambda G, Q, K, V, O, lse, bq, bk: _blockwise(G, Q, K, V, O, lse, bq, bk,
                                                               s_qk=1 / scale(Q))),
    ("block_softmax", _bw(block_softmax=True)),
]

CAUSAL_BLOCKWISE = [
    ("causal_missing", _bw()),
    ("causal_diagonal_unmasked", _bw(causal=True, mask_in_backward=False)),
    ("block_skip_partial", _bw(causal=True, skip="slip")),
    ("block_r", _bw(causal=True, r_block=True)),
]


def _mutant_cases():
    for name, mutants in MUTANTS.items():
        for hint, fn in mutants:
            yield pytest.param(name, hint, fn, id=f"{name}-{hint}")


@pytest.mark.parametrize("name, hint, fn", list(_mutant_cases()))
def test_mutants_fail_with_their_hint(name, hint, fn):
    text = graded(getattr(check, name), fn)
    assert fails_with(text, hint), text


@pytest.mark.parametrize("hint, fn", CAUSAL_ONLINE)
def test_causal_online_mutants(hint, fn):
    text = graded(check.online_softmax, fn, causal=True)
    assert fails_with(text, hint), text


@pytest.mark.parametrize("hint, fn", CAUSAL_BLOCKWISE)
def test_causal_blockwise_mutants(hint, fn):
    text = graded(check.blockwise_backward, fn, causal=True)
    assert fails_with(text, hint), text


def test_every_checker_has_three_mutants():
    for name in check.__all__:
        if name == "HINTS":
            continue
        assert len({h for h, _ in MUTANTS[name]}) >= 3, name
    assert len({h for h, _ in CAUSAL_ONLINE}) >= 3
    assert len({h for h, _ in CAUSAL_BLOCKWISE}) >= 3


def test_every_hint_is_reachable():
    from test_check_wrong import HINTED

    used = {h for ms in MUTANTS.values() for h, _ in ms}
    used |= {h for h, _ in CAUSAL_ONLINE + CAUSAL_BLOCKWISE}
    used |= {"reversed_axes"}  # test_misuse below
    used |= HINTED
    assert set(HINTS) - used == set()


def test_every_hint_formats():
    for key, text in HINTS.items():
        fields = re.findall(r"\{(\w+)\}", text)
        assert text.format(**dict.fromkeys(fields, "x")), key


def test_failure_names_case_output_and_bound():
    text = graded(check.attention_backward, _folded)
    lines = text.splitlines()
    assert lines[0] == "✘ check.attention_backward: 경우 1/6 에서 틀렸습니다."
    assert lines[1].startswith("  입력: G (2, 2), Q (2, 4), K (3, 4), V (3, 2) — float64")
    assert "  dK: 최대 오차 0.5 (기준값의 최대 크기에 대한 비; 허용 < 1e-10)." in lines
    assert "dQ:" not in text and "dV:" not in text
    assert fails_with(text, "dK_double_scale")


def test_small_errors_print_as_bounds():
    def nearly(G, Q, K, V):
        dQ, dK, dV = A.attention_backward(G, Q, K, V)
        return dQ, dK, dV * (1 + 1e-8)

    text = graded(check.attention_backward, nearly)
    assert ("dV: 최대 오차가 허용 < 1e-10 를 넘습니다 "
            "(< 1e-6 이지만 반올림보다 큽니다).") in flat(text)


# -------------------------------------------------------------------------------- misuse ----


def test_misuse_prints_and_never_raises():
    assert graded(check.softmax_vjp, 3).startswith("✘ check.softmax_vjp: 함수를 넘겨 주세요")
    text = graded(check.attention_backward, lambda G, Q, K, V: A.attention_backward(G, Q, K, V)[:2])
    assert "출력 3개 (dQ, dK, dV) 를 튜플로 돌려줘야 하는데 2개를 돌려줬습니다" in flat(text)
    text = graded(check.attention_backward, lambda G, Q, K, V: G)
    assert "튜플로 돌려줘야 하는데 배열 하나를 돌려줬습니다" in flat(text)
    text = graded(check.softmax_vjp, lambda P, U: None)
    assert "아무것도 돌려주지 않았습니다" in flat(text)
    text = graded(check.softmax_vjp, lambda P, U: "Δ")
    assert "숫자 배열이 아닙니다 (str)" in flat(text)
    text = graded(check.softmax_vjp, lambda P, U: A.softmax_vjp(P, U), backend="jax")
    assert "backend 는 None(자동), 'numpy', 'torch' 중 하나입니다" in flat(text)


@pytest.mark.parametrize("returned, message", [
    (lambda *a: "dQ, dK, dV", "튜플로 돌려줘야 하는데 str 객체를 돌려줬습니다."),
    (lambda *a: (x for x in A.attention_backward(*a)), "generator 객체를 돌려줬습니다."),
    (lambda *a: dict(zip("QKV", A.attention_backward(*a), strict=True)), "dict 객체를"),
    (lambda *a: [*A.attention_backward(*a), None], "튜플로 돌려줘야 하는데 4개를 돌려줬습니다."),
    (lambda *a: (*A.attention_backward(*a)[:2], "dV"), "dV 가 숫자 배열이 아닙니다 (str)."),
    (lambda *a: (*A.attention_backward(*a)[:2], [object()]), "dV 가 숫자 배열이 아닙니다"),
    (lambda *a: tuple(x + 0j for x in A.attention_backward(*a)), "dQ 가 복소수 배열입니다"),
])
def test_whatever_a_function_returns_the_message_says_what_it_was(returned, message):
    text = graded(check.attention_backward, returned)
    assert text.startswith("✘") and message in flat(text), text


def test_a_single_output_returned_in_a_tuple_is_named():
    text = graded(check.softmax, lambda S: (A.softmax(S),))
    assert "출력은 P 하나인데 1개짜리 튜플을 돌려줬습니다." in flat(text), text
    text = graded(check.softmax, lambda S: (A.softmax(S), S.max(-1)))
    assert "출력은 P 하나인데 2개짜리 튜플을 돌려줬습니다." in flat(text), text


def test_tensors_that_require_grad_or_come_in_other_dtypes_are_read():
    def with_grad(S):
        S = S.clone().requires_grad_(True)
        return torch.softmax(S, -1)  # a tensor that requires grad

    assert passes(graded(check.softmax, with_grad))
    for dtype, name in ((torch.bfloat16, "bfloat16"), (torch.float16, "float16")):
        text = graded(check.softmax, lambda S, dtype=dtype: torch.softmax(S, -1).to(dtype))
        assert "숫자 배열이 아닙니다" not in text, text
        assert fails_with(text, "low_precision") and f"P 를 {name} 로 돌려줬습니다" in flat(text)


def test_a_crash_is_reported_with_the_case():
    def crashes(P, U):
        return P @ U  # (3, 5) @ (3, 5)

    text = graded(check.softmax_vjp, crashes)
    assert "경우 1/7 에서 함수가 오류를 냈습니다: ValueError" in flat(text)
    assert "입력: P (3, 5), U (3, 5) — float64, NumPy 배열" in flat(text)


def test_a_wrong_shape_names_the_expected_one():
    text = graded(check.pv_backward, lambda G, P, V: (swap(G) @ P, G @ swap(V)))
    assert "dV: shape 가 (2, 3) 인데, 맞는 shape 는 (3, 2) 입니다." in flat(text)

    def reversed_T(G, P, V):
        dV, U = swap(P) @ G, G @ swap(V)
        return (dV.T, U) if dV.ndim > 2 else (dV, U)

    text = graded(check.pv_backward, reversed_T)
    assert fails_with(text, "reversed_axes"), text


def test_a_stub_reports_not_implemented():
    def stub(P, U):
        raise NotImplementedError  # 여기를 채우세요

    assert graded(check.softmax_vjp, stub) == (
        "… check.softmax_vjp: 아직 구현하지 않았습니다 (NotImplementedError).\n"
        "  함수를 채우고 이 셀을 다시 실행하세요.\n")


def test_the_reader_cannot_change_the_cases():
    """A function that works in its inputs' memory fails, and the cases stay as they were."""
    def in_place(P, U):
        U -= (P * U).sum(-1, keepdims=True)
        U *= P
        return U

    text = graded(check.softmax_vjp, in_place)
    assert "함수가 입력 U 를 바꿔 놓았습니다" in flat(text) and fails_with(text, "mutated"), text
    assert passes(graded(check.softmax_vjp, lambda P, U: A.softmax_vjp(P, U)))


# ------------------------------------------------------------------ the chapters' exercises ----


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _exercise_cells():
    for path in CHAPTERS:
        for cell in _cells(path):
            if cell.get("id", "").startswith("ex-") and cell["cell_type"] == "code":
                yield path, cell


SOLUTIONS = [pytest.param(_source(c), id=c["id"]) for p, c in _exercise_cells()
             if c["id"].endswith("-sol") and "check." in _source(c)]


@pytest.mark.parametrize("source", SOLUTIONS)
def test_published_solutions_pass(source):
    out = io.StringIO()
    with strict(), contextlib.redirect_stdout(out):
        exec(compile(source, "<solution>", "exec"), {"__name__": "__solution__"})
    text = out.getvalue()
    assert "✔ check." in text and "✘" not in text and "…" not in text, text


def test_each_implementation_exercise_has_stub_check_and_solution():
    ids = {c["id"]: (p, c) for p, c in _exercise_cells()}
    stubs = [i for i in ids if i.endswith("-stub")]
    assert len(stubs) >= 12
    for stub in stubs:
        base = stub[: -len("-stub")]
        assert f"{base}-check" in ids and f"{base}-sol" in ids, base
        assert "raise NotImplementedError  # 여기를 채우세요" in _source(ids[stub][1])
        call = _source(ids[f"{base}-check"][1]).strip().splitlines()[-1]
        assert call.startswith("check.") and call.split("(")[0] in _source(ids[f"{base}-sol"][1])
        printed = "".join("".join(o.get("text", "")) for o in ids[f"{base}-check"][1]["outputs"])
        assert "아직 구현하지 않았습니다" in printed, base


def test_every_chapter_ends_with_two_to_four_exercises():
    for path in CHAPTERS:
        ids = [c.get("id", "") for c in _cells(path)]
        ex = [i for i in ids if i.startswith("ex-")]
        assert ex and ids[-len(ex):] == ex, f"{path.name}: the ex- cells must come last"
        num = path.stem[:2]
        assert ex[0] == f"ex-{num}-head", path.name
        questions = [i for i in ex if i.endswith("-q")]
        assert 2 <= len(questions) <= 4, (path.name, questions)
        for q in questions:
            base = q[: -len("-q")]
            assert {f"{base}-sol-start", f"{base}-sol", f"{base}-sol-end"} <= set(ex), base


# ------------------------------------------------------ what the solutions promise is true ----


def _markdown(cell_id):
    """The source of the markdown cell ``cell_id`` in the chapters."""
    for path in CHAPTERS:
        for cell in _cells(path):
            if cell.get("id") == cell_id:
                return _source(cell)
    raise KeyError(cell_id)


def _softmax(S, *, max_keepdims=True, sum_keepdims=True, global_max=False):
    E = np.exp(S - (S.max() if global_max else S.max(-1, keepdims=max_keepdims)))
    return E / E.sum(-1, keepdims=sum_keepdims)


def _lse_slip(G, Q, K, V, O, lse):
    s = scale(Q)
    P = np.exp(Q @ swap(K) * s - lse)  # lse along the columns
    D = P * (G @ swap(V) - (G * O).sum(-1, keepdims=True))
    return D @ K * s, swap(D) @ Q * s, swap(P) @ G


def _ln_torch_std(G, x):
    x, G = torch.as_tensor(x), torch.as_tensor(G)
    xc = x - x.mean(-1, keepdim=True)
    sigma = x.std(-1, keepdim=True)  # torch's default: d − 1
    y = xc / sigma
    return (G - G.mean(-1, keepdim=True) - y * (G * y).mean(-1, keepdim=True)) / sigma


# (solution cell, the sentence that promises, the checker, [(a mistake it names, its hint)])
PROMISES = [
    ("ex-02-1-sol-start", "검사기의 힌트가 두 실수를", check.softmax, [
        (lambda S: _softmax(S, max_keepdims=False), "keepdims"),
        (lambda S: _softmax(S, sum_keepdims=False), "keepdims"),
        (lambda S: _softmax(S, max_keepdims=False, sum_keepdims=False), "keepdims"),
        (lambda S: _softmax(S, global_max=True), "global_max"),
    ]),
    ("ex-03-1-sol-start", "부호를 뒤집거나 대각 성분만 넣는 실수는 검사기가 힌트로",
     check.softmax_jacobian, [
        (lambda p: p[..., :, None] * p[..., None, :] - p[..., :, None] * np.eye(p.shape[-1]),
         "jac_sign"),
        (lambda p: (p - p * p)[..., :, None] * np.eye(p.shape[-1]), "jac_diag_only"),
    ]),
    ("ex-06-1-sol-start", "`.T` 를 쓰면 모든 축이 뒤집혀 틀린다는 것도 검사기가",
     check.pv_backward, [
         (lambda G, P, V: (P.T @ G, G @ V.T), "batch_axes"),
         (lambda G, P, V: (P.T @ G if P.ndim == 2 else (swap(P) @ G).T, G @ swap(V)),
          "reversed_axes"),
     ]),
    ("ex-08-1-sol-start", "단순 평균으로 두거나 축을 바꾸는 실수는 검사기가 힌트로",
     check.softmax_vjp, [
        (lambda P, U: P * (U - U.mean(-1, keepdims=True)), "r_without_P"),
        (lambda P, U: P * (U - (P * U).sum(-2, keepdims=True)), "r_axis"),
    ]),
    ("ex-10-1-sol-start", "두 번 들어가고, 검사기가 그 실수를 알려 줍니다",
     check.dropout_backward, [
        (lambda G, Q, K, V, M, p: _dropped(G, Q, K, V, M, p, r_twice=True), "dropout_r_twice"),
    ]),
    ("ex-14-1-sol-start", "검사기가 그것도 알아봅니다", check.layernorm_backward, [
        (_ln_torch_std, "ln_unbiased"),
    ]),
    ("ex-15-1-sol-start", "검사기의 첫 경우가 $n = m$ 이라 그것을 잡습니다", check.lse_backward, [
        (_lse_slip, "lse_axis"),
    ]),
    ("ex-18-1-sol-start", "실수는 검사기가 알아보고 힌트로 짚어 줍니다", check.blockwise_backward, [
        (_bw(r_block=True), "block_r"),
        (_bw(overwrite=True), "block_overwrite"),
        (_bw(overwrite="q"), "block_overwrite_dq"),
        (_bw(overwrite="k"), "block_overwrite_dk"),
        (_bw(overwrite="kv"), "block_overwrite_dkdv"),
        (_bw(block_softmax=True), "block_softmax"),
    ]),
]


@pytest.mark.parametrize("cell_id, sentence, checker, mistakes",
                         [pytest.param(*p, id=p[0]) for p in PROMISES])
def test_every_hint_a_solution_promises_is_given(cell_id, sentence, checker, mistakes):
    assert sentence in flat(_markdown(cell_id)), cell_id
    for fn, hint in mistakes:
        text = graded(checker, fn)
        assert fails_with(text, hint), text


def test_promised_cases_come_where_the_solutions_say():
    # 02-1: the second case is square; 15-1: the first is n = m
    text = graded(check.softmax, lambda S: _softmax(S, max_keepdims=False))
    assert text.startswith("✘ check.softmax: 경우 2/") and "S (4, 4)" in text, text
    text = graded(check.lse_backward, _lse_slip)
    assert text.startswith("✘ check.lse_backward: 경우 1/") and "Q (4, 8), K (4, 8)" in text, text
    # 07-1: the first case is the article's small example, so a mistake shows on its shapes
    assert "틀리면 그 예제의 shape 로 먼저 알려 줍니다" in flat(_markdown("ex-07-1-sol-start"))
    text = graded(check.attention_backward, lambda G, Q, K, V: A.attention_backward(G, Q, K, V,
                                                                                    scale=1.0))
    assert "경우 1/" in text and "G (2, 2), Q (2, 4), K (3, 4), V (3, 2)" in text, text
    # 17-1: rising keys (the max moves in every block) and scores large enough to overflow
    promised = "키를 오름차순으로 늘어놓은 경우와 $e^S$ 가 넘칠 만큼 점수가 큰 경우를 시험합니다"
    assert promised in flat(_markdown("ex-17-1-sol-start"))
    checker, fn = correct(A)["online_softmax"]
    assert "블록마다 최댓값이 바뀜, 점수가 수천" in flat(graded(checker, fn))


def test_the_given_buggy_cells_get_what_their_solutions_say():
    """11-2: the checker shows dK's error 0.5 = 1 − 1/√d_k on the small example."""
    assert "검사기가 보여 준 최대 오차 0.5" in flat(_markdown("ex-11-2-sol-start"))
    given = next(_source(c) for p, c in _exercise_cells() if c["id"] == "ex-11-2-given")
    out = io.StringIO()
    with strict(), contextlib.redirect_stdout(out):
        exec(compile(given, "<given>", "exec"), {"__name__": "__given__"})
    assert "dK: 최대 오차 0.5 " in flat(out.getvalue()), out.getvalue()
    assert fails_with(out.getvalue(), "dK_double_scale"), out.getvalue()


def test_exercise_statements_say_what_the_checkers_grade():
    """The scale, the memory limit, large scores, float32: each checked, each stated."""
    stated = {
        "ex-17-1-q": ["S = QK^{\\mathsf T}/\\sqrt{d_k}", "tracemalloc", "점수가 수천이어도"],
        "ex-17-2-q": ["n\\times m$ 배열은 만들지 않습니다", "n > m"],
        "ex-18-1-q": ["/\\sqrt{d_k}", "tracemalloc", "점수가 큰 행"],
        "ex-18-2-q": ["n\\times m$ 배열은", "n > m"],
        "ex-07-1-q": ["점수가 수천인 행도"],
        "ex-09-1-q": ["S = QK^{\\mathsf T}/\\sqrt{d_k}", "점수가 수천인 행도"],
        "ex-09-2-q": ["점수가 수천인 행도"],
        "ex-10-1-q": ["\\sqrt{d_k}", "점수가 수천인 행도"],
        "ex-14-1-q": ["float32"],
        "ex-15-1-q": ["\\sqrt{d_k}", "점수가 큰 행"],
    }
    for cell_id, phrases in stated.items():
        text = flat(_markdown(cell_id))
        for phrase in phrases:
            assert phrase in text, (cell_id, phrase)
    heads = [_source(c) for p in CHAPTERS for c in _cells(p) if c.get("id", "").endswith("-head")
             and "attnlib.check" in _source(c)]
    assert len(heads) >= 12
    for head in heads:
        assert "받은 입력 배열을 그대로 두는지" in head and "호출마다 새것인지" in head, head
