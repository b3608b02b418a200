"""Pictures for the page: a matplotlib figure as the images a reader's screen shows.

A figure inch is ``CSS_DPI`` CSS pixels on the page, and every picture carries
``PIXEL_RATIO`` device pixels per CSS pixel, so it is sharp on a hi-dpi screen.

In the built book (``ATTNLIB_WIDGETS=frozen``, see :func:`book_mode`) a figure becomes one
image per *column of panels* (a **tile**): the page lays the tiles side by side where they
fit and stacks them on a phone (``_assets/book.css``), so a three-panel figure keeps its
text size on a 390 px screen instead of shrinking to a third.  Each tile has an alt text
written from what its panels plot (titles, axes, bars, lines, heat maps, the numbers on the
figure: :func:`describe`), and the smallest text drawn in it; :func:`check_phone` fails the
build when a tile would show text smaller than ``MIN_TEXT_PX`` on a phone's column.

Outside the book (Jupyter, Colab) a figure stays one image, with the same alt text in its
output metadata.  Drawing only: nothing here computes the book's math.
"""

from __future__ import annotations

import base64
import contextlib
import io
import math
import os
import re
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "CSS_DPI", "PIXEL_RATIO", "PHONE_COLUMN", "MIN_TEXT_PX", "book_mode", "Picture",
    "picture", "describe", "plain_text", "check_phone", "encode", "encode_png", "quantize",
    "figure_outputs", "render_outputs", "is_view", "title_texts",
]

CSS_DPI = 90  # CSS px per figure inch
PIXEL_RATIO = 2  # device px per CSS px in every picture of the book
PHONE_COLUMN = 358  # CSS px: the content column of a 390 px wide phone
MIN_TEXT_PX = 9  # CSS px: no figure text is smaller than this there
_ENV = "ATTNLIB_WIDGETS"


def book_mode() -> bool:
    """True while the book is built (``ATTNLIB_WIDGETS=frozen``): pictures are cut into tiles."""
    return os.environ.get(_ENV, "").strip().lower() == "frozen"


# ----------------------------------------------------------------- text probe ----


class _TextProbe:
    """Records (x, size in points) of every text a renderer draws, while active.

    Installed on one ``RendererAgg`` instance (its ``draw_text``); ``plots.CellLabels``,
    which pastes cached bitmaps, reports itself through ``renderer._attnlib_texts``.
    """

    def __init__(self, renderer):
        self.renderer = renderer
        self.texts: list[tuple[float, float]] = []

    def __enter__(self):
        r = self.renderer
        original = type(r).draw_text

        def draw_text(gc, x, y, s, prop, angle, ismath=False, mtext=None):
            if s and str(s).strip():
                self.texts.append((float(x), float(prop.get_size_in_points())))
            return original(r, gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)

        r.draw_text = draw_text
        r._attnlib_texts = self.texts
        return self

    def __exit__(self, *exc):
        del self.renderer.draw_text
        del self.renderer._attnlib_texts


def record_text(renderer, x: float, size_pt: float) -> None:
    """For artists that draw text without ``draw_text`` (cached bitmaps): say so to the probe."""
    texts = getattr(renderer, "_attnlib_texts", None)
    if texts is not None:
        texts.append((float(x), float(size_pt)))


# -------------------------------------------------------------------- columns ----


def _panels(fig) -> dict:
    """Each visible axes → the axes of its panel (a colorbar belongs to its image's axes)."""
    axes = [ax for ax in fig.axes if ax.get_visible()]
    owner = {}
    for ax in axes:
        cb = getattr(ax, "_colorbar", None)
        target = getattr(getattr(cb, "mappable", None), "axes", None)
        owner[ax] = target if target in axes else ax
    return owner


