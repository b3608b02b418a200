"""Where e^x underflows to exactly 0 in a floating dtype (whether a mask fill value leaks)."""

from typing import NamedTuple

from . import validate


class Underflow(NamedTuple):
    """``zero``: the largest x found with exp(x) == 0; ``tiny``: the next one, with exp(tiny) > 0;
    ``exp_tiny``: exp(tiny), the smallest positive value exp reaches (a subnormal)."""

    zero: float
    tiny: float
    exp_tiny: float


def exp_underflow(xp, like, lo=-5000.0, hi=0.0):
    """Bisect, in ``like``'s dtype, for the point where ``exp`` stops returning 0."""
    like = validate.array(xp, like, "like", finite=False)
    zero = like.reshape(-1)[:1] * 0.0  # a length-1 array of like's dtype (and device)
    at = lambda x: zero + x  # noqa: E731
    if float(xp.exp(at(lo))[0]) != 0.0 or float(xp.exp(at(hi))[0]) == 0.0:
        raise ValueError(f"exp does not change from 0 to positive between {lo} and {hi}")
    for _ in range(200):
        mid_arr = at((lo + hi) / 2)
        mid = float(mid_arr[0])
        if mid in (lo, hi):
            break
        if float(xp.exp(mid_arr)[0]) == 0.0:
            lo = mid
        else:
            hi = mid
    return Underflow(lo, hi, float(xp.exp(at(hi))[0]))
