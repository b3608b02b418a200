"""The book's configuration and the committed notebooks agree with each other.

- ``_config.yml``: Korean, strict execution, the repository URL (written once), launch
  buttons, math typeset at build time (KaTeX), no widget manager (the book's explorers are
  its own, served from its folder).
- ``_templates/``: the theme's asset macros, less fontawesome.js, still match the theme, and
  so do the copies of theme templates that only translate or drop an English label.
- ``_toc.yml``: every file it names exists and every chapter notebook is in it.
- Each notebook: the first cell installs attnlib from the URL in ``_config.yml``
  (``make notebooks`` writes it), hidden with ``remove-cell``; outputs are stored,
  widget state and widget views are not; a stored figure carries its image, not only
  its ``<Figure size …>`` text; a cell that only records ledger claims hides its source
  (tag ``hide-input``, scripts/tag_claim_cells.py) so the reader sees its check lines.
- The built book (``make book``): the Colab button, the icon fonts, the frames a page's first
  explorer carries.
"""

from __future__ import annotations

import importlib.util
import random
import re
import sys
from pathlib import Path

import book_html  # _ext/ is on the tests' path (pyproject.toml), as Sphinx loads them
import icon_fonts
import korean_search
import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def load_script(name: str):
    """scripts/<name>.py as a module (scripts/ is not a package); test_browser uses it too."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


def _toc_files(node) -> list[str]:
    files = []
    if isinstance(node, dict):
        if "file" in node:
            files.append(node["file"])
        for value in node.values():
            files += _toc_files(value)
    elif isinstance(node, list):
        for item in node:
            files += _toc_files(item)
    return files


TOC_FILES = [TOC["root"], *_toc_files(TOC.get("parts", TOC.get("chapters", [])))]
NOTEBOOKS = sorted(
    p for p in (ROOT / "chapters").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
)


def test_config_is_korean_strict_and_offline():
    assert CONFIG["language"] == "ko"
    assert CONFIG["execute"]["execute_notebooks"] == "force"
    assert CONFIG["execute"]["allow_errors"] is False
    assert CONFIG["execute"]["stderr_output"] in ("warn", "error", "severe")
    sphinx = CONFIG["sphinx"]["config"]
    assert sphinx["nb_execution_show_tb"] is True  # cell errors: warnings, fatal under -W
    assert sphinx["html_math_renderer"] == "katex"  # typeset at build time: no math script
    assert "mathjax_path" not in sphinx
    assert "math_font" in CONFIG["sphinx"]["local_extensions"]  # the formulas' font, served
    # no widget manager (MyST-NB's default loads one from a CDN): the explorers are the book's
    assert sphinx["nb_ipywidgets_js"] == {}
    assert sphinx["html_context"]["default_mode"] in ("light", "dark", "auto")
    assert CONFIG["launch_buttons"]["thebe"] is False


def test_vendored_files_exist_where_the_config_points():
    static = ROOT / CONFIG["sphinx"]["config"]["html_static_path"][0]
    if not (static / "vendor").is_dir():
        pytest.skip("JavaScript not vendored yet (make vendor)")
    for rel in ["vendor/explorer.js", "vendor/live/live.js"]:
        assert (static / rel).is_file(), rel
    # A root _static/ folder would make Jupyter Book add every .js in it to every page.
    assert not (ROOT / "_static" / "vendor").exists()


def test_asset_macros_are_the_themes_without_fontawesome_js():
    """_templates/static/webpack-macros.html drops one line of pydata-sphinx-theme's file;
    after a theme update the rest must still be the theme's."""
    import pydata_sphinx_theme

    theme = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
    theirs = (theme / "static" / "webpack-macros.html").read_text(encoding="utf-8")
    ours = (ROOT / "_templates" / "static" / "webpack-macros.html").read_text(encoding="utf-8")

    def macros(text):
        body = text[text.index("{% macro"):]
        return [line for line in body.splitlines()
                if "fontawesome.js" not in line and "add custom icons" not in line]

    assert "fontawesome.js" in theirs
    assert "scripts/fontawesome.js" not in ours
    assert macros(ours) == macros(theirs)


