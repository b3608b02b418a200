"""Measuring what the book's computations cost: time side by side, peak memory, saved bytes.

Used by the appendix 「성능과 메모리」 (small sizes, during the build) and by ``make bench``
(``benchmarks/``, full sizes). Machines are noisy, so contenders run interleaved, round by
round, and a comparison is the ratio of their best times in the same run. No math of attention
lives here: every contender calls ``attnlib.numpy`` / ``attnlib.torch`` (or torch itself).

- :func:`race` times several functions interleaved; :func:`peak_bytes` and :func:`kept_bytes`
  read NumPy allocations through ``tracemalloc``; :func:`saved_bytes` counts what torch autograd
  keeps for the backward; :func:`growth_exponent` fits ``y ∝ x^k``.
- :func:`row_rule_sweep`, :func:`lse_sweep`, :func:`backend_race`: the three measurements
  the appendix plots and the suite prints; :func:`frame_times`: what one slider move of a
  live explorer costs.
"""

from __future__ import annotations

import gc
import math
import time
import tracemalloc
from collections.abc import Callable, Mapping
from functools import partial

import numpy as np

__all__ = ["race", "best", "peak_bytes", "kept_bytes", "saved_bytes", "growth_exponent",
           "jacobian_vjp", "row_rule_sweep", "lse_sweep", "torch_saved_sweep", "backend_race",
           "inputs", "frame_times"]


# ---------------------------------------------------------------- measuring ----

def race(fns: Mapping[str, Callable[[], object]], *, rounds: int = 5, warmup: int = 1,
         budget_s: float | None = None) -> dict[str, list[float]]:
    """Seconds per call of each function, run interleaved: round r calls every function once.

    The order rotates each round so that no contender always runs first (or right after the
    slowest). ``budget_s`` stops adding rounds (after at least three) once it is spent.
    """
    names = list(fns)
    for _ in range(warmup):
        for name in names:
            fns[name]()
    times: dict[str, list[float]] = {name: [] for name in names}
    start = time.perf_counter()
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            t0 = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - t0)
        if budget_s is not None and r >= 2 and time.perf_counter() - start > budget_s:
            break
    return times


def best(times: list[float]) -> float:
    """The best (smallest) time: the least disturbed by other processes on a shared machine."""
    return min(times)


def peak_bytes(fn: Callable[[], object]) -> tuple[object, int]:
    """``(fn(), peak)``: the most bytes NumPy (and Python) held during ``fn`` beyond what was
    already allocated, read with ``tracemalloc``. The returned result is part of the peak."""
    gc.collect()
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return result, peak - base


def kept_bytes(fn: Callable[[], object]) -> tuple[object, int]:
    """``(fn(), kept)``: bytes still allocated after ``fn`` returned (what its result holds)."""
    gc.collect()
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        result = fn()
        gc.collect()
        current, _ = tracemalloc.get_traced_memory()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return result, current - base


