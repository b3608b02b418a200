"""An explorer on the built book's page: native controls, its first frame, the rest as files.

In the built book (``ATTNLIB_WIDGETS=frozen``) an explorer is not an ipywidget.  Its cell
shows one HTML block (``text/html``), which ``vendor/explorer.js`` brings to life:

- per slider a labelled ``<input type="range">`` over the listed values, with an ``<output>``
  readout; per toggle a named group of buttons with ``aria-pressed``;
- the first frame's pictures and text, in the page (the same markup the script draws:
  :func:`outputs_html`);
- a polite live region, which says the new value and what the frame shows after a move;
- a ``<script type="application/vnd.attnlib.explorer+json">``: the controls, the name of the
  file of every frame (row-major over the controls' values) and, when the explorer can go
  live, the live spec (``attnlib.live``);
- a one-line script that puts the block in ``window.attnlibExplorerQueue``: ``explorer.js``
  (which the build puts right before a page's first explorer: ``_ext/explorers.py``) wires
  each explorer as soon as the parser has read it.

Every frame, the first included, is written once into ``$ATTNLIB_FRAMES_DIR`` as
``<sha256>.js`` (``attnlibFrame("<name>", {"outputs": [...]})``: a script, so a page opened
as a file can load it too); ``_ext/explorers.py`` copies the frames the pages name into
``_static/frames/``.  A reader downloads a frame when a control reaches it, or when the
script prefetches the neighbours of the current one; the page's first explorer carries the
frames of a reader's first move (:func:`first_moves_html`, put in by ``_ext/explorers.py``).

Drawing only: the frames come from :func:`attnlib.pictures.render_outputs`.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["MIME", "FIRST_MOVES_MIME", "FRAMES_ENV", "MAX_FRAMES", "value_label", "controls",
           "frames_dir", "write_frame", "read_frame", "inline_json", "first_moves",
           "first_moves_html", "outputs_html", "explorer_html", "FrozenExplorer", "frozen"]

MIME = "application/vnd.attnlib.explorer+json"
FIRST_MOVES_MIME = "application/vnd.attnlib.first-moves+json"
FRAMES_ENV = "ATTNLIB_FRAMES_DIR"
MAX_FRAMES = 200  # frames per explorer; each is a file, fetched only when reached
_FRAME_HEAD = 'attnlibFrame("'  # a frame file: attnlibFrame("<name>",{"outputs":[...]});
# frames a page's first explorer carries at most (each is 5-25 kB gzip on every first visit)
MAX_FIRST_MOVES = 6


def value_label(value: Any) -> str:
    """How a control value reads on the page: ``64``, ``0.25``, ``-inf``, ``1e-09``."""
    if isinstance(value, bool):
        return "켬" if value else "끔"
    if isinstance(value, float):
        if math.isinf(value):
            return "-inf" if value < 0 else "inf"
        return f"{value:g}"
    return str(value)


def controls(sliders: Mapping[str, Sequence], toggles: Mapping[str, Sequence], *,
             initial: Mapping[str, Any] | None = None, labels: Mapping[str, str] | None = None,
             ranges: Mapping[str, Any] | None = None) -> list[dict]:
    """The controls as the page carries them: name, kind, label, the values' labels, the
    initial index, and (live) the slider's range and the listed values outside it."""
    initial, labels, ranges = dict(initial or {}), dict(labels or {}), dict(ranges or {})
    out = []
    for kind, group in (("slider", sliders), ("toggle", toggles)):
        for name, vals in group.items():
            vals = list(vals)
            rng = ranges.get(name)
            out.append({
                "name": name, "kind": kind, "label": labels.get(name, name),
                "labels": [value_label(v) for v in vals],
                "initial": vals.index(initial.get(name, vals[0])),
                "range": rng.as_json() if rng is not None else None,
                # listed values the range leaves out: offered as buttons once live
                "outside": [i for i, v in enumerate(vals)
                            if rng is not None and not rng.lo <= v <= rng.hi],
            })
    return out


def frames_dir() -> Path:
    """Where frozen frames are written: ``$ATTNLIB_FRAMES_DIR`` (``make book`` sets it)."""
    folder = os.environ.get(FRAMES_ENV, "").strip()
    if not folder:
        raise RuntimeError(f"explorer: set {FRAMES_ENV} to the folder that receives the frozen "
                           "frames (make book sets it to _build/frames)")
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_frame(outputs: list[dict], folder: Path) -> str:
    """Write one frame as ``<name>.js`` (the name is its content's hash); returns the name."""
    body = json.dumps({"outputs": outputs}, ensure_ascii=False, sort_keys=True,
                      separators=(",", ":"))
    name = hashlib.sha256(body.encode()).hexdigest()[:24]
    path = folder / f"{name}.js"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        safe = body.replace("</", "<\\/")  # no "</script>" inside a script
        tmp.write_text(f'{_FRAME_HEAD}{name}",{safe});\n', encoding="utf-8")
        tmp.replace(path)
    return name


