"""The array namespace the core is written against, and the binder that makes a backend of it.

The core modules (`softmax`, `attention`, ...) take the namespace `xp` as their first argument and
use it only for the few places NumPy and torch differ; everything else (``@``, ``*``, ``-=``,
indexing, ``.shape``, ``.reshape``) is spelled the same in both. A backend module calls
:func:`bind` once with its namespace and gets the public functions with ``xp`` removed.

Contract of a namespace (``NumpyOps`` below is the reference; ``attnlib.torch.TorchOps`` the other):

==================  ===============================================================
``name``            "numpy" or "torch"
``asarray(x, like)``  float array (ints and bools promoted), on ``like``'s device
``promote(*xs)``    the arrays cast to one common float dtype (one device)
``exp log sqrt abs isfinite isnan``  elementwise
``asraw(x, like)``   an array of ``x`` as given (for masks); ``as_bool(x)``, ``cast_like(x, like)``
``exp_ isub imul idiv``  in place when that is safe (no autograd on ``x``), else a new array
``sum max any``     reductions ``(x, axis, keepdims=False)``
``where mT eye einsum stack copy detach broadcast_to``  as in NumPy
``is_float(x)``     real floating dtype?  ``is_bool(x)``  boolean dtype?
``to_numpy(x)``     a NumPy copy (for messages and warnings)
``errstate()``      context that silences floating-point warnings
``value_and_grad``  ``None`` (hand-written gradients) or ``f, x -> (f(x), df/dx)``
==================  ===============================================================
"""

import functools
import inspect

import numpy as np


class NumpyOps:
    """NumPy bindings of the core's array namespace."""

    name = "numpy"
    value_and_grad = None
    exp, log, sqrt, abs = map(staticmethod, (np.exp, np.log, np.sqrt, np.abs))
    isfinite, isnan, where, einsum, broadcast_to = map(staticmethod, (
        np.isfinite, np.isnan, np.where, np.einsum, np.broadcast_to))

    @staticmethod
    def asarray(x, like=None):
        a = np.asarray(x)
        if a.dtype.kind in "biu":
            return a.astype(np.float64)
        if a.dtype.kind != "f":
            raise TypeError(f"expected a real array, got dtype {a.dtype}")
        return a

    @staticmethod
    def promote(*xs):
        dtype = np.result_type(*xs)
        return tuple(x.astype(dtype, copy=False) for x in xs)

    @staticmethod
    def asraw(x, like=None):
        return np.asarray(x)

    @staticmethod
    def as_bool(x):
        return x.astype(bool, copy=False)

    @staticmethod
    def cast_like(x, like):
        return x.astype(like.dtype, copy=False)

    @staticmethod
    def exp_(x):
        return np.exp(x, out=x)

    @staticmethod
    def isub(x, y):
        return np.subtract(x, y, out=x)

    @staticmethod
    def imul(x, y):
        return np.multiply(x, y, out=x)

    @staticmethod
    def idiv(x, y):
        return np.divide(x, y, out=x)

    @staticmethod
    def sum(x, axis=None, keepdims=False):
        return np.sum(x, axis=axis, keepdims=keepdims)

    @staticmethod
    def max(x, axis=None, keepdims=False):
        return np.max(x, axis=axis, keepdims=keepdims)

    @staticmethod
    def any(x, axis=None, keepdims=False):
        return np.any(x, axis=axis, keepdims=keepdims)

    @staticmethod
    def mT(x):
        return np.swapaxes(x, -1, -2)

    @staticmethod
    def eye(d, like=None):
        return np.eye(d, dtype=np.float64 if like is None else like.dtype)

    @staticmethod
    def stack(xs, axis=0):
        return np.stack(xs, axis=axis)

    @staticmethod
    def copy(x):
        return np.array(x, copy=True)

    @staticmethod
    def detach(x):
        return x

    @staticmethod
    def is_float(x):
        return x.dtype.kind == "f"

    @staticmethod
    def is_bool(x):
        return x.dtype == bool

    @staticmethod
    def to_numpy(x):
        return np.asarray(x)

    @staticmethod
    def errstate():
        return np.errstate(invalid="ignore", divide="ignore", over="ignore")


def install(xp, namespace):
    """Put the core API bound to ``xp`` (and its result types) into a backend module's namespace;
    return the public names."""
    from . import API, TYPES

    namespace.update(bind(xp, API, namespace["__name__"]))
    namespace.update(TYPES)
    return [fn.__name__ for fn in API] + list(TYPES)


def bind(xp, functions, module):
    """``{name: f(xp, ...)}`` for each core function, ``xp`` dropped from the signature."""
    bound = {}
    for fn in functions:
        wrapper = _bound(fn, xp)
        sig = inspect.signature(fn)
        wrapper.__signature__ = sig.replace(parameters=list(sig.parameters.values())[1:])
        wrapper.__module__ = module
        bound[fn.__name__] = wrapper
    return bound


def _bound(fn, xp):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(xp, *args, **kwargs)

    return wrapper
