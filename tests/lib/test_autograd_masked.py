"""Autograd through attnlib.torch's forwards however much is masked (issue 29), against SDPA.

Each forward (``attention``, ``attention_lse``, ``attention_blockwise`` with blocks of several
shapes, the last step of ``attention_blockwise_steps``, ``attention_autograd``) in
``fully_masked="zero"`` mode, with boolean and float masks that hide part of the scores, whole
rows (a whole block of rows too) or everything, with and without grouped K/V heads
(``enable_gqa``): O and the gradients of whichever inputs require grad equal those of
``torch.nn.functional.scaled_dot_product_attention`` (torch 2.13: O = 0 and zero gradients from a
fully masked row, see test_sdpa.py). Before the fix, a blockwise forward whose every block was
skipped returned the zeros it started from, outside the autograd graph. Float64.
"""

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from attnlib import torch as T  # noqa: E402

TOL = dict(rtol=1e-10, atol=1e-12)
BATCH, N, M, D_K, D_V = 2, 5, 7, 4, 3

# name: (H, H_kv, enable_gqa)
HEADS = {"mha": (2, 2, False), "gqa": (4, 2, True)}


def live_keys(coverage):
    """The boolean mask (True = may attend) of each coverage, broadcastable to (B, H, n, m)."""
    rng = np.random.default_rng(29)
    if coverage == "partly":  # a third of the scores hidden, no row fully masked
        live = rng.random((N, M)) > 0.35
        live[:, 0] = True
    elif coverage == "rows":  # batch 0: rows 0, 1 (a whole block of 2 rows) and 4; batch 1: row 3
        live = rng.random((BATCH, 1, N, M)) > 0.35
        live[..., 0] = True
        live[0, :, [0, 1, 4]] = False
        live[1, :, 3] = False
    else:  # "whole": every score hidden
        live = np.zeros((N, M), bool)
    return live


def mask_of(kind, coverage):
    """A boolean mask, or a float one: finite values where a key is live, -inf where it is not."""
    live = live_keys(coverage)
    if kind == "bool":
        return torch.from_numpy(live)
    values = np.random.default_rng(7).standard_normal(live.shape)
    return torch.from_numpy(np.where(live, values, -np.inf))


def problem(heads):
    """Q, K, V, G (float64 NumPy) for the head layout ``heads``."""
    H, H_kv, _ = HEADS[heads]
    rng = np.random.default_rng(3)
    return (rng.standard_normal((BATCH, H, N, D_K)), rng.standard_normal((BATCH, H_kv, M, D_K)),
            rng.standard_normal((BATCH, H_kv, M, D_V)), rng.standard_normal((BATCH, H, N, D_V)))


FORWARDS = {
    "attention": lambda q, k, v, **kw: T.attention(q, k, v, **kw)[0],
    "attention_lse": lambda q, k, v, **kw: T.attention_lse(q, k, v, **kw)[0],
    "blockwise_2x3": lambda q, k, v, **kw: T.attention_blockwise(q, k, v, block_q=2, block_k=3,
                                                                 **kw)[0],
    "blockwise_1x1": lambda q, k, v, **kw: T.attention_blockwise(q, k, v, block_q=1, block_k=1,
                                                                 **kw)[0],
    "blockwise_one_block": lambda q, k, v, **kw: T.attention_blockwise(q, k, v, block_q=8,
                                                                       block_k=8, **kw)[0],
    "steps": lambda q, k, v, **kw: T.attention_blockwise_steps(q, k, v, block_k=3, **kw).O[-1],
    "attention_autograd": lambda q, k, v, **kw: T.attention_autograd(q, k, v, **kw),
}


def sdpa(q, k, v, *, mask, enable_gqa, fully_masked):
    assert fully_masked == "zero"  # torch 2.13's SDPA zeroes a fully masked row
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=enable_gqa)


def run(forward, arrays, mask, *, enable_gqa, needs):
    """O and the .grad of Q, K, V, mask after O.backward(G); ``needs``: what requires grad."""
    G = torch.from_numpy(arrays[3])
    leaves = [torch.from_numpy(x.copy()).requires_grad_(name in needs)
              for x, name in zip(arrays[:3], "QKV", strict=True)]
    mask = mask.clone().requires_grad_("mask" in needs)
    O = forward(*leaves, mask=mask, enable_gqa=enable_gqa, fully_masked="zero")
    assert O.requires_grad == bool(needs), "O must be in the graph of the inputs that need grad"
    if needs:
        O.backward(G)
    return O.detach(), [x.grad for x in (*leaves, mask)]


