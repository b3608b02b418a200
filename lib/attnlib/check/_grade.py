"""The grader behind :mod:`attnlib.check`: run a reader's function on chosen cases, compare each
output with attnlib's, print the success or the first failing case with a hint.

A checker describes itself as a :class:`Spec`: its cases (inputs in float64 NumPy, cast to the
case's dtype before anything is computed), the reference (attnlib, float64), the names of the
outputs and the known mistakes, each a float64 implementation of one typical wrong answer.

Besides the values, every case checks that the function leaves its inputs as they were, returns
arrays of its own (no view of an input, none that a later call overwrites) and, on a case with a
:class:`Memory` limit, that its peak NumPy memory (``tracemalloc``) stays under the limit (torch's
allocations are not seen: the success line says so when the measured call used torch). At the
end the last and the first case are called once more: no output may share memory with one
returned before, and the earlier outputs must be as they were.

A hint is printed only when the grader has identified the mistake: the answer equals a known
mistake on the failing case *and* on every other float64 case the function runs on, no other
mistake with another hint does so as well (then it says nothing), and that agreement says
something (the mistake differs there from the right answer in finite values or in where its NaN
and inf fall, not only in being all NaN); or the outputs are the right ones in
another order; or the shapes, the axes or the dtype tell (the leading-axes hint: after a crash or
a wrong shape on a case with more axes than any passed, or when the function is right on that
case's inputs cut down to a passed case's axes). Otherwise the grader says nothing.

Nothing here raises, whatever the function returns and whatever the reader's floating-point
settings (``np.seterr``, warnings as errors): the grader runs under its own.

Printed lines are the same on every machine: a passing error shows as the bound it stays under,
a failing one with 2 significant digits only when it is far above round-off (``SHOWN``).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import re
import sys
import tracemalloc
import unicodedata
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ._hints import HINTS

TOL = {"float32": 1e-4, "float64": 1e-10}  # error ≤ TOL · max|reference|, per output
SHOWN = 1e-6  # a failing error at least this big is printed with 2 significant digits
BACKENDS = {"numpy": "NumPy 배열", "torch": "torch 텐서"}
EPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-23, "float64": 2.0**-52}


class Memory(NamedTuple):
    """A case's memory limit: the reader's peak NumPy allocation must stay below ``limit`` bytes;
    ``full`` is the size of one n×m float64 array there and ``where`` names the sizes."""

    limit: int
    full: int
    where: str


class Case(NamedTuple):
    """One set of inputs: ``inputs`` maps argument names to values (float arrays in float64 are
    cast to ``dtype``; boolean arrays and scalars are passed as they are); ``note`` says in words
    what is special about the case (in a failure), ``tags`` the kinds it adds to the success line;
    ``memory``: the peak memory is measured on this case."""

    inputs: dict
    dtype: str = "float64"
    note: str = ""
    tags: tuple = ()
    memory: Memory | None = None


class Mistake(NamedTuple):
    """A typical wrong answer: ``wrong(**inputs)`` returns its outputs; ``hint`` names it."""

    hint: str
    wrong: Callable[..., Any]


class Spec(NamedTuple):
    """What a checker checks: the function's name in the message, its outputs' names, the cases,
    ``reference(**inputs)`` (float64 outputs), the known mistakes, how the function is called
    and ``hints``, keys that replace the generic ones for this checker: "axes" (failed once
    leading axes appeared) and "float32" (failed in float32 on inputs that passed in float64)."""

    name: str
    outputs: tuple
    cases: list
    reference: Callable[..., Any]
    mistakes: tuple
    call: str  # how the reader's function is called, e.g. "fn(P, U) -> delta"
    hints: dict = {}
    unchecked: str = ""  # a constraint of the exercise the grader does not check, in words


class Failure(Exception):
    """Raised inside the grader (never out of it) with the lines to print and the hint's key
    (and the values its text is formatted with)."""

    def __init__(self, lines, hint=None, **args):
        super().__init__(lines[0] if lines else "")
        self.lines = list(lines)
        self.hint = hint
        self.args_ = args


def run(spec: Callable[[], Spec], fn, *, backend=None) -> None:
    """Grade ``fn`` against the checker ``spec()`` describes and print the result (see the
    module docstring). ``spec`` is built here, under the grader's own floating-point settings."""
    with _quiet():
        try:
            spec = spec()
        except Exception as error:  # the grader's own bug: say so rather than raise
            _print([f"✘ 검사기 안에서 오류가 났습니다 ({type(error).__name__}: "
                    f"{_first_line(error)})."])
            return
    head = f"check.{spec.name}"
    if not callable(fn):
        _print([f"✘ {head}: 함수를 넘겨 주세요 ({spec.call}). 받은 것: {type(fn).__name__}"])
        return
    if backend not in (None, "numpy", "torch"):
        _print([f"✘ {head}: backend 는 None(자동), 'numpy', 'torch' 중 하나입니다. "
                f"받은 것: {backend!r}"])
        return
    with _quiet():
        try:
            lines = _Grader(spec, fn, backend).grade()
        except NotImplementedError:
            lines = [f"… {head}: 아직 구현하지 않았습니다 (NotImplementedError).",
                     "  함수를 채우고 이 셀을 다시 실행하세요."]
        except Failure as failure:
            hint = HINTS[failure.hint].format(**failure.args_) if failure.hint else None
            lines = ([f"✘ {head}: {failure.lines[0]}"] + ["  " + x for x in failure.lines[1:]]
                     + ([f"  힌트: {hint}"] if hint else []))
        except Exception as error:  # the grader's own bug: say so rather than raise
            lines = [f"✘ {head}: 검사기 안에서 오류가 났습니다 ({type(error).__name__}: "
                     f"{_first_line(error)}). 답이 틀렸다는 뜻은 아닐 수 있습니다."]
        else:
            lines[0] = f"✔ {head}: {lines[0]}"
    _print(lines)


