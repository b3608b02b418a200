"""The grader behind :mod:`attnlib.check`: run a reader's function on chosen cases, compare each
output with attnlib's, print the success or the first failing case with a hint.

A checker describes itself as a :class:`Spec`: its cases (inputs in float64 NumPy, cast to the
case's dtype before anything is computed), the reference (attnlib, float64), the names of the
outputs and the known mistakes, each a float64 implementation of one typical wrong answer. The
reader's output is compared with the reference; when it is wrong and equals a known mistake's
output, the mistake's hint is printed. Nothing here raises on a wrong or misused answer.

Printed lines are the same on every machine: a passing error shows as the bound it stays under,
a failing one with 2 significant digits only when it is far above round-off (``SHOWN``).
"""

from __future__ import annotations

import math
import unicodedata
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ._hints import HINTS

TOL = {"float32": 1e-4, "float64": 1e-10}  # error ≤ TOL · max|reference|, per output
SHOWN = 1e-6  # a failing error at least this big is printed with 2 significant digits
BACKENDS = {"numpy": "NumPy 배열", "torch": "torch 텐서"}


class Case(NamedTuple):
    """One set of inputs: ``inputs`` maps argument names to values (float arrays in float64 are
    cast to ``dtype``; boolean arrays and scalars are passed as they are); ``note`` says in words
    what is special about the case (masks, fully masked rows, ...)."""

    inputs: dict
    dtype: str = "float64"
    note: str = ""


class Mistake(NamedTuple):
    """A typical wrong answer: ``wrong(**inputs)`` returns its outputs; ``hint`` names it."""

    hint: str
    wrong: Callable[..., Any]


class Spec(NamedTuple):
    """What a checker checks: the function's name in the message, its outputs' names, the cases,
    ``reference(**inputs)`` (float64 outputs), the known mistakes, and what the cases cover."""

    name: str
    outputs: tuple
    cases: list
    reference: Callable[..., Any]
    mistakes: tuple
    covered: str
    call: str  # how the reader's function is called, e.g. "fn(P, U) -> delta"


class Failure(Exception):
    """Raised inside the grader (never out of it) with the lines to print."""

    def __init__(self, lines, hint=None):
        super().__init__(lines[0] if lines else "")
        self.lines = list(lines)
        self.hint = hint


def run(spec: Spec, fn, *, backend=None) -> None:
    """Grade ``fn`` against ``spec`` and print the result (see the module docstring)."""
    head = f"check.{spec.name}"
    if not callable(fn):
        _print([f"✘ {head}: 함수를 넘겨 주세요 ({spec.call}). 받은 것: {type(fn).__name__}"])
        return
    if backend not in (None, "numpy", "torch"):
        _print([f"✘ {head}: backend 는 None(자동), 'numpy', 'torch' 중 하나입니다. "
                f"받은 것: {backend!r}"])
        return
    try:
        used = _grade(spec, fn, backend)
    except NotImplementedError:
        _print([f"… {head}: 아직 구현하지 않았습니다 (NotImplementedError).",
                "  함수를 채우고 이 셀을 다시 실행하세요."])
        return
    except Failure as failure:
        _print([f"✘ {head}: {failure.lines[0]}"] + ["  " + x for x in failure.lines[1:]]
               + ([f"  힌트: {HINTS[failure.hint]}"] if failure.hint else []))
        return
    dtypes = sorted({c.dtype for c in spec.cases})
    bounds = ", ".join(f"{d} < {bound(TOL[d])}" for d in dtypes)
    _print([f"✔ {head}: 통과 ({len(spec.cases)}가지 경우, {BACKENDS[used]})",
            f"  시험한 것: {spec.covered}", f"  오차: {bounds}"])


WIDTH = 72  # columns of a printed line (a Korean syllable takes two): the page's code column


def _print(lines):
    print("\n".join(wrapped for line in lines for wrapped in _wrap(line)))


def _wrap(line):
    """``line`` cut at spaces into lines of at most WIDTH columns, continued 2 columns further in
    than it starts (after "힌트: " for a hint)."""
    body = line.lstrip(" ")
    indent = " " * (len(line) - len(body) + (6 if body.startswith("힌트: ") else 2))
    out, current = [], line[: len(line) - len(body)]
    for word in body.split(" "):
        trial = f"{current} {word}" if current.strip() else current + word
        if _columns(trial) > WIDTH and current.strip():
            out.append(current)
            current = indent + word
        else:
            current = trial
    return out + [current]


