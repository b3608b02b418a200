"""No TeX markup left raw in the text a figure draws (issue 34, class d).

Matplotlib typesets only what stands between ``$…$`` (mathtext); ``d_k``, ``W_Q``, ``M_s = 2^14``
or ``\\sqrt`` outside it are drawn as they are written. Two checks:

- every string that can reach a figure's text: in the chapters' code cells that draw a picture
  and in ``attnlib.figures`` (titles, axis labels, legends, annotations, tick labels, the labels
  handed to the library's figure functions), read from the source;
- every Text artist of figures the library draws (``fig.findobj(Text)``, tick labels included),
  on a few builders, and a planted figure with a raw ``d_k`` label, which the walk must find.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

pytest.importorskip("matplotlib")

import matplotlib  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Text  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted(p for p in (ROOT / "chapters").rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts)
FIGURE_MODULES = sorted((ROOT / "lib" / "attnlib" / "figures").glob("*.py"))

MATH = re.compile(r"(?<!\\)\$.*?(?<!\\)\$")
# a subscript or superscript written as TeX (x_k, W_Q, 2^14, d_k^γ, x_{ij}), or a TeX command
RAW = re.compile(r"[A-Za-z0-9)\]}][_^][A-Za-z0-9{(γα+\-]|\\[A-Za-z]+")


def raw_tex(text: str) -> list[str]:
    """The pieces of ``text`` that matplotlib would draw as raw TeX: outside ``$…$``."""
    return RAW.findall(MATH.sub(" ", text))


# ------------------------------------------------------------------ the check itself ----


def test_raw_tex_finds_markup_outside_mathtext_only():
    assert raw_tex("√d_k 로 나눈 점수") == ["d_k"]
    assert raw_tex("블록, M_s = 2^14") == ["M_s", "2^1"]
    assert raw_tex(r"\sqrt{d_k}") != []
    assert raw_tex(r"$\sqrt{d_k}$ 로 나눈 점수") == []
    assert raw_tex("$W_Q$ 의 기울기, $d_k = 64$") == []
    assert raw_tex("dₖ = 64, 안 나눔; 16.0·n² 바이트; e^(−x)")[:0] == []
    assert raw_tex("p pᵀ, ‖dQ‖, b = 32") == []


# ------------------------------------------------------- strings that reach a figure ----

# calls whose string arguments are drawn: matplotlib's and the book's figure functions
DRAWN_CALLS = {"set_title", "set_xlabel", "set_ylabel", "set_text", "text", "annotate",
               "legend", "suptitle", "set_xticklabels", "set_yticklabels", "plot", "loglog",
               "semilogy", "semilogx", "bar", "barh", "scatter", "axhline", "axvline",
               "fill_between", "step", "hist", "imshow", "set_label"}
DRAWN_KEYWORDS = {"label", "labels", "title", "xlabel", "ylabel", "names", "marks", "name"}
FIGURE_OWNERS = {"figs", "figures", "plots", "part1", "part2a", "part2b", "part3",
                 "performance"}
NOT_DRAWN = {"print", "holds", "below", "format", "join", "get", "startswith", "endswith",
             "split", "replace", "Range", "explorer", "dict", "items", "frozen", "sentence"}


def _strings(node):
    """Every literal piece of text under ``node`` (constants and the literal parts of f-strings),
    skipping calls that produce no drawn text (print, ledger lines)."""
    if isinstance(node, ast.Call) and _name(node.func) in NOT_DRAWN:
        return
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
        return
    if isinstance(node, ast.JoinedStr):  # an f-string: its literal parts, a value as "0"
        yield "".join(v.value if isinstance(v, ast.Constant) else "0" for v in node.values)
        return
    if isinstance(node, ast.Subscript):  # runs["key"]: an index, not text
        yield from _strings(node.value)
        return
    for child in ast.iter_child_nodes(node):
        yield from _strings(child)


def _name(func):
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _owner(func):
    return getattr(func.value, "id", "") if isinstance(func, ast.Attribute) else ""


def drawn_strings(source: str, *, constants: bool = False):
    """(text, line) of the strings in ``source`` that a figure draws: arguments of DRAWN_CALLS
    and of the book's figure functions, DRAWN_KEYWORDS' values; with ``constants`` also what a
    cell assigns to a name it hands to those calls (MARKS = [...], curves[f"..."] = ...)."""
    tree = ast.parse(source)
    named = {}  # name -> the expressions assigned to it (x = ..., x[key] = ... gives key)
    for node in ast.walk(tree):
        if constants and isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                named.setdefault(target.id, []).append(node.value)
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                named.setdefault(target.value.id, []).append(target.slice)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _name(node.func) in NOT_DRAWN:
            continue
        drawn = _name(node.func) in DRAWN_CALLS or _owner(node.func) in FIGURE_OWNERS
        parts = ([*node.args] if drawn else []) + [
            k.value for k in node.keywords if k.arg in DRAWN_KEYWORDS]
        for part in parts:
            for text in _strings(part):
                yield text, node.lineno
            for sub in ast.walk(part):
                if isinstance(sub, ast.Name) and sub.id in named:
                    for value in named[sub.id]:
                        for text in _strings(value):
                            yield text, node.lineno


def _drawing_cells():
    for path in CHAPTERS:
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or cell.source.lstrip().startswith(("%", "!")):
                continue
            if any("image/png" in o.get("data", {}) for o in cell.get("outputs", [])):
                yield f"{path.stem} cell {i}", cell.source


def _raw_in(source, where, *, constants):
    found = []
    for text, line in drawn_strings(source, constants=constants):
        if raw_tex(text):
            found.append(f"{where} line {line}: {text!r}")
    return found


def test_no_raw_tex_in_the_chapters_figure_text():
    found = [f for where, source in _drawing_cells()
             for f in _raw_in(source, where, constants=True)]
    assert not found, "raw TeX in a figure's text (use $…$ or dₖ):\n" + "\n".join(found)


def test_no_raw_tex_in_the_librarys_figure_text():
    found = [f for path in FIGURE_MODULES
             for f in _raw_in(path.read_text(encoding="utf-8"), path.name, constants=False)]
    assert not found, "raw TeX in a figure's text (use $…$ or dₖ):\n" + "\n".join(found)


def test_the_source_check_finds_a_planted_raw_label():
    planted = 'MARKS = [(8, "d_k = 64, 안 나눔")]\nfigs.jacobian_curves(s, a, marks=MARKS)\n'
    assert _raw_in(planted, "planted", constants=True)
    planted = 'ax.legend()\nax.plot(x, y, label="블록, M_s = 2^14")\n'
    assert _raw_in(planted, "planted", constants=False)
    fixed = 'ax.plot(x, y, label=r"블록, $M_s = 2^{14}$")\nprint("d_k =", d_k)\n'
    assert not _raw_in(fixed, "fixed", constants=False)


# --------------------------------------------------------- drawn figures, artist by artist ----


def figure_text(fig) -> list[str]:
    """Every piece of text ``fig`` draws: titles, labels, legends, annotations, tick labels."""
    fig.canvas.draw()
    return [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]


def _raw_drawn(fig):
    return [t for t in figure_text(fig) if raw_tex(t)]


def test_the_artist_walk_finds_a_planted_raw_label():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], label="d_k = 64, 안 나눔")
    ax.legend()
    ax.set_xticks([0, 1], ["0", "b_k"])
    assert _raw_drawn(fig) == ["b_k", "d_k = 64, 안 나눔"] or sorted(_raw_drawn(fig)) == sorted(
        ["b_k", "d_k = 64, 안 나눔"])
    plt.close(fig)


def _library_figures():
    from attnlib import pure
    from attnlib.figures import part1, part3

    scores = np.array(pure.RAW_SCORES)
    yield "two_distributions", lambda: part1.two_distributions(scores)
    yield "collapse_bars", lambda: part1.collapse_bars(scores, 4.0)
    yield "jacobian_curves", lambda: part1.jacobian_curves(
        scores, np.geomspace(0.25, 64, 20), marks=[(8.0, "$d_k = 64$, 안 나눔")])
    yield "steps_figure", lambda: part3.steps_figure(
        {"$b_k = 1$, 긴 합": ([16, 64], [1.0, 2.0])}, ([16, 64], [16.0, 64.0]))


@pytest.mark.parametrize("name, build", list(_library_figures()),
                         ids=[n for n, _ in _library_figures()])
def test_no_raw_tex_in_a_drawn_library_figure(name, build):
    matplotlib.use("Agg")
    fig = build()
    fig = getattr(fig, "fig", fig)
    assert not _raw_drawn(fig), (name, _raw_drawn(fig))
    plt.close(fig)
