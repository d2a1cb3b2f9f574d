"""`AnalysisContext`: the symbolic `OpContext` rules see while the interpreter runs.

Preconditions become solver queries against the facts of the current analysis: a provably
false one raises `OpFailed` (reported as an error with the unsat core as related
locations); a possible one becomes a fact for the rest of the path; `unknown` is ignored.
"""
from __future__ import annotations

from typing import Optional, Sequence

from ..ops.context import Message, NotApplicable, OpContext, OpFailed
from ..shapes.expr import Expr
from ..shapes.shape import Pred, Shape, eq
from ..shapes.values import IntV, ModuleV, Span, TensorV, Value
from ..solver.facts import Unknown
from .objects import OpaqueV
from . import kept_segments
from .operands import size_of
from .result import Related


class AnalysisContext(OpContext):
    def __init__(self, interp, frame, span: Optional[Span], opname, labels: Optional[dict] = None):
        self.interp = interp
        self.frame = frame
        self.span = span
        # a text, or the call's node: most operations succeed without naming themselves, so the
        # call's text is read only when a message or a fact's origin needs it
        self._opname = opname
        self.labels = labels or {}

    @property
    def opname(self) -> str:
        got = self._opname
        if not isinstance(got, str):
            got = self._opname = self.interp.source(got, 48)
        return got

    def require(self, pred: Pred, message: Message, code: str = "SH101", related: Sequence = ()) -> None:
        if pred.is_true:
            return
        facts = self.frame.facts
        possible, core = facts.possible(pred)
        if possible is False:
            err = OpFailed(code, message, list(related) + core)
            err.pred = pred
            raise err
        if possible is None:
            return
        facts.add(pred, (self.span, f"required by {self.opname}"))

    def entails(self, pred: Pred) -> bool:
        return self.frame.facts.entails(pred)

    def pinned(self, e: Expr) -> Optional[int]:
        if e.value is not None:
            return e.value
        facts = self.frame.facts
        try:
            m = facts.model(names=e.symbols())
        except Unknown:
            return None
        if m is None or any(n not in m for n in e.symbols()):
            return None
        v = e.subs({n: Expr.const(m[n]) for n in e.symbols()}).value
        return v if v is not None and facts.entails(eq(e, Expr.const(v))) else None

    def fresh(self, hint: str) -> Expr:
        return self.interp.fresh_symbol(hint, self.span, lo=0)

    def warn(self, code: str, message: str) -> None:
        self.interp.report(self.frame, self.span, code, message, [])

    def call(self, fn: Value, args: list, kwargs: Optional[dict] = None) -> Value:
        return self.interp.call_value(fn, list(args), dict(kwargs or {}), self.frame, self.span)

    def learn_rank(self, t: TensorV, rank: int) -> tuple:
        return self.interp.learn_rank(t, rank, self.span)

    def fresh_star(self, like: Optional[str]) -> str:
        return self.interp.fresh_star(like)

    def dropped_star(self, like: Optional[str], dropped: tuple) -> str:
        return kept_segments.star_for(self.interp, like, dropped)

    def sides_shared(self, star: str) -> bool:
        return self.interp.sides_shared(star)

    def segment_product(self, star: str) -> Expr:
        return self.interp.segment_product(star)

    def derived_star(self, source: TensorV, held: Shape, how) -> str:
        return self.interp.derived_star(source, held, how)

    def view_base(self, s: Shape) -> Optional[Shape]:
        return self.interp.view_base(s)

    def learn_prefix(self, t: TensorV, n: int) -> None:
        self.interp.learn_edge(t, n, self.span, front=True, same=self._same)

    def learn_suffix(self, t: TensorV, n: int) -> None:
        self.interp.learn_edge(t, n, self.span, front=False, same=self._same)

    def _same(self, a: Expr, b: Expr) -> bool:
        return self.entails(eq(a, b))

    def label(self, v: Value, default: str = "the input") -> str:
        """How the user wrote the argument `v` (labels hold the expression's node, or a text)."""
        got = self.labels.get(id(v))
        if got is None:
            return default
        return got if isinstance(got, str) else self.interp.source(got, 40)

    def int_of(self, v) -> Optional[Expr]:
        if v.__class__ is IntV:  # what the interpreter passes most (a rule asks for every size)
            return v.expr
        if isinstance(v, OpaqueV):
            return self.interp.opaque_symbol(v)
        got = size_of(v)
        return got if got is not None else super().int_of(v)

    def surely_int(self, v) -> bool:
        return isinstance(v, OpaqueV) and v.kind == "int" or super().surely_int(v)


__all__ = ["AnalysisContext", "NotApplicable", "OpFailed"]


def operands_related(args, kwargs, span) -> list:
    """Where a failed operation's operands got their shapes (and its layers were created): the
    related locations of its diagnostic."""
    rel = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, TensorV) and a.origin is not None and span is not None and a.origin.line != span.line:
            rel.append(Related(a.origin.line, a.origin.col, f"this value gets its shape {a.shape} here"))
        if isinstance(a, ModuleV) and a.span is not None:
            rel.append(Related(a.span.line, a.span.col, f"{getattr(a, 'label', a.describe())} is created here"))
    return rel
