"""Optional arguments that the analysis took at their `None` default.

A function analysed on its own runs with each parameter at its default, and so does a callee it
passes such a `None` on to (`self.attn(x, key_value_states=kv)` with `kv=None`). Callers may pass
the argument, so that `None` is one possible value, not a fact (issue 24): an assertion that fails
only on it is no error (`executor.assume`), and a value chosen by it
(`current = key_value_states if key_value_states is not None else hidden_states`) is the join of
both choices, never the default's alone (`given_or_default`).

A call that really omits the argument (a calling context that does not pass it) keeps its `None`
as a fact: only the analysis's own default, a `None` standing for an omitted argument
(generic.param_value), or one the caller's open `**kwargs` may replace (Frame.open_defaults) is
taken here.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.shape import Shape
from ..shapes.values import DefaultNoneV, NoneV, TensorV, Value
from .defaults import chosen_default


def none_test(test: ast.expr) -> Optional[tuple]:
    """`name is None` / `name is not None`: (name, whether the test is true when it is given)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
            and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
        return None
    return test.left.id, isinstance(test.ops[0], ast.IsNot)


def taken_default(it, name: str, fr) -> bool:
    """Whether `name` holds a default the analysis took for an argument callers may pass (a
    `None`, mostly; `assert depth is not None` on `depth=None`)."""
    v = fr.env.get(name)
    if v is None:
        return False
    if id(v) in it.omitted or isinstance(v, DefaultNoneV):
        return True  # (DefaultNoneV: a constructor's default passed on to a part's constructor)
    if fr.root and fr.context:
        # a callee the analysed function passed its own default on to
        root = it.function_named(fr.root)
        if root is not None and any(v is d for d in root.defaults.values() if isinstance(d, NoneV)):
            return True
    if fr.context and name not in fr.open_defaults:
        return False
    fn = it.function_named(fr.qualname)
    return fn is not None and name in fn.defaults and v is fn.defaults[name]


def given_or_default(it, node: ast.IfExp, taken: ast.expr, value: Value, fr, join) -> Value:
    """`value` of the arm `taken` of `x if x is not None else y`, decided by a `None` default
    the analysis took (`taken_default`): when the other arm is `x` itself and `value` a tensor,
    the join with a tensor of unknown shape (what callers that pass `x` give), else `value`."""
    test = none_test(node.test)
    if test is None:
        return value
    name, given_when_true = test
    given = node.body if given_when_true else node.orelse
    if given is taken or not (isinstance(given, ast.Name) and given.id == name):
        return value
    if not isinstance(value, TensorV):
        return chosen_default(it, name, value, fr)
    if not isinstance(fr.env.get(name), NoneV) or not taken_default(it, name, fr):
        return value
    return join([TensorV(Shape.unknown(it.fresh_star()), None, value.origin), value])


def run_decided_arm(it, st: ast.If, arm: list, fr, run) -> str:
    """`run(arm, fr)`, the arm of `st` its test decided; where that test is `name is None` on a
    default the class analysed on its own took, a value the arm binds to `name` (`if depth is
    None: depth = 4`) is a default too (`chosen_default`), as in `4 if depth is None else depth`."""
    test = none_test(st.test)
    held = fr.env.get(test[0]) if test is not None else None
    flow = run(arm, fr)
    if isinstance(held, NoneV):
        now = fr.env.get(test[0])
        if now is not held and now is not None:
            fr.env[test[0]] = chosen_default(it, test[0], now, fr, held)
    return flow
