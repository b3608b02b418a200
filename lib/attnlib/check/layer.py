"""Checkers for the backward of one attention layer: O = P V, the five lines, dQ and dK with the
scale, the two kinds of masks, dropout, and the backward from the saved (O, lse)."""

import functools

import numpy as np

from .. import numpy as A
from . import _cases as C
from ._cases import five, qk, scale_of, scores, swap
from ._grade import Mistake, Spec, run

BACKWARD_CALL = "fn(G, Q, K, V{}) -> (dQ, dK, dV)"


def pv_backward(fn, *, backend=None):
    """Check ``fn(G, P, V) -> (dV, U)``: dV = Pᵀ G and U = ∂L/∂P = G Vᵀ for O = P V."""
    run(_pv_spec, fn, backend=backend)


def attention_backward(fn, *, backend=None):
    """Check ``fn(G, Q, K, V) -> (dQ, dK, dV)``: the five lines with scale 1/sqrt(d_k)."""
    run(_backward_spec, fn, backend=backend)


def dq_dk(fn, *, backend=None):
    """Check ``fn(delta, Q, K) -> (dQ, dK)``: dQ = Δ K/sqrt(d_k), dK = Δᵀ Q/sqrt(d_k)."""
    run(_dq_dk_spec, fn, backend=backend)


def mask_replace(fn, *, backend=None):
    """Check ``fn(G, Q, K, V, mask, fill) -> (dQ, dK, dV)`` for a boolean mask (True: may see)
    whose masked scores are replaced by ``fill``."""
    run(_replace_spec, fn, backend=backend)


def mask_add(fn, *, backend=None):
    """Check ``fn(G, Q, K, V, bias) -> (dQ, dK, dV)`` for a float mask added to the scores."""
    run(_add_spec, fn, backend=backend)


def dropout_backward(fn, *, backend=None):
    """Check ``fn(G, Q, K, V, M, p_drop) -> (dQ, dK, dV)`` with P̃ = P ⊙ M/(1 − p_drop), O = P̃ V."""
    run(_dropout_spec, fn, backend=backend)


def lse_backward(fn, *, backend=None):
    """Check ``fn(G, Q, K, V, O, lse) -> (dQ, dK, dV)``: P = exp(S − lse), r = rowsum(G ⊙ O)."""
    run(_lse_spec, fn, backend=backend)


# ------------------------------------------------------------------------------ O = P V ----


@functools.cache
def _pv_spec():
    def pv(seed, batch, n, m, d_v):
        x = C.normal(seed, G=batch + (n, d_v), S=batch + (n, m), V=batch + (m, d_v))
        return {"G": x["G"], "P": A.softmax(x["S"]), "V": x["V"]}

    cases = [C.case(pv(1, (), 2, 3, 2), "n = d_v (PᵀGᵀ 도 V 의 shape)"),
             C.case(pv(2, (), 5, 7, 3), "n ≠ m ≠ d_v ≠ n"),
             C.case(pv(3, (2, 3), 4, 6, 5), "(B, H, ·, ·)")]
    cases += C.in_float32(cases, 1, 2)

    def reference(G, P, V):
        return swap(P) @ G, G @ swap(V)

    return Spec("pv_backward", ("dV", "U"), cases, reference, (
        Mistake("U_times_P", lambda G, P, V: (swap(P) @ G, P * (G @ swap(V)))),
        Mistake("mean_not_sum", lambda G, P, V: (swap(P) @ G / P.shape[-2], G @ swap(V))),
    ), "fn(G, P, V) -> (dV, U)")


# ----------------------------------------------------------------------- the five lines ----


def _backward_cases(seed):
    """The backward's cases: the article's example first (a mistake shows on its shapes), n ≠ m
    and d_k ≠ d_v, batch and head axes, rows with large scores."""
    cases = [C.case(C.small_example(), "글의 작은 예제", note="글의 작은 예제"),
             C.case(C.attention(seed, (), 5, 7, 8, 3), "n ≠ m, d_k ≠ d_v"),
             C.case(C.attention(seed + 1, (2, 3), 4, 6, 8, 5), "(B, H, ·, ·)"),
             C.case(C.offset_rows(C.attention(seed + 2, (), 5, 6, 8, 3)),
                    "점수가 수천인 행", note=C.OFFSETS_NOTE)]
    return cases + C.in_float32(cases, 1, 2)


