"""HBM traffic of standard and blockwise attention (``attnlib.core.io``) against a hand count."""

import pytest

from attnlib.core import io


def test_standard_forward_by_hand():
    # n = m = 4, d = 2: read Q, K (8 + 8), S (16), P (16), V (8) = 56; write S, P (32), O (8)
    assert io.io_counts(4, 4, 2, method="standard", pass_="forward") == io.IO(56, 40)


def test_standard_backward_by_hand():
    # n = m = 4, d = 2: reads P+G 24, G+V 16, P+U 32, Δ+K 24, Δ+Q 24 = 120;
    # writes dV 8, U 16, Δ 16, dQ 8, dK 8 = 56
    assert io.io_counts(4, 4, 2, method="standard", pass_="backward") == io.IO(120, 56)


def test_blockwise_by_hand():
    # n = m = 8, d = 2, b_q = b_k = 4: two query blocks, two key blocks.
    # forward reads Q (16) and K, V twice (2 · 32) = 80; writes O (16) and lse (8) = 24
    assert io.io_counts(8, 8, 2, method="blockwise", pass_="forward", b_q=4,
                        b_k=4) == io.IO(80, 24)
    # backward reads G, O (32), K, V (32), and per key block Q, G, dQ (48) and lse, r (16):
    # 64 + 2 · 64 = 192; writes r (8), dK, dV (32), and dQ per key block (2 · 16) = 72
    assert io.io_counts(8, 8, 2, method="blockwise", pass_="backward", b_q=4,
                        b_k=4) == io.IO(192, 72)


def test_sram_block_and_bytes():
    assert io.sram_block(4 * 64 * 64 + 64 * 64 + 128, 64) == 64
    assert io.sram_block(4 * 64 * 64 + 64 * 64 + 127, 64) == 32
    with pytest.raises(ValueError):
        io.sram_block(10, 64)
    b = io.io_bytes(4096, 4096, 64, M=100_000)
    assert b["standard_forward"] > 3 * b["blockwise_forward"]
    assert b["standard_backward"] > 3 * b["blockwise_backward"]
    # the blockwise traffic falls as the blocks grow with M (b = 64 → 128)
    small, big = (io.io_bytes(4096, 4096, 64, M=M)["blockwise_forward"]
                  for M in (2**15, 2**17))
    assert big < small / 1.9


def test_backward_tiles():
    # 3·64·64 + 4·128·64 + 2·64·128 + 2·64 = 61 568 ≤ 2¹⁶; the square 128 block needs 90 368
    assert io.backward_working_set(64, 128, 64) == 61_568
    assert io.backward_working_set(128, 128, 64) > 2**16
    assert io.sram_tiles_backward(2**16, 64) == (64, 128)
    assert io.sram_tiles_backward(2**16, 64, square=True) == (64, 64)
    for M in (2**14, 2**16, 2**18):
        b_q, b_k = io.sram_tiles_backward(M, 64)
        assert io.backward_working_set(b_q, b_k, 64) <= M
        assert b_k == io.sram_block(M, 64)
    # the backward's traffic depends on b_k only
    t = io.io_bytes(4096, 4096, 64, M=2**16)
    sq = io.io_bytes(4096, 4096, 64, M=2**16, square_backward=True)
    assert t["blockwise_forward"] == sq["blockwise_forward"]
    assert t["blockwise_backward"] < sq["blockwise_backward"]
    with pytest.raises(ValueError):
        io.sram_tiles_backward(300, 64)


def test_recompute_vs_reload():
    assert io.recompute_vs_reload(64, flops=2e14, bandwidth=1e12) == pytest.approx(0.16)
    # one exponential at 1e12/s adds 1e-12 s to the 6.4e-13 s of the matmul, over 4e-12 s
    assert io.recompute_vs_reload(64, flops=2e14, bandwidth=1e12,
                                  exp_rate=1e12) == pytest.approx(0.41)
    with pytest.raises(ValueError):
        io.io_counts(1, 1, 1, method="magic", pass_="forward")
    with pytest.raises(ValueError):
        io.io_counts(1, 1, 1, method="standard", pass_="sideways")
    with pytest.raises(ValueError):
        io.io_counts(1, 1, 1, method="blockwise", pass_="forward")