def columns(fig, renderer) -> list[tuple[float, float, list]]:
    """Columns of panels, left to right: ``(x0, x1, [axes, ...])`` in display pixels.

    Panels whose extents (labels, titles and legends included) overlap sideways share a
    column, and so do all panels that a figure-level text or legend spans (a suptitle)."""
    owner = _panels(fig)
    spans: dict = {}
    for ax, key in owner.items():
        bb = ax.get_tightbbox(renderer)
        if bb is None or not np.isfinite([bb.x0, bb.x1]).all():
            continue
        x0, x1 = spans.get(key, (math.inf, -math.inf))
        spans[key] = (min(x0, bb.x0), max(x1, bb.x1))
    cols: list[list] = []
    for key, (x0, x1) in sorted(spans.items(), key=lambda kv: kv[1][0]):
        if cols and x0 < cols[-1][1]:
            cols[-1][1] = max(cols[-1][1], x1)
            cols[-1][2].append(key)
        else:
            cols.append([x0, x1, [key]])
    wide = [*fig.texts, *fig.legends]
    for artist in wide:
        if not artist.get_visible() or (hasattr(artist, "get_text") and not artist.get_text()):
            continue
        bb = artist.get_window_extent(renderer)
        hit = [i for i, c in enumerate(cols) if c[0] < bb.x1 and bb.x0 < c[1]]
        if len(hit) > 1:
            a, b = hit[0], hit[-1]
            merged = [cols[a][0], max(c[1] for c in cols[a:b + 1]),
                      [k for c in cols[a:b + 1] for k in c[2]]]
            cols[a:b + 1] = [merged]
    return [(c[0], c[1], c[2]) for c in cols]


def _edges(cols, width: int) -> list[int]:
    """Tile edges in pixels: 0, a cut midway in each gap between columns, the width.  Cuts
    fall on even pixels so that every tile is a whole number of CSS pixels wide."""
    cuts = [int(round((a[1] + b[0]) / 2 / PIXEL_RATIO)) * PIXEL_RATIO
            for a, b in zip(cols, cols[1:], strict=False)]
    return [0, *cuts, width]


# ------------------------------------------------------------------- pictures ----


@dataclass
class Picture:
    """A figure rasterised at ``dpi`` (``css_dpi`` × ``PIXEL_RATIO``), cut into tiles."""

    rgba: np.ndarray  # (h, w, 4) uint8
    edges: list[int]  # tile i spans columns edges[i]:edges[i + 1] of rgba
    alts: list[str]
    texts: list[tuple[float, float]]  # (x in pixels, size in points) of every text drawn
    css_dpi: float = CSS_DPI
    name: str = "figure"
    ratio: int = PIXEL_RATIO
    text_plain: str = "<Figure>"  # what a plain-text front end shows (as matplotlib's repr)

    @property
    def tiles(self) -> list[tuple[int, int]]:
        return list(zip(self.edges, self.edges[1:], strict=False))

    def css_size(self, i: int) -> tuple[int, int]:
        x0, x1 = self.tiles[i]
        return round((x1 - x0) / self.ratio), round(self.rgba.shape[0] / self.ratio)

    def text_px(self, i: int) -> float:
        """The smallest text in tile i, CSS px at the tile's own size (inf if it has none)."""
        x0, x1 = self.tiles[i]
        sizes = [s for x, s in self.texts if x0 <= x < x1 or (i == 0 and x < x0)
                 or (i == len(self.tiles) - 1 and x >= x1)]
        return min(sizes) * self.css_dpi / 72 if sizes else math.inf

    def outputs(self, fmt: str = "png", *, compact: bool = True) -> list[dict]:
        """One nbformat ``display_data`` per tile: ``image/png`` or ``image/webp`` with its
        CSS width and height, alt text and smallest text size in the output metadata."""
        from PIL import Image

        outs = []
        for i, (x0, x1) in enumerate(self.tiles):
            img = Image.fromarray(np.ascontiguousarray(self.rgba[:, x0:x1, :3]))
            mime, data = encode(img, fmt, compact=compact)
            width, height = self.css_size(i)
            text_px = self.text_px(i)
            meta = {"width": width, "height": height, "alt": self.alts[i]}
            if math.isfinite(text_px):
                meta["text_px"] = round(text_px, 2)
            if len(self.tiles) > 1:
                meta["tile"] = [i + 1, len(self.tiles)]
            outs.append({
                "output_type": "display_data",
                "data": {mime: base64.b64encode(data).decode("ascii"),
                         "text/plain": self.text_plain},
                "metadata": {mime: meta},
            })
        return outs


