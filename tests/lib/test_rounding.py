"""The normalizer's rounding (chapter 19): ``core.rounding`` against float64 and against each
other where the arithmetic is the same; ``measure.normalizer_error`` and
``measure.mixed_precision_error`` on small cases."""

import numpy as np
import pytest

from attnlib import measure
from attnlib.core import rounding


@pytest.fixture(scope="module")
def S():
    rng = np.random.default_rng(1)
    return (3 * rng.standard_normal((5, 1)) * rng.standard_normal((1, 300))).astype(np.float32)


@pytest.mark.parametrize("block_k", [1, 7, 64, 300, 512])
def test_online_normalizer_is_the_sum(S, block_k):
    s_max, ell = rounding.online_normalizer(S.astype(np.float64), block_k)
    ref = np.exp(S.astype(np.float64) - S.max(1, keepdims=True)).sum(1)
    assert np.array_equal(s_max, S.max(1))
    assert np.allclose(ell, ref, rtol=1e-13)


def test_never_rescaled_online_pass_is_the_sequential_sum(S):
    """Keys in descending score order: α = e⁰ = 1 at every step, so the online pass with
    block_k = 1 adds the same terms in the same order as the sequential two-pass sum."""
    D = -np.sort(-S, axis=1)
    _, online = rounding.online_normalizer(D, 1)
    _, sequential = rounding.two_pass_normalizer(D, sequential=True)
    assert np.array_equal(online, sequential)
    assert (rounding.rescale_count(D, 1) == 0).all()
    assert (rounding.rescale_count(np.sort(S, axis=1), 1) == S.shape[1] - 1).all()


def test_wider_accumulators_remove_the_error():
    err32 = measure.normalizer_error(m=1024, block_k=1, order="descending")
    err64 = measure.normalizer_error(m=1024, block_k=1, order="descending", ell_dtype="float64")
    assert err32 > 8 > 2 > err64
    asc = measure.normalizer_error(m=1024, block_k=1, order="ascending", ell_dtype="float64",
                                   alpha_dtype="float64")
    assert asc < 2


def test_two_pass_pairwise_stays_small_and_rounded_scores_reference():
    assert measure.normalizer_error(m=2**14) < 8
    exact = measure.normalizer_error(m=1024, reference="exact")
    own = measure.normalizer_error(m=1024)
    assert exact > own
    with pytest.raises(ValueError, match="order"):
        measure.normalizer_error(order="sideways")
    with pytest.raises(ValueError, match="reference"):
        measure.normalizer_error(reference="other")


def test_shuffle_permutes_each_row_of_the_same_scores():
    S, S_exact = measure.normalizer_scores(n=4, m=64, order="ascending")
    T, T_exact = measure.normalizer_scores(n=4, m=64, order="ascending", shuffle=3)
    assert np.array_equal(np.sort(S, 1), np.sort(T, 1)) and not np.array_equal(S, T)
    assert np.array_equal(np.sort(S_exact, 1), np.sort(T_exact, 1))
    assert measure.normalizer_error(m=1024, shuffle=3) < 8


def test_mixed_precision_recipe():
    out = measure.mixed_precision_error("bfloat16", n=8, m=512, d=16, block_k=64)
    assert out["fp32"] < 100 * out["u32"]
    assert out["fp32"] * 100 < out["p_rounded"] < out["u"]
    assert out["all_low"] > out["p_rounded"]
    assert 0 < out["inputs"] < 10 * out["u"]  # rounding Q, K, V alone moves O by about u


def test_mixed_precision_low_statistics_variants():
    """``stats_low`` changes only the statistics' type against ``p_rounded_out`` and ``ell_low``
    only ℓ's: with ``dtype="float32"`` every variant is the same computation, and in bf16 and
    fp16 keeping the statistics (or ℓ alone) in the low type makes the error larger."""
    same = measure.mixed_precision_error("float32", n=4, m=256, d=8, block_k=32)
    assert len({same[k] for k in ("fp32", "p_rounded", "p_rounded_out", "stats_low",
                                  "ell_low", "all_low")}) == 1
    for dtype in ("bfloat16", "float16"):
        out = measure.mixed_precision_error(dtype, n=8, m=512, d=16, block_k=64)
        assert out["stats_low"] > 2 * out["p_rounded_out"]
        assert out["ell_low"] > out["p_rounded_out"]
