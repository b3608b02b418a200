"""attnlib.plots.View: figures built once and redrawn by blitting (the fast live explorer path),
and the Part I / chapter 1 views built on it."""

from __future__ import annotations

import base64
import io
import time
import warnings

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from PIL import Image  # noqa: E402

from attnlib import numpy as A  # noqa: E402
from attnlib import plots, pure, widgets  # noqa: E402
from attnlib.figures import part1  # noqa: E402

RAW = np.array(pure.RAW_SCORES)


class Line(plots.View):
    """A toy view: a static curve, a moving dot, a title, and a variable number of ticks."""

    def __init__(self):
        fig, ax = plots.new_figure(3, 2)
        super().__init__(fig)
        x = np.linspace(0, 1, 50)
        ax.plot(x, x**2, color="0.5")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        self.ax = ax
        self.dot, = self.track(ax.plot([], [], "o", color="red"))
        self.title = self.track(ax.set_title(" "))

    def update(self, a):
        self.dot.set_data([a], [a**2])
        self.title.set_text(f"점 a = {a:g}")
        self.replace("marks", [self.ax.axvline(x, color="blue") for x in np.arange(0, a, 0.2)])


def _full_draw(fig, dpi=90):
    """The frame drawn the ordinary way: every artist, nothing cached."""
    fig.set_dpi(dpi)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba()).copy()


def test_view_call_updates_and_returns_the_view():
    v = Line()
    assert v(a=0.5) is v
    assert v.title.get_text() == "점 a = 0.5"
    assert list(v.dot.get_xdata()) == [0.5]


def test_replace_removes_the_previous_group():
    v = Line()
    v(a=0.9)
    assert len(v._groups["marks"]) == 5
    v(a=0.3)
    lines = [ln for ln in v.ax.lines if ln.get_color() == "blue"]
    assert len(lines) == 2 and len(v._groups["marks"]) == 2
    assert all(ln in v.dynamic for ln in lines)


def test_static_part_is_drawn_once():
    v = Line()
    v(a=0.2).rgba()
    calls = []
    original = v._canvas.draw
    v._canvas.draw = lambda: (calls.append(1), original())[1]
    for a in (0.4, 0.6, 0.8):
        v(a=a).rgba()
    assert calls == []  # frames after the first restore the cached bitmap
    v.redraw_static()
    v(a=0.5).rgba()
    assert calls == [1]


@pytest.mark.parametrize("path", [[0.1, 0.9, 0.5], [0.7, 0.2, 0.3, 0.95]])
def test_frame_does_not_depend_on_the_frames_before(path):
    # v1 visits every value, v2 only the first and the last: same pixels, so nothing
    # stale (a dot, a removed line, an old title) survives in the cached static part.
    v1, v2 = Line(), Line()
    for a in path:
        last = v1(a=a).rgba().copy()
    v2(a=path[0]).rgba()
    assert np.array_equal(last, v2(a=path[-1]).rgba())


def test_blitted_frame_matches_a_full_draw():
    v = Line()
    for a in (0.3, 0.8):
        blit = v(a=a).rgba().copy()
    # the same pixels: static artists above tracked ones (the axes' frame over the blue
    # lines) are drawn with the frame, in zorder order, as a full draw would
    assert np.array_equal(blit, _full_draw(v.fig))
    # and the figure drawn any other way shows the tracked artists (none left animated)
    assert not any(a.get_animated() for a in v.dynamic)


def test_render_outputs_encodes_a_view_as_png():
    v = Line()
    for compact in (True, False):
        (out,) = widgets.render_outputs(v(a=0.4), compact=compact)
        png = base64.b64decode(out["data"]["image/png"])
        img = Image.open(io.BytesIO(png))
        assert img.size == (out["metadata"]["image/png"]["width"], 180)
    assert widgets.render_outputs([v(a=0.4), "text"])[1]["text"] == "text\n"


def test_missing_glyph_in_a_view_is_an_error():
    import matplotlib as mpl

    plots.use_korean_font()
    with mpl.rc_context({"font.family": ["DejaVu Sans"]}), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # only the explorer's own filter should fire
        v = Line()
        with pytest.raises(UserWarning, match="[Gg]lyph .* missing from"):
            widgets.render_outputs(v(a=0.5))


