"""The chapters as a Colab reader runs them: Colab's package versions, the chapter's install cell.

``tests/colab_versions.txt`` lists Colab's runtime (its date and source, and where this test
departs from it: Python 3.11 here, not 3.12/3.13).  Two variants, each a virtual
environment cached in ``_build/colab-<variant>`` and rebuilt when its list changes:

- ``colab``: exactly that list; ipywidgets 7.7.1 is imported when the kernel starts (an
  IPython startup file), as Colab's kernel imports it through ``google.colab``;
- ``ipywidgets8``: the same with ipywidgets 8.1, also imported at start: a reader who
  installed it and restarted the runtime.

Every chapter starts with the same install cell (checked).  Per variant it runs once, in a
fresh kernel over a throwaway environment layered over the variant's (a ``.pth`` file puts
the variant's packages on ``sys.path``; pip sees them as installed and installs anything new
into the layer, so the cached environment never changes): unchanged, it installs attnlib with
pip from the URL in ``_config.yml``; git's ``url.<base>.insteadOf`` sends that URL to a
snapshot of this checkout's ``lib/`` (the working tree, committed or not).  Checked: the cell
printed nothing and installed attnlib from that URL; pip changed none of the listed versions
(``pip freeze`` before and after: only attnlib and koreanize-matplotlib are new); nothing
reached stderr (the kernel forwards what pip, a subprocess, writes, as in Colab; pip reads no
configuration of this machine).

Then each chapter is copied to a folder outside the repository (Colab's ``/content``) and run
by nbclient in a fresh kernel of that layer, as a reader's runtime runs the next notebook: its
install cell finds attnlib and does nothing.  Checked: no cell fails or writes to stderr; the
kernel still runs the ipywidgets it started with and the attnlib the cell installed; pip's list
is what the install left.  The ``colab`` variant runs every chapter.

``ipywidgets8`` differs from ``colab`` in four packages (ipywidgets, its front-end packages and
``comm``), which only ``attnlib.widgets`` imports: the explorers are the only code it can
change, and the ``colab`` run checks that the chapters without explorers never import
``attnlib.widgets``.  So ``ipywidgets8`` runs, in one fresh kernel of its layer, the chapters'
install cell and then every explorer of the book as its chapter's cell makes it:
``attnlib.live.explorer`` with the class, inputs and controls the chapter gave it, read back
from the built book's page data (the live spec; ``make book`` first); the same checks as a
chapter run.  ``make colab`` runs the tests on two workers; the variants' environments are
built once (a file lock), each worker installs into its own layer.
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


def _install_exactly(python: Path, requirements: Path) -> None:
    """The list's versions and nothing else (``--no-deps``: nothing a resolver would add, or a
    torch it would fetch).  With uv, from the test's own environment (requirements.txt), when
    it is there: the same files, unpacked once and linked into both variants; pip otherwise.
    No .pyc is compiled here (uv does not; all of torch's would take 29 CPU seconds): the
    kernels write one for each module they import (``_kernel_env``), as a Colab runtime that
    has run once has them."""
    uv = Path(sys.executable).parent / "uv"
    if not uv.is_file():
        subprocess.run([str(python), "-m", "ensurepip", "-q"], check=True)
        _pip(python, "install", "--no-deps", "-r", str(requirements))
        return
    env = dict(os.environ)
    if os.environ.get("PIP_FIND_LINKS") and "UV_FIND_LINKS" not in env:
        env["UV_FIND_LINKS"] = os.environ["PIP_FIND_LINKS"]  # where this machine's torch lies
    subprocess.run([str(uv), "pip", "install", "-q", "--python", str(python), "--no-deps",
                    "-r", str(requirements)], check=True, env=env)


def _environment(variant: str) -> Path:
    """The variant's virtual environment (its Python), built once per version list; two
    workers asking for it at once wait for one build (a lock file)."""
    import fcntl

    want = pins(variant)
    venv = ROOT / "_build" / f"colab-{variant}"
    python = venv / "bin" / "python"
    key = hashlib.sha256(json.dumps([sys.version, sorted(want.items()), "pyc on import"]
                                    ).encode()).hexdigest()
    stamp = venv / ".versions"
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f".colab-{variant}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.is_file() and stamp.read_text() == key and python.is_file() \
                and freeze(python) == want:
            return python
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        requirements = venv / "requirements.txt"
        requirements.write_text("".join(f"{n}=={v}\n" for n, v in want.items()))
        _install_exactly(python, requirements)
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


def _install_cell(chapter: str) -> str:
    import nbformat

    return nbformat.read(ROOT / chapter, as_version=4).cells[0].source


def _uses_widgets(chapter: str) -> bool:
    """Whether the chapter's code makes an explorer (attnlib's ``live`` or ``widgets``): the
    chapters ``ipywidgets8`` runs.  The ``colab`` run checks it against what each chapter
    imported (``attnlib.widgets``)."""
    import nbformat

    code = "\n".join(c.source for c in nbformat.read(ROOT / chapter, as_version=4).cells
                     if c.cell_type == "code")
    return bool(re.search(r"\bexplorer\(|attnlib\.widgets|import (live|widgets)\b", code))


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
    """Each variant's Python, built on first use."""
    built: dict[str, Path] = {}

    def get(variant: str) -> Path:
        if variant not in built:
            built[variant] = _environment(variant)
        return built[variant]

    return get


