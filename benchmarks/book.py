"""Section 4: the book itself — execution time per chapter, page weight, slider switch times.

Build time and page sizes need a built book (``make book`` → ``_build/html``); without one those
rows are skipped with a message. The frozen-slider switch is timed in headless Chromium on the
built pages; the live update is timed in a Jupyter kernel that runs each chapter with explorers
(``ATTNLIB_WIDGETS=live``) and then moves every control of every explorer to positions it has not
shown yet (so the explorer's cache of visited positions never answers).
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import pickle
import re
import statistics
import threading
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


# ---------------------------------------------------------------- build and pages ----

def chapters(root: Path) -> list[str]:
    """Docnames of the notebooks in the book, in _toc.yml order (those that exist)."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    found = [toc["root"]] if "root" in toc else []

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                found.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    docs = [f.removesuffix(".ipynb") for f in found]
    return [doc for doc in docs if (root / f"{doc}.ipynb").exists()]


def _exec_records(build: Path) -> dict[str, dict]:
    """MyST-NB's execution record per docname, from the Sphinx environment of the last build
    (``env.nb_metadata[docname]["exec_data"]``: mtime at the end, runtime in seconds)."""
    env_file = build / ".doctrees" / "environment.pickle"
    if not env_file.exists():
        return {}
    with env_file.open("rb") as f:
        env = pickle.load(f)
    return {doc: meta["exec_data"] for doc, meta in getattr(env, "nb_metadata", {}).items()
            if (meta.get("exec_data") or {}).get("runtime") is not None}


def execution_times(build: Path) -> dict[str, float]:
    """Seconds each notebook took to execute in the last build."""
    return {doc: float(rec["runtime"]) for doc, rec in _exec_records(build).items()}


def build_wall_time(build: Path) -> float | None:
    """The last build's wall time, lower bound: from the start of the first notebook's execution
    (MyST-NB's end time minus its runtime) to the search index, which Sphinx writes last."""
    records, index = _exec_records(build), build / "html" / "searchindex.js"
    if not records or not index.exists():
        return None
    start = min(float(rec["mtime"]) - float(rec["runtime"]) for rec in records.values())
    return index.stat().st_mtime - start


_SRC = re.compile(r"""(?:src|href)=["']([^"'#?]+)""")


def page_sizes(html: Path, docnames) -> dict[str, dict]:
    """For each chapter page: bytes of its HTML (with each explorer's first frame) plus the
    images under ``_images/`` it links; shared theme files are not counted."""
    sizes = {}
    for doc in docnames:
        page = html / f"{doc}.html"
        if not page.exists():
            continue
        text = page.read_text(encoding="utf-8", errors="replace")
        images = 0
        for link in set(_SRC.findall(text)):
            target = (page.parent / link).resolve()
            if "_images" in target.parts and target.is_file():
                images += target.stat().st_size
        sizes[doc] = {"html": page.stat().st_size, "images": images,
                      "total": page.stat().st_size + images,
                      "sliders": text.count('<input type="range"')}
    return sizes


# ---------------------------------------------------------------- frozen sliders ----

