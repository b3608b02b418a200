"""What a reader's editor sees without running anything: every public name of a backend is a
generated method, current, that a static analyzer resolves, and the core imports only itself."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "lib"
CORE = LIB / "attnlib" / "core"


def test_backends_are_current():
    """functions.py and the tables in numpy.py, torch.py are what generate_backends.py writes."""
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "generate_backends.py"),
                           "--check"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, f"run scripts/generate_backends.py: {proc.stdout}{proc.stderr}"


def _jedi_names(code, line, column):
    jedi = pytest.importorskip("jedi")
    project = jedi.Project(ROOT, added_sys_path=[str(LIB)], smart_sys_path=False)
    script = jedi.Script(code, path=ROOT / "_static_probe.py", project=project)
    return script.infer(line, column), script.goto(line, column)


@pytest.mark.parametrize("backend, name, params", [
    ("numpy", "attention", ["Q", "K", "V", "scale", "mask", "fill", "is_causal", "fully_masked",
                            "enable_gqa", "dropout_mask", "p_drop"]),
    ("torch", "attention_backward", ["G", "Q", "K", "V", "scale", "mask", "fill", "is_causal",
                                     "fully_masked", "enable_gqa", "dropout_mask", "p_drop", "P"]),
])
def test_a_static_analyzer_resolves_backend_functions(backend, name, params):
    """jedi (no import, no execution) finds the definition, its signature and its docstring:
    "go to" lands on the backend's line binding the name, "infer" on the method it binds."""
    code = f"from attnlib import {backend} as B\nB.{name}\n"
    inferred, goto = _jedi_names(code, 2, 3)
    assert len(inferred) == 1 and len(goto) == 1, (inferred, goto)
    fn = inferred[0]
    assert fn.type == "function" and fn.full_name == f"attnlib.functions.Functions.{name}"
    assert Path(fn.module_path) == LIB / "attnlib" / "functions.py"
    binding = goto[0]
    assert Path(binding.module_path) == LIB / "attnlib" / f"{backend}.py"
    source = (LIB / "attnlib" / f"{backend}.py").read_text(encoding="utf-8").splitlines()
    line = source[binding.line - 1]
    assert line == f"{name} = {backend}_functions.{name}"
    (sig,) = fn.get_signatures()  # bound: no self
    assert [p.name for p in sig.params] == params
    assert "fill=-math.inf" in sig.to_string()
    doc = {"attention": "P = softmax(scale · Q Kᵀ)", "attention_backward": "by the five lines"}
    assert doc[name] in fn.docstring(raw=True)


def test_every_public_name_resolves_statically():
    """Each name in __all__ of both backends is a definition jedi can find."""
    from attnlib import numpy as N

    names = list(N.__all__) + ["AttentionFunction", "attention_autograd", "train_monitored"]
    lines = ["from attnlib import numpy as N", "from attnlib import torch as T"]
    lines += [f"N.{name}" for name in N.__all__] + [f"T.{name}" for name in names]
    code = "\n".join(lines) + "\n"
    jedi = pytest.importorskip("jedi")
    project = jedi.Project(ROOT, added_sys_path=[str(LIB)], smart_sys_path=False)
    script = jedi.Script(code, path=ROOT / "_static_probe.py", project=project)
    missing = []
    for lineno, line in enumerate(lines, start=1):
        if lineno > 2:
            found = script.infer(lineno, len(line))
            if not found or found[0].type not in ("function", "class"):
                missing.append(line)
    assert not missing


def _imports(path):
    """(level, module) of every import statement in a file."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((0, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield node.level, node.module or ""


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_core_imports_only_itself_numpy_and_the_standard_library(path):
    allowed = {"math", "operator", "random", "typing", "warnings", "numpy"}
    for level, module in _imports(path):
        if level == 0:
            assert module.split(".")[0] in allowed, f"{path.name} imports {module}"
        else:
            assert level == 1, f"{path.name} imports from outside core/ ({'.' * level}{module})"
