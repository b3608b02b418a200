"""scripts/live/fetch_pyodide.py: the live book's Python files, from pinned sources, checked."""

import hashlib
import importlib.util
import json
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location(
        "fetch_pyodide", ROOT / "scripts" / "live" / "fetch_pyodide.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake(tmp_path, F, wheel_bytes: bytes, lock_sha: str):
    """An npm package and a distribution with one package, ``numpy``, and no dependencies."""
    npm = tmp_path / "npm"
    npm.mkdir()
    for name in F.CORE:
        (npm / name).write_text("{}")
    (npm / "package.json").write_text(json.dumps({"version": F.PYODIDE}))
    lock = {"info": {"version": F.PYODIDE},
            "packages": {n: {"file_name": f"{n}-1-py3-none-any.whl", "sha256": lock_sha,
                             "depends": []} for n in F.PACKAGES}}
    (npm / "pyodide-lock.json").write_text(json.dumps(lock))
    cache = tmp_path / "cache"
    cache.mkdir()
    name, version = F.DISTRIBUTION.split("==")
    with zipfile.ZipFile(cache / f"{name.replace('-', '_')}-{version}-py3-none-any.whl",
                         "w") as z:
        for n in F.PACKAGES:
            z.writestr(F.DISTRIBUTION_DIR + f"{n}-1-py3-none-any.whl", wheel_bytes)
    return npm, cache


def test_a_package_file_unlike_the_official_lock_stops_the_build(tmp_path):
    F = _script()
    npm, cache = _fake(tmp_path, F, b"tampered", hashlib.sha256(b"original").hexdigest())
    with pytest.raises(SystemExit, match="the official lock says"):
        F.main([str(tmp_path / "out"), "--cache", str(cache), "--npm", str(npm)])


def test_another_pyodide_version_is_refused(tmp_path):
    F = _script()
    npm, cache = _fake(tmp_path, F, b"x", hashlib.sha256(b"x").hexdigest())
    (npm / "package.json").write_text(json.dumps({"version": "0.28.0"}))
    with pytest.raises(SystemExit, match="expected 0.27.7"):
        F.main([str(tmp_path / "out"), "--cache", str(cache), "--npm", str(npm)])


def test_the_lock_closure_follows_depends():
    F = _script()
    lock = {"packages": {"matplotlib": {"depends": ["numpy", "six"]},
                         "numpy": {"depends": []}, "six": {"depends": []}}}
    assert F.closure(lock, ["matplotlib"]) == ["matplotlib", "numpy", "six"]