def check(name, forward, heads, mask, needs):
    arrays = problem(heads)
    enable_gqa = HEADS[heads][2]
    O, grads = run(forward, arrays, mask, enable_gqa=enable_gqa, needs=needs)
    O_ref, grads_ref = run(sdpa, arrays, mask, enable_gqa=enable_gqa, needs=needs)
    np.testing.assert_allclose(O.numpy(), O_ref.numpy(), **TOL, err_msg=f"{name}: O")
    for what, g, g_ref in zip(("dQ", "dK", "dV", "dmask"), grads, grads_ref, strict=True):
        if g_ref is None:
            assert g is None, f"{name}: {what} was not asked for"
            continue
        assert g is not None, f"{name}: {what} missing"
        np.testing.assert_allclose(g.numpy(), g_ref.numpy(), **TOL, err_msg=f"{name}: {what}")
    return O, grads


@pytest.mark.parametrize("heads", HEADS)
@pytest.mark.parametrize("coverage", ["partly", "rows", "whole"])
@pytest.mark.parametrize("kind", ["bool", "float"])
@pytest.mark.parametrize("forward", FORWARDS)
def test_forward_autograd_is_sdpa(forward, kind, coverage, heads):
    """O, dQ, dK, dV of every torch forward equal SDPA's, Q, K and V requiring grad."""
    O, grads = check(forward, FORWARDS[forward], heads, mask_of(kind, coverage), needs="QKV")
    if coverage == "whole":  # exactly SDPA's zeros
        assert not O.any() and not any(g.any() for g in grads[:3])


@pytest.mark.parametrize("coverage", ["rows", "whole"])
@pytest.mark.parametrize("needs", ["Q", "K", "V", "QV", "KV", ""])
@pytest.mark.parametrize("forward", FORWARDS)
def test_only_some_inputs_require_grad(forward, needs, coverage):
    """Those that require grad get SDPA's gradients, the others none; with none, no graph."""
    check(forward, FORWARDS[forward], "gqa", mask_of("bool", coverage), needs=needs)


@pytest.mark.parametrize("coverage", ["partly", "rows", "whole"])
@pytest.mark.parametrize("needs", ["mask", "Qmask"])
@pytest.mark.parametrize("forward", FORWARDS)
def test_float_mask_gradient(forward, needs, coverage):
    """A float mask is added to the scores: its gradient is ∂L/∂S summed to its shape, as SDPA's."""
    check(forward, FORWARDS[forward], "mha", mask_of("float", coverage), needs=needs)


def test_issue_29_example():
    """The report: one query, one key, masked; O = 0 with a graph, and zero gradients."""
    q, k, v = (torch.ones(1, 1, dtype=torch.float64, requires_grad=True) for _ in range(3))
    for mask in (torch.tensor([[False]]), torch.tensor([[-math.inf]], dtype=torch.float64)):
        O, lse = T.attention_blockwise(q, k, v, block_q=1, block_k=1, mask=mask,
                                       fully_masked="zero")
        assert O.requires_grad and lse.requires_grad and lse.item() == math.inf
        dQ, dK, dV = torch.autograd.grad(O, (q, k, v), torch.ones(1, 1, dtype=torch.float64))
        assert O.item() == 0.0 and dQ.item() == dK.item() == dV.item() == 0.0


@pytest.mark.parametrize("forward", FORWARDS)
def test_no_query_rows(forward):
    """n = 0: no block of rows runs at all; O (..., 0, d_v) is still in the graph, as SDPA's."""
    q = torch.zeros(BATCH, 2, 0, D_K, dtype=torch.float64, requires_grad=True)
    k, v = (torch.ones(BATCH, 2, M, d, dtype=torch.float64, requires_grad=True)
            for d in (D_K, D_V))
    O = FORWARDS[forward](q, k, v)
    assert O.shape == (BATCH, 2, 0, D_V) and O.requires_grad
    grads = torch.autograd.grad(O, (q, k, v), torch.zeros_like(O))
    assert [g.shape for g in grads] == [q.shape, k.shape, v.shape]
    assert not any(g.any() for g in grads)


