"""How many numbers attention moves between HBM and SRAM (chapter 19): the IO model of
FlashAttention (Dao et al. 2022, section 3.2), with exact counts for one simple schedule each.

The model: a large slow memory (HBM) holds Q, K (n×d, m×d), V (m×d), G = dO, and every result;
a small fast one (SRAM) holds ``M`` numbers. Arithmetic happens only on numbers in SRAM; a number
read from HBM or written to it counts once each time (``reads``, ``writes``, in numbers; bytes =
numbers × itemsize). d_k = d_v = d. Row-wise reductions of a row held in SRAM (max, sum, r) cost
nothing extra.

- ``standard``: each step a separate kernel through HBM, FlashAttention's Algorithm 0 and its
  standard backward: S = QKᵀ written, read for softmax, P written (and kept for the backward),
  read for O = PV; the backward reads P and G for dV, writes U = G Vᵀ, reads P and U to write
  Δ (r from the row in SRAM), reads Δ with K for dQ and with Q for dK.
- ``blockwise``: the book's blockwise forward and backward (one fused kernel each), query blocks
  of ``b_q`` and key blocks of ``b_k``. Forward (FlashAttention-2's order): for each query block,
  read Q_𝓘 once and every K_𝓙, V_𝓙; write O_𝓘 and lse_𝓘 once. Backward: read G, O to write
  r = rowsum(G ⊙ O) (n numbers); then for each key block read K_𝓙, V_𝓙 once, write dK_𝓙, dV_𝓙
  once, and for every query block read Q_𝓘, G_𝓘, lse_𝓘, r_𝓘 and dQ_𝓘, and write dQ_𝓘 back
  (the accumulation into dQ, atomic on a GPU).

:func:`sram_block` picks the largest square block b = b_q = b_k whose forward working set fits
in M; :func:`sram_tiles_backward` the backward's tiles (b_q, b_k), whose working set is larger
(Q, G, dQ and K, V, dK, dV tiles plus two b_q × b_k blocks). The blockwise backward's traffic
depends on b_k only (dQ, Q, G are swept once per key block), so its tiles keep the forward's b_k
and shrink b_q. :func:`io_bytes` uses each pass's own tiles.

The square forward tile is this model's choice, not a property of blockwise attention: the forward's
traffic depends on b_q only, so a tall tile (large b_q, b_k ≤ d, as FlashAttention's
B_r × B_c mirrored) has no b² term and its traffic falls as 1/M, where the square tile's falls as
1/√M (chapter 19 says so beside the numbers that follow from it). Both functions take powers
of two only, another choice of the model: other tiles fit too (an 8 × 48 backward tile fits
M = 2¹⁴ with d = 64 and moves less than the standard backward, where the power-of-two 16 × 32
moves more; chapter 19 prints both).
"""

import math
from typing import NamedTuple

__all__ = ["IO", "io_counts", "io_bytes", "sram_block", "sram_tiles_backward",
           "backward_working_set", "recompute_vs_reload"]


class IO(NamedTuple):
    """Numbers read from and written to HBM."""

    reads: int
    writes: int

    @property
    def total(self) -> int:
        return self.reads + self.writes


def io_counts(n: int, m: int, d: int, *, method: str, pass_: str, b_q: int = 0,
              b_k: int = 0) -> IO:
    """HBM reads and writes (numbers) of one ``pass_`` (``"forward"``, ``"backward"``) of
    ``method`` (``"standard"``, ``"blockwise"`` with blocks ``b_q`` × ``b_k``), as the module
    docstring states the model."""
    if method == "standard":
        if pass_ == "forward":
            # read Q, K; write S | read S; write P | read P, V; write O
            return IO(reads=n * d + m * d + n * m + n * m + m * d,
                      writes=n * m + n * m + n * d)
        if pass_ == "backward":
            # read P, G; write dV | read G, V; write U | read P, U; write Δ |
            # read Δ, K; write dQ | read Δ, Q; write dK
            return IO(reads=(n * m + n * d) + (n * d + m * d) + 2 * n * m
                      + (n * m + m * d) + (n * m + n * d),
                      writes=m * d + n * m + n * m + n * d + m * d)
    elif method == "blockwise":
        if b_q < 1 or b_k < 1:
            raise ValueError("blockwise needs block sizes b_q, b_k ≥ 1")
        T_r, T_c = math.ceil(n / b_q), math.ceil(m / b_k)  # query blocks, key blocks
        if pass_ == "forward":
            return IO(reads=n * d + T_r * 2 * m * d, writes=n * d + n)
        if pass_ == "backward":
            return IO(reads=2 * n * d + 2 * m * d + T_c * (3 * n * d + 2 * n),
                      writes=n + 2 * m * d + T_c * n * d)
    else:
        raise ValueError(f"method must be 'standard' or 'blockwise', got {method!r}")
    raise ValueError(f"pass_ must be 'forward' or 'backward', got {pass_!r}")


