"""Checkers for what acts on one row (or one vector) at a time: softmax, its Jacobian, the row
rule, the normalized entropy, the LayerNorm backward."""

import numpy as np

from .. import numpy as A
from .. import pure
from . import _cases as C
from ._grade import Mistake, Spec, run


def softmax(fn, *, backend=None):
    """Check ``fn(S) -> P``, the softmax along the last axis, stable for large scores."""
    run(_softmax_spec(), fn, backend=backend)


def softmax_jacobian(fn, *, backend=None):
    """Check ``fn(p) -> J``: J = diag(p) − p pᵀ for each row p, (..., m) → (..., m, m)."""
    run(_jacobian_spec(), fn, backend=backend)


def softmax_vjp(fn, *, backend=None):
    """Check ``fn(P, U) -> delta``: the row rule Δ = P ⊙ (U − r), r_i = Σ_j P_ij U_ij."""
    run(_vjp_spec(), fn, backend=backend)


def normalized_entropy(fn, *, backend=None):
    """Check ``fn(P) -> h``: the mean over rows of H(P_i)/log m, (..., n, m) → (...)."""
    run(_entropy_spec(), fn, backend=backend)


def layernorm_backward(fn, *, backend=None):
    """Check ``fn(G, x) -> dx``: ∂L/∂x = (G − mean(G) − y · mean(G ⊙ y))/σ along the last axis."""
    run(_layernorm_spec(), fn, backend=backend)


# ---------------------------------------------------------------------------- softmax ----


def _softmax_spec():
    far = C.normal(5, S=(2, 5))["S"]
    far[0] += 800.0  # one row far above the other: a single global max underflows the lower one
    far[1] -= 800.0
    masked = C.normal(6, S=(3, 6))["S"]
    masked[:, 4:] = -np.inf  # two keys masked in every row
    cases = [
        C.case({"S": np.array(pure.RAW_SCORES)}, note="글의 여섯 점수"),
        C.case(C.normal(1, S=(4, 4))),
        C.case(C.normal(2, S=(3, 5))),
        C.case(C.normal(3, S=(2, 3, 4, 5))),
        C.case({"S": 400.0 * C.normal(4, S=(3, 6))["S"]}, note="점수가 수백 (e^S 가 넘칠 크기)"),
        C.case({"S": far}, note="두 행의 점수 크기가 1600 만큼 다름"),
        C.case({"S": masked}, note="−inf 가 섞인 행"),
    ]
    cases += C.in_float32(cases, 2, 3)
    return Spec("softmax", ("P",), cases, lambda S: A.softmax(S), (
        Mistake("overflow", _softmax_no_max),
        Mistake("global_max", _softmax_global_max),
        Mistake("axis", lambda S: A.softmax(S, axis=-2)),
        Mistake("keepdims", _softmax_no_keepdims),
    ), "(m,), (n, m), (B, H, n, m); 큰 점수, 크기가 크게 다른 행, −inf", "fn(S) -> P")


def _softmax_no_max(S):
    with np.errstate(over="ignore", invalid="ignore"):
        E = np.exp(S)
        return E / E.sum(-1, keepdims=True)


def _softmax_global_max(S):
    with np.errstate(invalid="ignore"):
        E = np.exp(S - S.max())
        return E / E.sum(-1, keepdims=True)


def _softmax_no_keepdims(S):
    E = np.exp(S - S.max(-1))
    return E / E.sum(-1)


# ------------------------------------------------------------------------- the Jacobian ----


def _jacobian_spec():
    raw = np.array(pure.RAW_SCORES)
    cases = [
        C.case({"p": A.softmax(raw / 8.0)}, note="글의 여섯 점수를 8 로 나눔"),
        C.case({"p": A.softmax(raw * 2.0)}, note="뾰족한 p (배수 16)"),
        C.case({"p": C.rows_of_probabilities(1, (3, 4))}),
        C.case({"p": C.rows_of_probabilities(2, (2, 3, 5))}),
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
    ), "(m,), 뾰족한 p, (n, m), (B, n, m)", "fn(p) -> J")


# ------------------------------------------------------------------------- the row rule ----


