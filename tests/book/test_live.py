"""The live book (「실시간 계산 켜기」) in headless Chromium; requests outside the book blocked.

- An explorer goes live (chapter 1) on its own controls: Pyodide, NumPy, matplotlib and
  attnlib load from the book's own files only after the click, a slider value that is not
  among the frozen frames (d_k = 69) gives a new frame whose readout and alt text name it.
  Printed, not asserted (a benchmark): seconds from the click to the first live frame, the
  median of later frames, and the longest task on the page's main thread while live
  (PerformanceObserver "longtask"); also written to _build/live_bench.txt.  The reader is
  then remembered: the next explorer page (chapter 2) goes live by itself, and the seconds
  from its navigation to its first live frame are printed; its 「다음 페이지부터 자동으로 켜지
  않기」 forgets the reader.
- An exercise goes live (chapter 8): a correct solution typed into the editor gets ✔, a
  wrong one ✘ with its hint, and the code survives a reload (localStorage).  Printed and
  appended to _build/live_bench.txt: seconds from the click to the first verdict, and a
  later run's.
- Every explorer's live spec draws a frame at a value between its frozen ones, in CPython
  (the same attnlib.live.frame the worker calls), and every exercise stub is marked.
- In Pyodide under Node (the worker's start, scripts/live/start.mjs): every explorer and
  exercise runs, and Pyodide, NumPy, matplotlib and attnlib come from the book's compiled
  bytecode.zip, not compiled again.

Run after ``make book`` (which runs ``make pyodide``): ``pytest tests -m browser -k live``.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import statistics
import threading
import time
from pathlib import Path

import pytest
from test_browser import HTML, PAGES, ROOT, _missing, _QuietHandler, browser  # noqa: F401

pytestmark = pytest.mark.browser

EXERCISE_BUTTON = ".attnlib-ex-stub + .attnlib-live .attnlib-live-on"
LIVE_TIMEOUT_MS = 180_000  # loading Pyodide on a busy 2-core machine

# Long tasks on the main thread, from the moment the page asks for them (window.__longtasks).
LONGTASKS = """
window.__longtasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__longtasks.push([e.startTime, e.duration]);
}).observe({ type: "longtask", buffered: true });
"""


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a reload drops the worker's downloads half-way: not the book's error


@pytest.fixture(scope="module")
def origin():
    if not (HTML / "index.html").is_file():
        _missing("no built book in _build/html: run `make book` first")
    server = _QuietServer(("127.0.0.1", 0),
                          functools.partial(_QuietHandler, directory=str(HTML)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class LiveVisit:
    """A page with every request that leaves the book aborted (and recorded)."""

    def __init__(self, browser, origin, rel):  # noqa: F811
        self.origin, self.errors, self.outside, self.requests = origin, [], [], []
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.route("**/*", self._route)
        self.context.add_init_script(LONGTASKS)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(f"{origin}/{rel}", wait_until="load")
        self.page.wait_for_load_state("networkidle")

    def _route(self, route):
        url = route.request.url
        if url.startswith((self.origin + "/", "data:", "blob:")):
            self.requests.append(url[len(self.origin):])
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def live_requests(self) -> list[str]:
        return [u for u in self.requests if "/_static/live/" in u or "/vendor/live/" in u
                and not u.split("?")[0].endswith("/vendor/live/live.js")]

    def close(self):
        self.context.close()


@pytest.fixture
def live_visit(browser, origin):  # noqa: F811
    opened = []

    def _open(rel):
        v = LiveVisit(browser, origin, rel)
        opened.append(v)
        return v

    yield _open
    for v in opened:
        v.close()


def _page(rel_end: str) -> str:
    rel = next((r for r in PAGES if r.endswith(rel_end)), None)
    if rel is None:
        _missing(f"no {rel_end} in the built book")
    if not (HTML / "_static" / "live" / "manifest.json").is_file():
        _missing("no _static/live/ in the built book: `make pyodide`, then `make book`")
    return rel


def _quiet(idle=0.8, most_s=30.0) -> str:
    """Wait (at most ``most_s``) for a second in which the machine's CPUs are ``idle`` or more
    idle (/proc/stat), so that the benchmark measures the book, not the tests or builds still
    running; what was found, for the log."""
    if not Path("/proc/stat").is_file():
        return "CPU idle not known"

    def ticks():
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return fields[3] + fields[4], sum(fields)  # idle + iowait, all

    start = time.monotonic()
    while True:
        (i0, t0), _ = ticks(), time.sleep(1.0)
        i1, t1 = ticks()
        fraction = (i1 - i0) / max(t1 - t0, 1)
        waited = time.monotonic() - start
        if fraction >= idle or waited >= most_s:
            return (f"CPUs {fraction:.0%} idle in the second before the click "
                    f"(waited {waited:.0f} s)")


def _worker_cpu() -> float | None:
    """CPU seconds used so far by Chromium's Web Worker threads (Linux /proc): the live book's
    critical path, which a busy shared machine stretches in wall time but not in CPU time."""
    if not Path("/proc/self/task").is_dir():
        return None
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/task/[0-9]*/stat"):
        try:
            text = stat.read_text()
            if "chrom" not in os.readlink(stat.parents[2] / "exe"):
                continue
        except OSError:
            continue
        if text[text.index("(") + 1:text.rindex(")")].startswith("DedicatedWorker"):
            fields = text[text.rindex(")") + 2:].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _frames(page) -> list[dict]:
    return page.evaluate("() => window.attnlibLive.frames")


def _wait_frame(page, name: str, label: str, timeout=30_000):
    page.wait_for_function(
        "([n, v]) => window.attnlibLive.frames.some(f => f.values[n] === v)",
        arg=[name, label], timeout=timeout)


def _set_number(page, box, value):
    box.fill(str(value))
    box.dispatch_event("change")


def test_explorer_goes_live(live_visit):
    """Chapter 1's explorer live: any d_k, computed in the browser from the book's files."""
    rel = _page("01_variance.html")
    v = live_visit(rel)
    page = v.page
    assert not v.live_requests(), f"live files fetched before the click: {v.live_requests()}"
    button = page.locator(".attnlib-live-on").first
    assert button.text_content().strip() == "실시간 계산 켜기"
    button.scroll_into_view_if_needed()
    quiet = _quiet()
    clicked = page.evaluate("() => performance.now()")
    cpu0 = _worker_cpu()
    button.click()
    page.wait_for_function("() => window.attnlibLive.frames.length > 0", timeout=LIVE_TIMEOUT_MS)
    first = _frames(page)[0]["at"] - clicked
    cpu1 = _worker_cpu()
    explorer = page.locator(".attn-explorer").first
    # the same controls: one slider, its readout, now with a number box beside it
    assert explorer.locator("input[type=range]").count() == 1
    box = explorer.locator("input.attn-number")
    _set_number(page, box, 69)  # not a frozen frame (4, 8, …, 1024)
    _wait_frame(page, "d_k", "69")
    page.wait_for_function(
        "(e) => e.querySelector('.attn-readout').textContent === '69'",
        arg=explorer.element_handle(), timeout=10_000)
    valuetext = explorer.locator("input[type=range]").get_attribute("aria-valuetext")
    assert valuetext == "69", valuetext
    page.wait_for_function(  # the frame is drawn after its pictures are decoded
        "(e) => [...e.querySelectorAll('.attn-frame img')].some(i => i.alt.includes('69'))",
        arg=explorer.element_handle(), timeout=10_000)
    text = explorer.inner_text()
    assert "d_k = 69:  std =" in text, "the frame's text line is not the new one"
    # Later frames, one at a time (each waits for the previous), then a burst of slider
    # moves: the newest value wins.
    later_values = (70, 75, 81, 90, 100, 128, 200, 300, 500, 700, 1000)
    cpu2 = _worker_cpu()
    for d_k in later_values:
        _set_number(page, box, d_k)
        _wait_frame(page, "d_k", str(d_k))
    cpu3 = _worker_cpu()
    slider = explorer.locator("input[type=range]")
    for pos in range(0, 1001, 50):
        slider.evaluate("(s, p) => { s.value = p; s.dispatchEvent(new Event('input')); }", pos)
    _wait_frame(page, "d_k", "1024")
    page.wait_for_timeout(300)
    last = _frames(page)[-1]["values"]["d_k"]
    assert last == "1024", f"the last frame shows d_k = {last}, not the slider's last value"
    frames = _frames(page)
    # A value past the range's end is computed at its end, and the number box says so.
    _set_number(page, box, 33)
    _wait_frame(page, "d_k", "33")
    _set_number(page, box, 5000)
    page.wait_for_function("() => window.attnlibLive.frames.at(-1).values.d_k === '1024'",
                           timeout=30_000)
    assert box.input_value() == "1024", f"the number box shows {box.input_value()!r}"
    later = [f["ms"] for f in frames[2:13]]
    long = [d for start, d in page.evaluate("() => window.__longtasks") if start >= clicked]
    stats = page.evaluate("() => window.attnlibLive")
    lines = [
        f"live explorer, {rel} (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs;"
        f" {quiet})",
        f"  click -> first live frame      {first / 1000:6.2f} s",
        f"  later frames, median           {statistics.median(later):6.0f} ms  "
        f"(max {max(later):.0f} ms, {len(later)} frames)",
        f"  longest main-thread task live  {max(long, default=0):6.0f} ms  "
        f"({len(long)} tasks over 50 ms)",
        *([f"  worker CPU: {cpu1 - cpu0:.1f} s to the first frame, "
           f"{(cpu3 - cpu2) / len(later_values) * 1000:.0f} ms per later frame "
           "(what the wall times above come to on an idle machine, about)"]
          if cpu0 is not None else []),
        "  loading: " + ", ".join(f"{t.split(' (')[0]} {ms / 1000:.1f} s"
                                  for t, ms in stats["progress"] if "(" not in t),
    ]
    # The reader went live: the next explorer page goes live by itself, in its idle time.
    assert page.evaluate("() => localStorage.getItem('attnlib-live-auto')") == "1"
    page.goto(f"{v.origin}/{_page('02_collapse.html')}", wait_until="load")
    page.wait_for_function("() => window.attnlibLive.frames.length > 0", timeout=LIVE_TIMEOUT_MS)
    auto = page.evaluate("() => window.attnlibLive.frames[0].at")  # ms from navigation start
    assert page.evaluate("() => window.attnlibLive.auto") is True
    lines.append(f"  next page, remembered: navigation -> first live frame {auto / 1000:6.2f} s"
                 " (Python started in the page's idle time, no click)")
    off = page.locator(".attnlib-live-auto-off").first
    assert off.is_visible() and off.text_content() == "다음 페이지부터 자동으로 켜지 않기"
    off.click()
    assert page.evaluate("() => localStorage.getItem('attnlib-live-auto')") is None
    out = ROOT / "_build" / "live_bench.txt"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n" + "\n".join(lines))
    assert not v.outside, f"requests outside the book: {v.outside}"
    assert not v.errors, f"console errors: {v.errors}"
    assert not stats["errors"], stats["errors"]


CORRECT = '''import numpy as np

from attnlib import check


def my_softmax_vjp(P, U):
    r = (P * U).sum(-1, keepdims=True)
    return P * (U - r)
'''
WRONG = CORRECT.replace("(P * U).sum(-1, keepdims=True)", "U.mean(-1, keepdims=True)")


def _type(page, editor, code: str):
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def test_exercise_goes_live(live_visit):
    """Chapter 8's first exercise in the page: ✔ for a right answer, ✘ and a hint for a wrong
    one, the code kept over a reload."""
    rel = _page("08_row_rule.html")
    v = live_visit(rel)
    page = v.page
    assert not v.live_requests()
    button = page.locator(EXERCISE_BUTTON).first
    button.scroll_into_view_if_needed()
    quiet = _quiet()
    clicked = time.perf_counter()
    button.click()
    editor = page.locator(".attnlib-live-editor .cm-content").first
    editor.wait_for(timeout=30_000)
    assert "raise NotImplementedError" in editor.inner_text()  # the stub, as the page shows it
    verdict = page.locator(".attnlib-live-verdict").first
    _type(page, editor, CORRECT)
    page.locator(".attnlib-live-run").first.click()
    page.wait_for_function(
        "() => /[✔✘]|Error/.test(document.querySelector('.attnlib-live-verdict').textContent)",
        timeout=LIVE_TIMEOUT_MS)
    first = time.perf_counter() - clicked
    assert verdict.inner_text().startswith("✔ check.softmax_vjp: 통과"), verdict.inner_text()
    _type(page, editor, WRONG)
    ran = time.perf_counter()
    page.keyboard.press("Shift+Enter")  # in the editor: runs and grades, as its label says
    page.wait_for_function(
        "() => /✘/.test(document.querySelector('.attnlib-live-verdict').textContent)",
        timeout=60_000)
    again = time.perf_counter() - ran
    lines = [f"live exercise, {rel} (load average {os.getloadavg()[0]:.1f}; {quiet})",
             f"  click -> first verdict         {first:6.2f} s  (loading and typing included)",
             f"  a later run -> its verdict     {again * 1000:6.0f} ms"]
    with (ROOT / "_build" / "live_bench.txt").open("a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n" + "\n".join(lines))
    text = verdict.inner_text()
    assert text.startswith("✘ check.softmax_vjp"), text
    assert "힌트: r 을 P 없이 구했습니다" in text, text
    page.reload(wait_until="load")
    page.locator(EXERCISE_BUTTON).first.click()
    editor = page.locator(".attnlib-live-editor .cm-content").first
    editor.wait_for(timeout=30_000)
    assert "U.mean(-1, keepdims=True)" in editor.inner_text(), "the code did not survive a reload"
    assert not v.outside, f"requests outside the book: {v.outside}"
    assert not v.errors, f"console errors: {v.errors}"


def test_stop_while_python_loads_then_run_again(live_visit):
    """「멈추기」 while Python is still loading ends that run (the buttons come back), and the
    next run loads Python again and grades."""
    v = live_visit(_page("08_row_rule.html"))
    page = v.page
    page.locator(EXERCISE_BUTTON).first.click()
    editor = page.locator(".attnlib-live-editor .cm-content").first
    editor.wait_for(timeout=30_000)
    _type(page, editor, CORRECT)
    run = page.locator(".attnlib-live-run").first
    run.click()
    assert page.evaluate("() => window.attnlibLive.ready") is None, "Python loaded already"
    page.locator(".attnlib-live-stop").first.click()
    verdict = page.locator(".attnlib-live-verdict").first
    page.wait_for_function(
        "() => document.querySelector('.attnlib-live-verdict').textContent === '계산을 멈췄습니다'",
        timeout=10_000)
    assert run.is_enabled() and not page.locator(".attnlib-live-stop").first.is_visible()
    run.click()
    page.wait_for_function(
        "() => /[✔✘]|오류/.test(document.querySelector('.attnlib-live-verdict').textContent)",
        timeout=LIVE_TIMEOUT_MS)
    assert verdict.inner_text().startswith("✔ check.softmax_vjp: 통과"), verdict.inner_text()
    assert not v.outside and not v.errors, (v.outside, v.errors)


def test_a_solution_goes_live_edited_and_run(live_visit):
    """A derivation exercise's solution (chapter 1, 연습 1) in the page: its code, edited (μ = 0)
    and run, prints what the edit computes: E[s] = 0, Var(s) = d_k = 64."""
    code = next(s["code"] for s in _ext_live().solutions(ROOT / "chapters") if s["id"] == "01-1")
    edited = code.replace("64, 0.5, 20_000", "64, 0.0, 20_000")
    assert edited != code
    v = live_visit(_page("01_variance.html"))
    page = v.page
    cell = ".cell.attnlib-ex-sol.attnlib-ex-id-01-1"
    page.locator(f".solution:has({cell}) .toggle-button").first.click()  # the dropdown, opened
    page.locator(f"{cell} + .attnlib-live .attnlib-live-on").click()
    editor = page.locator(f"{cell} .attnlib-live-editor .cm-content")
    editor.wait_for(timeout=30_000)
    _type(page, editor, edited)
    page.locator(f"{cell} .attnlib-live-run").click()
    page.wait_for_function(
        "(sel) => /식:|Error/.test(document.querySelector(sel).textContent)",
        arg=f"{cell} + .attnlib-live-verdict", timeout=LIVE_TIMEOUT_MS)
    printed = page.locator(f"{cell} + .attnlib-live-verdict").inner_text()
    assert "식: E[s] = 0.0, Var(s) = 64.0" in printed, printed
    assert not v.outside and not v.errors, (v.outside, v.errors)


def test_a_page_opened_as_a_file_says_why_live_is_off(browser):  # noqa: F811
    """A page opened from disk (file://) cannot start a Web Worker or import the editor: an
    explorer's bar and an exercise's say, in Korean, that the book must be served.  Its
    sliders still work: frames are scripts, which a page opened as a file may load."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto((HTML / _page("01_variance.html")).as_uri(), wait_until="load")
        explorer = page.locator(".attn-explorer").first
        before = explorer.locator(".attn-frame img").first.get_attribute("src")
        explorer.locator("input[type=range]").focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "([e, b]) => e.querySelector('.attn-frame img').getAttribute('src') !== b",
            arg=[explorer.element_handle(), before], timeout=10_000)
        for rel, button in (("01_variance.html", ".attnlib-live-on"),
                            ("08_row_rule.html", EXERCISE_BUTTON)):
            page.goto((HTML / _page(rel)).as_uri(), wait_until="load")
            page.locator(button).first.click()
            bar = page.locator(button).first.locator("xpath=..")
            page.wait_for_function(
                "(bar) => /웹 서버로 열어야/.test(bar.textContent)", arg=bar.element_handle(),
                timeout=10_000)
            assert "Failed" not in bar.inner_text(), bar.inner_text()
    finally:
        context.close()


