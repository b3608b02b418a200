"""attnlib.widgets.explorer: frozen frames (the built book's explorer, frames as files),
readouts, live updates in a kernel, failures."""

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


def _instances():
    from ipywidgets.widgets import widget as widget_module

    return widget_module._instances


@pytest.fixture
def frames(tmp_path, monkeypatch):
    """The folder a frozen explorer writes its frames into (make book: _build/frames)."""
    monkeypatch.setenv("ATTNLIB_FRAMES_DIR", str(tmp_path))
    return tmp_path


def _page(ex) -> tuple[str, dict]:
    """The frozen explorer's HTML and its page data."""
    import json
    import re

    html = ex._repr_mimebundle_()["text/html"]
    data = re.search(r'<script type="application/vnd\.attnlib\.explorer\+json">(.*?)</script>',
                     html, re.S).group(1)
    return html, json.loads(data)


def _frame_file(folder, name) -> list[dict]:
    import json

    text = (folder / f"{name}.js").read_text(encoding="utf-8")
    prefix = f'attnlibFrame("{name}",'
    assert text.startswith(prefix) and text.endswith(");\n")
    return json.loads(text[len(prefix):-3])["outputs"]


def test_frozen_one_slider_precomputes_every_value(frames):
    values = [4, 16, 64, 256]
    before = len(_instances())
    ex = widgets.explorer(_frame, sliders={"d_k": values}, initial={"d_k": 64}, mode="frozen")
    assert len(_instances()) == before, "the frozen book makes no ipywidget (no widget state)"
    html, data = _page(ex)
    (control,) = data["controls"]
    assert control["labels"] == ["4", "16", "64", "256"] and control["initial"] == 2
    # a native slider over the listed values, at the initial one, named by its label
    assert '<input type="range"' in html and 'min="0" max="3" step="1" value="2"' in html
    assert 'aria-valuetext="64"' in html and '<label for="' in html
    assert 'aria-live="polite"' in html
    assert len(data["frames"]) == len(values) == len(set(data["frames"]))
    for name, d_k in zip(data["frames"], values, strict=True):
        outs = _frame_file(frames, name)
        assert [o["output_type"] for o in outs] == ["display_data", "stream"]
        # the book's pictures: lossless WebP at two device pixels per CSS pixel, with an alt
        # text and the CSS size in the output metadata (attnlib.pictures)
        webp = base64.b64decode(outs[0]["data"]["image/webp"])
        assert webp[:4] == b"RIFF" and webp[8:12] == b"WEBP" and len(webp) < 60_000
        meta = outs[0]["metadata"]["image/webp"]
        assert meta["width"] == 3 * 90 and meta["text_px"] >= 9 and len(meta["alt"]) > 10
        assert outs[1]["text"] == f"d_k = {d_k}, float64\n"
    # the page carries the initial frame, as the frame file holds it
    first = _frame_file(frames, data["frames"][2])
    assert first[0]["data"]["image/webp"] in html and "d_k = 64, float64" in html
    assert _frame_file(frames, data["frames"][0])[0]["data"]["image/webp"] not in html


def test_frozen_slider_and_toggle_frames_are_row_major(frames):
    ex = widgets.explorer(
        _frame,
        sliders={"d_k": [4, 64, 1024]},
        toggles={"dtype": ["float32", "float64"]},
        initial={"dtype": "float64"},
        mode="frozen",
    )
    html, data = _page(ex)
    assert [c["kind"] for c in data["controls"]] == ["slider", "toggle"]
    assert data["controls"][1]["initial"] == 1
    assert html.count('aria-pressed="true"') == 1 and 'aria-pressed="true">float64' in html
    texts = [_frame_file(frames, n)[-1]["text"] for n in data["frames"]]
    assert texts == [f"d_k = {d}, {t}\n" for d in (4, 64, 1024) for t in ("float32", "float64")]