def _vjp_spec():
    P_masked = A.attention(*C.normal(7, Q=(4, 3), K=(4, 3), V=(4, 2)).values(),
                           mask=C.causal(4, 4))[1]
    cases = [
        C.case({"P": C.rows_of_probabilities(3, (3, 5)), "U": C.normal(4, U=(3, 5))["U"]}),
        C.case({"P": C.rows_of_probabilities(5, (4, 4)), "U": C.normal(6, U=(4, 4))["U"]}),
        C.case({"P": P_masked, "U": C.normal(8, U=(4, 4))["U"]},
               note="인과 마스크의 P (가린 자리는 P = 0)"),
        C.case({"P": C.rows_of_probabilities(1, (6,)), "U": C.normal(2, U=(6,))["U"]}),
        C.case({"P": C.rows_of_probabilities(9, (2, 3, 4, 6)),
                "U": C.normal(10, U=(2, 3, 4, 6))["U"]}),
    ]
    cases += C.in_float32(cases, 0, 4)
    return Spec("softmax_vjp", ("delta",), cases, lambda P, U: A.softmax_vjp(P, U), (
        Mistake("r_without_P", lambda P, U: P * (U - U.mean(-1, keepdims=True))),
        Mistake("r_without_P", lambda P, U: P * (U - U.sum(-1, keepdims=True))),
        Mistake("no_P", lambda P, U: U - (P * U).sum(-1, keepdims=True)),
        Mistake("no_r", lambda P, U: P * U),
        Mistake("r_axis", lambda P, U: P * (U - (P * U).sum(-2, keepdims=True))),
        Mistake("sign", lambda P, U: -A.softmax_vjp(P, U)),
        Mistake("keepdims", lambda P, U: P * (U - (P * U).sum(-1))),
    ), "(n, m) n ≠ m, (m,), (B, H, n, m), P = 0 인 자리", "fn(P, U) -> delta")


# ---------------------------------------------------------------------------- entropy ----


def _entropy_spec():
    causal_P = A.attention(*C.normal(3, Q=(4, 6), K=(6, 6), V=(6, 2)).values(),
                           mask=C.causal(4, 6))[1]
    cases = [
        C.case({"P": C.rows_of_probabilities(1, (5, 8))}),
        C.case({"P": causal_P}, note="인과 마스크의 P (0 이 있고, 첫 행은 원-핫)"),
        C.case({"P": np.full((3, 4), 0.25)}, note="균등분포"),
        C.case({"P": C.rows_of_probabilities(2, (2, 3, 4, 6), spread=3.0)}),
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
        Mistake("sign", lambda P: -A.normalized_entropy(P)),
    ), "(n, m) n ≠ m, 0 이 있는 행, 원-핫과 균등분포, (B, H, n, m)", "fn(P) -> h")


def _entropy_with_nan(P):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(P * np.log(P)).sum(-1)


# ---------------------------------------------------------------------------- LayerNorm ----


def _layernorm_spec():
    offset = C.normal(4, G=(3, 10), x=(3, 10))
    offset["x"] = 50.0 + 0.1 * offset["x"]
    cases = [
        C.case(C.normal(1, G=(8,), x=(8,))),
        C.case(C.normal(2, G=(5, 16), x=(5, 16))),
        C.case(C.normal(3, G=(2, 3, 6), x=(2, 3, 6))),
        C.case(offset, note="평균 50, 표준편차 0.1 인 x"),
    ]
    cases += C.in_float32(cases, 1, 2)
    return Spec("layernorm_backward", ("dx",), cases, lambda G, x: A.layernorm_backward(G, x), (
        Mistake("ln_no_mean", lambda G, x: _ln_backward(G, x, mean=False)),
        Mistake("ln_no_y", lambda G, x: _ln_backward(G, x, y_term=False)),
        Mistake("ln_no_sigma", lambda G, x: _ln_backward(G, x, sigma=False)),
        Mistake("ln_unbiased", lambda G, x: _ln_backward(G, x, ddof=1)),
    ), "(d,), (n, d), (B, n, d), 평균이 큰 x", "fn(G, x) -> dx")


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
