"""Gradient checking by central differences: (f(x + h e_i) − f(x − h e_i)) / 2h."""

import math

import numpy as np

from . import validate


def numerical_gradient(xp, f, inputs, *, h=1e-5):
    """∂f/∂x for each x in ``inputs`` by central differences; ``f(*inputs)`` returns a scalar."""
    X = [xp.detach(xp.copy(validate.array(xp, x, f"inputs[{k}]"))) for k, x in enumerate(inputs)]
    grads = []
    for x in X:
        g = xp.copy(x)
        for idx in np.ndindex(*x.shape):
            x0 = float(x[idx])
            x[idx] = x0 + h
            f_up = float(f(*X))
            x[idx] = x0 - h
            f_dn = float(f(*X))
            x[idx] = x0
            g[idx] = (f_up - f_dn) / (2 * h)
        grads.append(g)
    return grads


def relative_error(xp, a, b):
    """Elementwise |a − b| / max(1e-8, |a| + |b|)."""
    den = xp.abs(a) + xp.abs(b)
    return xp.abs(a - b) / xp.where(den > 1e-8, den, 1e-8)


def gradcheck(xp, f, inputs, grads, *, h=1e-5):
    """Worst relative error |a − b| / max(1e-8, |a| + |b|) per input between the analytic
    ``grads`` (one per input, same shapes) and central differences of the scalar ``f(*inputs)``."""
    if len(grads) != len(inputs):
        raise ValueError(f"grads must hold one gradient per input: {len(grads)} grads, "
                         f"{len(inputs)} inputs")
    numeric = numerical_gradient(xp, f, inputs, h=h)
    worst = []
    for k, (num, g) in enumerate(zip(numeric, grads, strict=True)):
        g = validate.array(xp, g, f"grads[{k}]", like=num)
        validate.same_shape(f"grads[{k}]", g, num.shape, f"inputs[{k}]")
        err = relative_error(xp, xp.cast_like(g, num), num)
        worst.append(float(xp.max(err)) if math.prod(err.shape) else 0.0)
    return worst
