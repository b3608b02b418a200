"""Part III explorer views: a frame reached by any path draws the same pixels, and the
printed line carries the backend's numbers."""

import re

import numpy as np
import pytest

from attnlib import numpy as A
from attnlib.figures import part3 as figures
from attnlib.numpy import block_grid


@pytest.fixture(scope="module")
def online():
    rng = np.random.default_rng(0)
    q = rng.standard_normal((1, 8))  # (1, d_k)
    K = 1.5 * rng.standard_normal((24, 8))  # (m, d_k)
    V = rng.standard_normal((24, 2))  # (m, d_v)
    by_score = np.argsort(A.scores(q, K)[0])
    orders = {"given": np.arange(24), "up": by_score, "down": by_score[::-1]}
    return q, K, V, orders


@pytest.fixture(scope="module")
def blocks():
    Q, K, V, G = np.random.default_rng(1).standard_normal((4, 32, 8))  # each (32, 8)
    masks = {"causal": np.tril(np.ones((32, 32), dtype=bool)), "none": None}
    return Q, K, V, G, masks


def _same_after_detour(make, x0, x1, x2):
    v1, v2 = make(), make()
    for x in (x0, x1, x2):
        a = v1(**x).rgba(90).copy()
    for x in (x0, x2):
        b = v2(**x).rgba(90).copy()
    assert np.array_equal(a, b)


def test_online_step_view_no_stale_pixels(online):
    q, K, V, orders = online
    make = lambda: figures.OnlineStepView(q, K, V, orders, block_k=4)  # noqa: E731
    _same_after_detour(make, dict(step=1, order="given"), dict(step=3, order="up"),
                       dict(step=6, order="down"))
    _same_after_detour(make, dict(step=2, order="down"), dict(step=6, order="given"),
                       dict(step=2, order="up"))


def test_online_step_view_text_matches_backend(online):
    q, K, V, orders = online
    view = figures.OnlineStepView(q, K, V, orders, block_k=4)
    number = r"([+-]?\d+\.\d+)"
    for name, idx in orders.items():
        steps = A.attention_blockwise_steps(q, K[idx], V[idx], block_k=4)
        for k in range(len(steps.stop)):
            view(step=k + 1, order=name)
            s_max, rescale, ell, o0, o1 = map(float, re.findall(number, view.text))
            assert view.text.startswith(f"블록 {k + 1}/6 (키 {4 * k}–{4 * k + 3}): s_max = ")
            assert s_max == pytest.approx(float(steps.s_max[k, 0]), abs=5e-4)
            assert ell == pytest.approx(float(steps.l[k, 0]), abs=5e-4)
            expected = np.exp(steps.s_max[k - 1, 0] - steps.s_max[k, 0]) if k else 0.0
            assert rescale == pytest.approx(float(expected), abs=5e-4)
            # O^(k) is the attention over the keys seen so far
            O_seen, _ = A.attention(q, K[idx][: 4 * (k + 1)], V[idx][: 4 * (k + 1)])
            assert (o0, o1) == pytest.approx(tuple(O_seen[0]), abs=5e-4)


def test_block_size_view_no_stale_pixels(blocks):
    Q, K, V, G, masks = blocks
    make = lambda: figures.BlockSizeView(Q, K, V, G, masks)  # noqa: E731
    _same_after_detour(make, dict(block=8, mask="causal"), dict(block=3, mask="none"),
                       dict(block=5, mask="causal"))
    _same_after_detour(make, dict(block=32, mask="none"), dict(block=3, mask="causal"),
                       dict(block=8, mask="none"))


def test_block_size_view_text_matches_backend(blocks):
    Q, K, V, G, masks = blocks
    view = figures.BlockSizeView(Q, K, V, G, masks)
    for name, mask in masks.items():
        for b in (3, 5, 8, 32):
            grid = block_grid(32, 32, block_q=b, block_k=b, mask=mask)
            view(block=b, mask=name)
            assert view.text == (
                f"블록 {b}×{b}: 블록 {grid.size}개 중 {int((grid == 0).sum())}개 건너뜀, "
                f"임시 배열 하나 {b * b}개 (P 전체 1024개의 {b * b / 1024:.1%}), "
                f"attention_backward 와 최대 차이 < 1e-12: True")
            assert [t.get_text() for t in view.counts] == [
                str(int((grid == v).sum())) for v in (2, 1, 0)]