# The book's copies of theme templates (_templates/) change only what they say: an English
# label made translatable (_locale/), an aria-label dropped so that a button is named by its
# visible text, icons hidden from screen readers.  After a theme update the rest must still be
# the theme's.
_THEME_COPIES = {
    "search-button-field.html": ("pydata_sphinx_theme", "pydata_sphinx_theme/components"),
    "toggle-primary-sidebar.html": ("sphinx_book_theme", "sphinx_book_theme/components"),
    "toggle-secondary-sidebar.html": ("sphinx_book_theme", "sphinx_book_theme/components"),
    "sbt-sidebar-nav.html": ("sphinx_book_theme", "sphinx_book_theme/components"),
}


def _template_shape(text: str) -> str:
    text = re.sub(r"\{#.*?#\}|<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r'\s(aria-label|title|aria-hidden)="[^"]*"', "", text)
    return " ".join(text.split())


@pytest.mark.parametrize("name", sorted(_THEME_COPIES))
def test_template_copies_are_the_themes_but_for_their_words(name):
    package, folder = _THEME_COPIES[name]
    theme = Path(importlib.import_module(package).__file__).parent / "theme" / folder
    theirs = (theme / name).read_text(encoding="utf-8")
    ours = (ROOT / "_templates" / name).read_text(encoding="utf-8")
    assert _template_shape(ours) == _template_shape(theirs)


def test_layout_copy_of_the_print_toc_is_the_book_themes():
    """_templates/layout.html repeats sphinx-book-theme's docs_body (its print-only table of
    contents, then pydata's article) to translate its aria-label "Page"."""
    import sphinx_book_theme

    theme = Path(sphinx_book_theme.__file__).parent / "theme" / "sphinx_book_theme"
    theirs = (theme / "layout.html").read_text(encoding="utf-8")
    ours = (ROOT / "_templates" / "layout.html").read_text(encoding="utf-8")

    def toc(text):
        block = text[text.index('<div id="jb-print-docs-body"'):]
        return _template_shape(block[:block.index("</nav>")])

    assert 'aria-label="Page"' in theirs  # still English there: the copy is still needed
    assert toc(ours) == toc(theirs)


def test_repository_url_written_once_with_launch_buttons():
    url = CONFIG["repository"]["url"]
    assert url.startswith("https://github.com/")
    assert CONFIG["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    assert CONFIG["html"]["use_repository_button"] is True
    assert (ROOT / "_config.yml").read_text(encoding="utf-8").count(url) == 1
    # a page that quotes the book's address quotes this one (usage.md's Colab section does;
    # links to other projects' issues are links, not quoted code)
    for page in (ROOT / "README.md", ROOT / "index.md", ROOT / "chapters" / "usage.md"):
        named = set(re.findall(r"`(https://github\.com/[^`\s#]+)`", page.read_text("utf-8")))
        assert named <= {url}, f"{page.name} names {sorted(named - {url})}, not {url}"


def test_toc_names_existing_files_and_every_chapter():
    for f in TOC_FILES:
        matches = [p for p in ROOT.glob(f + ".*") if p.suffix in (".md", ".ipynb")]
        assert matches, f"_toc.yml names {f}, which does not exist"
    listed = {f + ".ipynb" for f in TOC_FILES}
    missing = [p.relative_to(ROOT).as_posix() for p in NOTEBOOKS]
    missing = [p for p in missing if p not in listed]
    assert not missing, f"notebooks not in _toc.yml (they would not be built): {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_notebook_install_cell_matches_config(path):
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0]
    expected = load_script("execute_notebooks").install_source(CONFIG["repository"]["url"])
    assert first.cell_type == "code"
    assert first.source == expected, "install cell out of date: run `make notebooks`"
    assert f"git+{CONFIG['repository']['url']}#subdirectory=lib" in first.source
    assert "remove-cell" in first.metadata.get("tags", [])
    assert not first.get("outputs"), "the install cell printed something"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_notebook_outputs_stored_without_widget_state(path):
    nb = nbformat.read(path, as_version=4)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"
    assert "widgets" not in nb.metadata, "widget state committed: run `make notebooks`"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), "not executed: `make notebooks`"
    assert any(c.outputs for c in code), "no stored outputs"
    for c in code:
        for out in c.outputs:
            assert out.output_type != "error", f"stored error output in {c.source[:60]!r}"
            assert WIDGET_VIEW not in out.get("data", {}), "widget view committed"
            if out.output_type == "stream":
                assert out.name == "stdout", f"stderr stored: {out.text[:200]!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_stored_figures_come_with_their_image(path):
    """A figure stored as its repr alone ("<Figure size 600x260 with 2 Axes>") shows the reader
    that text instead of the picture: an output naming a figure must carry its image/png."""
    nb = nbformat.read(path, as_version=4)
    bare = [
        (i, "".join(out["data"]["text/plain"])[:60])
        for i, c in enumerate(nb.cells) if c.cell_type == "code"
        for out in c.outputs
        if "".join(out.get("data", {}).get("text/plain", "")).startswith("<Figure size")
        and "image/png" not in out["data"]
    ]
    assert not bare, f"figure stored without its image (cell index, text): {bare}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_ledger_only_cells_hide_their_source(path):
    """Cells that only record claims show their check lines, not their bookkeeping."""
    missing = load_script("tag_claim_cells").untagged(nbformat.read(path, as_version=4))
    assert not missing, (f"cells {missing} only call ledger.claim: tag them hide-input "
                         "(python scripts/tag_claim_cells.py)")


@pytest.mark.parametrize(
    ("source", "strict", "loops"),
    [
        ('ledger.claim("a/b", x)\n_ = ledger.claim("a/c", [y, z])', True, True),
        ('from attnlib.ledger import claim\n\nclaim("a/b", abs(x - y))', True, True),
        ('for k, v in pairs:\n    ledger.claim(f"a/{k}", v)', False, True),
        ('x = f(y)\nledger.claim("a/b", x)', False, False),
        ('ledger.claim("a/b", x)\nprint(x)', False, False),
        ('print(ledger.below(x, 1e-9))', False, False),
        ('t = int(np.argmax(g < 1e-6))\nledger.holds("a/b", t == 11, f"{t}")', True, True),
        ('for k in ks:\n    ledger.holds(k, ok[k], "x")', True, True),
        ('t = f(x)\nprint(t)\nledger.holds("a/b", t == 11, "t")', False, False),
        ("", False, False),
    ],
)
def test_tag_claim_cells_recognises_ledger_only_cells(source, strict, loops):
    tagger = load_script("tag_claim_cells")
    assert tagger.is_claim_cell(source) is strict
    assert tagger.is_claim_cell(source, loops=True) is loops


def test_strip_joins_stream_chunks_and_drops_widget_views():
    import nbformat

    strip = load_script("execute_notebooks").strip
    cell = nbformat.v4.new_code_cell("print(1); print(2)")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="1\n"),
        nbformat.v4.new_output("stream", name="stdout", text="2\n"),
        nbformat.v4.new_output("stream", name="stderr", text="warn\n"),
        nbformat.v4.new_output("display_data", data={
            "application/vnd.jupyter.widget-view+json": {"model_id": "x"},
            "text/plain": "[탐색기]"}),
        nbformat.v4.new_output("stream", name="stdout", text="3\n"),
    ]
    nb = nbformat.v4.new_notebook(cells=[cell])
    nb.metadata["widgets"] = {"state": {}}
    strip(nb)
    outs = nb.cells[0].outputs
    assert [(o["output_type"], o.get("name")) for o in outs] == [
        ("stream", "stdout"), ("stream", "stderr"), ("display_data", None), ("stream", "stdout")]
    assert outs[0]["text"] == "1\n2\n"
    assert outs[2]["data"] == {"text/plain": "[탐색기]"}
    assert "widgets" not in nb.metadata


