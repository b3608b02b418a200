"""`make test`: every stage CI runs, in two lanes side by side, each stage timed.

The install (the virtual environment, the npm files, Pyodide) comes first.  Then two lanes run
at once, each its stages in order:

- the book lane: the strict build (`make book`), then what reads it (`make browser`);
- the other lane: lint, the unit tests, nbval on other arithmetic, every chapter on PyTorch,
  the chapters as Colab runs them.

Last, with nothing else running, the first-working-slider benchmark (`make first-slider`):
a page's time to its first working slider is what the page costs a reader's machine, not
what two lanes of tests cost it too (under them it ran 1.5-3 times as long).  When a stage
has failed, it does not run (and has no row in the table).

The two cores are busy most of the time this way (the build is mostly one process; the browser
tests wait on the page much of the time).  Each stage writes to ``_build/logs/<stage>.log``,
printed whole when the stage ends.  A stage that fails stops its lane; the other lane finishes
the stage it is in and stops.  At the end: a table of the stages (lane, start and seconds after
the install began, status), also in ``_build/stage_times.txt``, and the wall-clock total.

What several stages compute alike is computed once per run: ``ATTNLIB_SHARE_DIR`` (a folder
emptied when the run starts) lets the first stage that asks write it and the others read it
(``attnlib.pure``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "_build" / "logs"
INSTALL = ["venv", "vendor", "pyodide"]
QUIET = "first-slider"  # after both lanes, alone
LANES = {
    "book": ["book", "browser"],
    "checks": ["lint", "unit", "nbval-portable", "switch", "colab"],
}
# A stage that reads what another lane's stage makes starts after it: Colab's ipywidgets 8 run
# takes the explorers from the built book.
AFTER = {"colab": "book"}
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


class Run:
    def __init__(self):
        self.t0 = time.monotonic()
        self.rows: list[tuple[str, str, float, float, float, int]] = []
        self.failed = threading.Event()
        self.lock = threading.Lock()
        self.done = {name: threading.Event() for stages in LANES.values() for name in stages}

    def stage(self, lane: str, name: str, targets: list[str]) -> int:
        log = LOGS / f"{name}.log"
        start = time.monotonic()
        with open(log, "w", encoding="utf-8") as out:
            proc = subprocess.Popen(["make", "--no-print-directory", *targets], cwd=ROOT,
                                    stdout=out, stderr=subprocess.STDOUT)
            # wait4: the stage's CPU seconds (make and every process it waited for), which the
            # wall clock of two lanes side by side hides
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = rc = os.waitstatus_to_exitcode(status)
        end = time.monotonic()
        cpu = usage.ru_utime + usage.ru_stime
        with self.lock:
            self.rows.append((name, lane, start - self.t0, end - start, cpu, rc))
            status = "ok" if rc == 0 else f"FAILED (exit {rc})"
            print(f"\n===== {name} ({lane}): {end - start:.0f} s, {status} =====", flush=True)
            sys.stdout.write(log.read_text(encoding="utf-8", errors="replace"))
            sys.stdout.flush()
        return rc

    def lane(self, lane: str, stages: list[str]):
        try:
            for name in stages:
                if name in AFTER:
                    while not (self.done[AFTER[name]].wait(1) or self.failed.is_set()):
                        pass
                if self.failed.is_set():
                    return
                rc = self.stage(lane, name, [name])
                self.done[name].set()
                if rc != 0:
                    self.failed.set()
                    return
        finally:
            for event in self.done.values():  # nothing waits on a lane that has stopped
                if self.failed.is_set():
                    event.set()

    def table(self) -> str:
        lines = [f"{'stage':<16} {'lane':<7} {'start':>6} {'seconds':>8} {'cpu s':>7}  status"]
        for name, lane, start, secs, cpu, rc in sorted(self.rows, key=lambda r: r[2]):
            lines.append(f"{name:<16} {lane:<7} {start:6.0f} {secs:8.0f} {cpu:7.0f}  "
                         f"{'ok' if rc == 0 else 'FAILED'}")
        busy = sum(r[3] for r in self.rows)
        cpu = sum(r[4] for r in self.rows)
        lines.append(f"{'wall clock':<16} {'':<7} {'':>6} {time.monotonic() - self.t0:8.0f} "
                     f"{cpu:7.0f}  (stages' seconds added up: {busy:.0f}; cpu s: what the "
                     "stage's processes used of the two cores)")
        return "\n".join(lines)


def main() -> int:
    LOGS.mkdir(parents=True, exist_ok=True)
    # One folder per run for what the stages compute alike and share (attnlib.pure's table of
    # chapter 1: the build, nbval, the switch, Colab and a unit test ask for the same numbers).
    share = ROOT / "_build" / "share"
    shutil.rmtree(share, ignore_errors=True)
    os.environ["ATTNLIB_SHARE_DIR"] = str(share)
    # One thread per process for BLAS, OpenMP and torch.  Two lanes run side by side and most
    # stages run two kernels or workers at once, on two cores: with each process's OpenMP
    # threads as many as the cores, they spun waiting for one another (the PyTorch switch took
    # 104 s and 193 CPU seconds alone, 57 s and 105 with one thread; 463 s next to the browser
    # tests).  No stored output depends on it: nbval-portable already runs on one thread.
    os.environ.update(ONE_THREAD)
    run = Run()
    if run.stage("-", "install", INSTALL) != 0:
        run.failed.set()
    else:
        threads = [threading.Thread(target=run.lane, args=(lane, stages))
                   for lane, stages in LANES.items()]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if not run.failed.is_set() and run.stage("-", QUIET, [QUIET]) != 0:
            run.failed.set()
    table = run.table()
    (ROOT / "_build" / "stage_times.txt").write_text(table + "\n", encoding="utf-8")
    print("\nmake test, seconds per stage (two lanes side by side):")
    print(table)
    return 1 if run.failed.is_set() else 0


if __name__ == "__main__":
    sys.exit(main())
