"""Masks, fully masked rows and grouped-query attention against references attnlib did not write:
``torch.nn.functional.scaled_dot_product_attention`` (boolean and float ``attn_mask``,
``is_causal``, ``enable_gqa``) with torch autograd, and autograd through a plain torch softmax.

Both backends, the three families (whole matrix, LSE, blockwise), float32 and float64.
torch 2.13's SDPA returns O = 0 and zero gradients from a fully masked row (checked below), which
is ``fully_masked="zero"``; ``"nan"`` is the plain softmax's 0/0.
"""

import math
import warnings

import numpy as np
import pytest
from conftest import to_np

torch = pytest.importorskip("torch")
F = torch.nn.functional

from attnlib import numpy as A  # noqa: E402
from attnlib import torch as T  # noqa: E402

BACKENDS = {"numpy": A, "torch": T}
FAMILIES = ["plain", "lse", "blockwise"]
DTYPES = {"float32": (np.float32, dict(rtol=2e-5, atol=2e-6)),
          "float64": (np.float64, dict(rtol=1e-10, atol=1e-12))}


def random_mask(shape, seed, dead_rows):
    """A boolean mask (True = may attend), a third masked, every key of ``dead_rows`` masked."""
    mask = np.random.default_rng(seed).random(shape) > 0.35
    mask[..., 0] = True
    mask[..., dead_rows, :] = False
    return mask


def additive(mask, seed):
    """A float mask: finite random values where ``mask`` is True, -inf where it is False."""
    values = np.random.default_rng(seed).standard_normal(mask.shape)
    return np.where(mask, values, -np.inf)


# name: (H, H_kv, n, m, attnlib keywords, SDPA keywords); masks are NumPy, converted per backend
CASES = {
    "bool": (2, 2, 5, 7, dict(mask=random_mask((5, 7), 1, [1, 3])), {}),
    "float": (2, 2, 5, 7, dict(mask=additive(random_mask((2, 2, 5, 7), 2, [2]), 3)), {}),
    "float_-1e9": (2, 2, 5, 7, dict(mask=np.where(random_mask((5, 7), 4, []), 0.0, -1e9)), {}),
    "key_padding": (2, 2, 5, 7, dict(mask=np.arange(7) < np.array([5, 0])[:, None, None, None]),
                    {}),  # (B, 1, 1, m): batch 0 has 5 keys, batch 1 none
    "query_padding": (2, 2, 5, 7, dict(mask=np.arange(5)[:, None] < np.array([3, 5])[:, None, None,
                                                                                      None]), {}),
    "causal_n<m": (2, 2, 5, 7, dict(is_causal=True), dict(is_causal=True)),
    "causal_n>m": (2, 2, 7, 5, dict(is_causal=True), dict(is_causal=True)),
    "lower_right_n>m": (2, 2, 7, 5, dict(mask=np.tril(np.ones((7, 5), bool), k=-2)), {}),
    "gqa": (4, 2, 5, 7, dict(mask=random_mask((4, 5, 7), 5, [4]), enable_gqa=True),
            dict(enable_gqa=True)),
    "mqa_float": (4, 1, 5, 7, dict(mask=additive(random_mask((5, 7), 6, [1]), 7), enable_gqa=True),
                  dict(enable_gqa=True)),
    "gqa_causal_scale": (6, 3, 6, 6, dict(is_causal=True, enable_gqa=True, scale=0.3),
                         dict(is_causal=True, enable_gqa=True, scale=0.3)),
}


def dead_rows(case):
    """The rows (axis -2) in which every key is masked, as a boolean array over the query axis."""
    H, _, n, m, kw, _ = CASES[case]
    mask = kw.get("mask")
    if mask is None:
        return np.zeros(n, bool)
    live = mask if mask.dtype == bool else mask > -np.inf
    return ~np.broadcast_to(live, (2, H, n, m)).any(-1)  # (B, H, n)


