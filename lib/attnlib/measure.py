"""Measuring what the book's computations cost: time side by side, peak memory, saved bytes, and
the rounding error of the online softmax. Measurement only: every contender calls
``attnlib.numpy`` / ``attnlib.torch`` (or torch itself); the math is in ``attnlib.core``.

Used by chapters 8, 15 and 19, the appendix 「성능과 메모리」 (small sizes, during the build) and
``make bench`` (``benchmarks/``, full sizes). Machines are noisy, so contenders run interleaved,
round by round, and a comparison is the ratio of their best times in the same run.

- Time: :func:`race` (several functions interleaved), :func:`best`, :func:`frame_times` (what one
  slider move of a live explorer costs).
- Memory: :func:`peak_extra_bytes` (NumPy through ``tracemalloc``, CUDA through torch's
  allocator), :func:`kept_bytes` (what a result holds), :func:`saved_bytes` (what torch autograd
  keeps for the backward); :func:`growth_exponent` fits ``y ∝ x^k``; :func:`inputs`.
- The measurements the book prints: :func:`row_rule_sweep` (chapter 8, appendix),
  :func:`lse_sweep`, :func:`torch_saved_sweep`, :func:`backend_race` (appendix),
  :func:`attention_peak_memory` (chapter 19), :func:`normalizer_error` and
  :func:`mixed_precision_error` (chapter 19, the rounding of the online softmax),
  :func:`in_place_sweep` (appendix: the core's in-place arithmetic against
  :func:`out_of_place_ops`), :func:`key_reads` (chapter 17: which keys each read of K and V in a
  blockwise path touched).

In-place arithmetic in the core. The core computes in an array's own buffer (``xp.isub``,
``xp.imul``, ``xp.idiv``, ``xp.exp_``) only where a peak would otherwise grow by whole n×m arrays
(by blocks in the blockwise path): scale · Q Kᵀ → e^(S − max) → P in S's buffer
(``masked_scores``, ``softmax_lse``), exp(S − lse) in S's buffer (LSE and blockwise backward, and
the online softmax's blocks), Δ = P ⊙ (U − r) in U's buffer (``five_lines`` and the blockwise
backward), and dQ, dK scaled in the product's buffer (no n×d temporary, whatever NumPy's
temporary elision does). With them ``attention_backward`` peaks at two n×m arrays (P and U)
plus the n×d gradients; computed out of place it peaks at four, the forward at three, not one
(:func:`in_place_sweep`, printed by the appendix 「성능과 메모리」; ``tests/lib/test_measure.py``;
``docs/DESIGN.md``).
"""

from __future__ import annotations

import gc
import math
import time
import tracemalloc
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, NamedTuple

import numpy as np

__all__ = ["race", "best", "frame_times", "peak_extra_bytes", "kept_bytes", "saved_bytes",
           "growth_exponent", "inputs", "row_rule_sweep", "lse_sweep", "torch_saved_sweep",
           "backend_race", "MemoryRun", "attention_peak_memory", "normalizer_scores",
           "normalizer_error", "mixed_precision_error",
           "out_of_place_ops", "in_place_sweep", "KeyReads", "key_reads"]


# -------------------------------------------------------------------------------- time ----

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


def frame_times(frame: Callable[..., object], positions) -> list[float]:
    """Seconds per explorer position, each computed and encoded as a live slider move does it
    (``frame(**values)`` then ``attnlib.pictures.render_outputs``, fast PNG), in order."""
    from .pictures import render_outputs

    times = []
    for values in positions:
        t0 = time.perf_counter()
        render_outputs(frame(**values), compact=False)
        times.append(time.perf_counter() - t0)
    return times


# ------------------------------------------------------------------------------ memory ----

