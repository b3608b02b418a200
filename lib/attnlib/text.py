"""Padding for printed tables whose labels mix Hangul and Latin.

Hangul (and other East Asian wide characters) take two columns in a terminal or a notebook's
monospace output, so ``f"{label:>8}"`` misaligns a column of Korean labels. :func:`pad` counts
wide and full-width characters (``unicodedata.east_asian_width`` ``W``/``F``) as two columns."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["plain", "pad", "width", "yes_no"]


def width(s: str) -> int:
    """Columns ``s`` takes in a monospace font: 2 for East Asian wide/full-width characters,
    0 for combining marks, 1 otherwise."""
    w = 0
    for ch in s:
        if unicodedata.combining(ch):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def yes_no(flag: object) -> str:
    """``"예"`` or ``"아니요"``: a printed check in the book's language, not Python's True/False."""
    return "예" if flag else "아니요"


def pad(s: object, n: int, align: str = ">") -> str:
    """``s`` padded with spaces to ``n`` columns (``">"`` right, ``"<"`` left)."""
    s = str(s)
    fill = " " * max(0, n - width(s))
    return fill + s if align == ">" else s + fill


# --------------------------------------------------------------------------- math as plain text
_SUP = str.maketrans("0123456789−-+()*Tnh", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁻⁺⁽⁾*ᵀⁿʰ")
_SYMBOLS = {
    "partial": "∂", "cdot": "·", "times": "×", "odot": "⊙", "ne": "≠", "neq": "≠", "le": "≤",
    "ge": "≥", "infty": "∞", "alpha": "α", "beta": "β", "gamma": "γ", "sigma": "σ",
    "Delta": "Δ", "Pi": "Π", "ell": "ℓ", "sum": "Σ", "lVert": "‖", "rVert": "‖", "approx": "≈",
    "to": "→", "log": "log ", "exp": "exp ", ",": " ", "!": "", ";": " ", "quad": " ",
}


_RELATIONS = ("ne", "neq", "le", "ge", "approx", "to")


def _group(s: str, i: int) -> tuple[str, int]:
    """The argument at ``s[i]``: a ``{…}`` group (its inside) or one character/command."""
    if i < len(s) and s[i] == "{":
        depth, j = 0, i
        while j < len(s):
            depth += {"{": 1, "}": -1}.get(s[j], 0)
            if depth == 0:
                return s[i + 1:j], j + 1
            j += 1
        return s[i + 1:], len(s)
    if i < len(s) and s[i] == "\\":
        j = i + 1
        while j < len(s) and s[j].isalpha():
            j += 1
        end = max(j, i + 2)
        skip = end
        while skip < len(s) and s[skip] == " ":
            skip += 1
        # a control word before a letter (``\partial L``): the space only ends the word
        if j > i + 1 and skip < len(s) and s[skip].isalnum() and s[i + 1:j] not in _RELATIONS:
            end = skip
        return s[i:max(j, i + 2)], end
    return s[i:i + 1], i + 1


def _math(s: str) -> str:
    out, i = [], 0
    while i < len(s):
        ch = s[i]
        if ch == "\\":
            name, j = _group(s, i)
            name = name[1:]
            if name in ("mathsf", "mathrm", "text", "operatorname", "mathbf", "mathit"):
                arg, j = _group(s, j)
                out.append(_math(arg))
            elif name == "sqrt":
                index = ""
                if j < len(s) and s[j] == "[":
                    k = s.index("]", j)
                    index, j = s[j + 1:k].translate(_SUP), k + 1
                arg, j = _group(s, j)
                arg = _math(arg)
                out.append(f"{index}√{arg}" if len(arg) <= 1 or "_" not in arg and arg.isalnum()
                           or re.fullmatch(r"\w+_\w+", arg) else f"{index}√({arg})")
            elif name == "hat":
                arg, j = _group(s, j)
                out.append(_math(arg) + "\u0302")
            elif name in ("left", "right", "displaystyle"):
                pass
            else:
                out.append(_SYMBOLS.get(name, name))
            i = j
        elif ch == "^":
            arg, j = _group(s, i + 1)
            arg = _math(arg)
            sup = arg.translate(_SUP)
            if all(c in "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺⁽⁾*ᵀⁿʰ" for c in sup):
                out.append(sup)
            else:
                out.append(f"^({arg})" if len(arg) > 1 else f"^{arg}")
            i = j
        elif ch == "_":
            arg, j = _group(s, i + 1)
            arg = _math(arg)
            out.append("_" + arg)
            if len(arg) > 1 and j < len(s) and s[j].isalpha():  # P_{ij}U_{ij}: P_ij U_ij
                out.append(" ")
            i = j
        elif ch in "{}":
            i += 1
        elif ch == "-":
            out.append("−")
            i += 1
        else:
            out.append(ch)
            i += 1
    return re.sub(r" {2,}", " ", "".join(out))


def plain(text: str) -> str:
    """A sentence of the book's markdown as plain text, for a printed line: ``$…$`` math in
    Unicode (``$10^{-3}$`` → ``10⁻³``, ``$P^{\\mathsf T}G$`` → ``PᵀG``, ``$\\sqrt{d_k}$`` →
    ``√d_k``), code spans and emphasis without their backticks and asterisks."""
    text = re.sub(r"\$([^$]+)\$", lambda m: _math(m.group(1)), text)
    return re.sub(r"`([^`]*)`|\*\*([^*]*)\*\*", lambda m: m.group(1) or m.group(2) or "", text)