@pytest.mark.parametrize("coverage", ["partly", "rows", "whole"])
@pytest.mark.parametrize("blocks", [(2, 3), (1, 1)])
def test_lse_is_in_the_graph(coverage, blocks):
    """lse of the LSE and blockwise forwards: in the graph; on live rows its gradient is that of
    torch.logsumexp of the masked scores (fully masked rows, lse = +inf, add nothing)."""
    Qn, Kn, _, _ = problem("mha")
    mask = mask_of("bool", coverage)
    live_rows = mask.broadcast_to((BATCH, 2, N, M)).any(-1)  # (B, H, n)
    W = torch.from_numpy(np.random.default_rng(5).standard_normal((BATCH, 2, N)))

    def grads(lse_of):
        q, k = (torch.from_numpy(x.copy()).requires_grad_(True) for x in (Qn, Kn))
        lse = lse_of(q, k)
        assert lse.requires_grad
        return torch.autograd.grad(torch.where(live_rows, lse * W, 0.0).sum(), (q, k))

    V = torch.zeros(BATCH, 2, M, D_V, dtype=torch.float64)
    kw = dict(mask=mask, fully_masked="zero")
    ref = grads(lambda q, k: torch.logsumexp(
        (q @ k.mT / math.sqrt(D_K)).masked_fill(~mask, -math.inf), dim=-1))
    for name, lse_of in (
            ("attention_lse", lambda q, k: T.attention_lse(q, k, V, **kw)[1]),
            ("blockwise", lambda q, k: T.attention_blockwise(q, k, V, block_q=blocks[0],
                                                             block_k=blocks[1], **kw)[1])):
        for g, g_ref in zip(grads(lse_of), ref, strict=True):
            np.testing.assert_allclose(g.numpy(), g_ref.numpy(), **TOL, err_msg=name)


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_nan_mode_skipped_blocks_add_nothing(kind):
    """fully_masked="nan", everything masked: O is the math's NaN, and autograd through the
    blockwise forward gives what attention_blockwise_backward gives, zeros: it skips every block
    (docs/DESIGN.md: NaN reaches dV only in the key blocks that are not skipped)."""
    Qn, Kn, Vn, Gn = problem("mha")
    q, k, v = (torch.from_numpy(x.copy()).requires_grad_(True) for x in (Qn, Kn, Vn))
    mask = mask_of(kind, "whole")
    with pytest.warns(RuntimeWarning, match="every key is masked"):
        O, lse = T.attention_blockwise(q, k, v, block_q=2, block_k=3, mask=mask)
    assert O.isnan().all() and (lse == -math.inf).all()
    auto = torch.autograd.grad(O, (q, k, v), torch.from_numpy(Gn))
    with pytest.warns(RuntimeWarning, match="every key is masked"):
        ours = T.attention_blockwise_backward(torch.from_numpy(Gn), Qn, Kn, Vn, O.detach(),
                                              lse.detach(), block_q=2, block_k=3, mask=mask)
    for g, g_ref in zip(auto, ours, strict=True):
        assert not g.any() and not g_ref.any()


def backward_of(name, G, Q, K, V, O, lse, **kw):
    """(dQ, dK, dV) by one of the hand-written backwards."""
    if name == "attention_backward":
        return T.attention_backward(G, Q, K, V, **kw)
    if name == "attention_backward_lse":
        return T.attention_backward_lse(G, Q, K, V, O, lse, **kw)
    return T.attention_blockwise_backward(G, Q, K, V, O, lse, block_q=2, block_k=3, **kw)


@pytest.mark.parametrize("kind", ["bool", "float"])
@pytest.mark.parametrize("name", ["attention_backward", "attention_backward_lse",
                                  "attention_blockwise_backward"])
def test_backwards_stay_in_the_graph(name, kind):
    """The backwards are functions too: with everything masked their (dQ, dK, dV) = 0 is in the
    graph of G, Q, K, V (and the saved O, lse), and its derivatives are 0."""
    arrays = problem("gqa")
    mask = mask_of(kind, "whole")
    O, lse = T.attention_lse(*(torch.from_numpy(x) for x in arrays[:3]), mask=mask,
                             enable_gqa=True, fully_masked="zero")
    leaves = [torch.from_numpy(x.copy()).requires_grad_(True) for x in (arrays[3], *arrays[:3])]
    saved = [x.clone().requires_grad_(True) for x in (O, lse)]
    grads = backward_of(name, *leaves, *saved, mask=mask, enable_gqa=True, fully_masked="zero")
    assert all(g.requires_grad and not g.any() for g in grads)
    inputs = leaves + (saved if name != "attention_backward" else [])
    second = torch.autograd.grad(sum((g * torch.randn_like(g)).sum() for g in grads), inputs)
    assert all(s.isfinite().all() and not s.any() for s in second)


def test_bad_input_still_names_the_argument():
    """Under autograd too, bad input is a ValueError naming the argument."""
    q, k, v = (torch.ones(1, 2, 2, dtype=torch.float64, requires_grad=True) for _ in range(3))
    with pytest.raises(ValueError, match="block_q"):
        T.attention_blockwise(q, k, v, block_q=0, block_k=1)
    with pytest.raises(ValueError, match="mask"):
        T.attention_blockwise(q, k, v, block_q=1, block_k=1, mask=torch.zeros(2, 2, dtype=int))
    with pytest.raises(ValueError, match="fully_masked"):
        T.attention_blockwise(q, k, v, block_q=1, block_k=1, fully_masked="zeros")
    with pytest.raises(ValueError, match="lse"):
        T.attention_blockwise_backward(q, q, k, v, q, q, block_q=1, block_k=1)