# ------------------------------------------------------ Colab launch buttons ----

CHAPTER_DOCS = [f for f in TOC_FILES if (ROOT / f"{f}.ipynb").is_file()]


class _SphinxConfig(dict):
    """Item and attribute access, as Sphinx's Config gives."""

    __getattr__ = dict.__getitem__


def _launch_buttons() -> dict[str, dict[str, str]]:
    """Each chapter's launch buttons ``{text: url}``, as the book build makes them.

    The Sphinx configuration comes from _config.yml through Jupyter Book's own translation
    (a ``sphinx.config`` entry can hide what ``repository`` and ``launch_buttons`` set);
    the buttons from sphinx-book-theme's own functions, called as its build events are."""
    from collections import defaultdict
    from types import SimpleNamespace

    from jupyter_book.config import get_final_config
    from sphinx_book_theme.header_buttons import update_context_with_repository_info
    from sphinx_book_theme.header_buttons.launch import add_launch_buttons

    sphinx, _ = get_final_config(user_yaml=ROOT / "_config.yml", sourcedir=ROOT,
                                 cli_config={"latex_individualpages": False})
    app = SimpleNamespace(
        builder=None,
        outdir=str(ROOT / "_build" / "html"),
        config=_SphinxConfig(html_theme_options=sphinx.get("html_theme_options", {}),
                             html_context=dict(sphinx.get("html_context", {}))),
        env=SimpleNamespace(doc2path=lambda doc: str(ROOT / f"{doc}.ipynb"),
                            metadata=defaultdict(lambda: {"kernelspec": {"name": "python3"}})),
    )
    update_context_with_repository_info(app)
    buttons = {}
    for doc in CHAPTER_DOCS:
        context = {**app.config.html_context, "pagename": doc, "sourcename": f"{doc}.ipynb",
                   "header_buttons": []}
        add_launch_buttons(app, doc, "page.html", context, None)
        buttons[doc] = {b["text"]: b["url"] for group in context["header_buttons"]
                        for b in group.get("buttons", [])}
    return buttons


