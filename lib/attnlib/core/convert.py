"""Results as NumPy arrays, for the code around the math: plots, printing, ``np.`` tables."""

import numpy as np


def to_numpy(xp, x):
    """``x`` as NumPy: an array (a tensor detached and copied to the host; a NumPy array as it
    is), and the fields of a named tuple or the items of a tuple or list one by one; anything
    else (numbers, strings, None) unchanged."""
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(to_numpy(xp, v) for v in x))
    if isinstance(x, (tuple, list)):
        return type(x)(to_numpy(xp, v) for v in x)
    if isinstance(x, (np.ndarray, np.generic)):
        return x
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return xp.to_numpy(x)
    return x
