"""The source edits issue 17's library changes ask of the chapters (and of the figure and view
files that still use the old names). Run once, at merge time, from the repository root:

    python scripts/issue17_chapter_edits.py          # apply (idempotent)
    python scripts/issue17_chapter_edits.py --check  # exit 1 while an edit is still to make

Only cell sources change, never outputs: every edited cell prints what it printed before (the
renamed functions are the same functions; chapter 13's monitor run is bit-identical in
``attnlib.torch``; chapters 4 and 5 keep torch autograd through ``autograd=True``). Each edit is
an exact old → new string; an old string that is neither present nor already replaced is
reported, so a chapter changed meanwhile is not edited blindly. Afterwards ``lib/attnlib/perf.py``
(the old name of ``attnlib.measure``) and its test in ``tests/test_bench_smoke.py`` can go.
"""

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# file -> [(old, new)], applied to every cell source (notebooks) or to the text (.py)
EDITS = {
    # attnlib.perf -> attnlib.measure; the explicit-Jacobian VJP is a backend function
    "chapters/part2/08_row_rule.ipynb": [
        ("from attnlib import perf\n", "from attnlib import measure\n"),
        ("delta_jac = perf.jacobian_vjp(P, U)  #", "delta_jac = A.softmax_jacobian_vjp(P, U)  #"),
        ("perf.row_rule_sweep(", "measure.row_rule_sweep("),
        ("perf.growth_exponent(", "measure.growth_exponent("),
    ],
    "chapters/appendix/performance.ipynb": [
        ("from attnlib import perf\n", "from attnlib import measure\n"),
        ("`attnlib.perf` 는", "`attnlib.measure` 는"),
        ("(`perf.jacobian_vjp`, 안에서", "(`A.softmax_jacobian_vjp`, 안에서"),
        ("perf.row_rule_sweep(", "measure.row_rule_sweep("),
        ("perf.growth_exponent(", "measure.growth_exponent("),
        ("perf.lse_sweep(", "measure.lse_sweep("),
        ("perf.torch_saved_sweep(", "measure.torch_saved_sweep("),
        ("perf.backend_race(", "measure.backend_race("),
        ("perf.frame_times(", "measure.frame_times("),
    ],
    # block_grid is public in both backends (the core path keeps working)
    "chapters/part3/18_blockwise_backward.ipynb": [
        ("from attnlib.core.blockwise import block_grid\n", ""),
        ("    grid = block_grid(64, 64,", "    grid = A.block_grid(64, 64,"),
    ],
    # the entropy monitor trains with torch autograd: attnlib.torch only
    "chapters/part2/13_peaked.ipynb": [
        ("from attnlib import numpy as A\nfrom attnlib import widgets\n",
         "from attnlib import numpy as A\nfrom attnlib import torch as T\n"
         "from attnlib import widgets\n"),
        ("(`A.train_monitored`)", "(`T.train_monitored`)"),
        ("healthy = A.train_monitored(", "healthy = T.train_monitored("),
        ("collapsed = A.train_monitored(", "collapsed = T.train_monitored("),
    ],
    # the training runs: the hand-written gradient in both backends, torch autograd on request
    "chapters/part1/04_experiment.ipynb": [
        ("B.train_single_query(scaled=scaled)\n",
         "B.train_single_query(scaled=scaled, autograd=B is T)\n"),
    ],
    "chapters/part1/05_devices.ipynb": [
        ("T.train_score_drift(fix=fix, ", "T.train_score_drift(fix=fix, autograd=True, "),
    ],
    # outside chapters/ (figures and view tests): the new names, so that perf.py can go
    "lib/attnlib/figures/part3.py": [
        ("from attnlib.core.blockwise import block_grid\n",
         "from attnlib.numpy import block_grid\n"),
    ],
    "lib/attnlib/figures/performance.py": [
        ("``attnlib.perf`` sweeps", "``attnlib.measure`` sweeps"),
    ],
    "lib/attnlib/figures/part2a.py": [
        ("``attnlib.perf.row_rule_sweep``", "``attnlib.measure.row_rule_sweep``"),
    ],
    "tests/test_views_part2a.py": [
        ("from attnlib import perf\n", "from attnlib import measure\n"),
        ("perf.row_rule_sweep(", "measure.row_rule_sweep("),
    ],
    "tests/test_views_part3.py": [
        ("from attnlib.core.blockwise import block_grid\n",
         "from attnlib.numpy import block_grid\n"),
    ],
}


def edit(text, edits, where):
    """``text`` with the edits applied, and a list of complaints (edits that found nothing)."""
    problems = []
    for old, new in edits:
        if new and new in text:
            continue  # done already (``new`` may contain ``old``)
        if old in text:
            text = text.replace(old, new)
        elif new:  # neither to do nor done (a deletion may be done)
            problems.append(f"{where}: not found: {old!r}")
    return text, problems


def apply(path, edits):
    """(changed, problems) for one file; notebooks are edited cell by cell, outputs untouched."""
    raw = path.read_text(encoding="utf-8")
    if path.suffix != ".ipynb":
        new, problems = edit(raw, edits, path.name)
        return new, new != raw, problems
    nb = json.loads(raw)
    joined = "\x00".join("".join(c["source"]) for c in nb["cells"])  # an edit stays in its cell
    new_joined, problems = edit(joined, edits, path.name)
    for cell, source in zip(nb["cells"], new_joined.split("\x00"), strict=True):
        cell["source"] = source.splitlines(keepends=True)
    new = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
    return new, new != raw, problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report what is still to do")
    args = parser.parse_args(argv)
    todo, problems = [], []
    for name, edits in EDITS.items():
        path = ROOT / name
        new, changed, found = apply(path, edits)
        problems += found
        if changed:
            todo.append(name)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    for name in todo:
        print(("to edit: " if args.check else "edited: ") + name)
    for problem in problems:
        print("CHECK BY HAND: " + problem)
    return 1 if problems or (args.check and todo) else 0


if __name__ == "__main__":
    sys.exit(main())
