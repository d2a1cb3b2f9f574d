"""Divisibility a constructor establishes, used to simplify quotients in its class's methods.

An attention layer checks `if dim % n_heads != 0: raise ValueError(...)` in `__init__`, then
splits heads in `forward` with `x.view(bs, -1, n_heads, dim // n_heads)`: the inferred size is
`(dim*T)//(n_heads*(dim//n_heads))`, which is `T` only because `n_heads` divides `dim`. The
normaliser (shapes/expr.py) is syntactic and cannot know that, so the quotient stayed opaque.

An instance exists only if its `__init__` returned, so what a guard at the top level of that
`__init__` (not inside an `if`, which another construction may skip) establishes holds in every
method of the class: such facts `n % d == 0` are recorded per class (`learn`) and, in frames
running that class's methods, results are rewritten (`exact`): `d*(n//d)` is `n` and `n % d` is
0, after which the quotient divides exactly. Nothing is claimed elsewhere: the same configuration
symbols in another class (whose configurations may not divide: HF's `embedding_size` exception)
keep their quotients.
"""
from __future__ import annotations

from dataclasses import replace

from ..shapes.expr import Atom, Expr
from ..shapes.shape import Shape
from ..shapes.values import TensorV, TupleV


def learn(it, fr, p, st) -> None:
    """Records the `n % d == 0` conjuncts of `p`, a fact statement `st` of a constructor's body
    establishes on the path that gets past it."""
    if fr.cls is None or not fr.qualname.endswith(".__init__") or p is None:
        return
    pairs = [pair for q in (p.args if p.op == "and" else (p,)) for pair in [_pair(q)] if pair is not None]
    if not pairs:
        return
    f = it.function_named(fr.qualname)
    if f is None or f.cls is not fr.cls or not any(s is st for s in f.node.body):
        return  # (inside an `if`: another construction may not pass it)
    known = it.divisible.get(fr.cls.qualname)
    if known is None:
        known = it.divisible[fr.cls.qualname] = it.journal.tally("divisible")
    known.update(pairs)


def _pair(q):
    """(n, d) for `n % d == 0`, else None."""
    if q.op != "==":
        return None
    a, b = q.args
    if a.value == 0:
        a, b = b, a
    if b.value != 0 or len(a.terms) != 1:
        return None
    (mono, coef), = a.terms.items()
    if len(mono) != 1 or mono[0].kind != "mod":
        return None
    n, d = mono[0].args
    return (n, d) if len(d.terms) == 1 and d.value is None else None


def pairs_for(it, fr) -> frozenset:
    """The divisibility facts that hold in `fr`: those of each class one of whose methods is
    running (the analysed one, a function nested in it, or a call on the way here)."""
    if not it.divisible:
        return frozenset()
    out: set = set()
    for cls_name, pairs in it.divisible.items():
        prefix = cls_name + "."
        if fr.qualname.startswith(prefix) or fr.root.startswith(prefix) or \
                any(calls and q.startswith(prefix) for q, calls in it.call_stack.running_calls.items()):
            out |= pairs
    return frozenset(out)


def within_class(it, fr, v):
    """An operation's result in `fr`, with the divisibility facts that hold there applied."""
    pairs = pairs_for(it, fr)
    return exact_value(v, pairs) if pairs else v


def exact_value(v, pairs: frozenset):
    """`v` (a tensor, or a tuple of them) with its shape's sizes rewritten by `exact`."""
    if isinstance(v, TupleV) and v.items is not None and any(isinstance(i, TensorV) for i in v.items):
        items = tuple(exact_value(i, pairs) for i in v.items)
        return v if all(a is b for a, b in zip(items, v.items)) else replace(v, items=items)
    if not isinstance(v, TensorV):
        return v
    dims = tuple(exact(d, pairs) for d in v.shape.dims)
    suffix = tuple(exact(d, pairs) for d in v.shape.suffix)
    if dims == tuple(v.shape.dims) and suffix == tuple(v.shape.suffix):
        return v
    return replace(v, shape=Shape(dims, v.shape.star, suffix))


def exact(e: Expr, pairs: frozenset) -> Expr:
    if not any(a.kind in ("floordiv", "mod") for m in e.terms for a in m):
        return e
    out = Expr.const(0)
    for mono, coef in e.terms.items():
        atoms = [_atom(a, pairs) for a in mono]
        term = _merge(coef, atoms, pairs)
        out = out + term
    return out


def _atom(a: Atom, pairs: frozenset) -> Expr:
    """One atom with its operands rewritten, re-normalised (`(dim*T)//dim` is `T`)."""
    if a.kind not in ("floordiv", "mod"):
        return Expr({(a,): 1})
    n, d = (exact(x, pairs) for x in a.args)
    if a.kind == "mod" and (n, d) in pairs:
        return Expr.const(0)
    return n // d if a.kind == "floordiv" else n % d


def _merge(coef: int, factors: list, pairs: frozenset) -> Expr:
    """The product `coef * factors`, each `d * (n//d)` in it replaced by `n`."""
    factors = list(factors)
    changed = True
    while changed:
        changed = False
        for i, f in enumerate(factors):
            q = _quotient_atom(f)
            if q is None or q not in pairs:
                continue
            n, d = q
            (dmono, dcoef), = d.terms.items()
            rest = _take(coef, factors[:i] + factors[i + 1:], dmono, dcoef)
            if rest is not None:
                coef, factors = rest[0], rest[1] + [n]
                changed = True
                break
    out = Expr.const(coef)
    for f in factors:
        out = out * f
    return out


def _quotient_atom(f: Expr):
    if len(f.terms) != 1:
        return None
    (mono, c), = f.terms.items()
    return mono[0].args if c == 1 and len(mono) == 1 and mono[0].kind == "floordiv" else None


def _take(coef: int, factors: list, dmono: tuple, dcoef: int):
    """(coef, factors) with the monomial `dcoef * dmono` divided out, or None when it is not
    among them (each factor a single atom with coefficient 1, or a constant)."""
    if coef % dcoef:
        return None
    rest = list(factors)
    for a in dmono:
        hit = next((k for k, f in enumerate(rest) if f.terms == {(a,): 1}), None)
        if hit is None:
            return None
        rest.pop(hit)
    return coef // dcoef, rest

