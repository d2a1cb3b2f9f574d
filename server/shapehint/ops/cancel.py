"""The size a `-1` stands for: a tensor's number of elements over the sizes given, cancelled.

Cancelled as written first (a polynomial's exact division), then, where a size does not divide
the elements as written, against a part of them equal to it: the size a layer pinned, which the
facts prove (`C` where a Linear required `C == dim` and the elements hold `dim`), or `(Hp//ws)*ws`
of an `Hp` that is a multiple of `ws` by its form (`H + (ws - H % ws) % ws`: windows of a padded
image viewed back). A quotient left written out (`(n*dim)//C`) is a size no reader evaluates, and
neither is any size computed from it. Tests: tests/unit/test_view_cancel.py (against torch).
"""
from __future__ import annotations

import math

from ..shapes.expr import Atom, Expr, product
from ..shapes.shape import eq


def cancelled(num: Expr, factors: list, entails=None) -> tuple:
    """num / product(factors) as (numerator, constant divisor), cancelling symbolic factors, and
    where one does not divide num as written, a part of num equal to it (`_proved_part`): windows
    of a padded image viewed back (`w.view(-1, Hp, Wp, C)` of `n*(Hp//ws)*ws*(Wp//ws)*ws*dim`, Hp
    a multiple of ws, C == dim) are `n`."""
    den = Expr.const(1)
    for k, f in enumerate(factors):
        if f.value is not None:
            den = den * f
            continue
        q = num // f
        if q * f == num:
            num = q
            continue
        g = _proved_part(num, f, entails) if entails is not None else None
        if g is not None:
            num = num // g
        else:  # what is left: the factors not cancelled (those cancelled are out of num already)
            return num, den * product(factors[k:])
    g = _gcd_const(num, den.value) if den.value else 1
    return (num // g if g > 1 else num), den // g if g > 1 else den


def _proved_part(num: Expr, f: Expr, entails):
    """A product of atoms every monomial of `num` holds that is equal to `f`: an atom the facts
    prove equal (C where a layer pinned C == dim, num holding dim), or `(f//d)*d` with `f` a
    multiple of `d` by its form."""
    shared = None
    for m in num.terms:
        shared = set(m) if shared is None else shared & set(m)
    tries = 0
    for a in sorted(shared or (), key=Atom.sort_key):
        if tries >= _PART_TRIES:
            break
        g = Expr({(a,): 1})
        if a.kind == "floordiv" and a.args[0] == f and isinstance(a.args[1], Expr):
            d = a.args[1]
            g = g * d
            q = num // g
            if q * g != num:
                continue
            if _multiple_as_written(f, d):
                return g
        elif _is_atom(f) and a.kind == "sym" and g != f:
            tries += 1
            if entails(eq(f, g)):
                return g
    return None


def _multiple_as_written(f: Expr, d: Expr) -> bool:
    """`f` a multiple of `d` (not 0) by its form: each `A % d` in it is congruent to `A` modulo
    `d`, so `H + (d - H % d) % d`, a size rounded up to a multiple, is `d`. Not asked of the
    facts: a modulo there cost ~70 ms of Z3 a question, most of them not proved (timm's Swin)."""
    if d.value == 0:
        return False
    r = _reduced(f, d)
    return (r // d) * d == r


def _reduced(e: Expr, d: Expr) -> Expr:
    out = Expr.const(0)
    for m, c in e.terms.items():
        term = Expr.const(c)
        for a in m:
            term = term * (_reduced(a.args[0], d) if a.kind == "mod" and a.args[1] == d else Expr({(a,): 1}))
        out = out + term
    return out


def _is_atom(e: Expr) -> bool:
    return len(e.terms) == 1 and next(iter(e.terms.values())) == 1 and len(next(iter(e.terms))) == 1


_PART_TRIES = 8  # each a question to the facts (a few ms); products of more atoms than this are rare


def _gcd_const(num: Expr, d: int) -> int:
    g = d
    for c in num.terms.values():
        g = math.gcd(g, c)
    return max(g, 1)
