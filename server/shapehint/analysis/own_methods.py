"""A model's methods called in its construction context with tensors not its inputs, run again
on inputs in their own names.

While a construction context runs the model (built.py), a method of it is recorded only given
the model's very inputs: a callee's shapes there are in the model's input names (`x.shape[2]`,
the image's height), which are not the callee's (`_pos_embed(self, x)` is handed the patch
tokens, whose `x.shape[2]` is the width). So a method given other tensors (`self.forward_head(x)`
after the blocks), or one another module's code calls (a base class's `forward`, imported,
calling the file's own `_pos_embed`: those lines are never recorded), had no shape there at all;
nor had a module-level function of the file a method calls (a pooling helper).
Each such call is kept (built.recorded_in_built) and the method runs again in the context, after
the model's `forward`: `self` the same instance (a method's), each tensor argument a tensor of the rank the
call gave it (unknown when that is not known) whose axes are the parameter's own
(`x.shape[0]`), every other argument as the call passed it when it is a constant, on facts of
its own. What it records holds for every invocation of the method with tensors of those ranks,
which is what the context calls it with; a call passing anything else that is not a constant (a
size of the caller's, in the caller's names) is not run again. Methods it calls in turn with
other tensors run again alike; distinct ranks or constants run once each, up to MAX_RUNS a
model.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import Shape
from ..shapes.values import BoolV, DefaultStrV, FloatV, IntV, NoneV, StrV, TensorV
from .result import DimInfo

MAX_RUNS = 16  # methods run again per model and context


def run_own_methods(it, model, host, span) -> None:
    """Run again each call kept while `model` ran in `host` (a frame whose `built` holds them)."""
    queue = host.built[3]
    done: set = set()
    while queue and len(done) < MAX_RUNS:
        f, args, kwargs = queue.pop(0)
        own = _in_own_names(it, f, args, kwargs)
        if own is None or (f.qualname, own[2]) in done:
            continue
        done.add((f.qualname, own[2]))
        new_args, new_kwargs, _ = own
        inputs = tuple(v for v in new_args + list(new_kwargs.values()) if isinstance(v, TensorV))
        sub = dataclasses.replace(host, facts=it.new_store(), built=(model, inputs, host.built[2], queue, f), returns=[])
        it.call_function(f, new_args, new_kwargs, sub, span, created=model.span)


def _in_own_names(it, f, args: list, kwargs: dict) -> Optional[tuple]:
    """(the arguments, the keyword arguments, what tells this run from another) for running `f`
    on inputs in its own names; None when one is neither a tensor nor a constant."""
    a = f.node.args
    pos = [p.arg for p in a.posonlyargs + a.args]
    if len(args) > len(pos) or type(kwargs) is not dict:
        return None
    start = 0 if f.cls is None else 1  # (a method's `self`: the model itself)
    out, kw, key = list(args[:start]), {}, []
    for i, (name, v) in enumerate(list(zip(pos[start:], args[start:])) + list(kwargs.items())):
        w = _own_value(it, f, name, v)
        if w is None:
            return None
        key.append((name, len(w.shape.dims) if isinstance(w, TensorV) and w.shape.star is None else
                    "?" if isinstance(w, TensorV) else repr(_constant(v))))
        if i < len(args) - start:
            out.append(w)
        else:
            kw[name] = w
    return out, kw, tuple(key)


def _own_value(it, f, name: str, v):
    if isinstance(v, TensorV):
        if v.optional:
            return None
        if v.shape.star is not None or v.shape.suffix:
            return TensorV(Shape.unknown(it.param_star(name, f.qualname)), v.dtype, v.origin,
                           maybe_sequence=v.maybe_sequence)
        dims = []
        for i in range(len(v.shape.dims)):
            sym = f"{name}.shape[{i}]"
            it.env.dims.setdefault(sym, DimInfo(sym, f"parameter `{name}`, axis {i}"))
            dims.append(Expr.sym(sym))
        return TensorV(Shape(tuple(dims)), v.dtype, v.origin, maybe_sequence=v.maybe_sequence)
    return v if _constant(v) is not None else None


def _constant(v):
    """The constant `v` is, as a plain value (None when it is not one)."""
    if isinstance(v, NoneV):
        return ("none",)
    if isinstance(v, BoolV):
        return ("bool", v.pred.is_true) if v.pred is not None and (v.pred.is_true or v.pred.is_false) else None
    if isinstance(v, StrV) and not isinstance(v, DefaultStrV):
        return ("str", v.value)
    if isinstance(v, IntV):
        return ("int", v.expr.value) if v.expr.is_const else None
    if isinstance(v, FloatV) and type(v) is FloatV:
        return ("float", v.value) if v.value is not None and v.quotient is None else None
    return None