def inline_json(text: str) -> str:
    """JSON text made safe inside a page's ``<script>`` element: every ``<`` (which JSON has
    only inside strings) as ``\\u003c``, so neither ``</script>`` nor ``<!--`` can end or
    change the element."""
    return text.replace("<", "\\u003c")


def read_frame(folder: Path, name: str) -> str:
    """The JSON text ``{"outputs": [...]}`` of frame ``name`` as :func:`write_frame` wrote it
    (``"</"`` still escaped, so it can stand inside a script element)."""
    text = (Path(folder) / f"{name}.js").read_text(encoding="utf-8")
    head = f'{_FRAME_HEAD}{name}",'
    if not (text.startswith(head) and text.rstrip().endswith(");")):
        raise ValueError(f"read_frame: {name}.js in {folder} is not a frame file "
                         "(write_frame writes them)")
    return text[len(head):text.rstrip().rindex(");")]


def first_moves(data: Mapping[str, Any]) -> list[str]:
    """The frames a reader's first move can reach: one step from the initial values along
    each control (a slider's neighbours, a toggle's other values), each name once, never
    the initial frame; at most :data:`MAX_FIRST_MOVES`, the sliders' first.  ``data`` is the
    explorer's page data (``controls``, ``frames``)."""
    spec, frames = data["controls"], data["frames"]
    sizes = [len(c["labels"]) for c in spec]
    if math.prod(sizes) != len(frames):
        raise ValueError(f"first_moves: {len(frames)} frames for controls of sizes {sizes}")
    initial = [c["initial"] for c in spec]

    def flat(index: list[int]) -> int:  # row-major, as explorer.js's key()
        out = 0
        for size, i in zip(sizes, index, strict=True):
            out = out * size + i
        return out

    first = frames[flat(initial)]
    names: list[str] = []
    for k, c in enumerate(spec):
        steps = (1, -1) if c["kind"] == "slider" else range(1 - sizes[k], sizes[k])
        for step in steps:
            i = initial[k] + step
            if step == 0 or not 0 <= i < sizes[k]:
                continue
            name = frames[flat(initial[:k] + [i] + initial[k + 1:])]
            if name != first and name not in names:
                names.append(name)
    return names[:MAX_FIRST_MOVES]


def first_moves_html(data: Mapping[str, Any], folder: Path) -> str:
    """A script element with the outputs of :func:`first_moves` (empty when there are none):
    the build puts it in a page's first explorer, so that a reader's first move there waits
    for no file (``_ext/explorers.py``; see docs/DESIGN.md, "The first explorer")."""
    names = first_moves(data)
    if not names:
        return ""
    body = ",".join(f'"{n}":{read_frame(folder, n)}' for n in names)
    return f'<script type="{FIRST_MOVES_MIME}">{inline_json("{" + body + "}")}</script>'


# --------------------------------------------------------------------- markup ----

_IMAGES = ("image/webp", "image/png", "image/jpeg", "image/gif", "image/svg+xml")


def _join(text) -> str:
    return "".join(text) if isinstance(text, list) else (text or "")


def _merge_streams(outputs: list[dict]) -> list[dict]:
    merged: list[dict] = []
    for out in outputs:
        last = merged[-1] if merged else None
        if (out.get("output_type") == "stream" and last is not None
                and last.get("output_type") == "stream" and last.get("name") == out.get("name")):
            merged[-1] = {**last, "text": _join(last["text"]) + _join(out["text"])}
        else:
            merged.append(out)
    return merged


def _img(data: str, mime: str, meta: Mapping) -> str:
    if mime == "image/svg+xml":
        from urllib.parse import quote

        src = "data:image/svg+xml;charset=utf-8," + quote(data)
    else:
        src = f"data:{mime};base64,{data}"
    attrs = [f'src="{html.escape(src)}"']
    if meta.get("width"):
        attrs.append(f'width="{int(meta["width"])}"')
    if meta.get("height"):
        attrs.append(f'height="{int(meta["height"])}"')
    attrs.append(f'alt="{html.escape(str(meta.get("alt", "")))}"')
    text_px = meta.get("text_px")
    if isinstance(text_px, (int, float)) and math.isfinite(text_px):
        attrs.insert(0, f'class="attn-tile attn-text-px-{math.floor(text_px)}"')
    return f'<img {" ".join(attrs)} decoding="async">'


