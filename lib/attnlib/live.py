"""Explorers and exercises that run in the reader's browser (Pyodide), from the static book.

At build time (``ATTNLIB_WIDGETS=frozen``) :func:`explorer` shows the book's explorer
(:mod:`attnlib.explorer_page`) carrying a *live spec*: the explorer's class, its inputs
(numbers, strings, arrays) and its controls, in the explorer's page data.  When
the reader turns on 「실시간 계산 켜기」, the page loads Pyodide with NumPy, matplotlib and
this library (files the book ships) into a Web Worker, which rebuilds the same object with
:func:`build` and draws each frame with :func:`frame`: the library code the chapter's cell
ran, at any value of a slider's range.  Exercises run the reader's code and the chapter's
``attnlib.check`` call with :func:`run_exercise`.

In a kernel (Jupyter, Colab) :func:`explorer` is :func:`attnlib.widgets.explorer` on
``cls(**inputs)``: nothing else changes.

An explorer class takes keyword inputs that :func:`encode` can write (numbers, strings,
booleans, ``None``, NumPy arrays, lists, tuples and dicts of these) and is called with the
control values, returning what an explorer frame function returns (a ``View``, text, or a
tuple of them).
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import io
import json
import math
import traceback
from collections.abc import Mapping
from typing import Any

import numpy as np

from . import explorer_page
from .explorer_page import value_label
from .pictures import render_outputs

__all__ = ["explorer", "encode", "decode", "build", "frame", "run_exercise", "MIME",
           "Range", "spec"]

MIME = explorer_page.MIME  # the page data that carries the live spec


# ------------------------------------------------------------------ inputs as JSON ----


def encode(value: Any) -> Any:
    """Inputs as JSON-able data: arrays as base64 with dtype and shape, tuples marked."""
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value)
        return {"__ndarray__": base64.b64encode(data.tobytes()).decode("ascii"),
                "dtype": data.dtype.str, "shape": list(data.shape)}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple of attnlib's
        return {"__namedtuple__": _qualname(type(value)),
                "fields": {k: encode(v) for k, v in zip(value._fields, value, strict=True)}}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            return {"__items__": [[encode(k), encode(v)] for k, v in value.items()]}
        return {k: encode(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"live: cannot write {type(value).__name__} as an explorer input")


def decode(value: Any) -> Any:
    """The inverse of :func:`encode`."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if "__ndarray__" in value:
            raw = base64.b64decode(value["__ndarray__"])
            return np.frombuffer(raw, dtype=np.dtype(value["dtype"])).reshape(
                value["shape"]).copy()
        if "__namedtuple__" in value:
            return _resolve(value["__namedtuple__"])(**decode(value["fields"]))
        if "__tuple__" in value:
            return tuple(decode(v) for v in value["__tuple__"])
        if "__items__" in value:
            return {decode(k): decode(v) for k, v in value["__items__"]}
        return {k: decode(v) for k, v in value.items()}
    return value


def _qualname(cls) -> str:
    name = f"{cls.__module__}:{cls.__qualname__}"
    if not cls.__module__.startswith("attnlib."):
        raise ValueError(f"live: {name} is not an attnlib class; the browser rebuilds only those")
    return name


