"""Checkers for Part III: the online softmax forward and the blockwise backward, with or without
the causal mask (upper left, j ≤ i, as SDPA's ``is_causal``)."""

import numpy as np

from .. import numpy as A
from . import _cases as C
from ._cases import five, scale_of, scores, swap
from ._grade import Mistake, Spec, run


def online_softmax(fn, *, causal=False, backend=None):
    """Check ``fn(Q, K, V, block_k) -> (O, lse)``: one pass over key blocks with a running max
    m, sum l and accumulator; ``causal=True``: query i sees keys j ≤ i."""
    run(_online_spec(causal), fn, backend=backend)


def blockwise_backward(fn, *, causal=False, backend=None):
    """Check ``fn(G, Q, K, V, O, lse, block_q, block_k) -> (dQ, dK, dV)``: P_IJ = exp(S_IJ − lse_I),
    r = rowsum(G ⊙ O); ``causal=True``: the forward was causal (j ≤ i) and so must this be."""
    run(_blockwise_spec(causal), fn, backend=backend)


def _name(base, causal):
    return f"{base}(causal=True)" if causal else base


def _causal_note(causal):
    return "인과 마스크 (j ≤ i, n ≠ m 포함); " if causal else ""


# ------------------------------------------------------------------- the online softmax ----


def _online_spec(causal):
    def blocked(seed, batch, n, m, d_k, d_v, block_k, *, stretch=1.0, ascending=False, note=""):
        x = C.normal(seed, Q=batch + (n, d_k), K=batch + (m, d_k), V=batch + (m, d_v))
        x["Q"] = stretch * x["Q"]
        if ascending:  # keys sorted by the first query's score: the max moves every block
            order = np.argsort(scores(x["Q"], x["K"])[..., 0, :], axis=-1)
            x["K"], x["V"] = x["K"][order], x["V"][order]
        return C.case({**x, "block_k": block_k}, note=note)

    cases = [
        blocked(1, (), 3, 8, 4, 2, 4),
        blocked(2, (), 4, 10, 8, 3, 3, note="블록 크기가 m 을 나누지 않음"),
        blocked(3, (), 1, 12, 4, 2, 2, ascending=True,
                note="점수가 오름차순인 키: 블록마다 최댓값이 바뀜"),
        blocked(4, (), 5, 6, 8, 3, 1),
        blocked(5, (), 3, 6, 8, 3, 16, note="블록 하나가 키 전체"),
        blocked(6, (), 3, 9, 8, 3, 4, stretch=300.0, note="점수가 수백 (e^S 가 넘칠 크기)"),
        blocked(7, (2, 3), 4, 7, 8, 5, 3),
    ]
    cases += C.in_float32(cases, 1, 6)

    def reference(Q, K, V, block_k):
        return A.attention_lse(Q, K, V, is_causal=causal)

    def wrong(**kw):
        return lambda Q, K, V, block_k: _online(Q, K, V, block_k, causal=causal, **kw)

    mistakes = (
        Mistake("online_no_rescale_l", wrong(rescale_l=False)),
        Mistake("online_no_rescale_acc", wrong(rescale_acc=False)),
        Mistake("online_no_max", wrong(use_max=False)),
        Mistake("online_lse", wrong(add_m=False)),
        Mistake("online_no_normalize", wrong(normalize=False)),
    )
    if causal:
        mistakes += (
            Mistake("causal_missing", lambda Q, K, V, block_k: A.attention_lse(Q, K, V)),
            Mistake("causal_lower_right", lambda Q, K, V, block_k: A.attention_lse(
                Q, K, V, mask=A.causal_mask(Q.shape[-2], K.shape[-2], align="lower_right"))),
            Mistake("causal_strict", lambda Q, K, V, block_k: A.attention_lse(
                Q, K, V, mask=np.tril(np.ones((Q.shape[-2], K.shape[-2]), bool), k=-1))),
        )
    return Spec(_name("online_softmax", causal), ("O", "lse"), cases, reference, mistakes,
                _causal_note(causal) + "block_k = 1, m 을 나누지 않는 크기, m 보다 큰 크기; "
                "오름차순 키, 수백인 점수; (B, H, ·, ·)", "fn(Q, K, V, block_k) -> (O, lse)")


