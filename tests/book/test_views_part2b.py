"""The explorer Views of chapters 11, 13 and 14: a frame reached after other frames draws the
same pixels as one reached directly (no stale static part), and the numbers they print are
attnlib's."""

import math

import numpy as np
import pytest

from attnlib import numpy as A
from attnlib.figures import part2b


def _visit(make, frames):
    """A fresh view from ``make()`` that has shown each of ``frames`` in turn."""
    view = make()
    for values in frames:
        view(**values).rgba(90)
    return view


def assert_same_last_frame(make, x0, x1, x2):
    v1 = _visit(make, [x0, x1, x2])
    v2 = _visit(make, [x0, x2])
    assert np.array_equal(v1.rgba(90), v2.rgba(90))


# -- chapter 11: gradient check -----------------------------------------------------------
def _check(d_k, bug):
    r = np.random.default_rng(2)
    Qs, Ks = r.normal(size=(2, d_k)), r.normal(size=(3, d_k))
    Vs, Gs = r.normal(size=(3, 2)), r.normal(size=(2, 2))
    f = lambda Q, K, V: (Gs * A.attention(Q, K, V)[0]).sum()
    grads = A.attention_backward_folded(Gs, Qs, Ks, Vs, double_scale=bug)
    errors = A.gradcheck(f, [Qs, Ks, Vs], list(grads))
    dK_norms = [np.linalg.norm(A.attention_backward(Gs, Qs, Ks, Vs)[1]), np.linalg.norm(grads[1])]
    return errors, dK_norms


@pytest.fixture(scope="module")
def checks():
    return {(d_k, bug): _check(d_k, bug) for d_k in (1, 4, 16) for bug in (False, True)}


def test_gradcheck_view_frames(checks):
    assert_same_last_frame(lambda: part2b.GradcheckView(checks), {"d_k": 4, "bug": False},
                           {"d_k": 1, "bug": True}, {"d_k": 16, "bug": True})


def test_gradcheck_view_numbers(checks):
    view = part2b.GradcheckView(checks)(d_k=16, bug=True)
    errors = _check(16, True)[0]
    # round-off-level errors (their last digits are the CPU's) show as a bound, dK's in digits
    assert [t.get_text() for t in view.labels] == [
        f"{e:.1e}" if e >= 1e-8 else "< 1e-08" for e in errors]
    assert errors[0] < 1e-8 and errors[2] < 1e-8
    assert view.title.get_text() == "기울기 검사 ($d_k$ = 16, 버그 켬)"
    assert errors[1] == pytest.approx(0.6, abs=1e-6)  # ‖dK‖ shrinks by 1/√16
    norms = checks[16, True][1]
    assert max(norms) < view.dK_bars[0].axes.get_ylim()[1] < 1.5 * max(norms)  # fits this frame


# -- chapter 13: the multiplier α ---------------------------------------------------------
ALPHAS = [0.25, 1, 4, 16, 64]


@pytest.fixture(scope="module")
def scale_data():
    rng = np.random.default_rng(0)
    n, m, d_k, d_v = 4, 8, 16, 8
    Q, K = rng.normal(size=(n, d_k)), rng.normal(size=(m, d_k))
    V, G = rng.normal(size=(m, d_v)), rng.normal(size=(n, d_v))
    sweep = A.multiplier_grad_norms(G, Q, K, V, ALPHAS)
    parts = {a: A.attention_backward_parts(G, Q, K, V, scale=a / math.sqrt(d_k)) for a in ALPHAS}
    return (G, Q, K, V), parts, (sweep.dQ, sweep.dK, sweep.dV)


def test_scale_view_frames(scale_data):
    _, parts, norms = scale_data
    assert_same_last_frame(lambda: part2b.ScaleView(ALPHAS, parts, norms), {"alpha": 1},
                           {"alpha": 64}, {"alpha": 4})


def test_scale_view_numbers(scale_data):
    (G, Q, K, V), parts, norms = scale_data
    view = part2b.ScaleView(ALPHAS, parts, norms)(alpha=16)
    delta = A.attention_backward_parts(G, Q, K, V, scale=16 / 4).delta
    assert view.delta_title.get_text() == f"Δ (최대 |Δ| = {np.abs(delta).max():.1e})"
    assert view.P_title.get_text() == "P (α = 16)"
    assert list(view.marker.get_xdata()) == [16, 16]


# -- chapter 14: pre-LN and post-LN stacks -----------------------------------------------
@pytest.fixture(scope="module")
def stacks():
    d, n = 8, 4
    X0 = np.random.default_rng(0).normal(size=(n, d))
    base = A.block_weights(d, 6, seed=0)
    out = {}
    for N in (2, 4, 6):  # depth N (L is the loss)
        for a in (1, 16):
            W = [(a * wq, wk, wv, wo) for wq, wk, wv, wo in base[:N]]
            out[N, a] = (A.stack_grad_norms(X0, W, pre_ln=True, seed=100),
                         A.stack_grad_norms(X0, W, pre_ln=False, seed=100))
    return out


def test_stack_view_frames(stacks):
    assert_same_last_frame(lambda: part2b.StackView(stacks), {"depth": 4, "alpha": 1},
                           {"depth": 6, "alpha": 16}, {"depth": 2, "alpha": 16})


def test_stack_view_numbers(stacks):
    view = part2b.StackView(stacks)(depth=6, alpha=16)
    assert view.title.get_text() == "깊이 N = 6, 배수 α = 16"
    np.testing.assert_array_equal(view.pre.get_ydata(), stacks[6, 16][0])
    ax = view.pre.axes
    lo, hi = ax.get_ylim()
    for pre, post in stacks.values():  # the fixed limits hold every frame
        assert lo < min(pre.min(), post.min()) and max(pre.max(), post.max()) < hi
        assert ax.get_xlim()[1] >= len(pre) - 1
    assert ax.get_xlabel() == "층 l (0 = 입력, N = 출력)"


def test_depth_scaling_has_several_y_ticks():
    depths, pre, post = [3, 6, 12, 24, 48], [1.7, 2.4, 3.0, 5.0, 7.0], [1.3, 1.3, 0.9, 0.8, 1.4]
    ax = part2b.depth_scaling(depths, pre, post).axes[0]
    lo, hi = ax.get_ylim()
    ticks = [t for t in ax.get_yticks() if lo <= t <= hi]
    assert len(ticks) >= 3  # a log axis over less than a decade would otherwise show one tick
    assert ax.get_xlabel() == "깊이 N"