def quantize(rgb):
    """A 256-colour palette image of an RGB image; the palette's colour nearest to white is
    white itself, so that a figure's background is the same white in every picture (side by
    side, two tiles of one figure would otherwise differ by a shade)."""
    from PIL import Image

    pal = rgb.quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    colors = np.array(pal.getpalette()[:768], dtype=int).reshape(-1, 3)
    k = int(np.argmin(((255 - colors) ** 2).sum(axis=1)))
    if ((255 - colors[k]) ** 2).sum() <= 3 * 8**2:
        colors[k] = 255
        pal.putpalette(colors.astype(np.uint8).ravel().tolist())
    return pal


def encode_png(img, *, compact: bool = False) -> bytes:
    """PNG bytes of a PIL image: fast (zlib level 1; a live frame, sent once) or compact (the
    smaller of a 256-colour palette, which keeps anti-aliased line art intact at a third of
    the bytes, and full colour at the highest level; what a page or notebook file carries)."""
    rgb = img.convert("RGB")
    full = io.BytesIO()
    rgb.save(full, format="png", compress_level=9 if compact else 1)
    if not compact:
        return full.getvalue()
    small = io.BytesIO()
    quantize(rgb).save(small, format="png", optimize=True)
    return min(full.getvalue(), small.getvalue(), key=len)


def is_view(obj) -> bool:
    """Is ``obj`` a view (``attnlib.plots.View``: a figure updated in place, drawn by
    ``rgba``)?  Known by what it does, so this layer does not import the one above it."""
    return callable(getattr(obj, "rgba", None)) and hasattr(obj, "fig")


def encode(img, fmt: str = "png", *, compact: bool = True) -> tuple[str, bytes]:
    """``(mime type, bytes)`` of a PIL image.  ``webp``: lossless WebP of the 256-colour
    palette image (about two thirds of the palette PNG's bytes); ``png``: :func:`encode_png`."""
    if fmt == "webp":
        rgb = img.convert("RGB")
        if compact:
            rgb = quantize(rgb)
        buf = io.BytesIO()
        rgb.save(buf, format="webp", lossless=True, method=4 if compact else 0, quality=80)
        return "image/webp", buf.getvalue()
    if fmt == "png":
        return "image/png", encode_png(img, compact=compact)
    raise ValueError(f"encode: fmt must be 'png' or 'webp', not {fmt!r}")


