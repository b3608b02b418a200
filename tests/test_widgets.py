"""attnlib.widgets.explorer: frozen frames, jslinks, readouts, live updates, failures."""

from __future__ import annotations

import base64
import warnings

import ipywidgets as W
import pytest

pytest.importorskip("matplotlib")

from attnlib import plots, widgets  # noqa: E402


def _frame(d_k, dtype="float64"):
    fig, ax = plots.new_figure(3, 2)
    ax.plot([0, 1], [0, d_k])
    ax.set_title(f"점수 분포 d_k = {d_k} ({dtype}) −1")
    return fig, f"d_k = {d_k}, {dtype}"


def _leaves(widget):
    if isinstance(widget, W.Output):
        return [widget]
    return [leaf for child in widget.children for leaf in _leaves(child)]


def _instances():
    from ipywidgets.widgets import widget as widget_module

    return widget_module._instances


def _links(widget):
    return [
        w
        for w in list(_instances().values())
        if isinstance(w, W.widgets.widget_link.Link) and widget in (w.source[0], w.target[0])
    ]


def test_frozen_one_slider_precomputes_every_value():
    values = [4, 16, 64, 256]
    ex = widgets.explorer(_frame, sliders={"d_k": values}, initial={"d_k": 64}, mode="frozen")
    slider, stack = ex.children
    assert isinstance(slider, W.SelectionSlider) and isinstance(stack, W.Stack)
    assert slider.readout and slider.value == 64 and slider.label == "64"
    assert [label for label, _ in slider.options] == ["4", "16", "64", "256"]
    assert stack.selected_index == slider.index == 2
    leaves = _leaves(stack)
    assert len(leaves) == len(values)
    for leaf, d_k in zip(leaves, values, strict=True):
        kinds = [o["output_type"] for o in leaf.outputs]
        assert kinds == ["display_data", "stream"]
        png = base64.b64decode(leaf.outputs[0]["data"]["image/png"])
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) < 60_000
        assert leaf.outputs[1]["text"] == f"d_k = {d_k}, float64\n"
    link = _links(slider)
    assert len(link) == 1 and link[0].source == (slider, "index")
    assert link[0].target == (stack, "selected_index")


def test_frozen_slider_and_toggle_nest_stacks():
    ex = widgets.explorer(
        _frame,
        sliders={"d_k": [4, 64, 1024]},
        toggles={"dtype": ["float32", "float64"]},
        initial={"dtype": "float64"},
        mode="frozen",
    )
    slider, toggle, outer = ex.children
    assert isinstance(toggle, W.ToggleButtons) and toggle.value == "float64"
    assert len(outer.children) == 3 and all(isinstance(c, W.Stack) for c in outer.children)
    assert all(c.selected_index == 1 for c in outer.children)
    texts = [leaf.outputs[-1]["text"] for leaf in _leaves(outer)]
    assert texts == [f"d_k = {d}, {t}\n" for d in (4, 64, 1024) for t in ("float32", "float64")]
    assert len(_links(toggle)) == 3 and len(_links(slider)) == 1


def test_frozen_readout_shows_values_not_indices():
    ex = widgets.explorer(
        lambda fill: f"fill = {fill}",
        sliders={"fill": [-float("inf"), -1e9, -1e4, -100.0, 0.0]},
        mode="frozen",
    )
    assert [label for label, _ in ex.children[0].options] == [
        "-inf",
        "-1e+09",
        "-10000",
        "-100",
        "0",
    ]


def test_frozen_exception_propagates():
    def broken(d_k):
        if d_k == 16:
            raise RuntimeError("frame 16 is broken")
        return f"{d_k}"

    with pytest.raises(RuntimeError, match="frame 16"):
        widgets.explorer(broken, sliders={"d_k": [4, 16]}, mode="frozen")


def test_missing_glyph_is_an_error(monkeypatch):
    import matplotlib as mpl

    def frame(d_k):
        fig, ax = plots.new_figure(3, 2)
        ax.set_title("점수")
        return fig

    plots.use_korean_font()
    with mpl.rc_context({"font.family": ["DejaVu Sans"]}), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # only the explorer's own filter should fire
        with pytest.raises(UserWarning, match="[Gg]lyph .* missing from"):
            widgets.explorer(frame, sliders={"d_k": [4]}, mode="frozen")


def test_korean_figure_renders_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        outs = widgets.render_outputs(_frame(8)[0])
    assert outs[0]["data"]["image/png"]


def test_live_updates_one_output_and_caches():
    calls = []

    def frame(d_k, dtype):
        calls.append((d_k, dtype))
        return f"{d_k} {dtype}"

    ex = widgets.explorer(
        frame, sliders={"d_k": [4, 64]}, toggles={"dtype": ["a", "b"]}, mode="live"
    )
    slider, toggle, out = ex.children
    assert isinstance(out, W.Output)
    assert out.outputs[0]["text"] == "4 a\n"
    slider.value = 64
    assert out.outputs[0]["text"] == "64 a\n"
    toggle.value = "b"
    assert out.outputs[0]["text"] == "64 b\n"
    slider.value = 4
    slider.value = 64
    assert calls == [(4, "a"), (64, "a"), (64, "b"), (4, "b")]
    bundle = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "d_k = 4" in bundle["text/plain"]


def test_live_fallback_picture_for_static_viewers():
    ex = widgets.explorer(lambda d_k: _frame(d_k)[0], sliders={"d_k": [4, 8]}, mode="live")
    bundle = ex._repr_mimebundle_()
    assert base64.b64decode(bundle["image/png"])[:4] == b"\x89PNG"


def test_mode_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("ATTNLIB_WIDGETS", raising=False)
    assert widgets.current_mode() == "live"
    monkeypatch.setenv("ATTNLIB_WIDGETS", "frozen")
    assert widgets.current_mode() == "frozen"
    ex = widgets.explorer(lambda d_k: str(d_k), sliders={"d_k": [1, 2]})
    assert isinstance(ex.children[-1], W.Stack)
    monkeypatch.setenv("ATTNLIB_WIDGETS", "thawed")
    with pytest.raises(ValueError, match="ATTNLIB_WIDGETS"):
        widgets.current_mode()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(), "at least one"),
        (dict(sliders={"a": []}), "no values"),
        (dict(sliders={"a": [1]}, initial={"a": 2}), "not among"),
        (dict(sliders={"a": [1]}, initial={"b": 2}), "names no control"),
        (dict(sliders={"a": list(range(300))}, mode="frozen"), "frames"),
        (dict(sliders={"a": [1]}, fmt="gif"), "fmt"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        widgets.explorer(lambda **v: "", **kwargs)


def test_bad_return_type():
    with pytest.raises(TypeError, match="Figure"):
        widgets.explorer(lambda d_k: 42, sliders={"d_k": [1]}, mode="frozen")