@functools.cache
def _backward_spec():
    def parts(G, Q, K, V):
        return A.attention_backward_parts(G, Q, K, V)

    def rescaled(f_q, f_k):
        def wrong(G, Q, K, V):
            p, s = parts(G, Q, K, V), scale_of(Q)
            return p.dQ * f_q(s), p.dK * f_k(s), p.dV
        return wrong

    def r_without_P(G, Q, K, V):
        p = parts(G, Q, K, V)
        return five(G, Q, K, V, p.P, r=p.U.mean(-1))

    def r_axis(G, Q, K, V):
        p = parts(G, Q, K, V)
        delta = p.P * (p.U - (p.P * p.U).sum(-2, keepdims=True))
        return (*qk(delta, Q, K, scale_of(Q)), p.dV)

    def forward(P_of, scale=None):
        """The five lines on a P computed wrongly from S = scale_f · QKᵀ."""
        return lambda G, Q, K, V: five(G, Q, K, V, P_of(Q, K), scale=scale and scale(Q))

    def one_over_d(Q):
        return 1.0 / Q.shape[-1]

    return Spec("attention_backward", ("dQ", "dK", "dV"), _backward_cases(1),
                lambda G, Q, K, V: A.attention_backward(G, Q, K, V), (
        Mistake("no_scale", rescaled(lambda s: 1 / s, lambda s: 1 / s)),
        Mistake("double_scale", rescaled(lambda s: s, lambda s: s)),
        Mistake("scale_inverted", rescaled(lambda s: 1 / s**2, lambda s: 1 / s**2)),
        Mistake("dK_double_scale", rescaled(lambda s: 1.0, lambda s: s)),
        Mistake("r_without_P", r_without_P),
        Mistake("r_without_P", lambda G, Q, K, V: five(
            G, Q, K, V, parts(G, Q, K, V).P, r=parts(G, Q, K, V).U.sum(-1))),
        Mistake("r_axis", r_axis),
        Mistake("overflow", forward(lambda Q, K: C.softmax_no_max(scores(Q, K)))),
        Mistake("overflow", forward(lambda Q, K: C.softmax_no_max(scores(Q, K), C.row_mean))),
        Mistake("softmax_axis", forward(lambda Q, K: C.softmax(scores(Q, K), axis=-2))),
        Mistake("forward_unscaled", forward(lambda Q, K: C.softmax(Q @ swap(K)))),
        Mistake("unscaled_everywhere", forward(lambda Q, K: C.softmax(Q @ swap(K)),
                                               lambda Q: 1.0)),
        Mistake("scale_d", forward(lambda Q, K: C.softmax(one_over_d(Q) * (Q @ swap(K))),
                                   one_over_d)),
    ), BACKWARD_CALL.format(""))


@functools.cache
def _dq_dk_spec():
    def case(seed, batch, n, m, d_k, tag):
        x = C.attention(seed, batch, n, m, d_k, 3)
        delta = A.attention_backward_parts(*x.values()).delta
        return C.case({"delta": delta, "Q": x["Q"], "K": x["K"]}, tag)

    cases = [case(1, (), 4, 4, 6, "n = m"), case(2, (), 5, 7, 8, "n ≠ m"),
             case(3, (2, 3), 4, 6, 5, "(B, H, ·, ·)")]
    cases += C.in_float32(cases, 1, 2)

    def times(f):
        return lambda delta, Q, K: qk(delta, Q, K, f(scale_of(Q)))

    return Spec("dq_dk", ("dQ", "dK"), cases, times(lambda s: s), (
        Mistake("no_scale", times(lambda s: 1.0)),
        Mistake("double_scale", times(lambda s: s * s)),
        Mistake("scale_inverted", times(lambda s: 1 / s)),
        Mistake("mirror", lambda delta, Q, K: (scale_of(Q) * (delta @ Q),
                                               scale_of(Q) * (swap(delta) @ K))),
    ), "fn(delta, Q, K) -> (dQ, dK)")