def saved_bytes(forward: Callable[[], object], inputs=()) -> tuple[object, int]:
    """``(forward(), bytes)``: what torch autograd saves for the backward during ``forward``,
    each storage counted once, the storages of ``inputs`` (Q, K, V) left out."""
    import torch

    skip = {t.untyped_storage().data_ptr() for t in inputs}
    seen: dict[int, int] = {}

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in skip:
            seen[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = forward()
    return out, sum(seen.values())


def frame_times(frame: Callable[..., object], positions) -> list[float]:
    """Seconds per explorer position, each computed and encoded as a live slider move does it
    (``frame(**values)`` then ``attnlib.widgets.render_outputs``, fast PNG), in order."""
    from . import widgets

    times = []
    for values in positions:
        t0 = time.perf_counter()
        widgets.render_outputs(frame(**values), compact=False)
        times.append(time.perf_counter() - t0)
    return times


def growth_exponent(xs, ys) -> float:
    """k in ``y ≈ c · x^k``: the slope of the least-squares line through (log x, log y)."""
    lx, ly = np.log(np.asarray(xs, dtype=float)), np.log(np.asarray(ys, dtype=float))
    return float(np.polyfit(lx, ly, 1)[0])


def inputs(n: int, m: int, d: int, dtype="float64", seed: int = 0):
    """Q (n, d), K (m, d), V (m, d), G (n, d): standard normal, fixed seed, NumPy arrays."""
    rng = np.random.default_rng(seed)
    Q, G = rng.standard_normal((2, n, d))
    K, V = rng.standard_normal((2, m, d))
    return tuple(np.ascontiguousarray(x, dtype=dtype) for x in (Q, K, V, G))


# ------------------------------------------------------ the three measurements ----

def jacobian_vjp(P, U):
    """uᵀJ per row with J = diag(p) − p pᵀ built explicitly: (n, m), (n, m) → (n, m)."""
    from attnlib import numpy as A

    J = A.softmax_jacobian(P)  # (n, m) -> (n, m, m)
    return np.einsum("ij,ijk->ik", U, J)  # (n, m) · (n, m, m) -> (n, m)


def row_rule_sweep(n: int, ms, *, dtype="float64", rounds: int = 3, seed: int = 0) -> list[dict]:
    """For each m: time and peak memory of the softmax VJP, explicit Jacobian vs the row rule.

    P = softmax of standard-normal scores, U standard normal, both (n, m). Memory is the peak
    beyond the inputs, in bytes, the output (one n×m array) included.
    """
    return [_row_rule_point(n, m, dtype, rounds, seed) for m in ms]


def _row_rule_point(n, m, dtype, rounds, seed):
    from attnlib import numpy as A

    rng = np.random.default_rng(seed)
    P = A.softmax(rng.standard_normal((n, m)).astype(dtype))  # (n, m)
    U = rng.standard_normal((n, m)).astype(dtype)  # (n, m)
    jac, row = partial(jacobian_vjp, P, U), partial(A.softmax_vjp, P, U)
    t = race({"jacobian": jac, "row": row}, rounds=rounds)
    return {"n": n, "m": m, "dtype": str(dtype), "t_jacobian": best(t["jacobian"]),
            "t_row": best(t["row"]), "mem_jacobian": peak_bytes(jac)[1],
            "mem_row": peak_bytes(row)[1], "nm_bytes": n * m * np.dtype(dtype).itemsize}


def lse_sweep(ns, d: int = 64, *, dtype="float64", seed: int = 0, block: int = 128) -> list[dict]:
    """For each n = m: bytes the forward keeps for the backward beyond Q, K, V, and the peak
    of the backward itself, saved-P (``attention`` → O, P) against LSE (→ O, lse).

    The saved-P backward is ``attention_backward`` (it rebuilds P from Q, K; NumPy has no
    autograd tape), the LSE one is ``attention_backward_lse`` from (O, lse); where the backend
    has it, also ``attention_blockwise_backward`` (blocks of ``block`` × ``block``), which
    never holds an n×m array.
    """
    return [_lse_point(n, d, dtype, seed, block) for n in ns]


def _lse_point(n, d, dtype, seed, block):
    from attnlib import numpy as A

    Q, K, V, G = inputs(n, n, d, dtype, seed)
    _, kept_p = kept_bytes(partial(A.attention, Q, K, V))  # keeps (O, P)
    (O, lse), kept_lse = kept_bytes(partial(A.attention_lse, Q, K, V))  # keeps (O, lse)
    item = np.dtype(dtype).itemsize
    row = {"n": n, "m": n, "d": d, "dtype": str(dtype), "kept_saved_p": kept_p,
           "kept_lse": kept_lse,
           "peak_bwd_saved_p": peak_bytes(partial(A.attention_backward, G, Q, K, V))[1],
           "peak_bwd_lse": peak_bytes(partial(A.attention_backward_lse, G, Q, K, V, O, lse))[1],
           "nm_bytes": n * n * item, "nd_bytes": n * d * item, "n_bytes": n * item}
    blockwise = getattr(A, "attention_blockwise_backward", None)
    if blockwise is not None:
        b = min(block, n)
        run = partial(blockwise, G, Q, K, V, O, lse, block_q=b, block_k=b)
        row["peak_bwd_blockwise"], row["block"] = peak_bytes(run)[1], b
    return row


def torch_saved_sweep(ns, d: int = 64, *, dtype="float64", seed: int = 0,
                      device: str = "cpu") -> list[dict]:
    """For each n = m: bytes torch autograd saves for the backward beyond Q, K, V — plain
    autograd, ``attnlib.torch.AttentionFunction`` and SDPA (its fused kernel keeps O and lse).
    On CUDA also the peak memory of each backward beyond what was allocated before it."""
    return [_torch_saved_point(n, d, dtype, seed, device) for n in ns]


def _torch_saved_point(n, d, dtype, seed, device):
    import torch

    from attnlib import torch as T

    Q, K, V, G = (torch.as_tensor(x, device=device) for x in inputs(n, n, d, dtype, seed))
    q, k, v = (x.detach()[None, None].requires_grad_(True) for x in (Q, K, V))  # (1, 1, n, d)
    scale = 1.0 / math.sqrt(d)
    forwards = {
        "autograd": lambda: torch.softmax((q @ k.mT) * scale, dim=-1) @ v,
        "function": lambda: T.attention_autograd(q, k, v),
        "sdpa": lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v),
    }
    cuda = device.startswith("cuda")
    row = {"n": n, "m": n, "d": d, "dtype": str(dtype)}
    for name, forward in forwards.items():
        O, row[f"saved_{name}"] = saved_bytes(forward, (q, k, v))
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            before = torch.cuda.memory_allocated()
            O.backward(G[None, None])
            torch.cuda.synchronize()
            row[f"cuda_peak_bwd_{name}"] = torch.cuda.max_memory_allocated() - before
        del O
        q.grad = k.grad = v.grad = None
    return row


