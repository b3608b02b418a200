"""A page's stylesheets served as one file (``_ext/css_bundle.py``, issue 33).

The joined file holds the page's stylesheets in the page's order with their ``@import``s in
place, and every relative ``url()`` still reaches the file it named; the page links it alone;
a link that joining would change (``media``, an outside address, a ``<style>`` among them) stops
the build; a second build, or one that rewrote only some pages, joins the current files.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

import css_bundle  # _ext/ is on the tests' path (pyproject.toml)
import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"


def _page(links: str) -> str:
    return (f"<html><head>\n<meta charset=\"utf-8\" />\n{links}<script>x()</script>\n</head>"
            "<body><p>text</p></body></html>")


def _site(tmp_path: Path) -> Path:
    static = tmp_path / "_static"
    (static / "styles").mkdir(parents=True)
    (static / "vendor" / "k").mkdir(parents=True)
    (static / "basic.css").write_text("div.a{background:url(file.png)}", encoding="utf-8")
    (static / "styles" / "theme.css").write_text('@import "../basic.css";\n', encoding="utf-8")
    (static / "styles" / "main.css").write_text(
        "@font-face{src:url('../vendor/k/f.woff2')}p{background:url(data:image/png;base64,AA)}"
        ".b{background:url(https://example.org/x.png)}", encoding="utf-8")
    (static / "vendor" / "k" / "k.css").write_text('.k{src:url("fonts/m.woff2")}', encoding="utf-8")
    return static


LINKS = ('<link href="{up}_static/styles/theme.css?digest=1" rel="stylesheet" />\n'
         '<link href="{up}_static/styles/main.css?digest=1" rel="stylesheet" />\n'
         '    <link rel="stylesheet" type="text/css" href="{up}_static/vendor/k/k.css?v=2" />\n')


def test_join_inlines_imports_and_keeps_every_url_pointing_where_it_did(tmp_path):
    static = _site(tmp_path)
    got = css_bundle.join(static, ["styles/theme.css", "styles/main.css", "vendor/k/k.css"])
    assert got == ("div.a{background:url(file.png)}\n\n"  # basic.css in place of its @import
                   "@font-face{src:url('vendor/k/f.woff2')}"
                   "p{background:url(data:image/png;base64,AA)}"
                   ".b{background:url(https://example.org/x.png)}\n"
                   '.k{src:url("vendor/k/fonts/m.woff2")}')


def test_join_reads_urls_strings_and_comments_as_a_browser_does(tmp_path):
    static = _site(tmp_path)
    (static / "styles" / "outer.css").write_text(
        '@charset "utf-8";\n@import url("inner/mid.css");\n'
        "/* @import \"old.css\"; url(in-a-comment.png) */\n"
        ".c{content:\"url(not-a-url.png)\";background:URL(up.png)}\n"
        ".d{background:url(\"data:image/svg+xml,<svg fill='url(%23g)'>)</svg>\")}\n"
        ".e{background:url(#frag) url(/abs.png) url(//host/x.png) url('../../above.png')}\n"
        "/*# sourceMappingURL=outer.css.map*/", encoding="utf-8")
    (static / "styles" / "inner").mkdir()
    (static / "styles" / "inner" / "mid.css").write_text(
        '@import "deep.css";\n.m{background:url(m.png)}', encoding="utf-8")
    (static / "styles" / "inner" / "deep.css").write_text(".z{background:url(../z.png)}",
                                                           encoding="utf-8")
    got = css_bundle.join(static, ["styles/outer.css"])
    assert got == ('@charset "utf-8";\n'
                   ".z{background:url(styles/z.png)}\n.m{background:url(styles/inner/m.png)}\n"
                   "/* @import \"old.css\"; url(in-a-comment.png) */\n"
                   ".c{content:\"url(not-a-url.png)\";background:url(styles/up.png)}\n"
                   ".d{background:url(\"data:image/svg+xml,<svg fill='url(%23g)'>)</svg>\")}\n"
                   ".e{background:url(#frag) url(/abs.png) url(//host/x.png) url('../above.png')}"
                   "\n")


@pytest.mark.parametrize("css, why", [
    ("@import url(../basic.css) screen;", "cannot be joined here: '@import'"),
    ('@import "https://fonts.example/x.css";', "an @import that cannot be inlined"),
    ('@import "/etc/hostname";', "an @import that cannot be inlined"),
    ('p{color:red}\n@import "../basic.css";', "an @import that cannot be inlined"),
    ('@import "../../../outside.css";', "a stylesheet outside _static/"),
    ('@import "odd.css";', "imports itself: styles/odd.css -> styles/odd.css"),
    ('@import "none.css";', "not found: _static/styles/none.css"),
    ('@namespace svg url(http://www.w3.org/2000/svg);', "cannot be joined here: '@namespace'"),
    (".i{background:image-set(\"a.png\" 1x)}", "cannot be joined here: 'image-set('"),
    ("p{color:red", "braces do not close"),
    ("p{color:red} /* not closed", "cannot be joined here: '/*'"),
])
def test_join_stops_where_joining_would_change_a_rule(tmp_path, css, why):
    static = _site(tmp_path)
    (static / "styles" / "odd.css").write_text(css, encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(why)):
        css_bundle.join(static, ["styles/odd.css"])


def test_each_page_links_one_joined_file_and_a_later_build_joins_the_current_files(tmp_path):
    static = _site(tmp_path)
    (tmp_path / "a").mkdir()
    top, deep = tmp_path / "index.html", tmp_path / "a" / "page.html"
    top.write_text(_page(LINKS.format(up="")), encoding="utf-8")
    deep.write_text(_page(LINKS.format(up="../")), encoding="utf-8")
    bundles = css_bundle.bundle_css(tmp_path)
    assert list(bundles.values()) == [["styles/theme.css", "styles/main.css", "vendor/k/k.css"]]
    name = next(iter(bundles))
    for page, up in ((top, ""), (deep, "../")):
        text = page.read_text(encoding="utf-8")
        links = re.findall(r'<link rel="stylesheet" href="([^"?]+)\?v=[0-9a-f]{8}"', text)
        assert links == [f"{up}_static/{name}"], text
        assert text.count('rel="stylesheet"') == 1
        assert "<p>text</p>" in text and "<script>x()</script>" in text
    joined = (static / name).read_text(encoding="utf-8")
    assert joined == css_bundle.join(static, bundles[name])
    before = deep.read_text(encoding="utf-8")
    css_bundle.bundle_css(tmp_path)  # a second build with nothing changed
    assert deep.read_text(encoding="utf-8") == before
    # an incremental build: a stylesheet changed, one page rewritten, the other left joined
    (static / "vendor" / "k" / "k.css").write_text(".k{color:red}", encoding="utf-8")
    top.write_text(_page(LINKS.format(up="")), encoding="utf-8")
    css_bundle.bundle_css(tmp_path)
    assert (static / name).read_text(encoding="utf-8").endswith(".k{color:red}")
    after = deep.read_text(encoding="utf-8")
    assert after != before and after.count('rel="stylesheet"') == 1
    version = re.compile(r"\?v=([0-9a-f]{8})")
    assert version.findall(after) == version.findall(top.read_text(encoding="utf-8"))
    # every page now links other stylesheets: the joined file no page links any more is gone
    for page, up in ((top, ""), (deep, "../")):
        page.write_text(_page(f'<link rel="stylesheet" href="{up}_static/basic.css" />\n'),
                        encoding="utf-8")
    assert list(css_bundle.bundle_css(tmp_path).values()) == [["basic.css"]]
    assert [p.name for p in static.glob("bundle-*.css")] == [css_bundle._name(["basic.css"])]


@pytest.mark.parametrize("links, why", [
    ('<link rel="stylesheet" href="_static/basic.css" media="print" />\n', "(its media)"),
    ("<link rel='stylesheet' href='_static/basic.css' media=print>\n", "(its media)"),
    ('<LINK REL="Stylesheet" HREF="_static/basic.css" disabled>\n', "(its disabled)"),
    ('<link rel="stylesheet" href="_static/basic.css" title="Alt" />\n', "(its title)"),
    ('<link rel="stylesheet" href="https://cdn.example.org/x.css" />\n', "not a file of"),
    ('<noscript><link rel="stylesheet" href="_static/basic.css"></noscript>\n', "<noscript>"),
    ('<link rel="stylesheet" href="_static/basic.css" />\n<style>p{}</style>\n'
     '<link rel="stylesheet" href="_static/styles/main.css" />\n', "<style> between"),
])
def test_a_link_that_joining_would_change_stops_the_build(tmp_path, links, why):
    _site(tmp_path)
    (tmp_path / "index.html").write_text(_page(links), encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(why)):
        css_bundle.bundle_css(tmp_path)


def test_links_in_any_spelling_are_joined_and_commented_ones_left_alone(tmp_path):
    static = _site(tmp_path)
    links = ('<!-- <link rel="stylesheet" href="_static/gone.css" /> -->\n'
             '<link rel="preload" href="_static/f.woff2" as="font" data-rel="stylesheet" />\n'
             "<LINK REL='stylesheet' HREF='_static/styles/main.css'>\n"
             '<link type="text/css" href=_static/vendor/k/k.css rel="alternate stylesheet">\n')
    page = tmp_path / "index.html"
    page.write_text(_page(links), encoding="utf-8")
    (static / "_static").mkdir()  # a page the book serves as it is: left alone
    (static / "_static" / "raw.html").write_text(_page(links), encoding="utf-8")
    assert list(css_bundle.bundle_css(tmp_path).values()) == [["styles/main.css",
                                                                "vendor/k/k.css"]]
    text = page.read_text(encoding="utf-8")
    assert '<!-- <link rel="stylesheet" href="_static/gone.css" /> -->' in text
    assert 'data-rel="stylesheet"' in text
    assert len(re.findall(r'<link rel="stylesheet"', text)) == 2  # the comment's and ours
    assert "LINK" not in text and "k.css rel" not in text
    assert (static / "_static" / "raw.html").read_text(encoding="utf-8") == _page(links)


def test_the_build_hook_stops_the_build_with_the_pages_name(tmp_path):
    import types

    from sphinx.errors import ExtensionError

    _site(tmp_path)
    (tmp_path / "index.html").write_text(
        _page('<link rel="stylesheet" href="_static/none.css" />\n'), encoding="utf-8")
    app = types.SimpleNamespace(outdir=str(tmp_path), builder=types.SimpleNamespace(format="html"))
    with pytest.raises(ExtensionError, match=r"css_bundle: index.html: stylesheet not found"):
        css_bundle._bundle(app, None)
    app.builder.format = "latex"  # another builder: nothing to join
    css_bundle._bundle(app, None)
    css_bundle._bundle(types.SimpleNamespace(builder=None), RuntimeError("failed build"))


@pytest.mark.built
def test_every_built_page_links_one_stylesheet_that_joins_the_themes_and_the_books():
    """Every page of the built book links one stylesheet: its sources, in the theme's order
    (the themes' first, the book's last), joined as they are now; every local url() in it
    names a file the book serves."""
    if not (HTML / "index.html").is_file():
        pytest.skip("no built book (make book)")
    link = re.compile(r'<link\b[^>]*\brel="stylesheet"[^>]*>')
    seen: dict[str, list[str]] = {}
    pages = 0
    for page in sorted(HTML.rglob("*.html")):
        rel = page.relative_to(HTML).as_posix()
        if rel.startswith("_static/"):
            continue
        head = page.read_text(encoding="utf-8").split("</head>")[0]
        found = link.findall(head)
        assert len(found) == 1, f"{rel}: {len(found)} stylesheet links"
        href = re.search(r'href="([^"?]+)\?v=[0-9a-f]{8}"', found[0]).group(1)
        sources = re.search(r'data-bundle="([^"]+)"', found[0]).group(1).split()
        target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), href))
        assert target.startswith("_static/bundle-"), f"{rel}: {href}"
        seen.setdefault(target, sources)
        pages += 1
    assert pages >= 20, pages
    assert sorted(p.name for p in (HTML / "_static").glob("bundle-*.css")) == sorted(
        posixpath.basename(t) for t in seen), "a joined stylesheet no page links"
    for target, sources in seen.items():
        assert sources[:2] == ["styles/theme.css", "styles/pydata-sphinx-theme.css"], sources
        assert sources[-2:] == ["book.css", "ledger.css"], sources
        assert "book-math.css" in sources, sources  # the math font's @font-face
        text = (HTML / target).read_text(encoding="utf-8")
        assert text == css_bundle.join(HTML / "_static", sources), target
        assert "@import" not in text, target
        for url in set(re.findall(r'url\(["\']?([^)"\']+)["\']?\)', text)):
            if re.match(r"(data:|https?:|#)", url):
                continue
            path = HTML / "_static" / url.split("?")[0]
            assert path.is_file(), f"{target}: url({url}) names no file"
