"""Symbolic integer expressions for dimensions and shape-derived Python ints.

An `Expr` is a canonical polynomial with integer coefficients over *atoms*: symbols, and
opaque floor-division / modulo / max / min nodes whose operands are themselves canonical.
Canonical form makes structural equality meaningful (`H + 2 - 2 == H`) and lets the printer
produce readable text (`(H - 1)//2 + 1`) without a solver. Division by a constant splits off
the exactly divisible part, so `(2*H + 3)//2` becomes `H + 1`.

Invariants: an Expr is immutable and hashable; constants are Exprs with only the empty
monomial. Symbols carry only a name; where a symbol comes from lives in `analysis.origins`.
Atoms are hash-consed (atoms.py), so comparing Exprs never descends into their operands twice.
Tests: tests/unit/test_expr.py.
"""
from __future__ import annotations

import operator
from typing import Iterable, Mapping, Union

from .atoms import Atom, atom

IntLike = Union[int, "Expr"]


Monomial = tuple  # sorted tuple of Atom, repeated for powers
_atom_key = operator.attrgetter("_key")


class Expr:
    __slots__ = ("terms", "_hash", "_str", "_syms", "_eval")

    def __init__(self, terms: Mapping[Monomial, int]):
        self.terms = {m: c for m, c in terms.items() if c != 0}
        self._hash = None  # computed on first use: most intermediate Exprs are never hashed
        self._str = None  # printing is the hot path of building results: memoised
        self._syms = None
        self._eval = None  # solver/monotone.value's state: evaluations so far, then compiled code

    @classmethod
    def _of(cls, terms: dict) -> "Expr":
        """An Expr of `terms` that has no zero coefficient and is not shared (arithmetic's
        results): skips the copy and the filter, which were a tenth of a small analysis."""
        e = object.__new__(cls)
        e.terms, e._hash, e._str, e._syms, e._eval = terms, None, None, None, None
        return e

    # ---- construction -------------------------------------------------
    @staticmethod
    def const(v: int) -> "Expr":
        v = int(v)
        e = _SMALL.get(v)
        if e is None:
            e = Expr({(): v}) if v else ZERO
        return e

    @staticmethod
    def sym(name: str) -> "Expr":
        return Expr({(atom("sym", name),): 1})

    @staticmethod
    def lift(v: IntLike) -> "Expr":
        if isinstance(v, Expr):
            return v
        if isinstance(v, bool):
            return Expr.const(int(v))
        if isinstance(v, int):
            return Expr.const(v)
        raise TypeError(f"not an int expression: {v!r}")

    # ---- queries ------------------------------------------------------
    @property
    def is_const(self) -> bool:
        t = self.terms  # monomials are the keys: constant when the only one is ()
        return not t or len(t) == 1 and () in t

    @property
    def value(self) -> int | None:
        t = self.terms
        if not t:
            return 0
        return t.get(()) if len(t) == 1 else None

    def const_part(self) -> int:
        return self.terms.get((), 0)

    def atoms(self) -> set[Atom]:
        out: set[Atom] = set()
        for m in self.terms:
            for a in m:
                out.add(a)
                for sub in a.args:
                    if isinstance(sub, Expr):
                        out |= sub.atoms()
        return out

    def symbols(self) -> frozenset[str]:
        """Cached and shared: callers combine it (`|`), never change it."""
        syms = self._syms
        if syms is None:  # names directly, operands' sets reused: hashing atoms is what costs
            names: set = set()
            for m in self.terms:
                for a in m:
                    if a.kind == "sym":
                        names.add(a.name)
                    else:
                        for sub in a.args:
                            if isinstance(sub, Expr):
                                names |= sub.symbols()
            syms = self._syms = frozenset(names)
        return syms

    def __eq__(self, other: object) -> bool:
        if other.__class__ is Expr:  # (hashes known and different: unequal, without visiting the terms)
            h, g = self._hash, other._hash
            return self is other or (h is None or g is None or h == g) and self.terms == other.terms
        if isinstance(other, int) and not isinstance(other, bool):
            return self.value == other
        return isinstance(other, Expr) and self.terms == other.terms

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = hash(frozenset(self.terms.items()))
        return h

    def __reduce__(self):  # a copy hashes anew (another process hashes strings differently: __eq__ reads _hash)
        return (Expr, (self.terms,))

    def __repr__(self) -> str:
        return f"Expr({to_str(self)})"

    def __str__(self) -> str:
        return to_str(self)

    # ---- arithmetic ---------------------------------------------------
    def __add__(self, other: IntLike) -> "Expr":
        return self._plus(other, 1)

    __radd__ = __add__

    def __neg__(self) -> "Expr":
        return Expr._of({m: -c for m, c in self.terms.items()})

    def __sub__(self, other: IntLike) -> "Expr":
        return self._plus(other, -1)

    def _plus(self, other: IntLike, sign: int) -> "Expr":
        """self + sign*other."""
        if other.__class__ is Expr:
            o = other.terms
        elif other == 0:
            return self
        else:
            o = Expr.lift(other).terms
        if not o:
            return self
        terms = dict(self.terms)
        for m, c in o.items():
            c = terms.get(m, 0) + sign * c
            if c:
                terms[m] = c
            else:
                del terms[m]
        return Expr._of(terms)

    def __rsub__(self, other: IntLike) -> "Expr":
        return Expr.lift(other) - self

    def __mul__(self, other: IntLike) -> "Expr":
        o = other if other.__class__ is Expr else Expr.lift(other)
        if not o.terms or not self.terms:
            return ZERO
        if o.terms.keys() == {()}:  # by a constant: the monomials stay, so they stay sorted
            k = o.terms[()]
            return self if k == 1 else Expr._of({m: c * k for m, c in self.terms.items()})
        if self.terms.keys() == {()}:  # a constant times (strides start at 1): the same
            k = self.terms[()]
            return o if k == 1 else Expr._of({m: c * k for m, c in o.terms.items()})
        terms: dict = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in o.terms.items():
                m = tuple(sorted(m1 + m2, key=_atom_key)) if m1 and m2 else m1 or m2
                terms[m] = terms.get(m, 0) + c1 * c2
        return Expr(terms)

    __rmul__ = __mul__

    def __floordiv__(self, other: IntLike) -> "Expr":
        return floordiv(self, Expr.lift(other))

    def __rfloordiv__(self, other: IntLike) -> "Expr":
        return floordiv(Expr.lift(other), self)

    def __mod__(self, other: IntLike) -> "Expr":
        return mod(self, Expr.lift(other))

    def __rmod__(self, other: IntLike) -> "Expr":
        return mod(Expr.lift(other), self)

    def subs(self, mapping: Mapping[str, IntLike]) -> "Expr":
        """Substitute symbols by expressions (re-canonicalising opaque atoms)."""
        if not mapping or not (self.symbols() & set(mapping)):
            return self
        out = ZERO
        for m, c in self.terms.items():
            term = Expr.const(c)
            for a in m:
                term = term * _subs_atom(a, mapping)
            out = out + term
        return out

    def evaluate(self, env: Mapping[str, int]) -> int:
        e = self.subs(env)
        v = e.value
        if v is None:
            raise KeyError(f"unbound symbols in {e}")
        return v


