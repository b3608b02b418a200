"""Tests for the modules of Part II's second half (double-scale bug, row collapse, entropy monitor),
against references they did not write: torch autograd and central differences."""

import math

import numpy as np
import pytest
import torch

from attnlib import torch as T
from attnlib.core import collapse, double_scale
from attnlib.numpy import ops as xp


def _problem(n=3, m=5, d_k=4, d_v=2, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in ((n, d_v), (n, d_k), (m, d_k), (m, d_v))]


def _autograd(G, Q, K, V, scale):
    Qt, Kt, Vt = (torch.tensor(x, requires_grad=True) for x in (Q, K, V))
    P = torch.softmax(scale * Qt @ Kt.T, dim=-1)
    (torch.tensor(G) * (P @ Vt)).sum().backward()
    return [t.grad.numpy() for t in (Qt, Kt, Vt)]


@pytest.mark.parametrize("d_k", [4, 16, 64])
def test_folded_backward_matches_autograd(d_k):
    G, Q, K, V = _problem(d_k=d_k)
    ref = _autograd(G, Q, K, V, 1 / math.sqrt(d_k))
    for ours, want in zip(double_scale.attention_backward_folded(xp, G, Q, K, V), ref, strict=True):
        np.testing.assert_allclose(ours, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("d_k", [4, 64])
def test_double_scale_bug_shrinks_only_dK(d_k):
    G, Q, K, V = _problem(d_k=d_k, seed=1)
    good = double_scale.attention_backward_folded(xp, G, Q, K, V)
    bad = double_scale.attention_backward_folded(xp, G, Q, K, V, double_scale=True)
    np.testing.assert_allclose(bad[0], good[0], rtol=1e-15)
    np.testing.assert_allclose(bad[2], good[2], rtol=1e-15)
    np.testing.assert_allclose(bad[1] * math.sqrt(d_k), good[1], rtol=1e-13)


def test_double_scale_with_torch_backend():
    G, Q, K, V = _problem()
    good = double_scale.attention_backward_folded(xp, G, Q, K, V)
    got = double_scale.attention_backward_folded(T.ops, *(torch.tensor(x) for x in (G, Q, K, V)))
    for a, b in zip(got, good, strict=True):
        np.testing.assert_allclose(a.numpy(), b, rtol=1e-13)


def test_normalized_entropy_bounds_and_reference():
    P = np.array([[0.25, 0.25, 0.25, 0.25], [1.0, 0.0, 0.0, 0.0]])
    assert collapse.normalized_entropy(xp, P) == pytest.approx(0.5)
    rng = np.random.default_rng(3)
    P = torch.softmax(torch.tensor(rng.standard_normal((2, 3, 5, 7))), -1)
    ref = (-(P * P.log()).sum(-1) / math.log(7)).mean(-1).numpy()
    np.testing.assert_allclose(collapse.normalized_entropy(xp, P.numpy()), ref, rtol=1e-13)


def test_row_collapse_matches_autograd_rows():
    G, Q, K, V = _problem(n=4, m=8, d_k=16, d_v=8, seed=2)
    stats = collapse.row_collapse(xp, G, Q, K, V, [0.5, 4.0, 64.0])
    assert stats.dQ.shape == (3, 4)
    for k, alpha in enumerate([0.5, 4.0, 64.0]):
        dQ = _autograd(G, Q, K, V, alpha / 4.0)[0]
        # rtol 1e-6: near one-hot rows, U − r cancels
        np.testing.assert_allclose(stats.dQ[k], np.linalg.norm(dQ, axis=-1), rtol=1e-6, atol=1e-300)
        S = torch.tensor(alpha / 4.0 * Q @ K.T, requires_grad=True)
        (torch.tensor(G) * (torch.softmax(S, -1) @ torch.tensor(V))).sum().backward()
        np.testing.assert_allclose(stats.delta[k], S.grad.norm(dim=-1).numpy(), rtol=1e-6,
                                   atol=1e-300)
    assert (np.diff(stats.norm_entropy, axis=0) <= 0).all()  # sharper rows, lower entropy


def test_monitor_collapsed_head_stays_collapsed():
    run = T.train_monitored(collapse_head=1, steps=40)
    assert run.loss.shape == (40,) and run.entropy.shape == (40, 4)
    assert run.loss[-1] < run.loss[0]
    assert run.entropy[:, 1].max() < 0.1 < run.entropy[:, [0, 2, 3]].min()


def test_monitor_logged_grad_matches_autograd_at_step0():
    run = T.train_monitored(steps=1, heads=2, d=8, n=4, batch=2)
    assert run.grad_qk.shape == (1, 2) and (run.grad_qk > 0).all()
    # Same seed, same first step: deterministic.
    again = T.train_monitored(steps=1, heads=2, d=8, n=4, batch=2)
    np.testing.assert_array_equal(run.grad_qk, again.grad_qk)


def test_monitor_logged_weight_norms_show_the_gain_at_step0():
    plain = T.train_monitored(steps=1)
    grown = T.train_monitored(collapse_head=1, gain=8.0, steps=1)
    assert grown.weight_qk.shape == (1, 4)
    np.testing.assert_allclose(grown.weight_qk[0, 1], 8.0 * plain.weight_qk[0, 1], rtol=1e-12)
    np.testing.assert_array_equal(grown.weight_qk[0, [0, 2, 3]], plain.weight_qk[0, [0, 2, 3]])


def test_monitor_rejects_bad_arguments():
    with pytest.raises(ValueError, match="multiple of heads"):
        T.train_monitored(d=10, heads=4, steps=1)
    with pytest.raises(ValueError, match="collapse_head"):
        T.train_monitored(collapse_head=7, steps=1)
