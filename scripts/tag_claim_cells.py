"""Hide the source of ledger-only cells: add the MyST-NB tag ``hide-input`` to every code cell
that does nothing but record article claims, so the reader sees the check lines it prints
(✔ / ≈ / ≠) and not the bookkeeping that produces them.

A cell qualifies when every statement in it is one of
- a call of ``claim(...)``, ``ledger.claim(...)``, ``holds(...)`` or ``ledger.holds(...)``
  (a sentence of the book held by its data), bare or assigned (``_ = ledger.claim(...)``);
- ``from attnlib.ledger import ...`` or ``from attnlib import ledger``;
- with ``--loops`` also: a ``for`` loop whose body is only such claim calls.

A cell that holds a sentence of the book (at least one ``holds(...)`` call) may also compute
what it checks: assignments, imports and ``for`` loops of those, but nothing that prints or
draws besides its check lines.

The script only adds the tag (never removes one, never touches sources or outputs), so it can be
re-run at any time; ``--check`` writes nothing and exits 1 when a cell is missing the tag.

    python scripts/tag_claim_cells.py [--check] [--loops] [folder-or-notebook ...]
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
TAG = "hide-input"

sys.path.insert(0, str(ROOT / "scripts"))  # scripts/ is not a package
from execute_notebooks import notebooks  # noqa: E402  (the same list of notebooks)


def _is_claim_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Name) and f.id in ("claim", "holds")) or (
        isinstance(f, ast.Attribute) and f.attr in ("claim", "holds")
        and isinstance(f.value, ast.Name) and f.value.id == "ledger")


def _is_ledger_import(node: ast.AST) -> bool:
    if not isinstance(node, ast.ImportFrom):
        return False
    if node.module == "attnlib.ledger":
        return True
    return node.module == "attnlib" and all(a.name == "ledger" for a in node.names)


def _qualifies(stmt: ast.stmt, loops: bool) -> bool:
    if isinstance(stmt, ast.Expr):
        return _is_claim_call(stmt.value)
    if isinstance(stmt, ast.Assign):
        return _is_claim_call(stmt.value)
    if _is_ledger_import(stmt):
        return True
    if loops and isinstance(stmt, ast.For) and not stmt.orelse:
        return all(_qualifies(s, loops) for s in stmt.body)
    return False


def _is_holds_call(node: ast.AST) -> bool:
    return _is_claim_call(node) and (
        getattr(node.func, "id", None) == "holds" or getattr(node.func, "attr", None) == "holds")


def _computes_silently(stmt: ast.stmt) -> bool:
    """An assignment, an import, a claim or holds call, or a loop of those: prints nothing."""
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Import, ast.ImportFrom)):
        return True
    if isinstance(stmt, ast.Expr):
        return _is_claim_call(stmt.value)
    if isinstance(stmt, ast.For) and not stmt.orelse:
        return all(_computes_silently(s) for s in stmt.body)
    return False


def is_claim_cell(source: str, loops: bool = False) -> bool:
    """True when the cell's code only records claims (see the module docstring)."""
    if source.lstrip().startswith(("%", "!")):
        return False
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    if any(_is_holds_call(n) for n in ast.walk(tree)):
        return all(_computes_silently(s) for s in tree.body)
    return bool(tree.body) and any(
        _is_claim_call(getattr(s, "value", None)) or isinstance(s, ast.For) for s in tree.body
    ) and all(_qualifies(s, loops) for s in tree.body)


def untagged(nb, loops: bool = False) -> list[int]:
    """Indices of claim-only code cells that lack the tag."""
    return [i for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and is_claim_cell(c.source, loops)
            and TAG not in c.metadata.get("tags", [])]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("targets", nargs="*", default=[str(ROOT / "chapters")])
    ap.add_argument("--check", action="store_true", help="report only; exit 1 if a tag is missing")
    ap.add_argument("--loops", action="store_true", help="also tag for-loops of claim calls")
    args = ap.parse_args(argv)
    missing = 0
    for path in notebooks(args.targets):
        nb = nbformat.read(path, as_version=4)
        cells = untagged(nb, args.loops)
        if not cells:
            continue
        missing += len(cells)
        print(f"{path}: cells {cells}" + ("" if args.check else f" tagged {TAG}"))
        if not args.check:
            for i in cells:
                nb.cells[i].metadata.setdefault("tags", []).append(TAG)
            nbformat.write(nb, path)
    return 1 if (args.check and missing) else 0


if __name__ == "__main__":
    sys.exit(main())
