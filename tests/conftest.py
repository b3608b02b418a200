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
