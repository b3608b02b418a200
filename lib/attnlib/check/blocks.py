"""Checkers for Part III: the online softmax forward and the blockwise backward, with or without
the causal mask (upper left, j ≤ i, as SDPA's ``is_causal``)."""

import functools

import numpy as np

from .. import numpy as A
from . import _cases as C
from ._cases import five, scale_of, scores, swap
from ._grade import Memory, Mistake, Spec, run


def online_softmax(fn, *, causal=False, backend=None):
    """Check ``fn(Q, K, V, block_k) -> (O, lse)``: one pass over key blocks with a running max
    s_max, sum ℓ and accumulator acc, no n×m array; ``causal=True``: query i sees keys j ≤ i."""
    run(functools.partial(_online_spec, causal), fn, backend=backend)


def blockwise_backward(fn, *, causal=False, backend=None):
    """Check ``fn(G, Q, K, V, O, lse, block_q, block_k) -> (dQ, dK, dV)``: P_IJ = exp(S_IJ − lse_I),
    r = rowsum(G ⊙ O); ``causal=True``: the forward was causal (j ≤ i) and so must this be."""
    run(functools.partial(_blockwise_spec, causal), fn, backend=backend)


def _name(base, causal):
    return f"{base}(causal=True)" if causal else base


def _tags(causal):
    return ("인과 마스크 (j ≤ i)",) if causal else ()


def _memory(where, n, m, block, data):
    """The limit the allowed arrays need, with a margin: 8 float64 arrays of ``block`` entries
    (a block's S, P, U, Δ, a mask, temporaries) and twice the ``data`` entries of the inputs and
    outputs (a copy of each, the O(n) row statistics). The sizes are chosen so that this is far
    below n·m bytes: no n×m array fits, not even a boolean one (1 byte an entry)."""
    limit = 8 * 8 * block + 2 * 8 * data
    assert limit < n * m // 2, (limit, n * m)
    return Memory(limit, n * m * 8, where)


# ------------------------------------------------------------------- the online softmax ----

LOW_ROWS = (-800.0, 0.0, -1500.0, -300.0)  # rows whose scores all lie far below 0: e^S underflows
# to 0 there unless the running max starts at −inf (a reference point of 0 gives ℓ = 0, 0/0)