@contextlib.contextmanager
def _quiet():
    """The grader's own floating-point settings: no FloatingPointError, no warning."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


WIDTH = 72  # columns of a printed line (a Korean syllable takes two): the page's code column


def _print(lines):
    print("\n".join(wrapped for line in lines for wrapped in _wrap(line)))


def _wrap(line):
    """``line`` cut at spaces into lines of at most WIDTH columns, continued 2 columns further in
    than it starts (after "힌트: " for a hint)."""
    body = line.lstrip(" ")
    indent = " " * (len(line) - len(body) + (6 if body.startswith("힌트: ") else 2))
    out, current = [], line[: len(line) - len(body)]
    for word in _units(body):
        trial = f"{current} {word}" if current.strip() else current + word
        if _columns(trial) > WIDTH and current.strip():
            out.append(current)
            current = indent + word
        else:
            current = trial
    return out + [current]


def _units(body):
    """The words of ``body``, those joined by a one-character symbol or letter kept together
    ("n ≠ m", "< 1e-4"), so that a line never ends or starts with such a word."""
    units = []
    for word in body.split(" "):
        if units and (_tiny(word) or _tiny(units[-1].rsplit(" ", 1)[-1])):
            units[-1] += " " + word
        else:
            units.append(word)
    return units


def _tiny(word):
    return len(word) == 1 and _columns(word) == 1


def _columns(text):
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


# ------------------------------------------------------------------------------ grading ----


class Reply(NamedTuple):
    """What one call of the reader's function gave back."""

    outputs: list  # float64 NumPy arrays
    dtypes: list  # the dtype each output came in ("bfloat16", "float32", ...)
    raw: list  # each output as the NumPy array it was (a view of the reader's memory) or None
    passed: dict  # argument name -> the NumPy array the function received (or that backs it)
    fresh: dict  # argument name -> a copy of it taken before the call
    peak: int | None  # the call's peak NumPy allocation in bytes, when measured
    torch_work: bool = False  # did the measured call use torch (memory tracemalloc cannot see)?


