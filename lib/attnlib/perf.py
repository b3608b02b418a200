"""The old name of :mod:`attnlib.measure`, kept until the chapters import that (issue 17).

``perf.peak_bytes(fn)`` is ``measure.peak_extra_bytes(fn)`` and ``perf.jacobian_vjp(P, U)`` is
``attnlib.numpy.softmax_jacobian_vjp(P, U)``; every other name is the same function in
``attnlib.measure``. ``scripts/issue17_chapter_edits.py`` moves the chapters over.
"""

from .measure import (
    backend_race,
    best,
    frame_times,
    growth_exponent,
    inputs,
    kept_bytes,
    lse_sweep,
    race,
    row_rule_sweep,
    saved_bytes,
    torch_saved_sweep,
)
from .measure import peak_extra_bytes as peak_bytes
from .numpy import softmax_jacobian_vjp as jacobian_vjp

__all__ = ["race", "best", "peak_bytes", "kept_bytes", "saved_bytes", "growth_exponent",
           "jacobian_vjp", "row_rule_sweep", "lse_sweep", "torch_saved_sweep", "backend_race",
           "inputs", "frame_times"]