def picture(source, *, css_dpi: float = CSS_DPI, tiles: bool | None = None) -> Picture:
    """Rasterise a ``plots.View`` (its current frame, blitted) or a ``Figure`` for the page.

    ``tiles``: cut into columns of panels (default: in the book only)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    tiles = book_mode() if tiles is None else tiles
    dpi = css_dpi * PIXEL_RATIO
    if is_view(source):
        view = source
        rgba, texts = view.rgba(dpi, probe=True)
        fig = view.fig
        renderer = view._canvas.get_renderer()
        name = f"{type(view).__name__} ({_first_title(fig)})"
    else:
        fig = source
        fig.set_dpi(dpi)
        canvas = FigureCanvasAgg(fig)
        renderer = canvas.get_renderer()
        with _TextProbe(renderer) as probe:
            canvas.draw()
        rgba, texts = np.asarray(canvas.buffer_rgba()).copy(), probe.texts
        name = fig.get_label() or _first_title(fig)
    width = rgba.shape[1]
    cols = columns(fig, renderer) if tiles else []
    edges = _edges(cols, width) if len(cols) > 1 else [0, width]
    if is_view(source) and tiles:
        edges = source._settle_edges(edges, cols)
    groups = _tile_axes(fig, cols, edges)
    alts = describe(fig, groups)
    w, h = fig.get_size_inches() * css_dpi  # matplotlib's repr, at the size on the page
    return Picture(rgba=rgba, edges=edges, alts=alts, texts=texts, css_dpi=css_dpi, name=name,
                   text_plain=f"<Figure size {w:g}x{h:g} with {len(fig.axes)} Axes>")


def _first_title(fig) -> str:
    for ax in fig.axes:
        titles = _titles(ax)
        if titles:
            return titles[0]
    return "figure"


def _tile_axes(fig, cols, edges) -> list[list]:
    """The axes (panel keys) in each tile."""
    if len(edges) == 2:
        return [[key for c in cols for key in c[2]] or
                [ax for ax in fig.axes if ax.get_visible() and not hasattr(ax, "_colorbar")]]
    out = [[] for _ in range(len(edges) - 1)]
    for x0, x1, keys in cols:
        mid = (x0 + x1) / 2
        i = max(j for j in range(len(edges) - 1) if edges[j] <= mid)
        out[i].extend(keys)
    return out


def check_phone(pic: Picture) -> None:
    """Fail when a tile would show text under ``MIN_TEXT_PX`` CSS px in a phone's column
    (``PHONE_COLUMN`` px; a wider tile is scaled down to fit it)."""
    problems = []
    for i in range(len(pic.tiles)):
        width, _ = pic.css_size(i)
        text = pic.text_px(i)
        on_phone = text * min(1.0, PHONE_COLUMN / width)
        if on_phone < MIN_TEXT_PX - 1e-6:
            problems.append(f"tile {i + 1}/{len(pic.tiles)}: {width} CSS px wide, smallest text "
                            f"{text:.1f} px, {on_phone:.1f} px in a {PHONE_COLUMN} px column")
    if problems:
        raise ValueError(f"{pic.name}: figure text too small on a phone (at least {MIN_TEXT_PX} "
                         f"CSS px): " + "; ".join(problems)
                         + ". Use larger fonts, or narrower panels (one tile per column).")


def figure_outputs(source, *, fmt: str = "png", css_dpi: float = CSS_DPI,
                   tiles: bool | None = None, compact: bool = True) -> list[dict]:
    """A figure or view as the outputs a page shows (one per tile), checked for phones in
    the book."""
    pic = picture(source, css_dpi=css_dpi, tiles=tiles)
    if book_mode():
        check_phone(pic)
    return pic.outputs(fmt, compact=compact)


# ---------------------------------------------------------------- alt text ----

_TEX = [
    (r"\\mathdefault\{((?:[^{}]|\{[^{}]*\})*)\}", r"\1"),  # matplotlib's tick labels
    (r"\\mathrm\{([^{}]*)\}", r"\1"), (r"\\operatorname\{([^{}]*)\}", r"\1"),
    (r"\\sqrt\{([^{}]*)\}", r"√\1"), (r"\\sqrt", "√"), (r"\\partial ?", "∂"),
    (r"\\Vert|\\\|", "‖"), (r"\\cdot ?", "·"), (r"\\max", "max"), (r"\\delta ?", "δ"),
    (r"\\alpha ?", "α"), (r"\\gamma ?", "γ"), (r"\\Delta ?", "Δ"), (r"\\ell ?", "ℓ"),
    (r"\\odot ?", "⊙"), (r"\\top", "ᵀ"), (r"\\[,;:! ]", " "), (r"\\left|\\right", ""),
    (r"\^\{([^{}]*)\}", r"^\1"), (r"_\{([^{}]*)\}", r"_\1"), (r"[{}]", ""), (r"\$", ""),
]


def plain_text(s: str) -> str:
    """A label as a screen reader should read it: mathtext ``$…$`` turned into plain text (a
    power of ten alone, as on a log axis, as its number)."""
    s = str(s)
    if "$" in s:
        for pattern, repl in _TEX:
            s = re.sub(pattern, repl, s)
    s = re.sub(r"\s+", " ", s).strip()
    power = re.fullmatch(r"10\^([-−]?\d+)", s)
    return _num(10.0 ** int(power.group(1).replace("−", "-"))) if power else s


def _num(v) -> str:
    v = float(v)
    if not np.isfinite(v):
        return "NaN" if np.isnan(v) else ("∞" if v > 0 else "−∞")
    if v == 0:
        return "0"
    if abs(v) >= 1e6 or abs(v) < 1e-3:
        return f"{v:.2e}"
    if abs(v) >= 1e3:  # 1024, 16384: whole, as a reader says them (not 1.02e+03)
        return f"{v:.0f}"
    return f"{v:.3g}"


def _is_number(s: str) -> bool:
    return bool(re.fullmatch(r"[\s<≈~+\-−]*[0-9.eE+\-−]+\s*", s))


def title_texts(ax) -> set:
    """The axes' three title texts (centre, left, right): the children that matplotlib places
    with the title transform, ``transAxes + titleOffsetTrans``."""
    from matplotlib.text import Text

    placed = ax.title.get_transform()
    return {c for c in ax.get_children() if isinstance(c, Text) and c.get_transform() == placed}


def _titles(ax) -> list[str]:
    texts = sorted(title_texts(ax), key=lambda t: {"left": 0, "center": 1, "right": 2}.get(
        t.get_horizontalalignment(), 1))
    return [plain_text(t.get_text()) for t in texts if t.get_visible() and t.get_text().strip()]


def _tick_names(axis) -> dict:
    """Tick position → label text (what the reader sees under a bar or beside a row)."""
    out = {}
    for loc, label in zip(axis.get_majorticklocs(), axis.get_majorticklabels(), strict=False):
        if label.get_text().strip():
            out[round(float(loc), 6)] = plain_text(label.get_text())
    return out


def _axis_text(ax, which: str, ranges: bool = True, data=None) -> str:
    """「가로축 <label> (그려진 값 lo–hi)」: what the axis measures and, where lines are drawn,
    the span of their values on it (``data``: (lo, hi)); tick labels alone say too little (a
    line can run past the last labelled tick)."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    if not axis.get_visible():
        return ""
    label = plain_text(axis.get_label().get_text())
    if not label and not _tick_names(axis):
        return ""
    log = " 로그" if axis.get_scale() == "log" else ""
    text = f"{'가로축' if which == 'x' else '세로축'}{log} {label}".rstrip()
    if ranges and data is not None and data[0] < data[1]:
        return f"{text} (그려진 값 {_num(data[0])}–{_num(data[1])})"
    return text


