"""attnlib.exp_underflow: where e^x becomes exactly 0, against the IEEE-754 bounds."""

import math

import numpy as np
import pytest
from conftest import to_np


@pytest.mark.parametrize("dtype, bits", [("float32", 149), ("float64", 1074)])
def test_threshold_brackets_the_smallest_subnormal(B, dtype, bits):
    like = np.zeros(1, dtype=dtype)
    if B.__name__.endswith("torch"):
        import torch

        like = torch.zeros(1, dtype=getattr(torch, dtype))
    u = B.exp_underflow(like)
    smallest = 2.0 ** -bits  # the smallest positive subnormal of the dtype
    assert u.exp_tiny == smallest
    # exp(x) rounds to 0 below log(smallest / 2); the bracket sits around it
    edge = math.log(smallest) - math.log(2)
    assert u.zero < u.tiny
    assert abs(u.tiny - edge) < 1e-3
    assert float(to_np(B.softmax(np.array([0.0, u.zero], dtype=dtype)))[1]) == 0.0


def test_float32_threshold_is_about_minus_104(B):
    u = B.exp_underflow(np.zeros(1, np.float32))
    assert -104.5 < u.zero < -103.5
