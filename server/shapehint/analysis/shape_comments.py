"""Shape comments: `y = f(x)  # [B, T, C]` is *checked* against the inference, never used as input.

Only comments made of dimension-like items are read (`# [B, T, C]`, `# (B, T, C)`,
`# shape: [B, T, C]`); a warning (SH204) when no consistent renaming of their names makes them
agree with the inferred shape. Tests: tests/cases/ (shape-comment cases), tests/unit/test_shape_comments.py.
"""
from __future__ import annotations

import re
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import eq, is_dyn
from ..shapes.values import IntV, TensorV, Value
from .frames import span_of

_SHAPE_COMMENT = re.compile(r"^(?:shape:\s*)?[\[(]\s*([A-Za-z0-9_+\-*/.() ]*(?:,\s*[A-Za-z0-9_+\-*/.() ]*)*)\s*[\])]\s*$")


class ShapeComments:
    """Checks the shape comments of one module (a component of the interpreter)."""

    FIXED = ("comments", "sink", "env", "resolve", "report")

    def __init__(self, comments: dict, sink, env, report):
        self.comments = comments  # line -> comment text
        self.sink, self.env, self.resolve, self.report = sink, env, env.resolve, report

    def check(self, st, v: Value, fr) -> None:
        comment = self.comments.get(getattr(st, "end_lineno", st.lineno))
        if comment is None or not isinstance(v, TensorV) or not fr.record:
            return
        dims = parse_shape_comment(comment)
        if dims is None:
            return
        self.sink.annotate(st.lineno)
        if fr.context != "" and not fr.is_entry:
            return
        s = self.resolve(v)
        if s.rank is None:
            return
        if not self._agrees(dims, s, fr):
            ren = self.sink.renames.get(fr.qualname, {})
            shown = s.subs({k: Expr.sym(n) for k, n in ren.items()})
            self.report(fr, span_of(st), "SH204",
                        f"the shape comment says [{', '.join(dims)}] but the inferred shape is {shown}", [])

    def _agrees(self, dims: list, s, fr) -> bool:
        if len(dims) != s.rank:
            return False
        binding: dict = {}
        renames = self.sink.renames.get(fr.qualname, {})
        ren = {v: k for k, v in renames.items()}
        shown = s.subs({k: Expr.sym(n) for k, n in renames.items()}).dims
        local = None  # the symbols this function's values are in (computed on first need)
        for text, d, d_shown in zip(dims, s.dims, shown):
            if text in ("?", "_", "..."):
                continue
            if is_dyn(d_shown):
                # a size the user is shown as `?` (unknown, or in names this function cannot
                # say) contradicts no name: the warning would disagree with a `?`
                continue
            if text.lstrip("-").isdigit():
                if fr.facts.possible(eq(d, int(text)), core=False)[0] is False:
                    return False
                continue
            if text in self.env.dims and text.isidentifier() and text not in ren and local is None:
                local = _frame_symbols(self.resolve, fr)
            if text in ren or (text in self.env.dims and text.isidentifier() and text in local):
                # a name this function already uses means that dimension, not any renaming (one
                # that only another function uses — its `seq_length` — is free here)
                text_sym = Expr.sym(ren.get(text, text))
                if d != text_sym and not fr.facts.entails(eq(d, text_sym)) \
                        and (not _inexact(d) or fr.facts.possible(eq(d, text_sym), core=False)[0] is False):
                    return False
                continue
            if text in binding:
                if binding[text] != d and fr.facts.possible(eq(binding[text], d), core=False)[0] is False:
                    return False
            else:
                binding[text] = d
        return True


def _inexact(d: Expr) -> bool:
    """Whether a size holds a floor division or a remainder: `(dim*T)//(h*(dim//h))` is `T`
    exactly when `h` divides `dim`, which a constructor's check says and the method's facts do
    not; the comment naming `T` is then contradicted only when no input makes them equal."""
    return any(a.kind in ("floordiv", "mod") for a in d.atoms())


def _frame_symbols(resolve, fr) -> set:
    out: set = set()
    for v in fr.env.values():
        if isinstance(v, TensorV):
            out |= resolve(v).symbols()
        elif isinstance(v, IntV):
            out |= v.expr.symbols()
    return out


def _balanced(item: str) -> bool:
    depth = 0
    for ch in item:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


def parse_shape_comment(comment: str) -> Optional[list]:
    text = comment.strip()
    m = _SHAPE_COMMENT.match(text)
    if m is None:
        return None
    items = [i.strip() for i in m.group(1).split(",") if i.strip()]
    if not items or not all(_balanced(i) for i in items):
        return None  # `(H*W) x (kernel**2)`: prose, not a list of dimensions
    if not all(re.match(r"^[A-Za-z_][A-Za-z0-9_]*$|^-?\d+$|^[A-Za-z0-9_+\-*/() ]+$", i) for i in items):
        return None
    return items
