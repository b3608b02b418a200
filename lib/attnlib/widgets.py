"""Explorers: a function of a few slider values, shown with sliders that work everywhere.

``explorer(func, sliders={...}, toggles={...})`` returns one widget.  ``func(**values)``
returns what to show for one position of the controls: an ``attnlib.plots.View`` (a figure
built once and updated in place; what every chapter uses, since only its changing artists
are redrawn, in tens of ms), a matplotlib ``Figure`` (rebuilt per position: simple, but a
few hundred ms), a ``str`` (printed as text), an object with ``_repr_html_`` (an HTML
table, say), or a list/tuple of these.  A ``View`` is itself such a function:
``explorer(view, sliders=...)`` calls ``view(**values)``.

Two modes, chosen by the environment variable ``ATTNLIB_WIDGETS`` (a chapter has one
code path):

- ``live`` (default; Jupyter, Colab): every change of a control calls ``func`` again
  and replaces the one output area (positions already shown come from a cache).  Every
  frame, the first included, reaches the front end the same way: the kernel assigns the
  ``Output`` widget's ``outputs`` (one ``comm_msg`` "update", as ipywidgets' own
  ``Output.append_stdout``/``append_display_data`` do).  The first frame is sent right
  after the widget's view is displayed, because some front ends draw an ``Output`` only
  when its ``outputs`` change and ignore what it held when the view appeared (Colab's
  built-in one did: googlecolab/colab-widgets, ``src/outputs.ts``).  Nothing is printed
  into the cell, so nbval compares only the widget's own display.  Works with ipywidgets
  7.7 (what Colab's kernel imports) and 8.
- ``frozen`` (``make book`` sets it): every combination of control values is computed
  once, at build time, into its own ``Output`` widget; nested ``Stack`` widgets hold
  them and each control's ``index`` is ``jslink``-ed to the ``selected_index`` of the
  stacks of its level, so the static HTML page switches frames in the browser with no
  kernel.  Outputs are built explicitly (figure -> PNG/SVG bytes -> ``Output.outputs``),
  never captured with ``with out:``, so an exception in ``func`` fails the cell and
  the book build.

Example (a chapter cell)::

    from attnlib import numpy as A
    from attnlib import plots, widgets

    histograms = plots.ScoreHistograms()      # built once

    def show(d_k):
        s = A.dot_product_samples(d_k, 2000, seed=1)
        return histograms(s=s, s_scaled=s / d_k**0.5, d_k=d_k), f"std = {s.std():.2f}"

    widgets.explorer(show, sliders={"d_k": [4, 16, 64, 256, 1024]}, initial={"d_k": 64})

Math lives in the backends; this module only arranges controls and outputs.
"""

from __future__ import annotations

import base64
import contextlib
import io
import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as W

__all__ = ["explorer", "current_mode", "render_outputs", "MODES"]

MODES = ("live", "frozen")
ENV = "ATTNLIB_WIDGETS"
MAX_FRAMES = 200  # frozen frames per explorer; beyond this a page gets heavy


def current_mode() -> str:
    """The current mode: ``$ATTNLIB_WIDGETS`` (``live`` or ``frozen``), default ``live``."""
    value = os.environ.get(ENV, "live").strip().lower() or "live"
    if value not in MODES:
        raise ValueError(f"{ENV}={value!r}: expected one of {MODES}")
    return value


def _label(value: Any) -> str:
    """How a control value reads on the page: ``64``, ``0.25``, ``-inf``, ``1e-09``."""
    if isinstance(value, bool):
        return "켬" if value else "끔"
    if isinstance(value, float):
        if math.isinf(value):
            return "-inf" if value < 0 else "inf"
        return f"{value:g}"
    return str(value)


# ---------------------------------------------------------------- outputs ----


