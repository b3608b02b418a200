"""attnlib: the mathematics of attention, in NumPy and PyTorch.

Import a backend explicitly: ``from attnlib import numpy as A`` (or ``torch as A``), or let
:func:`backend` choose it from ``$ATTNLIB_BACKEND``, as every chapter's first code cell does.
This module itself imports nothing heavy and has no side effects.
"""

import importlib
import os

__version__ = "0.1.0"
__all__ = ["__version__", "BACKEND_ENV", "BACKENDS", "backend"]

BACKEND_ENV = "ATTNLIB_BACKEND"
BACKENDS = ("numpy", "torch")


def backend(name=None):
    """The backend module ``attnlib.numpy`` or ``attnlib.torch``: ``name``, else
    ``$ATTNLIB_BACKEND``, else ``"numpy"``. The chapters' one switch (usage.md)."""
    where = "backend(name)" if name else f"${BACKEND_ENV}"
    name = (name or os.environ.get(BACKEND_ENV) or "numpy").strip().lower()
    if name not in BACKENDS:
        raise ValueError(f"{where} = {name!r}: expected one of {', '.join(BACKENDS)}")
    return importlib.import_module(f"attnlib.{name}")
