"""Every chapter under usage.md's one switch, ``ATTNLIB_BACKEND=torch`` (issues 34, 35).

Each chapter's first code cell binds ``A = attnlib.backend()``; with the variable set, ``A`` is
``attnlib.torch``. ``scripts/backend_switch.py`` runs every chapter of ``_toc.yml`` so, two
kernels side by side, writing nothing back. A chapter passes when it runs to its end: a ledger
``claim`` or ``holds`` that fails raises, so every check held under PyTorch as well.

``STOPS`` names the chapters that cannot run under the switch, with the reason; usage.md's
section 「NumPy 대신 PyTorch 로」 lists the chapters that run and those that stop, and this test
holds both lists to what it finds (a chapter listed as running that stops fails, and so does
one that runs but is not listed). ``make switch`` runs it (and ``make test``).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytestmark = pytest.mark.switch

ROOT = Path(__file__).resolve().parents[2]
USAGE = ROOT / "chapters" / "usage.md"

# chapter (path in the repository) -> why it cannot run under the switch; usage.md names each
STOPS: dict[str, str] = {}


def _script():
    name = "backend_switch"
    if name not in sys.modules:  # registered, so the worker processes find ``run``
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


CHAPTERS = [str(p.relative_to(ROOT)) for p in _script().chapters()]


def label(path: str) -> str:
    """How usage.md names a chapter: ``4`` for chapters/part1/04_experiment, ``부록`` for the
    appendix's notebook."""
    m = re.match(r"(\d+)_", Path(path).name)
    return str(int(m.group(1))) if m else "부록"


def listed(heading: str) -> set[str]:
    """The chapters usage.md names on the bullet ``- **heading**: …``, in its first sentence
    (up to the first ``. ``): numbers and ranges (``1–5장``, ``6장``) and ``부록``."""
    text = USAGE.read_text(encoding="utf-8")
    section = text.split("### NumPy 대신 PyTorch 로", 1)[1].split("\n#", 1)[0]
    bullets = re.findall(r"^- \*\*(.+?)\*\*:(.*(?:\n  .*)*)", section, flags=re.M)
    found = [body for name, body in bullets if name == heading]
    assert len(found) == 1, f"usage.md: one bullet 「{heading}」 expected"
    sentence = " ".join(found[0].split()).split(". ", 1)[0]
    chapters = set()
    for a, b in re.findall(r"(\d+)(?:–(\d+))?장", sentence):
        chapters |= {str(i) for i in range(int(a), int(b or a) + 1)}
    if "부록" in sentence:
        chapters.add("부록")
    return chapters


@pytest.fixture(scope="module")
def results():
    script = _script()
    found = script.run_all([ROOT / p for p in CHAPTERS], "torch", jobs=2,
                           report=lambda r: print(script.line(r), flush=True))
    return {r.path: r for r in found}


@pytest.mark.parametrize("path", CHAPTERS)
def test_chapter_under_torch(results, path):
    r = results[path]
    if path in STOPS:
        assert not r.ok, f"{path} runs under the switch now: take it off STOPS and usage.md"
        pytest.xfail(STOPS[path])
    assert r.ok, f"{path}, cell {r.cell}: {r.error}"


def test_usage_lists_what_the_switch_does(results):
    runs = {label(p) for p, r in results.items() if r.ok}
    stops = {label(p) for p, r in results.items() if not r.ok}
    key = lambda x: (len(x), x)  # 2 before 10
    said = listed("스위치를 켜도 끝까지 도는 장")
    assert said == runs, (f"usage.md says {sorted(said, key=key)} run under the switch; "
                          f"the test found {sorted(runs, key=key)}")
    if stops:
        said = listed("스위치를 켜면 멈추는 장")
        assert said == stops, (f"usage.md says {sorted(said, key=key)} stop; "
                               f"the test found {sorted(stops, key=key)}")
    else:
        assert "스위치를 켜면 멈추는 장" not in USAGE.read_text(encoding="utf-8")