def _cells(ax) -> list:
    """The artists that write a heat map's numbers (``plots.CellLabels``: ``cell_labels``)."""
    return [a for a in ax.get_children()
            if getattr(a, "cell_labels", False) and a.get_visible()]


def describe_axes(ax, extra=()) -> str:
    """One panel in words: title, what is drawn (bars with their heights, lines with their
    ends, heat maps with their numbers), the texts on it, its axes."""
    from matplotlib.container import BarContainer
    from matplotlib.lines import Line2D
    from matplotlib.patches import StepPatch

    bits = []
    titles = _titles(ax)
    if titles:
        bits.append(" — ".join(titles))
    xnames = _tick_names(ax.xaxis)
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    for c in bars:
        items = []
        for patch in c.patches[:16]:
            x = patch.get_x() + patch.get_width() / 2
            name = xnames.get(round(x, 6), _num(x))
            items.append(f"{name}: {_num(patch.get_height())}")
        label = c.get_label()
        head = f"막대 {len(c.patches)}개" + (f" ({plain_text(label)})" if label and
                                            not label.startswith("_") else "")
        more = f" … 외 {len(c.patches) - 16}개" if len(c.patches) > 16 else ""
        bits.append(f"{head} — " + ", ".join(items) + more)
    for im in ax.images:
        if not im.get_visible():
            continue
        arr = np.ma.masked_invalid(np.asarray(im.get_array(), dtype=float))
        n, m = arr.shape[:2]
        text = f"{n}×{m} 칸의 색 지도 (값 {_num(arr.min())}…{_num(arr.max())})"
        cells = _cells(ax)
        if cells and cells[0].texts and n <= 8 and m <= 8:
            t = cells[0].texts
            names = _tick_names(ax.yaxis)  # rows as the figure numbers them
            rows = "; ".join(f"{names.get(float(i), i)}행: " + " ".join(t[i * m:(i + 1) * m])
                             for i in range(n))
            text += f", 칸의 수 — {rows}"
        legend = ax.get_legend()
        if legend is not None:  # the colours' meanings, as the legend under the map says
            names = [plain_text(t.get_text()) for t in legend.get_texts() if t.get_text()]
            text += f", 색의 뜻 — {', '.join(names)}" if names else ""
        bits.append(text)
    for patch in ax.patches:
        if isinstance(patch, StepPatch) and patch.get_visible():
            values, edges = patch.get_data()[:2]
            if len(values) and np.max(values) > 0:
                k = int(np.argmax(values))
                bits.append(f"히스토그램 (계급 {len(values)}개, 범위 {_num(edges[0])}…"
                            f"{_num(edges[-1])}, 가장 높은 계급 {_num(edges[k])}…"
                            f"{_num(edges[k + 1])})")
    lines = [ln for ln in ax.lines if isinstance(ln, Line2D) and ln.get_visible()]
    refs = {}  # (kind, name, axis) -> positions of reference lines
    described = 0
    spans = {"x": [], "y": []}  # the values the lines take, for the axes' ranges
    for ln in lines:
        x = np.asarray(ln.get_xdata(orig=False), dtype=float).ravel()
        y = np.asarray(ln.get_ydata(orig=False), dtype=float).ravel()
        ok = np.isfinite(x) & np.isfinite(y)
        if not ok.any():
            continue
        label = ln.get_label()
        # a line's name: its legend label, else its gid (a reference line's meaning, which
        # a legend would not list: 「균등 분포 1/6」)
        name = (plain_text(label) if label and not label.startswith("_")
                else plain_text(ln.get_gid() or ""))
        if ax.images and not name:
            continue  # marks drawn over a heat map (crosses): the figure's alt names them
        if ln.get_transform() != ax.transData:
            # axhline / axvline: one coordinate in data, the other across the axes; lines of
            # one name together (「세로선 블록 경계 5개: x = 3.5, 7.5, …」)
            if np.allclose(y[ok], y[ok][0]) and not np.allclose(x[ok], x[ok][0]):
                refs.setdefault(("가로 기준선", name, "y"), []).append(_num(y[ok][0]))
            elif np.allclose(x[ok], x[ok][0]):
                refs.setdefault(("세로선", name, "x"), []).append(_num(x[ok][0]))
            continue
        if described >= 8:
            continue
        described += 1
        x, y = x[ok], y[ok]
        spans["x"] += [x.min(), x.max()]
        spans["y"] += [y.min(), y.max()]
        if len(x) == 1:
            bits.append(f"점 {name} ({_num(x[0])}, {_num(y[0])})".replace("  ", " "))
            continue
        k_max, k_min = int(np.argmax(y)), int(np.argmin(y))
        # the lowest point too where the line dips below both its ends
        low = (f"최소 {_num(y[k_min])}, x = {_num(x[k_min])}; "
               if y[k_min] < min(y[0], y[-1]) else "")
        text = (f"선 {name}: x {_num(x[0])}에서 {_num(x[-1])}까지, y {_num(y[0])} → {_num(y[-1])}"
                f" ({low}최대 {_num(y[k_max])}, x = {_num(x[k_max])})")
        bits.append(text.replace("선 :", "선:"))
    for (kind, name, which), at in refs.items():
        count = f" {len(at)}개:" if len(at) > 1 else ""
        bits.append(f"{kind} {name}{count} {which} = {', '.join(at)}".replace("  ", " "))
    for coll in ax.collections:
        offsets = getattr(coll, "get_offsets", lambda: [])()
        if coll.get_visible() and len(offsets) and coll.get_label() and \
                not coll.get_label().startswith("_"):
            bits.append(f"점 {len(offsets)}개 ({plain_text(coll.get_label())})")
    words = [plain_text(t.get_text().replace("\n", ", ")) for t in ax.texts
             if t.get_visible() and t.get_text().strip()]
    if bars:  # numbers written over bars repeat the heights said above
        words = [w for w in words if not _is_number(w)]
    words += [plain_text(e) for e in extra]
    if words:
        bits.append("적힌 글: " + "; ".join(words))
    # ranges say where lines run; bars and heat maps have their positions named already
    x_range = not bars and not ax.images
    y_range = not ax.images
    def span(which):
        v = spans[which]
        return (min(v), max(v)) if v else None

    axes_text = ", ".join(t for t in (_axis_text(ax, "x", x_range, span("x")),
                                      _axis_text(ax, "y", y_range, span("y"))) if t)
    if axes_text:
        bits.append(axes_text)
    return ". ".join(b.strip() for b in bits if b.strip())


