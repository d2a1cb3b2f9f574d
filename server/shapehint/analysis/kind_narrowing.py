"""`isinstance(name, C)` narrows a name joined from instances of known classes (issue 28, cause 7).

A decoder's cache is one class or another depending on a flag (`Cache()` or
`PairCache(Cache(), Cache())`); the join of the two is a choice of instances, and the attention
asks which it was (`if isinstance(cache, PairCache): cache = cache.self_part`). Left undecided the
test ran both arms on the whole choice, so the attribute only one class has was unknown, and with
it every line after the cache's `update`. The arms of such a test now bind the name to the options
the test admits there: on the true arm those that may be instances of C, on the false arm those that
may not be (an option whose answer typetests cannot decide stays on both). Nothing is claimed when
no option is left (the arm is then left as it was) or when the name holds anything else.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.values import NoneV, TupleV, Value
from .choices import choice_of
from .objects import ChoiceV, InstanceObj, MaybeNoneV
from .typetests import isinstance_of


def kind_test(test: ast.expr) -> Optional[tuple]:
    """`isinstance(name, classinfo)` or its `not`: (name, classinfo node, whether it is negated)."""
    negated = False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and not test.keywords and isinstance(test.args[0], ast.Name)):
        return None
    return test.args[0].id, test.args[1], negated


def narrowed_by_kind(test, when: bool, fr, run, keep: bool):
    got = kind_test(test)
    if got is None:
        return run()
    name, info_node, negated = got
    v = fr.env.get(name)
    arm = _arm(v, _classinfo(info_node, fr), when != negated) if v is not None else None
    return run() if arm is None else run_bound(fr, name, arm, run, keep)


def run_bound(fr, name: str, arm: Value, run, keep: bool):
    """`run()` with `name` bound to `arm`: kept after it for a statement's arm (whose names the
    `if` joins), else put back (an expression's arm binds no name)."""
    was = fr.env.get(name)
    fr.env[name] = arm
    try:
        return run()
    finally:
        if not keep and fr.env.get(name) is arm:
            fr.env[name] = was


def _arm(v: Value, info: Optional[Value], holds: bool) -> Optional[Value]:
    """What `v` is where `isinstance(v, info)` is `holds`: None where nothing is learned."""
    if info is None:
        return None
    if isinstance(v, MaybeNoneV) and v.given is not None:
        options = v.given.options if isinstance(v.given, ChoiceV) else (v.given,)
        if not holds:  # None, or an object that may not be one
            if not all(isinstance(o, InstanceObj) for o in options):
                return None
            kept = [o for o in options if isinstance_of(o, info) is not True]
            if len(kept) == len(options):
                return None
            return MaybeNoneV(v.reason, choice_of(kept)) if kept else NoneV()
        v = v.given  # (None is an instance of no class of ours: only the object gets here)
        if isinstance(v, InstanceObj):
            return v if isinstance_of(v, info) is not False else None
    if not isinstance(v, ChoiceV) or not all(isinstance(o, InstanceObj) for o in v.options):
        return None
    excluded = (not holds)  # the answer that rules an option out of this arm
    kept = [o for o in v.options if isinstance_of(o, info) is not excluded]
    if not kept or len(kept) == len(v.options):
        return None
    return choice_of(kept)


def _classinfo(node: ast.expr, fr) -> Optional[Value]:
    """The class (or tuple of classes) a name or a tuple of names is bound to, as the test read it."""
    if isinstance(node, ast.Tuple):
        items = [_classinfo(e, fr) for e in node.elts]
        return None if any(i is None for i in items) else TupleV(tuple(items))
    if not isinstance(node, ast.Name):
        return None
    for scope in (fr.env, fr.closure if fr.closure is not None else {}, fr.globals):
        if node.id in scope:
            got = scope[node.id]
            return got if type(got).__name__ != "LazyImport" else None
    return None
