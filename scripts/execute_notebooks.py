"""Re-execute the chapters in place, so the outputs stored in git are current (`make notebooks`).

For every notebook under the given folders (default: chapters/):
1. the first cell becomes the install cell (tag ``remove-cell``), written from the
   repository URL in ``_config.yml``, so Colab can fetch ``attnlib`` from git;
2. the notebook runs top to bottom with nbclient in its own folder, with sliders in
   live mode (``ATTNLIB_WIDGETS=live``), so no frozen frames are produced;
3. widget state and widget views are stripped (the built book recreates them); text
   and figure outputs stay, including the static picture an explorer leaves beside its
   widget view, so GitHub and Colab show results before anything runs; consecutive
   chunks of one stream are joined.

    python scripts/execute_notebooks.py [--check] [folder-or-notebook ...]

``--check`` only rewrites install cells and reports; it executes nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
INSTALL_TAG = "remove-cell"
INSTALL_MARK = "# attnlib 설치 (Colab 등):"


def repository_url(config: Path = ROOT / "_config.yml") -> str:
    """The one place the repository URL is written: ``repository.url`` in _config.yml."""
    url = yaml.safe_load(config.read_text(encoding="utf-8"))["repository"]["url"]
    return url.rstrip("/")


def install_source(url: str | None = None) -> str:
    """The first cell of every notebook: install attnlib from git when it is missing."""
    url = url or repository_url()
    return (
        f"{INSTALL_MARK} 없을 때만 저장소의 lib/ 에서 설치합니다.\n"
        "# 있으면 아무것도 하지 않습니다.\n"
        "import importlib.util\n"
        "import subprocess\n"
        "import sys\n"
        "\n"
        'if importlib.util.find_spec("attnlib") is None:\n'
        '    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q",\n'
        f'                           "attnlib @ git+{url}#subdirectory=lib"])'
    )


def set_install_cell(nb) -> bool:
    """Make the first cell the install cell; True when the notebook changed."""
    source = install_source()
    first = nb.cells[0] if nb.cells else None
    if first is not None and first.cell_type == "code" and first.source.startswith(INSTALL_MARK):
        changed = first.source != source or INSTALL_TAG not in first.metadata.get("tags", [])
        first.source = source
        tags = first.metadata.setdefault("tags", [])
        if INSTALL_TAG not in tags:
            tags.append(INSTALL_TAG)
        return changed
    nb.cells.insert(0, nbformat.v4.new_code_cell(source, metadata={"tags": [INSTALL_TAG]}))
    return True


def strip(nb) -> None:
    """Drop widget state, widget views and per-run metadata; keep text and figures.

    Consecutive prints to the same stream are joined into one output: how the kernel happened
    to flush them is not part of what a cell prints, and would otherwise churn the diff."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        kept = []
        for out in cell.outputs:
            data = out.get("data")
            if data is not None and WIDGET_VIEW in data:
                del data[WIDGET_VIEW]
                if not data:
                    continue
            prev = kept[-1] if kept else None
            if (out.get("output_type") == "stream" and prev is not None
                    and prev.get("output_type") == "stream" and prev["name"] == out["name"]):
                prev["text"] = "".join(prev["text"]) + "".join(out["text"])
                continue
            kept.append(out)
        cell.outputs = kept


def execute(path: Path) -> None:
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    set_install_cell(nb)
    env_backup = os.environ.get("ATTNLIB_WIDGETS")
    backend_backup = os.environ.get("ATTNLIB_BACKEND")
    os.environ["ATTNLIB_WIDGETS"] = "live"
    os.environ["ATTNLIB_BACKEND"] = "numpy"  # the stored outputs are the NumPy run's
    try:
        NotebookClient(
            nb,
            timeout=600,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
            store_widget_state=True,  # nbclient needs it to route Output captures; stripped below
            record_timing=False,
        ).execute()
    finally:
        for name, value in (("ATTNLIB_WIDGETS", env_backup), ("ATTNLIB_BACKEND", backend_backup)):
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    strip(nb)
    nb.metadata["kernelspec"] = {
        "display_name": "Python 3",
        "language": "python",
        "name": "python3",
    }
    nbformat.validate(nb)
    nbformat.write(nb, path)


def notebooks(targets: list[str]) -> list[Path]:
    """The notebooks named, or found under the folders named (checkpoints left out)."""
    found = []
    for t in targets:
        p = Path(t)
        found += [p] if p.suffix == ".ipynb" else sorted(p.rglob("*.ipynb"))
    return [p for p in found if ".ipynb_checkpoints" not in p.parts]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("targets", nargs="*", default=[str(ROOT / "chapters")])
    ap.add_argument("--check", action="store_true", help="only rewrite install cells")
    args = ap.parse_args(argv)
    for path in notebooks(args.targets):
        if args.check:
            nb = nbformat.read(path, as_version=4)
            if set_install_cell(nb):
                nbformat.write(nb, path)
                print(f"install cell updated: {path}")
            continue
        print(f"executing {path} ...", flush=True)
        execute(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
