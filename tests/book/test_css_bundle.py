"""A page's stylesheets served as one file (``_ext/css_bundle.py``, issue 33).

The joined file holds the page's stylesheets in the page's order with their ``@import``s in
place, and every relative ``url()`` still reaches the file it named; the page links it alone;
a link that joining would change (``media``, an outside address, a ``<style>`` among them) stops
the build; a second build, or one that rewrote only some pages, joins the current files.
"""

from __future__ import annotations

import importlib.util
import posixpath
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"


def _module():
    spec = importlib.util.spec_from_file_location("css_bundle", ROOT / "_ext" / "css_bundle.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


css_bundle = _module()


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
    (static / "styles" / "odd.css").write_text("@import url(../basic.css) screen;",
                                               encoding="utf-8")
    with pytest.raises(ValueError, match="an @import this extension cannot read"):
        css_bundle.join(static, ["styles/odd.css"])
    with pytest.raises(ValueError, match="not found: _static/none.css"):
        css_bundle.join(static, ["none.css"])


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


@pytest.mark.parametrize("links, why", [
    ('<link rel="stylesheet" href="_static/basic.css" media="print" />\n', "cannot be joined"),
    ('<link rel="stylesheet" href="https://cdn.example.org/x.css" />\n', "cannot be joined"),
    ('<link rel="stylesheet" href="_static/basic.css" />\n<style>p{}</style>\n'
     '<link rel="stylesheet" href="_static/styles/main.css" />\n', "<style> between"),
])
def test_a_link_that_joining_would_change_stops_the_build(tmp_path, links, why):
    _site(tmp_path)
    (tmp_path / "index.html").write_text(_page(links), encoding="utf-8")
    with pytest.raises(ValueError, match=why):
        css_bundle.bundle_css(tmp_path)


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
    for target, sources in seen.items():
        assert sources[:2] == ["styles/theme.css", "styles/pydata-sphinx-theme.css"], sources
        assert sources[-2:] == ["book.css", "ledger.css"], sources
        assert any(s.endswith("katex.min.css") for s in sources), sources
        text = (HTML / target).read_text(encoding="utf-8")
        assert text == css_bundle.join(HTML / "_static", sources), target
        assert "@import" not in text, target
        for url in set(re.findall(r'url\(["\']?([^)"\']+)["\']?\)', text)):
            if re.match(r"(data:|https?:|#)", url):
                continue
            assert (HTML / "_static" / url).is_file(), f"{target}: url({url}) names no file"