@functools.cache
def _online_spec(causal):
    def blocked(seed, batch, n, m, d_k, d_v, block_k, *tags, x=None, stretch=1.0, note="",
                memory=None):
        x = x or C.normal(seed, Q=batch + (n, d_k), K=batch + (m, d_k), V=batch + (m, d_v))
        x["Q"] = stretch * x["Q"]
        return C.case({**x, "block_k": block_k}, *tags, note=note, memory=memory)

    if causal:  # every key block is seen by some query (n ≥ m), the largest score comes last
        tops = (3000.0,) * 12 + (750.0,) * 2  # rows 12, 13 cross e^709 only in the last block
        rising = blocked(3, (), 14, 12, 8, 3, 3, "n > m", "블록마다 최댓값이 바뀜", "점수가 수천",
                         x=C.rising_keys(3, (), 14, 12, 8, 3, top=tops),
                         note="키마다 점수가 커지고 (최댓값은 마지막으로 보이는 키), 점수가 "
                         "수천; 질의 14개가 키 블록 넷을 모두 봄")
        cases = [
            blocked(1, (), 3, 8, 4, 2, 4, *_tags(causal), "n < m"),
            blocked(2, (), 4, 10, 8, 3, 3, "block_k 가 m 을 나누지 않음",
                    note="블록 크기가 m 을 나누지 않음"),
            rising,
            blocked(4, (), 5, 6, 8, 3, 1, "block_k = 1"),
            blocked(5, (), 7, 7, 8, 3, 3, "n = m"),
            blocked(6, (), 9, 5, 8, 3, 16, "block_k > m", note="블록 하나가 키 전체"),
            blocked(7, (2, 3), 6, 7, 8, 5, 3, "(B, H, ·, ·)"),
        ]
    else:
        tops = (0.0, 800.0, 1500.0, 3000.0)  # row 1 crosses e^709 only in the last block
        cases = [
            blocked(1, (), 3, 8, 4, 2, 4, "n ≠ m"),
            blocked(2, (), 4, 10, 8, 3, 3, "block_k 가 m 을 나누지 않음",
                    note="블록 크기가 m 을 나누지 않음"),
            blocked(3, (), 4, 12, 8, 3, 2, "블록마다 최댓값이 바뀜", "점수가 수천",
                    x=C.rising_keys(3, (), 4, 12, 8, 3, top=tops),
                    note="키마다 점수가 커져 블록마다 최댓값이 바뀜; 행마다 점수가 0~3000"),
            blocked(4, (), 5, 6, 8, 3, 1, "block_k = 1"),
            blocked(5, (), 3, 6, 8, 3, 16, "block_k > m", note="블록 하나가 키 전체"),
            blocked(6, (), 3, 9, 8, 3, 4, "점수가 수백", stretch=300.0,
                    note="점수가 수백 (e^S 가 넘칠 크기)"),
            blocked(7, (2, 3), 4, 7, 8, 5, 3, "(B, H, ·, ·)"),
        ]
    low = C.offset_rows(C.normal(9, Q=(4, 8), K=(10, 8), V=(10, 3)), offsets=LOW_ROWS,
                        ramps=(0.0,) * 4)
    cases.append(blocked(9, (), 4, 10, 8, 3, 3, "점수가 모두 −800 아래인 행", x=low,
                         note="행마다 점수가 −800, 0, −1500, −300 근처 (e^S 가 0 으로 "
                         "잘릴 크기)"))
    cases += C.in_float32(cases, 1, 6)
    n, m, d, b = 512, 8192, 4, 16
    cases.append(blocked(8, (), n, m, d, d, b, note=f"n = {n}, m = {m}: 메모리를 잼",
                         memory=_memory(f"n = {n}, m = {m}, block_k = {b}", n, m, n * b,
                                        n * d + 2 * m * d + n * (d + 1))))

    def reference(Q, K, V, block_k):
        return A.attention_lse(Q, K, V, is_causal=causal)

    def wrong(**kw):
        return lambda Q, K, V, block_k: _online(Q, K, V, block_k, causal=causal, **kw)

    mistakes = (
        Mistake("online_no_rescale_l", wrong(rescale_l=False)),
        Mistake("online_no_rescale_acc", wrong(rescale_acc=False)),
        Mistake("online_no_rescale_both", wrong(rescale_l=False, rescale_acc=False)),
        Mistake("online_no_max", wrong(use_max=False)),
        Mistake("online_zero_start", wrong(start=0.0)),
        Mistake("online_lse", wrong(lse="log ell")),
        Mistake("online_lse_overflow", wrong(lse="log(ell e^max)")),
        Mistake("online_alpha_division", wrong(alpha="division")),
        Mistake("online_no_normalize", wrong(normalize=False)),
        Mistake("tail_block", wrong(tail=False)),
        Mistake("forward_unscaled", wrong(scale=lambda Q: 1.0)),
        Mistake("scale_d", wrong(scale=lambda Q: 1.0 / Q.shape[-1])),
    )
    if causal:
        mistakes += (
            Mistake("causal_missing", wrong(mask=None)),
            Mistake("causal_lower_right", wrong(mask="lower_right")),
            Mistake("causal_strict", wrong(mask="strict")),
        )
    return Spec(_name("online_softmax", causal), ("O", "lse"), cases, reference, mistakes,
                "fn(Q, K, V, block_k) -> (O, lse)",
                unchecked="키 블록을 한 번만 훑는지, block_k 개씩 자르는지 (값과 메모리만 "
                "봅니다)")


def _mask(n, m, kind):
    """True where query i sees key j: "upper_left" j ≤ i, "lower_right" j ≤ i + m − n,
    "strict" j < i; None: no mask."""
    if kind is None:
        return None
    return np.tril(np.ones((n, m), dtype=bool), k={"upper_left": 0, "lower_right": m - n,
                                                   "strict": -1}[kind])


def _online(Q, K, V, block_k, *, causal, mask="upper_left", rescale_l=True, rescale_acc=True,
            use_max=True, lse="s_max + log ell", alpha="exp(difference)", normalize=True,
            tail=True, scale=scale_of, start=-np.inf):
    """The online softmax loop in float64, with one step done wrong: the rescaling of ℓ or acc
    left out, no running max (reference point 0), lse without s_max or as log(ℓ·e^{s_max}), the
    rescaling factor as e^{s_old}/e^{s_new}, no final division, the last short block left out,
    another scale, another causal mask, s_max started at ``start`` instead of −inf."""
    n, m = Q.shape[-2], K.shape[-2]
    seen = _mask(n, m, mask) if causal else None
    s_max = np.full(Q.shape[:-1], start)  # (..., n)
    ell = np.zeros(Q.shape[:-1])
    acc = np.zeros(Q.shape[:-1] + V.shape[-1:])  # (..., n, d_v)
    with np.errstate(all="ignore"):
        for j in range(0, m if tail else m - m % block_k, block_k):
            J = slice(j, j + block_k)
            S = scale(Q) * (Q @ swap(K[..., J, :]))  # (..., n, b)
            if seen is not None:
                S = np.where(seen[:, J], S, -np.inf)
            s_new = np.maximum(s_max, S.max(-1)) if use_max else np.zeros_like(s_max)
            a = (np.exp(s_max) / np.exp(s_new) if alpha == "division"
                 else np.exp(s_max - s_new))
            E = np.exp(S - s_new[..., None])
            ell = (a * ell if rescale_l else ell) + E.sum(-1)
            acc = (a[..., None] * acc if rescale_acc else acc) + E @ V[..., J, :]
            s_max = s_new
        O = acc / ell[..., None] if normalize else acc
        lse = {"s_max + log ell": s_max + np.log(ell), "log ell": np.log(ell),
               "log(ell e^max)": np.log(ell * np.exp(s_max))}[lse]
    return O, lse


