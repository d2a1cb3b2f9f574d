"""`part(mask) if mask is not None else None` on an optional tensor parameter.

An encoder hands each layer its slice of an optional mask this way
(`layer_mask = mask[i] if mask is not None else None`). The analysis takes an optional tensor
parameter to be omitted past an `if mask is not None:` (controlflow._if_optional) and passes one
only passed on as `None` (generic.param_value); joining the two arms of this expression instead
gave the callee a tensor-or-None of unknown shape, and its own `if mask is not None:` then joined
`w * mask.view(1, -1, 1, 1)` into every shape after it: the head axis, say, unknown (1 broadcast
with an unknown size is that size).

So the value is the omitted side's `None`, one that stands for an omitted argument (`it.omitted`:
a decision that looks at it marks what follows as assuming the default, Frame.assumes_default),
and the given side still runs, quietly undone, with the tensor given, so that an error there is
still found. Only an absent side that is `None` itself is taken so: another (`mask.shape if mask
is not None else x.shape[:2]`) is a value the callers that omit it give, joined as before.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.values import NoneV, TensorV, Value
from .optional_args import none_test


def omitted_none(ev, node: ast.IfExp, fr) -> Optional[Value]:
    """The value of `node` when it chooses between a part of an optional tensor parameter and
    `None` by whether it is given (see the module's docstring); None when it does not."""
    test = none_test(node.test)
    if test is None:
        return None
    name, given_when_true = test
    given, absent = (node.body, node.orelse) if given_when_true else (node.orelse, node.body)
    opt = fr.env.get(name)
    if not (isinstance(absent, ast.Constant) and absent.value is None and isinstance(opt, TensorV)
            and opt.optional and not opt.joined_none):
        return None
    fr.env[name] = opt.given()
    try:
        ev.in_arm(fr, (), None, lambda: ev.eval(given, fr))
    finally:
        fr.env[name] = opt
    fr.assumes_default = True  # (the value is the calls' that omit it)
    none = NoneV()
    ev.interp.omitted.add(id(none))
    return none