def test_first_moves_are_the_neighbours_of_the_first_frame(frames):
    """The frames a page's first explorer carries (explorer_page.first_moves): one step along
    each slider, every other value of a toggle, each once, never the first frame; with their
    outputs as the frame files hold them (first_moves_html)."""
    import json
    import re

    from attnlib import explorer_page

    ex = widgets.explorer(
        lambda d_k, dtype, how: f"{d_k} {dtype} {how}",
        sliders={"d_k": [4, 64, 1024]},
        toggles={"dtype": ["float32", "float64"], "how": ["a", "b", "c"]},
        initial={"d_k": 1024, "dtype": "float64", "how": "a"},
        mode="frozen",
    )
    _, data = _page(ex)
    moves = explorer_page.first_moves(data)
    texts = [_frame_file(frames, n)[0]["text"] for n in moves]
    # the last slider value has one neighbour; a toggle reaches each other value in one click
    assert texts == ["64 float64 a\n", "1024 float32 a\n", "1024 float64 b\n",
                     "1024 float64 c\n"]
    script = explorer_page.first_moves_html(data, frames)
    body = re.fullmatch(r'<script type="application/vnd\.attnlib\.first-moves\+json">(.*)</script>',
                        script, re.S).group(1)
    carried = json.loads(body)
    assert list(carried) == moves
    assert all(carried[n]["outputs"] == _frame_file(frames, n) for n in moves)

    # the same frame at two positions is carried once, and the first frame never
    same = {"controls": [{"kind": "slider", "labels": ["1", "2", "3"], "initial": 1}],
            "frames": ["x", "y", "x"]}
    assert explorer_page.first_moves(same) == ["x"]
    assert explorer_page.first_moves({**same, "frames": ["y", "y", "y"]}) == []
    # a toggle of many values: the first MAX_FIRST_MOVES, the slider's neighbours first
    many = {"controls": [{"kind": "slider", "labels": ["1", "2"], "initial": 0},
                         {"kind": "toggle", "labels": list("abcdefghij"), "initial": 0}],
            "frames": [f"f{i}" for i in range(20)]}
    assert explorer_page.first_moves(many) == ["f10"] + [f"f{i}" for i in range(1, 6)]
    with pytest.raises(ValueError, match="3 frames for controls of sizes"):
        explorer_page.first_moves({**same, "controls": same["controls"] * 2})
    (frames / "bad.js").write_text("console.log(1)", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.js .* is not a frame file"):
        explorer_page.read_frame(frames, "bad")


def test_frozen_readout_shows_values_not_indices(frames):
    ex = widgets.explorer(
        lambda fill: f"fill = {fill}",
        sliders={"fill": [-float("inf"), -1e9, -1e4, -100.0, 0.0]},
        mode="frozen",
    )
    _, data = _page(ex)
    assert data["controls"][0]["labels"] == ["-inf", "-1e+09", "-10000", "-100", "0"]


def test_frozen_needs_a_frames_folder(monkeypatch):
    monkeypatch.delenv("ATTNLIB_FRAMES_DIR", raising=False)
    with pytest.raises(RuntimeError, match="ATTNLIB_FRAMES_DIR"):
        widgets.explorer(lambda d_k: f"{d_k}", sliders={"d_k": [4]}, mode="frozen")


def test_frozen_first_frame_markup_is_what_the_script_draws(frames):
    """explorer_page.outputs_html and explorer.js's render() write the same markup: pictures
    of one figure share a div.attn-figure, printed lines are one pre.attn-text."""
    from attnlib import explorer_page

    meta = {"width": 10, "height": 5, "alt": "a <b>", "text_px": 9.4}
    outs = [{"output_type": "display_data", "data": {"image/webp": "AAAA"},
             "metadata": {"image/webp": meta}},
            {"output_type": "display_data", "data": {"image/webp": "BBBB"},
             "metadata": {"image/webp": {"width": 12, "height": 5, "alt": "c"}}},
            {"output_type": "stream", "name": "stdout", "text": "x < 1\n"},
            {"output_type": "stream", "name": "stdout", "text": "y\n"}]
    assert explorer_page.outputs_html(outs) == (
        '<div class="attn-figure"><img class="attn-tile attn-text-px-9" '
        'src="data:image/webp;base64,AAAA" width="10" height="5" alt="a &lt;b&gt;" '
        'decoding="async"><img src="data:image/webp;base64,BBBB" width="12" height="5" '
        'alt="c" decoding="async"></div><pre class="attn-text">x &lt; 1\ny</pre>')


def test_frozen_exception_propagates(frames):
    def broken(d_k):
        if d_k == 16:
            raise RuntimeError("frame 16 is broken")
        return f"{d_k}"

    with pytest.raises(RuntimeError, match="frame 16"):
        widgets.explorer(broken, sliders={"d_k": [4, 16]}, mode="frozen")


def test_missing_glyph_is_an_error(monkeypatch, frames):
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


def test_live_fallback_picture_keeps_its_alt_text(monkeypatch):
    """Part 2 D7 (round 4): the picture a notebook file keeps of a kernel's explorer has the
    alt text the book's frames have (what it plots, the title), in the output's metadata."""
    from IPython import display as ipd

    ex = widgets.explorer(_frame, sliders={"d_k": [4, 8]}, mode="live")
    shown = []
    monkeypatch.setattr(ipd, "display", lambda obj, **kw: shown.append((obj, kw)))
    ex._ipython_display_()
    (bundle, kw), = shown
    assert "image/png" in bundle and kw["raw"] is True
    alt = kw["metadata"]["image/png"]["alt"]
    assert "점수 분포 d_k = 4" in alt and "선" in alt, alt
    assert kw["metadata"]["image/png"]["width"] > 0


def test_mode_comes_from_the_environment(monkeypatch, frames):
    from attnlib import explorer_page

    monkeypatch.delenv("ATTNLIB_WIDGETS", raising=False)
    assert widgets.current_mode() == "live"
    monkeypatch.setenv("ATTNLIB_WIDGETS", "frozen")
    assert widgets.current_mode() == "frozen"
    ex = widgets.explorer(lambda d_k: str(d_k), sliders={"d_k": [1, 2]})
    assert isinstance(ex, explorer_page.FrozenExplorer)
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
def test_bad_arguments(kwargs, message, frames):
    with pytest.raises(ValueError, match=message):
        widgets.explorer(lambda **v: "", **kwargs)


def test_bad_return_type(frames):
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
