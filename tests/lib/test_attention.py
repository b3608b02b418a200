"""Attention forward and backward against references the project did not write: torch autograd
on a plain torch forward, torch.nn.functional.scaled_dot_product_attention,
torch.autograd.gradcheck, and central differences."""

import math
import warnings

import numpy as np
import pytest
from conftest import randn, to_np

torch = pytest.importorskip("torch")
F = torch.nn.functional

TOL = dict(rtol=1e-10, atol=1e-12)


def reference(Q, K, V, G, *, scale=None, mask=None, fill=-math.inf, M=None, p_drop=0.0):
    """Plain torch forward (masked_fill, softmax, dropout) and its autograd gradients."""
    Q, K, V = (torch.tensor(x, requires_grad=True) for x in (Q, K, V))
    scale = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    S = scale * Q @ K.transpose(-1, -2)
    if mask is not None:
        S = S.masked_fill(~torch.as_tensor(mask), fill)
    P = torch.softmax(S, dim=-1)
    P_tilde = P if M is None else P * torch.as_tensor(M, dtype=P.dtype) / (1 - p_drop)
    O = P_tilde @ V
    O.backward(torch.as_tensor(G))
    return to_np(O), to_np(P), to_np(Q.grad), to_np(K.grad), to_np(V.grad)


def causal(n, m):
    return np.tril(np.ones((n, m), dtype=bool), k=m - n)


CASES = {
    "plain": dict(),
    "scale": dict(scale=0.7),
    "causal": dict(mask=causal(5, 6)),
    "causal_fill-1e9": dict(mask=causal(5, 6), fill=-1e9),
    "causal_fill-10": dict(mask=causal(5, 6), fill=-10.0),
    "dropout": dict(M=(np.random.default_rng(3).random((2, 3, 5, 6)) > 0.3), p_drop=0.3),
    "all": dict(mask=causal(5, 6), fill=-2.0, M=(np.random.default_rng(4).random((5, 6)) > 0.2),
                p_drop=0.2, scale=1.3),
}


def kwargs(case):
    kw = dict(case)
    if "M" in kw:
        kw["dropout_mask"] = kw.pop("M")
    return kw


@pytest.mark.parametrize("case", CASES)
def test_forward_backward_vs_torch_autograd(B, case):
    Q, K, V, G = randn((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 3), (2, 3, 5, 3), seed=1)
    O_ref, P_ref, dQ_ref, dK_ref, dV_ref = reference(Q, K, V, G, **CASES[case])
    O, P = B.attention(Q, K, V, **kwargs(CASES[case]))
    np.testing.assert_allclose(to_np(O), O_ref, **TOL)
    np.testing.assert_allclose(to_np(P), P_ref, **TOL)
    for got, ref in zip(B.attention_backward(G, Q, K, V, **kwargs(CASES[case])),
                        (dQ_ref, dK_ref, dV_ref), strict=True):
        np.testing.assert_allclose(to_np(got), ref, **TOL)


@pytest.mark.parametrize("case", CASES)
def test_lse_and_parts_agree(B, case):
    Q, K, V, G = randn((3, 5, 4), (3, 6, 4), (3, 6, 2), (3, 5, 2), seed=2)
    kw = kwargs(CASES[case])
    if "dropout_mask" in kw:
        kw["dropout_mask"] = kw["dropout_mask"][0] if kw["dropout_mask"].ndim == 4 else \
            kw["dropout_mask"]
    grads = B.attention_backward(G, Q, K, V, **kw)
    O, lse = B.attention_lse(Q, K, V, **kw)
    O2, P = B.attention(Q, K, V, **kw)
    np.testing.assert_allclose(to_np(O), to_np(O2), **TOL)
    parts = B.attention_backward_parts(G, Q, K, V, **kw)
    for a, b, c, d in zip(B.attention_backward_lse(G, Q, K, V, O, lse, **kw), grads,
                          parts[-3:], B.attention_backward(G, Q, K, V, P=P, **kw), strict=True):
        np.testing.assert_allclose(to_np(a), to_np(b), **TOL)
        np.testing.assert_allclose(to_np(c), to_np(b), **TOL)
        np.testing.assert_allclose(to_np(d), to_np(b), **TOL)


