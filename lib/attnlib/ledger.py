"""The verification ledger: tie a number the book computes to a number an article prints.

``claim(key, value, expected, ...)`` formats ``value`` the way the article printed
``expected`` (same number of decimals, or the same mantissa digits in e-notation),
compares the two strings, prints one line, and records the result.  A claim whose
status is ``"exact"`` raises :class:`ClaimError` when the strings differ, so the
cell, and with it the book build, fails with a message naming the claim.

Statuses:
- ``"exact"``: reproduced to the printed digits (checked; a mismatch is an error).
- ``"shape"``: the article gives no seed; we print our value beside the article's
  and explain in ``note`` what differs (not compared digit by digit).
- ``"erratum"``: our computation disagrees with the article; ``note`` says why.
  Checked the other way round: if the two ever agree, the erratum is stale.

Keys are ``"<chapter file stem>/<name>"`` (``"02_collapse/max_p_scaled"``), so the
appendix can link each claim to the chapter that computes it.

Records go, one JSON object per line, to ``$ATTNLIB_CLAIMS_DIR/<pid>.jsonl`` when
that environment variable is set (the book build sets it); the appendix page
collects them.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import asdict, dataclass

__all__ = ["ClaimError", "Claim", "claim", "format_like", "records"]

ARTICLES = {
    "000": "√d_k는 어디서 나왔나",
    "002": "어텐션의 그래디언트",
}
STATUSES = ("exact", "shape", "erratum")

_RECORDS: list[Claim] = []


class ClaimError(AssertionError):
    """A computed number left the digits the article prints."""


@dataclass
class Claim:
    key: str
    article: str
    where: str
    expected: str
    ours: str
    status: str
    ok: bool
    note: str = ""


_NUM = re.compile(r"^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$")


def format_like(value: float, expected: str) -> str:
    """Format ``value`` with the precision in which ``expected`` is written."""
    m = _NUM.match(expected.replace("−", "-"))
    if m is None:
        raise ValueError(f"expected: cannot read a number from {expected!r}")
    _sign, _int, frac, exp = m.groups()
    decimals = len(frac or "")
    value = float(value)
    if exp is not None:
        text = f"{value:.{decimals}e}"
        mant, e = text.split("e")
        return f"{mant}e{int(e):+03d}"
    text = f"{value:.{decimals}f}"
    if re.fullmatch(r"-0\.?0*", text):  # -0.0000 prints as 0.0000
        text = text[1:]
    return text


def _normalise(expected: str) -> str:
    text = expected.replace("−", "-").strip()
    m = _NUM.match(text)
    if m and m.group(4) is not None:
        mant, e = re.split(r"[eE]", text)
        return f"{mant}e{int(e):+03d}"
    if re.fullmatch(r"-0\.?0*", text):
        text = text[1:]
    return text


def claim(
    key: str,
    value: float,
    expected: str,
    *,
    article: str,
    where: str,
    status: str = "exact",
    note: str = "",
) -> float:
    """Check and record one of the articles' numbers; returns ``value``.

    ``expected`` is the article's number as printed (a string such as ``"0.3066"``
    or ``"4.17e-09"``); ``article`` is ``"000"`` or ``"002"``; ``where`` names the
    place in the article (a section, table or code comment).
    """
    if not re.fullmatch(r"\d\d[\w-]*/[\w.-]+", key):
        raise ValueError(f"key: must look like '02_collapse/max_p', got {key!r}")
    if not isinstance(expected, str):
        raise TypeError(f"expected: the article's number as printed, a string, not {expected!r}")
    if article not in ARTICLES:
        raise ValueError(f"article: must be one of {sorted(ARTICLES)}, got {article!r}")
    if status not in STATUSES:
        raise ValueError(f"status: must be one of {STATUSES}, got {status!r}")
    if status != "exact" and not note:
        raise ValueError(f"note: a {status!r} claim must say what differs ({key})")
    value = float(value)
    if math.isnan(value):
        raise ClaimError(f"claim {key!r}: computed NaN, article prints {expected}")
    ours = format_like(value, expected)
    agree = ours == _normalise(expected)
    ok = agree if status == "exact" else (not agree if status == "erratum" else True)
    rec = Claim(key, article, where, expected, ours, status, ok, note)
    _RECORDS.append(rec)
    _write(rec)
    mark = {"exact": "✔" if ok else "✘", "shape": "≈", "erratum": "≠"}[status]
    print(f"{mark} {key}: {ours}  (글 {expected})")
    if not ok:
        if status == "exact":
            raise ClaimError(
                f"claim {key!r} ({ARTICLES[article]}, {where}): computed {ours}, "
                f"the article prints {expected}"
            )
        raise ClaimError(
            f"claim {key!r} is marked as an erratum, but the computed {ours} now agrees "
            f"with the article's {expected}: update its status"
        )
    return value


def _write(rec: Claim) -> None:
    folder = os.environ.get("ATTNLIB_CLAIMS_DIR")
    if not folder:
        return
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"{os.getpid()}.jsonl"), "a", encoding="utf-8") as fh:
        fh.write(json.dumps(asdict(rec), ensure_ascii=False) + "\n")


def records() -> list[Claim]:
    """The claims made in this process, in order."""
    return list(_RECORDS)