ZERO = Expr({})
ONE = Expr({(): 1})
# Exprs are immutable, so the small constants (sizes, strides, indices) are shared, not rebuilt
_SMALL: dict = {}
_SMALL.update({v: Expr({(): v}) if v else ZERO for v in range(-64, 1025)})


def _subs_atom(a: Atom, mapping: Mapping[str, IntLike]) -> Expr:
    if a.kind == "sym":
        return Expr.lift(mapping[a.name]) if a.name in mapping else Expr({(a,): 1})
    args = [x.subs(mapping) if isinstance(x, Expr) else x for x in a.args]
    return _OPS[a.kind](*args)


def _monomial_div(m: Monomial, d: Monomial) -> Monomial | None:
    rest = list(m)
    for a in d:
        if a in rest:
            rest.remove(a)
        else:
            return None
    return tuple(rest)


def _exact_div(num: Expr, den: Expr) -> Expr | None:
    """num / den when den is a single monomial term dividing every term of num."""
    if len(den.terms) != 1:
        return None
    (dm, dc), = den.terms.items()
    out = {}
    for m, c in num.terms.items():
        q = _monomial_div(m, dm)
        if q is None or c % dc:
            return None
        out[q] = c // dc
    return Expr(out)


def floordiv(a: Expr, b: Expr) -> Expr:
    bv = b.value
    if bv == 1:
        return a
    if bv is not None and bv != 0:
        av = a.value
        if av is not None:
            return Expr.const(av // bv)
        if bv > 0:
            # split off the part with coefficients divisible by b: floor((q*b + r)/b) = q + floor(r/b)
            div, rest = {}, {}
            for m, c in a.terms.items():
                if m != () and c % bv == 0:
                    div[m] = c // bv
                else:
                    rest[m] = c
            rest_e = Expr(rest)
            q = Expr(div)
            if rest_e.is_const:
                return q + Expr.const(rest_e.const_part() // bv)
            # normal form: the numerator's constant lies in (-b, 0], so (H + 1)//2 prints as
            # (H - 1)//2 + 1, the way convolution sizes are usually written
            c0 = rest_e.const_part()
            shift = -((-c0) // bv)
            if shift:
                rest_e = rest_e - shift * bv
                q = q + shift
            return q + Expr({(atom("floordiv", "", (rest_e, b)),): 1})
    exact = _exact_div(a, b)
    if exact is not None:
        return exact
    return Expr({(atom("floordiv", "", (a, b)),): 1})


def mod(a: Expr, b: Expr) -> Expr:
    av, bv = a.value, b.value
    if bv == 1:
        return ZERO
    if av is not None and bv is not None and bv != 0:
        return Expr.const(av % bv)
    if bv is not None and bv > 0:
        rest = {m: (c % bv if m == () else c) for m, c in a.terms.items() if c % bv}
        rest_e = Expr(rest)
        if rest_e.is_const:
            return Expr.const(rest_e.const_part() % bv)
        return _complement(rest_e, b) or Expr({(atom("mod", "", (rest_e, b)),): 1})
    if _exact_div(a, b) is not None:
        return ZERO
    return _complement(a, b) or Expr({(atom("mod", "", (a, b)),): 1})


def written_mod(a: Expr, b: Expr) -> Expr:
    """`a % b` as one atom, as written (`mod`'s value), for a solver question only: Z3 proves
    `(m - w%m)%m == m - w%m` where `w%m != 0` at once, not so of `-m*((-w)//m) - w`."""
    return Expr({(atom("mod", "", (a, b)),): 1})


def _complement(a: Expr, k: Expr) -> Expr | None:
    """`(k - A%k) % k`, the padding up to a multiple of k, as that multiple less A:
    `k*((A - 1)//k) + k - A` (k a positive constant), `-A - k*((-A)//k)` (symbolic k, exact for
    either sign); so `A + pad` holds A once, and its `//k` and `%k` are exact. As a mod of A's mod,
    each padding of a windowed model's stages held its input twice, and the second stage's sizes
    passed the size limit (`evaluator._tracked`). None unless `a` is `j*k - A%k`."""
    kv = k.value
    if kv is not None and kv <= 0:
        return None
    mods = [(m, c) for m, c in a.terms.items() if len(m) == 1 and m[0].kind == "mod" and m[0].args[1] == k
            and (c == -1 or kv is not None and c % kv == kv - 1)]
    if len(mods) != 1:
        return None
    (m, c), = mods
    if kv is not None:  # a reduced modulo k: the mod term is all that is left
        if len(a.terms) != 1:
            return None
    elif len(a.terms) > 1 and _exact_div(a - Expr({m: c}), k) is None:
        return None
    inner = m[0].args[0]
    if kv is not None:
        return kv * floordiv(inner - 1, k) + kv - inner
    return -inner - k * floordiv(-inner, k)


def emax(a: IntLike, b: IntLike) -> Expr:
    a, b = Expr.lift(a), Expr.lift(b)
    if a == b:
        return a
    if a.value is not None and b.value is not None:
        return Expr.const(max(a.value, b.value))
    d = (a - b).value
    if d is not None:
        return a if d >= 0 else b
    absorbed = _absorbed("max", a, b)
    if absorbed is not None:
        return absorbed
    x, y = sorted((a, b), key=to_str)
    return Expr({(atom("max", "", (x, y)),): 1})


def emin(a: IntLike, b: IntLike) -> Expr:
    a, b = Expr.lift(a), Expr.lift(b)
    if a == b:
        return a
    if a.value is not None and b.value is not None:
        return Expr.const(min(a.value, b.value))
    d = (a - b).value
    if d is not None:
        return a if d <= 0 else b
    absorbed = _absorbed("min", a, b)
    if absorbed is not None:
        return absorbed
    x, y = sorted((a, b), key=to_str)
    return Expr({(atom("min", "", (x, y)),): 1})


def _operands(kind: str, e: Expr) -> frozenset:
    """The operands a nest of `kind` (min or max) takes its value among: `min(a, min(b, c))`
    is the least of {a, b, c}; anything else is its own one operand."""
    if len(e.terms) == 1:
        (m, c), = e.terms.items()
        if c == 1 and len(m) == 1 and m[0].kind == kind:
            x, y = m[0].args
            return _operands(kind, x) | _operands(kind, y)
    return frozenset((e,))


def _absorbed(kind: str, a: Expr, b: Expr):
    """`min(a, b)` when one side's operands are among the other's: that side adds nothing
    (`min(m, min(w, m))` is `min(w, m)`). A window clipped to its input again, by a second
    call of the same layer or a join of both, keeps the one value. None when neither is."""
    oa, ob = _operands(kind, a), _operands(kind, b)
    if oa <= ob:
        return b
    if ob <= oa:
        return a
    return None


_OPS = {"floordiv": floordiv, "mod": mod, "max": emax, "min": emin}


def product(items: Iterable[IntLike]) -> Expr:
    out = ONE
    for x in items:
        out = out * Expr.lift(x)
    return out


def expr_nodes(e: Expr, limit: int) -> int:
    """The number of terms and atoms of `e` and of the operands of its atoms, an operand that
    occurs several times counted once, up to just past `limit`. Shared operands cost the solver
    once (its encoding and solver/monotone.py visit each once): a padding to a window clipped to
    the input, `(k - W % k) % k` with `k = min(ws, min(H, W))`, is small; counted per occurrence
    it passed the limit, and every windowed layer after it lost its sizes."""
    n, seen, todo = 0, set(), [e]
    while todo and n <= limit:
        for m in todo.pop().terms:
            n += 1 + len(m)
            for a in m:
                if a.kind != "sym" and a not in seen:
                    seen.add(a)
                    todo.extend(sub for sub in a.args if isinstance(sub, Expr))
    return n


# ---- printing ---------------------------------------------------------------

def _atom_str(a: Atom) -> str:
    if a.kind == "sym":
        return a.name
    x, y = a.args
    if a.kind in ("max", "min"):
        return f"{a.kind}({to_str(x)}, {to_str(y)})"
    op = "//" if a.kind == "floordiv" else "%"
    return f"{_paren(x)}{op}{_paren(y)}"


def _paren(e: Expr) -> str:
    s = to_str(e)
    simple = len(e.terms) <= 1 and (e.is_const and e.const_part() >= 0 or
                                     (len(e.terms) == 1 and list(e.terms.values())[0] == 1
                                      and len(next(iter(e.terms))) == 1
                                      and next(iter(e.terms))[0].kind in ("sym", "max", "min")))
    return s if simple else f"({s})"


def _mono_str(m: Monomial) -> str:
    parts = []
    for a in m:
        s = _atom_str(a)
        parts.append(f"({s})" if a.kind in ("floordiv", "mod") and len(m) > 1 else s)
    return "*".join(parts)


def _term_order(item) -> tuple:
    m, c = item
    # symbols before opaque atoms, higher degree first, then by name: `2*C + H//2 + 1`
    return (m == (), -len(m), [a.sort_key() for a in m])


def to_str(e: Expr) -> str:
    if e._str is None:
        e._str = _to_str(e)
    return e._str


def _to_str(e: Expr) -> str:
    if not e.terms:
        return "0"
    out = ""
    for i, (m, c) in enumerate(sorted(e.terms.items(), key=_term_order)):
        mag = abs(c)
        if m == ():
            body = str(mag)
        elif mag == 1:
            body = _mono_str(m)
        else:  # 12*(C//12), not 12*C//12 (which Python reads as (12*C)//12)
            single_div = len(m) == 1 and m[0].kind in ("floordiv", "mod")
            body = f"{mag}*({_mono_str(m)})" if single_div else f"{mag}*{_mono_str(m)}"
        if i == 0 and c < 0 and mag == 1 and len(m) == 1 and m[0].kind in ("floordiv", "mod"):
            out = f"-({body})"  # -(p//4), not -p//4 (which Python reads as (-p)//4)
        elif i == 0:
            out = ("-" if c < 0 else "") + body
        else:
            out += (" - " if c < 0 else " + ") + body
    return out
