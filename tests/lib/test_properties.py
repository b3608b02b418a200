"""Properties of the backward over random shapes, masks and dropout masks (hypothesis)."""

import math

import numpy as np
import pytest
from conftest import to_np
from hypothesis import given
from hypothesis import strategies as st

from attnlib import numpy as N

torch = pytest.importorskip("torch")
from attnlib import torch as T  # noqa: E402

TOL = dict(rtol=1e-10, atol=1e-12)


@st.composite
def problems(draw, masked=None, dropout=None, finite_fill=None):
    """Random Q, K, V, G (float64), and maybe a mask (no dead rows), a fill and a dropout mask."""
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    n, m = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    d_k, d_v = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    Q, K = rng.standard_normal(batch + (n, d_k)), rng.standard_normal(batch + (m, d_k))
    V, G = rng.standard_normal(batch + (m, d_v)), rng.standard_normal(batch + (n, d_v))
    kw = {"scale": draw(st.one_of(st.none(), st.floats(0.1, 3), st.floats(-3, -0.1)))}
    if draw(st.booleans()) if masked is None else masked:
        mask = rng.random((n, m)) > 0.5
        mask[np.arange(n), rng.integers(0, m, n)] = True  # every row keeps a key
        kw["mask"] = mask
        if draw(st.booleans()) if finite_fill is None else finite_fill:
            kw["fill"] = draw(st.sampled_from([-1e9, -10.0, -1.0, 0.0, 2.5]))
    if draw(st.booleans()) if dropout is None else dropout:
        kw["p_drop"] = draw(st.sampled_from([0.0, 0.1, 0.5, 0.9]))
        kw["dropout_mask"] = rng.random(batch + (n, m)) > 0.4
    return Q, K, V, G, kw


@given(problems())
def test_delta_rows_sum_to_zero(prob):
    Q, K, V, G, kw = prob
    p = N.attention_backward_parts(G, Q, K, V, **kw)
    scale = np.abs(p.P * (p.U - p.r[..., None])).sum(-1) + 1e-300
    assert np.all(np.abs(p.delta.sum(-1)) <= 1e-13 * np.maximum(scale, 1))


@given(problems(finite_fill=False), st.data())
def test_row_shift_leaves_gradients_unchanged(prob, data):
    """S_ij + c_i via an extra feature: Q' = [Q, c/scale], K' = [K, 1]."""
    Q, K, V, G, kw = prob
    scale = kw.pop("scale")
    scale = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    c = np.array(data.draw(st.lists(st.floats(-50, 50), min_size=Q.shape[-2],
                                    max_size=Q.shape[-2])))
    Q2 = np.concatenate([Q, np.broadcast_to(c[:, None] / scale, Q.shape[:-1] + (1,))], -1)
    K2 = np.concatenate([K, np.ones(K.shape[:-1] + (1,))], -1)
    dQ, dK, dV = N.attention_backward(G, Q, K, V, scale=scale, **kw)
    dQ2, dK2, dV2 = N.attention_backward(G, Q2, K2, V, scale=scale, **kw)
    tol = dict(rtol=1e-8, atol=1e-10 * (1 + np.abs(c).max() / abs(scale)))
    np.testing.assert_allclose(dQ2[..., :-1], dQ, **tol)
    np.testing.assert_allclose(dK2[..., :-1], dK, **tol)
    np.testing.assert_allclose(dV2, dV, **tol)


@given(problems(masked=True, finite_fill=False))
def test_minus_inf_fill_gives_zero_delta_where_masked(prob):
    Q, K, V, G, kw = prob
    p = N.attention_backward_parts(G, Q, K, V, **kw)
    mask = np.broadcast_to(kw["mask"], p.delta.shape)
    assert np.all(p.delta[~mask] == 0) and np.all(p.P[~mask] == 0)


@given(problems(dropout=True))
def test_dropped_positions_get_minus_P_r(prob):
    Q, K, V, G, kw = prob
    p = N.attention_backward_parts(G, Q, K, V, **kw)
    dropped = ~np.broadcast_to(kw["dropout_mask"], p.delta.shape)
    expected = -p.P * p.r[..., None]
    np.testing.assert_allclose(p.delta[dropped], np.broadcast_to(expected, p.delta.shape)[dropped],
                               **TOL)


@given(problems())
def test_lse_backward_equals_saved_P_backward(prob):
    Q, K, V, G, kw = prob
    O, P = N.attention(Q, K, V, **kw)
    O2, lse = N.attention_lse(Q, K, V, **kw)
    np.testing.assert_allclose(O2, O, **TOL)
    for a, b in zip(N.attention_backward_lse(G, Q, K, V, O2, lse, **kw),
                    N.attention_backward(G, Q, K, V, P=P, **kw), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


@given(problems())
def test_numpy_equals_torch_and_torch_autograd(prob):
    Q, K, V, G, kw = prob
    O, P = N.attention(Q, K, V, **kw)
    grads = N.attention_backward(G, Q, K, V, **kw)
    tkw = {k: torch.as_tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    q, k, v = (torch.tensor(x, requires_grad=True) for x in (Q, K, V))
    O_t, P_t = T.attention(q, k, v, **tkw)  # torch autograd through the shared forward
    O_t.backward(torch.as_tensor(G))
    np.testing.assert_allclose(to_np(O_t), O, **TOL)
    np.testing.assert_allclose(to_np(P_t), P, **TOL)
    for a, b, c in zip(grads, T.attention_backward(*map(torch.as_tensor, (G, Q, K, V)), **tkw),
                       (q.grad, k.grad, v.grad), strict=True):
        np.testing.assert_allclose(to_np(b), a, **TOL)
        np.testing.assert_allclose(to_np(c), a, rtol=1e-9, atol=1e-11)
