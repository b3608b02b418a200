"""The library's modules import one another in one direction (issue 33): no circle, lazy
imports inside functions included, and the measuring code stands on no display layer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[2] / "lib" / "attnlib"
DISPLAY = {"attnlib.widgets", "attnlib.explorer_page", "attnlib.live"}


def _module(path: Path, root: Path = LIB) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, known: set[str], root: Path) -> set[str]:
    """Every attnlib module ``path`` imports, at module level or inside a function."""
    here = _module(path, root)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            names = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != here and not here.startswith(name + "."):
                found.add(name)
    return found


def graph(root: Path = LIB) -> dict[str, set[str]]:
    files = sorted(root.rglob("*.py"))
    known = {_module(f, root) for f in files}
    return {_module(f, root): _imports(f, known, root) - {"attnlib"} for f in files}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import circles (each as a path that returns to its start)."""
    found, state, stack = [], {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found


def test_no_import_circle_in_attnlib():
    assert cycles(graph()) == []


def test_the_circle_check_finds_a_planted_circle():
    edges = graph()
    edges["attnlib.pictures"] = edges["attnlib.pictures"] | {"attnlib.plots"}
    assert any("attnlib.plots" in c and "attnlib.pictures" in c for c in cycles(edges))


@pytest.mark.parametrize("name", ["attnlib.measure", "attnlib.pictures", "attnlib.plots"])
def test_drawing_and_measuring_stand_on_no_display_layer(name):
    edges = graph()
    reach, todo = set(), [name]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in reach:
                reach.add(nxt)
                todo.append(nxt)
    assert not reach & DISPLAY, f"{name} reaches {sorted(reach & DISPLAY)}"
