"""Run chapters with the other backend: ``ATTNLIB_BACKEND=torch`` (usage.md's one switch).

Every chapter's first code cell binds ``A = attnlib.backend()``, which reads the variable. This
runs each notebook top to bottom with nbclient in a fresh kernel, writes nothing back (the stored
outputs stay the NumPy run's) and reports, per chapter, whether it reached its end and, if not,
the first cell that failed. A ledger ``claim`` or ``holds`` that fails raises, so a chapter that
runs to its end held every check. ``tests/book/test_backend_switch.py`` runs it for every chapter.

    python scripts/backend_switch.py [-j 2] [--backend torch] [notebook ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]


class Result(NamedTuple):
    path: str       # relative to the repository
    ok: bool        # ran to the end
    cell: int       # index of the first failing cell, -1 when ok
    error: str      # "ename: evalue" of that cell
    seconds: float


def chapters() -> list[Path]:
    """Every notebook of the book, in the order of ``_toc.yml``."""
    import yaml

    found = []

    def walk(node):
        if isinstance(node, dict):
            f = node.get("file")
            if f and (ROOT / f"{f}.ipynb").exists():
                found.append(ROOT / f"{f}.ipynb")
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8")))
    return found


def run(path: str | Path, backend: str = "torch", timeout: int = 600) -> Result:
    """Execute one notebook with ``ATTNLIB_BACKEND=backend``; the file is not changed."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = Path(path).resolve()
    os.environ.update(ATTNLIB_BACKEND=backend, ATTNLIB_WIDGETS="live",
                      MPLBACKEND="module://matplotlib_inline.backend_inline")
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    cell, error = -1, ""
    try:
        client.execute()
    except CellExecutionError as e:
        error = f"{e.ename}: {e.evalue}"
        for i, c in enumerate(nb.cells):
            if c.cell_type == "code" and any(o.get("output_type") == "error"
                                             for o in c.get("outputs", [])):
                cell = i
                break
    rel = str(path.relative_to(ROOT))
    return Result(rel, cell == -1 and not error, cell, error, time.perf_counter() - start)


def run_all(paths, backend: str = "torch", jobs: int = 2, report=None) -> list[Result]:
    """Run the notebooks side by side, ``jobs`` kernels at a time; ``report(result)`` is called
    as each one ends. Results in the order of ``paths``."""
    paths = [Path(p) for p in paths]
    if jobs > 1:  # kernels side by side: one OpenMP/BLAS thread each, or their threads spin
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(var, "1")
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run, p, backend): p for p in paths}
        for f in as_completed(futures):
            if report is not None:
                report(f.result())
        return [f.result() for f in futures]


def line(r: Result) -> str:
    where = "" if r.ok else f"  cell {r.cell}: {r.error[:300]}"
    return f"{'✔' if r.ok else '✘'} {r.path} ({r.seconds:.0f} s){where}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--backend", default="torch")
    args = ap.parse_args(argv)
    paths = args.paths or chapters()
    start = time.perf_counter()
    results = run_all(paths, args.backend, args.jobs,
                      report=lambda r: print(line(r), flush=True))
    print(f"{sum(r.ok for r in results)}/{len(results)} ran to the end in "
          f"{time.perf_counter() - start:.0f} s")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