def test_every_chapter_has_a_colab_button_to_its_notebook():
    url = CONFIG["repository"]["url"].rstrip("/")
    assert url.startswith("https://github.com/")
    colab = CONFIG["launch_buttons"]["colab_url"].rstrip("/")
    branch = CONFIG["repository"]["branch"]
    buttons = _launch_buttons()
    assert len(buttons) == len(NOTEBOOKS) > 0
    for doc, links in buttons.items():
        expected = f"{colab}/github/{url.removeprefix('https://github.com/')}/blob/{branch}/{doc}.ipynb"
        assert links.get("Colab") == expected, f"{doc}: {links}"
        assert (ROOT / f"{doc}.ipynb").is_file()


@pytest.mark.built
@pytest.mark.parametrize("doc", CHAPTER_DOCS)
def test_built_page_has_the_colab_button(doc):
    """In a built book (``make book``) newer than the page's sources, the button is on the page."""
    page = ROOT / "_build" / "html" / f"{doc}.html"
    sources = [ROOT / "_config.yml", ROOT / f"{doc}.ipynb"]
    if not page.is_file() or page.stat().st_mtime < max(p.stat().st_mtime for p in sources):
        pytest.skip("no built page newer than its sources (make book)")
    url = CONFIG["repository"]["url"].rstrip("/").removeprefix("https://github.com/")
    expected = (f"{CONFIG['launch_buttons']['colab_url'].rstrip('/')}/github/{url}/blob/"
                f"{CONFIG['repository']['branch']}/{doc}.ipynb")
    assert f'href="{expected}"' in page.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def katex_build(tmp_path_factory):
    """A two-formula Sphinx project built with _ext/katex_math.py: one good, one broken."""
    if not (ROOT / "node_modules" / "katex").is_dir():
        pytest.skip("katex not installed (make vendor)")
    import io

    from sphinx.application import Sphinx

    src = tmp_path_factory.mktemp("katex")
    (src / "conf.py").write_text(
        f"import sys; sys.path.insert(0, {str(ROOT / '_ext')!r})\n"
        "extensions = ['katex_math', 'math_font']\nhtml_math_renderer = 'katex'\n"
        "katex_macros = {'\\\\*': '*'}\n"
        f"math_font_source = {str(ROOT / 'node_modules/@fontsource/stix-two-math')!r}\n",
        encoding="utf-8",
    )
    (src / "index.rst").write_text(
        "Title\n=====\n\n:math:`\\alpha^\\* = \\tfrac{1}{2}\\lVert x \\rVert` and"
        " :math:`\\notamacro{x}`.\n\n.. math::\n\n"
        "   \\text{한글} \\odot \\mathsf{T} \\in \\mathbb R \\sqrt 2\n",
        encoding="utf-8",
    )
    warnings = io.StringIO()
    app = Sphinx(src, src, src / "_build", src / "_build" / ".doctrees", "html",
                 status=None, warning=warnings, freshenv=True)
    app.build()
    out = src / "_build"
    return (out / "index.html").read_text(encoding="utf-8"), warnings.getvalue(), out


