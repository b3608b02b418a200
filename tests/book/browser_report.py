"""The browser tests' report (bytes per page, first working slider, prefetched moves), kept
across pytest-xdist workers.

``make browser`` runs the browser tests on several workers, each with its own Chromium, so
that one page's waits (network idle, book.js's idle-time measures, colour transitions) overlap
another's work.  Each worker writes what it measured to ``_build/browser_report.parts/<run>/``
when its test module ends; at the end of the run the controller (``tests/conftest.py``) merges
the parts, writes ``_build/browser_report.txt`` and prints it.  ``<run>`` is set once by the
controller and inherited by its workers, so a test run beside it (``make test``'s other lane)
never reads or clears this run's parts.

The first-working-slider benchmark is timed apart, with nothing else running (``make
first-slider``, the last stage of ``make test``): its run adds its table to the report of the
same build, and a later ``make browser`` keeps it (``_build/browser_report.json``).
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PARTS = ROOT / "_build" / "browser_report.parts"
OUT = ROOT / "_build" / "browser_report.txt"
RUN = "ATTNLIB_BROWSER_REPORT_RUN"
STATE = ROOT / "_build" / "browser_report.json"  # the tables OUT shows, and of which build
BUILT = ROOT / "_build" / "html" / "index.html"
TABLES = ("bytes", "first_slider", "prefetched")
# what describes the first_slider table (kept with it)
FIRST_SLIDER_META = ("target_s", "visits", "workers", "load", "cpus", "speed_ms")
SPEED_RUNS = 5  # runs of the fixed script per reading (test_browser.machine_speed)


def machine() -> dict:
    """The load average and the CPUs, when a run's measurements end (its part keeps them)."""
    load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return {"load": load, "cpus": os.cpu_count()}


def start_run() -> None:
    """Called by the controller before its workers start: a fresh folder for this run."""
    os.environ[RUN] = uuid.uuid4().hex


def save_part(data: dict) -> None:
    """One worker's (or a run without workers') measurements."""
    if not any(data.get(k) for k in TABLES):
        return
    folder = PARTS / os.environ.get(RUN, "single")
    folder.mkdir(parents=True, exist_ok=True)
    name = os.environ.get("PYTEST_XDIST_WORKER", "main")
    (folder / f"{name}-{uuid.uuid4().hex[:8]}.json").write_text(json.dumps(data),
                                                                 encoding="utf-8")


def finish() -> list[str]:
    """Merges this run's parts, writes the report and returns its lines (none: nothing ran)."""
    folder = PARTS / os.environ.get(RUN, "single")
    if not folder.is_dir():
        return []
    run: dict = {key: {} for key in TABLES}
    for part in sorted(folder.glob("*.json")):
        got = json.loads(part.read_text(encoding="utf-8"))
        for key in TABLES:
            run[key].update(got.get(key, {}))
        run.update({k: v for k, v in got.items() if k not in TABLES})
    shutil.rmtree(folder, ignore_errors=True)
    data = keep_earlier(run, _earlier(), _built())
    lines = format_lines(data)
    if lines:
        OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
        STATE.write_text(json.dumps(data), encoding="utf-8")
    return lines


def _built() -> int:
    """Which build the pages are: the time the built book's front page was written."""
    return BUILT.stat().st_mtime_ns if BUILT.is_file() else 0


def _earlier() -> dict:
    try:
        return json.loads(STATE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def keep_earlier(run: dict, earlier: dict, built: int) -> dict:
    """This run's tables, and an earlier run's tables of the same build that this run did not
    measure (the quiet benchmark and the browser tests are two runs)."""
    data = {**{key: run.get(key) or {} for key in TABLES}, "built": built}
    data.update({k: run[k] for k in FIRST_SLIDER_META if k in run})
    if not built or earlier.get("built") != built:
        return data
    for key in TABLES:
        if not data[key] and earlier.get(key):
            data[key] = earlier[key]
            if key == "first_slider":
                data.update({k: earlier[k] for k in FIRST_SLIDER_META if k in earlier})
    return data


def format_lines(r: dict) -> list[str]:
    lines = []
    if r["bytes"]:
        lines.append("bytes fetched on a first visit (MB = 10^6; gzip as a server sends them;"
                     " frames: explorer frames prefetched once near the screen, not counted)")
        lines.append(f"{'page':<42} {'HTML':>7} {'gzip':>7} {'all gzip':>9} {'frames':>7}")
        for rel, (raw, sent_html, sent, pre) in sorted(r["bytes"].items()):
            lines.append(f"{rel:<42} {raw / 1e6:7.3f} {sent_html / 1e6:7.3f} {sent / 1e6:9.3f}"
                         f" {pre / 1e6:7.3f}")
    if r["first_slider"]:
        target = r["target_s"]
        now = machine()
        load, cpus = r.get("load", now["load"]), r.get("cpus", now["cpus"])
        lines.append("time to first working slider (s from navigation start to a key press that"
                     f" changed the picture; median of {r['visits']} cold visits;"
                     f" {r['workers']} browser test workers; load average at the end"
                     f" {load} on {cpus} CPUs)")
        lines.append("  wired: explorer.js has wired the page's first explorer; key: the key press"
                     " on its first slider reached the page; works: the new picture was in a"
                     " frame the page had handed on (watched in the page: the animation frame"
                     " after the one that drew it), or on screen after the key (Event Timing),"
                     " whichever came later; parsed: DOMContentLoaded")
        lines.append(f"{'page':<42} {'wired':>6} {'key':>6} {'works':>6} {'parsed':>6}"
                     f"  (target {target} s)")
        over = after_parse = visits_n = 0
        for rel, (wired, key, works, parsed, tries, later) in sorted(r["first_slider"].items()):
            mark = "  over the target" if works > target else ""
            over += bool(mark)
            after_parse += later
            visits_n += len(tries)
            visits = ", ".join(f"{t:.3f}" for t in tries)
            lines.append(f"{rel:<42} {wired:6.3f} {key:6.3f} {works:6.3f} {parsed:6.3f}{mark}"
                         f"  (visits: {visits})")
        lines.append(f"{over} of {len(r['first_slider'])} pages over the {target} s target;"
                     f" in {after_parse} of {visits_n} visits the picture changed after"
                     " DOMContentLoaded")
        speed = r.get("speed_ms") or []
        if speed:  # the machine's pace, which drifts from hour to hour on a shared machine
            lines.append("the machine: a fixed script in a blank page took "
                         + " ms before the visits, ".join(f"{ms:.0f}" for ms in speed)
                         + f" ms{' after them' if len(speed) > 1 else ''} (median of"
                         f" {SPEED_RUNS}; the same build's times move with it)")
    if r["prefetched"]:
        lines.append("a move to a prefetched frame (key press -> picture changed; 'yes' = before"
                     " the next animation frame's callbacks, so drawn in that frame)")
        for rel, (ms, in_frame) in sorted(r["prefetched"].items()):
            lines.append(f"{rel:<42} {ms:7.1f} ms  {'yes' if in_frame else 'NO'}")
    return lines
