"""Checkers for what acts on one row (or one vector) at a time: softmax, its Jacobian, the row
rule, the normalized entropy, the LayerNorm backward."""

import functools

import numpy as np

from .. import numpy as A
from .. import pure
from . import _cases as C
from ._grade import Mistake, Spec, run


def softmax(fn, *, backend=None):
    """Check ``fn(S) -> P``, the softmax along the last axis, stable for large scores."""
    run(_softmax_spec, fn, backend=backend)


def softmax_jacobian(fn, *, backend=None):
    """Check ``fn(p) -> J``: J = diag(p) − p pᵀ for each row p, (..., m) → (..., m, m)."""
    run(_jacobian_spec, fn, backend=backend)


def softmax_vjp(fn, *, backend=None):
    """Check ``fn(P, U) -> delta``: the row rule Δ = P ⊙ (U − r), r_i = Σ_j P_ij U_ij."""
    run(_vjp_spec, fn, backend=backend)


def normalized_entropy(fn, *, backend=None):
    """Check ``fn(P) -> h``: the mean over rows of H(P_i)/log m, (..., n, m) → (...)."""
    run(_entropy_spec, fn, backend=backend)


def layernorm_backward(fn, *, backend=None):
    """Check ``fn(G, x) -> dx``: ∂L/∂x = (G − mean(G) − y · mean(G ⊙ y))/σ along the last axis."""
    run(_layernorm_spec, fn, backend=backend)


# ---------------------------------------------------------------------------- softmax ----


@functools.cache
def _softmax_spec():
    far = C.normal(5, S=(2, 5))["S"]
    far[0] += 800.0  # one row far above the other: a single global max underflows the lower one
    far[1] -= 800.0
    masked = C.normal(6, S=(3, 6))["S"]
    masked[:, 4:] = -np.inf  # two keys masked in every row
    cases = [
        C.case({"S": np.array(pure.RAW_SCORES)}, "(m,)", note="글의 여섯 점수"),
        C.case(C.normal(1, S=(4, 4)), "(n, m) n = m"),
        C.case(C.normal(2, S=(3, 5)), "n ≠ m"),
        C.case(C.normal(3, S=(2, 3, 4, 5)), "(B, H, n, m)"),
        C.case({"S": 400.0 * C.normal(4, S=(3, 6))["S"]}, "점수가 수백",
               note="점수가 수백 (e^S 가 넘칠 크기)"),
        C.case({"S": far}, "행마다 크기가 1600 다른 점수",
               note="두 행의 점수 크기가 1600 만큼 다름"),
        C.case({"S": masked}, "−inf", note="−inf 가 섞인 행"),
    ]
    cases += C.in_float32(cases, 2, 3)
    return Spec("softmax", ("P",), cases, lambda S: A.softmax(S), (
        Mistake("overflow", lambda S: C.softmax_no_max(S)),
        Mistake("overflow", lambda S: C.softmax_no_max(S, C.row_mean)),
        Mistake("global_max", _softmax_global_max),
        Mistake("axis", lambda S: A.softmax(S, axis=-2)),
        Mistake("axis", lambda S: A.softmax(S, axis=0)),
        Mistake("keepdims", lambda S: _softmax_no_keepdims(S, in_max=True, in_sum=True)),
        Mistake("keepdims", lambda S: _softmax_no_keepdims(S, in_max=True, in_sum=False)),
        Mistake("keepdims", lambda S: _softmax_no_keepdims(S, in_max=False, in_sum=True)),
    ), "fn(S) -> P")


def _softmax_global_max(S):
    with np.errstate(invalid="ignore"):
        E = np.exp(S - S.max())
        return E / E.sum(-1, keepdims=True)


def _softmax_no_keepdims(S, *, in_max, in_sum):
    """keepdims forgotten in the max, the sum or both (an error unless the rows are square)."""
    E = np.exp(S - (S.max(-1) if in_max else S.max(-1, keepdims=True)))
    return E / (E.sum(-1) if in_sum else E.sum(-1, keepdims=True))