class _Grader:
    def __init__(self, spec, fn, backend):
        self.spec, self.fn, self.backend = spec, fn, backend
        self.replies = {}  # case index -> Reply, for the cases run so far
        self.refs = {}  # case index -> reference outputs
        self.passed = []  # indices of the cases passed
        self.kept = []  # (case index, output name, raw array, copy): must not change later
        self.measured = None  # the Memory of a case whose peak was measured
        self.torch_work = False  # did the measured call use torch?

    # the cases, one by one

    def grade(self):
        cases = self.spec.cases
        for k, case in enumerate(cases):
            where = f"경우 {k + 1}/{len(cases)}"
            reply = self.call(k, where)
            self.check_side_effects(k, reply, where)
            ref = self.reference(k)
            wrong = _compare(self.spec, reply.outputs, ref, case)
            if wrong:
                hint, args = self.diagnose(k, reply)
                raise Failure([f"{where} 에서 틀렸습니다.", self.describe(case)]
                              + [w[1] for w in wrong], hint, **args)
            self.check_memory(case, reply, where)
            self.passed.append(k)
            self.kept += [(k, name, raw, raw.copy())
                          for name, raw in zip(self.spec.outputs, reply.raw, strict=True)
                          if raw is not None]
        self.call_again()
        return self.success()

    def call_again(self):
        """Call the function once more on the last case and on the first: an output it returns
        must not be an array it returned before (one buffer, or a cache keyed on the shape and
        dtype), and the outputs of the earlier calls must be as they were."""
        for k in dict.fromkeys((len(self.spec.cases) - 1, 0)):
            case = self.spec.cases[k]
            where = f"경우 {k + 1} 로 다시 불렀을 때"
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    reply = self.convert(self.run_reader(case._replace(memory=None),
                                                         self.backend), case, where)
            except (Exception, NotImplementedError) as error:
                raise Failure([f"{where} 함수가 오류를 냈습니다: {type(error).__name__}: "
                               f"{_first_line(error)}", self.describe(case)]) from None
            for out, raw in zip(self.spec.outputs, reply.raw, strict=True):
                for j, name, old, _ in self.kept:
                    if raw is not None and np.may_share_memory(raw, old):
                        raise Failure([f"{where}: 돌려준 {out} 가 경우 {j + 1} 에서 돌려준 "
                                       f"{name} 와 같은 메모리입니다.", self.describe(case)],
                                      "reused_output")
            self.check_side_effects(k, reply, where)
            self.kept += [(k, name, raw, raw.copy())
                          for name, raw in zip(self.spec.outputs, reply.raw, strict=True)
                          if raw is not None]

    def reference(self, k):
        if k not in self.refs:
            inputs = _rounded(self.spec.cases[k])
            self.refs[k] = _outputs(self.spec.reference(**inputs), len(self.spec.outputs))
        return self.refs[k]

    def call(self, k, where):
        """The reader's reply on case ``k``; with ``backend=None`` a function that fails on the
        first case's NumPy arrays is tried once more with torch tensors (when torch is
        installed): it may have been written for tensors."""
        case = self.spec.cases[k]
        name = self.backend or "numpy"
        try:
            reply = self.run_reader(case, name)
        except NotImplementedError:
            raise
        except Exception as error:  # the reader's bug, reported below, never raised
            if not (self.backend is None and k == 0 and _has_torch()):
                self.crashed(error, k, name, where)
            try:
                reply, name = self.run_reader(case, "torch"), "torch"
            except NotImplementedError:
                raise
            except Exception:
                self.crashed(error, k, "numpy", where)
        self.backend = name
        self.replies[k] = self.convert(reply, case, where)
        return self.replies[k]

    def run_reader(self, case, backend):
        """Call the function on fresh copies of the case's inputs; (result, passed, fresh,
        peak, torch_work). ``tracemalloc`` sees NumPy's allocations, not torch's: a measured call
        runs under a mode that notes whether any torch function was called (then torch_work)."""
        passed, given = _converted(_rounded(case), case, backend)
        fresh = {k: v.copy() for k, v in passed.items()}
        measure = case.memory is not None and backend == "numpy"
        peak, seen = None, contextlib.nullcontext()
        if measure and "torch" in sys.modules:
            seen = _torch_calls()
        if measure:
            started = not tracemalloc.is_tracing()
            if started:
                tracemalloc.start()
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
        try:
            with seen as calls:
                result = self.fn(*given.values())
        finally:
            if measure:
                peak = tracemalloc.get_traced_memory()[1] - base
                if started:
                    tracemalloc.stop()
        return result, passed, fresh, peak, bool(calls and calls.n)

    def convert(self, reply, case, where):
        result, passed, fresh, peak, torch_work = reply
        outputs, dtypes, raw = _as_outputs(self.spec, result, where, self.describe(case))
        return Reply(outputs, dtypes, raw, passed, fresh, peak, torch_work)

    def crashed(self, error, k, backend, where):
        case = self.spec.cases[k]
        hint, args = None, {}
        shapes = _broadcast_shapes(error)
        if shapes:
            hint, args = "keepdims_crash", shapes
        elif self.more_axes(k):
            hint = self.spec.hints.get("axes", "batch_axes")
        raise Failure([f"{where} 에서 함수가 오류를 냈습니다: {type(error).__name__}: "
                       f"{_first_line(error)}", _describe(case, backend)], hint, **args)

    def describe(self, case):
        return _describe(case, self.backend or "numpy")

    # what is checked besides the values

    def check_side_effects(self, k, reply, where):
        case = self.spec.cases[k]
        changed = [name for name, a in reply.passed.items()
                   if not _same(a, reply.fresh[name])]
        if changed:
            names = ", ".join(changed)
            raise Failure([f"{where} 에서 함수가 입력 {names} 를 바꿔 놓았습니다.",
                           self.describe(case)], "mutated", names=names)
        for out, raw in zip(self.spec.outputs, reply.raw, strict=True):
            shared = [name for name, a in reply.passed.items()
                      if raw is not None and np.may_share_memory(raw, a)]
            if shared:
                raise Failure([f"{where}: 돌려준 {out} 가 입력 {shared[0]} 와 메모리를 함께 "
                               "씁니다 (입력의 view 입니다).", self.describe(case)], "alias")
        for j, out, raw, copy in self.kept:
            if not _same(raw, copy):
                raise Failure([f"{where}: 경우 {j + 1} 에서 돌려준 {out} 가 이번 호출 뒤에 "
                               "바뀌었습니다.", self.describe(case)], "reused_output")

    def check_memory(self, case, reply, where):
        if case.memory is None or reply.peak is None:
            return
        self.measured = case.memory
        self.torch_work = reply.torch_work
        if reply.peak >= case.memory.limit:
            raise Failure([f"{where}: 값은 맞지만 메모리를 {_mib(reply.peak)} 썼습니다 "
                           f"(허용 < {_mib(case.memory.limit)}; n×m float64 배열 하나가 "
                           f"{_mib(case.memory.full)}).", self.describe(case)], "memory")

    def success(self):
        cases = self.spec.cases
        tags = list(dict.fromkeys(t for c in cases for t in c.tags))
        dtypes = sorted({c.dtype for c in cases})
        lines = [f"통과 ({len(cases)}가지 경우, {BACKENDS[self.backend]})",
                 f"  시험한 것: {', '.join(tags)}",
                 "  모든 경우에서: 입력을 바꾸지 않음, 호출마다 새 출력 배열"]
        memory = next((c.memory for c in cases if c.memory is not None), None)
        if memory is not None and self.measured is not None and self.torch_work:
            lines.append(f"  메모리: {memory.where} 에서 NumPy 배열은 최대 < "
                         f"{_mib(memory.limit)}; 함수 안의 torch 계산은 재지 않았습니다 "
                         "(tracemalloc 에 보이지 않습니다).")
        elif memory is not None and self.measured is not None:
            lines.append(f"  메모리: {memory.where} 에서 최대 < {_mib(memory.limit)} "
                         f"(n×m float64 배열 하나가 {_mib(memory.full)})")
        elif memory is not None:
            lines.append("  메모리: 재지 않았습니다 (torch 텐서는 tracemalloc 에 보이지 "
                         "않습니다; NumPy 로 쓰면 잽니다).")
        if self.spec.unchecked:
            lines.append(f"  검사하지 않은 것: {self.spec.unchecked}")
        lines.append("  오차: " + ", ".join(f"{d} < {bound(TOL[d])}" for d in dtypes))
        return lines

    # the hint

    def diagnose(self, k, reply):
        """(key, format values) of the hint for a wrong answer on case ``k``, or (None, {})."""
        spec, case, out = self.spec, self.spec.cases[k], reply.outputs
        ref = self.reference(k)
        low = _low_precision(spec, reply, ref, case)
        if low:
            return "low_precision", low
        order = _other_order(spec, out, ref, case)
        if order:
            return "order", {"names": order}
        # one mistake, and no other: of the mistakes whose outputs the answer gives on the
        # failing case, exactly one (one hint) must also be the answer on every other case;
        # when two remain, the cases cannot say which was made, and the grader says nothing
        here = [i for i in range(len(spec.mistakes)) if self.agrees_on(i, k)]
        named = {spec.mistakes[i].hint for i in here if self.is_mistake(i, k)}
        if len(named) > 1:
            return None, {}
        if named:
            return named.pop(), {}
        for a, b in zip(out, ref, strict=True):
            if a.shape == b.shape:
                continue
            if a.ndim > 2 and a.shape == b.shape[::-1]:
                return "reversed_axes", {}
            if a.ndim >= 2 and a.shape == b.shape[:-2] + b.shape[:-3:-1]:
                return "transposed", {}
        if self.more_axes(k) and (any(a.shape != b.shape for a, b in zip(out, ref, strict=True))
                                  or self.right_on_slices(k)):
            return spec.hints.get("axes", "batch_axes"), {}
        twin = _twin(spec.cases, k)
        if case.dtype == "float32" and twin in self.passed:
            return spec.hints.get("float32", "float32_only"), {}
        return None, {}

    def agrees_on(self, i, k):
        """Does the function give mistake ``i``'s outputs on the failing case ``k``?"""
        mine, wrong = self.outputs_on(k), self.variant(i, k)
        return (mine is not None and wrong is not None
                and _agree(mine, wrong, 10 * TOL[self.spec.cases[k].dtype]))

    def is_mistake(self, i, k):
        """Does the function give mistake ``i``'s outputs on case ``k`` and on every other
        float64 case it runs on, and does that agreement tell the mistake from the answer?"""
        cases = self.spec.cases
        tells = False
        for c in [k] + [j for j, x in enumerate(cases) if j != k and x.dtype == "float64"]:
            mine = self.outputs_on(c)
            if mine is None:
                continue
            wrong = self.variant(i, c)
            if wrong is None:
                if c == k:
                    return False
                continue
            tol = 10 * TOL[cases[c].dtype]
            if not _agree(mine, wrong, tol):
                return False
            tells = tells or _tells(wrong, self.reference(c), tol)
        return tells

    def outputs_on(self, c):
        """The function's outputs on case ``c`` (run quietly if not run yet), None if it
        fails there."""
        if c not in self.replies:
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    reply = self.run_reader(self.spec.cases[c], self.backend)
                self.replies[c] = self.convert(reply, self.spec.cases[c], "")
            except (Exception, NotImplementedError):
                self.replies[c] = None
        reply = self.replies[c]
        return None if reply is None else reply.outputs

    def variant(self, i, c):
        try:
            return _outputs(self.spec.mistakes[i].wrong(**_rounded(self.spec.cases[c])),
                            len(self.spec.outputs))
        except Exception:  # a mistake that cannot even run on this case is not this one
            return None

    def right_on_slices(self, k):
        """Is the function right on case ``k``'s inputs cut down, at a few indices of the leading
        axes the passed cases lacked, to the axes of a passed case with two or more axes? Then
        the extra leading axes (batch, heads) are what it gets wrong. A passed case with one axis
        (m,) says nothing of the kind: a mistake in the rows' own axes fails there too."""
        j = max(self.passed, key=lambda i: _axes(self.spec.cases[i]))
        small, case = self.spec.cases[j].inputs, self.spec.cases[k]
        if _axes(self.spec.cases[j]) < 2:
            return False
        lead = {name: v.ndim - small[name].ndim for name, v in case.inputs.items()
                if isinstance(v, np.ndarray) and isinstance(small.get(name), np.ndarray)}
        shapes = {case.inputs[name].shape[:e] for name, e in lead.items() if e > 0}
        if len(shapes) != 1:
            return False
        (shape,) = shapes
        for index in itertools.islice(np.ndindex(*shape), 3):
            inputs = {name: v[index] if lead.get(name, 0) > 0 else v
                      for name, v in case.inputs.items()}
            cut = case._replace(inputs=inputs, memory=None)
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    reply = self.convert(self.run_reader(cut, self.backend), cut, "")
                ref = _outputs(self.spec.reference(**_rounded(cut)), len(self.spec.outputs))
            except (Exception, NotImplementedError):
                return False
            if _compare(self.spec, reply.outputs, ref, cut):
                return False
        return True

    def more_axes(self, k):
        """Has the function failed on the first case with more leading axes than any passed?"""
        if not self.passed:
            return False
        return _axes(self.spec.cases[k]) > max(_axes(self.spec.cases[j]) for j in self.passed)