def sram_block(M: int, d: int) -> int:
    """The largest power of two b with 4bd + b² + 2b ≤ M: Q_𝓘, K_𝓙, V_𝓙, acc (b×d each), the
    score block S_𝓘𝓙 (b×b) and s_max, ℓ (b each) of the blockwise forward fit in SRAM."""
    b = 1
    while 4 * (2 * b) * d + (2 * b) ** 2 + 2 * (2 * b) <= M:
        b *= 2
    if 4 * b * d + b * b + 2 * b > M:
        raise ValueError(f"not even a block of one row fits in M = {M} numbers (d = {d})")
    return b


def backward_working_set(b_q: int, b_k: int, d: int) -> int:
    """Numbers the blockwise backward holds in SRAM: Q_𝓘, G_𝓘, dQ_𝓘 (b_q × d each), K_𝓙, V_𝓙,
    dK_𝓙, dV_𝓙 (b_k × d each), S/P and U/Δ (b_q × b_k each), lse_𝓘 and r_𝓘 (b_q each)."""
    return 3 * b_q * d + 4 * b_k * d + 2 * b_q * b_k + 2 * b_q


def sram_tiles_backward(M: int, d: int, *, square: bool = False) -> tuple[int, int]:
    """``(b_q, b_k)`` for the blockwise backward: powers of two whose working set
    (:func:`backward_working_set`) fits in M. b_k is the largest ≤ ``sram_block(M, d)`` for which
    some b_q fits, and b_q the largest ≤ b_k with it; ``square=True`` asks for b_q = b_k."""
    b_k = sram_block(M, d)
    while b_k >= 1:
        b_q = b_k
        while b_q >= 1:
            if backward_working_set(b_q, b_k, d) <= M:
                return b_q, b_k
            if square:
                break
            b_q //= 2
        b_k //= 2
    raise ValueError(f"no backward tile fits in M = {M} numbers (d = {d})")


def io_bytes(n: int, m: int, d: int, *, M: int, itemsize: int = 2,
             square_backward: bool = False) -> dict[str, int]:
    """HBM bytes of forward and backward, standard and blockwise, keys ``"standard_forward"``,
    ``"blockwise_backward"``, …: the forward with blocks ``sram_block(M, d)``, the backward with
    ``sram_tiles_backward(M, d, square=square_backward)``."""
    b = sram_block(M, d)
    tiles = {"forward": (b, b), "backward": sram_tiles_backward(M, d, square=square_backward)}
    out = {}
    for method in ("standard", "blockwise"):
        for pass_ in ("forward", "backward"):
            b_q, b_k = tiles[pass_]
            io = io_counts(n, m, d, method=method, pass_=pass_, b_q=b_q, b_k=b_k)
            out[f"{method}_{pass_}"] = io.total * itemsize
    return out


def recompute_vs_reload(d: int, *, flops: float, bandwidth: float, itemsize: int = 2,
                        exp_rate: float | None = None) -> float:
    """A model, per entry of P: the time to recompute P_ij = e^{q_i · k_j − lse_i} (2d matmul
    flops at ``flops`` per second, plus one exponential at ``exp_rate`` per second when given:
    the special-function units, far slower than the tensor cores) over the time to write P_ij
    to HBM in the forward and read it back in the backward (2 · itemsize bytes at ``bandwidth``
    bytes per second). Below 1, recomputing is faster. It assumes both run at their peaks and
    do not overlap."""
    t = 2 * d / flops + (1 / exp_rate if exp_rate else 0.0)
    return t / (2 * itemsize / bandwidth)