# ------------------------------------------------------------------------- the Jacobian ----


@functools.cache
def _jacobian_spec():
    raw = np.array(pure.RAW_SCORES)
    cases = [
        C.case({"p": A.softmax(raw / 8.0)}, "(m,)", note="글의 여섯 점수를 8 로 나눈 것의 softmax"),
        C.case({"p": A.softmax(raw * 2.0)}, "뾰족한 p", note="뾰족한 p (배수 16)"),
        C.case({"p": C.rows_of_probabilities(1, (3, 4))}, "(n, m)"),
        C.case({"p": C.rows_of_probabilities(2, (2, 3, 5))}, "(B, n, m)"),
    ]
    cases += C.in_float32(cases, 0, 3)

    def outer(p):
        return p[..., :, None] * p[..., None, :]

    def diag(v):
        return v[..., :, None] * np.eye(v.shape[-1])

    return Spec("softmax_jacobian", ("J",), cases, lambda p: A.softmax_jacobian(p), (
        Mistake("jac_sign", lambda p: -A.softmax_jacobian(p)),
        Mistake("jac_no_diag", lambda p: -outer(p)),
        Mistake("jac_diag_only", lambda p: diag(p * (1 - p))),
        Mistake("jac_diag_p", lambda p: diag(p)),
    ), "fn(p) -> J", {"axes": "jac_leading_axes"})


# ------------------------------------------------------------------------- the row rule ----


@functools.cache
def _vjp_spec():
    P_masked = A.attention(*C.normal(7, Q=(4, 3), K=(4, 3), V=(4, 2)).values(),
                           mask=C.causal(4, 4))[1]
    cases = [
        C.case({"P": C.rows_of_probabilities(3, (3, 5)), "U": C.normal(4, U=(3, 5))["U"]},
               "(n, m) n ≠ m"),
        C.case({"P": C.rows_of_probabilities(5, (4, 4)), "U": C.normal(6, U=(4, 4))["U"]},
               "n = m"),
        C.case({"P": P_masked, "U": C.normal(8, U=(4, 4))["U"]}, "P = 0 인 자리",
               note="인과 마스크의 P (가린 자리는 P = 0)"),
        C.case({"P": C.rows_of_probabilities(1, (6,)), "U": C.normal(2, U=(6,))["U"]}, "(m,)"),
        C.case({"P": C.rows_of_probabilities(9, (2, 3, 4, 6)),
                "U": C.normal(10, U=(2, 3, 4, 6))["U"]}, "(B, H, n, m)"),
    ]
    cases += C.in_float32(cases, 0, 4)
    return Spec("softmax_vjp", ("delta",), cases, lambda P, U: A.softmax_vjp(P, U), (
        Mistake("r_without_P", lambda P, U: P * (U - U.mean(-1, keepdims=True))),
        Mistake("r_without_P", lambda P, U: P * (U - U.sum(-1, keepdims=True))),
        Mistake("r_global", lambda P, U: P * (U - (P * U).sum())),
        Mistake("no_P", lambda P, U: U - (P * U).sum(-1, keepdims=True)),
        Mistake("no_r", lambda P, U: P * U),
        Mistake("r_axis", lambda P, U: P * (U - (P * U).sum(-2, keepdims=True))),
        Mistake("sign", lambda P, U: -A.softmax_vjp(P, U)),
        Mistake("keepdims", lambda P, U: P * (U - (P * U).sum(-1))),
    ), "fn(P, U) -> delta", unchecked="야코비안을 만들지 않는지 (값만 봅니다)")


# ---------------------------------------------------------------------------- entropy ----


