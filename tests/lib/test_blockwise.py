"""Blockwise attention (online softmax forward, lse backward) against references it did not write:
the whole-matrix ``attention``/``attention_backward``, torch autograd, and SDPA."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlib import numpy as A
from attnlib import torch as T

BACKENDS = {"numpy": A, "torch": T}
TOL = dict(rtol=1e-9, atol=1e-11)


def to_np(x):
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


def as_backend(name, *xs):
    if name == "numpy":
        return xs
    return tuple(torch.from_numpy(np.ascontiguousarray(x)) for x in xs)


def problem(seed, batch, n, m, d_k, d_v):
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal(batch + (n, d_k))
    K = rng.standard_normal(batch + (m, d_k))
    V = rng.standard_normal(batch + (m, d_v))
    G = rng.standard_normal(batch + (n, d_v))
    return Q, K, V, G


def causal(n, m):
    """Query i sees keys j ≤ i + max(m − n, 0): every query sees key 0, the last all when m ≥ n."""
    return np.tril(np.ones((n, m), bool), k=max(m - n, 0))


def blockwise(B, G, Q, K, V, bq, bk, **kw):
    O, lse = B.attention_blockwise(Q, K, V, block_q=bq, block_k=bk, **kw)
    grads = B.attention_blockwise_backward(G, Q, K, V, O, lse, block_q=bq, block_k=bk, **kw)
    return O, lse, grads


def check_against_whole_matrix(B, G, Q, K, V, bq, bk, **kw):
    O, lse, grads = blockwise(B, G, Q, K, V, bq, bk, **kw)
    O_ref, P_ref = B.attention(Q, K, V, **kw)
    _, lse_ref = B.attention_lse(Q, K, V, **kw)
    np.testing.assert_allclose(to_np(O), to_np(O_ref), **TOL)
    np.testing.assert_allclose(to_np(lse), to_np(lse_ref), **TOL)
    for g, g_ref in zip(grads, B.attention_backward(G, Q, K, V, **kw), strict=True):
        assert tuple(g.shape) == tuple(g_ref.shape)
        np.testing.assert_allclose(to_np(g), to_np(g_ref), **TOL)


# ------------------------------------------------------------- against the whole-matrix path ----


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n, m, bq, bk", [
    (8, 12, 4, 4),      # blocks divide n and m
    (8, 12, 3, 5),      # they do not
    (8, 12, 1, 1),      # one score at a time
    (8, 12, 8, 12),     # one block: the two-pass softmax
    (8, 12, 100, 100),  # blocks larger than the matrix
    (1, 1, 2, 3),
])
@pytest.mark.parametrize("masked", [False, True])
def test_matches_attention(backend, n, m, bq, bk, masked):
    Q, K, V, G = as_backend(backend, *problem(0, (2,), n, m, 5, 3))
    kw = {"mask": causal(n, m)} if masked else {}
    check_against_whole_matrix(BACKENDS[backend], G, Q, K, V, bq, bk, **kw)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    batch=st.sampled_from([(), (2,), (2, 3)]),
    n=st.integers(1, 13), m=st.integers(1, 13), d_k=st.integers(1, 6), d_v=st.integers(1, 5),
    bq=st.integers(1, 9), bk=st.integers(1, 9),
    mask_kind=st.sampled_from(["none", "causal", "random"]),
    backend=st.sampled_from(list(BACKENDS)),
)
def test_random_shapes(seed, batch, n, m, d_k, d_v, bq, bk, mask_kind, backend):
    Q, K, V, G = problem(seed, batch, n, m, d_k, d_v)
    kw = {}
    if mask_kind == "causal":
        kw["mask"] = causal(n, m)
    elif mask_kind == "random":
        mask = np.random.default_rng(seed + 1).random(batch + (n, m)) < 0.6
        mask[..., 0] = True  # no dead rows here (they are tested below)
        kw["mask"] = mask
    Q, K, V, G = as_backend(backend, Q, K, V, G)
    check_against_whole_matrix(BACKENDS[backend], G, Q, K, V, bq, bk, **kw)


@pytest.mark.parametrize("backend", BACKENDS)
def test_broadcast_batch_axes(backend):
    """Q (2, 1, n, d_k) against K, V (1, 3, m, ·): gradients summed back to each input's shape."""
    rng = np.random.default_rng(3)
    Q = rng.standard_normal((2, 1, 6, 4))
    K = rng.standard_normal((1, 3, 9, 4))
    V = rng.standard_normal((1, 3, 9, 2))
    G = rng.standard_normal((2, 3, 6, 2))
    Q, K, V, G = as_backend(backend, Q, K, V, G)
    check_against_whole_matrix(BACKENDS[backend], G, Q, K, V, 4, 4, mask=causal(6, 9))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fill", [-math.inf, -1e9, -3.0])