def describe(fig, groups: list[list]) -> list[str]:
    """Alt text for each tile: its panels in words (``describe_axes``), a figure-level title
    first.  A figure may set ``fig.alt`` (a str, or one str per tile) to lead with what the
    reader should notice; a view sets it in ``update``."""
    lead = getattr(fig, "alt", None)
    if isinstance(lead, str) or lead is None:
        leads = [lead] + [None] * (len(groups) - 1)
    else:
        leads = list(lead) + [None] * max(0, len(groups) - len(lead))
        if len(leads) > len(groups):  # one picture for several panels: join their leads
            leads = [" ".join(dict.fromkeys(x for x in leads if x))] + [None] * (len(groups) - 1)
    supt = [plain_text(t.get_text()) for t in fig.texts if t.get_visible() and t.get_text().strip()]
    alts = []
    for i, axes in enumerate(groups):
        parts = []
        if i == 0 and supt:
            parts.append(" ".join(supt))
        if leads[i]:
            parts.append(leads[i].strip().rstrip("."))
        owner = _panels(fig)
        for ax in axes:
            text = describe_axes(ax)
            for cax, key in owner.items():
                if key is ax and cax is not ax and hasattr(cax, "_colorbar"):
                    lo, hi = sorted(cax._colorbar.mappable.get_clim())
                    text += f". 색 막대 {_num(lo)}…{_num(hi)}"
            if text:
                parts.append(text)
        if len(groups) > 1:
            parts.insert(0, f"그림 {i + 1}/{len(groups)}")
        alt = ". ".join(p.rstrip(". ") for p in parts if p) + "."
        alts.append(alt if len(alt) <= 900 else alt[:897].rstrip() + "…")
    return alts