@functools.cache
def _entropy_spec():
    causal_P = A.attention(*C.normal(3, Q=(4, 6), K=(6, 6), V=(6, 2)).values(),
                           mask=C.causal(4, 6))[1]
    padded_P = A.attention(*C.normal(4, Q=(4, 6), K=(6, 6), V=(6, 2)).values(),
                           mask=np.arange(6) < 4)[1]  # two padded keys: zeros, no one-hot row
    heads = np.stack([C.rows_of_probabilities(5, (4, 6)), causal_P, padded_P])  # (3, 4, 6)
    cases = [
        C.case({"P": C.rows_of_probabilities(1, (5, 8))}, "(n, m) n ≠ m"),
        C.case({"P": causal_P}, "0 이 있는 행", "원-핫",
               note="인과 마스크의 P (0 이 있고, 첫 행은 원-핫)"),
        C.case({"P": np.full((3, 4), 0.25)}, "균등분포", note="균등분포"),
        C.case({"P": C.rows_of_probabilities(2, (2, 3, 4, 6), spread=3.0)},
               "(배치, 헤드, n, m)"),  # not (B, H, n, m): H is the entropy in ex-13-1
        C.case({"P": heads}, "헤드마다 다른 0 의 자리",
               note="헤드 셋: 0 없음, 인과 마스크 (첫 행 원-핫), 패딩 (0 이 있고 원-핫 없음)"),
    ]
    cases += C.in_float32(cases, 0, 3)

    def mean_of(per_row):
        return lambda P: per_row(P).mean(-1)

    def log_m(P):
        return np.log(P.shape[-1])

    return Spec("normalized_entropy", ("h",), cases, lambda P: A.normalized_entropy(P), (
        Mistake("zero_log_zero", mean_of(lambda P: _entropy_with_nan(P) / log_m(P))),
        Mistake("not_normalized", mean_of(lambda P: A.entropy(P))),
        Mistake("log_n", mean_of(lambda P: A.entropy(P) / np.log(P.shape[-2]))),
        Mistake("log_visible", mean_of(lambda P: A.entropy(P) / np.log((P > 0).sum(-1)))),
        Mistake("sign", lambda P: -A.normalized_entropy(P)),
    ), "fn(P) -> h")


def _entropy_with_nan(P):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(P * np.log(P)).sum(-1)


# ---------------------------------------------------------------------------- LayerNorm ----


@functools.cache
def _layernorm_spec():
    offset = C.normal(4, G=(3, 10), x=(3, 10))
    offset["x"] = 50.0 + 0.1 * offset["x"]
    cases = [
        C.case(C.normal(1, G=(8,), x=(8,)), "(d,)"),
        C.case(C.normal(2, G=(5, 16), x=(5, 16)), "(n, d)"),
        C.case(C.normal(3, G=(2, 3, 6), x=(2, 3, 6)), "(B, n, d)"),
        C.case(offset, "평균이 큰 x (float32 로도)", note="평균 50, 표준편차 0.1 인 x"),
    ]
    cases += C.in_float32(cases, 1, 2, 3)
    return Spec("layernorm_backward", ("dx",), cases, lambda G, x: A.layernorm_backward(G, x), (
        Mistake("ln_no_mean", lambda G, x: _ln_backward(G, x, mean=False)),
        Mistake("ln_no_y", lambda G, x: _ln_backward(G, x, y_term=False)),
        Mistake("ln_no_sigma", lambda G, x: _ln_backward(G, x, sigma=False)),
        Mistake("ln_unbiased", lambda G, x: _ln_backward(G, x, ddof=1)),
    ), "fn(G, x) -> dx", {"float32": "ln_one_pass"},
        unchecked="J_LN 을 만들지 않는지 (값만 봅니다)")


def _ln_backward(G, x, *, mean=True, y_term=True, sigma=True, ddof=0):
    """The LayerNorm backward with one of its pieces left out (or σ from d − ddof)."""
    d = x.shape[-1]
    xc = x - x.mean(-1, keepdims=True)
    s = np.sqrt((xc * xc).sum(-1, keepdims=True) / (d - ddof))
    y = xc / s
    dx = G - (G.mean(-1, keepdims=True) if mean else 0.0)
    if y_term:
        dx = dx - y * (G * y).mean(-1, keepdims=True)
    return dx / s if sigma else dx
