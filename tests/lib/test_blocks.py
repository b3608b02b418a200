"""LayerNorm, the residual blocks and the stack gradient norms against torch autograd."""

import numpy as np
import pytest
from conftest import randn, to_np

torch = pytest.importorskip("torch")
F = torch.nn.functional
TOL = dict(rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("eps", [0.0, 1e-5, 0.3])
def test_layernorm_vs_torch(B, eps):
    x, G = randn((3, 4, 7), (3, 4, 7), seed=1)
    y, sigma = B.layernorm(x, eps=eps)
    np.testing.assert_allclose(to_np(y), to_np(F.layer_norm(torch.tensor(x), (7,), eps=eps)),
                               **TOL)
    np.testing.assert_allclose(to_np(sigma), np.sqrt(x.var(-1) + eps), **TOL)
    J = to_np(B.layernorm_jacobian(x, eps=eps))
    J_ref = torch.autograd.functional.jacobian(
        lambda v: F.layer_norm(v, (7,), eps=eps), torch.tensor(x[1, 2]))
    np.testing.assert_allclose(J[1, 2], to_np(J_ref), **TOL)
    yy = to_np(y)[1, 2]
    formula = (np.eye(7) - 1 / 7 - np.outer(yy, yy) / 7) / to_np(sigma)[1, 2]
    np.testing.assert_allclose(J[1, 2], formula, **TOL)
    t = torch.tensor(x, requires_grad=True)
    F.layer_norm(t, (7,), eps=eps).backward(torch.tensor(G))
    np.testing.assert_allclose(to_np(B.layernorm_backward(G, x, eps=eps)), to_np(t.grad), **TOL)
    np.testing.assert_allclose(np.einsum("...i,...ij->...j", G, J),
                               to_np(t.grad), **TOL)


def torch_block(kind, X, W, mask, eps):
    W_Q, W_K, W_V, W_O = W

    def attn(Z):
        O = F.scaled_dot_product_attention(Z @ W_Q, Z @ W_K, Z @ W_V, attn_mask=mask)
        return O @ W_O

    def ln(Z):
        return F.layer_norm(Z, Z.shape[-1:], eps=eps)

    return {"self_attention": attn, "pre_ln_block": lambda Z: Z + attn(ln(Z)),
            "post_ln_block": lambda Z: ln(Z + attn(Z))}[kind](X)


@pytest.mark.parametrize("kind", ["self_attention", "pre_ln_block", "post_ln_block"])
@pytest.mark.parametrize("masked", [False, True])
def test_blocks_vs_torch_autograd(B, kind, masked):
    X, G = randn((2, 5, 6), (2, 5, 6), seed=2)
    W = [to_np(w) for w in B.block_weights(6, 1, d_k=4, d_v=3, seed=3)[0]]
    mask = np.tril(np.ones((5, 5), bool)) if masked else None
    kw = dict(mask=mask) if kind == "self_attention" else dict(mask=mask, eps=1e-5)
    Y = getattr(B, kind)(X, W, **kw)
    dX, dW = getattr(B, kind + "_backward")(G, X, W, **kw)
    tX = torch.tensor(X, requires_grad=True)
    tW = [torch.tensor(w, requires_grad=True) for w in W]
    Y_ref = torch_block(kind, tX, tW, None if mask is None else torch.tensor(mask), 1e-5)
    Y_ref.backward(torch.tensor(G))
    np.testing.assert_allclose(to_np(Y), to_np(Y_ref), **TOL)
    np.testing.assert_allclose(to_np(dX), to_np(tX.grad), rtol=1e-9, atol=1e-11)
    for got, ref in zip(dW, tW, strict=True):
        np.testing.assert_allclose(to_np(got), to_np(ref.grad), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("pre_ln", [True, False])
def test_stack_grad_norms(B, pre_ln):
    from attnlib import numpy as N

    (X,) = randn((8, 16), seed=4)
    weights = N.block_weights(16, 24, seed=5)
    norms = to_np(B.stack_grad_norms(X, weights, pre_ln=pre_ln))
    assert norms.shape == (25,) and np.all(np.isfinite(norms)) and np.all(norms > 0)
    np.testing.assert_allclose(norms, N.stack_grad_norms(X, weights, pre_ln=pre_ln), **TOL)
    # the top entry is ‖G‖; the next one matches torch autograd through the last block
    G = np.random.default_rng(0).standard_normal(X.shape)
    np.testing.assert_allclose(norms[-1], np.linalg.norm(G), **TOL)
    xs = [torch.tensor(X)]
    kind = "pre_ln_block" if pre_ln else "post_ln_block"
    for W in weights[:-1]:
        xs.append(torch_block(kind, xs[-1], [torch.tensor(w) for w in W], None, 1e-5))
    x = xs[-1].clone().requires_grad_(True)
    torch_block(kind, x, [torch.tensor(w) for w in weights[-1]], None, 1e-5).backward(
        torch.tensor(G))
    np.testing.assert_allclose(norms[-2], float(x.grad.norm()), rtol=1e-9)


def test_stack_grad_norms_fast_enough():
    import time

    from attnlib import numpy as N

    (X,) = randn((16, 32), seed=6)
    weights = N.block_weights(32, 48)
    t = time.perf_counter()
    N.stack_grad_norms(X, weights, pre_ln=True, mask=np.tril(np.ones((16, 16), bool)))
    assert time.perf_counter() - t < 2.0


def test_pre_ln_keeps_the_identity_path(B):
    """With W_O = 0 the attention branch is 0: pre-LN's ∂L/∂X is G itself; post-LN's is J_LNᵀ G."""
    X, G = randn((4, 6), (4, 6), seed=7)
    W = [to_np(w) for w in B.block_weights(6, 1)[0]]
    W[3] = np.zeros_like(W[3])
    dX, _ = B.pre_ln_block_backward(G, X, W)
    np.testing.assert_allclose(to_np(dX), G, **TOL)
    dX, _ = B.post_ln_block_backward(G, X, W)
    np.testing.assert_allclose(to_np(dX), to_np(B.layernorm_backward(G, X, eps=1e-5)), **TOL)


def test_gradcheck_function(B):
    (x,) = randn((3, 5), seed=8)
    G = np.random.default_rng(9).standard_normal((3, 5))

    def loss(x):
        return float((to_np(B.layernorm(x)[0]) * G).sum())

    worst = B.gradcheck(loss, [x], [B.layernorm_backward(G, x)])
    assert len(worst) == 1 and worst[0] < 1e-7
    (num,) = B.numerical_gradient(loss, [x])
    np.testing.assert_allclose(to_np(num), to_np(B.layernorm_backward(G, x)), rtol=1e-6,
                               atol=1e-9)
    assert B.gradcheck(loss, [x], [np.zeros((3, 5))])[0] == pytest.approx(1.0)
