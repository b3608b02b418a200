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
- ``frozen`` (``make book`` sets it): no ipywidget at all.  Every combination of control
  values is computed once, at build time, into a frame file, and the cell shows the built
  book's own explorer (:mod:`attnlib.explorer_page`: native controls, the first frame in
  the page, the others fetched by ``vendor/explorer.js`` when a control reaches them).
  Frames are built explicitly (figure -> tiles -> outputs), never captured with
  ``with out:``, so an exception in ``func`` fails the cell and the book build.

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

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as W

from . import explorer_page
from .explorer_page import MAX_FRAMES  # noqa: F401  (frozen frames per explorer)
from .explorer_page import value_label as _label
from .pictures import render_outputs

__all__ = ["explorer", "current_mode", "render_outputs", "MODES"]

MODES = ("live", "frozen")
ENV = "ATTNLIB_WIDGETS"


def current_mode() -> str:
    """The current mode: ``$ATTNLIB_WIDGETS`` (``live`` or ``frozen``), default ``live``."""
    value = os.environ.get(ENV, "live").strip().lower() or "live"
    if value not in MODES:
        raise ValueError(f"{ENV}={value!r}: expected one of {MODES}")
    return value


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

    def __init__(self, children, *, fallback: dict, show: Callable[[], None],
                 fallback_metadata: dict | None = None, **kwargs):
        super().__init__(children, **kwargs)
        self._fallback = fallback
        self._fallback_metadata = fallback_metadata or {}
        self._show_current = show

    def _repr_mimebundle_(self, **kwargs):
        # The widget's view (the bundle ipywidgets 8 gives; 7 has no _repr_mimebundle_) plus
        # a static picture of the first frame, which `make notebooks` keeps when it strips
        # widget views, so GitHub and Colab show a result before anything runs.
        view = {"version_major": 2, "version_minor": 0, "model_id": self.model_id}
        return {"application/vnd.jupyter.widget-view+json": view, **self._fallback}

    def _ipython_display_(self, **kwargs):
        # IPython prefers this to _repr_mimebundle_: show the view, then send the first frame.
        # The picture's metadata (its alt text, CSS size) goes with it, so the notebook file
        # keeps them too.
        from IPython.display import display

        display(self._repr_mimebundle_(**kwargs), raw=True, metadata=self._fallback_metadata)
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
    ranges: Mapping[str, Any] | None = None,
    python: str | None = None,
) -> Explorer | explorer_page.FrozenExplorer:
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
    ranges, python: the live book's ranges and spec (``attnlib.live.explorer`` passes them):
        carried by the frozen page, unused in a kernel.
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

    def outputs_at(values: Mapping[str, Any], compact: bool = True,
                   alt: bool = False) -> list[dict]:
        return render_outputs(func(**values), fmt=fmt, dpi=dpi, compact=compact,
                              book=mode == "frozen", alt=alt)

    if mode == "frozen":  # the built book: native controls, frames as files (explorer_page);
        # no ipywidget is made, so the page carries no widget state
        page = explorer_page.controls(sliders, toggles, initial=start, labels=labels,
                                      ranges=ranges)
        return explorer_page.frozen(outputs_at, page, {n: v for n, v, _ in spec}, python=python)

    controls = [
        _control(name, values, start[name], kind, labels.get(name, name))
        for name, values, kind in spec
    ]
    box_layout = W.Layout(width="100%")

    # Live: each position is computed when first visited and kept, so moving back and
    # forth over the slider's few values costs nothing after the first pass.
    seen: dict[tuple, list[dict]] = {}

    def cached_outputs_at(values: Mapping[str, Any], compact: bool = False,
                          alt: bool = False) -> list[dict]:
        # Frames after the first are encoded fast (zlib level 1) and without alt text: they go
        # once to the front end, and the time a reader waits matters more than their bytes.
        key = tuple(repr(values[n]) for n in names)
        if key not in seen:
            seen[key] = outputs_at(values, compact, alt)
        return seen[key]

    # The first frame is computed now, so an error in `func` fails the cell; it is sent
    # like every later frame once the view is displayed (LiveExplorer), and kept as the
    # static picture beside the view.
    first = cached_outputs_at(start, compact=True, alt=True)  # kept in the notebook file
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
    fallback, fallback_metadata = {}, {}
    for o in first:
        if o["output_type"] == "display_data":
            for key in ("image/png", "image/svg+xml"):
                if key in o["data"] and key not in fallback:
                    fallback[key] = o["data"][key]
                    if key in o.get("metadata", {}):
                        fallback_metadata[key] = o["metadata"][key]
    start_text = ", ".join(f"{n} = {_label(v)}" for n, v in start.items())
    fallback["text/plain"] = (f"[탐색기: {start_text}. "
                              "Jupyter 커널에서 실행하면 슬라이더가 움직입니다.]")
    return LiveExplorer([*controls, out], layout=box_layout, fallback=fallback, show=show,
                        fallback_metadata=fallback_metadata)