@contextlib.contextmanager
def _glyphs_strict():
    """A context in which a missing glyph (drawn as an empty box) is the error it is."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "error", message=r".*[Gg]lyph .* missing from", category=UserWarning
        )
        yield


def _png_output(png: bytes, width: int, height: int) -> dict:
    return {
        "output_type": "display_data",
        "data": {"image/png": base64.b64encode(png).decode("ascii"), "text/plain": "<Figure>"},
        "metadata": {"image/png": {"width": width, "height": height}},
    }


def _view_output(view, dpi: float, compact: bool) -> dict:
    """A ``plots.View`` frame: only its changing artists are drawn (see ``View.rgba``)."""
    from PIL import Image

    from .plots import encode_png

    with _glyphs_strict():
        rgba = view.rgba(dpi)
    img = Image.fromarray(rgba)
    return _png_output(encode_png(img, compact=compact), img.width, img.height)


def _figure_output(fig, fmt: str, dpi: float, compact: bool = True) -> dict:
    """A matplotlib Figure as one ``display_data`` output (PNG or SVG)."""
    import matplotlib.pyplot as plt
    from PIL import Image

    from .plots import encode_png

    buf = io.BytesIO()
    with _glyphs_strict():
        if fmt == "svg":
            fig.savefig(buf, format="svg", metadata={"Date": None})
        else:
            fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    plt.close(fig)  # a no-op for figures pyplot does not manage
    if fmt == "svg":
        return {
            "output_type": "display_data",
            "data": {"image/svg+xml": buf.getvalue().decode(), "text/plain": "<Figure>"},
            "metadata": {},
        }
    img = Image.open(io.BytesIO(buf.getvalue()))
    return _png_output(encode_png(img, compact=compact), img.width, img.height)


def render_outputs(
    result: Any, *, fmt: str = "png", dpi: float = 90, compact: bool = True, book: bool = False
) -> list[dict]:
    """Turn what ``func`` returned into nbformat output dicts (figures, text, HTML).

    ``compact``: spend time on small PNGs (frozen frames, which the page carries) rather
    than on speed (live frames, sent once to the kernel's front end).
    ``book``: a frame of the built book: figures become ``attnlib.pictures`` tiles (lossless
    WebP at two device pixels per CSS pixel, alt text, checked for phones), ``dpi`` being
    the CSS pixels per inch.
    """
    from matplotlib.figure import Figure

    from .plots import View

    if result is None:
        return []
    if isinstance(result, (list, tuple)):
        return [
            out
            for item in result
            for out in render_outputs(item, fmt=fmt, dpi=dpi, compact=compact, book=book)
        ]
    if book and fmt != "svg" and isinstance(result, (View, Figure)):
        from .pictures import figure_outputs

        with _glyphs_strict():
            outs = figure_outputs(result, fmt="webp", css_dpi=dpi, tiles=True)
        if isinstance(result, Figure):
            import matplotlib.pyplot as plt

            plt.close(result)
        return outs
    if isinstance(result, View):
        if fmt == "svg":
            return [_figure_output(result.fig, fmt, dpi, compact)]
        return [_view_output(result, dpi, compact)]
    if isinstance(result, Figure):
        return [_figure_output(result, fmt, dpi, compact)]
    if isinstance(result, str):
        text = result if result.endswith("\n") else result + "\n"
        return [{"output_type": "stream", "name": "stdout", "text": text}]
    if hasattr(result, "_repr_html_"):
        return [
            {
                "output_type": "display_data",
                "data": {"text/html": result._repr_html_(), "text/plain": repr(result)},
                "metadata": {},
            }
        ]
    raise TypeError(
        f"explorer: func returned {type(result).__name__}; return a matplotlib Figure, "
        "an attnlib.plots.View, a str, an object with _repr_html_, or a list of these"
    )


# --------------------------------------------------------------- controls ----


def _control(name: str, values: Sequence, initial: Any, kind: str, label: str) -> W.Widget:
    options = [(_label(v), v) for v in values]
    index = list(values).index(initial)
    common = dict(options=options, index=index, description=label)
    if kind == "slider":
        return W.SelectionSlider(
            continuous_update=True,
            readout=True,
            style={"description_width": "initial"},
            layout=W.Layout(width="min(32rem, 100%)"),
            **common,
        )
    return W.ToggleButtons(style={"description_width": "initial", "button_width": "auto"}, **common)


class Explorer(W.VBox):
    """The widget ``explorer`` returns: controls on top, the output below."""


class LiveExplorer(Explorer):
    """A live explorer: shown with a picture of its first frame, which it then sends."""

    def __init__(self, children, *, fallback: dict, show: Callable[[], None], **kwargs):
        super().__init__(children, **kwargs)
        self._fallback = fallback
        self._show_current = show

    def _repr_mimebundle_(self, **kwargs):
        # The widget's view (the bundle ipywidgets 8 gives; 7 has no _repr_mimebundle_) plus
        # a static picture of the first frame, which `make notebooks` keeps when it strips
        # widget views, so GitHub and Colab show a result before anything runs.
        view = {"version_major": 2, "version_minor": 0, "model_id": self.model_id}
        return {"application/vnd.jupyter.widget-view+json": view, **self._fallback}

    def _ipython_display_(self, **kwargs):
        # IPython prefers this to _repr_mimebundle_: show the view, then send the first frame.
        from IPython.display import display

        display(self._repr_mimebundle_(**kwargs), raw=True)
        self._show_current()


def explorer(
    func: Callable[..., Any],
    sliders: Mapping[str, Sequence] | None = None,
    toggles: Mapping[str, Sequence] | None = None,
    *,
    initial: Mapping[str, Any] | None = None,
    labels: Mapping[str, str] | None = None,
    fmt: str = "png",
    dpi: float = 90,
    mode: str | None = None,
) -> Explorer:
    """Sliders (and toggles) over ``func(**values)``: live in a kernel, frozen in the book.

    sliders: ``{name: [values...]}``, each a ``SelectionSlider`` whose readout shows the
        value; pick values that tell the story (log-spaced, say).
    toggles: ``{name: [2-4 values]}``, each a row of ``ToggleButtons`` (``float32`` /
        ``float64``, a bug on/off); in frozen mode they multiply the frames like sliders.
    initial: starting value per control (default: each control's first value).
    labels: text shown before a control (default: its name).
    fmt, dpi: how figures are encoded (``"png"`` at ``dpi``, or ``"svg"``); in frozen mode a
        figure is ``attnlib.pictures`` tiles (WebP, two device pixels per CSS pixel, ``dpi``
        CSS px per inch) with alt texts, unless ``fmt="svg"``.
    mode: ``"live"`` or ``"frozen"``; default ``$ATTNLIB_WIDGETS`` (see :func:`current_mode`).
    """
    sliders = dict(sliders or {})
    toggles = dict(toggles or {})
    initial = dict(initial or {})
    labels = dict(labels or {})
    spec = [(n, list(v), "slider") for n, v in sliders.items()]
    spec += [(n, list(v), "toggle") for n, v in toggles.items()]
    names = [n for n, _, _ in spec]
    if not spec:
        raise ValueError("explorer: give at least one slider or toggle")
    if len(set(names)) != len(names):
        raise ValueError(f"explorer: a name is both a slider and a toggle: {names}")
    if unknown := set(initial) - set(names):
        raise ValueError(f"explorer: initial names no control: {sorted(unknown)}")
    for name, values, _ in spec:
        if not values:
            raise ValueError(f"explorer: control {name!r} has no values")
        if name in initial and initial[name] not in values:
            raise ValueError(f"explorer: initial {name}={initial[name]!r} is not among {values}")
    if fmt not in ("png", "svg"):
        raise ValueError(f"explorer: fmt must be 'png' or 'svg', not {fmt!r}")
    mode = mode or current_mode()
    if mode not in MODES:
        raise ValueError(f"explorer: mode must be one of {MODES}, not {mode!r}")

    start = {name: initial.get(name, values[0]) for name, values, _ in spec}
    controls = [
        _control(name, values, start[name], kind, labels.get(name, name))
        for name, values, kind in spec
    ]

    def outputs_at(values: Mapping[str, Any], compact: bool = True) -> list[dict]:
        return render_outputs(func(**values), fmt=fmt, dpi=dpi, compact=compact,
                              book=mode == "frozen")

    box_layout = W.Layout(width="100%")
    if mode == "frozen":
        n_frames = math.prod(len(values) for _, values, _ in spec)
        if n_frames > MAX_FRAMES:
            raise ValueError(
                f"explorer: {n_frames} frames to precompute (limit {MAX_FRAMES}); use fewer values"
            )
        if not hasattr(W, "Stack"):
            raise RuntimeError(f"explorer: frozen mode needs ipywidgets 8, not {W.__version__}")
        view = _frozen_stack(spec, controls, start, outputs_at, {})
        return Explorer([*controls, view], layout=box_layout)

    # Live: each position is computed when first visited and kept, so moving back and
    # forth over the slider's few values costs nothing after the first pass.
    seen: dict[tuple, list[dict]] = {}

    def cached_outputs_at(values: Mapping[str, Any], compact: bool = False) -> list[dict]:
        # Frames after the first are encoded fast (zlib level 1): they go once to the
        # front end, and the time a reader waits matters more than their bytes.
        key = tuple(repr(values[n]) for n in names)
        if key not in seen:
            seen[key] = outputs_at(values, compact)
        return seen[key]

    # The first frame is computed now, so an error in `func` fails the cell; it is sent
    # like every later frame once the view is displayed (LiveExplorer), and kept as the
    # static picture beside the view.
    first = cached_outputs_at(start, compact=True)  # kept in the notebook file
    out = W.Output()

    def show(_change=None):
        values = {name: c.value for (name, _, _), c in zip(spec, controls, strict=True)}
        try:
            frame = cached_outputs_at(values)
        except Exception as exc:  # live only: show the error where the reader looks
            frame = [
                {
                    "output_type": "stream",
                    "name": "stderr",
                    "text": f"{type(exc).__name__}: {exc}\n",
                }
            ]
        out.outputs = tuple(frame)  # one comm_msg "update" to the front end

    for c in controls:
        c.observe(show, names="value")
    fallback = {}
    for o in first:
        if o["output_type"] == "display_data":
            for key in ("image/png", "image/svg+xml"):
                if key in o["data"] and key not in fallback:
                    fallback[key] = o["data"][key]
    start_text = ", ".join(f"{n} = {_label(v)}" for n, v in start.items())
    fallback["text/plain"] = f"[탐색기: {start_text}. 커널에서 실행하면 슬라이더가 움직입니다.]"
    return LiveExplorer([*controls, out], layout=box_layout, fallback=fallback, show=show)


def _frozen_stack(spec, controls, start, outputs_at, fixed):
    """Nested Stacks: level i switches over control i's values; leaves are Outputs."""
    level = len(fixed)
    if level == len(spec):
        out = W.Output()
        out.outputs = tuple(outputs_at(fixed))
        return out
    name, values, _ = spec[level]
    children = [
        _frozen_stack(spec, controls, start, outputs_at, {**fixed, name: v}) for v in values
    ]
    stack = W.Stack(children, selected_index=values.index(start[name]))
    W.jslink((controls[level], "index"), (stack, "selected_index"))
    return stack
