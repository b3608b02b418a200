"""Report the weight of each page of the built book (`make book` prints it).

For every page: the HTML itself (which carries the frozen explorer frames as widget
state) and the total with the local files the page loads (scripts, styles, images).
The shared scripts (widget manager, MathJax) are cached after the first page.

    python scripts/page_sizes.py _build/html [--json out.json] [--limit-mb 3]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path

ASSET = re.compile(r'(?:src|href)="([^"#?]+)(?:[?#][^"]*)?"')


def page_weights(root: Path) -> dict[str, dict[str, int]]:
    report = {}
    for page in sorted(root.rglob("*.html")):
        rel = page.relative_to(root).as_posix()
        if rel.startswith(("_static/", "_sources/", "_images/")):
            continue
        html = page.read_bytes()
        assets = set()
        for ref in ASSET.findall(html.decode("utf-8", "replace")):
            if "://" in ref or ref.startswith(("data:", "mailto:")) or ref.endswith(".html"):
                continue
            path = (page.parent / ref).resolve()
            if path.is_file() and root.resolve() in path.parents:
                assets.add(path)
        asset_bytes = sum(p.stat().st_size for p in assets)
        report[rel] = {
            "html": len(html),
            "html_gzip": len(gzip.compress(html)),
            "with_assets": len(html) + asset_bytes,
        }
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=Path)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--limit-mb", type=float, default=3.0, help="limit on a page's own HTML")
    args = ap.parse_args(argv)
    report = page_weights(args.root)
    mb = 1024 * 1024
    print(f"{'page':<40} {'HTML':>9} {'gzip':>9} {'+assets':>9}")
    worst = 0
    for rel, w in report.items():
        worst = max(worst, w["html"])
        print(
            f"{rel:<40} {w['html'] / mb:8.2f}M {w['html_gzip'] / mb:8.2f}M"
            f" {w['with_assets'] / mb:8.2f}M"
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    if worst > args.limit_mb * mb:
        print(f"a page's HTML exceeds {args.limit_mb} MB", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
