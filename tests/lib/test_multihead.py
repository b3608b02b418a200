"""attnlib multi-head layer: forward and per-head gradients against torch.nn.MultiheadAttention."""

import numpy as np
import pytest
from conftest import to_np

torch = pytest.importorskip("torch")


def _layer(seed=0, B=2, n=5, d=8):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(B, n, d))
    W_Q, W_K, W_V, W_O = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(4))
    G = rng.normal(size=(B, n, d))
    return X, W_Q, W_K, W_V, W_O, G


def _torch_reference(X, W_Q, W_K, W_V, W_O, G, H, mask=None):
    d = X.shape[-1]
    mha = torch.nn.MultiheadAttention(d, H, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.tensor(np.concatenate([W_Q.T, W_K.T, W_V.T])))
        mha.out_proj.weight.copy_(torch.tensor(W_O.T))
    Xt = torch.tensor(X, requires_grad=True)
    attn_mask = None if mask is None else torch.tensor(~mask)  # torch: True = not allowed
    Y, _ = mha(Xt, Xt, Xt, need_weights=False, attn_mask=attn_mask)
    (Y * torch.tensor(G)).sum().backward()
    w = mha.in_proj_weight.grad.numpy()
    grads = {"dX": Xt.grad.numpy(), "dW_Q": w[:d].T, "dW_K": w[d:2 * d].T, "dW_V": w[2 * d:].T,
             "dW_O": mha.out_proj.weight.grad.numpy().T}
    return Y.detach().numpy(), grads


@pytest.mark.parametrize("H", [1, 2, 4])
@pytest.mark.parametrize("causal", [False, True])
def test_forward_and_grads_match_torch_mha(B, H, causal):
    X, W_Q, W_K, W_V, W_O, G = _layer()
    n = X.shape[1]
    mask = np.tril(np.ones((n, n), bool)) if causal else None
    Y_ref, ref = _torch_reference(X, W_Q, W_K, W_V, W_O, G, H, mask)
    Y, _ = B.multihead_attention(X, W_Q, W_K, W_V, W_O, H=H, mask=mask)
    grads = B.multihead_attention_backward(G, X, W_Q, W_K, W_V, W_O, H=H, mask=mask)
    np.testing.assert_allclose(to_np(Y), Y_ref, rtol=0, atol=1e-12)
    for name, r in ref.items():
        np.testing.assert_allclose(to_np(getattr(grads, name)), r, rtol=0, atol=1e-12,
                                   err_msg=name)


def test_heads_add_at_X_and_fill_their_own_block(B):
    X, W_Q, W_K, W_V, _, _ = _layer(seed=1)
    H, d_k = 2, 4
    G = np.zeros(X.shape[:2] + (H * d_k,))
    G[..., :d_k] = np.random.default_rng(2).normal(size=X.shape[:2] + (d_k,))
    g = B.multihead_attention_backward(G, X, W_Q, W_K, W_V, H=H)
    assert np.all(to_np(g.dW_Q)[:, d_k:] == 0)  # head 1 got no upstream gradient
    assert np.linalg.norm(to_np(g.dW_Q)[:, :d_k]) > 0
    np.testing.assert_allclose(to_np(g.dX_heads).sum(0), to_np(g.dX), rtol=0, atol=1e-13)


def test_batch_examples_add_at_the_weights(B):
    X, W_Q, W_K, W_V, W_O, G = _layer(seed=3)
    full = B.multihead_attention_backward(G, X, W_Q, W_K, W_V, W_O, H=2)
    parts = [B.multihead_attention_backward(G[b], X[b], W_Q, W_K, W_V, W_O, H=2)
             for b in range(X.shape[0])]
    for name in ("dW_Q", "dW_K", "dW_V", "dW_O"):
        total = sum(to_np(getattr(p, name)) for p in parts)
        np.testing.assert_allclose(total, to_np(getattr(full, name)), rtol=0, atol=1e-12)


def test_bad_head_count_raises(B):
    X, W_Q, W_K, W_V, _, _ = _layer()
    with pytest.raises(ValueError, match="heads"):
        B.multihead_attention(X, W_Q, W_K, W_V, H=3)
