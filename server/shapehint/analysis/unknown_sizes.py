"""Sizes the generic instance's layers were built with that the analysis does not know.

`nn.Linear(width, n)` with `width = last.out if last.out is not None else last.chans`, `last` a
configuration object read from a list the analysis does not follow: the width is unknown, so the
layer's calls tied their input to nothing, and the tensors before it printed `?` on that axis.
Built, the layer holds an int there, stored as given (`held_sizes.STORED`), the same int for
every call of that layer. So each such size of a part of the generic instance becomes a symbol
of its own (at least 0: torch builds `nn.Linear(0, n)`), which the layer's calls require of their
inputs and `held_sizes` names after the part (`self.classifier[2].in_features`).

Only the generic instance's parts, which it built once (`generic.generic_instance`): a layer a
loop the analysis follows builds may be another one each pass, and is left as it is. One symbol
per layer object, so a layer held under two names is one size.
"""
from __future__ import annotations

import dataclasses
from ..shapes.values import IntV, ModuleV, UnknownV
from .held_sizes import MAX_DEPTH, STORED
from .objects import InstanceObj


def name_unknown_sizes(it, inst) -> None:
    """Give each unknown stored size of the generic instance `inst`'s layers (and its parts'
    layers, as deep as `held_sizes` names them) a symbol of its own."""
    if isinstance(inst, InstanceObj):
        _instance(inst, MAX_DEPTH, lambda: it.env.fresh_symbol("?", None, lo=0), {}, set())


def _instance(inst: InstanceObj, depth: int, fresh, memo: dict, seen: set) -> None:
    if id(inst) in seen:
        return
    seen.add(id(inst))
    for k, v in list(inst.attrs.items()):
        got = _part(v, depth, fresh, memo, seen)
        if got is not v:
            inst.attrs[k] = got


def _part(v, depth: int, fresh, memo: dict, seen: set):
    if depth <= 1:
        return v
    if isinstance(v, InstanceObj):
        _instance(v, depth - 1, fresh, memo, seen)
        return v
    if not isinstance(v, ModuleV):
        return v
    if id(v) in memo:
        return memo[id(v)]
    out = v
    if v.children is None and v.elem is None:
        unknown = [k for k in sorted(STORED & v.cfg.keys()) if isinstance(v.cfg[k], UnknownV)]
        if unknown:
            out = dataclasses.replace(v, cfg=dict(v.cfg, **{k: IntV(fresh()) for k in unknown}))
            if hasattr(v, "label"):
                out.label = v.label
    elif v.children is not None and v.names is None and v.head is None:
        kids = [_part(c, depth - 1, fresh, memo, seen) for c in v.children]
        if any(a is not b for a, b in zip(kids, v.children)):
            out = dataclasses.replace(v, children=kids)
            if hasattr(v, "label"):
                out.label = v.label
    memo[id(v)] = out
    return out