def peak_extra_bytes(fn: Callable[..., Any], *args, device=None) -> tuple[Any, int]:
    """``(fn(*args), peak bytes allocated while it ran, beyond those allocated before it)``.

    NumPy (``device=None``): ``tracemalloc``, which sees every NumPy buffer (garbage is collected
    first); the returned result is part of the peak. A CUDA device:
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
    gc.collect()
    with _tracing():
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        result = fn(*args)
        _, peak = tracemalloc.get_traced_memory()
    return result, int(peak - base)


def kept_bytes(fn: Callable[[], object]) -> tuple[object, int]:
    """``(fn(), kept)``: bytes still allocated after ``fn`` returned (what its result holds)."""
    gc.collect()
    with _tracing():
        base, _ = tracemalloc.get_traced_memory()
        result = fn()
        gc.collect()
        current, _ = tracemalloc.get_traced_memory()
    return result, current - base


class _tracing:
    """``tracemalloc`` on for the block (left on if it already was)."""

    def __enter__(self):
        self.was_tracing = tracemalloc.is_tracing()
        if not self.was_tracing:
            tracemalloc.start()

    def __exit__(self, *exc):
        if not self.was_tracing:
            tracemalloc.stop()


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


def _nbytes(x) -> int:
    return int(x.nbytes) if hasattr(x, "nbytes") else int(x.element_size() * x.nelement())


# -------------------------------------------------- the softmax VJP: Jacobian or row rule ----

def row_rule_sweep(n: int, ms, *, dtype="float64", rounds: int = 3, seed: int = 0) -> list[dict]:
    """For each m: time and peak memory of the softmax VJP, explicit Jacobian
    (``softmax_jacobian_vjp``) vs the row rule (``softmax_vjp``).

    P = softmax of standard-normal scores, U standard normal, both (n, m). Memory is the peak
    beyond the inputs, in bytes, the output (one n×m array) included.
    """
    return [_row_rule_point(n, m, dtype, rounds, seed) for m in ms]


def _row_rule_point(n, m, dtype, rounds, seed):
    from . import numpy as A

    rng = np.random.default_rng(seed)
    P = A.softmax(rng.standard_normal((n, m)).astype(dtype))  # (n, m)
    U = rng.standard_normal((n, m)).astype(dtype)  # (n, m)
    jac, row = partial(A.softmax_jacobian_vjp, P, U), partial(A.softmax_vjp, P, U)
    t = race({"jacobian": jac, "row": row}, rounds=rounds)
    return {"n": n, "m": m, "dtype": str(dtype), "t_jacobian": best(t["jacobian"]),
            "t_row": best(t["row"]), "mem_jacobian": peak_extra_bytes(jac)[1],
            "mem_row": peak_extra_bytes(row)[1], "nm_bytes": n * m * np.dtype(dtype).itemsize}


# ------------------------------------------------------ what attention keeps and holds ----

def lse_sweep(ns, d: int = 64, *, dtype="float64", seed: int = 0, block: int = 128) -> list[dict]:
    """For each n = m: bytes the forward keeps for the backward beyond Q, K, V, and the peak
    of the backward itself, saved-P (``attention`` → O, P) against LSE (→ O, lse).

    The saved-P backward is ``attention_backward`` (it rebuilds P from Q, K; NumPy has no
    autograd tape), the LSE one is ``attention_backward_lse`` from (O, lse), and
    ``attention_blockwise_backward`` (blocks of ``block`` × ``block``) never holds an n×m array.
    :func:`attention_peak_memory` measures forward and backward together instead.
    """
    return [_lse_point(n, d, dtype, seed, block) for n in ns]


def _lse_point(n, d, dtype, seed, block):
    from . import numpy as A

    Q, K, V, G = inputs(n, n, d, dtype, seed)
    _, kept_p = kept_bytes(partial(A.attention, Q, K, V))  # keeps (O, P)
    (O, lse), kept_lse = kept_bytes(partial(A.attention_lse, Q, K, V))  # keeps (O, lse)
    item = np.dtype(dtype).itemsize
    b = min(block, n)
    blockwise = partial(A.attention_blockwise_backward, G, Q, K, V, O, lse, block_q=b, block_k=b)
    return {"n": n, "m": n, "d": d, "dtype": str(dtype), "kept_saved_p": kept_p,
            "kept_lse": kept_lse,
            "peak_bwd_recompute": peak_extra_bytes(A.attention_backward, G, Q, K, V)[1],
            "peak_bwd_lse": peak_extra_bytes(A.attention_backward_lse, G, Q, K, V, O, lse)[1],
            "nm_bytes": n * n * item, "nd_bytes": n * d * item, "n_bytes": n * item,
            "peak_bwd_blockwise": peak_extra_bytes(blockwise)[1], "block": b}


def torch_saved_sweep(ns, d: int = 64, *, dtype="float64", seed: int = 0,
                      device: str = "cpu") -> list[dict]:
    """For each n = m: bytes torch autograd saves for the backward beyond Q, K, V — plain
    autograd, ``attnlib.torch.AttentionFunction`` and SDPA (its fused kernel keeps O and lse).
    On CUDA also the peak memory of each backward beyond what was allocated before it; there
    pass ``dtype="bfloat16"`` or ``"float16"``: the fused kernels do not take float64."""
    return [_torch_saved_point(n, d, dtype, seed, device) for n in ns]


def _torch_saved_point(n, d, dtype, seed, device):
    import torch

    from . import torch as T

    # bfloat16/float16 (what the fused CUDA kernels take) are drawn in float64 and cast
    np_dtype = dtype if str(dtype) in ("float32", "float64") else "float64"
    Q, K, V, G = (torch.as_tensor(x, device=device).to(getattr(torch, str(dtype)))
                  for x in inputs(n, n, d, np_dtype, seed))
    q, k, v = (x.detach()[None, None].requires_grad_(True) for x in (Q, K, V))  # (1, 1, n, d)
    scale = 1.0 / math.sqrt(d)
    forwards = {
        "autograd": lambda: torch.softmax(scale * (q @ k.mT), dim=-1) @ v,
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


class MemoryRun(NamedTuple):
    """Per sequence length n (= m): peak extra bytes of each path, and the bytes of its results."""

    n: np.ndarray
    whole: np.ndarray  # attention (O, P saved) then attention_backward(..., P=P)
    blockwise: np.ndarray  # attention_blockwise (O, lse) then attention_blockwise_backward
    outputs: np.ndarray  # O, lse, dQ, dK, dV: what any path hands back


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
        results, block_bytes = peak_extra_bytes(blockwise, Q, K, V, G, device=device)
        out_bytes = sum(_nbytes(x) for x in results)
        if i > 0:
            rows.append((n, whole_bytes, block_bytes, out_bytes))
    return MemoryRun(*(np.array(col) for col in zip(*rows, strict=True)))



# --------------------------------------------------------- which keys a blockwise path reads ----

class KeyReads(NamedTuple):
    """What :func:`key_reads` saw: for K and for V, one entry per read, the key (row) numbers that
    read touched; and what the run returned."""
    K: list[tuple[int, ...]]
    V: list[tuple[int, ...]]
    out: Any

    def counts(self, name: str, m: int) -> np.ndarray:
        """How many times each of the m keys was read from ``name`` ("K" or "V")."""
        reads = getattr(self, name)
        return np.bincount([j for keys in reads for j in keys], minlength=m)

    def widest(self, name: str) -> int:
        """The most keys one read of ``name`` touched (0 when it was never read)."""
        return max((len(keys) for keys in getattr(self, name)), default=0)


def _key_index(idx, ndim: int):
    """The part of the index ``idx`` of an (..., m, d) array that falls on its key axis (−2)."""
    idx = idx if isinstance(idx, tuple) else (idx,)
    if any(i is Ellipsis for i in idx):
        after = idx[idx.index(Ellipsis) + 1:]  # aligned to the last len(after) axes
        at = len(after) - 2
        return after[at] if 0 <= at < len(after) else slice(None)
    return idx[ndim - 2] if len(idx) > ndim - 2 else slice(None)


class _Reads(np.ndarray):
    """An (..., m, d) array that notes which keys (rows of the last two axes) each read touched:
    an index its keys; a use of the whole array by a NumPy ufunc or function (as an argument or
    inside a list of them; ``out=`` is written, not read) or a view made by a method (``.T``,
    ``.reshape``, ``.copy``, …) every key, once; such a view notes nothing more.  What leaves
    NumPy without an index, a ufunc or a function (``np.asarray``, ``.view(np.ndarray)``,
    ``.tolist()``, ``torch.from_numpy``) is not seen: the instrument is for NumPy paths that read
    their K and V by indexing and NumPy arithmetic, as ``core.blockwise`` does."""

    log: list | None = None

    def __array_finalize__(self, obj):
        if isinstance(obj, _Reads) and obj.log is not None:
            obj._whole()  # a view or copy of the whole array: every key, read here once
        self.log = None

    def __getitem__(self, idx):
        if self.log is None:
            return self.view(np.ndarray)[idx]
        keys = np.arange(self.shape[-2])[_key_index(idx, self.ndim)]
        self.log.append(tuple(np.ravel(keys).tolist()))
        return self.view(np.ndarray)[idx]

    def _whole(self):
        if self.log is not None:
            self.log.append(tuple(range(self.shape[-2])))
        return self.view(np.ndarray)

    @staticmethod
    def _plain(x, note: bool = True):
        """``x`` with every _Reads in it (lists and tuples too) as a plain array, noted as a
        read of every key when ``note``."""
        if isinstance(x, _Reads):
            return x._whole() if note else x.view(np.ndarray)
        if isinstance(x, (list, tuple)):
            return type(x)(_Reads._plain(a, note) for a in x)
        return x

    @classmethod
    def _plain_kw(cls, kw):
        # ``out=`` is written, not read (an in-place ``x += 1`` reads x through its argument)
        return {k: cls._plain(v, note=k != "out") for k, v in kw.items()}

    def __array_ufunc__(self, ufunc, method, *args, **kw):
        return getattr(ufunc, method)(*self._plain(args), **self._plain_kw(kw))

    def __array_function__(self, func, types, args, kw):
        return func(*self._plain(args), **self._plain_kw(kw))


def key_reads(run: Callable[[], object]) -> KeyReads:
    """Call ``run()`` (a NumPy call of a path in ``attnlib.core.blockwise``) with the K and V that
    the path gets from ``attention_inputs`` replaced by arrays that note each read by indexing or
    by NumPy arithmetic (see :class:`_Reads` for what they do not see): for each read, which keys
    it touched (a slice ``K[..., cols, :]`` its keys, a use of the whole array every
    key). Chapter 17 counts with it that a query block reads each key once from K and once from V,
    and that no read covers more than one key block."""
    from .core import blockwise

    start, logs = blockwise.attention_inputs, {"K": [], "V": []}

    def recording(*args, **kw):
        inputs = start(*args, **kw)
        wrapped = {}
        for name in ("K", "V"):
            wrapped[name] = np.asarray(getattr(inputs, name)).view(_Reads)
            wrapped[name].log = logs[name]
        return inputs._replace(**wrapped)

    blockwise.attention_inputs = recording
    try:
        out = run()
    finally:
        blockwise.attention_inputs = start
    return KeyReads(logs["K"], logs["V"], out)


# ------------------------------------------------- what the core's in-place arithmetic saves ----

def out_of_place_ops():
    """The NumPy namespace with ``exp_``, ``isub``, ``imul``, ``idiv`` computed into new arrays:
    the core as it would run if every equation were written out of place."""
    from .numpy import NumpyOps

    class OutOfPlaceOps(NumpyOps):
        exp_ = staticmethod(np.exp)
        isub, imul, idiv = map(staticmethod, (np.subtract, np.multiply, np.divide))

    return OutOfPlaceOps()


def in_place_sweep(n: int, d: int = 64, *, block: int = 64, dtype="float64",
                   seed: int = 0) -> list[dict]:
    """Peak extra bytes of four core paths at n = m, run with the NumPy namespace (which computes
    in an array's own buffer where the core asks it to) and with :func:`out_of_place_ops`.

    The paths: the forward ``attention``, the backward ``attention_backward`` (P rebuilt),
    ``attention_backward_lse`` from (O, lse), and ``attention_blockwise_backward`` with
    ``block`` × ``block`` blocks. Each row has ``in_place``, ``out_of_place``, ``result`` (the
    bytes of what the path returns) and ``unit`` (one n×m array, or one block).
    """
    from . import core
    from .numpy import ops

    Q, K, V, G = inputs(n, n, d, dtype, seed)
    O, lse = core.attention_lse.attention_lse(ops, Q, K, V)
    item = np.dtype(dtype).itemsize
    b = min(block, n)
    paths = {
        "forward": (lambda xp: core.attention.attention(xp, Q, K, V), n * n * item),
        "backward": (lambda xp: core.attention.attention_backward(xp, G, Q, K, V), n * n * item),
        "backward_lse": (lambda xp: core.attention_lse.attention_backward_lse(
            xp, G, Q, K, V, O, lse), n * n * item),
        "blockwise_backward": (lambda xp: core.blockwise.attention_blockwise_backward(
            xp, G, Q, K, V, O, lse, block_q=b, block_k=b), b * b * item),
    }
    rows = []
    for name, (path, unit) in paths.items():
        result, in_place = peak_extra_bytes(path, ops)
        _, out_of_place = peak_extra_bytes(path, out_of_place_ops())
        rows.append({"path": name, "n": n, "d": d, "block": b, "unit": unit,
                     "in_place": in_place, "out_of_place": out_of_place,
                     "result": sum(_nbytes(x) for x in result)})
    return rows

# ----------------------------------------------------------- the backends side by side ----

def backend_race(n: int, d: int = 64, *, dtype="float64", rounds: int = 5, seed: int = 0,
                 budget_s: float | None = None, device: str = "cpu") -> dict[str, float]:
    """Best seconds of one forward+backward (n = m), each contender on the same inputs:

    ``numpy`` (``attention`` then ``attention_backward`` given the forward's P, as autograd
    keeps it), ``numpy_recompute`` (the backward rebuilds P from Q, K), ``numpy_lse``
    (``attention_lse`` then ``attention_backward_lse``), ``autograd`` (torch:
    softmax(scale · QKᵀ)V, ``.backward``), ``function`` (``attnlib.torch.AttentionFunction``),
    ``sdpa`` (``scaled_dot_product_attention``, shaped (1, 1, n, d) so that CPU takes its fused
    kernel). The NumPy contenders run only on the CPU.
    """
    import torch

    from . import numpy as A
    from . import torch as T

    Q, K, V, G = inputs(n, n, d, dtype, seed)
    tQ, tK, tV, tG = (torch.as_tensor(x, device=device) for x in (Q, K, V, G))
    scale = 1.0 / math.sqrt(d)
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)

    def leaves():
        return [x.detach().requires_grad_(True) for x in (tQ, tK, tV)]

    def autograd():
        q, k, v = leaves()
        P = torch.softmax(scale * (q @ k.mT), dim=-1)  # (n, m)
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


# ----------------------------------------------------------------- rounding (chapter 19) ----

ORDERS = ("random", "ascending", "descending")


def normalizer_scores(dtype: str = "float32", *, n: int = 8, m: int = 1024, order: str = "random",
                      spread: float = 3.0, seed: int = 0, shuffle: int | None = None):
    """``(S, S_exact)`` (n, m): scores of d_k = 1, S = fl(q_i k_j) in ``dtype`` (one rounding
    each), S_exact the same products of the same rounded q, k in float64 (exact for float32).

    q ~ ``spread``·N(0, 1), k ~ N(0, 1). ``order`` arranges each row's keys: as drawn
    (``"random"``), or sorted by that row's score, ``"ascending"`` (the running max grows at every
    block) or ``"descending"`` (the max is the first key: never rescaled). With ``shuffle`` (a
    seed), each row's keys are then put in a random permutation of their own drawn from it: the
    same scores in another order."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    rng = np.random.default_rng(seed)
    q = (spread * rng.standard_normal((n, 1))).astype(dtype)  # (n, 1)
    k = rng.standard_normal((1, m)).astype(dtype)  # (1, m)
    S = q * k  # (n, m), rounded in dtype
    S_exact = q.astype(np.float64) * k.astype(np.float64)  # (n, m)
    if order != "random":
        idx = np.argsort(S, axis=1, kind="stable")  # ascending by score, row by row
        if order == "descending":
            idx = idx[:, ::-1]
        S, S_exact = np.take_along_axis(S, idx, 1), np.take_along_axis(S_exact, idx, 1)
    if shuffle is not None:
        idx = np.random.default_rng(shuffle).permuted(np.tile(np.arange(m), (n, 1)), axis=1)
        S, S_exact = np.take_along_axis(S, idx, 1), np.take_along_axis(S_exact, idx, 1)
    return S, S_exact


