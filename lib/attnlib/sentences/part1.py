"""The book's own sentences held by its build: part1 (see :mod:`attnlib.sentences`)."""

from __future__ import annotations

from . import sentence as _s

SENTENCES = [
    _s("04_experiment/freeze_step",
       "나누지 않은 쪽은 걸음 11 에서 얼어붙습니다",
       "걸음마다 기록한 NumPy 궤적에서 ‖∂L/∂q‖ < 10⁻⁶ 과 최대 p > 1 − 10⁻⁹ 가 처음 되는 걸음이 "
       "11 이고, 그 뒤 399 까지 그대로이며, 그 전에는 기울기가 10⁻² 위"),
]
