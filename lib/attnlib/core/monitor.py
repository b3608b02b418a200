"""The entropy monitor: train a small multi-head attention layer (torch, CPU, seconds) to imitate
a teacher, and log per head the mean row entropy divided by log m, beside the loss.

A head can be made to start collapsed by multiplying its W_Q and W_K at initialisation by
``gain`` (its scores by gain²). The training uses plain SGD, so a parameter moves in proportion to
its gradient, as in the book's argument.
"""

import math
from typing import Any, NamedTuple

import numpy as np


class MonitorRun(NamedTuple):
    """Per step (before its update): the loss, and per head H(P)/log m and ‖(∂L/∂W_Q, ∂L/∂W_K)‖."""

    loss: Any  # (steps,)
    entropy: Any  # (steps, heads)
    grad_qk: Any  # (steps, heads)


def train_monitored(xp, *, collapse_head=None, gain=8.0, heads=4, d=32, n=8, batch=32, steps=300,
                    lr=0.5, seed=0):
    """Train student MHA(X) = concat_h(P_h X W_V^h) W_O on MSE to a random teacher; log MonitorRun.

    Inputs X ~ N(0, 1) of shape (batch, n, d), fresh each step; weights ~ N(0, 1/d); d_k = d/heads.
    ``collapse_head``: index of the head whose W_Q, W_K start ``gain`` times larger (None: none).
    Runs on one CPU thread (restored afterwards): the tensors are tiny, and extra threads only
    contend, and could change the last bits of the sums.
    """
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _train(xp, torch, collapse_head, gain, heads, d, n, batch, steps, lr, seed)
    finally:
        torch.set_num_threads(threads)


def _train(xp, torch, collapse_head, gain, heads, d, n, batch, steps, lr, seed):
    from .. import torch as T

    if d % heads:
        raise ValueError(f"d = {d} must be a multiple of heads = {heads}")
    if collapse_head is not None and not 0 <= collapse_head < heads:
        raise ValueError(f"collapse_head must be in [0, {heads}), got {collapse_head}")
    d_k = d // heads
    gen = torch.Generator().manual_seed(seed)

    def weights():
        return [torch.randn(d, d, generator=gen, dtype=torch.float64) / math.sqrt(d)
                for _ in range(4)]  # W_Q, W_K, W_V, W_O: (d, d)

    teacher = weights()
    student = weights()
    if collapse_head is not None:
        cols = slice(collapse_head * d_k, (collapse_head + 1) * d_k)
        for W in student[:2]:
            W[:, cols] *= gain  # this head's scores grow by gain²
    for W in student:
        W.requires_grad_(True)

    def split(Z):  # (B, n, d) -> (B, heads, n, d_k)
        return Z.reshape(Z.shape[0], n, heads, d_k).transpose(1, 2)

    def mha(X, W_Q, W_K, W_V, W_O):
        O, P = T.attention(split(X @ W_Q), split(X @ W_K), split(X @ W_V))  # (B, H, n, ·)
        return O.transpose(1, 2).reshape(X.shape[0], n, d) @ W_O, P  # (B, n, d), (B, H, n, n)

    log_m = math.log(n)
    history = []
    for _ in range(steps):
        X = torch.randn(batch, n, d, generator=gen, dtype=torch.float64)
        with torch.no_grad():
            Y, _ = mha(X, *teacher)
        out, P = mha(X, *student)
        loss = ((out - Y) ** 2).mean()
        grads = torch.autograd.grad(loss, student)
        with torch.no_grad():
            H = T.entropy(P).mean(dim=(0, 2)) / log_m  # (heads,)
            gq = grads[0].reshape(d, heads, d_k)  # W_Q's columns, grouped by head
            gk = grads[1].reshape(d, heads, d_k)
            g_qk = torch.sqrt((gq ** 2).sum(dim=(0, 2)) + (gk ** 2).sum(dim=(0, 2)))  # (heads,)
            history.append((float(loss), H.numpy().copy(), g_qk.numpy().copy()))
            for W, g in zip(student, grads, strict=True):
                W -= lr * g
    loss, ent, gqk = zip(*history, strict=True)
    return MonitorRun(xp.asarray(np.array(loss)), xp.asarray(np.stack(ent)),
                      xp.asarray(np.stack(gqk)))