# ------------------------------------------------------------------------------- masks ----


@functools.cache
def _replace_spec():
    def masked(seed, batch, n, m, mask, fill, *tags, note="", large=False):
        x = C.attention(seed, batch, n, m, 8, 3)
        x = x if not large else C.offset_rows(x)
        return C.case({**x, "mask": mask, "fill": fill}, *tags, note=note)

    rng = np.random.default_rng(11)
    leaky = rng.random((4, 6)) < 0.6
    leaky[:, 0] = True  # every row sees at least one key
    empty_row = np.ones((4, 5), dtype=bool)
    empty_row[1] = False
    padding = np.ones((2, 1, 1, 6), dtype=bool)
    padding[1, ..., 4:] = False  # the second sequence has two padded keys
    cases = [
        masked(1, (), 4, 4, C.causal(4, 4), -np.inf, "fill = −inf", note="인과 마스크"),
        masked(2, (), 5, 7, C.causal(5, 7), -1e9, "−1e9", note="인과 마스크, 유한한 fill"),
        masked(3, (), 4, 6, leaky, -10.0, "−10", note="fill = −10: 가린 자리로 P 가 샘"),
        masked(4, (), 4, 5, empty_row, -1e9, "모든 키를 가린 행 (유한한 fill)",
               note="둘째 행은 모든 키를 가림 (균등분포)"),
        masked(5, (2, 3), 4, 6, padding, -np.inf, "브로드캐스트되는 패딩 마스크",
               note="패딩 마스크 (2, 1, 1, 6) 를 브로드캐스트"),
        masked(6, (), 5, 6, C.causal(5, 6), -np.inf, "점수가 수천인 행", large=True,
               note="인과 마스크; " + C.OFFSETS_NOTE),
    ]
    cases += C.in_float32(cases, 2, 4)

    def reference(G, Q, K, V, mask, fill):
        return A.attention_backward(G, Q, K, V, mask=mask, fill=fill)

    def delta_to_qk(G, Q, K, V, mask, fill):
        p = A.attention_backward_parts(G, Q, K, V, mask=mask, fill=fill)
        return (*qk(p.delta, Q, K, scale_of(Q)), p.dV)

    def after_softmax(G, Q, K, V, mask, fill):
        P = np.where(mask, C.softmax(scores(Q, K)), 0.0)
        return five(G, Q, K, V, P)

    return Spec("mask_replace", ("dQ", "dK", "dV"), cases, reference, (
        Mistake("masked_delta_to_qk", delta_to_qk),
        Mistake("mask_inverted", lambda G, Q, K, V, mask, fill: reference(G, Q, K, V, ~mask, fill)),
        Mistake("mask_added", lambda G, Q, K, V, mask, fill: A.attention_backward(
            G, Q, K, V, mask=np.where(mask, 0.0, fill))),
        Mistake("mask_missing", lambda G, Q, K, V, mask, fill: A.attention_backward(G, Q, K, V)),
        Mistake("mask_after_softmax", after_softmax),
        Mistake("overflow", lambda G, Q, K, V, mask, fill: five(
            G, Q, K, V, C.softmax_no_max(np.where(mask, scores(Q, K), fill)), to_qk=mask)),
    ), BACKWARD_CALL.format(", mask, fill"))


