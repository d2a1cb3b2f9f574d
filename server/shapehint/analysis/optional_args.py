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
import functools
from typing import Optional

from ..frontend.walk import walk
from ..shapes.shape import Shape
from ..shapes.values import DefaultNoneV, NoneV, TensorV, Value
from .defaults import chosen_default
from .usage import handed_back


def none_test(test: ast.expr) -> Optional[tuple]:
    """`name is None` / `name is not None`: (name, whether the test is true when it is given)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
            and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
        return None
    return test.left.id, isinstance(test.ops[0], ast.IsNot)


def optional_test(test: ast.expr, fr, decided) -> Optional[tuple]:
    """`mask is not None` / `targets is None` on an optional tensor of the generic analysis (a
    parameter, or one a flag chose), whose absent side is the callers' default: (name, whether the
    test is true when the tensor is given); also such a test and conditions true on every path
    (`decided(node)`: True, False or None, read without recording it)."""
    got = none_test(test)
    if got is None:
        return _sure_conjunction(test, fr, decided) or _guarded_test(test, fr, decided)
    return got if _optional(fr.env.get(got[0])) else None


def _optional(v) -> bool:
    return isinstance(v, TensorV) and v.optional and not v.joined_none


def _sure_conjunction(test: ast.expr, fr, decided) -> Optional[tuple]:
    """`name is None and rest` where each of `rest` is true on every path and does not read the
    name (`not is_torchdynamo_compiling()`, a mode query eager execution answers, eager_mode.py):
    the test is `name is None` alone, so its arms are an optional tensor's
    (controlflow._if_optional) rather than a join whose None side is not the callers' default
    (comprehensions._replaced_optional)."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return None
    got = none_test(test.values[0])
    if got is None or not _optional(fr.env.get(got[0])):
        return None
    rest = test.values[1:]
    if any(isinstance(n, ast.Name) and n.id == got[0] for r in rest for n in walk(r)):
        return None
    return got if all(decided(r) is True for r in rest) else None


def _guarded_test(test: ast.expr, fr, decided) -> Optional[tuple]:
    """`isinstance(name, torch.Tensor)` (a tensor class the given tensor is, and no `None`), and
    `name is not None and rest` (`mask is not None and mask.ndim < 4`; or such an `isinstance`
    first), or `name is None or rest`, on an optional tensor: the absent side takes the arm the
    `None` alone decides, the given side runs the whole `if` again with the tensor given, `rest`
    judged there. A join of both sides made every later use of the name a tensor of no known
    rank (a causal mask built from a padding mask the callers omit): (name, whether the test is
    true when it is given[, True: the given side runs the whole `if`])."""
    first = test.values[0] if isinstance(test, ast.BoolOp) and len(test.values) > 1 else test
    got = none_test(first) or _tensor_type_test(first, fr, decided)
    if got is None or not _optional(fr.env.get(got[0])):
        return None
    if first is test:
        return got
    return got + (True,) if got[1] == isinstance(test.op, ast.And) else None


def _tensor_type_test(test: ast.expr, fr, decided) -> Optional[tuple]:
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and not test.keywords and isinstance(test.args[0], ast.Name)):
        return None
    if any(isinstance(n, ast.Constant) and n.value is None or isinstance(n, ast.Name) and n.id == "NoneType"
           for n in walk(test.args[1])):
        return None  # (None may be an instance of the classes named)
    name = test.args[0].id
    opt = fr.env.get(name)
    if not _optional(opt):
        return None
    fr.env[name] = opt.given()  # (the test read with the tensor given: true for a tensor class)
    try:
        sure = decided(test)
    finally:
        fr.env[name] = opt
    return (name, True) if sure is True else None


def drop_returns(fr, start: int, end: int) -> None:
    """Forget the returns `fr` made between `start` and `end` (on an optional tensor's given side,
    when what follows took it omitted): the call's result is the absent side's, as every other
    value past the `if` (an early `return True, mask, None` of a mask given made the size the
    omitted path returns unknown)."""
    if end <= start:
        return
    del fr.returns[start:end]
    fr.arm_facts = {i - (end - start) if i >= end else i: f for i, f in fr.arm_facts.items() if not start <= i < end}


def attribute_none_test(test: ast.expr) -> Optional[tuple]:
    """`name.attr is None` / `name.attr is not None`: (name, attr, whether the test is true when
    it is given)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Attribute)
            and isinstance(test.left.value, ast.Name) and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
        return None
    return test.left.value.id, test.left.attr, isinstance(test.ops[0], ast.IsNot)


def held_none_test(it, test: ast.expr, fr) -> Optional[tuple]:
    """`none_test` of `test`, or of the one expression a flag named by `test` holds
    (`is_cross = kv is not None` ... `kv if is_cross else x`): the function binds that name once,
    so the flag is the test wherever it is read."""
    if not isinstance(test, ast.Name):
        return none_test(test)
    fn = it.function_named(fr.qualname) if not fr.foreign else None
    return _flag_test(fn.node, test.id) if fn is not None else None


@functools.lru_cache(maxsize=4096)
def _flag_test(fn: ast.AST, name: str) -> Optional[tuple]:
    stores = [n for n in walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]
    bound = [n for n in walk(fn) if isinstance(n, ast.Assign) and n.targets[0] in stores]
    if len(stores) != 1 or len(bound) != 1 or len(bound[0].targets) != 1:
        return None  # (rebound somewhere, or bound by a loop or an unpacking: not one test)
    return none_test(bound[0].value)


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
    test = held_none_test(it, node.test, fr)
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


def run_decided_arm(it, st: ast.If, arm: list, fr, run, join) -> str:
    """`run(arm, fr)`, the arm of `st` its test decided; where that test is `name is None` on a
    default the class analysed on its own took, a value the arm binds to `name` (`if depth is
    None: depth = 4`) is a default too (`chosen_default`), as in `4 if depth is None else depth`.
    Where the analysis took the `None` for an argument callers may pass, a tensor the arm makes
    for it (`if bias is None: bias = torch.zeros(1, h, t, t)`) is joined with a tensor of unknown
    shape: callers that pass theirs (another layer's bias, with the batch) skip the arm."""
    test = none_test(st.test)
    held = fr.env.get(test[0]) if test is not None else None
    passed_skip = isinstance(held, NoneV) and (arm is st.body) != test[1] and taken_default(it, test[0], fr) \
        and not _leaves(st.body if arm is st.orelse else st.orelse) and fed_back(it, test[0], fr)
    flow = run(arm, fr)
    if isinstance(held, NoneV):
        now = fr.env.get(test[0])
        if passed_skip and isinstance(now, TensorV):
            fr.env[test[0]] = join([TensorV(Shape.unknown(it.fresh_star()), None, now.origin), now])
        elif now is not held and now is not None:
            fr.env[test[0]] = chosen_default(it, test[0], now, fr, held)
    return flow


def fed_back(it, name: str, fr) -> bool:
    """Whether the function hands back what it holds in `name` (`usage.handed_back`): a value it
    makes when the argument is omitted (`if bias is None: bias = ...`) is then one its callers pass
    in again, and those get past the `if` with theirs. (A value it only uses for itself, such as
    `position_ids` or a mask, stays the omitted arm's: what follows holds for the calls omitting
    it, `Frame.assumes_default`.)"""
    fn = it.function_named(fr.qualname) if not fr.foreign else None
    return fn is not None and name in handed_back(fn.node)


def _leaves(arm: list) -> bool:
    """Whether the arm not run ends by leaving the function (callers passing the argument do not
    get past the `if`)."""
    return bool(arm) and isinstance(arm[-1], (ast.Return, ast.Raise))
