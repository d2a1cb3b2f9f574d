"""Comparisons and truth: Python's `==`, `<`, `is`, `and`/`or` over abstract values, as predicates.

A comparison of shape-derived ints is a `Pred` over their symbols; tuples, torch.Size and lists
compare item by item (a torch.Size is a tuple: never equal to a list); `is None` is decided when
the value's kind says so (an optional tensor parameter leaves it open). When a comparison is
unknown, what it implies may still be known (`BoolV.implied`): sound for an assert and an `if`'s
true arm, never used to decide an `if`. Tensor comparisons are elementwise rules.
Tests: tests/unit/test_tuple_compare.py and the Q3 tests (tests/questions/).
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.shape import FALSE, TRUE, Pred, conj, disj, eq, ge, gt, le, lt, ne, neg
from ..shapes.values import (BoolV, DefaultStrV, DictV, DtypeV, ExtRef, FloatV, IntV, ListV, ModuleV, NoneV, StrV, TensorV, TupleV, UnknownV,
                             Value)
from .flags import at_default, carried, is_none, negated
from .frames import add_fact, span_of
from .classvalues import class_eq
from ..ops import registry
from . import enums, object_truth, operands, torch_names
from .objects import (BoundMethod, BuiltinFn, ChoiceV, ClassObj, FuncObj, GivenV, InstanceObj, MaybeNoneV, OpaqueV, PartialV,
                      RangeV, SetV, TorchDir)

CMP_METHODS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}


class Comparisons:
    """Comparisons, membership, equality of values and truth (a component of the interpreter)."""

    _USES = ("eval", "call_rule", "int_value", "join_values", "note_omitted", "opaque_symbol")

    def e_Compare(self, node: ast.Compare, fr) -> Value:
        left = self.eval(node.left, fr)
        preds, implied = [], []
        for op, comp in zip(node.ops, node.comparators):
            right = self.eval(comp, fr)
            r = self.compare(type(op), left, right, node, fr)
            if isinstance(r, BoolV) and r.at_default is not None and len(node.ops) == 1:
                return r  # (`self.q_bias is None`, a flag's choice: flags.is_none)
            if isinstance(r, TensorV):
                return r if len(node.ops) == 1 else UnknownV("chained tensor compare")
            if r is None and _elementwise(op, left, right, len(node.ops) == 1):
                # a tensor, or what is not understood, compared with what is not understood
                # (`unknown < mask`): maybe an elementwise result of unknown shape, not a Python
                # bool (`torch.as_tensor` of which is 0-D)
                return UnknownV("tensor comparison")
            exact, imp = (r.pred, r.implied) if isinstance(r, BoolV) else (r, r)
            preds.append(exact)
            implied.append(exact if exact is not None else imp)
            left = right
        return _bool(preds, implied)

    def compare(self, op, a: Value, b: Value, node, fr):
        """A comparison's predicate: a `Pred`, None (unknown), a `BoolV` (unknown with an implied
        part) or, for tensors, the elementwise result."""
        if op in (ast.Is, ast.IsNot, ast.Eq, ast.NotEq):
            self.note_omitted(fr, a, b)
        if op in (ast.Is, ast.IsNot):  # (a tensor is not None: `if x is not None` is decided)
            chosen = is_none(a, b)
            if chosen is not None:
                return chosen if op is ast.Is else negated(chosen, None)
            same = _identity(a, b)
            if same is None:
                return None
            return TRUE if same == (op is ast.Is) else FALSE
        if isinstance(a, TensorV) or isinstance(b, TensorV):
            name = CMP_METHODS.get(op)
            if name is None or not isinstance(a, TensorV):
                return None
            # a configured number (`ids == self.eos_token_id`) compares as a scalar, as in arithmetic
            a, b = operands.tensor_operands(a, b, self.opaque_symbol)
            got = self.call_rule(f"Tensor.__{name}__", [a, b], {}, fr, node, "comparison")
            # no rule applies (`event == "line"`, `event` read as a tensor): unknown, not a value
            return got if isinstance(got, TensorV) else None
        if op in (ast.In, ast.NotIn):
            p = self.contains(b, a)
            return None if p is None else neg(p) if op is ast.NotIn else p
        x, y = self.int_value(a), self.int_value(b)
        if (x is None or y is None) and (isinstance(a, FloatV) or isinstance(b, FloatV)):
            # known numbers, one a float: `if new_v < 0.9 * v` in a channel-rounding helper
            p, q = _number(a), _number(b)
            if p is not None and q is not None and op in _ORDER:
                return TRUE if _ORDER[op](p, q) else FALSE
        if x is not None and y is not None:
            return {ast.Lt: lt, ast.LtE: le, ast.Gt: gt, ast.GtE: ge, ast.Eq: eq, ast.NotEq: ne}.get(op, lambda *_: None)(x, y)
        if op in (ast.Eq, ast.NotEq):
            exact, imp = self.value_eq(a, b)
            if op is ast.NotEq:
                return neg(exact) if exact is not None else None
            return exact if exact is not None else (BoolV(None, imp) if imp is not None else None)
        return None

    def contains(self, container: Value, x: Value) -> Optional[Pred]:
        """Python's `x in container`, or None when unknown: a tuple or list with known items
        holds x when one of them equals it (`mode in ("bilinear", "bicubic")`, `k in (1, 3, 5)`
        over a symbolic k is the disjunction); a dict or ModuleDict holds the keys it is known to
        have (one built elsewhere, `**kwargs` say, may have others: absence decides nothing);
        `range(a, b)` holds a <= x < b."""
        if isinstance(container, (TupleV, ListV, SetV)):
            if container.items is None:
                return None
            preds = []
            for item in container.items:
                exact, _ = self.value_eq(x, item)
                if exact is not None and exact.is_true:
                    return TRUE
                preds.append(exact)
            return None if any(p is None for p in preds) else disj(*preds)
        if isinstance(container, DictV) and container.exact and not container.open and not container.items:
            return FALSE  # (an exact dict with no keys holds none, whatever the key)
        if _open(container) or _open(x):
            return None
        if isinstance(container, TorchDir):
            return TRUE if torch_names.provides(container, x) else None
        if isinstance(container, StrV) and isinstance(x, StrV) and None not in (container.value, x.value):
            return TRUE if x.value in container.value else FALSE
        if isinstance(container, DictV) and container.exact and not container.open and isinstance(x, StrV) \
                and x.value is not None:
            return TRUE if x.value in container.items else FALSE
        keys = container.items if isinstance(container, DictV) else \
            container.names if isinstance(container, ModuleV) and container.kind == "torch.nn.ModuleDict" else None
        if keys is not None and isinstance(x, StrV) and x.value is not None:
            return TRUE if x.value in keys else None
        if isinstance(container, RangeV) and container.step.value == 1:
            v = self.int_value(x)
            return conj(ge(v, container.start), lt(v, container.stop)) if v is not None else None
        return None

    def value_eq(self, a: Value, b: Value) -> tuple:
        """Python's `==` on ints, strings, None and sequences: (the predicate or None when unknown,
        a predicate it implies). A torch.Size is a tuple: it equals a tuple of the same length
        with equal items, and never a list."""
        x, y = self.int_value(a), self.int_value(b)
        if x is not None and y is not None:
            p = eq(x, y)
            return p, p
        if isinstance(a, (TupleV, ListV)) and isinstance(b, (TupleV, ListV)):
            if a.items is None or b.items is None:
                return None, None
            if type(a) is not type(b) or len(a.items) != len(b.items):
                return FALSE, FALSE
            exact, implied, unknown = [], [], False
            for u, v in zip(a.items, b.items):
                e, i = self.value_eq(u, v)
                if e is None:
                    unknown = True
                else:
                    exact.append(e)
                if i is not None:
                    implied.append(i)
            whole = conj(*exact)
            if whole.is_false or not unknown:
                return whole, whole
            return None, conj(*implied) if implied else None
        if _open(a) or _open(b):
            return None, None
        if isinstance(a, StrV) and isinstance(b, StrV) and a.value is not None and b.value is not None:
            return (TRUE, TRUE) if a.value == b.value else (FALSE, FALSE)
        if isinstance(a, StrV) and isinstance(b, (IntV, FloatV)) or isinstance(b, StrV) and isinstance(a, (IntV, FloatV)):
            # a number never equals a string: `v == "M"` over a config list like [64, "M", 128]
            return FALSE, FALSE
        if isinstance(a, DtypeV) and isinstance(b, DtypeV) and a.name and b.name:
            # `x.dtype in [torch.int32, torch.long]` (names canonical: `torch.long` is int64)
            return (TRUE, TRUE) if a.name == b.name else (FALSE, FALSE)
        same = class_eq(a, b)
        if same is not None:
            return (TRUE, TRUE) if same else (FALSE, FALSE)
        if isinstance(a, NoneV) or isinstance(b, NoneV):
            same = _identity(a, b) if isinstance(b, NoneV) else _identity(b, a)
            if same is not None:
                return (TRUE, TRUE) if same else (FALSE, FALSE)
        return None, None

    def truth(self, v: Value) -> Optional[Pred]:
        if isinstance(v, BoolV):
            return v.pred
        if isinstance(v, IntV):
            return ne(v.expr, 0)
        if isinstance(v, NoneV):
            return FALSE
        # (a `functools.partial`, a bound method or a builtin function has no `__bool__`: truthy,
        # so `rd_round_fn or round` given a partial is that partial)
        if isinstance(v, (ModuleV, InstanceObj)):
            return object_truth.truth(v)  # (by the class's `__bool__` / `__len__`, if any)
        if isinstance(v, ChoiceV):
            t = [self.truth(o) for o in v.options]
            return TRUE if all(p is not None and p.is_true for p in t) else None
        if isinstance(v, (FuncObj, ClassObj, DtypeV, PartialV, BoundMethod, BuiltinFn)):
            return TRUE
        # (a torch layer class or function a rule stands for is truthy, `norm_layer or
        # nn.BatchNorm2d` given the class is that class; another torch name may be a falsy flag)
        if isinstance(v, ExtRef) and registry.lookup(v.path) is not None:
            return TRUE
        if isinstance(v, (TupleV, ListV)) and v.items is not None:
            return TRUE if v.items else FALSE
        if isinstance(v, StrV) and v.value is not None:
            return TRUE if v.value else FALSE
        if isinstance(v, FloatV) and v.value is not None:
            return TRUE if v.value else FALSE
        if isinstance(v, MaybeNoneV) and v.given is not None:
            given = self.truth(v.given)
            return FALSE if given is not None and given.is_false else None  # (None, or falsy too: dicts.any_value)
        return None

    def implied(self, v: Value) -> Optional[Pred]:
        """A predicate that holds whenever `v` is truthy: its truth when known, else what is
        known of it (sound for asserts and an `if`'s true arm, not for deciding the `if`)."""
        p = self.truth(v)
        if p is None and isinstance(v, BoolV):
            return v.implied
        return p

    def _operands(self, node: ast.BoolOp, is_and: bool, fr) -> list:
        """The operands Python evaluates: up to one that decides the whole; each later one under
        the earlier ones' outcome (`x.shape[0] > 5 and x[5]`: x[5] only where N > 5), as an
        undecided arm when that outcome is undecided, so what it requires holds only there."""
        vals: list = []
        pushed, dead0, quiet = 0, fr.dead, 0
        try:
            for k, operand in enumerate(node.values):
                if k:
                    prev = self.truth(vals[-1])
                    decided = fr.facts.decide(prev) if prev is not None else None
                    if decided is (not is_and):
                        break  # short-circuit: the rest never runs
                    if decided is None:
                        fr.facts.push()
                        pushed += 1
                        fr.expr_arms += 1  # (what it learns of names holds only there: Frame.expr_arms)
                        if at_default(vals[-1]) is (not is_and) and not quiet:
                            quiet = 1  # only a flag's other value gets here (flags.py): errors not reported
                            fr.caught += 1
                        if prev is not None:
                            add_fact(fr.facts, prev if is_and else neg(prev),
                                     (span_of(node.values[k - 1]), f"condition on line {node.lineno}"))
                vals.append(self.eval(operand, fr))
        finally:
            fr.expr_arms -= pushed
            fr.caught -= quiet
        for _ in range(pushed):
            fr.facts.pop()
        if pushed:
            fr.dead = dead0
        return vals

    def e_BoolOp(self, node: ast.BoolOp, fr) -> Value:
        is_and = isinstance(node.op, ast.And)
        vals = self._operands(node, is_and, fr)
        self.note_omitted(fr, *vals)
        return carried(self._bool_value(vals, is_and, fr), vals, is_and)

    def _bool_value(self, vals: list, is_and: bool, fr) -> Value:
        preds = [self.truth(v) for v in vals]
        if all(isinstance(v, BoolV) for v in vals):
            if is_and:
                return _bool(preds, [self.implied(v) for v in vals])
            if any(p is None for p in preds):
                return BoolV(None)
            return BoolV(disj(*preds))
        # Python's value semantics: `hidden or in_features` is an int, not a bool. The first
        # operand that decides the expression is its value; the last one otherwise.
        for i, (v, p) in enumerate(zip(vals[:-1], preds)):
            decided = fr.facts.decide(p) if p is not None else None
            if decided is None:
                if is_and and any(q is not None and fr.facts.decide(q) is False for q in preds[i + 1:]):
                    # `self.training and self.deep_supervision` with the flag False: falsy,
                    # whichever operand it is
                    return BoolV(FALSE)
                return self.join_values(vals[i:])
            if decided is (not is_and):
                return v
        return vals[-1]


def _open(v: Value) -> bool:
    """A default the callers may replace (values.DefaultStrV): no decision rests on it."""
    return isinstance(v, DefaultStrV)


def _bool(exact: list, implied: list) -> BoolV:
    """The conjunction of parts, each exact or unknown (None) with what it implies."""
    whole = conj(*[p for p in exact if p is not None])
    if whole.is_false or all(p is not None for p in exact):
        return BoolV(whole)
    known = [p for p in implied if p is not None]
    return BoolV(None, conj(*known) if known else None)


_ORDER = {ast.Lt: lambda p, q: p < q, ast.LtE: lambda p, q: p <= q, ast.Gt: lambda p, q: p > q,
          ast.GtE: lambda p, q: p >= q, ast.Eq: lambda p, q: p == q, ast.NotEq: lambda p, q: p != q}


def _number(v: Value) -> Optional[float]:
    """A number the value is known to be (an int constant or a float of known value), else None."""
    if isinstance(v, FloatV):
        return v.value
    if isinstance(v, IntV):
        return v.expr.value
    return None


def _identity(a: Value, b: Value) -> Optional[bool]:
    if isinstance(b, NoneV):
        if isinstance(a, NoneV):
            return True
        if isinstance(a, TensorV) and a.optional:
            return None
        if isinstance(a, (TensorV, IntV, ModuleV, InstanceObj, TupleV, ListV, StrV, FloatV, FuncObj)):
            return False
        # a layer factory passed as an argument (`norm_layer=partial(nn.BatchNorm2d, eps=...)`,
        # a class, a torch callable) is not None: `if norm_layer is None:` is decided
        if isinstance(a, (PartialV, ClassObj, BoundMethod, BuiltinFn, DictV, DtypeV, BoolV, ChoiceV, GivenV)):
            return False
        if isinstance(a, ExtRef) and a.path.startswith("torch."):
            return False
        if type(a) is OpaqueV and a.kind == "int":
            # a number known by name (`img_size: int`, or an int default's symbol): its
            # arithmetic and `isinstance` tests already take it for an int
            return False
    if isinstance(a, BoolV) and isinstance(b, BoolV) and a.pred is not None and b.pred is not None:
        if (a.pred.is_true or a.pred.is_false) and (b.pred.is_true or b.pred.is_false):
            return a.pred.is_true == b.pred.is_true
    return enums.identical(a, b)


def _elementwise(op, a, b, alone: bool) -> bool:
    """Whether the comparison may be a tensor's: an operand is a tensor or, when the comparison is
    not chained (a chain is an `and` of bools, whose known parts asserts keep), a value not
    understood, which may be one (`lengths < limit.unsqueeze(1)` over tensors the analysis lost)."""
    kinds = (TensorV, UnknownV) if alone else TensorV
    return not isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) and \
        (isinstance(a, kinds) or isinstance(b, kinds))