def test_katex_typesets_formulas_at_build_time(katex_build):
    html, _, _ = katex_build
    assert html.count('class="katex"') == 2, "the good inline and display formulas"
    assert html.count("<math ") == 2 and "katex-html" not in html  # MathML alone
    assert '<span class="katex-display" tabindex="0"' in html and 'display="block"' in html
    assert "mathjax" not in html.lower()
    # \mathsf T and \mathbb R as the letters MathML Core draws, the TeX kept in <annotation>
    assert "<mi>\U0001d5b3</mi>" in html and "<mi>\u211d</mi>" in html
    assert "mathvariant=\"sans-serif\"" not in html and "\\mathsf{T}" in html


def test_the_math_font_is_cut_to_the_formulas(katex_build):
    from fontTools.ttLib import TTFont

    _, warnings, out = katex_build
    static = out / "_static"
    font = TTFont(static / "vendor" / "math" / "book-math.woff2")
    cmap = font.getBestCmap()
    assert "MATH" in font  # what the browser lays formulas out with
    for c in "\U0001d6fc\u2299\U0001d5b3\u211d\U0001d465=\u221a":  # 𝛼 ⊙ 𝖳 ℝ 𝑥 = √
        assert ord(c) in cmap, hex(ord(c))
    assert ord("\ud55c") not in cmap and "math_font" not in warnings  # 한: the page's faces
    assert len(cmap) < 60, len(cmap)  # the subset, not the 4,600 characters of the font
    css = (static / "book-math.css").read_text(encoding="utf-8")
    assert re.search(r'url\("vendor/math/book-math\.woff2\?v=[0-9a-f]{12}"\)', css), css
    assert "Open Font License" in (static / "vendor/math/LICENSE").read_text(encoding="utf-8")


def test_a_formula_katex_rejects_is_a_build_warning(katex_build):
    html, warnings, _ = katex_build
    assert "KaTeX cannot typeset" in warnings and "notamacro" in warnings, warnings
    assert "index.rst" in warnings  # with the formula's source location
    assert 'class="katex-error"' in html


def test_page_sizes_counts_the_fonts_a_page_uses_and_fails_over_budget(tmp_path, capsys):
    """scripts/page_sizes.py (`make book`'s table): a font face counts when a rule the
    page's classes select names it; a page over its budget fails the build."""
    sizes = load_script("page_sizes")
    (tmp_path / "f").mkdir()
    for name in ("icons-900", "icons-400", "math-regular", "math-bold", "unused", "mathml"):
        (tmp_path / "f" / f"{name}.woff2").write_bytes(bytes(range(256)) * 40)
    (tmp_path / "site.css").write_text(
        '@font-face{font-family:Icons;font-weight:900;src:url(f/icons-900.woff2) format("woff2")}'
        '@font-face{font-family:Icons;font-weight:400;src:url(f/icons-400.woff2)}'
        "@font-face{font-family:Math;src:url(f/math-regular.woff2)}"
        "@font-face{font-family:Math;font-weight:bold;src:url(f/math-bold.woff2)}"
        "@font-face{font-family:Unused;src:url(f/unused.woff2)}"
        ".icon-solid{font-weight:900}.icon-solid,.icon-regular{font-family:Icons}"
        "@media (min-width:10px){.math{font:normal 1.2em Math,serif}}"
        ".math .bold{font-weight:700}.nowhere{font-family:Unused}"
        "@font-face{font-family:MathML;src:url(f/mathml.woff2)}math mtext,math{font-family:MathML}",
        encoding="utf-8",
    )
    (tmp_path / "page.html").write_text(
        '<link rel="stylesheet" href="site.css"><i class="icon-solid"></i>'
        '<span class="math">x</span><a href="f/unused.woff2">not loaded</a>',
        encoding="utf-8",
    )
    loads, widgets = sizes.page_loads(tmp_path, tmp_path / "page.html")
    names = sorted(p.name for p in loads)
    assert names == ["icons-900.woff2", "math-regular.woff2", "page.html", "site.css"]
    assert not widgets
    # an element selector (book.css's `math {…}`) counts only where the page has the element
    (tmp_path / "formula.html").write_text(
        '<link rel="stylesheet" href="site.css"><p class="math"><math><mi>x</mi></math></p>',
        encoding="utf-8")
    loads, _ = sizes.page_loads(tmp_path, tmp_path / "formula.html")
    assert "mathml.woff2" in {p.name for p in loads}

    big = tmp_path / "big.html"
    noise = random.Random(0).randbytes(700_000)  # gzip cannot shrink it below 0.6 MB
    big.write_bytes(b'<script type="application/vnd.attnlib.explorer+json"></script>' + noise)
    assert sizes.main([str(tmp_path)]) == 1
    assert "big.html" in capsys.readouterr().err


