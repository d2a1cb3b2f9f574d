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
which is what the context calls it with. An int the caller's facts prove a size (>= 1) but do not
know (`merge(w, self.window, Hp, Wp)`, or an item of a tuple) is a symbol of the parameter's
name (`H` for `Hp`, `hw[0]`): the run then holds for every size it may be, so one run covers every
such call, on no fact of the caller's. Not when the model holds a size of that name (a
constructor's symbol in the defaults context): the run would take the two for one. A call
passing anything else that is not a constant is not run again, nor a method that reads what
`forward` wrote into the model (held_state.py). Methods it calls in turn with
other tensors run again alike; distinct ranks or constants run once each, up to MAX_RUNS a
model.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import Shape, ge
from ..shapes.values import BoolV, DefaultStrV, FloatV, IntV, NoneV, StrV, TensorV, TupleV
from .held_state import held_names, reads_written, written_since
from .result import DimInfo

MAX_RUNS = 16  # methods run again per model and context


def run_own_methods(it, model, host, span, before) -> None:
    """Run again each call kept while `model` ran in `host` (a frame whose `built` holds them);
    `before`: the model's state before its `forward` ran (held_state.snapshot)."""
    queue = host.built[3]
    done: set = set()
    held = False  # (the names of the sizes the model holds, once a call needs them)
    while queue and len(done) < MAX_RUNS:
        f, args, kwargs, sizes = queue.pop(0)
        if f.cls is not None and reads_written(model, f, written_since(model, before)):
            continue
        if sizes and held is False:
            held = held_names(model)
        own = _in_own_names(it, f, args, kwargs, (sizes, held) if isinstance(held, set) else (frozenset(), ()))
        if own is None or (f.qualname, own[2]) in done:
            continue
        done.add((f.qualname, own[2]))
        new_args, new_kwargs, _ = own
        inputs = tuple(v for v in new_args + list(new_kwargs.values()) if isinstance(v, TensorV))
        sub = dataclasses.replace(host, facts=it.new_store(), built=(model, inputs, host.built[2], queue, f), returns=[])
        it.call_function(f, new_args, new_kwargs, sub, span, created=model.span)


def sizes_at_call(facts, args: list) -> frozenset:
    """The ids of the ints among `args` (or items of a tuple among them) that are no constants
    and that the caller's `facts` prove sizes (>= 1): each may run again as a symbol."""
    out = set()
    for v in args:
        for i in v.items if isinstance(v, TupleV) else (v,):
            if isinstance(i, IntV) and not i.expr.is_const and facts.entails(ge(i.expr, 1)):
                out.add(id(i))
    return frozenset(out)


def _in_own_names(it, f, args: list, kwargs: dict, sizes: tuple) -> Optional[tuple]:
    """(the arguments, the keyword arguments, what tells this run from another) for running `f`
    on inputs in its own names; None when one is neither a tensor nor a constant nor a size
    (`sizes`: the ids of the ints that are, the names the model holds)."""
    a = f.node.args
    pos = [p.arg for p in a.posonlyargs + a.args]
    if len(args) > len(pos) or type(kwargs) is not dict:
        return None
    start = 0 if f.cls is None else 1  # (a method's `self`: the model itself)
    out, kw, key = list(args[:start]), {}, []
    for i, (name, v) in enumerate(list(zip(pos[start:], args[start:])) + list(kwargs.items())):
        w = _own_value(it, f, name, v, sizes)
        if w is None:
            return None
        key.append((name, len(w.shape.dims) if isinstance(w, TensorV) and w.shape.star is None else
                    "?" if isinstance(w, TensorV) else repr(_key(w))))
        if i < len(args) - start:
            out.append(w)
        else:
            kw[name] = w
    return out, kw, tuple(key)


def _own_value(it, f, name: str, v, sizes: tuple):
    if isinstance(v, IntV) and id(v) in sizes[0]:
        if name in sizes[1] or name.split("[")[0] in sizes[1]:  # (`hw[0]`: nor a list `hw` it holds)
            return None
        it.env.dims.setdefault(name, DimInfo(name, f"parameter `{name}`"))
        return IntV(Expr.sym(name), v.origin)
    if isinstance(v, TupleV) and any(id(i) in sizes[0] for i in v.items):
        items = tuple(_own_value(it, f, f"{name}[{k}]", i, sizes) for k, i in enumerate(v.items))
        return None if any(i is None or isinstance(i, TensorV) for i in items) else TupleV(items, v.is_size)
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


def _key(w):
    """What tells the value `w` a run is given from another: a constant, a size symbol by its name."""
    if isinstance(w, TupleV):
        return ("tuple", tuple(_key(i) for i in w.items))
    if isinstance(w, IntV) and not w.expr.is_const:
        return ("size", str(w.expr))
    return _constant(w)


def _constant(v):
    """The constant `v` is, as a plain value (None when it is not one)."""
    if isinstance(v, TupleV):
        items = tuple(_constant(i) for i in v.items)
        return None if any(i is None for i in items) else ("tuple", items)
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

