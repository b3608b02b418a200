"""attnlib.core.scaling (Part I, chapters 3 and 5) against references it did not write:
a dense grid of the Jacobian, closed-form variances, torch autograd and a reparametrisation."""

import math

import numpy as np
import pytest
from conftest import to_np

from attnlib import numpy as N
from attnlib import pure

torch = pytest.importorskip("torch")
from attnlib import torch as T  # noqa: E402


def _max_abs_J(s, alpha, d_k):
    z = torch.tensor(s, dtype=torch.float64) * (alpha / math.sqrt(d_k))
    p = torch.softmax(z, -1)
    J = torch.autograd.functional.jacobian(lambda z: torch.softmax(z, -1), z)  # autograd's J
    return float(p.max()), float(J.abs().max())


def test_peak_multiplier_is_where_max_abs_J_peaks(B):
    alpha = B.jacobian_peak_multiplier(pure.RAW_SCORES, d_k=64)
    max_p, J = _max_abs_J(pure.RAW_SCORES, alpha, 64)
    assert max_p == pytest.approx(0.5, abs=1e-12)
    assert J == pytest.approx(0.25, abs=1e-12)
    grid = np.linspace(1.0, 4.0, 3001)  # step 1e-3
    values = [_max_abs_J(pure.RAW_SCORES, a, 64)[1] for a in grid]
    assert max(values) <= 0.25 + 1e-15
    assert abs(grid[int(np.argmax(values))] - alpha) <= 1e-3


def test_peak_multiplier_rejects_tied_top_scores(B):
    with pytest.raises(ValueError, match="tied"):
        B.jacobian_peak_multiplier([1.0, 1.0, 0.0])


@pytest.mark.parametrize("d_k", [8, 64])
def test_layernorm_dot_variance_is_dk2_over_dk_minus_1(B, d_k):
    s = to_np(B.layernorm_dot_samples(d_k, 40_000, seed=1))
    target = d_k**2 / (d_k - 1)
    # sample variance of 40,000 draws: relative standard error about sqrt(2/40000) · kurtosis
    assert s.var() == pytest.approx(target, rel=0.04)
    assert abs(s.mean()) < 5 * math.sqrt(target / 40_000)


def test_layernorm_dot_samples_agree_across_backends():
    a = N.layernorm_dot_samples(16, 1000, seed=3)
    b = T.layernorm_dot_samples(16, 1000, seed=3)
    np.testing.assert_allclose(a, to_np(b), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("w_var", [1.0, 64**-0.25, 64**-0.5])
def test_init_score_variance_is_dk_times_wvar_squared(B, w_var):
    s = to_np(B.init_score_samples(64, 64, 40_000, w_var=w_var, n_draws=200, seed=2))
    assert s.var() == pytest.approx(64 * w_var**2, rel=0.06)


def test_drift_handwritten_gradient_matches_autograd():
    kw = dict(d_model=16, d_k=8, n=6, batch=3, steps=40, lr=0.3, every=5, seed=4)
    for fix in ("scale", "init"):
        a = N.train_score_drift(fix=fix, **kw)  # hand-written gradient
        b = T.train_score_drift(fix=fix, autograd=True, **kw)  # torch autograd
        for x, y in zip(a, b, strict=True):
            np.testing.assert_allclose(x, to_np(y), rtol=1e-10, atol=1e-12)


def test_init_fix_is_the_scaled_model_with_lr_times_sqrt_dk():
    d_k = 16
    kw = dict(d_model=16, d_k=d_k, n=6, batch=3, steps=30, every=5, seed=5)
    a = N.train_score_drift(fix="init", lr=0.2, **kw)
    b = N.train_score_drift(fix="scale", lr=0.2 * math.sqrt(d_k), **kw)
    np.testing.assert_allclose(a.score_var, b.score_var, rtol=1e-10)
    np.testing.assert_allclose(a.loss, b.loss, rtol=1e-10)


def test_drift_starts_at_unit_variance_and_rejects_unknown_fix():
    h = N.train_score_drift(fix="scale", steps=0, d_model=256, d_k=256, n=32, batch=8)
    assert float(h.score_var[0]) == pytest.approx(1.0, rel=0.15)
    with pytest.raises(ValueError, match="fix"):
        N.train_score_drift(fix="layernorm")
