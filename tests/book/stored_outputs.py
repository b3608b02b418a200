"""The chapters' notebooks and the plain text of their stored outputs, for the tests that read
what a reader of a notebook file sees without running it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(p for p in (ROOT / "chapters").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)


def plain_outputs(nb):
    """``(cell index, text)`` for every stored stream and ``text/plain`` of a rich output."""
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            text = out.get("text") or out.get("data", {}).get("text/plain", "")
            yield i, "".join(text) if isinstance(text, list) else text
