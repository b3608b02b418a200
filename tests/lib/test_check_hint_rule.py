"""A hint names the mistake that was made, or says nothing (issue 34, class f).

- the rule itself, on a toy checker: two mistakes that no case tells apart give no hint; when
  a case tells them apart, the one the answer made is named (a planted pair of mistakes);
- each online-softmax slip a reader makes gets its own hint and no other, in NumPy and torch,
  with and without the causal mask: the running sum ℓ not rescaled, the accumulator not
  rescaled, lse without the running max, the accumulator not divided by ℓ;
- the words of a hint say the operation its mistake performs (double_scale: × 1/d_k);
- a Jacobian built with .T on a batch is told about leading axes, .T among them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_check import fails_silently, fails_with, graded

from attnlib import check
from attnlib.check import HINTS, layer
from attnlib.check import _grade as G

torch = pytest.importorskip("torch")

# ----------------------------------------------------------------- the rule, on a toy ----


def _toy(cases):
    """fn(x) -> y with y = 2x; two known mistakes, "no_r": 3x and "sign": x + 2x·|x|, the same
    where |x| = 1."""
    def spec():
        return G.Spec("toy", ("y",), [G.Case({"x": np.array(c)}) for c in cases],
                      lambda x: 2 * x,
                      (G.Mistake("no_r", lambda x: 3 * x),
                       G.Mistake("sign", lambda x: x + 2 * x * np.abs(x))),
                      "fn(x) -> y")
    return spec


def _graded(spec, fn):
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        G.run(spec, fn)
    return out.getvalue()


def test_two_mistakes_no_case_tells_apart_get_no_hint():
    """Where |x| = 1 the two mistakes give the same 3x: the answer 3x matches both on every
    case, so the grader cannot say which was made and says nothing."""
    text = _graded(_toy([[1.0, -1.0], [1.0, 1.0]]), lambda x: 3 * x)
    assert text.startswith("✘") and "힌트" not in text, text


def test_a_case_that_tells_them_apart_names_the_one_made():
    """The planted pair again, with a case where |x| ≠ 1: only mistake "sign" (x + 2x|x|) is the
    answer there too, so its hint and not the other's is shown."""
    text = _graded(_toy([[1.0, -1.0], [0.5, 2.0]]), lambda x: x + 2 * x * np.abs(x))
    assert "힌트: " + HINTS["sign"] in text and HINTS["no_r"] not in text, text


# ------------------------------------------------------- the online softmax, slip by slip ----


def _online(Q, K, V, block_k, *, causal=False, rescale_l=True, rescale_acc=True, lse="add",
            divide=True, late_alpha=False):
    """A reader's loop (NumPy), with s_max's −inf rows guarded; the keywords put one slip in.
    ``late_alpha``: s_max is updated before the rescaling factor is computed (round 3's D6),
    so α = e^(s_new − s_new) = 1 and neither ℓ nor acc is rescaled."""
    n, m = Q.shape[-2], K.shape[-2]
    s = 1 / math.sqrt(Q.shape[-1])
    s_max = np.full(Q.shape[:-1], -np.inf)
    ell = np.zeros(Q.shape[:-1])
    acc = np.zeros(Q.shape[:-1] + V.shape[-1:])
    for j in range(0, m, block_k):
        J = np.arange(j, min(j + block_k, m))
        S = Q @ np.swapaxes(K[..., J, :], -1, -2) * s
        if causal:
            S = np.where(J[None, :] <= np.arange(n)[:, None], S, -np.inf)
        s_new = np.maximum(s_max, S.max(-1))
        ref = np.where(np.isfinite(s_new), s_new, 0.0)
        a = np.exp((ref if late_alpha else s_max) - ref)  # late: the old maximum is gone
        E = np.exp(S - ref[..., None])
        ell = (a * ell if rescale_l else ell) + E.sum(-1)
        acc = (a[..., None] * acc if rescale_acc else acc) + E @ V[..., J, :]
        s_max = s_new
    O = acc / ell[..., None] if divide else acc
    return O, (s_max + np.log(ell) if lse == "add" else np.log(ell))


def _online_torch(Q, K, V, block_k, *, causal=False, rescale_l=True, rescale_acc=True,
                  lse="add", divide=True):
    """The same loop in torch."""
    n, m = Q.shape[-2], K.shape[-2]
    s = 1 / math.sqrt(Q.shape[-1])
    s_max = torch.full(Q.shape[:-1], -math.inf, dtype=Q.dtype)
    ell = torch.zeros(Q.shape[:-1], dtype=Q.dtype)
    acc = torch.zeros(Q.shape[:-1] + V.shape[-1:], dtype=Q.dtype)
    for j in range(0, m, block_k):
        J = torch.arange(j, min(j + block_k, m))
        S = Q @ K[..., J, :].mT * s
        if causal:
            S = S.masked_fill(J[None, :] > torch.arange(n)[:, None], -math.inf)
        s_new = torch.maximum(s_max, S.amax(-1))
        ref = torch.where(torch.isfinite(s_new), s_new, 0.0)
        a = torch.exp(s_max - ref)
        E = torch.exp(S - ref[..., None])
        ell = (a * ell if rescale_l else ell) + E.sum(-1)
        acc = (a[..., None] * acc if rescale_acc else acc) + E @ V[..., J, :]
        s_max = s_new
    O = acc / ell[..., None] if divide else acc
    return O, (s_max + torch.log(ell) if lse == "add" else torch.log(ell))