def test_parts_are_the_five_lines(B):
    Q, K, V, G = randn((4, 3), (5, 3), (5, 2), (4, 2), seed=5)
    p = B.attention_backward_parts(G, Q, K, V)
    P, U, r, delta = (to_np(x) for x in (p.P, p.U, p.r, p.delta))
    np.testing.assert_allclose(U, G @ V.T, **TOL)
    np.testing.assert_allclose(r, (P * U).sum(-1), **TOL)
    np.testing.assert_allclose(delta, P * (U - r[:, None]), **TOL)
    np.testing.assert_allclose(to_np(p.S), Q @ K.T / math.sqrt(3), **TOL)
    np.testing.assert_allclose(to_np(p.dV), P.T @ G, **TOL)
    np.testing.assert_allclose(to_np(p.dQ), delta @ K / math.sqrt(3), **TOL)
    np.testing.assert_allclose(to_np(p.dK), delta.T @ Q / math.sqrt(3), **TOL)
    np.testing.assert_allclose(to_np(p.P_tilde), P, **TOL)


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("scale", [None, 0.3])
def test_vs_sdpa(B, masked, scale):
    Q, K, V, G = randn((2, 4, 7, 8), (2, 4, 9, 8), (2, 4, 9, 5), (2, 4, 7, 5), seed=6)
    mask = np.random.default_rng(7).random((7, 9)) > 0.4 if masked else None
    if masked:
        mask[:, 0] = True  # no fully masked row: SDPA and the math disagree there
    q, k, v = (torch.tensor(x, requires_grad=True) for x in (Q, K, V))
    O_ref = F.scaled_dot_product_attention(
        q, k, v, attn_mask=None if mask is None else torch.tensor(mask), scale=scale)
    O_ref.backward(torch.tensor(G))
    kw = dict(mask=mask, scale=scale)
    np.testing.assert_allclose(to_np(B.attention(Q, K, V, **kw)[0]), to_np(O_ref), **TOL)
    for got, ref in zip(B.attention_backward(G, Q, K, V, **kw), (q.grad, k.grad, v.grad),
                        strict=True):
        np.testing.assert_allclose(to_np(got), to_np(ref), **TOL)


def test_central_differences(B):
    Q, K, V, G = randn((3, 4), (5, 4), (5, 2), (3, 2), seed=8)
    mask = causal(3, 5)
    kw = dict(mask=mask, fill=-3.0, dropout_mask=np.array([[1, 0, 1, 1, 1]] * 3), p_drop=0.25)

    def loss(Q, K, V):  # L = Σ G ⊙ O, so ∂L/∂O = G
        return float((to_np(B.attention(Q, K, V, **kw)[0]) * G).sum())

    worst = B.gradcheck(loss, [Q, K, V], B.attention_backward(G, Q, K, V, **kw))
    assert max(worst) < 1e-6, worst


@pytest.mark.parametrize("kw", [dict(), dict(mask=causal(4, 5), fill=-2.0),
                                dict(mask=causal(4, 5), dropout_mask=np.eye(4, 5) == 0,
                                     p_drop=0.5, scale=0.9)])