def test_live_explorer_with_a_view_is_fast():
    ex = widgets.explorer(Line(), sliders={"a": [0.1, 0.3, 0.5, 0.7, 0.9]}, mode="live")
    slider, out = ex.children
    times = []
    for value in (0.3, 0.5, 0.7, 0.9):
        t = time.perf_counter()
        slider.value = value
        times.append(time.perf_counter() - t)
        assert "image/png" in out.outputs[0]["data"]
    # generous: about 10 ms here; a rebuilt figure with constrained layout takes ~100 ms
    assert sorted(times)[len(times) // 2] < 0.08, times


# ------------------------------------------------------------- the Part I views ----

PART1 = [
    ("collapse", lambda: part1.CollapseBars(RAW, d_k=64), "alpha", [1, 8, 0.25, 64]),
    ("panel", lambda: part1.JacobianPanel(RAW, d_k=64), "alpha", [1, 32, 2, 0.5]),
    ("curves", lambda: part1.JacobianCurves(RAW, 2.0 ** np.linspace(-2, 6, 33), d_k=64,
                                            peak=2.47, marks=[(8, "d_k = 64")]),
     "alpha", [1, 22.6, 4, 0.25]),
]


@pytest.mark.parametrize("name, make, key, values", PART1, ids=[p[0] for p in PART1])
def test_part1_views_have_no_stale_pixels(name, make, key, values):
    v1, v2 = make(), make()
    for x in values:
        last = v1(**{key: x}).rgba().copy()
    v2(**{key: values[0]}).rgba()
    assert np.array_equal(last, v2(**{key: values[-1]}).rgba())
    assert np.array_equal(last, _full_draw(v1.fig))


def test_part1_views_show_the_backend_numbers():
    p = A.softmax(RAW * 4 / 8)
    st = A.multiplier_stats(RAW, [4], d_k=64)
    v = part1.CollapseBars(RAW, d_k=64)(alpha=4)
    assert f"최대 p = {st.max_p[0]:.4f}" in v.box.get_text()
    assert [b.get_height() for b in v.bars] == pytest.approx(p)
    panel = part1.JacobianPanel(RAW, d_k=64)(alpha=4)
    assert np.allclose(panel.image.get_array(), A.softmax_jacobian(p), rtol=0, atol=1e-15)
    curves = part1.JacobianCurves(RAW, [1, 2, 4], d_k=64)(alpha=4)
    assert f"{st.jacobian_max[0]:.2e}" in curves.title_j.get_text()


def test_gamma_frame_shows_the_chosen_run_and_keeps_its_axes():
    runs = {(g, s): A.train_single_query(gamma=g, seed=s, steps=40)
            for g in (0, 0.5) for s in (0, 1)}
    v = part1.GammaFrame(runs, d_k=64)
    v(gamma=0, seed=1).rgba()
    ylim = v.fig.axes[0].get_ylim()
    v(gamma=0.5, seed=1).rgba()
    assert v.fig.axes[0].get_ylim() == ylim  # γ moves within one seed's scale
    top = max(max(runs[g, 1].loss) for g in (0, 0.5))
    assert ylim[0] < min(min(runs[g, 1].loss) for g in (0, 0.5)) and top < ylim[1] < 1.2 * top
    v(gamma=0.5, seed=0).rgba()
    assert list(v.loss.get_ydata()) == pytest.approx(list(runs[0.5, 0].loss))
    assert "시드 0" in v.title.get_text()
    v1 = part1.GammaFrame(runs, d_k=64)
    v1(gamma=0, seed=1).rgba()
    assert np.array_equal(v1(gamma=0.5, seed=0).rgba(), v.rgba())


def test_gamma_frame_names_its_grey_reference_in_both_panels():
    runs = {(g, 0): A.train_single_query(gamma=g, seed=0, steps=20) for g in (0, 0.5)}
    v = part1.GammaFrame(runs, d_k=64)(gamma=0, seed=0)
    for ax, ref in zip(v.fig.axes, (v.ref_loss, v.ref_p), strict=True):
        handles, labels = ax.get_legend_handles_labels()
        assert ref in handles and "γ = 0.5" in labels[handles.index(ref)]
        shown = [t.get_text() for t in ax.get_legend().get_texts()]
        assert labels[handles.index(ref)] in shown  # the legend drawn on the figure names it


def test_score_histograms_density_matches_numpy():
    s = A.dot_product_samples(16, 2000, seed=1)
    v = plots.ScoreHistograms()
    v(s=s, s_scaled=s / 4, d_k=16)
    _, edges, hist, _ = v.panels[0]
    expected, _ = np.histogram(s, bins=edges, density=True)
    assert hist.get_data().values == pytest.approx(expected)
    assert "16" in v.title.get_text()
    big = A.dot_product_samples(1024, 2000, seed=1)
    first = v(s=big, s_scaled=big / 32, d_k=1024).rgba().copy()
    fresh = plots.ScoreHistograms()
    fresh(s=s, s_scaled=s / 4, d_k=16).rgba()
    assert np.array_equal(first, fresh(s=big, s_scaled=big / 32, d_k=1024).rgba())
