"""A list of unknown length spread into a call (`closure(*features)` over a list grown in a
loop): the items cannot be laid out as arguments one by one, but when every one of them lands
in the callee's `*args`, that parameter is a sequence of unknown length whose items are the
list's item — so `torch.cat(args, 1)` in the callee gives what `torch.cat(features, 1)` gives.

Only user functions (and methods) bind it; any other callee receiving one gives up on the
call, as before, since a spread of unknown length is no argument list it can read.

The `*args` of the construction a class's generic analysis stands for (`OpenArgsV`), spread
last into a user class's constructor (`super().__init__(*args, **kwargs)`), is bound the same way: it
names no parameter, so the callee's are those the call names, else their defaults, left open
as an open `**kwargs` leaves them (the call's keywords are made open: `calls.bind_params`),
and the callee's own `*args` is that spread again. Without it the base's `__init__` never ran
and the subclass's instance lacked every part the base builds."""
from __future__ import annotations

from typing import Optional

from ..shapes.values import ExtRef, ListV, TupleV, Value
from .library_helpers import is_checkpoint
from .objects import BoundMethod, BoundOp, FuncObj, InstanceObj, OpenArgsV, SpreadV, SuperV


def opens(args: list) -> bool:
    """Whether `args` ends with the generic construction's `*args` (its keywords are open)."""
    return bool(args) and isinstance(args[-1], OpenArgsV)


def spread_of(v: Value) -> Optional[SpreadV]:
    """`*v` as a spread, when `v` is a list whose length is unknown but whose item is known."""
    if isinstance(v, ListV) and v.items is None and v.elem is not None:
        return SpreadV(v)
    return None


def spread_reaches(fn: Value, args: list) -> bool:
    """Whether `fn` may be called with `args`: a spread only binds a user function's `*args`
    (directly, as a method, or through activation checkpointing, which calls its function)."""
    if not any(isinstance(a, (SpreadV, OpenArgsV)) for a in args):
        return True
    if isinstance(fn, (FuncObj, BoundMethod)):
        # (the generic construction's `*args` only into a constructor: a helper would take its
        # defaults as the values every construction passes)
        return not opens(args) or getattr((fn.func if isinstance(fn, BoundMethod) else fn).node, "name", "") == "__init__"
    if isinstance(fn, ExtRef) and is_checkpoint(fn.path) and not opens(args):
        return True
    if isinstance(fn, BoundOp) and fn.name == "__init__" and isinstance(fn.target, SuperV) \
            and isinstance(fn.target.self_obj, InstanceObj):
        # `super().__init__(*layers)` of a Sequential subclass not run: without its layers the
        # instance would be an empty Sequential, the identity (unfinished.py); so with the
        # generic construction's `*args`
        fn.target.self_obj.cut = True
    return False


def bind_positional(env: dict, params: list, args: list, varargs: Optional[str]) -> bool:
    """Bind the positional arguments to `params` and `varargs` (the `*args` name, if any) in
    `env`; False when a spread cannot be bound: its items could also fill named parameters (how
    many, unknown), or the callee has no `*args` to take them."""
    if args and isinstance(args[-1], OpenArgsV):
        env.update(zip(params, args[:-1]))
        if varargs is not None:
            env[varargs] = args[-1]
        return True
    spread = args[-1] if args and isinstance(args[-1], SpreadV) else None
    before = list(args[:-1]) if spread is not None else list(args)
    if any(isinstance(a, SpreadV) for a in before) or spread is not None and (varargs is None or len(before) < len(params)):
        return False
    for name, v in zip(params, before):
        env[name] = v
    if varargs is not None:
        # (a fresh list for a spread: the callee's tuple is its own, not the caller's list that
        # may still grow)
        env[varargs] = ListV(None, spread.seq.elem, spread.seq.length) if spread is not None else \
            TupleV(tuple(before[len(params):]))
    return True