@functools.cache
def _add_spec():
    def alibi(slopes, n, m):
        i, j = np.arange(n)[:, None], np.arange(m)[None, :]
        bias = -np.asarray(slopes)[:, None, None] * (i - j)  # (H, n, m)
        return np.where(j <= i, bias, -np.inf)

    soft = np.where(np.random.default_rng(12).random((4, 6)) < 0.5, -10.0, 0.0)
    cases = [
        C.case({**C.attention(1, (), 4, 4, 8, 3), "bias": alibi([0.5], 4, 4)[0]}, "−inf",
               note="ALiBi 기울기 0.5 와 인과 마스크 (−inf)"),
        C.case({**C.attention(2, (), 4, 6, 8, 3), "bias": soft}, "유한한 bias",
               note="0 또는 −10 을 더함"),
        C.case({**C.attention(3, (2, 3), 5, 5, 8, 4), "bias": alibi([0.5, 0.25, 0.125], 5, 5)},
               "헤드마다 다른 bias 의 브로드캐스트", note="헤드마다 기울기가 다른 ALiBi (3, 5, 5)"),
        C.case({**C.offset_rows(C.attention(4, (), 5, 5, 8, 3)),
                "bias": alibi([0.5], 5, 5)[0]}, "점수가 수천인 행",
               note="ALiBi 와 인과 마스크; " + C.OFFSETS_NOTE),
    ]
    cases += C.in_float32(cases, 1, 2)

    def reference(G, Q, K, V, bias):
        return A.attention_backward(G, Q, K, V, mask=bias)

    def zeroed(G, Q, K, V, bias):
        p = A.attention_backward_parts(G, Q, K, V, mask=bias)
        return (*qk(np.where(bias == 0, p.delta, 0.0), Q, K, scale_of(Q)), p.dV)

    return Spec("mask_add", ("dQ", "dK", "dV"), cases, reference, (
        Mistake("bias_delta_zeroed", zeroed),
        Mistake("bias_missing", lambda G, Q, K, V, bias: A.attention_backward(G, Q, K, V)),
        Mistake("bias_scaled", lambda G, Q, K, V, bias: reference(G, Q, K, V,
                                                                  bias * scale_of(Q))),
        Mistake("overflow", lambda G, Q, K, V, bias: five(
            G, Q, K, V, C.softmax_no_max(scores(Q, K) + bias))),
    ), BACKWARD_CALL.format(", bias"))


# ------------------------------------------------------------------------------ dropout ----


@functools.cache
def _dropout_spec():
    def dropped(seed, batch, n, m, d_k, d_v, p_drop, *tags, inputs=None, note=""):
        x = inputs or C.attention(seed, batch, n, m, d_k, d_v)
        keep = np.random.default_rng(seed + 100).random(x["Q"].shape[:-1] + (x["K"].shape[-2],))
        return C.case({**x, "M": (keep >= p_drop).astype(np.float64), "p_drop": p_drop}, *tags,
                      note=note)

    cases = [dropped(1, (), 4, 6, 8, 3, 0.25, "n ≠ m", "p_drop = 0.25"),
             dropped(2, (), 2, 3, 4, 2, 0.5, "0.5", inputs=C.small_example()),
             dropped(3, (2, 3), 5, 4, 8, 5, 0.1, "0.1", "(B, H, ·, ·)"),
             dropped(4, (), 5, 6, 8, 3, 0.25, "점수가 수천인 행",
                     inputs=C.offset_rows(C.attention(4, (), 5, 6, 8, 3)),
                     note=C.OFFSETS_NOTE)]
    cases += C.in_float32(cases, 0, 2)

    def reference(G, Q, K, V, M, p_drop):
        return A.attention_backward(G, Q, K, V, dropout_mask=M, p_drop=p_drop)

    def parts(G, Q, K, V, M=None, p_drop=0.0):
        return A.attention_backward_parts(G, Q, K, V, dropout_mask=M, p_drop=p_drop)

    def no_rescale_U(G, Q, K, V, M, p_drop):
        return (*parts(G, Q, K, V, M)[-3:-1], reference(G, Q, K, V, M, p_drop)[2])

    def not_in_U(G, Q, K, V, M, p_drop):
        return (*parts(G, Q, K, V)[-3:-1], reference(G, Q, K, V, M, p_drop)[2])

    def on_delta(G, Q, K, V, M, p_drop):
        delta = parts(G, Q, K, V).delta * M / (1 - p_drop)
        return (*qk(delta, Q, K, scale_of(Q)), reference(G, Q, K, V, M, p_drop)[2])

    def r_twice(G, Q, K, V, M, p_drop):
        """r = Σ_j P̃_ij U_ij with U already dropped: M/(1 − p_drop) twice in r."""
        p = parts(G, Q, K, V, M, p_drop)
        return five(G, Q, K, V, p.P, r=(p.P_tilde * p.U).sum(-1), keep=M / (1 - p_drop))

    return Spec("dropout_backward", ("dQ", "dK", "dV"), cases, reference, (
        Mistake("dropout_no_rescale", lambda G, Q, K, V, M, p_drop: reference(G, Q, K, V, M, 0.0)),
        Mistake("dropout_no_rescale_U", no_rescale_U),
        Mistake("dropout_not_in_U", not_in_U),
        Mistake("dropout_on_delta", on_delta),
        Mistake("dropout_not_in_dV", lambda G, Q, K, V, M, p_drop: (
            *reference(G, Q, K, V, M, p_drop)[:2], swap(parts(G, Q, K, V).P) @ G)),
        Mistake("dropout_r_twice", r_twice),
        Mistake("dropout_over_p", lambda G, Q, K, V, M, p_drop: reference(G, Q, K, V, M,
                                                                         1.0 - p_drop)),
        Mistake("overflow", lambda G, Q, K, V, M, p_drop: five(
            G, Q, K, V, C.softmax_no_max(scores(Q, K)), keep=M / (1 - p_drop))),
    ), BACKWARD_CALL.format(", M, p_drop"))