def normalizer_error(dtype: str = "float32", *, m: int = 1024, block_k: int | None = None,
                     sequential: bool = False, ell_dtype: str | None = None,
                     alpha_dtype: str | None = None, order: str = "random",
                     reference: str = "rounded", n: int = 8,
                     spread: float = 3.0, seed: int = 0, shuffle: int | None = None) -> float:
    """The largest relative error of the normalizer over ``n`` rows, in units of ``dtype``'s
    unit roundoff u: |ℓ̂ e^{ŝ_max} / Σ_j e^{S_ij} − 1| / u.

    ℓ̂ by the online recurrence with ``block_k`` (``core.rounding.online_normalizer``, ℓ
    carried in ``ell_dtype``, α computed in ``alpha_dtype``) or, with ``block_k=None``, the
    two-pass softmax summed pairwise or ``sequential``-ly. The reference (float64) sums the
    same rounded scores (``reference="rounded"``: the softmax's own error) or the exact products
    (``"exact"``: the rounding of q·k counted too). Every P_ij of the row carries this error
    (plus the rounding of its own exponential and division). ``shuffle``: as in
    :func:`normalizer_scores`."""
    from .core import rounding

    S, S_exact = normalizer_scores(dtype, n=n, m=m, order=order, spread=spread, seed=seed,
                                   shuffle=shuffle)
    if block_k is None:
        s_max, ell = rounding.two_pass_normalizer(S, sequential=sequential)
    else:
        s_max, ell = rounding.online_normalizer(S, block_k, ell_dtype=ell_dtype,
                                                alpha_dtype=alpha_dtype)
    if reference not in ("rounded", "exact"):
        raise ValueError(f"reference must be 'rounded' or 'exact', got {reference!r}")
    S_ref = S.astype(np.float64) if reference == "rounded" else S_exact
    top = S_ref.max(axis=1)  # (n,)
    ell_ref = np.exp(S_ref - top[:, None]).sum(axis=1)
    ratio = ell.astype(np.float64) * np.exp(s_max.astype(np.float64) - top) / ell_ref
    u = np.finfo(dtype).eps / 2
    return float(np.abs(ratio - 1).max() / u)


