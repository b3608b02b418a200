"""Bad input gets a ValueError naming the argument (and the shapes), never a wrong number."""

import numpy as np
import pytest
from conftest import randn

Q, K, V, G = randn((2, 3, 4), (2, 5, 4), (2, 5, 6), (2, 3, 6), seed=0)
OK = dict(Q=Q, K=K, V=V)


def call(B, fn, Q=Q, K=K, V=V, G=G, **kw):
    if fn == "attention":
        return B.attention(Q, K, V, **kw)
    if fn == "attention_lse":
        return B.attention_lse(Q, K, V, **kw)
    if fn == "attention_backward":
        return B.attention_backward(G, Q, K, V, **kw)
    if fn == "attention_backward_parts":
        return B.attention_backward_parts(G, Q, K, V, **kw)
    O, lse = B.attention_lse(Q, K, V, **kw)
    return B.attention_backward_lse(G, Q, K, V, O, lse, **kw)


FNS = ["attention", "attention_lse", "attention_backward", "attention_backward_parts",
       "attention_backward_lse"]

BAD = {
    "d_k": (dict(K=randn((2, 5, 3))[0]), ["Q", "K", "(2, 3, 4)", "(2, 5, 3)"]),
    "m": (dict(V=randn((2, 4, 6))[0]), ["K", "V", "(2, 5, 4)", "(2, 4, 6)"]),
    "batch": (dict(K=randn((3, 5, 4))[0]), ["Q", "K", "V", "(3, 5, 4)"]),
    "Q_1d": (dict(Q=np.ones(4)), ["Q", "(4,)"]),
    "V_nan": (dict(V=np.where(np.eye(5, 6) > 0, np.nan, V)), ["V", "non-finite"]),
    "K_inf": (dict(K=np.where(np.eye(5, 4) > 0, np.inf, K)), ["K", "non-finite"]),
    "Q_str": (dict(Q=[["a", "b"]]), ["Q"]),
    "mask_shape": (dict(mask=np.ones((4, 5), bool)), ["mask", "(4, 5)", "(2, 3, 5)"]),
    "mask_grows": (dict(mask=np.ones((7, 2, 3, 5), bool)), ["mask", "(7, 2, 3, 5)"]),
    "mask_int": (dict(mask=np.ones((3, 5), dtype=np.int64)), ["mask", "int64", "astype(bool)"]),
    "mask_uint8": (dict(mask=np.eye(3, 5, dtype=np.uint8)), ["mask", "uint8"]),
    "mask_complex": (dict(mask=np.zeros((3, 5), complex)), ["mask", "complex"]),
    "mask_str": (dict(mask=[["a"]]), ["mask"]),
    "mask_float_shape": (dict(mask=np.zeros((4, 5))), ["mask", "(4, 5)"]),
    "mask_float_nan": (dict(mask=np.where(np.eye(3, 5) > 0, np.nan, 0.0)), ["mask", "NaN"]),
    "mask_float_pinf": (dict(mask=np.where(np.eye(3, 5) > 0, np.inf, 0.0)), ["mask", "+inf"]),
    "mask_float_fill": (dict(mask=np.zeros((3, 5)), fill=-1e9), ["fill", "float mask"]),
    "mask_and_causal": (dict(mask=np.ones((3, 5), bool), is_causal=True), ["mask", "is_causal"]),
    "is_causal_str": (dict(is_causal="yes"), ["is_causal"]),
    "fully_masked": (dict(fully_masked="zeros"), ["fully_masked", "'nan'", "'zero'"]),
    "gqa_flag": (dict(enable_gqa=1), ["enable_gqa"]),
    "gqa_not_divisor": (dict(K=randn((3, 5, 4))[0], V=randn((3, 5, 6))[0], enable_gqa=True),
                        ["enable_gqa", "Q has 2", "K 3"]),
    "gqa_kv_heads": (dict(K=randn((1, 5, 4))[0], enable_gqa=True), ["K", "V", "heads"]),
    "gqa_no_head_axis": (dict(K=randn((5, 4))[0], V=randn((5, 6))[0], enable_gqa=True),
                         ["enable_gqa", "K", "(5, 4)"]),
    "dropout_shape": (dict(dropout_mask=np.ones((3, 4)), p_drop=0.1), ["dropout_mask", "(3, 4)"]),
    "dropout_values": (dict(dropout_mask=np.full((3, 5), 2.0), p_drop=0.1),
                       ["dropout_mask", "0 and 1"]),
    "p_drop_1": (dict(dropout_mask=np.ones((3, 5)), p_drop=1.0), ["p_drop", "[0, 1)"]),
    "p_drop_neg": (dict(dropout_mask=np.ones((3, 5)), p_drop=-0.1), ["p_drop"]),
    "p_drop_no_mask": (dict(p_drop=0.1), ["p_drop", "dropout_mask"]),
    "p_drop_nan": (dict(dropout_mask=np.ones((3, 5)), p_drop=float("nan")), ["p_drop"]),
    "scale_nan": (dict(scale=float("nan")), ["scale"]),
    "scale_str": (dict(scale="big"), ["scale"]),
    "fill_nan": (dict(fill=float("nan")), ["fill"]),
    "fill_pinf": (dict(fill=float("inf")), ["fill"]),
    "no_keys": (dict(K=np.ones((2, 0, 4)), V=np.ones((2, 0, 6))), ["K"]),
}