def _columns(text):
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _grade(spec, fn, backend):
    """Run every case; return the backend used; raise Failure at the first wrong case."""
    passed_plain = False
    for k, case in enumerate(spec.cases):
        where = f"경우 {k + 1}/{len(spec.cases)}"
        inputs = _rounded(case)
        ref = _outputs(spec.reference(**inputs), len(spec.outputs))
        out, backend = _call(spec, fn, case, inputs, backend, first=k == 0, where=where,
                             batch_hint=passed_plain and _batched(case))
        wrong = _compare(spec, out, ref, case)
        if wrong:
            raise Failure([f"{where} 에서 틀렸습니다.", _describe(case, backend)]
                          + [w[1] for w in wrong],
                          _diagnose(spec, out, inputs, case, passed_plain))
        passed_plain = passed_plain or not _batched(case)
    return backend


def _call(spec, fn, case, inputs, backend, *, first, where, batch_hint):
    """The reader's outputs as float64 NumPy arrays, and the backend that produced them.

    With ``backend=None`` a function that fails on the first case's NumPy arrays is tried once
    more with torch tensors (when torch is installed): it may have been written for tensors.
    """
    name = backend or "numpy"
    try:
        result = _run_reader(fn, inputs, case, name)
    except NotImplementedError:
        raise
    except Exception as error:  # the reader's bug, reported below, never raised
        if not (backend is None and first and _has_torch()):
            _crashed(error, case, name, where, batch_hint)
        try:
            result, name = _run_reader(fn, inputs, case, "torch"), "torch"
        except NotImplementedError:
            raise
        except Exception:
            _crashed(error, case, "numpy", where, batch_hint)
    return _as_outputs(spec, result, where, case, name), name


def _run_reader(fn, inputs, case, backend):
    with np.errstate(all="ignore"):  # NaN and inf are reported by the grader, not warned about
        return fn(*_converted(inputs, case, backend).values())


def _crashed(error, case, backend, where, batch_hint):
    hint = "batch_axes" if batch_hint else ("keepdims" if _broadcast_error(error) else None)
    raise Failure([f"{where} 에서 함수가 오류를 냈습니다: {type(error).__name__}: "
                   f"{_first_line(error)}", _describe(case, backend)], hint)


def _as_outputs(spec, result, where, case, backend):
    """Check the arity and the type of what the reader returned; float64 NumPy arrays."""
    want = len(spec.outputs)
    names = ", ".join(spec.outputs)
    if result is None:
        raise Failure([f"{where}: 함수가 아무것도 돌려주지 않았습니다 (return 을 빠뜨렸나요?). "
                       f"{names} 를 돌려주세요.", _describe(case, backend)])
    if want > 1:
        if not isinstance(result, (tuple, list)) or len(result) != want or _is_array(result):
            got = f"{len(result)}개" if isinstance(result, (tuple, list)) else "배열 하나"
            raise Failure([f"{where}: 출력 {want}개 ({names}) 를 튜플로 돌려줘야 하는데 "
                           f"{got}를 돌려줬습니다.", _describe(case, backend)])
        items = list(result)
    else:
        items = [result]
    arrays = []
    for name, item in zip(spec.outputs, items, strict=True):
        try:
            arrays.append(_to_numpy(item))
        except (TypeError, ValueError):
            raise Failure([f"{where}: {name} 가 숫자 배열이 아닙니다 ({type(item).__name__}).",
                           _describe(case, backend)]) from None
    return arrays


def _compare(spec, out, ref, case):
    """[(name, line)] for each output that is wrong in shape or value."""
    wrong = []
    for name, a, b in zip(spec.outputs, out, ref, strict=True):
        if a.shape != b.shape:
            wrong.append((name, f"{name}: shape 이 {_shape(a.shape)} 인데 {_shape(b.shape)} "
                                f"이어야 합니다."))
            continue
        err = error(a, b)
        if err > TOL[case.dtype]:
            wrong.append((name, f"{name}: {_error_text(err, case.dtype)}"))
    return wrong


