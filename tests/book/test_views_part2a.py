"""The explorer Views of chapters 8–10 (``attnlib.figures.part2a``): a frame reached through
other frames draws exactly like one reached directly (nothing stale in the cached static part),
and the text under each frame reports what ``attnlib.numpy`` computes."""

import base64
import io

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from attnlib import measure
from attnlib import numpy as A
from attnlib.figures import part2a as F


def _same_after_detour(make, first, detour, last):
    """rgba of a view that went first → detour → last equals one that went first → last."""
    v1, v2 = make(), make()
    for values in (first, detour, last):
        v1(**values).rgba(90)
    for values in (first, last):
        v2(**values).rgba(90)
    a, b = v1.rgba(90), v2.rgba(90)
    assert a.shape == b.shape
    assert np.array_equal(a, b)


@pytest.fixture(scope="module")
def rows():
    return measure.row_rule_sweep(8, [16, 32, 64], dtype="float32", rounds=1)


def test_jacobian_cost_frames_draw_alike(rows):
    _same_after_detour(lambda: F.JacobianCostView(rows, [16, 32, 64, 1024]),
                       dict(m=32), dict(m=1024), dict(m=16))


def test_jacobian_cost_text(rows):
    view = F.JacobianCostView(rows, [16, 32, 64, 1024])
    row = rows[1]
    text = view(m=32).text
    n, item = row["n"], row["nm_bytes"] // (row["n"] * row["m"])
    assert f"야코비안 {n * 32 * 32 * item / 1e6:.3g} MB" in text
    assert f"행별 규칙 {n * 32 * item / 1e3:.3g} KB (비 32)" in text
    assert f"최대 메모리 비 {row['mem_jacobian'] / row['mem_row']:.0f}" in text
    assert f"시간 비 {row['t_jacobian'] / row['t_row']:.0f}" in text
    assert "재지 않았다" in view(m=1024).text


def _mask_problem():
    rng = np.random.default_rng(1)
    S0, G, V = rng.normal(size=(4, 4)), rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    hidden = np.triu(np.ones((4, 4), bool), k=1)  # causal: the future keys hidden
    return S0, G, V, hidden


@pytest.mark.parametrize("last", [dict(fill=-np.inf, dtype="float64", how="replace"),
                                  dict(fill=-10.0, dtype="float32", how="add")])
def test_mask_fill_frames_draw_alike(last):
    S0, G, V, hidden = _mask_problem()
    _same_after_detour(lambda: F.MaskFillView(S0, G, V, hidden),
                       dict(fill=-10.0, dtype="float64", how="replace"),
                       dict(fill=0.0, dtype="float32", how="add"), last)


def test_mask_fill_frame_is_a_full_draw():
    S0, G, V, hidden = _mask_problem()
    view = F.MaskFillView(S0, G, V, hidden)
    view(fill=-1e9, dtype="float32", how="add").rgba(90)
    blit = view(fill=-5.0, dtype="float64", how="replace").rgba(90).copy()
    view.fig.set_dpi(90)
    canvas = FigureCanvasAgg(view.fig)
    canvas.draw()
    assert np.array_equal(blit, np.asarray(canvas.buffer_rgba()))


def _masked(hidden, fill, how, dt):
    """The mask arguments each way, as a chapter passes them to attnlib."""
    if how == "replace":
        return dict(mask=~hidden, fill=fill)
    return dict(mask=np.where(hidden, fill, 0.0).astype(dt))


@pytest.mark.parametrize("fill, dtype, how", [(-np.inf, "float64", "replace"),
                                              (-300.0, "float32", "replace"),
                                              (-10.0, "float64", "replace"),
                                              (0.0, "float32", "replace"),
                                              (-np.inf, "float64", "add"),
                                              (-300.0, "float64", "add"),
                                              (-10.0, "float32", "add"),
                                              (0.0, "float64", "add")])
def test_mask_fill_text(fill, dtype, how):
    S0, G, V, hidden = _mask_problem()
    view = F.MaskFillView(S0, G, V, hidden)(fill=fill, dtype=dtype, how=how)
    dt = np.dtype(dtype)
    p = A.attention_backward_parts(G.astype(dt), S0.astype(dt), np.eye(4, dtype=dt),
                                   V.astype(dt), scale=1.0, **_masked(hidden, fill, how, dt))
    label = "-inf" if np.isneginf(fill) else f"{fill:g}"
    assert view.text == (
        f"{F.MaskFillView.HOW[how]}, fill = {label}, {dt.name}: 가린 자리(점선) "
        f"max P = {float(p.P[hidden].max()):.2e}, "
        f"max |Δ| = {float(np.abs(p.delta[hidden]).max()):.2e}\n"
        f"그 자리에서 QKᵀ 로 가는 기울기 max = {float(np.abs(p.dQ[hidden]).max()):.2e}")
    assert view.D.cells.texts[-1] == f"{p.delta[-1, -1]:.2f}"
    assert view.R.cells.texts[-1] == f"{p.dQ[-1, -1]:.2f}"