# ------------------------------------------------------------------ from the saved lse ----


@functools.cache
def _lse_spec():
    def saved(seed, batch, n, m, d_k, d_v, *tags, large=False, note=""):
        x = C.attention(seed, batch, n, m, d_k, d_v)
        x = x if not large else C.offset_rows(x)
        O, lse = A.attention_lse(x["Q"], x["K"], x["V"])
        return C.case({**x, "O": O, "lse": lse}, *tags, note=note)

    cases = [saved(1, (), 4, 4, 8, 3, "n = m"), saved(2, (), 5, 7, 8, 3, "n ≠ m"),
             saved(3, (2, 3), 4, 6, 8, 5, "(B, H, ·, ·)"),
             saved(4, (), 5, 6, 8, 3, "점수가 수천인 행", large=True,
                   note=C.OFFSETS_NOTE)]
    cases += C.in_float32(cases, 1, 2)

    def reference(G, Q, K, V, O, lse):
        return A.attention_backward_lse(G, Q, K, V, O, lse)

    def from_P(P_of):
        def wrong(G, Q, K, V, O, lse):
            with np.errstate(over="ignore", invalid="ignore"):
                return five(G, Q, K, V, P_of(Q, K, lse), r=(G * O).sum(-1))
        return wrong

    def no_scale(G, Q, K, V, O, lse):
        dQ, dK, dV = reference(G, Q, K, V, O, lse)
        return dQ / scale_of(Q), dK / scale_of(Q), dV

    def r_keepdims(G, Q, K, V, O, lse):
        P = np.exp(scores(Q, K) - lse[..., None])
        U = G @ swap(V)
        delta = P * (U - (G * O).sum(-1))
        return (*qk(delta, Q, K, scale_of(Q)), swap(P) @ G)

    return Spec("lse_backward", ("dQ", "dK", "dV"), cases, reference, (
        Mistake("lse_axis", from_P(lambda Q, K, lse: np.exp(scores(Q, K) - lse))),
        Mistake("lse_missing", from_P(lambda Q, K, lse: np.exp(scores(Q, K)))),
        Mistake("lse_unscaled", from_P(lambda Q, K, lse: np.exp(Q @ swap(K) - lse[..., None]))),
        Mistake("no_scale", no_scale),
        Mistake("keepdims", r_keepdims),
        Mistake("lse_overflow", from_P(lambda Q, K, lse: np.exp(scores(Q, K))
                                       / np.exp(lse[..., None]))),
    ), BACKWARD_CALL.format(", O, lse"),
        unchecked="받은 lse 와 O 로 P 와 r 을 구하는지, softmax 를 다시 하지 않는지 (값만 봅니다)")