def _resolve(name: str):
    module, _, qual = name.partition(":")
    if not module.startswith("attnlib."):
        raise ValueError(f"live: {name} is not an attnlib class")
    obj = importlib.import_module(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    return obj


def build(cls_name: str, inputs: Any):
    """The explorer object a spec names: ``module:Class`` called with the decoded inputs."""
    return _resolve(cls_name)(**decode(inputs))


class _WithText:
    """An explorer whose object keeps its line of text in ``.text`` (the chapters' views):
    a frame is the view and that text."""

    def __init__(self, obj):
        self.obj = obj

    def __call__(self, **values):
        view = self.obj(**values)
        return view, self.obj.text


# ------------------------------------------------------------------------ controls ----


class Range:
    """A slider that, live, takes any value in ``[lo, hi]``: multiples of ``step`` (integers
    when ``step`` is an int), the track spaced evenly in ``log`` or linearly."""

    def __init__(self, lo: float, hi: float, step: float = 1, *, log: bool = False):
        if not lo < hi:
            raise ValueError(f"Range: need lo < hi, got {lo}, {hi}")
        if log and lo <= 0:
            raise ValueError("Range: a log track needs lo > 0")
        self.lo, self.hi, self.step, self.log = lo, hi, step, log

    @property
    def integer(self) -> bool:
        return isinstance(self.step, int) and isinstance(self.lo, int)

    def value(self, x: float):
        """A value the reader typed or dragged to, clipped and rounded to the step."""
        x = min(max(float(x), self.lo), self.hi)
        if self.integer:
            return int(round(x / self.step) * self.step)
        k = round(x / self.step)
        digits = max(0, -math.floor(math.log10(self.step))) if self.step < 1 else 0
        return round(k * self.step, digits)

    def as_json(self) -> dict:
        return {"min": self.lo, "max": self.hi, "step": self.step, "log": self.log,
                "integer": self.integer}


def spec(cls, inputs: Mapping[str, Any], *, sliders=None, toggles=None, initial=None,
         labels=None, ranges=None, text: bool = False, dpi: float = 90) -> dict:
    """The live spec of an explorer: its controls (``explorer_page.controls``) and, as a JSON
    string, what the worker needs to rebuild it (``python``)."""
    sliders, toggles, ranges = dict(sliders or {}), dict(toggles or {}), dict(ranges or {})
    if unknown := set(ranges) - set(sliders):
        raise ValueError(f"live: ranges name no slider: {sorted(unknown)}")
    controls = explorer_page.controls(sliders, toggles, initial=initial, labels=labels,
                                      ranges=ranges)
    values = {name: list(vals) for group in (sliders, toggles) for name, vals in group.items()}
    python = {"cls": _qualname(cls), "inputs": encode(dict(inputs)), "values": values,
              "ranges": {n: r.as_json() for n, r in ranges.items()}, "text": text, "dpi": dpi}
    return {"version": 1, "controls": controls, "python": json.dumps(python)}


def explorer(cls, inputs: Mapping[str, Any], *, sliders=None, toggles=None, initial=None,
             labels=None, ranges: Mapping[str, Range] | None = None, text: bool = False,
             **kwargs):
    """``widgets.explorer(cls(**inputs), ...)``; in the built book the page's explorer also
    carries the live spec, so 「실시간 계산 켜기」 can rebuild it in the browser.

    ranges: ``{slider: Range(lo, hi, step)}`` for sliders whose frame is cheap to compute at
        any value: live, they take any value in the range (and listed values outside it stay
        a click away).  Other sliders (a choice among precomputed runs) keep their values.
    text: the object keeps a line of text in ``.text`` after each call (the chapters'
        views): a frame shows the view and that text.
    """
    from . import widgets

    obj = cls(**decode(encode(dict(inputs))))  # what the browser will build
    func = _WithText(obj) if text else obj
    python = None
    if (kwargs.get("mode") or widgets.current_mode()) == "frozen":
        python = spec(cls, inputs, sliders=sliders, toggles=toggles, initial=initial,
                      labels=labels, ranges=ranges, text=text,
                      dpi=kwargs.get("dpi", 90))["python"]
    return widgets.explorer(func, sliders=sliders, toggles=toggles, initial=initial,
                            labels=labels, ranges=ranges, python=python, **kwargs)


# ------------------------------------------------------------------- in the browser ----

_objects: dict[str, Any] = {}


def _values(python: dict, raw: Mapping[str, Any]) -> dict:
    """Control values from the page: ``{"index": i}`` picks a listed value, a number is
    clipped and rounded to the slider's range."""
    out = {}
    for name, vals in python["values"].items():
        x = raw[name]
        if isinstance(x, dict):
            out[name] = vals[int(x["index"])]
        else:
            r = python["ranges"][name]
            if isinstance(x, str):  # "-inf", "inf" typed in a number box that allows them
                x = float(x)
            out[name] = Range(r["min"], r["max"], r["step"], log=r["log"]).value(x)
    return out


def frame_alt(values: Mapping[str, Any]) -> str:
    """The picture's alt text: the control values it shows."""
    return "탐색기 그림: " + ", ".join(f"{n} = {value_label(v)}" for n, v in values.items())


def frame(python_json: str, raw_values: Mapping[str, Any]) -> str:
    """One frame for the page: JSON ``{"values", "outputs", "alt"}``, the outputs as the frozen
    build renders them (``pictures.render_outputs``)."""
    obj = _objects.get(python_json)
    python = json.loads(python_json)
    if obj is None:
        obj = build(python["cls"], python["inputs"])
        obj = _objects[python_json] = _WithText(obj) if python.get("text") else obj
    values = _values(python, raw_values)
    # As the frozen build renders a frame of the book: the same tiles and alt texts as the
    # page's frozen frames.
    outputs = render_outputs(obj(**values), dpi=python["dpi"], compact=False, book=True)
    labels = {n: value_label(v) for n, v in values.items()}
    return json.dumps({"values": labels, "outputs": outputs, "alt": frame_alt(values)})


def run_exercise(code: str, check: str) -> str:
    """Run the reader's code, then the exercise's check call, in a fresh namespace; what
    they print (an error as its last traceback line, as the checker's hints read)."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            exec(compile(code, "<연습>", "exec"), namespace)
            exec(compile(check, "<검사>", "exec"), namespace)
        except Exception as exc:  # the reader's code: show the error, as a kernel would
            tb = traceback.extract_tb(exc.__traceback__)
            line = next((f.lineno for f in reversed(tb) if f.filename == "<연습>"), None)
            where = f" ({line}번째 줄)" if line else ""
            print(f"{type(exc).__name__}{where}: {exc}")
    return buf.getvalue()


def browser_setup() -> None:
    """What the worker runs once (which starts Pyodide with ``MPLBACKEND=agg``): the figure
    modules imported and the Korean font registered.  Nothing of ipywidgets is needed: a
    frame is drawn by ``attnlib.pictures``."""
    from . import numpy, plots  # noqa: F401

    plots.use_korean_font()
