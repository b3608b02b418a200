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


def test_torch_uses_autograd_numpy_the_rule(monkeypatch):
    torch = pytest.importorskip("torch")
    from attnlib import numpy as N
    from attnlib import torch as T

    calls = []
    orig = torch.autograd.grad
    monkeypatch.setattr(torch.autograd, "grad", lambda *a, **k: calls.append(1) or orig(*a, **k))
    h_t = T.train_single_query(steps=30)
    assert len(calls) == 30
    h_n = N.train_single_query(steps=30)
    for x, y in zip(h_t, h_n, strict=True):
        np.testing.assert_allclose(to_np(x), y, rtol=1e-10, atol=1e-14)


def test_multiplier_grad_norms(B):
    Q, K, V, G = randn((4, 16), (8, 16), (8, 8), (4, 8), seed=0)
    g = B.multiplier_grad_norms(G, Q, K, V, [0.25, 1, 4, 64])
    dQ = to_np(g.dQ)
    assert dQ[-1] < 0.01 * dQ.max()  # Δ dies when P is one-hot ...
    assert to_np(g.dV)[-1] > to_np(g.dV)[0]  # ... while dV grows
    assert to_np(g.max_p)[-1] > 0.99
    p = B.attention_backward_parts(G, Q, K, V, scale=4 / 4.0)
    assert float(g.dK[2]) == pytest.approx(float(np.linalg.norm(to_np(p.dK))), rel=1e-12)