def test_mask_fill_gradient_reaches_scores_only_when_added():
    """K = I: the third panel is ∂L/∂(QKᵀ), Δ with the replaced cells zeroed, or Δ itself."""
    S0, G, V, hidden = _mask_problem()
    view = F.MaskFillView(S0, G, V, hidden)
    replaced = np.asarray(view(fill=-10.0, dtype="float64", how="replace").R.image.get_array())
    delta = np.asarray(view.D.image.get_array())
    assert np.all(replaced[hidden] == 0) and np.all(delta[hidden] != 0)
    assert np.array_equal(replaced[~hidden], delta[~hidden])
    added = np.asarray(view(fill=-10.0, dtype="float64", how="add").R.image.get_array())
    assert np.array_equal(added, np.asarray(view.D.image.get_array()))
    assert np.all(added[hidden] != 0)


def test_mask_fill_zero_fill_is_no_mask_only_when_added():
    """Issue 15: fill 0 replaces the hidden scores by 0 (not the same as no mask); added, it is."""
    S0, G, V, hidden = _mask_problem()
    view = F.MaskFillView(S0, G, V, hidden)
    none = A.attention(S0, np.eye(4), V, scale=1.0)[1]
    added = np.asarray(view(fill=0.0, dtype="float64", how="add").P.image.get_array())
    replaced = np.asarray(view(fill=0.0, dtype="float64", how="replace").P.image.get_array())
    assert np.array_equal(added, none)
    assert np.allclose(replaced[0], [0.32, 0.227, 0.227, 0.227], atol=5e-3)
    assert not np.allclose(replaced, none, atol=1e-2)


def test_mask_fill_unknown_how():
    S0, G, V, hidden = _mask_problem()
    with pytest.raises(ValueError, match="how"):
        F.MaskFillView(S0, G, V, hidden)(fill=-10.0, dtype="float64", how="multiply")


def _dropout_problem():
    rng = np.random.default_rng(0)
    Q, K = rng.normal(size=(4, 8)), rng.normal(size=(6, 8))
    V, G = rng.normal(size=(6, 4)), rng.normal(size=(4, 4))
    return G, Q, K, V


def test_dropout_frames_draw_alike():
    G, Q, K, V = _dropout_problem()
    _same_after_detour(lambda: F.DropoutView(G, Q, K, V), dict(p_drop=0.3, seed=1),
                       dict(p_drop=0.9, seed=2), dict(p_drop=0.0, seed=0))


@pytest.mark.parametrize("p_drop, seed", [(0.0, 0), (0.3, 1), (0.7, 2)])
def test_dropout_text(p_drop, seed):
    G, Q, K, V = _dropout_problem()
    view = F.DropoutView(G, Q, K, V)(p_drop=p_drop, seed=seed)
    M = F.dropout_keep_mask(4, 6, p_drop, seed)
    parts = A.attention_backward_parts(G, Q, K, V, dropout_mask=M, p_drop=p_drop)
    dropped = M == 0
    d_drop = np.abs(parts.delta[dropped]).max() if dropped.any() else 0.0
    r = " ".join(f"{v:+.3f}" for v in parts.r)
    assert view.text == (f"p_drop = {p_drop:g}, seed = {seed}: "
                         f"떨어뜨린 자리 {int(dropped.sum())}개, "
                         f"그 자리 max |Δ| = {d_drop:.3f}\nr = ({r})")
    crossed = np.isfinite(view.U.marks.get_xdata()).sum() // 4  # 4 points per cross
    assert crossed == dropped.sum()


def test_head_blocks_figure_outlines_each_head_and_stores_as_png():
    from matplotlib.patches import Rectangle
    from PIL import Image

    from attnlib.pictures import figure_outputs
    from attnlib.plots import static

    fig = F.head_blocks_figure(np.arange(32.0).reshape(4, 8), H=2)
    ax = fig.axes[0]
    boxes = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert [(b.get_x(), b.get_width()) for b in boxes] == [(-0.5, 4), (3.5, 4)]
    assert [t.get_text() for t in ax.texts] == ["헤드 0", "헤드 1"]
    assert static(fig)._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"  # under any backend
    # in a notebook: one picture, two device pixels per CSS pixel, with what it shows in words
    (out,) = figure_outputs(fig, fmt="png", tiles=False)
    meta = out["metadata"]["image/png"]
    png = base64.b64decode(out["data"]["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert Image.open(io.BytesIO(png)).size == (2 * meta["width"], 2 * meta["height"])
    assert "헤드 0" in meta["alt"] and "|∂L/∂W_Q|" in meta["alt"]
