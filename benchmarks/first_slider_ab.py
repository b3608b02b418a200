"""Time to the first working slider of two or more built books, in turn (issue 33).

The browser test's benchmark (``make first-slider``) times one build; on this shared 2-core
machine its medians move 0.1-0.2 s between runs minutes apart, more than most changes to a
page.  To tell whether a change helps, serve a copy of the book before it and one after it,
and visit them in turn, page by page, round by round, so that both see the same moments of
the machine::

    cp -al _build/html /tmp/before      # hard links: a copy in no time and no space
    # ... change, make book ...
    .venv/bin/python benchmarks/first_slider_ab.py /tmp/before _build/html --rounds 5

Each visit is the browser test's own (``tests/book/test_browser.py``: a new browser context,
cold cache, navigation to a key press on the page's first slider that changed the picture);
one visit of the first build's landing page comes before the first timed one.  Printed: per
page and build the medians (wired, key, works, as the test's report names them), then per
build the mean of the pages' medians and how many are over the 0.5 s target.  A visit whose
checks fail (an edited copy's console error, say) is left out of the medians and listed at
the end, and the run goes on (the exit status is then 1).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import statistics
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "book")]

import test_browser as tb  # noqa: E402  (the browser test's visit and benchmark)


def _serve(folder: Path) -> str:
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(tb._QuietHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("builds", nargs="+", type=Path, help="built books (folders with index.html)")
    ap.add_argument("--rounds", type=int, default=5, help="visits per page and build")
    ap.add_argument("--pages", help="comma-separated pages (default: every explorer page)")
    args = ap.parse_args(argv)
    for folder in args.builds:
        if not (folder / "index.html").is_file():
            ap.error(f"{folder}: no index.html (a built book's _build/html)")
    pages = args.pages.split(",") if args.pages else tb._slider_pages()
    origins = [_serve(folder) for folder in args.builds]
    times: dict[tuple[int, str], list[tuple[float, ...]]] = {}
    failed: list[str] = []  # visits whose checks failed: reported, the others still timed
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=tb.CHROMIUM, args=tb.CHROMIUM_ARGS,
                                     headless=True)
        pace = [tb.machine_speed(browser)]  # the machine's pace, printed with the table
        tb.Visit(browser, origins[0], "index.html").close()  # Chromium's start-up, untimed
        for _ in range(args.rounds):
            for rel in pages:
                for b, origin in enumerate(origins):
                    opened = []

                    def visit(page, origin=origin, opened=opened, **kw):
                        v = tb.Visit(browser, origin, page, **kw)
                        opened.append(v)
                        return v

                    try:
                        times.setdefault((b, rel), []).append(tb._first_slider(visit, rel))
                    except AssertionError as exc:  # e.g. an edited copy's console error
                        failed.append(f"{args.builds[b]} {rel}: {exc}".splitlines()[0])
                    finally:
                        for v in opened:
                            v.close()
        pace.append(tb.machine_speed(browser))
        browser.close()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs;"
          f" medians of {args.rounds} cold visits, s from navigation start; a fixed script"
          f" took {pace[0]:.0f} ms before the visits, {pace[1]:.0f} ms after them")
    print(f"{'page':<42} {'build':<24} {'wired':>6} {'key':>6} {'works':>6}")
    medians: dict[int, list[float]] = {b: [] for b in range(len(origins))}
    for rel in pages:
        for b, folder in enumerate(args.builds):
            if not times.get((b, rel)):
                print(f"{rel:<42} {str(folder)[-24:]:<24} every visit failed")
                continue
            wired, key, works = (statistics.median(t[i] for t in times[(b, rel)])
                                 for i in range(3))
            medians[b].append(works)
            print(f"{rel:<42} {str(folder)[-24:]:<24} {wired:6.3f} {key:6.3f} {works:6.3f}")
    target = tb.FIRST_SLIDER_TARGET_S
    for b, folder in enumerate(args.builds):
        xs = medians[b]
        if not xs:
            print(f"{folder}: no page timed")
            continue
        print(f"{folder}: mean of the medians {statistics.mean(xs):.3f} s, "
              f"{sum(x > target for x in xs)} of {len(xs)} pages over {target} s")
    for line in failed:
        print(f"failed visit: {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
