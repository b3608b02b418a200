"""The first article's experiments in both backends."""

import numpy as np
import pytest
from conftest import randn, to_np


def test_gamma_generalises_scaled(B):
    a = B.train_single_query(scaled=True, steps=20)
    b = B.train_single_query(scaled=False, gamma=0.5, steps=20)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(to_np(x), to_np(y))
    c = B.train_single_query(gamma=0.25, steps=5, d_k=16, m=4, target=1, seed=3)
    assert all(len(x) == 5 for x in c)
    assert len(B.train_single_query(steps=0).loss) == 0


def test_one_gradient_in_both_backends_autograd_on_request(monkeypatch):
    """The hand-written rule in both backends; torch autograd only with autograd=True."""
    torch = pytest.importorskip("torch")
    from attnlib import numpy as N
    from attnlib import torch as T

    calls = []
    orig = torch.autograd.grad
    monkeypatch.setattr(torch.autograd, "grad", lambda *a, **k: calls.append(1) or orig(*a, **k))
    h_n = N.train_single_query(steps=30)
    h_t = T.train_single_query(steps=30)
    assert not calls
    for x, y in zip(h_t, h_n, strict=True):
        np.testing.assert_allclose(to_np(x), y, rtol=1e-12, atol=1e-15)  # the same steps
    h_auto = T.train_single_query(steps=30, autograd=True)
    assert len(calls) == 30
    for x, y in zip(h_auto, h_n, strict=True):
        np.testing.assert_allclose(to_np(x), y, rtol=1e-10, atol=1e-14)
    with pytest.raises(ValueError, match="torch backend"):
        N.train_single_query(steps=1, autograd=True)
    with pytest.raises(ValueError, match="torch backend"):
        N.train_score_drift(steps=1, autograd=True)


def test_single_query_problem_is_the_articles():
    from attnlib import numpy as N
    from attnlib import pure

    K, V, q = (np.array(x) for x in pure.single_query_problem(seed=5, d_k=6, d_v=3, m=4))
    h = N.train_single_query(steps=1, seed=5, d_k=6, d_v=3, m=4, target=2, gamma=0.5)
    p = np.exp(K @ q / 6**0.5)
    p /= p.sum()
    residual = p @ V - V[2]
    assert h.loss[0] == pytest.approx(0.5 * residual @ residual, rel=1e-14)
    assert h.p_target[0] == pytest.approx(p[2], rel=1e-14)


def test_multiplier_grad_norms(B):
    Q, K, V, G = randn((4, 16), (8, 16), (8, 8), (4, 8), seed=0)
    g = B.multiplier_grad_norms(G, Q, K, V, [0.25, 1, 4, 64])
    dQ = to_np(g.dQ)
    assert dQ[-1] < 0.01 * dQ.max()  # Δ dies when P is one-hot ...
    assert to_np(g.dV)[-1] > to_np(g.dV)[0]  # ... while dV grows
    assert to_np(g.max_p)[-1] > 0.99
    p = B.attention_backward_parts(G, Q, K, V, scale=4 / 4.0)
    assert float(g.dK[2]) == pytest.approx(float(np.linalg.norm(to_np(p.dK))), rel=1e-12)


def test_multiplier_grad_norms_masks_as_attention_does(B):
    """mask and fill mean what they mean in ``attention`` (no fill chosen behind the caller)."""
    Q, K, V, G = randn((4, 16), (8, 16), (8, 8), (4, 8), seed=1)
    mask = np.tril(np.ones((4, 8), dtype=bool))
    for fill in (-np.inf, -1e9, -3.0):
        g = B.multiplier_grad_norms(G, Q, K, V, [1, 8], mask=mask, fill=fill)
        for k, alpha in enumerate([1, 8]):
            dQ, dK, dV = B.attention_backward(G, Q, K, V, scale=alpha / 4.0, mask=mask, fill=fill)
            assert float(g.dQ[k]) == pytest.approx(float(np.linalg.norm(to_np(dQ))), rel=1e-12)
            assert float(g.dV[k]) == pytest.approx(float(np.linalg.norm(to_np(dV))), rel=1e-12)