# ------------------------------------------------------------------ the blockwise backward ----


@functools.cache
def _blockwise_spec(causal):
    def saved(seed, batch, n, m, d_k, d_v, block_q, block_k, *tags, note="", large=False,
              memory=None):
        x = C.attention(seed, batch, n, m, d_k, d_v)
        x = x if not large else C.offset_rows(x)
        O, lse = A.attention_lse(x["Q"], x["K"], x["V"], is_causal=causal)
        return C.case({**x, "O": O, "lse": lse, "block_q": block_q, "block_k": block_k}, *tags,
                      note=note, memory=memory)

    cases = [
        saved(1, (), 6, 10, 8, 4, 4, 3, *_tags(causal), "블록 크기가 n, m 을 나누지 않음",
              note="블록 크기가 n, m 을 나누지 않음"),
        saved(2, (), 5, 5, 4, 3, 1, 1, "block_q = block_k = 1"),
        saved(3, (), 4, 6, 8, 3, 8, 8, "블록 하나가 전체", note="블록 하나가 전체"),
        saved(4, (2, 3), 5, 7, 8, 3, 2, 4, "(B, H, ·, ·)", "block_q ≠ block_k"),
        saved(5, (), 5, 6, 8, 3, 2, 4, "점수가 수천인 행", large=True,
              note=C.OFFSETS_NOTE),
        saved(6, (), 8, 5, 8, 3, 3, 2, "n > m"),
    ]
    cases += C.in_float32(cases, 0, 3)
    n, d, b = 2048, 4, 64
    cases.append(saved(7, (), n, n, d, d, b, b, note=f"n = m = {n}: 메모리를 잼",
                       memory=_memory(f"n = m = {n}, 블록 {b}×{b}", n, n, b * b,
                                      8 * n * d + n)))

    def reference(G, Q, K, V, O, lse, block_q, block_k):
        return A.attention_backward(G, Q, K, V, is_causal=causal)

    def blocks(f, P_of=None):
        P_of = P_of or (lambda Q, K, lse: _P(Q, K, lse, causal))
        return lambda G, Q, K, V, O, lse, block_q, block_k: f(
            G, Q, K, V, O, P_of(Q, K, lse), block_q, block_k)

    def overflowing(Q, K, lse):
        """P = e^S / e^lse: inf/inf = NaN where the scores pass 709."""
        return _P(Q, K, lse, causal, divide=True)

    mistakes = (
        Mistake("block_r", blocks(_block_r)),
        Mistake("block_overwrite", blocks(_overwrite)),
        Mistake("block_overwrite_dq", blocks(functools.partial(_overwrite, outputs="q"))),
        Mistake("block_overwrite_dkdv", blocks(functools.partial(_overwrite, outputs="kv"))),
        Mistake("block_overwrite_dk", blocks(functools.partial(_overwrite, outputs="k"))),
        Mistake("no_scale", lambda G, Q, K, V, O, lse, block_q, block_k: tuple(
            g / s for g, s in zip(reference(G, Q, K, V, O, lse, block_q, block_k),
                                  (scale_of(Q), scale_of(Q), 1.0), strict=True))),
        Mistake("block_softmax", lambda G, Q, K, V, O, lse, block_q, block_k: _block_softmax(
            G, Q, K, V, O, causal, block_k)),
        Mistake("lse_overflow", blocks(_kept, overflowing)),
        Mistake("lse_unscaled", blocks(_kept, lambda Q, K, lse: _P(Q, K, lse, causal,
                                                                   scale=1.0))),
        Mistake("tail_block", blocks(lambda *a: _kept(*a, tail_q=True, tail_k=True))),
        Mistake("tail_block", blocks(lambda *a: _kept(*a, tail_k=True))),
        Mistake("tail_block", blocks(lambda *a: _kept(*a, tail_q=True))),
    )
    if causal:
        mistakes += (
            Mistake("causal_missing", lambda G, Q, K, V, O, lse, block_q, block_k: five(
                G, Q, K, V, _P(Q, K, lse, False), r=(G * O).sum(-1))),
            Mistake("causal_diagonal_unmasked",
                    lambda G, Q, K, V, O, lse, block_q, block_k: _unmasked(
                        G, Q, K, V, O, _P(Q, K, lse, False), block_q, block_k)),
            Mistake("block_skip_partial", blocks(_skip_partial)),
            Mistake("causal_lower_right", blocks(_kept, lambda Q, K, lse: _P(
                Q, K, lse, "lower_right"))),
        )
    return Spec(_name("blockwise_backward", causal), ("dQ", "dK", "dV"), cases, reference,
                mistakes, "fn(G, Q, K, V, O, lse, block_q, block_k) -> (dQ, dK, dV)",
                unchecked=("통째로 가린 블록을 건너뛰는지, 루프의 순서(바깥이 키 블록인지) "
                           "(값과 메모리만 봅니다)" if causal
                           else "루프의 순서(바깥이 키 블록인지) (값과 메모리만 봅니다)"))


