"""A context with concrete shapes only: rules run as plain shape functions.

Used by the differential tests (rule vs. PyTorch on the meta device) and by quick unit tests.
`apply(name, *args, **kwargs)` takes `TensorV`s with int shapes and Python values, and
returns the rule's value or raises `OpFailed`.
"""
from __future__ import annotations

from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import Pred, Shape
from ..shapes.values import (BoolV, DtypeV, EllipsisV, FloatV, IntV, ListV, ModuleV, NoneV, SliceV,
                             StrV, TensorV, TupleV, Value)
from .context import Message, NotApplicable, OpContext, OpFailed
from .registry import ModuleRule, lookup


class ConcreteContext(OpContext):
    def __init__(self, opname: str = "operation"):
        self.opname = opname
        self.warnings: list[tuple[str, str]] = []
        self._n = 0

    def require(self, pred: Pred, message: Message, code: str = "SH101", related=()) -> None:
        if pred.is_false:
            raise OpFailed(code, message, related)
        if not pred.is_true:
            if pred.symbols():
                return  # data-dependent symbols: cannot decide here
            raise OpFailed(code, message, related)

    def entails(self, pred: Pred) -> bool:
        return pred.is_true

    def fresh(self, hint: str) -> Expr:
        self._n += 1
        return Expr.sym(f"{hint}_{self._n}")

    def warn(self, code: str, message: str) -> None:
        self.warnings.append((code, message))

    def call(self, fn: Value, args: list, kwargs: Optional[dict] = None) -> Value:
        if isinstance(fn, ModuleV):
            return call_module(self, fn, args, kwargs or {})
        raise NotApplicable("cannot call this value")


def wrap(v) -> Value:
    """Python value -> abstract value (tensors are passed as TensorV already)."""
    if isinstance(v, Value):
        return v
    if v is None:
        return NoneV()
    if isinstance(v, bool):
        return BoolV(Pred("true") if v else Pred("false"))
    if isinstance(v, int):
        return IntV(Expr.const(v))
    if isinstance(v, float):
        return FloatV(v)
    if isinstance(v, str):
        return StrV(v)
    if isinstance(v, tuple):
        return TupleV(tuple(wrap(i) for i in v))
    if isinstance(v, list):
        return ListV([wrap(i) for i in v])
    if isinstance(v, slice):
        return SliceV(*(None if x is None else wrap(x) for x in (v.start, v.stop, v.step)))
    if v is Ellipsis:
        return EllipsisV()
    raise TypeError(f"cannot wrap {v!r}")


def tensor(*dims: int, dtype: str | None = None) -> TensorV:
    return TensorV(Shape.of(dims), dtype)


def apply(name: str, *args, **kwargs) -> Value:
    rule = lookup(name)
    if rule is None:
        raise KeyError(name)
    cx = ConcreteContext(name)
    a = [wrap(x) for x in args]
    kw = {k: wrap(v) for k, v in kwargs.items()}
    if isinstance(rule, ModuleRule):
        raise TypeError("use build_module/call_module for layers")
    return rule.fn(cx, *a, **kw)


def build_module(name: str, *args, **kwargs) -> ModuleV:
    rule = lookup(name)
    assert isinstance(rule, ModuleRule), name
    cx = ConcreteContext(name)
    a = [wrap(x) for x in args]
    kw = {k: wrap(v) for k, v in kwargs.items()}
    bound = rule.signature.bind(cx, *a, **kw)
    bound.apply_defaults()
    cfg = rule.config(bound.arguments)
    extra = rule.ctor(cx, *a, **kw)
    if isinstance(extra, dict):
        cfg.update(extra)
    if isinstance(extra, ModuleV):
        return extra
    return ModuleV(rule.name, cfg)


def call_module(cx: OpContext, m: ModuleV, args: list, kwargs: dict) -> Value:
    rule = lookup(m.kind)
    assert isinstance(rule, ModuleRule) and rule.forward_fn is not None, m.kind
    return rule.forward_fn(cx, m, *[wrap(a) for a in args], **{k: wrap(v) for k, v in kwargs.items()})


def shape_of(v: Value):
    """Concrete output shapes of a rule result, for comparing with PyTorch."""
    if isinstance(v, TensorV):
        return tuple(d.value if d.value is not None else str(d) for d in v.shape.dims) if v.shape.rank is not None else None
    if isinstance(v, (TupleV, ListV)) and v.items is not None:
        return tuple(shape_of(i) for i in v.items)
    if isinstance(v, IntV):
        return ("int", v.expr.value)
    return None


__all__ = ["ConcreteContext", "apply", "build_module", "call_module", "tensor", "shape_of", "OpFailed",
           "NotApplicable", "DtypeV"]
