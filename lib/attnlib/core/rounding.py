"""Rounding in the softmax normalizer ℓ = Σ_j e^{S_ij − s_max} (chapter 19), in a chosen dtype.

The sum is computed three ways, each row of ``S`` (rows, m) at once: the online recurrence over
key blocks (:func:`online_normalizer`, the order and the roundings of ``attention_blockwise``),
and the two-pass softmax summed pairwise or strictly left to right
(:func:`two_pass_normalizer`). ``ell_dtype`` accumulates ℓ in a wider type while everything else
stays in ``S``'s dtype: that separates the rounding of the long sum from the rounding of the
rescale factors. Host-side NumPy (the dtype is the point), not part of the backends' API.
"""

import numpy as np

__all__ = ["online_normalizer", "two_pass_normalizer", "rescale_count"]


def _blocks(S, block_k):
    """S (rows, m) as (rows, N_b, block_k), the last block padded with −inf (adds e^{−inf} = 0)."""
    rows, m = S.shape
    n_blocks = -(-m // block_k)
    pad = np.full((rows, n_blocks * block_k - m), -np.inf, dtype=S.dtype)
    return np.concatenate([S, pad], axis=1).reshape(rows, n_blocks, block_k)


def online_normalizer(S, block_k: int, *, ell_dtype=None, alpha_dtype=None):
    """``(s_max, ℓ)`` per row by the online recurrence, block k of ``block_k`` keys at a time:
    ℓ⁽ᵏ⁾ = α_k ℓ⁽ᵏ⁻¹⁾ + Σ_{j∈𝓑_k} e^{S_ij − s_max⁽ᵏ⁾}, α_k = e^{s_max⁽ᵏ⁻¹⁾ − s_max⁽ᵏ⁾}.

    Scores, exponentials and block sums in ``S``'s dtype; α's exponent s_max⁽ᵏ⁻¹⁾ − s_max⁽ᵏ⁾ is
    rounded in ``S``'s dtype (exact for neighbouring scores, Sterbenz), its ``exp`` runs in
    ``alpha_dtype``, and ℓ
    carried (the product α ℓ and the sum rounded) in ``ell_dtype`` (both default to ``S``'s).
    The block sums are NumPy's (pairwise) sums."""
    S = np.asarray(S)
    ell_dtype = np.dtype(ell_dtype or S.dtype)
    alpha_dtype = np.dtype(alpha_dtype or S.dtype)
    Sb = _blocks(S, block_k)  # (rows, N_b, b)
    s_max = np.maximum.accumulate(Sb.max(axis=-1), axis=1)  # (rows, N_b): s_max after block k
    before = np.concatenate([np.full_like(s_max[:, :1], -np.inf), s_max[:, :-1]], axis=1)
    # (rows, N_b); α_1 = e^{−inf} = 0
    alpha = np.exp((before - s_max).astype(alpha_dtype)).astype(ell_dtype)
    t = np.exp(Sb - s_max[..., None]).sum(axis=-1).astype(ell_dtype)  # (rows, N_b)
    ell = np.zeros(S.shape[0], dtype=ell_dtype)
    for k in range(Sb.shape[1]):  # N_b sequential steps: the recursive sum of chapter 19
        ell = alpha[:, k] * ell + t[:, k]
    return s_max[:, -1], ell


def two_pass_normalizer(S, *, sequential: bool = False):
    """``(s_max, ℓ)`` per row by the two-pass softmax: the max first, then the sum of
    e^{S − s_max}, pairwise (NumPy's sum) or strictly left to right (``sequential``)."""
    S = np.asarray(S)
    s_max = S.max(axis=-1)
    E = np.exp(S - s_max[:, None])  # (rows, m)
    ell = np.cumsum(E, axis=-1)[:, -1] if sequential else E.sum(axis=-1)
    return s_max, ell


def rescale_count(S, block_k: int):
    """How many times each row's running max grows after the first block (rows,)."""
    s_max = np.maximum.accumulate(_blocks(np.asarray(S), block_k).max(axis=-1), axis=1)
    return (np.diff(s_max, axis=1) > 0).sum(axis=1)