def test_fully_masked_blocks(backend, fill):
    """A block-diagonal mask: whole blocks masked (skipped with -inf), the rest computed."""
    n, m, b = 12, 12, 4
    mask = np.kron(np.eye(3, dtype=bool), np.ones((b, b), bool))
    mask[:, 0] = True  # and one live column, so that skipping and not skipping both occur
    Q, K, V, G = as_backend(backend, *problem(4, (), n, m, 4, 3))
    check_against_whole_matrix(BACKENDS[backend], G, Q, K, V, b, b, mask=mask, fill=fill)
    check_against_whole_matrix(BACKENDS[backend], G, Q, K, V, 3, 5, mask=mask, fill=fill)


@pytest.mark.parametrize("backend", BACKENDS)
def test_dead_row_finite_fill_is_uniform(backend):
    mask = causal(6, 6)
    mask[2] = False
    Q, K, V, G = as_backend(backend, *problem(5, (), 6, 6, 4, 3))
    B, kw = BACKENDS[backend], dict(mask=mask, fill=-1e9)
    O, lse, grads = blockwise(B, G, Q, K, V, 4, 4, **kw)
    O_ref, _ = B.attention(Q, K, V, **kw)
    np.testing.assert_allclose(to_np(O), to_np(O_ref), **TOL)
    np.testing.assert_allclose(to_np(O)[2], to_np(V).mean(axis=0), **TOL)  # uniform row
    # exp(S − lse) with S = −1e9 and lse = −1e9 + log 6 keeps only ~7 of float64's 16 digits
    # (ulp(1e9) ≈ 1.2e-7): the same in the whole-matrix lse backward, hence its tolerance.
    lse_grads = B.attention_backward_lse(G, Q, K, V, O, lse, **kw)
    for g, g_lse, g_ref in zip(grads, lse_grads, B.attention_backward(G, Q, K, V, **kw),
                               strict=True):
        np.testing.assert_allclose(to_np(g), to_np(g_lse), **TOL)
        np.testing.assert_allclose(to_np(g), to_np(g_ref), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("backend", BACKENDS)
def test_dead_row_minus_inf_is_nan_like_attention(backend):
    mask = causal(6, 6)
    mask[2] = False
    Q, K, V, _ = as_backend(backend, *problem(6, (), 6, 6, 4, 3))
    B = BACKENDS[backend]
    with pytest.warns(RuntimeWarning, match="every key is masked"):
        O, _ = B.attention_blockwise(Q, K, V, block_q=4, block_k=2, mask=mask)
    with pytest.warns(RuntimeWarning):
        O_ref, _ = B.attention(Q, K, V, mask=mask)
    O, O_ref = to_np(O), to_np(O_ref)
    assert np.isnan(O[2]).all() and np.isnan(O_ref[2]).all()
    live = np.arange(6) != 2
    np.testing.assert_allclose(O[live], O_ref[live], **TOL)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("masked", [False, True])
def test_dropout(backend, masked):
    n, m, p = 7, 10, 0.3
    M = np.random.default_rng(7).random((2, n, m)) >= p
    Q, K, V, G = as_backend(backend, *problem(7, (2,), n, m, 4, 3))
    kw = dict(dropout_mask=M, p_drop=p)
    if masked:
        kw["mask"] = causal(n, m)
    check_against_whole_matrix(BACKENDS[backend], G, Q, K, V, 3, 4, **kw)


# ------------------------------------------------------------------ against torch and SDPA ----


def torch_reference(Q, K, V, G, mask=None, scale=None):
    """O by plain torch ops and (dQ, dK, dV) by autograd."""
    Q, K, V = (x.detach().clone().requires_grad_(True) for x in (Q, K, V))
    scale = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    S = scale * Q @ K.transpose(-1, -2)
    if mask is not None:
        S = S.masked_fill(~mask, -math.inf)
    O = torch.softmax(S, dim=-1) @ V
    O.backward(G)
    return O.detach(), (Q.grad, K.grad, V.grad)


def sdpa_reference(Q, K, V, G, mask=None, scale=None):
    Q, K, V = (x.detach().clone().requires_grad_(True) for x in (Q, K, V))
    O = torch.nn.functional.scaled_dot_product_attention(Q, K, V, attn_mask=mask, scale=scale)
    O.backward(G)
    return O.detach(), (Q.grad, K.grad, V.grad)


@pytest.mark.parametrize("reference", [torch_reference, sdpa_reference])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("bq, bk", [(4, 4), (3, 5), (16, 1)])
def test_matches_torch(reference, backend, masked, bq, bk):
    n, m = 9, 13
    Qn, Kn, Vn, Gn = problem(8, (2, 3), n, m, 8, 4)
    mask = causal(n, m) if masked else None
    scale = 0.7
    O_ref, grads_ref = reference(*(torch.from_numpy(x) for x in (Qn, Kn, Vn, Gn)),
                                 mask=None if mask is None else torch.from_numpy(mask), scale=scale)
    Q, K, V, G = as_backend(backend, Qn, Kn, Vn, Gn)
    O, _, grads = blockwise(BACKENDS[backend], G, Q, K, V, bq, bk, mask=mask, scale=scale)
    np.testing.assert_allclose(to_np(O), O_ref.numpy(), **TOL)
    for g, g_ref in zip(grads, grads_ref, strict=True):
        np.testing.assert_allclose(to_np(g), g_ref.numpy(), **TOL)


def test_autograd_through_the_online_forward():
    """The online forward is differentiable in torch: autograd of Σ G ⊙ O equals our backward."""
    Qn, Kn, Vn, Gn = problem(9, (2,), 7, 10, 4, 3)
    Q, K, V = (torch.from_numpy(x).requires_grad_(True) for x in (Qn, Kn, Vn))
    G = torch.from_numpy(Gn)
    O, lse = T.attention_blockwise(Q, K, V, block_q=3, block_k=4, mask=causal(7, 10))
    auto = torch.autograd.grad((O * G).sum(), (Q, K, V))
    ours = T.attention_blockwise_backward(G, Q.detach(), K.detach(), V.detach(), O.detach(),
                                          lse.detach(), block_q=3, block_k=4, mask=causal(7, 10))
    for g, g_ref in zip(ours, auto, strict=True):
        np.testing.assert_allclose(g.numpy(), g_ref.numpy(), **TOL)


# ------------------------------------------------------------------------ dtypes and steps ----


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_stays_float32_and_close(backend):
    Q, K, V, G = problem(10, (), 16, 40, 8, 4)
    B = BACKENDS[backend]
    O64, lse64, g64 = blockwise(B, *as_backend(backend, G, Q, K, V), 5, 7)
    O32, lse32, g32 = blockwise(B, *as_backend(backend, *(x.astype(np.float32)
                                                        for x in (G, Q, K, V))), 5, 7)
    for x32, x64 in zip((O32, lse32, *g32), (O64, lse64, *g64), strict=True):
        assert to_np(x32).dtype == np.float32
        np.testing.assert_allclose(to_np(x32), to_np(x64), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_steps_are_the_attention_of_the_keys_seen(backend):
    n, m, bk = 5, 11, 3
    Qn, Kn, Vn, _ = problem(11, (), n, m, 4, 2)
    B = BACKENDS[backend]
    Q, K, V = as_backend(backend, Qn, Kn, Vn)
    steps = B.attention_blockwise_steps(Q, K, V, block_k=bk)
    assert steps.stop == (3, 6, 9, 11)
    S = Qn @ Kn.T / 2.0  # scale 1/sqrt(4)
    for k, stop in enumerate(steps.stop):
        s_max_ref = S[:, :stop].max(axis=1)
        l_ref = np.exp(S[:, :stop] - s_max_ref[:, None]).sum(axis=1)
        O_ref, _ = A.attention(Qn, Kn[:stop], Vn[:stop])
        np.testing.assert_allclose(to_np(steps.s_max[k]), s_max_ref, **TOL)
        np.testing.assert_allclose(to_np(steps.l[k]), l_ref, **TOL)
        np.testing.assert_allclose(to_np(steps.acc[k]), l_ref[:, None] * O_ref, **TOL)
        np.testing.assert_allclose(to_np(steps.O[k]), O_ref, **TOL)


# ------------------------------------------------------------------------------ bad input ----


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bad", [0, -2, 2.5, "3", None])
def test_bad_block_size(backend, bad):
    Q, K, V, G = as_backend(backend, *problem(12, (), 4, 4, 2, 2))
    B = BACKENDS[backend]
    with pytest.raises(ValueError, match="block_q"):
        B.attention_blockwise(Q, K, V, block_q=bad, block_k=2)
    with pytest.raises(ValueError, match="block_k"):
        B.attention_blockwise_backward(G, Q, K, V, G, Q[:, 0], block_q=2, block_k=bad)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_saved_tensors(backend):
    Q, K, V, G = as_backend(backend, *problem(13, (), 4, 6, 2, 3))
    B = BACKENDS[backend]
    O, lse = B.attention_blockwise(Q, K, V, block_q=2, block_k=2)
    with pytest.raises(ValueError, match="O must be shaped"):
        B.attention_blockwise_backward(G, Q, K, V, O[:3], lse, block_q=2, block_k=2)
    with pytest.raises(ValueError, match="lse must be shaped"):
        B.attention_blockwise_backward(G, Q, K, V, O, lse[:3], block_q=2, block_k=2)
    with pytest.raises(ValueError, match="G must be shaped"):
        B.attention_blockwise_backward(G[:, :2], Q, K, V, O, lse, block_q=2, block_k=2)
    with pytest.raises(ValueError, match="mask"):
        B.attention_blockwise(Q, K, V, block_q=2, block_k=2, mask=np.ones((3, 6), bool))
    with pytest.raises(ValueError, match="d_k"):
        B.attention_blockwise(Q, K[:, :1], V, block_q=2, block_k=2)


# ------------------------------------------------------------- block grid and measurements ----


def test_block_grid_marks_skipped_and_partial_blocks():
    from attnlib.core.blockwise import block_grid

    mask = causal(8, 8)
    np.testing.assert_array_equal(block_grid(8, 8, block_q=4, block_k=4, mask=mask),
                                  [[1, 0], [2, 1]])
    np.testing.assert_array_equal(block_grid(8, 8, block_q=4, block_k=4, mask=mask, fill=-1e9),
                                  [[1, 1], [2, 1]])  # a finite fill still contributes
    assert block_grid(5, 7, block_q=2, block_k=3).shape == (3, 3)
    assert (block_grid(5, 7, block_q=2, block_k=3) == 2).all()


def test_peak_memory_whole_quadratic_blockwise_linear():
    from attnlib import measure

    run = measure.attention_peak_memory([256, 512, 1024], d=16, block=64)
    assert (run.whole[1:] / run.whole[:-1] > 3.5).all()  # n² (P and U, n×n each)
    per_row = np.polyfit(run.n, run.blockwise, 1)[0]
    out_per_row = (4 * 16 + 2) * 8  # O, dQ, dK, dV rows, lse and r
    assert abs(per_row - out_per_row) < 0.05 * out_per_row
    assert (run.blockwise < run.whole).all()