# ------------------------------------------------------- every explorer, every exercise ----


@functools.cache
def _ext_live():
    """_ext/live.py, the book's extension: how the build reads specs and exercises."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("book_live_ext", ROOT / "_ext" / "live.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _specs() -> list[tuple[str, int, dict]]:
    read = _ext_live().page_specs
    return [(rel, k, spec) for rel in PAGES
            for k, spec in enumerate(read((HTML / rel).read_text(encoding="utf-8")))]


def _between(control: dict):
    """A value the frozen frames do not have: between two listed ones, or a listed index."""
    r = control["range"]
    if r is None:
        return {"index": (control["initial"] + 1) % len(control["labels"])}
    listed = sorted(float(x) for i, x in enumerate(control["labels"])
                    if i not in control["outside"])
    lo, hi = listed[0], listed[1]
    x = (lo + hi) / 2
    if r["integer"]:
        x = int(x) if int(x) not in (lo, hi) else int(lo) + 1
    return x


def test_every_explorer_has_a_live_spec_that_draws():
    """Each explorer of the built book carries a live spec, and attnlib.live.frame draws it at
    a value between the frozen ones (CPython here; the worker runs the same function)."""
    if not PAGES:
        _missing("no built book in _build/html")
    from attnlib import live

    specs = _specs()
    explorer_pages = {rel for rel in PAGES
                      if 'class="attn-explorer"' in (HTML / rel).read_text(encoding="utf-8")}
    assert explorer_pages <= {rel for rel, _, _ in specs}, (
        f"explorer pages without a live spec: {sorted(explorer_pages - {r for r, _, _ in specs})}")
    live.browser_setup()
    for rel, k, spec in specs:
        values = {c["name"]: _between(c) for c in spec["controls"]}
        t0 = time.perf_counter()
        result = json.loads(live.frame(spec["python"], values))
        ms = (time.perf_counter() - t0) * 1000
        # the frozen frames' pictures: attnlib.pictures tiles (WebP; PNG outside the book)
        images = [o for o in result["outputs"]
                  if {"image/webp", "image/png"} & o.get("data", {}).keys()]
        assert images, f"{rel} explorer {k}: no picture at {values}"
        for name, x in values.items():
            if not isinstance(x, dict):
                assert result["values"][name] != "", (rel, name)
        print(f"{rel} explorer {k}: {result['values']} in {ms:.0f} ms")


def test_every_exercise_stub_is_marked():
    """Every exercise stub cell is marked for the live editor and has its checker cell."""
    if not PAGES:
        _missing("no built book in _build/html")
    stubs = checks = 0
    for rel in PAGES:
        text = (HTML / rel).read_text(encoding="utf-8")
        ids = re.findall(r"attnlib-ex-stub attnlib-ex-id-([\d-]+)", text)
        for i in ids:
            assert f"attnlib-ex-check attnlib-ex-id-{i}" in text, f"{rel}: {i} has no check"
        stubs += len(ids)
        checks += len(re.findall(r"attnlib-ex-check", text))
        if ids or _ext_live().page_specs(text):
            assert "vendor/live/live.js" in text, f"{rel}: live page without live.js"
    assert stubs > 0 and stubs == checks


def _exercises() -> list[dict]:
    """Each exercise's stub, checker call and solution, from the chapters' cells."""
    return _ext_live().exercises(ROOT / "chapters")


def test_every_explorer_and_exercise_runs_in_pyodide(tmp_path):
    """In Pyodide (Node, the built book's _static/live/ files): every explorer draws a frame
    between its frozen values, every exercise's solution gets ✔ and its stub the checker's
    "not implemented" line, and every solution a reader can run in the page runs, as the
    page's worker would show them."""
    import shutil
    import subprocess

    if not PAGES or not (HTML / "_static" / "live" / "manifest.json").is_file():
        _missing("no built book with _static/live/ (make book)")
    if shutil.which("node") is None:
        _missing("no node")
    specs, exercises = _specs(), _exercises()
    solutions = _ext_live().solutions(ROOT / "chapters")
    jobs = {"frames": [{"spec": s["python"],
                        "values": {c["name"]: _between(c) for c in s["controls"]}}
                       for _, _, s in specs],
            "exercises": [{"code": e["solution"], "check": ""} for e in exercises]
            + [{"code": e["stub"], "check": e["check"]} for e in exercises]
            + [{"code": s["code"], "check": ""} for s in solutions]}
    (tmp_path / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
    proc = subprocess.run(["node", str(ROOT / "scripts" / "live" / "run_in_pyodide.mjs"),
                           str(HTML), str(tmp_path / "jobs.json")],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout)
    print(f"\nPyodide loaded in {results['load_ms'] / 1000:.1f} s (Node)")
    # The book's bytecode.zip (scripts/live/bytecode.mjs) is what the worker's Python runs:
    # Pyodide's own start, NumPy and matplotlib were not compiled here.
    code = results["bytecode"]
    print(f"  modules from bytecode.zip: {code['used']}; compiled here: {len(code['compiled'])} "
          f"{code['compiled'][:20]}")
    for name in ("pyodide", "json", "numpy", "numpy.linalg", "matplotlib.figure",
                 "matplotlib.backends.backend_agg", "PIL.Image", "attnlib.live"):
        assert name not in code["compiled"], f"{name}: compiled in Pyodide, not from bytecode.zip"
    assert code["used"] > 300, code
    for (rel, k, _), frame in zip(specs, results["frames"], strict=True):
        assert "error" not in frame, f"{rel} explorer {k}: {frame.get('error')}"
        assert frame["images"] >= 1, f"{rel} explorer {k}: no picture"
        print(f"  {rel} explorer {k}: {frame['values']} in {frame['ms']:.0f} ms")
    n = len(exercises)
    for e, solved, stub in zip(exercises, results["exercises"][:n], results["exercises"][n:2 * n],
                               strict=True):
        assert solved.startswith("✔"), f"exercise {e['id']}: {solved}"
        assert "아직 구현하지 않았습니다" in stub, f"exercise {e['id']} stub: {stub}"
    # The solutions a reader can edit and run in the page (exercises without a stub): each
    # runs without an error; how many print exactly what the build printed (other
    # arithmetic, WebAssembly's NumPy, may round a last digit differently) is reported.
    same = 0
    for sol, printed in zip(solutions, results["exercises"][2 * n:], strict=True):
        assert printed.strip(), f"solution {sol['id']} printed nothing"
        assert not re.search(r"^\w*(Error|Exception)( \(\d+번째 줄\))?: ", printed, re.M), (
            f"solution {sol['id']}: {printed}")
        same += printed == sol["printed"]
    print(f"  {len(solutions)} solutions run as the page runs them; {same} print exactly "
          "what the build printed")
    assert len(solutions) >= 20, len(solutions)