def problem(case, dtype, padded):
    """Q, K, V, G (NumPy, ``dtype``); with ``padded`` the dead rows' G is 0 (padding queries)."""
    H, H_kv, n, m, _, _ = CASES[case]
    rng = np.random.default_rng(len(case))
    Q = rng.standard_normal((2, H, n, 4))
    K, V = rng.standard_normal((2, H_kv, m, 4)), rng.standard_normal((2, H_kv, m, 3))
    G = rng.standard_normal((2, H, n, 3))
    if padded:
        G = np.where(dead_rows(case)[..., None], 0.0, G)
    return [x.astype(dtype) for x in (Q, K, V, G)]


def to_backend(backend, x):
    if backend == "numpy" or not isinstance(x, np.ndarray):
        return x
    return torch.from_numpy(np.ascontiguousarray(x))


def run(B, family, G, Q, K, V, **kw):
    """(O, dQ, dK, dV) by one attnlib family."""
    if family == "plain":
        O, _ = B.attention(Q, K, V, **kw)
        return (O, *B.attention_backward(G, Q, K, V, **kw))
    if family == "lse":
        O, lse = B.attention_lse(Q, K, V, **kw)
        return (O, *B.attention_backward_lse(G, Q, K, V, O, lse, **kw))
    O, lse = B.attention_blockwise(Q, K, V, block_q=2, block_k=3, **kw)
    return (O, *B.attention_blockwise_backward(G, Q, K, V, O, lse, block_q=2, block_k=3, **kw))


def attnlib(backend, family, arrays, kw, **extra):
    """(O, dQ, dK, dV) as NumPy arrays; ``kw`` the attnlib keywords with NumPy masks."""
    kw = {k: to_backend(backend, v) for k, v in kw.items()} | extra
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the NaN mode names its rows
        Q, K, V, G = (to_backend(backend, x) for x in arrays)
        got = run(BACKENDS[backend], family, G, Q, K, V, **kw)
    return [to_np(x) for x in got]


def sdpa(arrays, mask=None, **kw):
    """O and (dQ, dK, dV) by SDPA and autograd, in the inputs' dtype."""
    Q, K, V, G = (torch.from_numpy(x) for x in arrays)
    q, k, v = (x.clone().requires_grad_(True) for x in (Q, K, V))
    if mask is not None:
        dtype = bool if mask.dtype == bool else arrays[0].dtype  # SDPA: bool or Q's dtype
        kw["attn_mask"] = torch.from_numpy(mask.astype(dtype))
    O = F.scaled_dot_product_attention(q, k, v, **kw)
    O.backward(G)
    return [to_np(x) for x in (O, q.grad, k.grad, v.grad)]


def sdpa_case(case, arrays):
    return sdpa(arrays, CASES[case][4].get("mask"), **CASES[case][5])