def _online(Q, K, V, block_k, *, causal, rescale_l=True, rescale_acc=True, use_max=True,
            add_m=True, normalize=True):
    """The online softmax in closed form, with one of its steps left out.

    A term e^{S_ij − m} is measured against the running max at j's block (``m_at``) when the
    rescaling is forgotten, against the final max (``m_T``) when it is not."""
    S = scores(Q, K)
    if causal:
        S = np.where(C.causal(S.shape[-2], S.shape[-1]), S, -np.inf)
    m = S.shape[-1]
    with np.errstate(over="ignore", invalid="ignore"):
        starts = np.arange(0, m, block_k)
        block_max = np.maximum.reduceat(S, starts, axis=-1)  # (..., n, blocks)
        running = np.maximum.accumulate(block_max, axis=-1)
        m_at = np.repeat(running, np.diff(np.append(starts, m)), axis=-1)  # (..., n, m)
        m_T = running[..., -1:] if use_max else np.zeros_like(running[..., -1:])
        l = np.exp(S - (m_T if rescale_l else m_at)).sum(-1)  # (..., n)
        acc = np.exp(S - (m_T if rescale_acc else m_at)) @ V  # (..., n, d_v)
        O = acc / l[..., None] if normalize else acc
        lse = np.log(l) + (m_T[..., 0] if add_m else 0.0)
    return O, lse


# ------------------------------------------------------------------ the blockwise backward ----


def _blockwise_spec(causal):
    def saved(seed, batch, n, m, d_k, d_v, block_q, block_k, note=""):
        x = C.attention(seed, batch, n, m, d_k, d_v)
        O, lse = A.attention_lse(x["Q"], x["K"], x["V"], is_causal=causal)
        return C.case({**x, "O": O, "lse": lse, "block_q": block_q, "block_k": block_k},
                      note=note)

    cases = [
        saved(1, (), 6, 10, 8, 4, 4, 3, note="블록 크기가 n, m 을 나누지 않음"),
        saved(2, (), 5, 5, 4, 3, 1, 1),
        saved(3, (), 4, 6, 8, 3, 8, 8, note="블록 하나가 전체"),
        saved(4, (2, 3), 5, 7, 8, 3, 2, 4),
    ]
    cases += C.in_float32(cases, 0, 3)

    def reference(G, Q, K, V, O, lse, block_q, block_k):
        return A.attention_backward(G, Q, K, V, is_causal=causal)

    def blocks(f):
        return lambda G, Q, K, V, O, lse, block_q, block_k: f(
            G, Q, K, V, O, _P(Q, K, lse, causal), block_q, block_k)

    mistakes = (
        Mistake("block_r", blocks(_block_r)),
        Mistake("block_overwrite", blocks(_overwrite)),
        Mistake("no_scale", lambda G, Q, K, V, O, lse, block_q, block_k: tuple(
            g / s for g, s in zip(reference(G, Q, K, V, O, lse, block_q, block_k),
                                  (scale_of(Q), scale_of(Q), 1.0), strict=True))),
        Mistake("block_softmax", blocks(_block_softmax)),
    )
    if causal:
        mistakes += (
            Mistake("causal_missing", lambda G, Q, K, V, O, lse, block_q, block_k: five(
                G, Q, K, V, _P(Q, K, lse, False), r=(G * O).sum(-1))),
            Mistake("causal_missing", lambda G, Q, K, V, O, lse, block_q, block_k: _unmasked(
                G, Q, K, V, O, _P(Q, K, lse, False), block_q, block_k)),
            Mistake("block_skip_partial", blocks(_skip_partial)),
        )
    return Spec(_name("blockwise_backward", causal), ("dQ", "dK", "dV"), cases, reference,
                mistakes, _causal_note(causal) + "block_q, block_k = 1, n·m 을 나누지 않는 크기, "
                "전체보다 큰 크기; (B, H, ·, ·)",
                "fn(G, Q, K, V, O, lse, block_q, block_k) -> (dQ, dK, dV)")


