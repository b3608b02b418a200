"""The benchmark suite at toy sizes, so that its code paths cannot rot (no timing asserts)."""

import json
import pickle
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import pytest
from conftest import to_np

from attnlib import measure

ROOT = Path(__file__).resolve().parents[2]


def test_peak_and_kept_bytes_see_numpy_allocations():
    _, peak = measure.peak_extra_bytes(lambda: np.ones(100_000).sum())  # 800 kB made, then freed
    assert 800_000 <= peak < 900_000
    kept_array, kept = measure.kept_bytes(lambda: np.ones(50_000))
    assert 400_000 <= kept < 450_000 and kept_array.size == 50_000


def test_growth_exponent_recovers_a_power_law():
    xs = [16, 32, 64, 128]
    assert measure.growth_exponent(xs, [3.0 * x**2 for x in xs]) == pytest.approx(2.0)
    assert measure.growth_exponent(xs, [0.5 * x for x in xs]) == pytest.approx(1.0)


def test_race_interleaves_and_records_every_round():
    calls = []
    times = measure.race({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")},
                      rounds=3, warmup=1)
    assert [len(t) for t in times.values()] == [3, 3]
    assert calls == ["a", "b", "a", "b", "b", "a", "a", "b"]  # warm-up, then rotating order


def test_saved_bytes_counts_what_autograd_keeps():
    torch = pytest.importorskip("torch")
    q = torch.randn(8, 4, dtype=torch.float64, requires_grad=True)
    _, saved = measure.saved_bytes(lambda: torch.softmax(q @ q.T, dim=-1), (q,))
    assert saved == 8 * 8 * 8  # softmax keeps its output P; q itself is not counted


def test_frame_times_renders_each_position_once_in_order():
    from attnlib import plots

    seen = []

    class Dot(plots.View):
        def __init__(self):
            fig, ax = plots.new_figure(2, 2)
            super().__init__(fig)
            ax.set_xlim(0, 3)
            self.dot, = self.track(ax.plot([], [], "o"))

        def update(self, a):
            seen.append(a)
            self.dot.set_data([a], [a])

    view = Dot()
    times = measure.frame_times(view, [{"a": 1}, {"a": 2}, {"a": 0}])
    assert seen == [1, 2, 0]
    assert len(times) == 3 and all(t > 0 for t in times)
    assert view._background is not None  # rendered, not just updated


def test_softmax_jacobian_vjp_equals_the_row_rule(B):
    rng = np.random.default_rng(0)
    P, U = B.softmax(rng.standard_normal((2, 3, 5))), rng.standard_normal((2, 3, 5))
    np.testing.assert_allclose(to_np(B.softmax_jacobian_vjp(P, U)), to_np(B.softmax_vjp(P, U)),
                               rtol=1e-12, atol=1e-15)


def _fake_book(root: Path) -> None:
    """A built 'book' with one chapter: toc, page with an image, MyST-NB's execution record."""
    (root / "chapters").mkdir()
    (root / "chapters" / "c1.ipynb").write_text("{}", encoding="utf-8")
    toc = "format: jb-book\nroot: intro\nchapters:\n  - file: chapters/c1\n"
    (root / "_toc.yml").write_text(toc, encoding="utf-8")
    html = root / "_build" / "html"
    (html / "_images").mkdir(parents=True)
    (html / "_images" / "f.png").write_bytes(b"x" * 1000)
    (html / "chapters").mkdir()
    (html / "chapters" / "c1.html").write_text('<img src="../_images/f.png">', encoding="utf-8")
    (html / "searchindex.js").write_text("", encoding="utf-8")
    (html / "index.html").write_text("<html></html>", encoding="utf-8")
    doctrees = root / "_build" / ".doctrees"
    doctrees.mkdir()
    record = {"runtime": 1.5, "mtime": time.time() - 10}
    env = types.SimpleNamespace(nb_metadata={"chapters/c1": {"exec_data": record}})
    (doctrees / "environment.pickle").write_bytes(pickle.dumps(env))


def test_quick_suite_prints_the_table_and_writes_json(tmp_path):
    _fake_book(tmp_path)
    out = tmp_path / "bench"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--no-browser",
         "--device", "cpu", "--root", str(tmp_path), "--out", str(out)],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Goals" in proc.stdout and "A/B" in proc.stdout
    record = json.loads((out / "bench.json").read_text(encoding="utf-8"))
    sections = {row["section"] for row in record["rows"]}
    assert sections == {"1", "2", "3", "4"}
    assert all(g["status"] in {"MET", "MISSED", "SKIPPED"} for g in record["goals"])
    names = {g["name"] for g in record["goals"]}
    assert {"numpy fwd+bwd vs autograd", "torch Function vs autograd", "row rule extra memory",
            "LSE keeps O(n·d + n)", "pages ≤ 3 MB", "frozen switch", "live update",
            "make book"} <= names
    assert record["data"]["book_exec_s"] == {"chapters/c1": 1.5}
    assert record["data"]["page_bytes"]["chapters/c1"]["images"] == 1000
    assert record["data"]["live_update_s"], "the toy explorer was not timed in a kernel"


def test_section_four_skips_without_a_build(tmp_path):
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--sections", "4",
         "--no-live", "--root", str(tmp_path), "--out", str(tmp_path / "bench")],
        capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "§4 skipped: no built book" in proc.stdout
