"""Replace the source of one notebook cell (by id), leaving every other byte as it is.

    python scripts/live/edit_cell.py NOTEBOOK CELL_ID SOURCE_FILE
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat


def main(nb_path: str, cell_id: str, source_file: str) -> None:
    path = Path(nb_path)
    nb = nbformat.read(path, as_version=4)
    (cell,) = [c for c in nb.cells if c.get("id") == cell_id]
    cell.source = Path(source_file).read_text(encoding="utf-8").rstrip("\n")
    text = nbformat.writes(nb) + "\n"
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