def _P(Q, K, lse, causal, *, divide=False, scale=None):
    """P = exp(S − lse), 0 at the masked scores (``causal``: True for j ≤ i, or a mask kind);
    ``divide``: e^S / e^lse; ``scale``: S = scale · QKᵀ (1/sqrt(d_k) unless given)."""
    S = (scale_of(Q) if scale is None else scale) * (Q @ swap(K))
    if causal:
        S = np.where(_mask(S.shape[-2], S.shape[-1], "upper_left" if causal is True else causal),
                     S, -np.inf)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.exp(S) / np.exp(lse[..., None]) if divide else np.exp(S - lse[..., None])


def _kept(G, Q, K, V, O, P, block_q, block_k, *, tail_q=False, tail_k=False):
    """The blockwise backward on a given P, with the last short query block (``tail_q``) or key
    block (``tail_k``) left out."""
    n, m = P.shape[-2:]
    keep = np.ones((n, m), dtype=bool)
    if tail_q:
        keep &= (np.arange(n) < n - n % block_q)[:, None]
    if tail_k:
        keep &= (np.arange(m) < m - m % block_k)[None, :]
    kept = np.where(keep, P, 0.0)
    U = G @ swap(V)
    with np.errstate(invalid="ignore"):
        delta = kept * (U - (G * O).sum(-1, keepdims=True))
    return _grads(G, Q, K, kept, delta)


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


def _overwrite(G, Q, K, V, O, P, block_q, block_k, *, outputs="qkv"):
    """The outputs named in ``outputs`` written with ``=`` instead of ``+=``: dQ_I from the last
    key block only, dK_J and dV_J from the last query block only; the others summed."""
    n, m = P.shape[-2:]
    U = G @ swap(V)
    delta = P * (U - (G * O).sum(-1, keepdims=True))
    last_j = np.arange(m) >= _key_blocks(m, block_k)[-1][0]
    last_i = np.arange(n) >= _key_blocks(n, block_q)[-1][0]
    full = _grads(G, Q, K, P, delta)
    last = _grads(G, Q, K, P, delta, to_q=last_j[None, :], to_kv=last_i[:, None])
    return tuple(w if x in outputs else f for x, w, f in zip("qkv", last, full, strict=True))


def _block_softmax(G, Q, K, V, O, causal, block_k):
    """P as a softmax of S inside each key block (0 in a row the block masks entirely),
    r = rowsum(G ⊙ O)."""
    S = scores(Q, K)
    if causal:
        S = np.where(C.causal(S.shape[-2], S.shape[-1]), S, -np.inf)
    P_block = np.zeros_like(S)
    for j0, j1 in _key_blocks(S.shape[-1], block_k):
        P_block[..., j0:j1] = np.nan_to_num(C.softmax(S[..., j0:j1]))
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
    kept = np.where(j0 <= (i_last if last_row else i0)[:, None], P, 0.0)
    U = G @ swap(V)
    delta = kept * (U - (G * O).sum(-1, keepdims=True))
    return _grads(G, Q, K, kept, delta)


def _grads(G, Q, K, P, delta, *, to_q=True, to_kv=True):
    """dQ = sΔK, dK = sΔᵀQ, dV = PᵀG; only the entries ``to_q`` reach dQ, ``to_kv`` dK and dV."""
    s = scale_of(Q)
    dQ = s * (np.where(to_q, delta, 0.0) @ K)
    dK = s * (swap(np.where(to_kv, delta, 0.0)) @ Q)
    return dQ, dK, swap(np.where(to_kv, P, 0.0)) @ G
