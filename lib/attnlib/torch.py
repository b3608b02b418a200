"""The PyTorch backend: ``from attnlib import torch as A``.

Same names and signatures as ``attnlib.numpy`` (the math is shared, see ``attnlib.core``).
Tensors keep their device and dtype; integer and boolean inputs become the default float dtype;
NumPy arrays and lists are converted with ``torch.as_tensor`` (on Q's device).

Conventions: ``S = scale · Q Kᵀ`` with ``scale = 1/sqrt(d_k)`` by default (a multiplier α is
``scale=α/sqrt(d_k)``); ``mask`` as SDPA's ``attn_mask``: boolean (True where a query may
attend a key, masked scores replaced by ``fill``, default ``-inf``) or float (added to the
scores); ``is_causal=True`` (upper left, as SDPA); ``fully_masked="nan"`` (the math) or ``"zero"``
(SDPA, flash-attention) for rows with every key masked; ``enable_gqa=True`` for K, V with fewer
heads than Q; ``dropout_mask`` M is 0/1 shaped like P and ``P̃ = P ⊙ M / (1 − p_drop)``. Shapes:
Q (..., n, d_k), K (..., m, d_k), V (..., m, d_v), S P U Δ (..., n, m), O G (..., n, d_v),
r lse (..., n). ``causal_mask(n, m, align=...)`` builds SDPA's or flash-attention's causal mask.

Beyond the shared API: ``AttentionFunction`` (a ``torch.autograd.Function`` whose backward is the
five-line rule) and ``attention_autograd(Q, K, V, **kw) -> O``.
"""

import contextlib

import numpy as np
import torch
from torch.autograd.function import once_differentiable

from .core import _validate
from .core import attention as _attention
from .core._ops import install


def _tracked(x):
    return torch.is_grad_enabled() and x.requires_grad


class TorchOps:
    """torch bindings of the core's array namespace (contract: ``attnlib.core._ops``)."""

    name = "torch"
    exp, log, sqrt, abs = map(staticmethod, (torch.exp, torch.log, torch.sqrt, torch.abs))
    isfinite, isnan, einsum, broadcast_to = map(staticmethod, (
        torch.isfinite, torch.isnan, torch.einsum, torch.broadcast_to))

    @staticmethod
    def asarray(x, like=None):
        t = TorchOps.asraw(x, like)
        if t.dtype == torch.bool or not (t.is_floating_point() or t.is_complex()):
            return t.to(torch.get_default_dtype())
        if t.is_complex():
            raise TypeError(f"expected a real tensor, got dtype {t.dtype}")
        return t

    @staticmethod
    def asraw(x, like=None):
        device = None if like is None else like.device
        if isinstance(x, torch.Tensor):
            if device is not None and x.device != device:
                raise ValueError(f"tensor on {x.device}, but Q is on {device}")
            return x
        return torch.as_tensor(np.asarray(x), device=device)

    @staticmethod
    def as_bool(x):
        return x.to(torch.bool)

    @staticmethod
    def cast_like(x, like):
        return x.to(dtype=like.dtype, device=like.device)

    @staticmethod
    def promote(*xs):
        dtype = xs[0].dtype
        for x in xs[1:]:
            dtype = torch.promote_types(dtype, x.dtype)
        return tuple(x.to(dtype) for x in xs)

    @staticmethod
    def exp_(x):
        return torch.exp(x) if _tracked(x) else x.exp_()

    @staticmethod
    def isub(x, y):
        return x - y if _tracked(x) or _tracked_any(y) else x.sub_(y)

    @staticmethod
    def imul(x, y):
        return x * y if _tracked(x) or _tracked_any(y) else x.mul_(y)

    @staticmethod
    def idiv(x, y):
        return x / y if _tracked(x) or _tracked_any(y) else x.div_(y)

    @staticmethod
    def sum(x, axis=None, keepdims=False):
        return x.sum() if axis is None else torch.sum(x, dim=axis, keepdim=keepdims)

    @staticmethod
    def max(x, axis=None, keepdims=False):
        return x.max() if axis is None else torch.amax(x, dim=axis, keepdim=keepdims)

    @staticmethod
    def any(x, axis=None, keepdims=False):
        return x.any() if axis is None else torch.any(x, dim=axis, keepdim=keepdims)

    @staticmethod
    def where(c, a, b):
        return torch.where(c, a, b)

    @staticmethod
    def mT(x):
        return x.transpose(-1, -2)

    @staticmethod
    def eye(d, like=None):
        if like is None:
            return torch.eye(d, dtype=torch.float64)
        return torch.eye(d, dtype=like.dtype, device=like.device)

    @staticmethod
    def stack(xs, axis=0):
        return torch.stack(list(xs), dim=axis)

    @staticmethod
    def copy(x):
        return x.clone()

    @staticmethod
    def detach(x):
        return x.detach()

    @staticmethod
    def is_float(x):
        return x.is_floating_point()

    @staticmethod
    def is_bool(x):
        return x.dtype == torch.bool

    @staticmethod
    def to_numpy(x):
        return x.detach().cpu().numpy()

    @staticmethod
    def errstate():
        return contextlib.nullcontext()

    @staticmethod
    def value_and_grad(f, x):
        x = x.detach().requires_grad_(True)
        with torch.enable_grad():
            value = f(x)
            (grad,) = torch.autograd.grad(value, x)
        return value.detach(), grad


def _tracked_any(y):
    return isinstance(y, torch.Tensor) and _tracked(y)


ops = TorchOps()
__all__ = install(ops, globals()) + ["AttentionFunction", "attention_autograd"]


class AttentionFunction(torch.autograd.Function):
    """O = attention(Q, K, V); its backward is the five-line rule on the saved P (not autograd).

    ``AttentionFunction.apply(Q, K, V, scale, mask, fill, dropout_mask, p_drop, is_causal,
    fully_masked, enable_gqa)`` (the arguments after V may be left off).
    """

    @staticmethod
    def forward(ctx, Q, K, V, scale=None, mask=None, fill=-float("inf"), dropout_mask=None,
                p_drop=0.0, is_causal=False, fully_masked="nan", enable_gqa=False):
        with torch.no_grad():
            a = _validate.attention_args(ops, Q, K, V, scale=scale, mask=mask, fill=fill,
                                         is_causal=is_causal, fully_masked=fully_masked,
                                         enable_gqa=enable_gqa, dropout_mask=dropout_mask,
                                         p_drop=p_drop)
            P = _attention._probabilities(ops, a)  # (..., n, m)
            O = _attention._dropped(ops, a, P) @ a.V  # (..., n, d_v)
        ctx.args = a._replace(Q=None, K=None, V=None)
        ctx.save_for_backward(a.Q, a.K, a.V, P)
        return O

    @staticmethod
    @once_differentiable
    def backward(ctx, G):
        Q, K, V, P = ctx.saved_tensors
        a = ctx.args._replace(Q=Q, K=K, V=V)
        with torch.no_grad():
            parts = _attention.five_lines(ops, a, G.to(Q.dtype), P)
        return (parts.dQ, parts.dK, parts.dV) + (None,) * 8


def attention_autograd(Q, K, V, *, scale=None, mask=None, fill=-float("inf"), is_causal=False,
                       fully_masked="nan", enable_gqa=False, dropout_mask=None, p_drop=0.0):
    """O through ``AttentionFunction``: autograd calls the five-line backward."""
    return AttentionFunction.apply(Q, K, V, scale, mask, fill, dropout_mask, p_drop, is_causal,
                                   fully_masked, enable_gqa)