def plain_autograd(case, arrays):
    """O and gradients through torch.softmax of the masked scores: the math, NaN and all."""
    H, H_kv, n, m, kw, _ = CASES[case]
    Q, K, V, G = (torch.from_numpy(x) for x in arrays)
    q, k, v = (x.clone().requires_grad_(True) for x in (Q, K, V))
    kk, vv = (x.repeat_interleave(H // H_kv, dim=-3) for x in (k, v))
    S = kw.get("scale", 1 / math.sqrt(Q.shape[-1])) * q @ kk.transpose(-1, -2)
    mask = kw.get("mask")
    if kw.get("is_causal"):
        mask = np.tril(np.ones((n, m), bool))
    if mask is not None and mask.dtype == bool:
        S = S.masked_fill(~torch.from_numpy(mask), -math.inf)
    elif mask is not None:
        S = S + torch.from_numpy(mask.astype(arrays[0].dtype))
    O = torch.softmax(S, dim=-1) @ vv
    O.backward(G)
    return [to_np(x) for x in (O, q.grad, k.grad, v.grad)]


def test_sdpa_zeroes_fully_masked_rows():
    """What the expectations below rest on: torch's SDPA gives O = 0 and finite gradients there."""
    Q = K = torch.ones(1, 2, 1, dtype=torch.float64, requires_grad=True)
    V = torch.eye(2, dtype=torch.float64)[None].requires_grad_(True)
    for mask in (torch.tensor([[False, False], [True, True]]),
                 torch.tensor([[-math.inf, -math.inf], [0.0, 0.0]], dtype=torch.float64)):
        O = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
        dQ, dK, dV = torch.autograd.grad(O, (Q, K, V), torch.tensor([[[0.0, 0], [1, 1]]]))
        assert O[0, 0].tolist() == [0.0, 0.0]
        assert dV.tolist() == [[[0.5, 0.5], [0.5, 0.5]]] and not dQ.isnan().any()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES)
def test_zero_mode_is_sdpa(case, backend, family, dtype):
    dt, tol = DTYPES[dtype]
    arrays = problem(case, dt, padded=False)
    got = attnlib(backend, family, arrays, CASES[case][4], fully_masked="zero")
    for x, ref, name in zip(got, sdpa_case(case, arrays), ("O", "dQ", "dK", "dV"), strict=True):
        assert x.dtype == dt and x.shape == ref.shape, name
        np.testing.assert_allclose(x, ref, **tol, err_msg=name)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", [c for c in CASES if dead_rows(c).any()])
def test_nan_mode_padded_queries(case, backend, family, dtype):
    """G = 0 on the fully masked rows: O is NaN there, every gradient finite and equal to SDPA's."""
    dt, tol = DTYPES[dtype]
    arrays = problem(case, dt, padded=True)
    O, *grads = attnlib(backend, family, arrays, CASES[case][4])  # fully_masked="nan", the default
    O_ref, *grads_ref = sdpa_case(case, arrays)
    dead = np.broadcast_to(dead_rows(case), O.shape[:-1])
    assert np.isnan(O[dead]).all()
    np.testing.assert_allclose(O[~dead], O_ref[~dead], **tol)
    for x, ref in zip(grads, grads_ref, strict=True):
        assert np.isfinite(x).all()
        np.testing.assert_allclose(x, ref, **tol)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", [c for c in CASES if dead_rows(c).any()])
def test_nan_mode_read_row_is_the_math(case, backend):
    """G ≠ 0 on a fully masked row: the whole-matrix and LSE families give autograd's NaNs, the
    blockwise backward NaN only in the key blocks it does not skip (none, if it skips them all)."""
    arrays = problem(case, np.float64, padded=False)
    ref = plain_autograd(case, arrays)
    assert np.isnan(ref[3]).any()  # dV: the row's NaN P reaches every key
    for family in ("plain", "lse"):
        for x, r in zip(attnlib(backend, family, arrays, CASES[case][4]), ref, strict=True):
            np.testing.assert_allclose(x, r, rtol=1e-10, atol=1e-12)  # NaN where r is NaN
    O, *grads = attnlib(backend, "blockwise", arrays, CASES[case][4])
    assert np.isnan(O[..., dead_rows(case), :]).all()
    for x, r in zip(grads, ref[1:], strict=True):
        assert not (np.isnan(x) & ~np.isnan(r)).any()


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_mask_is_added_never_read_as_boolean(backend):
    B = BACKENDS[backend]
    Q, K, V, G = (to_backend(backend, x) for x in problem("bool", np.float64, padded=False))
    O, P = B.attention(Q, K, V)
    # softmax(S + c) = softmax(S); S − 1e9 keeps only the digits above ulp(1e9) ≈ 1.2e-7
    for c, rtol in ((0.0, 1e-15), (1.0, 1e-14), (-1e9, 1e-6)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "every key is masked" warning either
            O_f, P_f = B.attention(Q, K, V, mask=to_backend(backend, np.full((5, 7), c)))
        np.testing.assert_allclose(to_np(P_f), to_np(P), rtol=rtol)
        np.testing.assert_allclose(to_np(O_f), to_np(O), rtol=rtol)
    bias = np.random.default_rng(0).standard_normal((5, 7))
    S = to_np(B.scores(Q, K, mask=to_backend(backend, bias)))
    np.testing.assert_allclose(S, to_np(B.scores(Q, K)) + bias, rtol=1e-14)
    eye = np.eye(5, 7)
    P_bool = to_np(B.attention(Q, K, V, mask=to_backend(backend, eye.astype(bool)))[1])
    P_float = to_np(B.attention(Q, K, V, mask=to_backend(backend, eye))[1])
    np.testing.assert_allclose(P_bool, np.broadcast_to(eye, P_bool.shape), atol=0)  # one key
    assert (P_float > 0).all()  # every key, the diagonal nudged up by 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_large_finite_float_mask_row_loses_digits_in_lse(backend):
    """A whole row of −1e9 added: the digits below ulp(1e9) ≈ 1.2e-7 are gone, so the LSE and
    blockwise backwards (exp(S − lse)) agree with SDPA to about 1e-7 in float64, not to 1e-12."""
    arrays = problem("bool", np.float64, padded=False)
    mask = np.zeros((5, 7))
    mask[2] = -1e9
    ref = sdpa(arrays, mask)
    for family, rtol in (("plain", 1e-10), ("lse", 1e-6), ("blockwise", 1e-6)):
        for x, r in zip(attnlib(backend, family, arrays, dict(mask=mask)), ref, strict=True):
            np.testing.assert_allclose(x, r, rtol=rtol, atol=rtol * 1e-2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_mode_lse_is_plus_inf_and_warnings(backend):
    """lse = +inf on a fully masked row with "zero" (flash-attention's), −inf (log 0) with "nan";
    only "nan" warns, and a float mask's warning points to fully_masked="zero"."""
    B = BACKENDS[backend]
    Q, K, V, _ = (to_backend(backend, x) for x in problem("float", np.float64, padded=False))
    mask = to_backend(backend, CASES["float"][4]["mask"])
    dead = dead_rows("float")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fn in (B.attention_lse, lambda *x, **k: B.attention_blockwise(*x, block_q=2,
                                                                        block_k=3, **k)):
            _, lse = fn(Q, K, V, mask=mask, fully_masked="zero")
            assert (to_np(lse)[dead] == np.inf).all() and np.isfinite(to_np(lse)[~dead]).all()
    for fn in (B.attention_lse, lambda *x, **k: B.attention_blockwise(*x, block_q=2, block_k=3,
                                                                    **k)):
        with pytest.warns(RuntimeWarning, match="fully_masked='zero'"):
            O, lse = fn(Q, K, V, mask=mask)
        assert (to_np(lse)[dead] == -np.inf).all() and np.isnan(to_np(O)[dead]).all()


@pytest.mark.parametrize("case", ["float", "gqa", "causal_n>m"])
def test_torch_autograd_through_the_forward(case):
    """Zero mode has no NaN to hide: autograd through attnlib.torch's forwards equals SDPA's."""
    arrays = problem(case, np.float64, padded=False)
    ref = sdpa_case(case, arrays)
    kw = {k: to_backend("torch", v) for k, v in CASES[case][4].items()}
    Q, K, V, G = (torch.from_numpy(x) for x in arrays)
    forwards = {
        "attention": lambda q, k, v: T.attention(q, k, v, fully_masked="zero", **kw)[0],
        "attention_lse": lambda q, k, v: T.attention_lse(q, k, v, fully_masked="zero", **kw)[0],
        "blockwise": lambda q, k, v: T.attention_blockwise(q, k, v, block_q=2, block_k=3,
                                                           fully_masked="zero", **kw)[0],
        "attention_autograd": lambda q, k, v: T.attention_autograd(q, k, v, fully_masked="zero",
                                                                   **kw),
    }
    for name, forward in forwards.items():
        q, k, v = (x.clone().requires_grad_(True) for x in (Q, K, V))
        O = forward(q, k, v)
        O.backward(G)
        for x, r in zip((O, q.grad, k.grad, v.grad), ref, strict=True):
            np.testing.assert_allclose(to_np(x), r, rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n, m", [(3, 5), (5, 3), (4, 4)])
def test_causal_mask_alignments(backend, n, m):
    from torch.nn.attention.bias import causal_lower_right, causal_upper_left

    B = BACKENDS[backend]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch: "lower right ... n > m" notice
        upper, lower = (to_np(c(n, m)._materialize()) for c in (causal_upper_left,
                                                                causal_lower_right))
    np.testing.assert_array_equal(to_np(B.causal_mask(n, m)), upper)
    np.testing.assert_array_equal(to_np(B.causal_mask(n, m, align="lower_right")), lower)
    assert to_np(B.causal_mask(n, m)).dtype == bool
    with pytest.raises(ValueError, match="align"):
        B.causal_mask(n, m, align="bottom_right")
    with pytest.raises(ValueError, match="n must be a positive integer"):
        B.causal_mask(0, m)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gqa_equals_repeated_heads_and_needs_the_flag(backend):
    """Q head h reads K, V head h // g; dK, dV add over the g query heads of a group."""
    B = BACKENDS[backend]
    Q, K, V, G = problem("gqa", np.float64, padded=False)
    rep = [np.repeat(x, 2, axis=-3) for x in (K, V)]
    Qb, Kb, Vb, Gb, Kr, Vr = (to_backend(backend, x) for x in (Q, K, V, G, *rep))
    grads = B.attention_backward(Gb, Qb, Kb, Vb, enable_gqa=True)
    dQ_r, dK_r, dV_r = (to_np(x) for x in B.attention_backward(Gb, Qb, Kr, Vr))
    np.testing.assert_allclose(to_np(grads[0]), dQ_r, rtol=1e-12)
    np.testing.assert_allclose(to_np(grads[1]), dK_r.reshape(2, 2, 2, 7, 4).sum(2), rtol=1e-12)
    np.testing.assert_allclose(to_np(grads[2]), dV_r.reshape(2, 2, 2, 7, 3).sum(2), rtol=1e-12)
    with pytest.raises(ValueError, match="enable_gqa=True"):
        B.attention(Qb, Kb, Vb)


def test_block_grid_reads_a_float_mask_as_added():
    from attnlib.core.blockwise import block_grid

    causal = np.tril(np.ones((8, 8), bool))
    additive_causal = np.where(causal, 0.0, -np.inf)
    np.testing.assert_array_equal(block_grid(8, 8, block_q=4, block_k=4, mask=additive_causal),
                                  block_grid(8, 8, block_q=4, block_k=4, mask=causal))
    assert (block_grid(8, 8, block_q=4, block_k=4, mask=np.zeros((8, 8))) == 2).all()
    with pytest.raises(ValueError, match="mask"):
        block_grid(8, 8, block_q=4, block_k=4, mask=causal.astype(int))


@pytest.mark.parametrize("backend", BACKENDS)
def test_steps_zero_mode(backend):
    """Online steps before a row has seen any key: O is 0/0 = NaN, or 0 with "zero"."""
    B = BACKENDS[backend]
    Q, K, V, _ = (to_backend(backend, x[0, 0]) for x in problem("bool", np.float64, False))
    late = np.tril(np.ones((5, 7), bool), k=2)[:, ::-1].copy()  # row i sees the last i + 3 keys
    kw = dict(block_k=2, mask=to_backend(backend, late))
    first_nan = to_np(B.attention_blockwise_steps(Q, K, V, **kw).O[0])
    steps_zero = B.attention_blockwise_steps(Q, K, V, fully_masked="zero", **kw)
    unseen = ~late[:, :2].any(-1)  # rows with no key in the first block
    assert unseen.any() and np.isnan(first_nan[unseen]).all()
    assert (to_np(steps_zero.O[0])[unseen] == 0).all()
    O, _ = B.attention(Q, K, V, mask=kw["mask"])
    np.testing.assert_allclose(to_np(steps_zero.O[-1]), to_np(O), rtol=1e-14)