# ---------------------------------------------------------------------- comparing outputs ----


def _compare(spec, out, ref, case):
    """[(name, line)] for each output that is wrong in shape or value."""
    wrong = []
    for name, a, b in zip(spec.outputs, out, ref, strict=True):
        if a.shape != b.shape:
            wrong.append((name, f"{name}: shape 가 {_shape(a.shape)} 인데, 맞는 "
                                f"shape 는 {_shape(b.shape)} 입니다."))
            continue
        err = error(a, b)
        if err > TOL[case.dtype]:
            wrong.append((name, f"{name}: {_error_text(err, case.dtype)}"))
    return wrong


def error(a, b, *, strict=True) -> float:
    """max|a − b| / max|b| over the finite entries; inf when NaN or inf sit in other places
    (``strict``: or are of another kind, NaN for −inf)."""
    with np.errstate(all="ignore"):
        fa, fb = np.isfinite(a), np.isfinite(b)
        if (fa != fb).any() or (strict and not np.array_equal(a[~fa], b[~fb], equal_nan=True)):
            return math.inf
        if not fa.any():
            return 0.0
        diff = float(np.max(np.abs(a[fa] - b[fa])))
        scale = float(np.max(np.abs(b[fa])))
        return diff / scale if scale > 0 else diff


def _agree(out, wrong, tol):
    """The same shapes, NaN and inf in the same places, the finite entries within ``tol``."""
    return all(a.shape == b.shape and error(a, b, strict=False) <= tol
               for a, b in zip(out, wrong, strict=True))


