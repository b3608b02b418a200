"""Input checks shared by every entry point: ValueError naming the argument."""

import math
import operator
import warnings
from typing import Any, NamedTuple

import numpy as np


class AttentionInputs(NamedTuple):
    """Validated inputs: arrays of one float dtype (K, V repeated per query head with enable_gqa).

    ``mask`` bool (True = may attend; masked scores replaced by ``fill``) or ``bias`` float (added
    to the scores), at most one; ``empty`` (..., n) rows whose every score is −inf, ``uniform``
    (..., n) rows whose every score is a finite ``fill`` (None when there are none);
    ``dropout`` the weights M / (1 − p_drop) of P̃ = P ⊙ M / (1 − p_drop), or None;
    ``groups`` query heads per key/value head; ``K_shape``, ``V_shape`` the shapes K and V were
    given in (before the heads were repeated); ``S_shape`` (..., n, m), ``O_shape`` (..., n, d_v);
    ``G`` the upstream gradient ∂L/∂O, shaped like O (backward functions; None in a forward).
    """

    Q: Any
    K: Any
    V: Any
    scale: float
    mask: Any
    bias: Any
    fill: float
    fully_masked: str
    empty: Any
    uniform: Any
    dropout: Any
    groups: int
    K_shape: tuple
    V_shape: tuple
    S_shape: tuple
    O_shape: tuple
    G: Any = None


FULLY_MASKED = ("nan", "zero")
FORWARD = object()  # the default G of attention_inputs: a forward has no upstream gradient


def array(xp, x, name, like=None, min_ndim=0, finite=True):
    """``x`` as a float array of the backend; ValueError naming ``name`` when it cannot be one."""
    try:
        arr = xp.as_float(x, like)
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"{name} must be a real numeric array: {err}") from None
    if arr.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} axes, got shape {tuple(arr.shape)}")
    if finite and not bool(xp.isfinite(arr).all()):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")
    return arr


def number(x, name):
    """A finite real scalar, else ValueError naming ``name``."""
    try:
        v = float(x)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"{name} must be a real number, got {x!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    return v


def numbers(xs, name):
    """A non-empty sequence of finite real numbers (e.g. the multipliers α), else ValueError."""
    if isinstance(xs, (str, bytes)) or not hasattr(xs, "__iter__"):
        raise ValueError(f"{name} must be a non-empty list of numbers, got {xs!r}")
    values = [number(x, name) for x in xs]
    if not values:
        raise ValueError(f"{name} must be a non-empty list of numbers, got an empty one")
    return values


def positive_int(x, name):
    """A positive integer, else ValueError naming ``name``."""
    try:
        b = operator.index(x)
    except TypeError:
        raise ValueError(f"{name} must be a positive integer, got {x!r}") from None
    if b < 1:
        raise ValueError(f"{name} must be a positive integer, got {b}")
    return b


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
        raw = xp.as_array(x, like)
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"{name} must be an array of 0/1 or booleans: {err}") from None
    if not bool(((raw == 0) | (raw == 1)).all()):
        raise ValueError(f"{name} must contain only 0 and 1 (or False and True)")
    return raw


def broadcastable(x, y, name_x, name_y):
    """ValueError naming both arrays when their shapes do not broadcast."""
    try:
        np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    except ValueError:
        raise ValueError(f"{name_x} and {name_y} do not broadcast: {name_x} {tuple(x.shape)}, "
                         f"{name_y} {tuple(y.shape)}") from None


def same_shape(name, x, shape, what):
    if tuple(x.shape) != tuple(shape):
        raise ValueError(f"{name} must be shaped like {what} {tuple(shape)}, got {tuple(x.shape)}")


