"""The NumPy backend: ``from attnlib import numpy as A``.

Same names and signatures as ``attnlib.torch``. Inputs are converted with ``np.asarray``;
integer and boolean arrays become float64, float arrays keep their dtype.

Conventions: ``S = scale · Q Kᵀ`` with ``scale = 1/sqrt(d_k)`` by default (a multiplier α is
``scale=α/sqrt(d_k)``); ``mask`` as SDPA's ``attn_mask``: boolean (True where a query may
attend a key, masked scores replaced by ``fill``, default ``-inf``) or float (added to the
scores); ``is_causal=True`` (upper left, as SDPA); ``fully_masked="nan"`` (the math) or ``"zero"``
(SDPA, flash-attention) for rows with every key masked; ``enable_gqa=True`` for K, V with fewer
heads than Q; ``dropout_mask`` M is 0/1 shaped like P and ``P̃ = P ⊙ M / (1 − p_drop)``.
Shapes: Q (..., n, d_k), K (..., m, d_k), V (..., m, d_v), S P U Δ (..., n, m), O G (..., n, d_v),
r lse (..., n). Bad input raises ValueError. ``causal_mask(n, m, align=...)`` builds SDPA's or
flash-attention's causal mask.
"""

from .core._ops import NumpyOps, install

__all__ = install(NumpyOps(), globals())