def outputs_html(outputs: list[dict]) -> str:
    """A frame's outputs as the page shows them (``explorer.js``'s ``render`` writes the same):
    consecutive pictures share a ``div.attn-figure``; printed text is a ``pre.attn-text``."""
    parts: list[str] = []
    figure: list[str] | None = None
    for out in _merge_streams(outputs):
        kind = out.get("output_type")
        data = out.get("data", {})
        mime = next((m for m in _IMAGES if m in data), None)
        if kind in ("display_data", "execute_result") and mime:
            if figure is None:
                figure = []
                parts.append(figure)  # type: ignore[arg-type]
            figure.append(_img(_join(data[mime]), mime, out.get("metadata", {}).get(mime, {})))
            continue
        figure = None
        if kind == "stream":
            parts.append(f'<pre class="attn-text">{html.escape(_join(out["text"]).rstrip())}'
                         "</pre>")
        elif "text/html" in data:
            parts.append(f'<div class="attn-html">{_join(data["text/html"])}</div>')
        elif "text/plain" in data:
            parts.append(f'<pre class="attn-text">{html.escape(_join(data["text/plain"]))}</pre>')
    return "".join(f'<div class="attn-figure">{"".join(p)}</div>' if isinstance(p, list) else p
                   for p in parts)


def explorer_html(spec: list[dict], first: list[dict], frames: list[str],
                  python: str | None = None) -> str:
    """The explorer's block: controls (at their initial values), the first frame, the live
    region and the page's data (controls, frame files, live spec)."""
    data = {"version": 2, "controls": spec, "frames": frames, "python": python}
    text = inline_json(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    uid = "ax-" + hashlib.sha256(text.encode()).hexdigest()[:10]
    rows = []
    for k, c in enumerate(spec):
        cid, i = f"{uid}-{k}", c["initial"]
        label = html.escape(c["label"])
        if c["kind"] == "slider":
            rows.append(
                f'<div class="attn-control attn-slider"><label for="{cid}">{label}</label>'
                f'<input type="range" id="{cid}" min="0" max="{len(c["labels"]) - 1}" step="1" '
                f'value="{i}" aria-valuetext="{html.escape(c["labels"][i])}">'
                f'<output for="{cid}" class="attn-readout">{html.escape(c["labels"][i])}'
                "</output></div>")
        else:
            buttons = "".join(
                f'<button type="button" aria-pressed="{str(j == i).lower()}">'
                f"{html.escape(v)}</button>" for j, v in enumerate(c["labels"]))
            rows.append(
                f'<div class="attn-control attn-toggle" role="group" '
                f'aria-labelledby="{cid}-label"><span id="{cid}-label">{label}</span>'
                f"{buttons}</div>")
    names = ", ".join(c["label"] for c in spec)
    return (f'<div class="attn-explorer" id="{uid}" role="group" '
            f'aria-label="탐색기: {html.escape(names)}">'
            f'<div class="attn-controls">{"".join(rows)}</div>'
            f'<div class="attn-frame">{outputs_html(first)}</div>'
            '<div class="attn-announce" role="status" aria-live="polite"></div>'
            f'<script type="{MIME}">{text}</script>{_WIRE}</div>')


# Each explorer asks to be wired as soon as the page's parser has read it (explorer.js, run
# before the first explorer, takes the queue), not once the whole chapter is parsed.
_WIRE = ("<script>(window.attnlibExplorerQueue=window.attnlibExplorerQueue||[])"
         ".push(document.currentScript.parentElement)</script>")


class FrozenExplorer:
    """What a frozen explorer cell shows: its HTML block (and a line for plain-text views)."""

    def __init__(self, html_text: str, summary: str):
        self.html, self.summary = html_text, summary

    def _repr_mimebundle_(self, **kwargs):
        return {"text/html": self.html, "text/plain": self.summary}

    def _ipython_display_(self, **kwargs):
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)


def frozen(outputs_at: Callable[[Mapping[str, Any]], list[dict]], spec: list[dict],
           values: Mapping[str, list], *, python: str | None = None,
           folder: Path | None = None) -> FrozenExplorer:
    """Compute every frame (``outputs_at(values)``), write each to a file, and return the
    explorer's block with the initial frame in it."""
    n_frames = math.prod(len(values[c["name"]]) for c in spec)
    if n_frames > MAX_FRAMES:
        raise ValueError(f"explorer: {n_frames} frames to precompute (limit {MAX_FRAMES}); "
                         "use fewer values")
    folder = folder or frames_dir()
    names, first = [], None
    initial = [c["initial"] for c in spec]
    for flat in range(n_frames):
        index, rest = [], flat
        for c in reversed(spec):  # row-major: the last control varies fastest
            rest, i = divmod(rest, len(c["labels"]))
            index.append(i)
        index.reverse()
        outs = outputs_at({c["name"]: values[c["name"]][i]
                           for c, i in zip(spec, index, strict=True)})
        names.append(write_frame(outs, folder))
        if index == initial:
            first = outs
    start = ", ".join(f"{c['label']} = {c['labels'][c['initial']]}" for c in spec)
    return FrozenExplorer(explorer_html(spec, first or [], names, python),
                          f"[탐색기: {start}]")
