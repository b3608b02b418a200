"""attnlib.pictures: a figure as the page's pictures (tiles, sizes, text, alt text)."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from PIL import Image  # noqa: E402

from attnlib import pictures, plots  # noqa: E402


def _two_panels(font=10, width=7.0):
    fig, (a, b) = plots.new_figure(width, 2.5, ncols=2)
    a.bar(["참값", "구현"], [1.5, 3.0])
    a.set_title("‖dK‖", fontsize=font)
    b.plot([0, 1, 2], [0.5, 0.25, 0.125], label="손실")
    b.set_xlabel("걸음", fontsize=font)
    b.legend(fontsize=font)
    b.tick_params(labelsize=font)
    a.tick_params(labelsize=font)
    return fig


def test_a_figure_is_one_tile_per_column_of_panels_at_two_pixels_per_css_pixel():
    pic = pictures.picture(_two_panels(), tiles=True)
    assert pic.rgba.shape[:2] == (2.5 * 180, 7.0 * 180)
    assert len(pic.tiles) == 2 and pic.edges[0] == 0 and pic.edges[-1] == 7 * 180
    assert all(e % 2 == 0 for e in pic.edges)  # whole CSS pixels
    assert sum(pic.css_size(i)[0] for i in range(2)) == 7 * 90
    assert pic.text_px(0) == pytest.approx(10 * 90 / 72)
    outs = pic.outputs("webp")
    assert [o["metadata"]["image/webp"]["tile"] for o in outs] == [[1, 2], [2, 2]]
    img = Image.open(io.BytesIO(base64.b64decode(outs[1]["data"]["image/webp"])))
    assert img.size == (2 * outs[1]["metadata"]["image/webp"]["width"], 2.5 * 180)


def test_alt_text_says_what_each_panel_plots():
    alts = pictures.picture(_two_panels(), tiles=True).alts
    assert alts[0].startswith("그림 1/2") and "참값: 1.5" in alts[0] and "구현: 3" in alts[0]
    assert "선 손실: x 0에서 2까지, y 0.5 → 0.125" in alts[1] and "가로축 걸음" in alts[1]
    one = pictures.picture(_two_panels(), tiles=False).alts
    assert len(one) == 1 and "참값" in one[0] and "손실" in one[0]


def test_a_figure_leads_with_what_to_notice():
    fig = _two_panels()
    fig.alt = ["가운데 막대가 두 배", "손실이 반씩 준다"]
    alts = pictures.picture(fig, tiles=True).alts
    assert "가운데 막대가 두 배" in alts[0] and "손실이 반씩 준다" in alts[1]


def test_text_too_small_for_a_phone_fails_in_the_book():
    pictures.check_phone(pictures.picture(_two_panels(font=8), tiles=True))  # 10 px: fine
    with pytest.raises(ValueError, match="too small on a phone"):
        pictures.check_phone(pictures.picture(_two_panels(font=6), tiles=True))
    # one wide picture of both panels: scaled to 358 px, 10 px text is about 5 px
    with pytest.raises(ValueError, match="tile 1/1: 630 CSS px"):
        pictures.check_phone(pictures.picture(_two_panels(font=8), tiles=False))


def test_mathtext_reads_as_plain_text():
    assert pictures.plain_text(r"$\Vert\partial L/\partial K\Vert$") == "‖∂L/∂K‖"
    assert pictures.plain_text(r"$q\cdot k\,/\sqrt{d_k}$") == "q·k /√d_k"
    # a power of ten alone (a log axis's tick) reads as its number, whole from 1000 up
    assert [pictures.plain_text(f"$10^{{{k}}}$") for k in (-4, 0, 3, 4)] == [
        "1.00e-04", "1", "1000", "10000"]


def test_reference_lines_say_what_they_mark_and_long_bar_lists_say_what_is_left():
    fig, ax = plots.new_figure(4, 3)
    ax.bar(range(20), range(20))
    for b in (3.5, 7.5, 11.5):
        ax.axvline(b, gid="블록 경계")
    ax.axhline(0.25, gid="꼭대기 1/4")
    ax.axvline(2)
    text = pictures.describe_axes(ax)
    assert "15: 15 … 외 4개" in text
    assert "세로선 블록 경계 3개: x = 3.5, 7.5, 11.5" in text
    assert "가로 기준선 꼭대기 1/4 y = 0.25" in text and "세로선 x = 2" in text


def test_numbers_in_alt_text_read_as_a_reader_says_them():
    assert [pictures._num(v) for v in (0.5, 22.627, 512, 1024, 4096.4, 16384, 2.5e6)] == [
        "0.5", "22.6", "512", "1024", "4096", "16384", "2.50e+06"]


class _Titles(plots.View):
    def __init__(self):
        fig, (a, b) = plots.new_figure(6.0, 2.0, ncols=2, layout=None)
        fig.subplots_adjust(left=0.08, right=0.98, wspace=0.3)
        super().__init__(fig)
        a.plot([0, 1], [0, 1])
        b.plot([0, 1], [1, 0])
        self.title = self.track(a.set_title(" ", fontsize=9, loc="left"))

    def update(self, words):
        self.title.set_text(words)


def test_a_views_tiles_keep_their_edges_and_a_title_may_not_cross_them():
    view = _Titles()
    first = pictures.picture(view(words="짧은 제목"), tiles=True)
    again = pictures.picture(view(words="조금 긴 제목"), tiles=True)
    assert again.edges == first.edges
    with pytest.raises(ValueError, match="cross the first frame's tile edges"):
        pictures.picture(view(words="아주 " * 30 + "긴 제목"), tiles=True)


def test_palette_keeps_the_white_ground():
    rgb = Image.fromarray(np.full((8, 8, 3), 255, np.uint8))
    pal = plots.quantize(rgb)
    assert pal.convert("RGB").getpixel((0, 0)) == (255, 255, 255)


def test_every_picture_stored_in_a_chapter_has_alt_text():
    """Round 4, part 2 D7: the notebook files (GitHub, Colab before running) show the stored
    pictures; each has the alt text the book's have, explorers' first frames included."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "chapters"
    missing = []
    for path in sorted(root.rglob("*.ipynb")):
        for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            for out in cell.get("outputs", []):
                for mime in ("image/png", "image/webp", "image/svg+xml"):
                    if mime in out.get("data", {}) and not out.get("metadata", {}).get(
                            mime, {}).get("alt"):
                        missing.append(f"{path.name} cell {i} ({mime})")
    assert not missing, missing
