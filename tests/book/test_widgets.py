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
        # the book's pictures: lossless WebP at two device pixels per CSS pixel, with an alt
        # text and the CSS size in the output metadata (attnlib.pictures)
        webp = base64.b64decode(leaf.outputs[0]["data"]["image/webp"])
        assert webp[:4] == b"RIFF" and webp[8:12] == b"WEBP" and len(webp) < 60_000
        meta = leaf.outputs[0]["metadata"]["image/webp"]
        assert meta["width"] == 3 * 90 and meta["text_px"] >= 9 and len(meta["alt"]) > 10
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
    assert out.outputs == () and calls == [(4, "a")]  # computed now, sent once displayed
    ex._ipython_display_()
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


# ------------------------------------------------ what a front end receives ----

# Runs in the Python under test (its own jupyter_client and ipykernel): starts a kernel,
# shows a live explorer, moves its slider as a front end would (a comm_msg "update" of
# `index`), and prints, for the cell and for the move, every iopub message as
# [msg_type, model or data keys]; messages to the explorer's Output also say what they carry.
FRONTEND = r"""
import json, sys
from jupyter_client.manager import start_new_kernel

CELL = '''
from matplotlib.figure import Figure
from attnlib import widgets

def show(a):
    fig = Figure(figsize=(2, 1.5))
    fig.add_subplot().plot([0, 1], [0, a])
    return fig, f"a = {a}"

widgets.explorer(show, sliders={"a": [1, 2, 3]})
'''


def summary(msg, comms):
    kind, content = msg["msg_type"], msg["content"]
    if kind == "comm_open":
        state = content["data"]["state"]
        comms[content["comm_id"]] = state["_model_name"]
        out = {"model": state["_model_name"]}
        if "outputs" in state:
            out["outputs"] = [o["output_type"] for o in state["outputs"]]
        return [kind, out]
    if kind == "comm_msg":
        data = content["data"]
        out = {"model": comms.get(content["comm_id"]), "method": data.get("method"),
               "keys": sorted(data.get("state", {}))}
        if "outputs" in data.get("state", {}):
            outs = data["state"]["outputs"]
            out["outputs"] = [o["output_type"] for o in outs]
            out["png"] = next((o["data"]["image/png"][-40:] for o in outs
                               if "image/png" in o.get("data", {})), None)
        return [kind, out]
    if kind in ("display_data", "execute_result"):
        return [kind, sorted(content["data"])]
    if kind == "stream":
        return [kind, content["name"], content["text"]]
    return [kind]


def collect(kc, msg_id, comms):
    got = []
    while True:
        msg = kc.get_iopub_msg(timeout=120)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status":
            if msg["content"]["execution_state"] == "idle":
                return got
            continue
        if msg["msg_type"] != "execute_input":
            got.append(summary(msg, comms))


km, kc = start_new_kernel(kernel_name="python3")
try:
    comms = {}
    cell = collect(kc, kc.execute(CELL), comms)
    slider = next(c for c, name in comms.items() if name == "SelectionSliderModel")
    move = kc.session.msg("comm_msg", {"comm_id": slider, "data": {
        "method": "update", "state": {"index": 1}, "buffer_paths": []}})
    kc.shell_channel.send(move)
    moved = collect(kc, move["header"]["msg_id"], comms)
    print(json.dumps({"cell": cell, "move": moved}))
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
"""


def frontend_messages(python: str, env: dict | None = None) -> dict:
    """What a front end receives from a live explorer (see ``FRONTEND``), run by ``python``."""
    import json
    import os
    import subprocess

    env = dict(env if env is not None else os.environ)
    env.pop("ATTNLIB_WIDGETS", None)  # live mode, as in a reader's kernel
    proc = subprocess.run([python, "-c", FRONTEND], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def assert_first_frame_sent_like_updates(messages: dict) -> None:
    """The first picture reaches the front end by the message an update uses, after the view."""

    def to_output(msgs):
        return [m[1] for m in msgs if m[0] == "comm_msg" and m[1]["model"] == "OutputModel"]

    cell, move = messages["cell"], messages["move"]
    # The cell shows one thing, the widget's view: no print or picture of its own, so
    # nbval compares what it compared before.
    shown = [m for m in cell if m[0] in ("display_data", "execute_result", "stream")]
    assert len(shown) == 1 and "application/vnd.jupyter.widget-view+json" in shown[0][1], cell
    assert "image/png" in shown[0][1]  # the static picture beside the view, for GitHub
    opened = [m[1] for m in cell if m[0] == "comm_open" and m[1]["model"] == "OutputModel"]
    assert opened == [{"model": "OutputModel", "outputs": []}], "first frame in the initial state"
    first, update = to_output(cell), to_output(move)
    assert len(first) == 1 and len(update) == 1, (cell, move)
    # Sent after the view, so a view that draws only on changes is there to draw it.
    assert cell.index(["comm_msg", first[0]]) > cell.index(shown[0])
    for frame in (first[0], update[0]):
        assert frame["method"] == "update" and frame["keys"] == ["outputs"]
        assert frame["outputs"] == ["display_data", "stream"] and frame["png"]
    assert first[0]["png"] != update[0]["png"]  # the slider moved: a new picture
    assert not [m for m in move if m[0] in ("display_data", "stream", "clear_output")], move


def test_first_frame_reaches_the_front_end_like_updates():
    import sys

    assert_first_frame_sent_like_updates(frontend_messages(sys.executable))
