"""Figures for the book (matplotlib).  Drawing only: the numbers come from the backends.

Every figure is made by :func:`new_figure`, which first registers a Korean font
(NanumGothic, shipped inside the ``koreanize-matplotlib`` package, so it is there on a
fresh machine and in Colab) with DejaVu Sans as the per-glyph fallback for symbols
such as ``−`` and ``√``.  Figures are plain ``matplotlib.figure.Figure`` objects, not
pyplot's, so nothing accumulates in pyplot's state; an explorer frame just returns one.

Layering: this module stands on :mod:`attnlib.pictures` (which turns a figure or a view into
the page's pictures: tiles, alt text, encoding) and never the other way round.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
from pathlib import Path

import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

# The picture layer (rasterising, tiles, alt text, encoding) is below this one: a view draws,
# attnlib.pictures makes the page's pictures of it.  pictures imports nothing from here.
from .pictures import (  # noqa: F401  (encode_png, quantize: this module's old names)
    _TextProbe,
    encode_png,
    figure_outputs,
    quantize,
    record_text,
    title_texts,
)

__all__ = [
    "use_korean_font",
    "new_figure",
    "normal_curve",
    "plain_log_axis",
    "static",
    "View",
    "BookFigure",
    "encode_png",
    "ScoreHistograms",
    "CellLabels",
    "text_colors",
    "KOREAN_FONT",
    "COLORS",
]

KOREAN_FONT = "NanumGothic"
COLORS = {"sample": "#4C72B0", "theory": "#C44E52", "accent": "#55A868", "muted": "#8C8C8C"}

_registered = False


def _font_dir() -> Path:
    # Locate koreanize-matplotlib's fonts without importing it (its import changes
    # rcParams and pulls in distutils, which warns on 3.11 and is gone in 3.12).
    spec = importlib.util.find_spec("koreanize_matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("attnlib.plots needs the koreanize-matplotlib package (its font)")
    return Path(next(iter(spec.submodule_search_locations))) / "fonts"


def use_korean_font() -> None:
    """Register NanumGothic and make it the default family (idempotent)."""
    global _registered
    if _registered:
        return
    from matplotlib import font_manager

    for path in sorted(_font_dir().glob("*.ttf")):
        font_manager.fontManager.addfont(str(path))
    mpl.rcParams["font.family"] = [KOREAN_FONT, "DejaVu Sans"]
    mpl.rcParams["mathtext.fontset"] = "dejavusans"
    mpl.rcParams["axes.unicode_minus"] = True  # U+2212 comes from the DejaVu fallback
    _registered = True


class BookFigure(Figure):
    """The book's ``Figure``: in IPython it shows itself as the page's pictures
    (``attnlib.pictures``): sharp (two device pixels per CSS pixel), with an alt text written
    from what it plots, and in the built book cut into one image per column of panels.

    ``alt``: a sentence (or one per column of panels) put before the generated description:
    what the reader should notice."""

    alt: str | list[str] | None = None

    def _ipython_display_(self):
        from IPython.display import display

        for out in figure_outputs(self, fmt="png"):
            display(out["data"], metadata=out["metadata"], raw=True)


def new_figure(
    width: float = 7.0,
    height: float = 3.0,
    ncols: int = 1,
    nrows: int = 1,
    *,
    layout: str | None = "constrained",
    **kw,
):
    """A ``BookFigure`` and its axes (an array when there are several).

    ``layout="constrained"`` fits labels automatically; explorer frames that must redraw
    fast pass ``layout=None`` and set margins with ``fig.subplots_adjust`` (about half the
    drawing time).  On the page an inch is ``pictures.CSS_DPI`` (90) CSS px: a column of
    panels (one tile) at most ``pictures.PHONE_COLUMN`` px wide keeps its text size on a phone.
    """
    use_korean_font()
    fig = BookFigure(figsize=(width, height), layout=layout)
    axes = fig.subplots(nrows, ncols, squeeze=True, **kw)
    return fig, axes


def normal_curve(sigma: float, half_width: float, n: int = 241):
    """Points ``(x, φ_σ(x))`` of the N(0, σ²) density on ``[-half_width, half_width]``.

    The reference curve a histogram is drawn against (a picture of the normal law,
    not part of the book's attention math).
    """
    x = np.linspace(-half_width, half_width, n)
    return x, np.exp(-0.5 * (x / sigma) ** 2) / (sigma * np.sqrt(2 * np.pi))


def text_colors(image, X) -> list[str]:
    """Black or white for the number written on each cell of a heat map ``image`` showing
    ``X``: whichever contrasts more with the cell's colour (WCAG luminance), row-major."""
    rgb = np.asarray(image.cmap(image.norm(np.ma.masked_invalid(np.asarray(X, dtype=float)))))
    lin = np.where(rgb[..., :3] <= 0.04045, rgb[..., :3] / 12.92,
                   ((rgb[..., :3] + 0.055) / 1.055) ** 2.4)
    lum = lin @ np.array([0.2126, 0.7152, 0.0722])  # (n, m)
    # contrast with black (L + .05) / .05 against with white 1.05 / (L + .05)
    dark = (lum + 0.05) ** 2 < 0.05 * 1.05
    return ["white" if d else "black" for d in np.ravel(dark)]


def plain_log_axis(ax, which: str = "y", base: float = 10, ticks=None) -> None:
    """A log axis labelled in plain text (0.25, 4, 1e-05), never mathtext.

    Mathtext's tick labels (10⁻³) ask the Korean font for a minus sign it lacks, and that
    missing-glyph warning fails the build; ``ticks`` fixes where the major ticks go.
    """
    (ax.set_yscale if which == "y" else ax.set_xscale)("log", base=base)
    axis = ax.yaxis if which == "y" else ax.xaxis
    if ticks is not None:
        axis.set_major_locator(FixedLocator(list(ticks)))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


class _Shown:
    """What :func:`static` returns: a figure that displays as the book's pictures."""

    def __init__(self, fig: Figure):
        self.fig = fig

    def _ipython_display_(self):
        BookFigure._ipython_display_(self.fig)

    def _repr_png_(self):  # front ends that ask for a plain picture
        buf = io.BytesIO()
        self.fig.savefig(buf, format="png", dpi=90, metadata={"Software": None})
        return buf.getvalue()


def static(fig: Figure, dpi: float | None = None):
    """A figure as a cell output under any matplotlib backend: the book's pictures
    (``BookFigure``), also for a plain ``Figure``.  ``dpi`` is ignored (kept for old calls):
    the pictures carry two device pixels per CSS pixel."""
    return _Shown(fig)


class View:
    """A figure drawn once and then updated in place: an explorer frame that redraws fast.

    Rebuilding a matplotlib figure for every slider position costs a few hundred ms (new
    axes and ticks, the constrained layout, every text laid out again).  A ``View`` builds
    its figure once, in ``__init__``, with fixed axis limits; ``update(**values)`` changes
    only the artists it registers with :meth:`track` / :meth:`replace`.  :meth:`png` draws
    the static part once, keeps it as a bitmap, and per frame restores that bitmap and
    draws just the changing artists (and the static ones a full draw would put over them) on
    top: matplotlib's blitting, with the layout of the first frame kept for every frame (so
    nothing jumps as the slider moves).

    Calling a view, ``view(**values)``, updates it and returns it: that is what an explorer
    frame function returns.  ``view.fig`` is an ordinary ``Figure``; drawn any other way
    (``savefig``, a notebook's inline display) it shows the current frame in full.
    """

    def __init__(self, fig: Figure):
        self.fig = fig
        self.dynamic: list = []  # the artists update() may change, in drawing order
        self._groups: dict[str, list] = {}
        self._canvas = None
        self._background = None
        self._above: set = set()  # static artists drawn with each frame (see _above_tracked)
        self._dpi = None
        self._static_texts = None  # texts of the cached bitmap, when drawn with the probe
        self._edges = None  # tile edges of the first frame (attnlib.pictures)

    # -- what subclasses call -------------------------------------------------------
    def track(self, *artists):
        """Register artists that later frames change (data, text, colour); returns them."""
        for a in artists:
            if isinstance(a, (list, tuple)) or type(a).__name__ == "BarContainer":
                self.dynamic.extend(a)
            else:
                self.dynamic.append(a)
        return artists[0] if len(artists) == 1 else artists

    def replace(self, group: str, artists) -> list:
        """Remove the artists last given under ``group`` and track ``artists`` instead.

        For parts of a frame whose count changes (one label per bar, say).
        """
        for a in self._groups.pop(group, []):
            a.remove()
            self.dynamic.remove(a)
        artists = list(artists)
        self._groups[group] = artists
        self.dynamic.extend(artists)
        return artists

    def redraw_static(self) -> None:
        """Say that ``update`` changed a static part (an axis limit): draw the next frame whole."""
        self._background = None

    def update(self, **values) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- what explorers and notebooks call --------------------------------------------
    def __call__(self, **values) -> View:
        self.update(**values)
        return self

    def _above_tracked(self) -> list:
        """Static artists a full draw puts over a tracked one: in an axes that holds tracked
        artists, every other child with a higher zorder than the lowest of them (spines over
        an image, a reference line over bars, a legend over curves).  They are drawn with the
        frame, in zorder order, not into the cached bitmap.  The axis ticks and labels and the
        titles stay in the bitmap: they sit outside the data area (track one that changes)."""
        from matplotlib.axis import Axis

        tracked = set(self.dynamic)
        above = []
        for ax in {a.axes for a in self.dynamic if a.axes is not None}:
            low = min(a.get_zorder() for a in self.dynamic if a.axes is ax)
            outside = {ax.patch, *title_texts(ax)}
            above += [c for c in ax.get_children()
                      if c not in tracked and c not in outside and not isinstance(c, Axis)
                      and c.get_zorder() > low]
        return above

    def rgba(self, dpi: float = 90, *, probe: bool = False):
        """The current frame as an ``(h, w, 4)`` uint8 array (static part cached).

        ``probe=True`` returns ``(rgba, texts)``: also every text drawn in the frame, as
        ``(x in pixels, size in points)`` (the static part's from when it was drawn), which
        ``attnlib.pictures`` uses to check text sizes per tile."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        fig = self.fig
        if self._canvas is None or self._dpi != dpi:
            fig.set_dpi(dpi)
            self._canvas, self._dpi, self._background = FigureCanvasAgg(fig), dpi, None
            self._edges = None
        canvas = self._canvas
        if probe and getattr(self, "_static_texts", None) is None:
            self._background = None  # drawn without the probe: draw it again, measured
        above = self._above_tracked()
        if set(above) != self._above:  # what the cached bitmap left out has changed
            self._background, self._above = None, set(above)
        # stable sort: ties keep the order of the figure (tracked artists come after)
        layers = sorted([*above, *self.dynamic], key=lambda a: a.get_zorder())
        for a in layers:
            a.set_animated(True)  # skipped by the full draw below, drawn on top afterwards
        recorder = _TextProbe(canvas.get_renderer()) if probe else None
        try:
            with recorder or contextlib.nullcontext():
                mark = 0
                if self._background is None:
                    canvas.draw()  # layout (the first time) and every static artist
                    if fig.get_layout_engine() is not None:
                        # Keep the first frame's layout: later frames only redraw artists.
                        fig.set_layout_engine("none")
                    self._background = canvas.copy_from_bbox(fig.bbox)
                    self._static_texts = list(recorder.texts) if probe else None
                    mark = len(recorder.texts) if probe else 0
                else:
                    canvas.restore_region(self._background)
                for a in layers:
                    fig.draw_artist(a)
        finally:
            for a in layers:
                a.set_animated(False)  # so a plain savefig draws the whole frame
        rgba = np.asarray(canvas.buffer_rgba())
        if not probe:
            return rgba
        return rgba.copy(), [*self._static_texts, *recorder.texts[mark:]]

    def _settle_edges(self, edges, cols):
        """Tile edges for this frame: the first frame's, so that the tiles keep their size as
        the controls move.  A frame whose panels reach over an edge is an error (a title that
        grew into the next panel): give the figure more room between panels."""
        if getattr(self, "_edges", None) is None:
            self._edges = list(edges)
            return self._edges
        kept = self._edges
        if len(kept) == 2:
            return kept
        inner = kept[1:-1]  # the figure's own edges may cut a label (as any figure would)
        if len(cols) != len(kept) - 1 or any(
                (i > 0 and c[0] < kept[i] - 0.5) or (i < len(inner) and c[1] > kept[i + 1] + 0.5)
                for i, c in enumerate(cols)):
            spans = ", ".join(f"{c[0]:.0f}–{c[1]:.0f}" for c in cols)
            raise ValueError(f"{type(self).__name__}: this frame's panels ({spans} px) cross the "
                             f"first frame's tile edges {kept}; leave more room between panels")
        return kept

    def png(self, dpi: float = 90) -> bytes:
        """The current frame as PNG bytes (fast to encode)."""
        from PIL import Image

        return encode_png(Image.fromarray(self.rgba(dpi)))

    def _repr_png_(self):
        return self.png()


class CellLabels(Artist):
    """The text of every cell of an ``(n, m)`` heatmap as one artist, centred on each cell as
    ``ax.text(j, i, s, ha="center", va="center")`` centres it.  Set ``texts`` and ``colors``
    (row-major lists).

    A View redraws these every frame, and Agg takes about a millisecond to lay out and
    rasterise a string; cell values repeat (``0``, ``-0.02``), so each distinct (string,
    colour) is rasterised once, by the same Agg text code, and later frames paste the bitmap.
    """

    zorder = 3  # as Text
    cell_labels = True  # how attnlib.pictures finds a heat map's numbers for its alt text
    _PAD = 2  # pixels around the line box (antialiasing)

    def __init__(self, ax, shape, fontsize):
        super().__init__()
        n, m = shape
        self.xy = np.array([(j, i) for i in range(n) for j in range(m)], dtype=float)  # (n·m, 2)
        self.texts, self.colors = [""] * (n * m), ["black"] * (n * m)
        self.prop = FontProperties(size=fontsize)
        self._stamps = {}  # (text, colour, dpi) → (RGBA bitmap, offset of its lower-left corner)
        self._scratch = {}  # dpi → (RendererAgg, line height, line descent)
        ax.add_artist(self)

    def _stamp(self, renderer, s, color):
        key = (s, color, renderer.dpi)
        if key not in self._stamps:
            if renderer.dpi not in self._scratch:
                from matplotlib.backends.backend_agg import RendererAgg

                # Text's line box for one line is that of "lp" (no cell text is taller)
                _, lp_h, lp_d = renderer.get_text_width_height_descent("lp", self.prop, False)
                size = self.prop.get_size_in_points() * renderer.dpi / 72
                scratch = RendererAgg(int(12 * size), int(np.ceil(lp_h)) + 2 * self._PAD,
                                      renderer.dpi)
                self._scratch[renderer.dpi] = scratch, lp_h, lp_d
            scratch, lp_h, lp_d = self._scratch[renderer.dpi]
            scratch.clear()
            gc = scratch.new_gc()
            gc.set_foreground(color)
            # Agg's draw_text takes the baseline's distance from the top
            scratch.draw_text(gc, self._PAD, scratch.height - self._PAD - lp_d, s, self.prop, 0)
            gc.restore()
            rgba = np.asarray(scratch.buffer_rgba())  # (H, W, 4), top row first
            ink = np.flatnonzero(rgba[..., 3].any(axis=0))
            if ink.size == 0:  # "" or spaces
                self._stamps[key] = None
            else:
                stamp = rgba[:, ink[0]:ink[-1] + 1].copy()
                # centred like Text: ink box across, line box of "lp" up and down
                self._stamps[key] = stamp, -stamp.shape[1] / 2, -lp_h / 2 - self._PAD
        return self._stamps[key]

    def draw(self, renderer):
        if not self.get_visible():
            return
        if any(t.strip() for t in self.texts):  # for attnlib.pictures' text sizes
            x_mid = self.axes.bbox.x0 + self.axes.bbox.width / 2
            record_text(renderer, x_mid, self.prop.get_size_in_points())
        gc = renderer.new_gc()
        for (x, y), s, color in zip(self.axes.transData.transform(self.xy), self.texts,
                                    self.colors, strict=True):
            stamp = self._stamp(renderer, s, color)
            if stamp is not None:
                bitmap, dx, dy = stamp
                renderer.draw_image(gc, round(x + dx), round(y + dy), bitmap[::-1])
        gc.restore()


class ScoreHistograms(View):
    """Chapter 1's figure: q·k against N(0, d_k) and q·k/√d_k against N(0, 1), side by side;
    ``view(s=..., s_scaled=..., d_k=...)`` shows one sample.

    The left axis keeps one range for every d_k so the spread visibly grows with d_k;
    the right one stays put because dividing by √d_k undoes that growth.  Each panel's
    height follows its tallest bar (the y axis carries no ticks).
    """

    def __init__(self, *, raw_half_width: float = 150.0):
        fig, axes = new_figure(width=7.6, height=2.9, ncols=2, layout=None)
        super().__init__(fig)
        fig.subplots_adjust(left=0.05, right=0.98, bottom=0.2, top=0.88, wspace=0.1)
        self.panels = []
        for ax, half, bins, name, xlabel in [
            (axes[0], raw_half_width, 90, r"$N(0,\, d_k)$", r"$q\cdot k$"),
            (axes[1], 4.5, 45, r"$N(0,\, 1)$", r"$q\cdot k\,/\sqrt{d_k}$"),
        ]:
            edges = np.linspace(-half, half, bins + 1)
            hist = ax.stairs(np.zeros(bins), edges, fill=True, color=COLORS["sample"],
                             alpha=0.55, label="표본")
            curve, = ax.plot([], [], color=COLORS["theory"], lw=2, label=name)
            ax.set_xlim(-half, half)
            ax.set_xlabel(xlabel)
            ax.set_yticks([])
            ax.set_ylabel("밀도", fontsize=9)
            ax.spines[["top", "right", "left"]].set_visible(False)
            ax.legend(frameon=False, fontsize=9, loc="upper right")
            self.panels.append((ax, edges, self.track(hist), self.track(curve)))
        self.title = self.track(axes[0].set_title(" ", fontsize=11))
        axes[1].set_title(r"$\sqrt{d_k}$로 나눈 점수", fontsize=11)

    def update(self, s, s_scaled, d_k):
        for (ax, edges, hist, curve), x, sigma in zip(
            self.panels, (s, s_scaled), (float(np.sqrt(d_k)), 1.0), strict=True
        ):
            density, _ = np.histogram(np.asarray(x, dtype=float), bins=edges, density=True)
            grid, pdf = normal_curve(sigma, edges[-1])
            hist.set_data(density)
            curve.set_data(grid, pdf)
            ax.set_ylim(0, 1.05 * max(density.max(), pdf.max()))  # moves only tracked artists
        self.title.set_text(f"점수 그대로 (dₖ = {d_k})")  # no mathtext: nothing to parse per frame
