"""Peaked distributions: the normalized row entropy and, per query row, how Δ and ∂L/∂Q die as
the scores are sharpened by a multiplier α (scale = α/sqrt(d_k))."""

import math
from typing import Any, NamedTuple

from . import validate
from .attention import attention_backward_parts
from .softmax import entropy


class RowStats(NamedTuple):
    """Per multiplier α and query row i: max_j P_ij, H(P_i)/log m, ‖Δ_i‖ and ‖(∂L/∂Q)_i‖."""

    max_p: Any
    norm_entropy: Any
    delta: Any
    dQ: Any


def normalized_entropy(xp, P):
    """H(P_i)/log m averaged over the query rows (1 uniform, 0 one-hot): (..., n, m) → (...)."""
    P = validate.array(xp, P, "P", min_ndim=2, finite=False)
    m = P.shape[-1]
    if m < 2:
        raise ValueError(f"P needs m ≥ 2 keys (log m > 0), got shape {tuple(P.shape)}")
    return xp.sum(entropy(xp, P), axis=-1) * (1.0 / (P.shape[-2] * math.log(m)))


def row_collapse(xp, G, Q, K, V, multipliers):
    """For each α: RowStats of every query row (arrays shaped (len(multipliers), ..., n))."""
    d_k = validate.array(xp, Q, "Q", min_ndim=2).shape[-1]
    rows = []
    for alpha in validate.numbers(multipliers, "multipliers"):
        parts = attention_backward_parts(xp, G, Q, K, V, scale=alpha / math.sqrt(d_k))
        m = parts.P.shape[-1]
        rows.append((
            xp.max(parts.P, axis=-1),  # (..., n)
            entropy(xp, parts.P) * (1.0 / math.log(m)),  # (..., n)
            xp.sqrt(xp.sum(parts.delta * parts.delta, axis=-1)),  # (..., n)
            xp.sqrt(xp.sum(parts.dQ * parts.dQ, axis=-1)),  # (..., n)
        ))
    return RowStats(*(xp.stack(col) for col in zip(*rows, strict=True)))
