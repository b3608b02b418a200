"""attnlib: the mathematics of attention, in NumPy and PyTorch.

Import a backend explicitly: ``from attnlib import numpy as A`` (or ``torch as A``).
This module itself imports nothing heavy and has no side effects.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