def mixed_precision_error(dtype: str = "bfloat16", *, n: int = 32, m: int = 4096, d: int = 64,
                          block_k: int = 128, spread: float = 1.0,
                          seed: int = 0) -> dict[str, float]:
    """How far the real kernels' recipe lands from float64, torch on the CPU.

    Q (n, d), K, V (m, d) standard normal (Q times ``spread``), rounded to ``dtype``
    (``"bfloat16"``, ``"float16"``); the reference is float64 attention of those rounded inputs
    (scale 1/√d). The online forward runs over key blocks of ``block_k`` as a FlashAttention
    kernel does: S = Q Kᵀ and every product of two ``dtype`` numbers accumulated in float32, the
    statistics s_max, ℓ and acc in float32. Variants (keys of the result):

    - ``fp32``: P̂ = e^{S − s_max} kept in float32 for P̂ V;
    - ``p_rounded``: P̂ rounded to ``dtype`` before P̂ V (ℓ still sums the float32 P̂), as the
      kernels feed the tensor cores;
    - ``p_rounded_out``: that, and O stored in ``dtype``;
    - ``stats_low``: that, and the statistics s_max, ℓ and acc kept in ``dtype`` (the scores S
      and the exponent still in float32, P̂ rounded as in ``p_rounded``): against
      ``p_rounded_out`` only the statistics' type differs;
    - ``ell_low``: like ``p_rounded_out`` but ℓ alone kept in ``dtype`` (its long sum over the
      key blocks in ``dtype``; s_max, acc in float32);
    - ``all_low``: scores, statistics and acc all rounded to ``dtype`` (the matrix products
      still accumulate in float32, and the last division is in float32).

    With ``dtype="float32"`` every variant is the same computation.

    Values: max |O − O_ref| / max |O_ref|; ``u`` is ``dtype``'s unit roundoff, ``u32``
    float32's; ``inputs``: the same measure between O_ref and float64 attention of the
    unrounded float64 inputs (what rounding Q, K, V to ``dtype`` alone does)."""
    import torch

    low = getattr(torch, dtype)
    g = torch.Generator().manual_seed(seed)
    Q0 = spread * torch.randn(n, d, generator=g, dtype=torch.float64)
    K0, V0 = (torch.randn(m, d, generator=g, dtype=torch.float64) for _ in range(2))
    Q, K, V = (x.to(low) for x in (Q0, K0, V0))
    scale = 1.0 / math.sqrt(d)
    Q64, K64, V64 = (x.to(torch.float64) for x in (Q, K, V))
    O_ref = torch.softmax(scale * (Q64 @ K64.T), dim=-1) @ V64  # (n, d)

    def forward(p_dtype, score_dtype, max_dtype, ell_dtype, acc_dtype, out_dtype):
        Qs, Ks, Vs = (x.to(torch.float32) for x in (Q, K, V))  # exact: dtype ⊂ float32
        s_max = torch.full((n,), -math.inf, dtype=max_dtype)
        ell = torch.zeros(n, dtype=ell_dtype)
        acc = torch.zeros(n, d, dtype=acc_dtype)
        for j in range(0, m, block_k):
            S = (scale * (Qs @ Ks[j:j + block_k].T)).to(score_dtype)  # (n, b), fp32 accumulate
            s_new = torch.maximum(s_max, S.max(dim=-1).values.to(max_dtype))
            alpha = torch.exp(s_max - s_new)  # (n,)
            E = torch.exp(S - s_new[:, None])  # P̂ (n, b), in the wider of the two types
            ell = (alpha.to(ell_dtype) * ell + E.sum(dim=-1).to(ell_dtype)).to(ell_dtype)
            # (n, b) @ (b, d), products exact and accumulated in float32
            Pv = E.to(p_dtype).to(torch.float32) @ Vs[j:j + block_k]
            acc = (alpha.to(acc_dtype)[:, None] * acc + Pv.to(acc_dtype)).to(acc_dtype)
            s_max = s_new
        return (acc.to(torch.float32) / ell.to(torch.float32)[:, None]).to(out_dtype)

    f32 = torch.float32
    # (P̂ for P̂ V, scores, s_max, ℓ, acc, O)
    variants = {"fp32": (f32, f32, f32, f32, f32, f32),
                "p_rounded": (low, f32, f32, f32, f32, f32),
                "p_rounded_out": (low, f32, f32, f32, f32, low),
                "stats_low": (low, f32, low, low, low, low),
                "ell_low": (low, f32, f32, low, f32, low),
                "all_low": (low, low, low, low, low, low)}
    top = float(O_ref.abs().max())
    out = {name: float((forward(*args).to(torch.float64) - O_ref).abs().max()) / top
           for name, args in variants.items()}
    O_exact = torch.softmax(scale * (Q0 @ K0.T), dim=-1) @ V0
    out["inputs"] = float((O_ref - O_exact).abs().max()) / float(O_exact.abs().max())
    out["u"] = float(torch.finfo(low).eps) / 2
    out["u32"] = float(torch.finfo(torch.float32).eps) / 2
    return out