def _tells(wrong, ref, tol):
    """Does a mistake's output differ from the answer in a way an agreement can show: other
    finite values, or NaN/inf where the answer is finite in an output that is not all NaN?"""
    with np.errstate(all="ignore"):
        for w, r in zip(wrong, ref, strict=True):
            if w.shape != r.shape:
                return True
            fw, fr = np.isfinite(w), np.isfinite(r)
            both = fw & fr
            if both.any():
                scale = float(np.max(np.abs(r[fr])))
                if float(np.max(np.abs(w[both] - r[both]))) > tol * (scale or 1.0):
                    return True
            if (fr & ~fw).any() and fw.any():
                return True
    return False


def _other_order(spec, out, ref, case):
    """'(dV, U)' when the outputs are the right ones in another order, else None."""
    if len(out) < 2:
        return None
    for perm in itertools.permutations(range(len(out))):
        if perm == tuple(range(len(out))):
            continue
        if all(out[p].shape == ref[i].shape and error(out[p], ref[i]) <= TOL[case.dtype]
               for i, p in enumerate(perm)):
            return "(" + ", ".join(spec.outputs) + ")"
    return None


def _low_precision(spec, reply, ref, case):
    """{'name', 'dtype', 'case'} when an output came in a dtype less precise than the case's and
    its error is the size that dtype's rounding makes."""
    for name, a, b, dtype in zip(spec.outputs, reply.outputs, ref, reply.dtypes, strict=True):
        if dtype in EPS and EPS[dtype] > EPS[case.dtype] and a.shape == b.shape:
            if TOL[case.dtype] < error(a, b) <= 100 * EPS[dtype]:
                return {"name": name, "dtype": dtype, "case": case.dtype}
    return None


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


