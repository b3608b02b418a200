"""``make bench``: the benchmark suite. Prints one table of ratios measured side by side in this
run, the goals (MET / MISSED / SKIPPED), and writes the results to ``_build/bench/bench.json``.

Sections: 1 backends (attnlib.numpy, attnlib.torch's Function, torch autograd, SDPA),
2 row rule vs explicit Jacobian, 3 LSE vs saved P (memory), 4 the book (needs ``make book``).
``--quick`` runs every code path at toy sizes (seconds; the smoke test uses it).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _pin_threads(argv) -> None:
    """``--threads N``: BLAS and OpenMP read their thread count at import, so set it and re-exec
    before NumPy or torch is loaded (a shared, busy machine measures steadier on one thread)."""
    if "--threads" not in argv:
        return
    i = argv.index("--threads")
    n = argv[i + 1] if i + 1 < len(argv) else ""
    if n.isdigit() and any(os.environ.get(v) != n for v in THREAD_VARS):
        os.environ.update({v: n for v in THREAD_VARS})
        os.execv(sys.executable, [sys.executable, __file__, *argv])


if __name__ == "__main__":
    _pin_threads(sys.argv[1:])
if str(ROOT) not in sys.path:  # run as a script: make the benchmarks package importable
    sys.path.insert(0, str(ROOT))

from benchmarks import book, kernels  # noqa: E402
from benchmarks.report import Report, print_table, write_json  # noqa: E402

FULL = {"sizes": [256, 1024, 2048], "dtypes": ["float64", "float32"], "rounds": 7,
        "budget_s": 4.0, "row_n": 16, "row_ms": [64, 128, 256, 512, 1024], "row_rounds": 3,
        "lse_ns": [256, 512, 1024, 2048, 4096], "goal_n": 1024, "live_switches": 6,
        "live_budget_s": 120.0}
QUICK = {"sizes": [64, 128], "dtypes": ["float64", "float32"], "rounds": 2, "budget_s": 0.5,
         "row_n": 4, "row_ms": [16, 32, 64], "row_rounds": 1, "lse_ns": [32, 64],
         "goal_n": 128, "live_switches": 2,
         "live_budget_s": 60.0}
GOALS = {"page_mb": 3.0, "frozen_ms": 50.0, "live_ms": 100.0, "book_s": 300.0}


def section_book(report: Report, root: Path, cfg: dict, args) -> None:
    """§4: build time per chapter, page weight, frozen switch in Chromium, live update."""
    build = args.build.resolve() if args.build else root / "_build"
    html = build / "html"
    docs = book.chapters(root)
    if not (html / "index.html").exists():
        msg = f"§4 skipped: no built book at {html} — run `make book` first"
        print(msg)
        report.notes.append(msg)
        for name, target in [("pages ≤ 3 MB", "≤ 3 MB"), ("frozen switch", "< 50 ms"),
                             ("make book", "≤ 5 min")]:
            report.goal(name, target, "no built book", None, "run `make book`")
    else:
        runtimes = book.execution_times(build)
        for doc in docs:
            if doc in runtimes:
                report.add("4", "chapter execution (build)", doc.split("/")[-1], "exec",
                           runtimes[doc], "goal", 20.0, "ms", note="goal < 20 s per notebook")
        total_exec = sum(runtimes.values())
        report.data["book_exec_s"] = runtimes
        if args.book_wall_s is not None:
            wall, how = args.book_wall_s, "timed `make book`"
        else:
            wall, how = book.build_wall_time(build), "lower bound from MyST-NB's records"
        report.data["book_wall_s"] = wall
        report.goal("make book", "≤ 5 min on 2 cores",
                    "unknown" if wall is None else
                    f"{wall:.0f} s ({how}; notebooks {total_exec:.0f} s)",
                    None if wall is None else wall <= GOALS["book_s"])
        sizes = book.page_sizes(html, docs)
        report.data["page_bytes"] = sizes
        for doc, s in sizes.items():
            report.add("4", "page weight (HTML+images)", doc.split("/")[-1], "page", s["total"],
                       "goal", GOALS["page_mb"] * 1e6, "MB")
        worst = max(sizes.items(), key=lambda kv: kv[1]["total"], default=None)
        report.goal("pages ≤ 3 MB", "≤ 3 MB each",
                    "no pages" if worst is None else
                    f"largest {worst[0]} {worst[1]['total'] / 1e6:.2f} MB",
                    None if worst is None else worst[1]["total"] <= GOALS["page_mb"] * 1e6)
        with_sliders = [d for d, s in sizes.items() if s["sliders"]]
        if args.no_browser or not with_sliders:
            why = "--no-browser" if args.no_browser else "no page has a slider"
            report.goal("frozen switch", "< 50 ms", "not measured", None, why)
        else:
            times = book.frozen_switch_times(html, with_sliders,
                                             per_slider=2 if args.quick else 4)
            report.data["frozen_switch_ms"] = times
            for doc, ts in times.items():
                if ts:
                    report.add("4", "frozen switch (Chromium)", doc.split("/")[-1], "med",
                               book.median(ts) / 1e3, "goal", GOALS["frozen_ms"] / 1e3, "ms",
                               note=f"max {max(ts):.1f} ms over {len(ts)} switches")
            all_ts = [t for ts in times.values() for t in ts]
            worst = max((book.median(ts) for ts in times.values() if ts), default=None)
            report.goal("frozen switch", "< 50 ms (median of each page)",
                        "no slider rendered" if worst is None else
                        f"worst page median {worst:.1f} ms, max {max(all_ts):.1f} ms",
                        None if worst is None else worst < GOALS["frozen_ms"])
    # live updates need no build: a kernel runs the chapters that have explorers
    notebooks = [ROOT / "benchmarks" / "toy_explorer.ipynb"] if args.quick else \
        book.with_explorers(root, docs)
    if args.no_live or not notebooks:
        report.goal("live update", "< 100 ms", "not measured", None,
                    "--no-live" if args.no_live else "no chapter has an explorer")
        return
    live = book.live_update_times(notebooks, max_switches=cfg["live_switches"],
                                  budget_s=cfg["live_budget_s"])
    report.data["live_update_s"] = live
    if live.get("skipped"):
        report.notes.append(f"§4 live update: time budget spent, not run: {live['skipped']}")
    medians = []
    for path, res in live.items():
        if path == "skipped":
            continue
        if "error" in res:
            report.notes.append(f"§4 live update: {Path(path).name} failed to run: "
                                f"{res['error'].splitlines()[-1][:160]}")
            continue
        for ex in res["explorers"]:
            medians.append(ex["median"])
            report.add("4", f"live update: {ex['control']}"[:34], Path(path).stem, "med",
                       ex["median"], "goal", GOALS["live_ms"] / 1e3, "ms",
                       note=f"max {ex['max'] * 1e3:.1f} ms over {ex['n']} updates")
    report.goal("live update", "< 100 ms (median per control)",
                "no explorer found" if not medians else f"worst {max(medians) * 1e3:.1f} ms",
                None if not medians else max(medians) * 1e3 < GOALS["live_ms"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="toy sizes: every path, seconds")
    parser.add_argument("--sections", default="1234", help="which sections to run (e.g. 12)")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "bench",
                        help="folder for bench.json (default _build/bench)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the book (for section 4)")
    parser.add_argument("--build", type=Path, default=None,
                        help="the build folder holding html/ and .doctrees/ (default ROOT/_build)")
    parser.add_argument("--device", default=None, help="torch device (default: cuda if present)")
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium timing")
    parser.add_argument("--no-live", action="store_true", help="skip the live-kernel timing")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for BLAS/OpenMP (NumPy and torch), e.g. 1 on a busy machine")
    parser.add_argument("--time-book", action="store_true",
                        help="run `make book` first and time it (minutes)")
    args = parser.parse_args(argv)
    args.book_wall_s = None
    if args.time_book:
        t_book = time.perf_counter()
        subprocess.run(["make", "book"], cwd=args.root, check=True)
        args.book_wall_s = time.perf_counter() - t_book

    import torch

    cfg = QUICK if args.quick else FULL
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    report = Report()
    t0 = time.perf_counter()
    spent = {}

    def timed(name, fn, *a, **kw):
        t = time.perf_counter()
        out = fn(*a, **kw)
        spent[name] = time.perf_counter() - t
        return out

    if "1" in args.sections:
        results = timed("§1", kernels.backends, report, cfg["sizes"], cfg["dtypes"],
                        cfg["rounds"], cfg["budget_s"])
        if device != "cpu":
            timed("§1 " + device, kernels.backends, report, cfg["sizes"], cfg["dtypes"],
                  cfg["rounds"], cfg["budget_s"], device=device)
        kernels.goals_backends(report, results, cfg["goal_n"])
    if "2" in args.sections:
        timed("§2", kernels.row_rule, report, cfg["row_n"], cfg["row_ms"], cfg["row_rounds"],
              fit_from=cfg["row_ms"][1])
    if "3" in args.sections:
        timed("§3", kernels.lse, report, cfg["lse_ns"], device=device)
    if "4" in args.sections:
        timed("§4", section_book, report, args.root.resolve(), cfg, args)
    elapsed = time.perf_counter() - t0
    threads = os.environ.get("OMP_NUM_THREADS", "default")
    per_section = ", ".join(f"{k} {v:.0f}" for k, v in spent.items())
    report.notes.append(f"seconds per section: {per_section}")
    report.notes.append(f"suite ran in {elapsed:.0f} s on {device} (threads: {threads}, torch "
                        f"{torch.get_num_threads()}); times are the best of "
                        "interleaved rounds, ratios A/B come from the same run")
    print_table(report)
    path = write_json(report, args.out, {"quick": args.quick, "device": device,
                                         "config": cfg, "elapsed_s": elapsed})
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
