"""The core's in-place arithmetic earns its place: the peaks ``attnlib.measure`` reports (and
chapters 15 and 19 print) grow by whole n×m arrays, or blocks, without it."""

import numpy as np
import pytest

from attnlib import core, measure
from attnlib.numpy import ops

N, D, BLOCK = 256, 32, 64
NM = N * N * 8  # bytes of one n×m float64 array
ND = N * D * 8  # bytes of one n×d float64 array


@pytest.fixture(scope="module")
def qkvg():
    return tuple(np.random.default_rng(0).standard_normal((4, N, D)))


def peaks(path, *args):
    """Peak extra bytes of ``path(xp, *args)`` with the in-place namespace and without it."""
    return (measure.peak_extra_bytes(path, ops, *args)[1],
            measure.peak_extra_bytes(path, measure.out_of_place_ops(), *args)[1])


def test_forward_computes_S_and_P_in_one_buffer(qkvg):
    Q, K, V, _ = qkvg
    in_place, out_of_place = peaks(lambda xp: core.attention.attention(xp, Q, K, V))
    assert in_place < 1.3 * NM  # P itself (the result) and little else
    assert out_of_place - in_place > 1.8 * NM  # S − max and e^(S − max) as arrays of their own


@pytest.mark.parametrize("saved", ["none", "lse"])
def test_backward_builds_delta_in_U(qkvg, saved):
    Q, K, V, G = qkvg
    if saved == "none":
        def path(xp):
            return core.attention.attention_backward(xp, G, Q, K, V)
    else:
        O, lse = core.attention_lse.attention_lse(ops, Q, K, V)

        def path(xp):
            return core.attention_lse.attention_backward_lse(xp, G, Q, K, V, O, lse)
    in_place, out_of_place = peaks(path)
    assert in_place < 2 * NM + 4 * ND  # P and U, and the n×d gradients
    assert out_of_place > 3.9 * NM  # P, U, U − r and Δ at once


def test_blockwise_backward_works_in_block_buffers(qkvg):
    Q, K, V, G = qkvg
    O, lse = core.blockwise.attention_blockwise(ops, Q, K, V, block_q=BLOCK, block_k=BLOCK)
    in_place, out_of_place = peaks(lambda xp: core.blockwise.attention_blockwise_backward(
        xp, G, Q, K, V, O, lse, block_q=BLOCK, block_k=BLOCK))
    assert in_place < NM  # never an n×m array
    assert out_of_place - in_place >= 1.5 * BLOCK * BLOCK * 8  # S_ij − lse, U_ij − r: blocks


def test_both_namespaces_give_the_same_numbers(qkvg):
    Q, K, V, G = qkvg
    for fn in (lambda xp: core.attention.attention(xp, Q, K, V),
               lambda xp: core.attention.attention_backward(xp, G, Q, K, V)):
        for x, y in zip(fn(ops), fn(measure.out_of_place_ops()), strict=True):
            np.testing.assert_array_equal(x, y)


def test_in_place_sweep_is_what_the_appendix_prints():
    """The appendix's table: whole paths save about two n×m arrays, the blockwise one two blocks."""
    rows = {r["path"]: r for r in measure.in_place_sweep(256, 16, block=64)}
    assert set(rows) == {"forward", "backward", "backward_lse", "blockwise_backward"}
    for name, r in rows.items():
        saved = (r["out_of_place"] - r["in_place"]) / r["unit"]
        assert 1.5 < saved < 2.5, (name, saved)
        assert r["in_place"] >= r["result"]
    assert rows["blockwise_backward"]["unit"] == 64 * 64 * 8