def _mib(n):
    """Bytes in MiB as the book prints them: 4 MiB, 0.5 MiB, 1.3 MiB."""
    x = n / 2**20
    return f"{x:.0f} MiB" if x >= 10 or x == int(x) else f"{x:.2g} MiB"


# ------------------------------------------------------------------ inputs and outputs ----


def _rounded(case):
    """The case's inputs with float arrays rounded to its dtype (kept in float64)."""
    return {k: v.astype(case.dtype).astype(np.float64) if _is_float(v) else v
            for k, v in case.inputs.items()}


def _converted(inputs, case, backend):
    """Fresh copies of the inputs for the reader, float arrays in the case's dtype: (the NumPy
    arrays, what the function gets: the same arrays or torch tensors sharing their memory)."""
    arrays, given = {}, {}
    for k, v in inputs.items():
        if isinstance(v, np.ndarray):
            v = v.astype(case.dtype) if _is_float(v) else v.copy()
            arrays[k] = v
            if backend == "torch":
                import torch

                v = torch.from_numpy(v)
        given[k] = v
    return arrays, given


def _outputs(result, want):
    """A reference's or a mistake's outputs as a list of float64 arrays."""
    items = list(result) if want > 1 else [result]
    return [np.asarray(x, dtype=np.float64) for x in items]