def test_torch_autograd_gradcheck(kw):
    from attnlib import torch as T

    Q, K, V = (torch.tensor(x, requires_grad=True) for x in randn((2, 4, 3), (2, 5, 3),
                                                                    (2, 5, 2), seed=9))
    kw = {k: (torch.as_tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    assert torch.autograd.gradcheck(lambda q, k, v: T.attention_autograd(q, k, v, **kw), (Q, K, V))
    assert torch.autograd.gradcheck(lambda q, k, v: T.attention(q, k, v, **kw)[0], (Q, K, V))


def test_attention_function_matches_autograd():
    from attnlib import torch as T

    Q, K, V, G = randn((2, 6, 4), (2, 7, 4), (2, 7, 3), (2, 6, 3), seed=10)
    q, k, v = (torch.tensor(x, requires_grad=True) for x in (Q, K, V))
    mask = torch.tensor(causal(6, 7))
    T.attention_autograd(q, k, v, mask=mask, fill=-5.0).backward(torch.tensor(G))
    ref = reference(Q, K, V, G, mask=causal(6, 7), fill=-5.0)
    for got, r in zip((q.grad, k.grad, v.grad), ref[2:], strict=True):
        np.testing.assert_allclose(to_np(got), r, **TOL)


def test_broadcast_batch_axes(B):
    Q, K, V, G = randn((5, 4), (2, 6, 4), (3, 1, 6, 2), (3, 2, 5, 2), seed=11)
    ref = reference(Q, K, V, G)
    O, P = B.attention(Q, K, V)
    assert tuple(O.shape) == (3, 2, 5, 2) and tuple(P.shape) == (2, 5, 6)
    for got, r in zip(B.attention_backward(G, Q, K, V), ref[2:], strict=True):
        assert got.shape == r.shape
        np.testing.assert_allclose(to_np(got), r, **TOL)
    O, lse = B.attention_lse(Q, K, V)
    for got, r in zip(B.attention_backward_lse(G, Q, K, V, O, lse), ref[2:], strict=True):
        np.testing.assert_allclose(to_np(got), r, **TOL)


def test_finite_fill_delta_reaches_r_and_dV_but_not_dQ_dK(B):
    Q, K, V, G = randn((3, 4), (4, 4), (4, 2), (3, 2), seed=12)
    mask = causal(3, 4)
    p = B.attention_backward_parts(G, Q, K, V, mask=mask, fill=-1.0)
    delta = to_np(p.delta)
    assert np.abs(delta[~mask]).min() > 0  # masked Δ is small but not zero
    np.testing.assert_allclose(delta.sum(-1), 0, atol=1e-15)
    np.testing.assert_allclose(to_np(p.dQ), np.where(mask, delta, 0) @ K / 2, **TOL)
    np.testing.assert_allclose(to_np(p.dV), to_np(p.P).T @ G, **TOL)


def test_fully_masked_row(B):
    Q, K, V, G = randn((3, 4), (4, 4), (4, 2), (3, 2), seed=13)
    mask = np.ones((3, 4), dtype=bool)
    mask[1] = False
    with pytest.warns(RuntimeWarning, match=r"rows \[\(1,\)\]"):
        O, P = B.attention(Q, K, V, mask=mask)
    assert np.isnan(to_np(O)[1]).all() and np.isnan(to_np(P)[1]).all()
    assert np.isfinite(to_np(O)[[0, 2]]).all()
    with pytest.warns(RuntimeWarning, match="every key is masked"):
        dQ, dK, dV = B.attention_backward(G, Q, K, V, mask=mask)
    ref = reference(Q, K, V, G, mask=mask)
    np.testing.assert_allclose(to_np(dQ), ref[2], **TOL)  # NaN where torch autograd has NaN
    np.testing.assert_allclose(to_np(dV), ref[4], **TOL)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        O, P = B.attention(Q, K, V, mask=mask, fill=-1e9)
    np.testing.assert_allclose(to_np(P)[1], 0.25, **TOL)
    np.testing.assert_allclose(to_np(O)[1], V.mean(0), **TOL)


def test_no_warning_when_every_row_lives(B):
    Q, K, V = randn((3, 4), (4, 4), (4, 2), seed=14)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        B.attention(Q, K, V, mask=causal(3, 4))
        B.attention_lse(Q, K, V, mask=causal(3, 4))


def test_dropout_delta(B):
    Q, K, V, G = randn((4, 3), (6, 3), (6, 2), (4, 2), seed=15)
    M = np.random.default_rng(16).random((4, 6)) > 0.5
    p = B.attention_backward_parts(G, Q, K, V, dropout_mask=M, p_drop=0.5)
    P, r, delta = to_np(p.P), to_np(p.r), to_np(p.delta)
    np.testing.assert_allclose(delta[~M], (-P * r[:, None])[~M], **TOL)
    np.testing.assert_allclose(to_np(p.P_tilde), P * M / 0.5, **TOL)
    np.testing.assert_allclose(to_np(p.U), (G @ V.T) * M / 0.5, **TOL)


def test_softmax_family(B):
    (S,) = randn((3, 4, 5), seed=17)
    P = to_np(B.softmax(S))
    np.testing.assert_allclose(P, to_np(torch.softmax(torch.tensor(S), -1)), **TOL)
    np.testing.assert_allclose(to_np(B.softmax(S, axis=1)),
                               to_np(torch.softmax(torch.tensor(S), 1)), **TOL)
    H = -(P * np.log(P)).sum(-1)
    np.testing.assert_allclose(to_np(B.entropy(P)), H, **TOL)
    assert float(B.entropy(np.array([1.0, 0.0, 0.0]))) == 0.0
    np.testing.assert_allclose(float(B.entropy(np.full(6, 1 / 6))), math.log(6), **TOL)
    J = to_np(B.softmax_jacobian(P))
    J_ref = torch.autograd.functional.jacobian(lambda s: torch.softmax(s, -1),
                                               torch.tensor(S[0, 0]))
    np.testing.assert_allclose(J[0, 0], to_np(J_ref), **TOL)
    (U,) = randn((3, 4, 5), seed=18)
    np.testing.assert_allclose(to_np(B.softmax_vjp(P, U)),
                               np.einsum("...i,...ij->...j", U, J), **TOL)


def test_scores(B):
    Q, K = randn((3, 4), (5, 4), seed=19)
    mask = causal(3, 5)
    S = to_np(B.scores(Q, K, mask=mask, fill=-7.0))
    np.testing.assert_allclose(S, np.where(mask, Q @ K.T / 2, -7.0), **TOL)