def attention_inputs(xp, Q, K, V, *, G=FORWARD, scale=None, mask=None, fill=-math.inf,
                     is_causal=False, fully_masked="nan", enable_gqa=False, dropout_mask=None,
                     p_drop=0.0):
    """Validate and convert the inputs of every attention function (see ``core.attention``);
    a backward passes its upstream gradient ``G`` too."""
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
    K_shape, V_shape = tuple(K.shape), tuple(V.shape)
    groups = gqa_groups(Q, K, V) if flag(enable_gqa, "enable_gqa") else 1
    K, V = repeat_heads(xp, K, groups), repeat_heads(xp, V, groups)
    try:
        batch = np.broadcast_shapes(tuple(Q.shape[:-2]), tuple(K.shape[:-2]), tuple(V.shape[:-2]))
    except ValueError:
        raise ValueError(f"the leading (batch) axes of Q, K and V do not broadcast: "
                         f"Q {tuple(Q.shape)}, K {tuple(K.shape)}, V {tuple(V.shape)}"
                         f"{_gqa_hint(Q, K)}") from None
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
    if fully_masked not in FULLY_MASKED:
        raise ValueError(f"fully_masked must be 'nan' (the math: 0/0) or 'zero' (SDPA, "
                         f"flash-attention), got {fully_masked!r}")
    mask, bias = attention_mask(xp, mask, fill, flag(is_causal, "is_causal"), Q, S_shape)
    empty, uniform = None, None
    dead = _dead_rows(xp, mask, bias, S_shape)
    if dead is not None and (bias is not None or fill == -math.inf):
        empty = dead
        if fully_masked == "nan":
            _warn_dead_rows(xp, dead, "a float mask of -inf" if bias is not None else None)
    elif dead is not None:
        uniform = dead
    p_drop = number(p_drop, "p_drop")
    if not 0.0 <= p_drop < 1.0:
        raise ValueError(f"p_drop must be in [0, 1), got {p_drop}")
    dropout = None
    if dropout_mask is None:
        if p_drop > 0:
            raise ValueError("p_drop > 0 needs an explicit dropout_mask (0/1, shaped like P), "
                             "so that forward and backward drop the same entries")
    else:
        M = zero_one(xp, dropout_mask, "dropout_mask", Q)
        broadcast("dropout_mask", M.shape, S_shape)
        dropout = xp.cast_like(M, Q) * (1.0 / (1.0 - p_drop))
    if G is FORWARD:
        G = None
    else:  # a backward's G, None included, must be an array shaped like O
        G = xp.cast_like(gradient_like(xp, G, O_shape, like=Q), Q)
    return AttentionInputs(Q=Q, K=K, V=V, scale=scale, mask=mask, bias=bias, fill=fill,
                           fully_masked=fully_masked, empty=empty, uniform=uniform,
                           dropout=dropout, groups=groups, K_shape=K_shape, V_shape=V_shape,
                           S_shape=S_shape, O_shape=O_shape, G=G)


def flag(x, name):
    """A bool, else ValueError naming ``name``."""
    if x is True or x is False or isinstance(x, np.bool_):
        return bool(x)
    raise ValueError(f"{name} must be True or False, got {x!r}")


def attention_mask(xp, mask, fill, is_causal, like, S_shape):
    """(mask, bias): a boolean mask (True = may attend) is kept for replacement by ``fill``, a float
    mask is cast to ``like``'s dtype and added to the scores, as SDPA's ``attn_mask``."""
    if is_causal:
        if mask is not None:
            raise ValueError("give either mask or is_causal=True, not both (for a causal mask "
                             "and another, pass mask=causal_mask(n, m) & other)")
        return causal(xp, *S_shape[-2:], 0, like), None
    if mask is None:
        return None, None
    try:
        raw = xp.as_array(mask, like)
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"mask must be a boolean or float array: {err}") from None
    broadcast("mask", raw.shape, S_shape)
    if xp.is_bool(raw):
        return raw, None
    if not xp.is_float(raw):
        raise ValueError(f"mask must be boolean (True = may attend, masked scores replaced by "
                         f"fill) or float (added to the scores, -inf masks), got dtype "
                         f"{raw.dtype}; for a 0/1 array pass mask.astype(bool)")
    if fill != -math.inf:
        raise ValueError(f"fill={fill} replaces the scores a boolean mask hides; a float mask "
                         "is added to the scores instead: give a boolean mask with fill, or "
                         "put the value in the float mask")
    bias = xp.cast_like(raw, like)
    if not bool((xp.isfinite(bias) | (bias == -math.inf)).all()):
        raise ValueError("mask: a float mask is added to the scores and may hold finite values "
                         "and -inf only, not NaN or +inf")
    return None, bias