def error(a, b, *, strict=True) -> float:
    """max|a − b| / max|b| over the finite entries; inf when NaN or inf sit in other places
    (``strict``: or are of another kind, NaN for −inf)."""
    fa, fb = np.isfinite(a), np.isfinite(b)
    if (fa != fb).any() or (strict and not np.array_equal(a[~fa], b[~fb], equal_nan=True)):
        return math.inf
    if not fa.any():
        return 0.0
    diff = float(np.max(np.abs(a[fa] - b[fa])))
    scale = float(np.max(np.abs(b[fa])))
    return diff / scale if scale > 0 else diff


def _error_text(err, dtype):
    tol = f"허용 < {bound(TOL[dtype])}"
    if math.isinf(err):
        return f"NaN 이나 inf 가 나왔습니다 (기준값은 유한합니다; {tol})."
    if err >= SHOWN:
        return f"최대 오차 {err:.2g} (기준값의 최대 크기에 대한 비; {tol})."
    return f"최대 오차가 {tol} 를 넘습니다 (< {bound(SHOWN)} 이지만 반올림보다 큽니다)."


def bound(x):
    """A power of ten as the book writes it: 1e-4, 1e-10."""
    mantissa, exponent = f"{x:.0e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _diagnose(spec, out, inputs, case, passed_plain):
    """The key of the hint for a wrong answer: a known mistake it equals, else a shape hint."""
    for mistake in spec.mistakes:
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                variant = _outputs(mistake.wrong(**inputs), len(spec.outputs))
        except Exception:  # a mistake that cannot even run on this case is not this one
            continue
        if all(a.shape == b.shape and error(a, b, strict=False) <= 10 * TOL[case.dtype]
               for a, b in zip(out, variant, strict=True)):
            return mistake.hint
    ref = _outputs(spec.reference(**inputs), len(spec.outputs))
    for a, b in zip(out, ref, strict=True):
        if a.shape == b.shape:
            continue
        if a.ndim > 2 and a.shape == b.shape[::-1]:
            return "reversed_axes"
        if a.ndim >= 2 and a.shape == b.shape[:-2] + b.shape[:-3:-1]:
            return "transposed"
    return "batch_axes" if passed_plain and _batched(case) else None


# ------------------------------------------------------------------ inputs and outputs ----


def _rounded(case):
    """The case's inputs with float arrays rounded to its dtype (kept in float64)."""
    return {k: v.astype(case.dtype).astype(np.float64) if _is_float(v) else v
            for k, v in case.inputs.items()}


def _converted(inputs, case, backend):
    """Fresh copies of the inputs for the reader: float arrays in the case's dtype, as NumPy
    arrays or torch tensors."""
    out = {}
    for k, v in inputs.items():
        if isinstance(v, np.ndarray):
            v = v.astype(case.dtype) if _is_float(v) else v.copy()
            if backend == "torch":
                import torch

                v = torch.from_numpy(v)
        out[k] = v
    return out


def _outputs(result, want):
    """A reference's or a mistake's outputs as a list of float64 arrays."""
    items = list(result) if want > 1 else [result]
    return [np.asarray(x, dtype=np.float64) for x in items]


def _to_numpy(x):
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    a = np.asarray(x)
    if a.dtype.kind not in "fiub":
        raise TypeError(a.dtype)
    return a.astype(np.float64)


def _is_array(x):
    return hasattr(x, "shape") and hasattr(x, "dtype")


def _is_float(v):
    return isinstance(v, np.ndarray) and v.dtype.kind == "f"


def _batched(case):
    """Does the case have batch or head axes (float inputs with more than 2 axes)?"""
    return any(_is_float(v) and v.ndim > 2 for v in case.inputs.values())


def _describe(case, backend):
    """'입력: Q (2, 4), K (3, 4), mask (2, 3) bool, fill = -10 — float32, NumPy 배열'."""
    parts = []
    for k, v in case.inputs.items():
        if isinstance(v, np.ndarray):
            parts.append(f"{k} {_shape(v.shape)}" + (" bool" if v.dtype == bool else ""))
        else:
            parts.append(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}")
    note = f"; {case.note}" if case.note else ""
    return f"입력: {', '.join(parts)} — {case.dtype}, {BACKENDS.get(backend, backend)}{note}"


def _shape(shape):
    return "(" + ", ".join(map(str, shape)) + (",)" if len(shape) == 1 else ")")


def _first_line(exc):
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else "(메시지 없음)"


def _broadcast_error(exc):
    text = str(exc)
    return "broadcast" in text or "must match the size" in text


def _has_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True
