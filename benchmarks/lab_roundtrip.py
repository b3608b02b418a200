"""A live slider as a reader meets it: JupyterLab in headless Chromium, key press → new picture.

``benchmarks/run.py`` times an explorer's update inside the kernel (what ``attnlib`` controls).
This script times the whole round trip a reader waits for: it starts JupyterLab (``make lab``
installs it), opens each chapter, runs all cells, then presses → on every slider and measures,
in the page, the time from the key press until the explorer shows a different, fully decoded
picture (or text).  A text-only toy explorer gives the round trip of JupyterLab itself.

    .venv/bin/python benchmarks/lab_roundtrip.py part1/03_jacobian.ipynb part2/10_dropout.ipynb

Paths are relative to ``chapters/``; ``--toy`` adds the toy explorer.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make the benchmarks package importable
    sys.path.insert(0, str(ROOT))

from benchmarks.book import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

TOY = '''from attnlib import widgets
widgets.explorer(lambda a: f"a = {a}", sliders={"a": list(range(10))})'''

# Arms a check for slider k's explorer: done once its pictures/text differ from now and every
# picture is decoded; polled on each animation frame.
ARM = """k => {
  const handle = document.querySelectorAll('.widget-slider .noUi-handle')[k];
  let box = handle; while (box && !box.classList.contains('widget-vbox')) box = box.parentElement;
  const shown = () => [...box.querySelectorAll('img')].map(i => i.src).join()
                      + box.querySelector('.widget-output').innerText;
  const before = shown();
  window.__done = null;
  window.__check = () => {
    const imgs = [...box.querySelectorAll('img')];
    if (window.__done === null && shown() !== before
        && imgs.every(i => i.complete && i.naturalWidth > 0))
      window.__done = performance.now() - window.__t0;
    return window.__done !== null;
  };
  window.__t0 = performance.now();
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_lab(root: Path, port: int) -> subprocess.Popen:
    jupyter = ROOT / ".venv" / "bin" / "jupyter"
    proc = subprocess.Popen(
        [str(jupyter), "lab", "--no-browser", f"--port={port}", "--allow-root",
         "--IdentityProvider.token=", "--ServerApp.password=",
         "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={root}",
         "--LabApp.expose_app_in_browser=True"],
        env=dict(os.environ, ATTNLIB_WIDGETS="live"),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(240):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise RuntimeError("JupyterLab did not start (is it installed? `make lab` installs it)")


def _run_notebook(page, url: str) -> None:
    page.goto(url)
    page.wait_for_function("(() => { const w = window.jupyterapp?.shell.currentWidget;"
                           " return w?.sessionContext?.session?.kernel?.status === 'idle'; })()",
                           timeout=180_000, polling=500)
    page.wait_for_timeout(3000)  # let the notebook panel settle before running it
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_timeout(1000)
    page.wait_for_function(
        "(() => { const w = window.jupyterapp?.shell.currentWidget;"
        " const busy = w?.sessionContext?.session?.kernel?.status !== 'idle';"
        " const queued = [...document.querySelectorAll('.jp-InputPrompt')]"
        "   .some(e => e.textContent.includes('*'));"
        " return !busy && !queued; })()", timeout=900_000, polling=1000)


def roundtrips(page, presses: int) -> list[list[float]]:
    """Milliseconds per → press, for each slider on the page (first visits of each position)."""
    handles = page.locator(".widget-slider .noUi-handle")
    out = []
    for k in range(handles.count()):
        handle = handles.nth(k)
        times = []
        try:
            handle.scroll_into_view_if_needed(timeout=10_000)
        except Exception:  # not rendered (JupyterLab draws only cells near the viewport)
            out.append(times)
            continue
        for _ in range(presses):
            page.evaluate(ARM, k)
            handle.focus()
            page.keyboard.press("ArrowRight")
            try:
                page.wait_for_function("window.__check()", timeout=10_000, polling="raf")
                times.append(page.evaluate("window.__done"))
            except Exception:  # the slider was at its end, or nothing changed
                break
        out.append(times)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", help="chapter notebooks, relative to chapters/")
    parser.add_argument("--toy", action="store_true", help="also time a text-only explorer")
    parser.add_argument("--presses", type=int, default=4, help="→ presses per slider")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        root = ROOT / "chapters"
        targets = list(args.notebooks)
        if args.toy:
            import nbformat

            nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(TOY)])
            nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                         "language": "python"}
            toy = Path(tmp) / "toy.ipynb"
            nbformat.write(nb, toy)
            root = Path(tmp)
            (Path(tmp) / "chapters").symlink_to(ROOT / "chapters")
            targets = ["toy.ipynb"] + [f"chapters/{t}" for t in targets]
        port = _free_port()
        lab = _start_lab(root, port)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for target in targets:
                    page = browser.new_page(viewport={"width": 1400, "height": 1000})
                    _run_notebook(page, f"http://127.0.0.1:{port}/lab/tree/{target}")
                    for k, times in enumerate(roundtrips(page, args.presses)):
                        med = f"{statistics.median(times):6.0f}" if times else "     -"
                        print(f"{target:44s} slider {k}: median {med} ms  "
                              f"({', '.join(f'{t:.0f}' for t in times)})", flush=True)
                    page.close()
                browser.close()
        finally:
            lab.terminate()
            lab.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