_ARM = """
(i) => {
  window.__switch = undefined;
  const handle = document.querySelectorAll('.attn-explorer input[type=range]')[i];
  const root = handle.closest('.attn-explorer') || document.body;
  let t0 = null;
  document.addEventListener('keydown', () => { t0 = performance.now(); },
                            {capture: true, once: true});
  const finish = () => requestAnimationFrame(() => requestAnimationFrame(() => {
    window.__switch = performance.now() - t0; }));
  const obs = new MutationObserver((muts) => {
    for (const m of muts) {
      const el = m.target.nodeType === 1 ? m.target : m.target.parentElement;
      if (el && el.closest('.attn-controls, .attn-announce')) continue;
      if (m.type === 'childList' && m.addedNodes.length) {
        obs.disconnect();
        const imgs = [...root.querySelectorAll('img')].filter((x) => !x.complete);
        Promise.all(imgs.map((x) => x.decode().catch(() => null))).then(finish);
        return;
      }
    }
  });
  obs.observe(root, {childList: true, subtree: true});
  const now = Number(handle.value);
  const max = Number(handle.max);
  return now < max ? 'ArrowRight' : 'ArrowLeft';
}
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def frozen_switch_times(html: Path, pages, *, per_slider: int = 4, max_sliders: int = 3,
                        timeout_ms: int = 3000) -> dict[str, list[float]]:
    """Milliseconds from the key press on a slider to the new frame painted, per page (headless
    Chromium, the built pages served over HTTP). A switch that never shows is ``inf``."""
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_Quiet, directory=str(html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    results: dict[str, list[float]] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            for doc in pages:
                page.goto(f"http://127.0.0.1:{port}/{doc}.html", wait_until="load")
                try:
                    page.wait_for_selector(".attn-explorer input[type=range]", timeout=15000)
                except Exception:  # no widget rendered: nothing to time on this page
                    results[doc] = []
                    continue
                times = []
                handles = page.locator(".attn-explorer input[type=range]")
                for i in range(min(handles.count(), max_sliders)):
                    for _ in range(per_slider):
                        key = page.evaluate(_ARM, i)
                        handles.nth(i).press(key)
                        try:
                            page.wait_for_function("window.__switch !== undefined",
                                                   timeout=timeout_ms)
                            times.append(page.evaluate("window.__switch"))
                        except Exception:
                            times.append(float("inf"))
                results[doc] = times
            browser.close()
    finally:
        server.shutdown()
    return results


# ---------------------------------------------------------------- live updates ----

_TIMING_CELL = r"""
import gc as _gc, json as _json, statistics as _st, time as _time
from attnlib.widgets import Explorer as _Explorer
_res = []
for _ex in [o for o in _gc.get_objects() if isinstance(o, _Explorer)]:
    for _c in [c for c in _ex.children if hasattr(c, "options")]:
        # first visits only (each is a new position, so nothing comes from the explorer's
        # cache); the way back to the start is not timed
        _start, _n, _ts = _c.index, len(_c.options), []
        for _i in [i for i in range(_n) if i != _start][:__MAX__]:
            _t0 = _time.perf_counter(); _c.index = _i; _ts.append(_time.perf_counter() - _t0)
        _c.index = _start
        if _ts:
            _res.append({"control": _c.description, "values": _n, "median": _st.median(_ts),
                         "max": max(_ts), "n": len(_ts)})
print("BENCH_LIVE " + _json.dumps(_res))
"""


def live_update_times(notebooks, *, max_switches: int = 8, timeout: int = 300,
                      budget_s: float | None = None) -> dict:
    """Seconds per live explorer update in a kernel: run the notebook in live mode, then move
    every control of every explorer to up to ``max_switches`` new positions (median and max).
    Once ``budget_s`` is spent the remaining notebooks are listed under ``"skipped"``."""
    import nbformat
    from nbclient import NotebookClient

    env_before = os.environ.get("ATTNLIB_WIDGETS")
    os.environ["ATTNLIB_WIDGETS"] = "live"
    results = {}
    start = time.perf_counter()
    try:
        for k, path in enumerate(notebooks):
            if budget_s is not None and time.perf_counter() - start > budget_s:
                results["skipped"] = [str(p) for p in notebooks[k:]]
                break
            nb = nbformat.read(str(path), as_version=4)
            nb.cells.append(nbformat.v4.new_code_cell(
                _TIMING_CELL.replace("__MAX__", str(max_switches))))
            t0 = time.perf_counter()
            try:
                NotebookClient(nb, timeout=timeout, kernel_name="python3",
                               resources={"metadata": {"path": str(Path(path).parent)}}).execute()
            except Exception as err:  # a chapter that fails is reported, not timed
                results[str(path)] = {"error": f"{type(err).__name__}: {str(err)[-300:]}"}
                continue
            wall = time.perf_counter() - t0
            line = next(o["text"] for o in nb.cells[-1].outputs
                        if o.get("name") == "stdout" and "BENCH_LIVE" in o.get("text", ""))
            explorers = json.loads(line.split("BENCH_LIVE ", 1)[1])
            results[str(path)] = {"run_s": wall, "explorers": explorers}
    finally:
        if env_before is None:
            os.environ.pop("ATTNLIB_WIDGETS", None)
        else:
            os.environ["ATTNLIB_WIDGETS"] = env_before
    return results


def with_explorers(root: Path, docnames) -> list[Path]:
    """The chapter notebooks whose code calls ``explorer(``."""
    found = []
    for doc in docnames:
        path = root / f"{doc}.ipynb"
        if path.exists() and "explorer(" in path.read_text(encoding="utf-8"):
            found.append(path)
    return found


def median(xs):
    return statistics.median(xs) if xs else float("nan")