def _P(Q, K, lse, causal):
    """P = exp(S − lse) (0 at the masked scores when ``causal``)."""
    S = scores(Q, K)
    if causal:
        S = np.where(C.causal(S.shape[-2], S.shape[-1]), S, -np.inf)
    with np.errstate(over="ignore"):
        return np.exp(S - lse[..., None])


def _key_blocks(m, block_k):
    return [(j, min(j + block_k, m)) for j in range(0, m, block_k)]


def _block_r(G, Q, K, V, O, P, block_q, block_k):
    """Δ with r summed over the key block only: r_IJ = Σ_{j∈J} P_ij U_ij."""
    U = G @ swap(V)
    delta = np.zeros_like(P)
    for j0, j1 in _key_blocks(P.shape[-1], block_k):
        P_J, U_J = P[..., j0:j1], U[..., j0:j1]
        delta[..., j0:j1] = P_J * (U_J - (P_J * U_J).sum(-1, keepdims=True))
    return _grads(G, Q, K, P, delta)


def _overwrite(G, Q, K, V, O, P, block_q, block_k):
    """dQ_I from the last key block only, dK_J and dV_J from the last query block only."""
    n, m = P.shape[-2:]
    U = G @ swap(V)
    delta = P * (U - (G * O).sum(-1, keepdims=True))
    last_j = np.arange(m) >= _key_blocks(m, block_k)[-1][0]
    last_i = np.arange(n) >= _key_blocks(n, block_q)[-1][0]
    return _grads(G, Q, K, P, delta, to_q=last_j[None, :], to_kv=last_i[:, None])


def _block_softmax(G, Q, K, V, O, P, block_q, block_k):
    """P renormalised inside each key block (a softmax per block), r = rowsum(G ⊙ O)."""
    P_block = P.copy()
    for j0, j1 in _key_blocks(P.shape[-1], block_k):
        part = P[..., j0:j1]
        with np.errstate(invalid="ignore"):
            P_block[..., j0:j1] = np.nan_to_num(part / part.sum(-1, keepdims=True))
    return five(G, Q, K, V, P_block, r=(G * O).sum(-1))


def _skip_partial(G, Q, K, V, O, P, block_q, block_k):
    """The causal backward that skips a block when j0 > i0 (also blocks the diagonal crosses)."""
    return _kept_blocks(G, Q, K, V, O, P, block_q, block_k, last_row=False)


def _unmasked(G, Q, K, V, O, P, block_q, block_k):
    """The causal backward that skips the blocks above the diagonal but does not mask inside the
    blocks the diagonal crosses (``P`` computed without the mask)."""
    return _kept_blocks(G, Q, K, V, O, P, block_q, block_k, last_row=True)


def _kept_blocks(G, Q, K, V, O, P, block_q, block_k, *, last_row):
    """Δ and dV from the blocks kept: j0 ≤ i1 − 1 (``last_row``) or j0 ≤ i0."""
    n, m = P.shape[-2:]
    i0 = np.arange(n) // block_q * block_q
    i_last = np.minimum(i0 + block_q, n) - 1
    j0 = (np.arange(m) // block_k * block_k)[None, :]
    kept = P * (j0 <= (i_last if last_row else i0)[:, None])
    U = G @ swap(V)
    delta = kept * (U - (G * O).sum(-1, keepdims=True))
    return _grads(G, Q, K, kept, delta)


def _grads(G, Q, K, P, delta, *, to_q=True, to_kv=True):
    """dQ = sΔK, dK = sΔᵀQ, dV = PᵀG; only the entries ``to_q`` reach dQ, ``to_kv`` dK and dV."""
    s = scale_of(Q)
    dQ = s * (np.where(to_q, delta, 0.0) @ K)
    dK = s * (swap(np.where(to_kv, delta, 0.0)) @ Q)
    return dQ, dK, swap(np.where(to_kv, P, 0.0)) @ G
