"""Sphinx extension: the live book (explorers and exercises computed in the browser).

- Exercise cells: a code cell whose notebook id is ``ex-NN-k-stub`` or ``ex-NN-k-check``
  gets the class ``attnlib-ex-stub`` / ``-check`` and ``attnlib-ex-id-NN-k``, so the page
  script pairs the stub with its checker call; a solution ``ex-NN-k-sol`` that goes live as
  it is (``offered_solution``) gets ``attnlib-ex-sol``, and the page offers it to edit and run.
- Pages with a live explorer (``attnlib.live.explorer``: its page data carries a live spec)
  or an exercise stub load ``vendor/live/live.js`` (a few kB: the button; nothing else is
  fetched before a click, unless the reader went live on an earlier page).
- After the build: ``_static/live/`` receives Pyodide's files (``live_pyodide_dir``, filled
  by ``make pyodide`` from pinned sources with every sha256 checked) and attnlib as a wheel
  built now from ``lib/`` (pure Python), with ``manifest.json`` naming the wheels to load,
  and ``bytecode.zip``: the modules that every explorer's first frame and every exercise
  import, compiled once in Pyodide under Node (``scripts/live/bytecode.mjs``), so that a
  reader's browser does not compile them.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

EXERCISE_CELL = re.compile(r"^ex-(\d+-\d+)-(stub|check|sol)$")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from explorers import page_explorers  # noqa: E402  (a sibling extension)


def page_specs(text: str) -> list[dict]:
    """The live specs a built page carries (explorers whose page data has one), in page
    order: ``{"controls", "python"}``."""
    return [e for e in page_explorers(text) if e.get("python")]


def _chapter_cells(chapters: Path):
    """Each chapter notebook's cells by id."""
    import nbformat

    for path in sorted(chapters.glob("*/*.ipynb")):
        yield {c.get("id"): c for c in nbformat.read(path, as_version=4).cells}


def offered_solution(cells: dict, k: str) -> bool:
    """Does exercise ``k``'s solution go live as it is (edit and run, no checker)? When the
    exercise has no stub (a derivation) and its code needs no PyTorch, which the browser's
    Python does not have.  The build marks only those cells; live.js offers what is marked."""
    return f"ex-{k}-stub" not in cells and not re.search(r"\btorch\b", cells[f"ex-{k}-sol"].source)


def exercises(chapters: Path) -> list[dict]:
    """Each exercise's id, stub, checker call and solution, from the chapters' cells."""
    return [{"id": k, "stub": cell.source, "check": cells[f"ex-{k}-check"].source,
             "solution": cells[f"ex-{k}-sol"].source}
            for cells in _chapter_cells(chapters) for cid, cell in cells.items()
            if (k := _exercise_id(cid, "stub"))]


def solutions(chapters: Path) -> list[dict]:
    """The solutions that go live as they are (``offered_solution``): id, code and what the
    build printed."""
    return [{"id": k, "code": cell.source,
             "printed": "".join(o.get("text", "") for o in cell.get("outputs", [])
                                if o.get("output_type") == "stream")}
            for cells in _chapter_cells(chapters) for cid, cell in cells.items()
            if (k := _exercise_id(cid, "sol")) and offered_solution(cells, k)]


def _exercise_id(cell_id: str | None, kind: str) -> str | None:
    """``NN-k`` of a cell ``ex-NN-k-<kind>``, else None."""
    m = EXERCISE_CELL.match(cell_id or "")
    return m.group(1) if m and m.group(2) == kind else None


def _mark_exercise_cells(app, doctree):
    docname = app.env.docname
    path = Path(app.env.doc2path(docname))
    if path.suffix != ".ipynb":
        return
    import nbformat

    cells = nbformat.read(path, as_version=4).cells
    by_id = {c.get("id"): c for c in cells}
    for node in doctree.findall(nodes.container):
        index = node.get("cell_index")
        if node.get("nb_element") != "cell_code" or index is None or index >= len(cells):
            continue
        m = EXERCISE_CELL.match(cells[index].get("id", ""))
        if m and (m.group(2) != "sol" or offered_solution(by_id, m.group(1))):
            node["classes"] += [f"attnlib-ex-{m.group(2)}", f"attnlib-ex-id-{m.group(1)}"]


def _page_script(app, pagename, templatename, context, doctree):
    body = context.get("body") or ""
    if page_specs(body) or "attnlib-ex-stub" in body or "attnlib-ex-sol" in body:
        app.add_js_file("vendor/live/live.js", defer="defer")  # this page only


def _wheel(out: Path) -> str:
    lib = ROOT / "lib"
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
             "--disable-pip-version-check", "-w", tmp, str(lib)], check=True)
        (wheel,) = Path(tmp).glob("attnlib-*.whl")
        shutil.copyfile(wheel, out / wheel.name)
        return wheel.name


def _copy_runtime(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    src = Path(app.confdir) / app.config.live_pyodide_dir
    if not (src / "manifest.json").is_file():
        raise ExtensionError(f"live: no Pyodide files in {src}: run `make pyodide`")
    out = Path(app.outdir) / "_static" / "live"
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(src, out / "pyodide")
    pyodide = json.loads((src / "manifest.json").read_text())
    korean = [f"pyodide/{n}" for n in pyodide if n.startswith("koreanize_matplotlib-")]
    wheels = [_wheel(out), *korean]
    fontlist = "pyodide/fontlist.json" if "fontlist.json" in pyodide else None
    manifest = {"wheels": wheels, "fontlist": fontlist}
    # written twice: bytecode.mjs starts Python from this manifest, then the zip is added
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    manifest["bytecode"] = _bytecode(Path(app.outdir), out)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def _bytecode(html_dir: Path, out: Path) -> dict:
    """bytecode.zip: what the jobs below import, compiled (scripts/live/bytecode.mjs)."""
    frames = [{"spec": spec["python"],
               "values": {c["name"]: {"index": c["initial"]} for c in spec["controls"]}}
              for page in sorted(html_dir.rglob("*.html"))
              for spec in page_specs(page.read_text(encoding="utf-8"))]
    jobs = [{"code": e["stub"], "check": e["check"]} for e in exercises(ROOT / "chapters")]
    jobs += [{"code": s["code"], "check": ""} for s in solutions(ROOT / "chapters")]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "jobs.json"
        path.write_text(json.dumps({"frames": frames, "exercises": jobs}), encoding="utf-8")
        done = subprocess.run(["node", str(ROOT / "scripts" / "live" / "bytecode.mjs"), str(out),
                               str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        raise ExtensionError(f"live: bytecode.mjs failed:\n{done.stderr[-3000:]}")
    logger.info(done.stdout.strip())
    data = (out / "bytecode.zip").read_bytes()
    return {"path": "bytecode.zip", "sha256": hashlib.sha256(data).hexdigest()}


def setup(app):
    app.add_config_value("live_pyodide_dir", "_build/live/pyodide", "html", types=[str])
    app.connect("doctree-read", _mark_exercise_cells)
    app.connect("html-page-context", _page_script, priority=550)
    app.connect("build-finished", _copy_runtime)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