def test_theme_tab_stop_pass_is_removed_or_the_build_fails(tmp_path):
    """_ext/book_html.py takes the theme's whole-page tab-stop pass out of the installed
    theme's own script (book.js does that job), and stops the build when that script changed."""
    import types

    import pydata_sphinx_theme
    from sphinx.errors import ExtensionError

    theme_js = (Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
                / "static" / "scripts" / "pydata-sphinx-theme.js")
    out = tmp_path.joinpath(*book_html._THEME_JS)
    out.parent.mkdir(parents=True)
    out.write_text(theme_js.read_text(encoding="utf-8"), encoding="utf-8")
    app = types.SimpleNamespace(outdir=str(tmp_path), builder=types.SimpleNamespace(format="html"))
    book_html._theme_tab_stops(app, None)
    patched = out.read_text(encoding="utf-8")
    assert book_html.THEME_TAB_STOPS_REMOVED in patched
    assert 'addEventListener("load",I)' not in patched
    book_html._theme_tab_stops(app, None)  # a second build leaves it as it is
    assert out.read_text(encoding="utf-8") == patched
    out.write_text("(()=>{})();", encoding="utf-8")  # a theme whose code changed
    with pytest.raises(ExtensionError, match="tab-stop call changed"):
        book_html._theme_tab_stops(app, None)


def test_pages_without_sphinx_design_components_load_none_of_its_files():
    """_ext/book_html.py drops sphinx-design's stylesheet and tab script from a page whose body
    uses none of its components (classes ``sd-…``), and keeps them where one does."""
    from sphinx.builders.html._assets import _CascadingStyleSheet, _JavaScript

    def page(body):
        context = {"body": body,
                   "css_files": [_CascadingStyleSheet("_static/sphinx-design.min.css?v=1"),
                                 _CascadingStyleSheet("_static/book.css")],
                   "script_files": [_JavaScript("_static/design-tabs.js?v=2", defer="defer"),
                                    _JavaScript("_static/book.js")]}
        book_html._unused_design(None, "p", "page.html", context, None)
        return [f.filename for f in context["css_files"] + context["script_files"]]

    assert page('<p class="psd-note">x</p>') == ["_static/book.css", "_static/book.js"]
    assert len(page('<div class="sd-card sd-shadow-sm">x</div>')) == 4
    assert len(page('<div class="docutils sd-tab-set">x</div>')) == 4