def _redirect(lib_snapshot: Path) -> dict[str, str]:
    """The install cell's URL, unchanged, served from the snapshot by git itself."""
    return {"GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": f"url.{lib_snapshot.as_uri()}.insteadOf",
            "GIT_CONFIG_VALUE_0": _repository_url()}


def _run_notebook(python: Path, nb_path: Path, home: Path, redirect: dict[str, str]):
    """Runs the notebook at ``nb_path`` (its folder as working directory) in a fresh kernel of
    ``python``, Colab-like, with the check cell appended; returns the executed notebook."""
    import nbformat

    proc = subprocess.run(
        [str(python), "-c", _RUN, str(nb_path), str(nb_path.parent), _CHECK],
        cwd=nb_path.parent, env=_kernel_env(python, home, redirect),
        capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return nbformat.read(nb_path, as_version=4)


def _assert_clean_run(nb, what: str) -> dict:
    """No cell failed or wrote to stderr; what the check cell reported."""
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out.output_type != "error", f"{what}: {out.get('ename')}"
            if out.output_type == "stream":
                assert out.name == "stdout", f"{what}: stderr: {out.text[:500]}"
    return next(json.loads(o.text.split("COLAB_CHECK ", 1)[1]) for o in nb.cells[-1].outputs
                if "COLAB_CHECK" in o.get("text", ""))


@pytest.fixture(scope="session")
def installed(environments, lib_snapshot, tmp_path_factory):
    """Per variant, a layer over its environment in which the chapters' install cell has run
    once, as a reader's first chapter runs it: ``{"python", "freeze", "home"}``."""
    import nbformat

    layers: dict[str, dict] = {}

    def get(variant: str) -> dict:
        if variant in layers:
            return layers[variant]
        want = pins(variant)
        url = _repository_url()
        cells = {_install_cell(c) for c in _chapters()}
        assert len(cells) == 1, f"the chapters' install cells differ: {len(cells)} versions"
        cell = cells.pop()
        assert f"git+{url}#subdirectory=lib" in cell
        home = tmp_path_factory.mktemp(f"colab-{variant}")
        python = _layer(environments(variant), home / "runtime")  # without attnlib
        before = freeze(python)
        assert before == want, "the layer does not show the variant's packages"
        content = home / "content"
        content.mkdir()
        nb = nbformat.v4.new_notebook()
        nb.cells.append(nbformat.v4.new_code_cell(cell))
        nbformat.write(nb, content / "install.ipynb")
        nb = _run_notebook(python, content / "install.ipynb", home, _redirect(lib_snapshot))
        assert not nb.cells[0].outputs, f"the install cell printed: {nb.cells[0].outputs}"
        check = _assert_clean_run(nb, f"{variant}: install cell")
        after = freeze(python)
        # pip changed none of Colab's versions and added only attnlib and its font package.
        changed = {n: (v, after.get(n)) for n, v in want.items() if after.get(n) != v}
        assert not changed, f"pip changed Colab's packages: {changed}"
        assert set(after) - set(want) == INSTALLED_BY_CELL
        assert after["attnlib"].startswith(f"attnlib @ git+{url}@")  # from the cell's own URL
        assert check["attnlib"].startswith(str(home / "runtime"))  # installed by the cell
        assert check["preloaded"] == check["running"] == want["ipywidgets"]
        # the installed packages as a kernel lists them (the check cell, after the install):
        # what each chapter's run must leave as it is
        names = {_canon(n) for n, _ in check["dists"]}
        assert names == set(after), {"kernel": sorted(names ^ set(after))}
        layers[variant] = {"python": python, "freeze": after, "home": home,
                           "dists": check["dists"]}
        return layers[variant]

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
import importlib.metadata, json, os, sys
import attnlib, ipywidgets
print("COLAB_CHECK " + json.dumps({{"preloaded": os.environ.get("{PRELOADED}"),
    "running": ipywidgets.__version__, "attnlib": attnlib.__file__,
    "widgets": "attnlib.widgets" in sys.modules,
    "dists": sorted((d.metadata["Name"], d.version)
                    for d in importlib.metadata.distributions())}}))
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
    # Colab's Python writes .pyc files; with this machine's PYTHONDONTWRITEBYTECODE=1 each of
    # the twenty-odd kernels would compile torch, NumPy and matplotlib anew (the first writes
    # them; two at once write each file atomically)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    startup = home / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-colab.py").write_text(_STARTUP)
    env["IPYTHONDIR"] = str(home / "ipython")
    # the kernel is the layer's own Python: no kernel spec a user installed on this machine
    # (~/.local/share/jupyter/kernels/python3) stands in for it
    env["JUPYTER_DATA_DIR"] = str(home / "jupyter")
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    env.update(redirect)
    return env


def _chapter_runs() -> list:
    return [pytest.param("colab", c, id=f"{c}-colab") for c in _chapters()]


@pytest.mark.parametrize(("variant", "chapter"), _chapter_runs())
def test_chapter_runs_like_colab(installed, variant, chapter):
    layer = installed(variant)
    want = pins(variant)
    with tempfile.TemporaryDirectory(prefix="colab-") as tmp:
        content = Path(tmp) / "content"
        content.mkdir()
        nb_path = content / Path(chapter).name
        shutil.copy(ROOT / chapter, nb_path)
        nb = _run_notebook(layer["python"], nb_path, Path(tmp), {})
    install = nb.cells[0]
    assert "remove-cell" in install.metadata.get("tags", [])
    assert not install.outputs, f"the install cell printed: {install.outputs}"
    check = _assert_clean_run(nb, chapter)
    # pip's list as the kernel sees it (importlib.metadata, what `pip freeze` reads) after the
    # chapter is what it was after the install (the same reading, taken then)
    assert check["dists"] == layer["dists"], f"{chapter} changed the installed packages"
    assert check["preloaded"] == check["running"] == want["ipywidgets"]
    assert check["attnlib"].startswith(str(layer["home"] / "runtime"))  # the cell's install
    if variant == "colab":  # the chapters ipywidgets8 runs are those that use ipywidgets
        assert check["widgets"] == _uses_widgets(chapter), (
            f"{chapter}: imported attnlib.widgets: {check['widgets']}; the list says "
            f"{_uses_widgets(chapter)}")


def _explorer_calls() -> list[tuple[str, str]]:
    """Every explorer of the built book as its chapter's cell makes it: ``(page, Python line)``
    calling ``attnlib.live.explorer`` with the page data's live spec (class, inputs, values,
    text) and controls (which are sliders, which toggles, the initial values, the labels)."""
    from test_browser import HTML, _missing
    from test_live import _ext_live

    if not (HTML / "index.html").is_file():
        _missing("no built book in _build/html: run `make book` first")
    ext, html = _ext_live(), HTML
    calls = []
    for page in sorted(html.glob("chapters/*/*.html")):
        for data in ext.page_specs(page.read_text(encoding="utf-8")):
            python = json.loads(data["python"])
            kinds = {c["name"]: c for c in data["controls"]}
            groups = {kind: {n: v for n, v in python["values"].items()
                             if kinds[n]["kind"] == kind} for kind in ("slider", "toggle")}
            args = {
                "sliders": groups["slider"], "toggles": groups["toggle"],
                "initial": {n: python["values"][n][c["initial"]] for n, c in kinds.items()},
                "labels": {n: c["label"] for n, c in kinds.items()},
                "text": python["text"], "dpi": python["dpi"]}
            calls.append((page.relative_to(html).as_posix(),
                          f"live.explorer(live._resolve({python['cls']!r}), "
                          f"live.decode(json.loads({json.dumps(python['inputs'])!r})), "
                          f"**json.loads({json.dumps(args)!r}))"))
    return calls


def test_explorers_run_like_colab_with_ipywidgets8(installed):
    """ipywidgets 8: the chapters' install cell, then every explorer of every chapter that
    makes one, as the chapter makes it, in one fresh kernel of the variant's layer."""
    variant = "ipywidgets8"
    calls = _explorer_calls()
    pages = {Path(page).with_suffix(".ipynb").as_posix() for page, _ in calls}
    assert pages == {c for c in _chapters() if _uses_widgets(c)}, (
        "the built book's explorers and the chapters that make explorers differ")
    layer = installed(variant)
    want = pins(variant)
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(_install_cell(_chapters()[0])))
    nb.cells.append(nbformat.v4.new_code_cell("import json\nfrom attnlib import live"))
    nb.cells += [nbformat.v4.new_code_cell(f"# {page}\n{call}") for page, call in calls]
    with tempfile.TemporaryDirectory(prefix="colab-") as tmp:
        content = Path(tmp) / "content"
        content.mkdir()
        nbformat.write(nb, content / "explorers.ipynb")
        nb = _run_notebook(layer["python"], content / "explorers.ipynb", Path(tmp), {})
    assert not nb.cells[0].outputs, f"the install cell printed: {nb.cells[0].outputs}"
    check = _assert_clean_run(nb, f"{variant}: the explorers")
    for cell in nb.cells[2:-1]:  # each explorer shows its widget view (and its static picture)
        views = [o for o in cell.outputs
                 if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
        assert len(views) == 1, f"{cell.source.splitlines()[0]}: {len(views)} widget views"
    assert freeze(layer["python"]) == layer["freeze"], "the explorers changed pip's list"
    assert check["preloaded"] == check["running"] == want["ipywidgets"]
    assert check["attnlib"].startswith(str(layer["home"] / "runtime"))
    assert check["widgets"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_first_frame_reaches_the_front_end_like_updates(environments, variant, tmp_path):
    from test_widgets import assert_first_frame_sent_like_updates, frontend_messages

    python = environments(variant)
    env = _kernel_env(python, tmp_path, {})
    env["PYTHONPATH"] = str(ROOT / "lib")  # the checkout's attnlib; matplotlib only, no font
    assert_first_frame_sent_like_updates(frontend_messages(str(python), env))
