"""Checkers for the book's exercises: ``check.softmax_vjp(my_softmax_vjp)`` and so on.

Each checker calls the reader's function on cases it chooses (one row and batches with head axes,
n ≠ m, d_k ≠ d_v, masks with −inf and finite fills, dropout masks, scores in the thousands,
float32 and float64), compares every output with attnlib's, checks that the inputs come back
unchanged and the outputs are new arrays (and, for the online softmax and the blockwise backward,
that no n×m array is built: peak NumPy memory by ``tracemalloc``), and prints in Korean, wrapped
at 72 columns: ``✔`` with the kinds of case run and the bound each dtype stayed under, or ``✘``
with the first failing case (shapes and options), the wrong output, its largest error and, when
the grader has identified the mistake, a hint that names it (``HINTS``). A wrong answer, a stub
that raises NotImplementedError (``…``), a misuse or strict floating-point settings print;
nothing raises.

The function gets NumPy arrays; with ``backend=None`` a function that fails on them is tried once
with torch tensors, ``backend="torch"`` asks for tensors. It may return arrays or tensors.
Tolerance: error ≤ 1e-4 (float32) or 1e-10 (float64) times the largest entry of the reference.
"""

from ._hints import HINTS
from .blocks import blockwise_backward, online_softmax
from .layer import (
    attention_backward,
    dq_dk,
    dropout_backward,
    lse_backward,
    mask_add,
    mask_replace,
    pv_backward,
)
from .rows import layernorm_backward, normalized_entropy, softmax, softmax_jacobian, softmax_vjp

__all__ = [
    "HINTS",
    "attention_backward",
    "blockwise_backward",
    "dq_dk",
    "dropout_backward",
    "layernorm_backward",
    "lse_backward",
    "mask_add",
    "mask_replace",
    "normalized_entropy",
    "online_softmax",
    "pv_backward",
    "softmax",
    "softmax_jacobian",
    "softmax_vjp",
]
