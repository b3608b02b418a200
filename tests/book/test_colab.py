"""The chapters as a Colab reader runs them: Colab's package versions, the chapter's install cell.

``tests/colab_versions.txt`` lists Colab's runtime (its date and source, and where this test
departs from it: Python 3.11 here, not 3.12/3.13).  Two variants, each a virtual
environment cached in ``_build/colab-<variant>`` and rebuilt when its list changes:

- ``colab``: exactly that list; ipywidgets 7.7.1 is imported when the kernel starts (an
  IPython startup file), as Colab's kernel imports it through ``google.colab``;
- ``ipywidgets8``: the same with ipywidgets 8.1, also imported at start: a reader who
  installed it and restarted the runtime.

Each chapter in ``_toc.yml`` is copied to a folder outside the repository (Colab's
``/content``) and run by nbclient in a fresh kernel.  Its first cell, unchanged, installs
attnlib with pip from the URL in ``_config.yml``; git's ``url.<base>.insteadOf`` sends that
URL to a snapshot of this checkout's ``lib/`` (the working tree, committed or not).  Checked:
the cell installed attnlib from that URL; pip changed none of the listed versions (``pip
freeze`` before and after: only attnlib and koreanize-matplotlib are new); the kernel still
runs the ipywidgets it started with; no cell fails or writes to stderr (the kernel forwards
what pip, a subprocess, writes, as in Colab; pip reads no configuration of this machine).

Each chapter runs in a throwaway environment layered over the variant's (a ``.pth`` file
puts the variant's packages on ``sys.path``; pip sees them as installed and installs
anything new into the layer), so the cached environment itself never changes.  ``make
colab`` runs the two variants side by side (``-n 2 --dist loadgroup``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.colab

ROOT = Path(__file__).resolve().parents[2]
VERSIONS = ROOT / "tests" / "colab_versions.txt"
VARIANTS = ("colab", "ipywidgets8")
INSTALLED_BY_CELL = {"attnlib", "koreanize-matplotlib"}  # what the install cell may add
PRELOADED = "COLAB_TEST_PRELOADED_IPYWIDGETS"


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(variant: str) -> dict[str, str]:
    """``{package: version}`` of one variant: ``[colab]``, updated by ``[variant]``."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in VERSIONS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
        elif line:
            name, version = line.split("==")
            current[_canon(name)] = version.strip()
    return {**sections["colab"], **(sections[variant] if variant != "colab" else {})}


def _pip(python: Path, *args: str) -> None:
    subprocess.run([str(python), "-m", "pip", "-q", "--disable-pip-version-check", *args],
                   check=True)


def freeze(python: Path) -> dict[str, str]:
    """``pip freeze --all`` as ``{package: version or 'name @ url' line}``."""
    out = subprocess.run([str(python), "-m", "pip", "freeze", "--all"], capture_output=True,
                         text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        if "==" in line:
            name, version = line.split("==", 1)
            found[_canon(name)] = version.strip()
        elif " @ " in line:
            found[_canon(line.split(" @ ", 1)[0])] = line.strip()
    return found


def _environment(variant: str) -> Path:
    """The variant's virtual environment (its Python), built once per version list."""
    want = pins(variant)
    venv = ROOT / "_build" / f"colab-{variant}"
    python = venv / "bin" / "python"
    key = hashlib.sha256(json.dumps([sys.version, sorted(want.items())]).encode()).hexdigest()
    stamp = venv / ".versions"
    if stamp.is_file() and stamp.read_text() == key and python.is_file() \
            and freeze(python) == want:
        return python
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    _pip(python, "install", f"pip=={want['pip']}")
    requirements = venv / "requirements.txt"
    requirements.write_text("".join(f"{n}=={v}\n" for n, v in want.items() if n != "pip"))
    # --no-deps: exactly the list, nothing a resolver would add (or a torch it would fetch)
    _pip(python, "install", "--no-deps", "-r", str(requirements))
    got = freeze(python)
    assert got == want, {n: (want.get(n), got.get(n)) for n in {*want, *got}
                         if want.get(n) != got.get(n)}
    stamp.write_text(key)
    return python


def _layer(python: Path, where: Path) -> Path:
    """A virtual environment over ``python``'s: its packages visible, new installs its own."""
    subprocess.run([str(python), "-m", "venv", "--without-pip", str(where)], check=True)
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    below = subprocess.run([str(python), "-c", purelib], capture_output=True, text=True,
                           check=True).stdout.strip()
    above = next(where.glob("lib/python*/site-packages"))
    # an `import` line in a .pth runs at start-up; addsitedir also reads the .pth files there
    (above / "colab-runtime.pth").write_text(f"import site; site.addsitedir({below!r})\n")
    return where / "bin" / "python"


def _chapters() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))

    def files(node):
        if isinstance(node, dict):
            out = [node["file"]] if "file" in node else []
            return out + [f for v in node.values() for f in files(v)]
        if isinstance(node, list):
            return [f for item in node for f in files(item)]
        return []

    return [f + ".ipynb" for f in files(toc) if (ROOT / (f + ".ipynb")).is_file()]


def _repository_url() -> str:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    return config["repository"]["url"].rstrip("/")


@pytest.fixture(scope="session")
def lib_snapshot(tmp_path_factory) -> Path:
    """A git repository holding this checkout's ``lib/`` as it is on disk, in one commit."""
    repo = tmp_path_factory.mktemp("attention-book")
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z", "--", "lib"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for rel in filter(None, files.split("\0")):
        if (ROOT / rel).is_file():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, repo / rel)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@localhost"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "lib/ as on disk"]):
        subprocess.run(git + args, cwd=repo, check=True)
    return repo


