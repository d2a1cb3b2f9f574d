"""The atoms of `Expr` polynomials (expr.py), hash-consed: `atom(kind, name, args)` gives the
one live Atom of that kind, name and operands.

Why: an Expr compares by its terms, whose monomials are tuples of atoms, and an atom by its
operands, which are Exprs again. The analysis rebuilds equal sizes apart (every query's predicates
are made anew from the shapes), and a deep model's sizes share their operands, so comparing two
of them structurally visited a sub-size once per path to it: the fact store's memo keys
(FactStore._check's slice, answers.py's keys) spent a tenth of a `check` in those comparisons.
With one object per atom, tuple and dict comparisons find equal atoms by identity and an Expr
comparison stops at its own terms. Equality stays structural: an Atom made directly (`Atom(...)`,
a test) or a lost race between threads only costs the comparison it would have cost anyway.
The table holds its atoms weakly: an atom no size refers to any more leaves it.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Atom:
    """A non-polynomial building block: a symbol, or an opaque operation on canonical Exprs.

    Its hash and sort key are computed once: atoms are dict keys (inside monomials) and sorted
    in every product, ~40 hashes for one `permute`'s strides."""

    kind: str  # "sym" | "floordiv" | "mod" | "max" | "min"
    name: str = ""
    args: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "_hash", hash((self.kind, self.name, self.args)))
        object.__setattr__(self, "_key", (0 if self.kind == "sym" else 1, self.name, str(self.args)))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self):  # a copy computes its own hash (another process hashes strings differently), interned
        return (atom, (self.kind, self.name, self.args))

    def sort_key(self) -> tuple:
        return self._key


_LIVE: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()


def atom(kind: str, name: str = "", args: tuple = ()) -> Atom:
    key = (kind, name, args)
    got = _LIVE.get(key)
    if got is None:
        got = _LIVE[key] = Atom(kind, name, args)
    return got
