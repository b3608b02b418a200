"""Measurements of Part III: the peak extra memory of the two attention paths (NumPy with
``tracemalloc``, CUDA tensors with torch's allocator statistics) and the rounding error of the
online softmax against the two-pass one. Measurement only; the math is in the backends."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

__all__ = ["MemoryRun", "peak_extra_bytes", "attention_peak_memory", "softmax_rounding_error"]


class MemoryRun(NamedTuple):
    """Per sequence length n (= m): peak extra bytes of each path, and the bytes of its results."""

    n: np.ndarray
    whole: np.ndarray  # attention (O, P saved) then attention_backward(..., P=P)
    blockwise: np.ndarray  # attention_blockwise (O, lse) then attention_blockwise_backward
    outputs: np.ndarray  # O, lse, dQ, dK, dV: what any path hands back


def peak_extra_bytes(fn: Callable[..., Any], *args, device=None) -> tuple[Any, int]:
    """``(fn(*args), peak bytes allocated while it ran, beyond those allocated before it)``.

    NumPy (``device=None``): ``tracemalloc``, which sees every NumPy buffer. A CUDA device:
    ``torch.cuda.max_memory_allocated`` after ``reset_peak_memory_stats``.
    """
    if device is not None:
        import torch

        torch.cuda.synchronize(device)
        base = torch.cuda.memory_allocated(device)
        torch.cuda.reset_peak_memory_stats(device)
        result = fn(*args)
        torch.cuda.synchronize(device)
        return result, int(torch.cuda.max_memory_allocated(device) - base)
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    try:
        result = fn(*args)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return result, int(peak)


def attention_peak_memory(n_values: Sequence[int], *, d: int = 64, block: int = 128,
                          dtype: str = "float64", device=None, seed: int = 0) -> MemoryRun:
    """Forward then backward at n = m for each n, by the whole-matrix and the blockwise path.

    NumPy arrays when ``device`` is None, else torch tensors on that (CUDA) device. Inputs are
    made before the measurement, so only what each path allocates counts.
    """
    if device is None:
        from . import numpy as B

        def make(x):
            return x.astype(dtype)
    else:
        import torch

        from . import torch as B

        def make(x):
            return torch.as_tensor(x, dtype=getattr(torch, dtype), device=device)

    def whole(Q, K, V, G):
        O, P = B.attention(Q, K, V)  # P (n, m) is saved for the backward
        return (O, *B.attention_backward(G, Q, K, V, P=P))

    def blockwise(Q, K, V, G):
        O, lse = B.attention_blockwise(Q, K, V, block_q=block, block_k=block)
        grads = B.attention_blockwise_backward(G, Q, K, V, O, lse, block_q=block, block_k=block)
        return (O, lse, *grads)

    rng = np.random.default_rng(seed)
    rows = []
    for i, n in enumerate([min(n_values)] + list(n_values)):  # the first run warms caches up
        Q, K, V, G = (make(rng.standard_normal((n, d))) for _ in range(4))
        _, whole_bytes = peak_extra_bytes(whole, Q, K, V, G, device=device)
        results, block_bytes = peak_extra_bytes(blockwise, Q, K, V, G,
                                                device=device)
        out_bytes = sum(_nbytes(x) for x in results)
        if i > 0:
            rows.append((n, whole_bytes, block_bytes, out_bytes))
    return MemoryRun(*(np.array(col) for col in zip(*rows, strict=True)))


def _nbytes(x) -> int:
    return int(x.nbytes) if hasattr(x, "nbytes") else int(x.element_size() * x.nelement())


def softmax_rounding_error(dtype: str, *, block_k: int | None, order: str = "random",
                           n: int = 16, m: int = 1024, spread: float = 3.0, seed: int = 0) -> float:
    """max |P − P_ref| in units of ``dtype``'s unit roundoff u = eps/2, P by the online softmax
    (``block_k``) or the two-pass one (``block_k=None``).

    The errors are the softmax's own: d_k = 1 (each score one rounded product), V = I (so O = P,
    every product exact), the reference the two-pass softmax of the same rounded scores in long
    double. ``order="ascending"`` sorts the keys by score, so the running max grows at every block.
    """
    from . import numpy as A

    rng = np.random.default_rng(seed)
    q = spread * rng.standard_normal((n, 1))  # (n, d_k = 1)
    k = rng.standard_normal((m, 1))  # (m, 1)
    if order == "ascending":
        k = np.sort(k, axis=0)
    elif order != "random":
        raise ValueError(f"order must be 'random' or 'ascending', got {order!r}")
    Q, K, V = q.astype(dtype), k.astype(dtype), np.eye(m, dtype=dtype)
    S_ref = A.scores(Q.astype(np.longdouble), K.astype(np.longdouble), scale=1.0)  # (n, m)
    P_ref = A.softmax(S_ref)
    if block_k is None:
        P, _ = A.attention(Q, K, V, scale=1.0)
    else:
        P, _ = A.attention_blockwise(Q, K, V, block_q=n, block_k=block_k, scale=1.0)
    u = np.finfo(dtype).eps / 2
    return float(np.abs(P - P_ref).max() / u)