def _as_outputs(spec, result, where, described):
    """Check the arity and the type of what the reader returned: (float64 NumPy arrays, the
    dtypes they came in, the arrays as they were, or None)."""
    want = len(spec.outputs)
    names = ", ".join(spec.outputs)
    if result is None:
        raise Failure([f"{where}: 함수가 아무것도 돌려주지 않았습니다 (return 을 빠뜨렸나요?). "
                       f"{names} 를 돌려주세요.", described])
    if want > 1:
        if _is_array(result):
            got = "배열 하나를 돌려줬습니다"
        elif isinstance(result, (tuple, list)):
            got = f"{len(result)}개를 돌려줬습니다"
        else:
            got = f"{type(result).__name__} 객체를 돌려줬습니다"
        if _is_array(result) or not isinstance(result, (tuple, list)) or len(result) != want:
            raise Failure([f"{where}: 출력 {want}개 ({names}) 를 튜플로 돌려줘야 하는데 {got}.",
                           described])
        items = list(result)
    elif isinstance(result, tuple) and any(_is_array(x) for x in result):
        raise Failure([f"{where}: 출력은 {names} 하나인데 {len(result)}개짜리 튜플을 "
                       "돌려줬습니다.", described])
    else:
        items = [result]
    arrays, dtypes, raws = [], [], []
    for name, item in zip(spec.outputs, items, strict=True):
        try:
            array, dtype, raw = _to_numpy(item)
        except Exception as error:
            kind = str(error) if isinstance(error, _Complex) else None
            text = (f"{name} 가 복소수 배열입니다 ({kind}); 실수 배열이어야 합니다." if kind else
                    f"{name} 가 숫자 배열이 아닙니다 ({type(item).__name__}).")
            raise Failure([f"{where}: {text}", described]) from None
        arrays.append(array)
        dtypes.append(dtype)
        raws.append(raw)
    return arrays, dtypes, raws


class _Complex(TypeError):
    pass


def _to_numpy(x):
    """(float64 copy, the dtype's name, the NumPy array x is or views, else None)."""
    if hasattr(x, "toarray"):  # a SciPy sparse matrix
        x = x.toarray()
    if hasattr(x, "detach"):  # a torch tensor, perhaps requiring grad, on a device, bfloat16
        t = x.detach()
        if t.is_sparse:
            t = t.to_dense()
        dtype = str(t.dtype).removeprefix("torch.")
        if t.is_complex():
            raise _Complex(dtype)
        if dtype == "bfloat16":
            a, raw = t.float().cpu().numpy(), None
        else:
            a = t.cpu().numpy()
            raw = a if t.device.type == "cpu" else None
    else:
        a = np.asarray(x)
        raw = x if isinstance(x, np.ndarray) else None
        dtype = str(a.dtype)
    if a.dtype.kind == "c":
        raise _Complex(str(a.dtype))
    if a.dtype.kind not in "fiub":
        raise TypeError(a.dtype)
    return a.astype(np.float64), dtype, raw


def _same(a, b):
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def _is_array(x):
    return hasattr(x, "shape") and hasattr(x, "dtype")


def _is_float(v):
    return isinstance(v, np.ndarray) and v.dtype.kind == "f"


def _axes(case):
    """The most axes a float input of the case has."""
    return max((v.ndim for v in case.inputs.values() if _is_float(v)), default=0)


def _twin(cases, k):
    """The index of the float64 case with the same inputs as case ``k``, or None."""
    return next((j for j, c in enumerate(cases)
                 if j != k and c.inputs is cases[k].inputs and c.dtype == "float64"), None)


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


def _broadcast_shapes(exc):
    """{'small', 'big', 'fixed'} when NumPy could not broadcast a row's value, shape (..., n),
    against the rows, shape (..., n, m): the keepdims slip, told by the shapes NumPy prints."""
    text = str(exc)
    if "could not be broadcast" not in text:
        return None
    shapes = [tuple(int(x) for x in s.split(",") if x.strip())
              for s in re.findall(r"\(([\d,\s]*)\)", text)]
    for big, small in itertools.permutations(shapes, 2):
        if len(big) >= 2 and small == big[:-1]:
            return {"small": _shape(small), "big": _shape(big), "fixed": _shape(small + (1,))}
    return None


@contextlib.contextmanager
def _torch_calls():
    """A TorchFunctionMode that counts the torch functions called inside it (``.n``)."""
    from torch.overrides import TorchFunctionMode

    class Calls(TorchFunctionMode):
        n = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.n += 1
            return func(*args, **(kwargs or {}))

    with Calls() as calls:
        yield calls


def _has_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True