def test_no_page_loads_sphinx_thebe():
    """The book's launch button for Thebe is off (its live mode is its own): _ext/book_html.py
    drops sphinx-thebe's stylesheet, script and inline configuration from every page, and
    keeps every other file and inline script."""
    from sphinx.builders.html._assets import _CascadingStyleSheet, _JavaScript

    assert CONFIG["launch_buttons"]["thebe"] is False
    context = {"body": "<p>x</p>",
               "css_files": [_CascadingStyleSheet("_static/sphinx-thebe.css?v=1"),
                             _CascadingStyleSheet("_static/book.css")],
               "script_files": [_JavaScript(None, body='const THEBE_JS_URL = "https://x"'),
                                _JavaScript("_static/sphinx-thebe.js?v=2", **{"async": "async"}),
                                _JavaScript(None, body="let toggleHintShow = 'x';"),
                                _JavaScript("_static/book.js")]}
    book_html._unused_thebe(None, "p", "page.html", context, None)
    assert [f.filename for f in context["css_files"]] == ["_static/book.css"]
    assert [f.filename or f.attributes["body"] for f in context["script_files"]] == [
        "let toggleHintShow = 'x';", "_static/book.js"]
    html = ROOT / "_build" / "html"
    if not (html / "index.html").is_file():
        return
    for page in sorted(html.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        assert "sphinx-thebe" not in text and "THEBE_JS_URL" not in text, page.name


def test_icon_rules_read_class_icons_and_other_icons():
    """_ext/icon_fonts.py reads `.fa-NAME:before{content:"\\fXXX"}` as an icon a class names,
    and a private-use code point in any other rule (written escaped or as the character) as
    one the stylesheet shows by itself; ordinary escapes ("\\201C") are no icons."""
    css = ('.fa-bars:before,.fa-navicon:before{content:"\\f0c9"}.fa-github:before{content:"\\f09b"}'
           'html{--pst-icon-bell:"\uf0f3"}.q:before{content:"\\201C"}.x:after{content:"\\e163"}')
    icons, other = icon_fonts._icon_rules(css)
    assert icons == {"bars": {0xF0C9}, "navicon": {0xF0C9}, "github": {0xF09B}}
    assert other == {0xF0F3, 0xE163}


def test_icon_rules_of_icons_the_book_does_not_show_are_pruned():
    """_ext/icon_fonts.py drops a rule whose every selector is an icon outside the names the
    book writes, in @media blocks too, and keeps every other rule exactly as written."""
    css = ('@charset "UTF-8";.fa-bars:before,.fa-navicon:before{content:"\\f0c9"}'
           '.fa-github:before{content:"\\f09b"}.fa-500px:before{content:"\\f26e"}'
           '.fa-github,.x{color:red}@media (min-width:10px){.fa-zap:before{content:"\\e000"}'
           '.y{color:blue}}.fa-rotate-90{transform:rotate(90deg)}')
    got = icon_fonts.prune_icon_rules(css, {"bars", "rotate-90"})
    assert got == ('@charset "UTF-8";.fa-bars:before,.fa-navicon:before{content:"\\f0c9"}'
                   '.fa-github,.x{color:red}@media (min-width:10px){.y{color:blue}}'
                   '.fa-rotate-90{transform:rotate(90deg)}')
    assert icon_fonts.prune_icon_rules(got, {"bars", "rotate-90"}) == got


@pytest.mark.built
def test_icon_fonts_keep_every_icon_the_pages_name(tmp_path):
    """In the built book each icon font holds the glyph of every `fa-*` class any page or
    served script names (found here by another route: the classes in the HTML and the
    theme's own rules), and is far smaller than the theme's."""
    from fontTools.ttLib import TTFont

    html = ROOT / "_build" / "html"
    folder = html / "_static" / "vendor" / "fontawesome" / "webfonts"
    if not folder.is_dir():
        pytest.skip("no built book (make book)")
    # the stylesheet the pages link: the theme's and the others', joined (_ext/css_bundle.py)
    bundles = sorted((html / "_static").glob("bundle-*.css"))
    assert bundles, "no joined stylesheet in _static/"
    css = "\n".join(b.read_text(encoding="utf-8") for b in bundles)
    rule = re.compile(r'\.fa-([a-z0-9-]+):before\{content:"\\([0-9a-f]{4})"\}')
    mapping = {name: int(code, 16) for name, code in rule.findall(css)}
    named = set()
    for page in html.rglob("*.html"):
        named |= set(re.findall(r'class="[^"]*\bfa-([a-z0-9-]+)', page.read_text(encoding="utf-8")))
    wanted = {mapping[n] for n in named if n in mapping}
    assert len(wanted) >= 10, wanted
    cmaps = {}
    for font in folder.glob("*.woff2"):
        cmaps[font.name] = set(TTFont(str(font)).getBestCmap())
        assert font.stat().st_size < 20_000, f"{font.name} not subset"
    have = set().union(*cmaps.values())
    missing = sorted(hex(c) for c in wanted - have)
    assert not missing, f"icons the pages name but no font draws: {missing}"
    # the served stylesheet keeps the rule of every icon a page names and few others
    import pydata_sphinx_theme

    theme_css = next(Path(pydata_sphinx_theme.__file__).parent.rglob("pydata-sphinx-theme.css"))
    theirs = set(rule.findall(theme_css.read_text(encoding="utf-8")))
    ours = set(rule.findall(css))
    assert len(theirs) > 1000 and len(ours) < 100, (len(theirs), len(ours))
    lost = sorted(n for n, _ in theirs if n in named and n not in mapping)
    assert not lost, f"icon rules pruned although a page names them: {lost}"


def test_search_index_cuts_korean_particles():
    """_ext/korean_search.py indexes a Korean word without the particle that follows it and
    keeps a compound the analyser splits whole; other words are Sphinx's English ones."""
    words = korean_search.korean_split("야코비안은 마스크가 기울기로 드롭아웃의 분산이 역전파를 "
                                       "엔트로피와 블록에서 softmax의 LayerNorm은 d_k가 dQ를 "
                                       "행렬곱이다.")
    stems = ["야코비안", "마스크", "기울기", "드롭아웃", "분산", "역전파", "엔트로피", "블록",
             "softmax", "LayerNorm", "d_k", "dQ", "행렬곱"]
    assert [w for w in words if w in stems] == stems
    assert "야코비안은" in words  # the whole word too
    lang = korean_search.SearchKorean({})
    assert lang.stem("야코비안") == "야코비안" and lang.stem("attention") == "attent"


@pytest.mark.built
def test_a_pages_first_explorer_carries_its_first_moves():
    """In the built book each page's first explorer carries, right after its data, the frames
    of explorer_page.first_moves (as their files hold them), and no other explorer carries
    any (_ext/explorers.py)."""
    import json

    from attnlib import explorer_page

    html = ROOT / "_build" / "html"
    frames = html / "_static" / "frames"
    if not frames.is_dir():
        pytest.skip("no built book (make book)")
    data = re.compile(r'<script type="application/vnd\.attnlib\.explorer\+json">(.*?)</script>'
                      r'(<script type="application/vnd\.attnlib\.first-moves\+json">(.*?)'
                      r"</script>)?", re.S)
    pages = 0
    for page in sorted(html.rglob("*.html")):
        found = data.findall(page.read_text(encoding="utf-8"))
        if not found:
            continue
        pages += 1
        (first, carried, moves), rest = found[0], found[1:]
        assert carried, f"{page.name}: its first explorer carries no frames"
        expected = explorer_page.first_moves(json.loads(first))
        got = json.loads(moves)
        assert list(got) == expected, f"{page.name}: carries {list(got)}, not {expected}"
        for name in expected:
            body = json.loads(explorer_page.read_frame(frames, name))
            assert got[name] == body, f"{page.name}: frame {name} differs from its file"
        assert not any(c for _, c, _ in rest), f"{page.name}: a later explorer carries frames"
    assert pages >= 10, f"only {pages} built pages with explorers"


def test_explorer_script_runs_right_before_a_pages_first_explorer():
    """A page with explorers loads vendor/explorer.js once, as a classic script placed before
    its first explorer (run by the parser there, so each explorer is wired as it is parsed:
    _ext/explorers.py); a page without explorers loads none of it."""
    html = ROOT / "_build" / "html"
    if not (html / "_static" / "frames").is_dir():
        pytest.skip("no built book (make book)")
    tag = re.compile(r"<script\b([^>]*)\bsrc=\"([^\"]*_static/vendor/explorer\.js)"
                     r"(\?v=[0-9a-f]+)?\"([^>]*)>")
    pages = 0
    for page in sorted(html.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        first = text.find('<div class="attn-explorer"')
        found = list(tag.finditer(text))
        if first < 0:
            assert not found, f"{page.name}: loads the explorer script but has no explorer"
            continue
        pages += 1
        assert len(found) == 1, f"{page.name}: the explorer script {len(found)} times"
        m = found[0]
        attrs = m.group(1) + m.group(4)
        assert not re.search(r"\b(async|defer|type)\b", attrs), f"{page.name}: {m.group(0)}"
        assert m.group(3), f"{page.name}: the explorer script's URL has no version"
        assert text[m.end():first] == "</script>", \
            f"{page.name}: something stands between the explorer script and its first explorer"
        assert (page.parent / m.group(2)).resolve().is_file(), f"{page.name}: {m.group(2)}"
    assert pages >= 10, f"only {pages} built pages with explorers"
