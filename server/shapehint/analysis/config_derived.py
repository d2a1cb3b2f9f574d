"""An attribute a configuration derives from its other attributes when a `None` default is left
as it is (docs/analysis.md, "A configuration's defaults"): `self.head_dim = head_dim if head_dim
is not None else self.hidden_size // self.num_heads`. The class on its own holds any value there
(a build may pass `head_dim=16`), and so did the defaults context, which holds the called
class's own `None` defaults (config_bases.none_params; devicerun/builders.py binds no build
passing another value): there the derivation is the attribute's value, wherever nothing the
construction runs after the assignment may write it or the attributes it reads
(config_bases._Chain.decided checks that, config_defaults.config_at_defaults evaluates it on the
context's instance).

Pure `ast`: the derivation is the assignment's value with the `None` parameter's tests decided
(`P if P is not None else E`, `E if P is None else P`, `P or E`), over `self.X` reads, number
constants and arithmetic only."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)


@dataclass(frozen=True)
class Derived:
    expr: ast.expr  # over `self.X` reads, number constants and arithmetic
    reads: frozenset  # the attributes it reads


def derived(st: ast.stmt, nones: set) -> Optional[tuple]:
    """(attr, Derived) of `self.A = <value>` whose value, with the parameters `nones` at `None`,
    is a derivation that decides at least one test of them; else None."""
    if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Attribute)
            and isinstance(st.targets[0].value, ast.Name) and st.targets[0].value.id == "self"):
        return None
    e = _decide(st.value, nones)
    if e is None or e is st.value:
        return None
    reads = _reads(e)
    return None if reads is None else (st.targets[0].attr, Derived(e, frozenset(reads)))


def _is_none(n, nones: set) -> bool:
    return isinstance(n, ast.Name) and n.id in nones


def _decide(e: ast.expr, nones: set) -> Optional[ast.expr]:
    """`e` with the tests of the `None` parameters decided (the same node when there was none)."""
    if isinstance(e, ast.IfExp):
        t = e.test
        if _is_none(t, nones) or isinstance(t, ast.Compare) and len(t.ops) == 1 and _is_none(t.left, nones) \
                and isinstance(t.ops[0], ast.IsNot) and isinstance(t.comparators[0], ast.Constant) \
                and t.comparators[0].value is None:
            return _decide(e.orelse, nones) or None
        if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not) and _is_none(t.operand, nones) \
                or isinstance(t, ast.Compare) and len(t.ops) == 1 and _is_none(t.left, nones) \
                and isinstance(t.ops[0], ast.Is) and isinstance(t.comparators[0], ast.Constant) \
                and t.comparators[0].value is None:
            return _decide(e.body, nones) or None
        return None
    if isinstance(e, ast.BoolOp) and isinstance(e.op, ast.Or) and _is_none(e.values[0], nones):
        rest = e.values[1:]
        return _decide(rest[0] if len(rest) == 1 else ast.BoolOp(ast.Or(), rest), nones) or None
    return e


def _reads(e: ast.expr) -> Optional[set]:
    """The attributes of `self` that `e` reads, when it is only such reads, number constants and
    arithmetic; else None."""
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self" \
            and isinstance(e.ctx, ast.Load):
        return {e.attr}
    if isinstance(e, ast.Constant) and type(e.value) in (int, float):
        return set()
    if isinstance(e, ast.BinOp) and isinstance(e.op, _ARITH):
        a, b = _reads(e.left), _reads(e.right)
        return None if a is None or b is None else a | b
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return _reads(e.operand)
    return None
