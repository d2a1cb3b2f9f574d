"""Inlay hints: the inferred shape after each tensor assignment target.

Modes (setting `shapehint.inlayHints`): `off`; `assignments` — after every tensor-valued name
an assignment binds; `all` — also after the outermost tensor expression that ends a line
(`return self.fc(x)`). A target whose line already carries an annotation or a shape comment
that matches is skipped. Tooltips (origins of the symbolic dimensions) are filled on resolve.
Tests: tests/lsp/test_inlay.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from ...analysis.contexts import MAX_CONTEXTS, is_call
from .hover import dims_section, tensor_type

_COMMENT = re.compile(r"#\s*(?:shape\s*:\s*)?([\[(].*[\])])\s*$")


@dataclass(frozen=True)
class Hint:
    line: int  # 1-based
    col: int  # code points; the hint sits before this column
    label: str
    key: dict  # what resolve needs to find the value again


def inlay_hints(result, start_line: int, end_line: int, mode: str = "assignments") -> list:
    """Hints for lines start_line..end_line (1-based, inclusive)."""
    if result is None or mode == "off":
        return []
    lines = result.text.split("\n")
    hints = []
    for v in result.values:
        if not (start_line <= v.span.line <= end_line) or v.kind != "tensor" or v.shape is None:
            continue
        if v.is_target:
            shape = shown_shape(v)
            if v.has_annotation or _comment_matches(lines, v.span.line, str(shape)):
                continue
            hints.append(Hint(v.span.end_line, v.span.end_col, f": {shape}", _key(v)))
    if mode == "all":
        # expression hints only on lines without an assignment target or annotation
        taken = {v.span.line for v in result.values if v.is_target or v.has_annotation}
        hints += _expression_hints(result, lines, start_line, end_line, taken)
    hints.sort(key=lambda h: (h.line, h.col))
    return hints


def shown_shape(v):
    """The record's shape, or the concrete one every calling context agrees on (a helper called
    from one entry with concrete inputs shows those sizes; called with others, its own shape)."""
    ctxs = v.contexts
    if not ctxs or len(ctxs) >= MAX_CONTEXTS or not all(is_call(label) for label, _ in ctxs):
        return v.shape
    first = ctxs[0][1]
    if first is None or first.rank is None or not all(d.is_const for d in first.dims):
        return v.shape
    return first if all(s == first for _, s in ctxs) else v.shape


def _expression_hints(result, lines, start_line, end_line, taken) -> list:
    """The outermost non-target tensor expression that ends each line's code."""
    best: dict = {}
    for v in result.values:
        s = v.span
        if v.is_target or v.kind != "tensor" or v.shape is None or s.line in taken:
            continue
        if not (start_line <= s.end_line <= end_line) or not _ends_code(lines, s.end_line, s.end_col):
            continue
        cur = best.get(s.end_line)
        if cur is None or (s.line, s.col) < (cur.span.line, cur.span.col):
            best[s.end_line] = v
    return [Hint(v.span.end_line, v.span.end_col, f" → {shown_shape(v)}", _key(v)) for v in best.values()
            if not _comment_matches(lines, v.span.end_line, str(shown_shape(v)))]


def _ends_code(lines, line: int, col: int) -> bool:
    rest = lines[line - 1][col:] if 0 < line <= len(lines) else ""
    rest = rest.split("#", 1)[0]
    return rest.strip() in ("", ")", ":") and not rest.strip().startswith("(")


def _comment_matches(lines, line: int, shape_text: str) -> bool:
    if not (0 < line <= len(lines)):
        return False
    text = lines[line - 1]
    if "#" not in text:
        return False
    m = _COMMENT.search(text[text.index("#"):])
    return bool(m) and _norm(m.group(1)) == _norm(shape_text)


def _norm(s: str) -> str:
    """Items of a bracketed shape, without spaces: `(B, T,)` and `[B, T]` both give `B,T`."""
    return re.sub(r"\s+", "", s)[1:-1].rstrip(",")


def _key(v) -> dict:
    return {"line": v.span.line, "col": v.span.col, "end_line": v.span.end_line,
            "end_col": v.span.end_col}


def resolve_tooltip(result, key: dict) -> Optional[str]:
    """Markdown tooltip for a hint: the shape and where its symbolic dimensions come from."""
    if result is None:
        return None
    for v in result.values:
        s = v.span
        if (s.line, s.col, s.end_line, s.end_col) == (key.get("line"), key.get("col"),
                                                     key.get("end_line"), key.get("end_col")):
            syms = sorted(x for x in (v.shape.symbols() if v.shape else ()) if not x.startswith("?"))
            dims = dims_section(syms, result)
            head = f"`{tensor_type(v.shape)}`" + (f" · `{v.dtype}`" if v.dtype else "")
            return head + ("\n\n" + dims if dims else "")
    return None