def backend_race(n: int, d: int = 64, *, dtype="float64", rounds: int = 5, seed: int = 0,
                 budget_s: float | None = None, device: str = "cpu") -> dict[str, float]:
    """Best seconds of one forward+backward (n = m), each contender on the same inputs:

    ``numpy`` (``attention`` then ``attention_backward`` given the forward's P, as autograd
    keeps it), ``numpy_recompute`` (the backward rebuilds P from Q, K), ``numpy_lse``
    (``attention_lse`` then ``attention_backward_lse``), ``autograd`` (torch: softmax(QKᵀ·s)V,
    ``.backward``),
    ``function`` (``attnlib.torch.AttentionFunction``), ``sdpa``
    (``scaled_dot_product_attention``, shaped (1, 1, n, d) so that CPU takes its fused kernel).
    The NumPy contenders run only on the CPU.
    """
    import torch

    from attnlib import numpy as A
    from attnlib import torch as T

    Q, K, V, G = inputs(n, n, d, dtype, seed)
    tQ, tK, tV, tG = (torch.as_tensor(x, device=device) for x in (Q, K, V, G))
    scale = 1.0 / math.sqrt(d)
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)

    def leaves():
        return [x.detach().requires_grad_(True) for x in (tQ, tK, tV)]

    def autograd():
        q, k, v = leaves()
        P = torch.softmax((q @ k.mT) * scale, dim=-1)  # (n, m)
        (P @ v).backward(tG)  # (n, m) @ (m, d) -> (n, d)
        sync()

    def function():
        q, k, v = leaves()
        T.attention_autograd(q, k, v).backward(tG)
        sync()

    def sdpa():
        q, k, v = (x[None, None] for x in leaves())
        torch.nn.functional.scaled_dot_product_attention(q, k, v).backward(tG[None, None])
        sync()

    def numpy():
        _, P = A.attention(Q, K, V)
        A.attention_backward(G, Q, K, V, P=P)

    def numpy_recompute():
        A.attention(Q, K, V)
        A.attention_backward(G, Q, K, V)

    def numpy_lse():
        O, lse = A.attention_lse(Q, K, V)
        A.attention_backward_lse(G, Q, K, V, O, lse)

    fns = {"autograd": autograd, "function": function, "sdpa": sdpa}
    if device == "cpu":
        fns = {"numpy": numpy, "numpy_recompute": numpy_recompute, "numpy_lse": numpy_lse, **fns}
    times = race(fns, rounds=rounds, budget_s=budget_s)
    return {name: best(t) for name, t in times.items()}
