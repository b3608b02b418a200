"""Shared fixtures: the two backends, float64 random inputs, and hypothesis settings."""

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("attnlib", max_examples=50, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("attnlib")


@pytest.fixture(params=["numpy", "torch"])
def B(request):
    """A backend module: ``attnlib.numpy`` or ``attnlib.torch``."""
    if request.param == "torch":
        pytest.importorskip("torch")
        from attnlib import torch as backend
    else:
        from attnlib import numpy as backend
    return backend


def to_np(x):
    """A NumPy copy of an array or tensor."""
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def randn(*shapes, seed=0):
    """Float64 standard normal arrays of the given shapes."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


# ---- the browser tests' report, merged over pytest-xdist workers (tests/book/browser_report.py)

def _browser_report():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parent / "book" / "browser_report.py"
    spec = importlib.util.spec_from_file_location("browser_report_controller", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # the controller, before any worker starts
        _browser_report().start_run()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if hasattr(config, "workerinput"):
        return
    lines = _browser_report().finish()
    if lines:
        terminalreporter.write_line("")
        for line in lines:
            terminalreporter.write_line(line)