@pytest.mark.parametrize("fn", FNS)
@pytest.mark.parametrize("case", BAD)
def test_bad_input(B, fn, case):
    kw, words = BAD[case]
    if B.__name__ == "attnlib.torch":  # the torch backend gets tensors
        kw = {k: _tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    with pytest.raises(ValueError) as info:
        call(B, fn, **kw)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def _tensor(v):
    import torch

    return torch.as_tensor(v)


@pytest.mark.parametrize("fn", ["attention_backward", "attention_backward_parts",
                                "attention_backward_lse"])
@pytest.mark.parametrize("bad_G", [np.ones((2, 3, 5)), np.ones((3, 6)), np.full((2, 3, 6), np.nan),
                                   None])
def test_bad_G(B, fn, bad_G):
    with pytest.raises(ValueError, match="G"):
        call(B, fn, G=bad_G)


def test_bad_lse_and_O(B):
    O, lse = B.attention_lse(Q, K, V)
    with pytest.raises(ValueError, match="lse"):
        B.attention_backward_lse(G, Q, K, V, O, lse[..., :2])
    with pytest.raises(ValueError, match="O"):
        B.attention_backward_lse(G, Q, K, V, O[..., :2], lse)
    with pytest.raises(ValueError, match="P"):
        B.attention_backward(G, Q, K, V, P=np.ones((3, 5)))


def test_other_functions(B):
    with pytest.raises(ValueError, match="P and U"):
        B.softmax_vjp(np.ones((3, 4)), np.ones((3, 5)))
    with pytest.raises(ValueError, match="U"):
        B.softmax_vjp(np.ones(4) / 4, np.array([1.0, np.nan, 0, 0]))
    with pytest.raises(ValueError, match="σ = 0"):
        B.layernorm(np.ones((2, 3)))
    with pytest.raises(ValueError, match="G"):
        B.layernorm_backward(np.ones((2, 4)), np.eye(3))
    with pytest.raises(ValueError, match="grads"):
        B.gradcheck(lambda x: x.sum(), [np.ones(3)], [np.ones(2)])
    with pytest.raises(ValueError, match="grads"):
        B.gradcheck(lambda x: x.sum(), [np.ones(3)], [])
    W = B.block_weights(4, 1)[0]
    with pytest.raises(ValueError, match="W_Q"):
        B.pre_ln_block(np.ones((3, 5)) + np.eye(3, 5), W)
    with pytest.raises(ValueError, match="W"):
        B.pre_ln_block(np.eye(3, 4), W[:3])


def test_integers_promoted_not_truncated(B):
    Qi, Ki = np.array([[1, 0], [0, 2]]), np.array([[1, 1], [2, 0], [0, 3]])
    Vi = np.array([[1, 2], [3, 4], [5, 6]])
    O, P = B.attention(Qi, Ki, Vi)
    O_ref, P_ref = B.attention(Qi.astype(float), Ki.astype(float), Vi.astype(float))
    # NumPy promotes to float64; torch to its default float dtype (float32 unless changed)
    np.testing.assert_allclose(np.asarray(O), np.asarray(O_ref), rtol=1e-6)
    assert 0 < float(P.min()) < 1


@pytest.mark.parametrize("bad", [[], "1, 2", 3.0, [1.0, float("nan")], [1.0, "x"]])
def test_multipliers_must_be_numbers(B, bad):
    """The α sweeps name their argument for an empty, scalar, text or non-finite list."""
    rng = np.random.default_rng(0)
    Q, K, V, G = (rng.standard_normal(s) for s in [(3, 4), (5, 4), (5, 2), (3, 2)])
    for call in (lambda: B.row_collapse(G, Q, K, V, bad),
                 lambda: B.multiplier_stats(Q[0], bad),
                 lambda: B.multiplier_grad_norms(G, Q, K, V, bad)):
        with pytest.raises(ValueError, match="multipliers"):
            call()
