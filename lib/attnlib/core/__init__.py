"""The math of the book, written once against an array namespace ``xp``.

Every function here takes ``xp`` as its first argument. ``scripts/generate_backends.py`` writes,
from ``API``, the class ``attnlib.functions.Functions``: one method per entry, with the same
signature minus ``xp`` and the same docstring, that calls it with ``self.xp``; ``attnlib.numpy``
and ``attnlib.torch`` each bind their public names to one instance on their own namespace.

The core imports nothing outside ``attnlib.core`` and no array library but NumPy, which it uses on
the host side only (seeded draws, shapes, small tables); the array math goes through ``xp``, whose
few members are the places NumPy and torch differ. Everything else (``@``, ``*``, ``-``,
indexing, ``.shape``, ``.reshape``) is spelled the same in both. Contract of ``xp`` (the
reference implementations are ``attnlib.numpy.NumpyOps`` and ``attnlib.torch.TorchOps``):

=========================================  ======================================================
``as_float(x, like=None)``                 a float array of ``x`` (ints and bools promoted), on
                                           ``like``'s device
``as_array(x, like=None)``                 an array of ``x`` as given (masks), on ``like``'s device
``cast_like(x, like)``                     ``x`` in ``like``'s dtype and device
``promote(*xs)``                           the arrays cast to one common float dtype
``zeros(shape, like)``                     zeros of ``like``'s dtype and device
``exp log sqrt abs isfinite``              elementwise
``sum max any (x, axis=None, keepdims)``   reductions
``where mT eye einsum stack copy``         as in NumPy (``mT`` swaps the last two axes)
``broadcast_to detach``                    ``detach``: the array without its autograd history
``attach(x, *inputs)``                     ``x``, made a node of the inputs' autograd graph
                                           (gradient 0; NumPy: ``x``): a result filled block by
                                           block stays differentiable when no block is filled
``exp_ isub imul idiv``                    ``exp``, ``x − y``, ``x · y``, ``x / y`` in ``x``'s own
                                           buffer (``operator.isub`` …) unless autograd records
                                           ``x`` or ``y``; only where ``attnlib.measure`` shows
                                           the memory it saves (see ``docs/DESIGN.md``)
``is_bool(x)``, ``is_float(x)``            dtype tests (masks)
``to_numpy(x)``                            a NumPy copy (warnings and messages)
``errstate()``                             a context that silences floating-point warnings
``value_and_grad(f, x)``                   ``(f(x), df/dx)`` by autograd; NumPy raises ValueError
=========================================  ======================================================
"""

from . import (
    attention,
    attention_lse,
    blocks,
    blockwise,
    collapse,
    convert,
    double_scale,
    experiment,
    gradcheck,
    layernorm,
    multihead,
    scaling,
    softmax,
    underflow,
)

# The functions every backend exposes, in the order of the book.
API = (
    softmax.softmax,
    softmax.entropy,
    softmax.softmax_jacobian,
    softmax.softmax_vjp,
    softmax.softmax_jacobian_vjp,
    attention.causal_mask,
    attention.scores,
    attention.attention,
    attention.attention_backward,
    attention.attention_backward_parts,
    attention_lse.attention_lse,
    attention_lse.attention_backward_lse,
    double_scale.attention_backward_folded,
    multihead.split_heads,
    multihead.merge_heads,
    multihead.multihead_attention,
    multihead.multihead_attention_backward,
    blockwise.attention_blockwise,
    blockwise.attention_blockwise_steps,
    blockwise.attention_blockwise_backward,
    blockwise.block_grid,
    underflow.exp_underflow,
    gradcheck.gradcheck,
    gradcheck.numerical_gradient,
    layernorm.layernorm,
    layernorm.layernorm_jacobian,
    layernorm.layernorm_backward,
    blocks.block_weights,
    blocks.self_attention,
    blocks.self_attention_backward,
    blocks.pre_ln_block,
    blocks.pre_ln_block_backward,
    blocks.post_ln_block,
    blocks.post_ln_block_backward,
    blocks.stack_grad_norms,
    experiment.dot_product_samples,
    experiment.multiplier_stats,
    experiment.multiplier_grad_norms,
    experiment.train_single_query,
    scaling.jacobian_peak_multiplier,
    scaling.layernorm_dot_samples,
    scaling.init_score_samples,
    scaling.train_score_drift,
    collapse.normalized_entropy,
    collapse.row_collapse,
    convert.to_numpy,
)

# The named tuples those functions return, re-exported by every backend.
TYPES = (
    attention.AttentionParts,
    experiment.MultiplierStats,
    experiment.GradNorms,
    experiment.History,
    multihead.MultiheadGrads,
    blockwise.OnlineSteps,
    underflow.Underflow,
    scaling.DriftHistory,
    collapse.RowStats,
)
