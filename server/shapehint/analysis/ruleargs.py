"""Binding a call's arguments to a registry rule's signature, fast: `inspect`'s binder costs
tens of microseconds, and every operation and layer in an analysis goes through one."""
from __future__ import annotations

import inspect
from typing import Optional


class ForwardRule:
    """Adapts a layer's forward function to the rule calling convention."""

    def __init__(self, rule):
        self.fn = rule.forward_fn
        self.signature = _signature(rule.forward_fn)


_SIGNATURES: dict = {}


def _signature(fn):
    """`inspect.signature` costs tens of microseconds: once per rule function."""
    sig = _SIGNATURES.get(fn)
    if sig is None:
        sig = _SIGNATURES[fn] = inspect.signature(fn)
    return sig


_SHAPES: dict = {}


_BINDS: dict = {}  # (id(sig), npos, keywords) -> (sig, binds): a rule is called alike at every use


def binds(sig, npos: int, kwargs: dict) -> bool:
    """True when `sig.bind` would accept `npos` positional arguments and `kwargs` (the rule is
    then called directly: `inspect`'s binder is slow); False when unsure — the caller binds."""
    key = (id(sig), npos, *kwargs)
    got = _BINDS.get(key)
    if got is not None and got[0] is sig:
        return got[1]
    if len(_BINDS) >= 20_000:
        _BINDS.clear()
    ok = _binds(sig, npos, kwargs)
    _BINDS[key] = (sig, ok)
    return ok


def _binds(sig, npos: int, kwargs: dict) -> bool:
    got = _SHAPES.get(id(sig))  # by id: hashing a Signature is slow (rule signatures live forever)
    shape = got[1] if got is not None and got[0] is sig else None
    if shape is None:
        P = inspect.Parameter
        kinds = [p.kind for p in sig.parameters.values()]
        if P.POSITIONAL_ONLY in kinds:
            shape = ()
        else:
            pos = [p for p in sig.parameters.values() if p.kind == P.POSITIONAL_OR_KEYWORD]
            kwonly = [p for p in sig.parameters.values() if p.kind == P.KEYWORD_ONLY]
            shape = (tuple(p.name for p in pos), tuple(p.default is P.empty for p in pos),
                     frozenset(p.name for p in kwonly), frozenset(p.name for p in kwonly if p.default is P.empty),
                     P.VAR_POSITIONAL in kinds, P.VAR_KEYWORD in kinds)
        _SHAPES[id(sig)] = (sig, shape)
    if not shape:
        return False
    names, required, kwonly, kw_required, star, starstar = shape
    if npos > len(names) and not star:
        return False
    given = names[:npos]
    for k in kwargs:
        if k in given or not (starstar or k in names or k in kwonly):
            return False
    for n, req in zip(names[npos:], required[npos:]):
        if req and n not in kwargs:
            return False
    return kw_required.issubset(kwargs)


def bind_arguments(sig, args: list, kwargs: dict) -> Optional[dict]:
    """`sig.bind(*args, **kwargs)` with defaults applied, as {parameter: value} in the
    signature's order; None when the arguments do not bind. Built directly when `_binds`
    vouches for the call (inspect's binder is slow), else by inspect."""
    if not binds(sig, len(args), kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        return dict(bound.arguments)
    out: dict = {}
    npos = 0
    named = set()
    for name, kind, default in _plan(sig):
        if kind is _POS_OR_KW:
            named.add(name)
            if npos < len(args):
                out[name] = args[npos]
                npos += 1
            else:
                out[name] = kwargs[name] if name in kwargs else default
        elif kind is _VAR_POS:
            out[name] = tuple(args[npos:])
        elif kind is _KW_ONLY:
            named.add(name)
            out[name] = kwargs[name] if name in kwargs else default
        else:  # VAR_KEYWORD
            out[name] = {k: v for k, v in kwargs.items() if k not in named}
    return out


_POS_OR_KW, _VAR_POS, _KW_ONLY = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.VAR_POSITIONAL,
                                  inspect.Parameter.KEYWORD_ONLY)
_PLANS: dict = {}


def _plan(sig) -> tuple:
    """(name, kind, default) of each parameter: `Parameter.kind` and `.default` are properties,
    read ~10 times per layer built."""
    got = _PLANS.get(id(sig))
    if got is None or got[0] is not sig:
        got = _PLANS[id(sig)] = (sig, tuple((n, p.kind, p.default) for n, p in sig.parameters.items()))
    return got[1]