def causal(xp, n, m, k, like=None):
    """The boolean (n, m) mask j ≤ i + k: k = 0 aligns it upper left, k = m − n lower right."""
    return xp.as_array(np.tril(np.ones((n, m), dtype=bool), k=k), like)


def gqa_groups(Q, K, V):
    """Query heads per key/value head (axis -3) for grouped-query attention, else ValueError."""
    for X, name in ((Q, "Q"), (K, "K"), (V, "V")):
        if X.ndim < 3:
            raise ValueError(f"enable_gqa needs a head axis (-3) on Q, K and V: {name} has shape "
                             f"{tuple(X.shape)}")
    H, H_kv = Q.shape[-3], K.shape[-3]
    if V.shape[-3] != H_kv:
        raise ValueError(f"enable_gqa: K and V must have the same number of heads (axis -3): "
                         f"K {tuple(K.shape)}, V {tuple(V.shape)}")
    if H_kv == 0 or H % H_kv:
        raise ValueError(f"enable_gqa: the query heads must split evenly among the key/value "
                         f"heads (axis -3), but Q has {H} and K {H_kv}: Q {tuple(Q.shape)}, "
                         f"K {tuple(K.shape)}")
    return H // H_kv


def repeat_heads(xp, X, groups):
    """(..., H_kv, m, e) -> (..., H_kv·g, m, e): query head h reads key/value head h // g."""
    if groups == 1:
        return X
    *lead, H_kv, m, e = X.shape
    X = xp.broadcast_to(X[..., None, :, :], (*lead, H_kv, groups, m, e))
    return X.reshape(*lead, H_kv * groups, m, e)


def _gqa_hint(Q, K):
    if Q.ndim >= 3 and K.ndim >= 3 and K.shape[-3] and Q.shape[-3] % K.shape[-3] == 0:
        return " (for grouped-query attention, K and V with fewer heads, pass enable_gqa=True)"
    return ""


def _dead_rows(xp, mask, bias, S_shape):
    """Rows whose every key is masked, (..., n) broadcast to the scores' rows, or None if none."""
    if mask is None and bias is None:
        return None
    live = mask if bias is None else bias > -math.inf  # (..., n, m): the keys a query may see
    dead = xp.broadcast_to(~xp.any(live, axis=-1), S_shape[:-1])  # (..., n)
    return dead if bool(xp.any(dead)) else None


def _warn_dead_rows(xp, dead, how):
    """RuntimeWarning naming the rows whose every key is masked (their P is NaN)."""
    rows = [tuple(int(i) for i in r) for r in np.argwhere(xp.to_numpy(dead))]
    more = f" and {len(rows) - 10} more" if len(rows) > 10 else ""
    if how is None:  # a boolean mask with fill=-inf: the message chapter 9 prints
        tail = ("with fill=-inf their P and O are NaN, as the math says; a finite fill (e.g. "
                "-1e9) gives a uniform row")
    else:
        tail = (f"with {how} on the whole row their P and O are NaN, as the math says; "
                "fully_masked='zero' gives 0 there, as SDPA and flash-attention do")
    warnings.warn(f"every key is masked in rows {rows[:10]}{more} (index (..., i)): {tail}",
                  RuntimeWarning, stacklevel=5)


def gradient_like(xp, G, shape, name="G", what="O", like=None):
    """The upstream gradient, shaped exactly like the output it belongs to."""
    G = array(xp, G, name, like=like)
    same_shape(name, G, shape, what)
    return G
