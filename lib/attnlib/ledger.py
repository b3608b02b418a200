"""The verification ledger: tie a number the book computes to a number an article prints.

``claim(key, value)`` looks the claim up in :mod:`attnlib.claims` (where the article
states it, the number as printed, its status), formats ``value`` the way the article
printed it (same number of decimals, or the same mantissa digits in e-notation),
compares the strings, prints one line, and records the result.  An ``"exact"`` claim
raises :class:`ClaimError` when the strings differ, so the cell, and with it the book
build, fails with a message naming the claim.

Statuses (set in :mod:`attnlib.claims`): ``"exact"`` (a mismatch is an error),
``"shape"`` (printed beside the article's number, not compared), ``"erratum"``
(checked the other way round: if the two ever agree, the erratum is stale),
``"roundoff"`` (a round-off residue: printed and checked as the bound it stays under, so
the printed line is the same on every CPU; above the bound is an error), ``"qualified"`` (the
article's sentence holds only under a condition it does not state: :func:`holds` checks, from the
chapter's data, where it holds and where not, and the line is marked △), ``"confirmed"`` (a
sentence of the article with no number to compare, confirmed by :func:`holds` from the chapter's
data; the line is marked ✔).

:func:`holds` is the second kind of entry: a sentence of the book itself (a trend, a comparison,
an "only", a threshold, a cause; listed in :mod:`attnlib.sentences`), held by a condition its cell
computes.  It prints a ✔ line (the sentence in 「」 and what the data showed), and raises a
:class:`ClaimError` quoting the sentence when the data stops supporting it.

:func:`below` prints any other round-off quantity the same way.

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

from .claims import CLAIMS
from .sentences import SENTENCES
from .text import plain

__all__ = ["ClaimError", "Claim", "below", "claim", "format_like", "holds", "line", "records"]

ARTICLES = {
    "000": "√d_k는 어디서 나왔나",
    "002": "어텐션의 그래디언트",
}

_RECORDS: list[Claim] = []


# The mark each line starts with, by status ("book": a sentence of the book held by its data).
MARKS = {"exact": "✔", "roundoff": "✔", "shape": "≈", "erratum": "≠", "qualified": "△",
         "confirmed": "✔", "book": "✔"}


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
    measured: str = ""  # "roundoff": what this machine computed (the ledger page shows it)
    kind: str = "article"  # "article" (attnlib.claims) or "book" (attnlib.sentences)


_NUM = re.compile(r"^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$")


_MAN = "만"  # the Korean unit 10⁴, as an article writes 「44만」


def format_like(value: float, expected: str) -> str:
    """Format ``value`` with the precision in which ``expected`` is written."""
    if expected.endswith(_MAN):  # 「44만」: the number of 10⁴s, to the same digits
        return format_like(float(value) / 1e4, expected[:-1]) + _MAN
    m = _NUM.match(expected.replace("−", "-"))
    if m is None:
        raise ValueError(f"expected: cannot read a number from {expected!r}")
    _sign, _int, frac, exp = m.groups()
    decimals = len(frac or "")
    value = float(value)
    plus = "+" if _sign == "+" else ""  # the article wrote an explicit "+" sign
    if exp is not None:
        text = f"{value:{plus}.{decimals}e}"
        mant, e = text.split("e")
        return f"{mant}e{int(e):+03d}"
    text = f"{value:{plus}.{decimals}f}"
    if re.fullmatch(r"[-+]0\.?0*", text):  # -0.0000 prints as 0.0000
        text = text[1:]
    return text


def _normalise(expected: str) -> str:
    text = expected.replace("−", "-").strip()
    if text.endswith(_MAN):
        return _normalise(text[:-1]) + _MAN
    m = _NUM.match(text)
    if m and m.group(4) is not None:
        mant, e = re.split(r"[eE]", text)
        return f"{mant}e{int(e):+03d}"
    if re.fullmatch(r"[-+]0\.?0*", text):
        text = text[1:]
    return text


def claim(key: str, value) -> object:
    """Check and record the article claim ``key`` (see :mod:`attnlib.claims`); returns ``value``.

    ``value`` is a number, or a sequence of numbers when the article prints several
    (in the article's order).  For a ``"shape"`` claim it may also be a short text
    summarising what the book found.
    """
    spec = CLAIMS.get(key)
    if spec is None:
        raise KeyError(f"key: {key!r} is not a claim listed in attnlib.claims")
    if spec.status == "unchecked":
        raise ValueError(f"key: {key!r} is listed as unchecked; give it a status first")
    if spec.status in ("qualified", "confirmed"):
        raise ValueError(f"key: {key!r} is a {spec.status} claim; "
                         "hold it with ledger.holds(key, ok, shown)")
    if spec.status == "erratum" and not all(_NUM.match(e.replace("−", "-"))
                                            for e in spec.expected):
        raise ValueError(f"key: {key!r} is an erratum the article states in words; "
                         "hold it with ledger.holds(key, ok, shown)")
    if isinstance(value, str):
        if spec.status != "shape":
            raise TypeError(f"value: {key!r} is checked digit by digit; pass numbers, not text")
        ours = (value,)
        agree = False
    else:
        values = _as_floats(key, value)
        if len(values) != len(spec.expected):
            raise ValueError(
                f"value: {key!r} has {len(spec.expected)} printed numbers, got {len(values)}"
            )
        if any(math.isnan(v) for v in values):
            raise ClaimError(f"claim {key!r}: computed NaN, the article prints {spec.expected}")
        ours = tuple(format_like(v, e) for v, e in zip(values, spec.expected, strict=True))
        agree = ours == tuple(_normalise(e) for e in spec.expected)
    measured = ""
    if spec.status == "roundoff":
        measured = ", ".join(f"{abs(v):.2e}" for v in values)
        agree = all(abs(v) < spec.bound for v in values)
        ours = (f"< {spec.bound:g}",) if agree else (measured,)
    ok = {"exact": agree, "erratum": not agree, "shape": True, "roundoff": agree}[spec.status]
    rec = Claim(key, spec.article, spec.where, ", ".join(spec.expected), ", ".join(ours),
                spec.status, ok, spec.note, measured)
    _RECORDS.append(rec)
    _write(rec)
    print(line(MARKS[spec.status] if ok else "✘", spec.text, rec.ours, rec.expected))
    if not ok:
        if spec.status == "roundoff":
            raise ClaimError(
                f"claim {key!r} ({ARTICLES[spec.article]}, {spec.where}): computed {measured}, "
                f"not below {spec.bound:g}; far more than round-off, so the computation changed"
            )
        if spec.status == "exact":
            raise ClaimError(
                f"claim {key!r} ({ARTICLES[spec.article]}, {spec.where}): computed {rec.ours}, "
                f"the article prints {rec.expected}"
            )
        raise ClaimError(
            f"claim {key!r} is marked as an erratum, but the computed {rec.ours} now agrees "
            f"with the article's {rec.expected}: update its status"
        )
    return value


def holds(key: str, ok, shown: str) -> None:
    """Hold a sentence of the book (:mod:`attnlib.sentences`), a qualified article claim, or an
    erratum whose article sentence printed words, not a number (``expected`` quotes them).

    ``ok`` is the condition the cell computed from its data (a bool); ``shown`` says in a few
    words what the data is (``"얼어붙는 걸음 11"``); it is printed, so it must state the math,
    not the machine.  Prints ``✔ 「sentence」: shown`` (``△ claim's text: shown  (글: 「…」)`` for a
    qualified article claim, see :func:`line`)
    and returns nothing (a cell shows only the line); when ``ok`` is false, raises
    :class:`ClaimError` quoting the sentence.
    """
    if not isinstance(key, str):
        raise TypeError(f"key: expected a str, got {type(key).__name__}")
    if not isinstance(shown, str) or not shown.strip():
        raise TypeError(f"shown: {key!r} needs a short text of what the data shows, got {shown!r}")
    if isinstance(ok, bool) or type(ok).__name__ == "bool_":
        ok = bool(ok)
    elif hasattr(ok, "item") and getattr(ok, "shape", None) == () and isinstance(ok.item(), bool):
        ok = bool(ok.item())  # a 0-d boolean tensor
    else:
        raise TypeError(f"ok: {key!r} needs one bool (the condition computed), "
                        f"got {type(ok).__name__}")
    if key in SENTENCES:
        sent = SENTENCES[key]
        rec = Claim(key, "", key.split("/", 1)[0], sent.text, shown, "book", ok, sent.check,
                    kind="book")
        what = f"the sentence 「{sent.text}」"
    elif key in CLAIMS and CLAIMS[key].status in ("qualified", "erratum", "confirmed"):
        # "erratum" here: the article states in words what the data contradicts (「10⁻⁶ 아래」);
        # "confirmed": an article sentence with no number, which the data supports;
        # ``expected`` holds the article's words, ``ok`` is what the cell computed.
        spec = CLAIMS[key]
        rec = Claim(key, spec.article, spec.where, ", ".join(spec.expected), shown,
                    spec.status, ok, spec.note)
        what = f"the {spec.status} claim ({ARTICLES[spec.article]}, {spec.where}: {spec.text})"
    elif key in CLAIMS:
        raise ValueError(f"key: {key!r} is an article claim of status {CLAIMS[key].status!r}; "
                         "check it with ledger.claim(key, value)")
    else:
        raise KeyError(f"key: {key!r} is listed neither in attnlib.sentences nor, as "
                       "qualified, erratum or confirmed, in attnlib.claims")
    _RECORDS.append(rec)
    _write(rec)
    mark = MARKS[rec.status] if ok else "✘"
    if rec.kind == "book":
        print(line(mark, f"「{plain(SENTENCES[key].text)}」", shown))
    else:
        print(line(mark, CLAIMS[key].text, shown, rec.expected))
    if not ok:
        raise ClaimError(f"{key!r}: the data no longer supports {what}: {shown}")


def line(mark: str, what: str, found: str, article: str = "") -> str:
    """The line a reader sees: ``mark what: found  (글: article)``.

    ``what`` says in the chapter's words what was checked (an article claim's ``text``, or a
    book sentence in 「」); ``found`` is what the cell computed; ``article`` is the article's
    number, or its words quoted in 「」, and is left out for the book's own sentences.  The
    ledger key is not in the line: it is in the cell's code (``claim("02_collapse/…", …)``),
    in the record the build writes, and on the ledger page beside the same ``what``."""
    tail = f"  (글: {article})" if article else ""
    return f"{mark} {what}: {found}{tail}"


def below(value, bound: float) -> str:
    """A round-off quantity printed as the bound it stays under (``"< 1e-15"``): the same
    text on every CPU.  ``value`` is a number or an array (its largest ``|·|`` counts); at or
    above ``bound``, or NaN, is a :class:`ClaimError` that names the value."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    values = list(_flat(value))
    worst = max((abs(v) for v in values), default=0.0)
    if not worst < bound:  # also catches NaN
        raise ClaimError(f"value: {worst:.3e} is not below {bound:g}; more than round-off")
    return f"< {bound:g}"


def _flat(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _flat(v)
    else:
        yield float(value)


def _as_floats(key: str, value) -> list[float]:
    try:
        if hasattr(value, "tolist"):
            value = value.tolist()
        if isinstance(value, (list, tuple)):
            flat = []
            for v in value:
                flat.extend(v if isinstance(v, (list, tuple)) else [v])
            return [float(v) for v in flat]
        return [float(value)]
    except (TypeError, ValueError) as err:
        raise TypeError(f"value: {key!r} needs numbers, got {value!r}") from err


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