# ------------------------------------------------------------------ frames ----
# What an explorer's frame function returns (a View, a Figure, text, HTML, or a list of
# these) as nbformat outputs: the frozen book's frame files, the live book's frames and a
# kernel's Output widget all show these.


@contextlib.contextmanager
def _glyphs_strict():
    """A context in which a missing glyph (drawn as an empty box) is the error it is."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "error", message=r".*[Gg]lyph .* missing from", category=UserWarning
        )
        yield


def _png_output(png: bytes, width: int, height: int, alt: str | None = None) -> dict:
    meta = {"width": width, "height": height}
    if alt is not None:
        meta["alt"] = alt
    return {
        "output_type": "display_data",
        "data": {"image/png": base64.b64encode(png).decode("ascii"), "text/plain": "<Figure>"},
        "metadata": {"image/png": meta},
    }


def _one_alt(fig) -> str:
    """The alt text of the whole figure as one picture (``describe`` with a single tile)."""
    return describe(fig, _tile_axes(fig, [], [0, 1]))[0]


def _view_output(view, dpi: float, compact: bool, alt: bool = False) -> dict:
    """A ``plots.View`` frame: only its changing artists are drawn (see ``View.rgba``);
    ``alt``: with the frame's alt text (the static picture a kernel's explorer leaves)."""
    from PIL import Image

    with _glyphs_strict():
        rgba = view.rgba(dpi)
    img = Image.fromarray(rgba)
    return _png_output(encode_png(img, compact=compact), img.width, img.height,
                       _one_alt(view.fig) if alt else None)


def _figure_output(fig, fmt: str, dpi: float, compact: bool = True, alt: bool = False) -> dict:
    """A matplotlib Figure as one ``display_data`` output (PNG or SVG); ``alt``: with its alt
    text."""
    import matplotlib.pyplot as plt
    from PIL import Image

    buf = io.BytesIO()
    with _glyphs_strict():
        if fmt == "svg":
            fig.savefig(buf, format="svg", metadata={"Date": None})
        else:
            fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    text = _one_alt(fig) if alt else None  # drawn by savefig: tick labels are set
    plt.close(fig)  # a no-op for figures pyplot does not manage
    if fmt == "svg":
        return {
            "output_type": "display_data",
            "data": {"image/svg+xml": buf.getvalue().decode(), "text/plain": "<Figure>"},
            "metadata": {"image/svg+xml": {"alt": text}} if text is not None else {},
        }
    img = Image.open(io.BytesIO(buf.getvalue()))
    return _png_output(encode_png(img, compact=compact), img.width, img.height, text)


def render_outputs(
    result: Any, *, fmt: str = "png", dpi: float = 90, compact: bool = True, book: bool = False,
    alt: bool = False,
) -> list[dict]:
    """Turn what ``func`` returned into nbformat output dicts (figures, text, HTML).

    ``compact``: spend time on small PNGs (frozen frames, which the page carries) rather
    than on speed (live frames, sent once to the kernel's front end).
    ``book``: a frame of the built book: figures become ``attnlib.pictures`` tiles (lossless
    WebP at two device pixels per CSS pixel, alt text, checked for phones), ``dpi`` being
    the CSS pixels per inch.
    ``alt``: outside the book, give a figure its alt text too (a kernel's explorer does for
    the first frame, the picture a notebook file keeps; later frames skip it).
    """
    from matplotlib.figure import Figure

    if result is None:
        return []
    if isinstance(result, (list, tuple)):
        return [
            out
            for item in result
            for out in render_outputs(item, fmt=fmt, dpi=dpi, compact=compact, book=book,
                                      alt=alt)
        ]
    if book and fmt != "svg" and (is_view(result) or isinstance(result, Figure)):
        with _glyphs_strict():
            outs = figure_outputs(result, fmt="webp", css_dpi=dpi, tiles=True)
        if isinstance(result, Figure):
            import matplotlib.pyplot as plt

            plt.close(result)
        return outs
    if is_view(result):
        if fmt == "svg":
            return [_figure_output(result.fig, fmt, dpi, compact, alt)]
        return [_view_output(result, dpi, compact, alt)]
    if isinstance(result, Figure):
        return [_figure_output(result, fmt, dpi, compact, alt)]
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
