"""The notebooks as Colab runs them: a fresh environment, attnlib installed like from git.

A virtual environment with only what Colab has that the book uses (numpy, matplotlib,
torch, ipywidgets, plus the kernel and nbclient to drive it), at the versions pinned in
requirements.txt, and ``koreanize-matplotlib`` (the font).  ``attnlib`` is installed
from ``lib/`` as ``pip install "attnlib @ git+<url>#subdirectory=lib"`` would: a
regular, non-editable install.  Each chapter in ``_toc.yml`` is copied to a temporary
folder outside the repository and executed there in live mode; its install cell must
find attnlib and do nothing.

The environment is cached in ``_build/colab-venv`` (keyed by the pins), so a second
run only reinstalls attnlib.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.colab

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / "_build" / "colab-venv"
PACKAGES = [
    "numpy",
    "matplotlib",
    "torch",
    "ipywidgets",
    "koreanize-matplotlib",
    "ipykernel",
    "nbclient",
    "nbformat",
]


def _pins() -> list[str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            pins[name.strip().lower().replace("_", "-")] = version.strip()
    return [f"{p}=={pins[p]}" for p in PACKAGES if p in pins] + [
        p for p in PACKAGES if p not in pins
    ]


def _python() -> Path:
    return VENV / "bin" / "python"


def _chapters() -> list[str]:
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))

    def files(node):
        if isinstance(node, dict):
            out = [node["file"]] if "file" in node else []
            return out + [f for v in node.values() for f in files(v)]
        if isinstance(node, list):
            return [f for item in node for f in files(item)]
        return []

    return [f + ".ipynb" for f in files(toc) if (ROOT / (f + ".ipynb")).is_file()]


@pytest.fixture(scope="module")
def colab_python():
    pins = _pins()
    key = hashlib.sha256(json.dumps([sys.version, pins]).encode()).hexdigest()[:16]
    stamp = VENV / ".pins"
    if not (stamp.is_file() and stamp.read_text() == key and _python().is_file()):
        shutil.rmtree(VENV, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run(
            [str(_python()), "-m", "pip", "install", "-q", "--disable-pip-version-check", *pins],
            check=True,
        )
        stamp.write_text(key)
    # attnlib as Colab gets it: built from lib/ and installed, not linked to the repo.
    subprocess.run(
        [
            str(_python()),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "--force-reinstall",
            "--no-deps",
            str(ROOT / "lib"),
        ],
        check=True,
    )
    return _python()


_RUN = r"""
import sys, nbformat
from nbclient import NotebookClient
path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=False,
               resources={"metadata": {"path": sys.argv[2]}}).execute()
nbformat.write(nb, path)
"""


@pytest.mark.parametrize("chapter", _chapters())
def test_notebook_runs_like_colab(colab_python, chapter):
    import nbformat

    with tempfile.TemporaryDirectory(prefix="colab-") as tmp:
        nb_path = Path(tmp) / Path(chapter).name
        shutil.copy(ROOT / chapter, nb_path)
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("ATTNLIB_WIDGETS", "PYTHONPATH", "VIRTUAL_ENV", "ATTNLIB_CLAIMS_DIR")
        }
        env["PATH"] = f"{colab_python.parent}{os.pathsep}{env.get('PATH', '')}"
        env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
        proc = subprocess.run(
            [str(colab_python), "-c", _RUN, str(nb_path), tmp],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert proc.returncode == 0, proc.stderr[-4000:]
        nb = nbformat.read(nb_path, as_version=4)
    first = nb.cells[0]
    assert "remove-cell" in first.metadata.get("tags", [])
    assert not first.outputs, "the install cell did something although attnlib is installed"
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out.output_type != "error"
            if out.output_type == "stream":
                assert out.name == "stdout", f"{chapter}: stderr: {out.text[:500]}"
    # attnlib came from the fresh environment, not from the repository checkout.
    where = subprocess.run(
        [str(colab_python), "-c", "import attnlib; print(attnlib.__file__)"],
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(VENV) in where and str(ROOT / "lib") not in where