@pytest.fixture(scope="session")
def environments():
    """Each variant's Python, built on first use (so one xdist worker builds only its own)."""
    built: dict[str, Path] = {}

    def get(variant: str) -> Path:
        if variant not in built:
            built[variant] = _environment(variant)
        return built[variant]

    return get


# Runs in the variant's Python: the notebook with nbclient, its folder as working directory.
_RUN = r"""
import sys, nbformat
from nbclient import NotebookClient
path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
nb.cells.append(nbformat.v4.new_code_cell(sys.argv[3]))
NotebookClient(nb, timeout=900, kernel_name="python3", allow_errors=False,
               resources={"metadata": {"path": sys.argv[2]}}).execute()
nbformat.write(nb, path)
"""

# Appended to each chapter: what the kernel ran with, after the chapter.
_CHECK = f"""
import importlib.metadata, json, os
import attnlib, ipywidgets
print("COLAB_CHECK " + json.dumps({{"preloaded": os.environ.get("{PRELOADED}"),
    "running": ipywidgets.__version__, "attnlib": attnlib.__file__}}))
"""

# Colab's kernel imports ipywidgets before the first cell runs; so does this one.
_STARTUP = f"""
import os as _os, ipywidgets as _ipywidgets
_os.environ["{PRELOADED}"] = _ipywidgets.__version__
del _os, _ipywidgets
"""


def _kernel_env(python: Path, home: Path, redirect: dict[str, str]) -> dict[str, str]:
    """A Colab-like environment: no trace of this repository or its venv; ipywidgets preloaded.

    Without PYTEST_CURRENT_TEST the kernel forwards what subprocesses (pip) write, as
    Colab's does; pip reads no configuration file (this machine's extra indexes would
    make it warn) and keeps only the certificate and timeout settings."""
    keep_pip = ("PIP_CERT", "PIP_DEFAULT_TIMEOUT", "PIP_DISABLE_PIP_VERSION_CHECK")
    env = {k: v for k, v in os.environ.items()
           if k not in ("ATTNLIB_WIDGETS", "ATTNLIB_CLAIMS_DIR", "PYTHONPATH", "VIRTUAL_ENV",
                        "PYTEST_CURRENT_TEST")
           and not k.startswith("GIT_CONFIG")
           and (not k.startswith("PIP_") or k in keep_pip)}
    env["PIP_CONFIG_FILE"] = os.devnull
    startup = home / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-colab.py").write_text(_STARTUP)
    env["IPYTHONDIR"] = str(home / "ipython")
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    env.update(redirect)
    return env


@pytest.mark.parametrize("variant", [pytest.param(v, marks=pytest.mark.xdist_group(v))
                                     for v in VARIANTS])
@pytest.mark.parametrize("chapter", _chapters())
def test_chapter_installs_and_runs_like_colab(environments, lib_snapshot, variant, chapter):
    import nbformat

    want = pins(variant)
    url = _repository_url()
    # The install cell's URL, unchanged, served from the snapshot by git itself.
    redirect = {"GIT_CONFIG_COUNT": "1",
                "GIT_CONFIG_KEY_0": f"url.{lib_snapshot.as_uri()}.insteadOf",
                "GIT_CONFIG_VALUE_0": url}
    with tempfile.TemporaryDirectory(prefix="colab-") as tmp:
        python = _layer(environments(variant), Path(tmp) / "runtime")  # without attnlib
        content = Path(tmp) / "content"
        content.mkdir()
        nb_path = content / Path(chapter).name
        shutil.copy(ROOT / chapter, nb_path)
        proc = subprocess.run(
            [str(python), "-c", _RUN, str(nb_path), str(content), _CHECK],
            cwd=content, env=_kernel_env(python, Path(tmp), redirect),
            capture_output=True, text=True, timeout=1200)
        assert proc.returncode == 0, proc.stderr[-4000:]
        nb = nbformat.read(nb_path, as_version=4)
        after = freeze(python)

    install = nb.cells[0]
    assert "remove-cell" in install.metadata.get("tags", [])
    assert f"git+{url}#subdirectory=lib" in install.source
    assert not install.outputs, f"the install cell printed: {install.outputs}"
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out.output_type != "error", f"{chapter}: {out.get('ename')}"
            if out.output_type == "stream":
                assert out.name == "stdout", f"{chapter}: stderr: {out.text[:500]}"
    # pip changed none of Colab's versions and added only attnlib and its font package.
    changed = {n: (v, after.get(n)) for n, v in want.items() if after.get(n) != v}
    assert not changed, f"pip changed Colab's packages: {changed}"
    assert set(after) - set(want) == INSTALLED_BY_CELL
    assert after["attnlib"].startswith(f"attnlib @ git+{url}@")  # from the cell's own URL
    check = next(json.loads(o.text.split("COLAB_CHECK ", 1)[1]) for o in nb.cells[-1].outputs
                 if "COLAB_CHECK" in o.get("text", ""))
    assert check["preloaded"] == check["running"] == want["ipywidgets"]
    assert check["attnlib"].startswith(str(Path(tmp) / "runtime"))  # installed by the cell


@pytest.mark.parametrize("variant", [pytest.param(v, marks=pytest.mark.xdist_group(v))
                                     for v in VARIANTS])
def test_first_frame_reaches_the_front_end_like_updates(environments, variant, tmp_path):
    from test_widgets import assert_first_frame_sent_like_updates, frontend_messages

    python = environments(variant)
    env = _kernel_env(python, tmp_path, {})
    env["PYTHONPATH"] = str(ROOT / "lib")  # the checkout's attnlib; matplotlib only, no font
    assert_first_frame_sent_like_updates(frontend_messages(str(python), env))
