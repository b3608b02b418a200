"""Input checks shared by every entry point: ValueError naming the argument."""

import math
import warnings
from typing import Any, NamedTuple

import numpy as np


class AttentionArgs(NamedTuple):
    """Validated inputs: arrays of one float dtype; ``keep = M / (1 − p_drop)`` or None."""

    Q: Any
    K: Any
    V: Any
    scale: float
    mask: Any
    fill: float
    keep: Any
    S_shape: tuple
    O_shape: tuple


def array(xp, x, name, like=None, min_ndim=0, finite=True):
    """``x`` as a float array of the backend; ValueError naming ``name`` when it cannot be one."""
    try:
        a = xp.asarray(x, like)
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"{name} must be a real numeric array: {err}") from None
    if a.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} axes, got shape {tuple(a.shape)}")
    if finite and not bool(xp.isfinite(a).all()):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")
    return a


def number(x, name):
    """A finite real scalar, else ValueError naming ``name``."""
    try:
        v = float(x)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"{name} must be a real number, got {x!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    return v


def broadcast(name, shape, target):
    """Check that ``shape`` broadcasts to ``target`` (without growing it)."""
    try:
        ok = np.broadcast_shapes(tuple(shape), tuple(target)) == tuple(target)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(
            f"{name} of shape {tuple(shape)} does not broadcast to the scores' shape "
            f"{tuple(target)} (..., n, m)")


def zero_one(xp, x, name, like):
    """A 0/1 (or boolean) array, else ValueError naming ``name``."""
    try:
        raw = xp.asraw(x, like)
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"{name} must be an array of 0/1 or booleans: {err}") from None
    if not bool(((raw == 0) | (raw == 1)).all()):
        raise ValueError(f"{name} must contain only 0 and 1 (or False and True)")
    return raw


def broadcastable(a, b, name_a, name_b):
    """ValueError naming both arrays when their shapes do not broadcast."""
    try:
        np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        raise ValueError(f"{name_a} and {name_b} do not broadcast: {name_a} {tuple(a.shape)}, "
                         f"{name_b} {tuple(b.shape)}") from None


def same_shape(name, x, shape, what):
    if tuple(x.shape) != tuple(shape):
        raise ValueError(f"{name} must be shaped like {what} {tuple(shape)}, got {tuple(x.shape)}")


def attention_args(xp, Q, K, V, scale, mask, fill, dropout_mask, p_drop):
    """Validate and convert the inputs of every attention function (see ``core.attention``)."""
    Q = array(xp, Q, "Q", min_ndim=2)
    K = array(xp, K, "K", like=Q, min_ndim=2)
    V = K[..., :0] if V is None else array(xp, V, "V", like=Q, min_ndim=2)  # scores only
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must have the same d_k (last axis): "
                         f"Q {tuple(Q.shape)}, K {tuple(K.shape)}")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K and V must have the same number of keys m (axis -2): "
                         f"K {tuple(K.shape)}, V {tuple(V.shape)}")
    if K.shape[-2] == 0:
        raise ValueError(f"K must hold at least one key, got shape {tuple(K.shape)}")
    try:
        batch = np.broadcast_shapes(tuple(Q.shape[:-2]), tuple(K.shape[:-2]), tuple(V.shape[:-2]))
    except ValueError:
        raise ValueError(f"the leading (batch) axes of Q, K and V do not broadcast: "
                         f"Q {tuple(Q.shape)}, K {tuple(K.shape)}, V {tuple(V.shape)}") from None
    Q, K, V = xp.promote(Q, K, V)
    n, m, d_k, d_v = Q.shape[-2], K.shape[-2], Q.shape[-1], V.shape[-1]
    S_shape = tuple(np.broadcast_shapes(tuple(Q.shape[:-2]), tuple(K.shape[:-2]))) + (n, m)
    O_shape = tuple(batch) + (n, d_v)
    if scale is None:
        if d_k == 0:
            raise ValueError("Q and K have d_k = 0: give scale explicitly")
        scale = 1.0 / math.sqrt(d_k)
    scale = number(scale, "scale")
    try:
        fill = float(fill)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"fill must be a real number or -inf, got {fill!r}") from None
    if math.isnan(fill) or fill == math.inf:
        raise ValueError(f"fill must be finite or -inf, got {fill}")
    if mask is not None:
        mask = xp.as_bool(zero_one(xp, mask, "mask", Q))
        broadcast("mask", mask.shape, S_shape)
        if fill == -math.inf:
            _warn_dead_rows(xp, mask, S_shape)
    p_drop = number(p_drop, "p_drop")
    if not 0.0 <= p_drop < 1.0:
        raise ValueError(f"p_drop must be in [0, 1), got {p_drop}")
    keep = None
    if dropout_mask is None:
        if p_drop > 0:
            raise ValueError("p_drop > 0 needs an explicit dropout_mask (0/1, shaped like P), "
                             "so that forward and backward drop the same entries")
    else:
        M = zero_one(xp, dropout_mask, "dropout_mask", Q)
        broadcast("dropout_mask", M.shape, S_shape)
        keep = xp.cast_like(M, Q) * (1.0 / (1.0 - p_drop))
    return AttentionArgs(Q, K, V, scale, mask, fill, keep, S_shape, O_shape)


def _warn_dead_rows(xp, mask, S_shape):
    """RuntimeWarning naming the rows whose every key is masked (their P is NaN with fill=-inf)."""
    live = xp.any(mask, axis=-1)
    dead = np.broadcast_to(~xp.to_numpy(live), S_shape[:-1])
    if dead.any():
        rows = [tuple(int(i) for i in r) for r in np.argwhere(dead)]
        more = f" and {len(rows) - 10} more" if len(rows) > 10 else ""
        warnings.warn(
            f"every key is masked in rows {rows[:10]}{more} (index (..., i)): with fill=-inf "
            "their P and O are NaN, as the math says; a finite fill (e.g. -1e9) gives a "
            "uniform row",
            RuntimeWarning, stacklevel=5)


def gradient_like(xp, G, shape, name="G", what="O", like=None):
    """The upstream gradient, shaped exactly like the output it belongs to."""
    G = array(xp, G, name, like=like)
    same_shape(name, G, shape, what)
    return G