SLIPS = [
    ("l-not-rescaled", {"rescale_l": False}, "online_no_rescale_l"),
    ("acc-not-rescaled", {"rescale_acc": False}, "online_no_rescale_acc"),
    ("neither-rescaled", {"rescale_l": False, "rescale_acc": False}, "online_no_rescale_both"),
    ("lse-without-max", {"lse": "log ell"}, "online_lse"),
    ("acc-not-divided", {"divide": False}, "online_no_normalize"),
]
ONLINE_HINTS = [k for k in HINTS if k.startswith("online_")]


@pytest.mark.parametrize("loop", [_online, _online_torch], ids=["numpy", "torch"])
@pytest.mark.parametrize("causal", [False, True], ids=["plain", "causal"])
@pytest.mark.parametrize("name, kw, hint", SLIPS, ids=[s[0] for s in SLIPS])
def test_each_online_softmax_slip_gets_its_own_hint_and_no_other(loop, causal, name, kw, hint):
    text = graded(check.online_softmax,
                  lambda Q, K, V, b: loop(Q, K, V, b, causal=causal, **kw), causal=causal)
    assert fails_with(text, hint), text
    others = [h for h in ONLINE_HINTS if h != hint and fails_with(text, h)]
    assert not others, (others, text)


@pytest.mark.parametrize("causal", [False, True], ids=["plain", "causal"])
def test_alpha_computed_after_the_max_update_gets_the_both_hint_only(causal):
    text = graded(check.online_softmax,
                  lambda Q, K, V, b: _online(Q, K, V, b, causal=causal, late_alpha=True),
                  causal=causal)
    assert fails_with(text, "online_no_rescale_both"), text
    others = [h for h in ONLINE_HINTS if h != "online_no_rescale_both" and fails_with(text, h)]
    assert not others, (others, text)


OVERWRITES = ["block_overwrite", "block_overwrite_dq", "block_overwrite_dkdv",
              "block_overwrite_dk"]


@pytest.mark.parametrize("written, hint", [(True, "block_overwrite"), ("q", "block_overwrite_dq"),
                                           ("kv", "block_overwrite_dkdv"),
                                           ("k", "block_overwrite_dk")],
                         ids=["all", "dQ", "dK-dV", "dK"])
def test_each_overwrite_slip_names_the_outputs_overwritten_and_no_other(written, hint):
    """D5 (round 3): overwriting dQ alone (the likeliest slip in a key-outer loop) got no hint;
    each overwrite names the outputs written with = and only those."""
    from test_check import _bw
    text = graded(check.blockwise_backward, _bw(overwrite=written))
    assert fails_with(text, hint), text
    others = [h for h in OVERWRITES if h != hint and fails_with(text, h)]
    assert not others, (others, text)


def test_the_right_loop_passes_in_both_backends():
    for loop in (_online, _online_torch):
        for causal in (False, True):
            text = graded(check.online_softmax,
                          lambda Q, K, V, b, f=loop, c=causal: f(Q, K, V, b, causal=c),
                          causal=causal)
            assert text.startswith("✔"), text


# ----------------------------------------------------------- the words of a hint ----


def test_double_scale_says_the_operation_its_mistake_performs():
    """The double_scale mistake multiplies dQ, dK by s² = 1/d_k (layer.py); the hint must say
    × 1/d_k (= ÷ d_k), never ÷ (1/d_k) (which is × d_k)."""
    text = HINTS["double_scale"]
    assert "1/d_k 로 나눴" not in text and "1/d_k 로 나눈" not in text
    assert "1/d_k 를 곱" in text and "d_k 로 나눈" in text
    s = 1 / math.sqrt(16.0)  # the mistake itself: two factors s, i.e. × 1/d_k
    assert layer is not None and math.isclose(s * s, 1 / 16.0)


def test_double_scale_hint_is_shown_for_a_1_over_d_backward():
    def backward(G_, Q, K, V):
        d = Q.shape[-1]
        S = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d)
        P = np.exp(S - S.max(-1, keepdims=True))
        P /= P.sum(-1, keepdims=True)
        U = G_ @ np.swapaxes(V, -1, -2)
        D = P * (U - (P * U).sum(-1, keepdims=True))
        return D @ K / d, np.swapaxes(D, -1, -2) @ Q / d, np.swapaxes(P, -1, -2) @ G_

    text = graded(check.attention_backward, backward)
    assert fails_with(text, "double_scale"), text


def test_a_jacobian_built_with_T_on_a_batch_is_told_of_leading_axes_and_T():
    def jac(p):
        return p[..., :, None] * np.eye(p.shape[-1]) - p[..., :, None] * p.T

    text = graded(check.softmax_jacobian, jac)
    assert fails_with(text, "jac_leading_axes") and ".T" in HINTS["jac_leading_axes"], text


def test_a_jacobian_with_an_unknown_slip_gets_no_hint():
    def jac(p):  # a slip no mistake describes: the outer product halved
        return p[..., :, None] * np.eye(p.shape[-1]) - 0.5 * p[..., :, None] * p[..., None, :]

    assert fails_silently(graded(check.softmax_jacobian, jac))
