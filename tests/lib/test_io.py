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


def test_recompute_vs_reload():
    assert io.recompute_vs_reload(64, flops=2e14, bandwidth=1e12) == pytest.approx(0.16)
    with pytest.raises(ValueError):
        io.io_counts(1, 1, 1, method="magic", pass_="forward")
    with pytest.raises(ValueError):
        io.io_counts(1, 1, 1, method="standard", pass_="sideways")
    with pytest.raises(ValueError):
        io.io_counts(1, 1, 1, method="blockwise", pass_="forward")
