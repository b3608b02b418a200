"""``measure.key_reads`` (chapter 17's 「질의 블록마다 키와 값을 블록으로 나눠 한 번만 읽는다」):
the blockwise forward reads each key once per query block, one key block at a time; a path that
reads the whole of K and V once per query block has the same counts and is caught by the width."""

import math

import numpy as np
import pytest

from attnlib import measure
from attnlib import numpy as A
from attnlib.core import blockwise
from attnlib.numpy import ops

N, M, D = 10, 37, 6


@pytest.fixture(scope="module")
def qkv():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((N, D)), rng.standard_normal((M, D)),
            rng.standard_normal((M, D)))


def whole_k_per_query_block(Q, K, V, *, block_q):
    """Online-softmax-free attention by query blocks that uses all of K and V per query block."""
    inputs = blockwise.attention_inputs(ops, Q, K, V)  # looked up at call time, as the core does
    O = np.zeros((N, D))
    for start in range(0, N, block_q):
        rows = slice(start, min(start + block_q, N))
        S = inputs.scale * (inputs.Q[rows] @ inputs.K.T)  # the whole of K: one read of every key
        P = np.exp(S - S.max(axis=-1, keepdims=True))
        O[rows] = (P / P.sum(axis=-1, keepdims=True)) @ inputs.V  # the whole of V
    return O


@pytest.mark.parametrize("bq, bk", [(10, 8), (4, 8), (1, 5), (3, 37)])
def test_blockwise_reads_each_key_once_per_query_block_by_key_blocks(qkv, bq, bk):
    Q, K, V = qkv
    seen = measure.key_reads(lambda: A.attention_blockwise(Q, K, V, block_q=bq, block_k=bk))
    for name in ("K", "V"):
        assert (seen.counts(name, M) == math.ceil(N / bq)).all()
        assert 0 < seen.widest(name) <= bk
    O, _ = seen.out
    assert np.abs(O - A.attention(Q, K, V)[0]).max() < 1e-12


@pytest.mark.parametrize("bq", [10, 4, 1])
def test_reading_whole_k_per_query_block_is_caught_by_the_width(qkv, bq):
    Q, K, V = qkv
    seen = measure.key_reads(lambda: whole_k_per_query_block(Q, K, V, block_q=bq))
    assert np.abs(seen.out - A.attention(Q, K, V)[0]).max() < 1e-12
    for name in ("K", "V"):
        assert (seen.counts(name, M) == math.ceil(N / bq)).all()  # the counts alone pass
        assert seen.widest(name) == M > 8  # every read covers all 37 keys, not one block


def test_reads_are_noted_by_the_rows_they_touch():
    seen = []
    x = np.arange(12.0).reshape(4, 3).view(measure._Reads)
    x.log = seen
    x[..., 1:3, :]
    x[2]
    np.sum(x)
    x + 1
    assert seen == [(1, 2), (2,), (0, 1, 2, 3), (0, 1, 2, 3)]


def test_the_core_gets_its_inputs_back():
    original = blockwise.attention_inputs
    with pytest.raises(RuntimeError):
        measure.key_reads(lambda: (_ for _ in ()).throw(RuntimeError("boom")))
    assert blockwise.attention_inputs is original


def test_a_view_made_by_a_method_reads_every_key_once():
    seen = []
    x = np.arange(12.0).reshape(4, 3).view(measure._Reads)
    x.log = seen
    y = x.T
    y[0:1, 0:2]
    y @ np.ones((4, 1))
    assert seen == [(0, 1, 2, 3)]


def test_the_key_axis_of_a_batched_array_is_the_second_last():
    seen = []
    x = np.arange(24.0).reshape(2, 4, 3).view(measure._Reads)
    x.log = seen
    x[0, :]  # every key of batch 0
    x[1, 2]  # key 2
    x[:, 1:3, :]
    x[..., 3, :]
    x[..., 0]  # a column: every key
    assert seen == [(0, 1, 2, 3), (2,), (1, 2), (3,), (0, 1, 2, 3)]


def test_whole_array_uses_inside_lists_and_out_are_noted_not_recursed():
    seen = []
    x = np.arange(12.0).reshape(4, 3).view(measure._Reads)
    x.log = seen
    both = np.concatenate([x, x])  # two reads of every key
    x += 1  # one read: x as the argument; as out= it is written
    np.multiply(np.ones((4, 3)), 2, out=x)  # written only
    assert both.shape == (8, 3) and type(both) is np.ndarray
    assert seen == [(0, 1, 2, 3)] * 3
