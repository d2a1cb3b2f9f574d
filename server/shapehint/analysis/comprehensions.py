"""Comprehensions (each item of a known source, filters decided or taken as arms) and the join
of the values several paths give one name (`join_values`: loops, undecided branches, the
options of a choice). A component of the interpreter (`_USES` bound when it is wired); split
from evaluator.py."""
from __future__ import annotations

import ast
import dataclasses
from typing import Optional

from ..shapes.shape import eq
from ..shapes.values import (BoolV, DictV, FloatV, IntV, ListV, ModuleV, NoneV, NumberV, StrV, TensorV, TupleV,
                             UnknownV, Value)
from ..ops import pieces
from . import arm_lists, first_items, own_entries, number_or_tensor, open_tuples, operands, tuple_or_output
from .choices import choice_of
from .maybe_none import join_falsy, join_maybe_none
from .open_choices import open_choice
from .list_choices import list_choice
from .dict_choices import dict_choice
from .rank_joins import common_ends
from .classvalues import set_of
from .frames import span_of
from .int_reading import pair_of_itself
from .objects import OpaqueV, OwnIndex, RangeV
from .imports import read_alike

MAX_COMPREHENSION = 64  # items of a comprehension looked at one by one


class Comprehensions:
    """List comprehensions and generator expressions, and joins of values."""

    _USES = ("eval", "assign", "iterate", "trip_count", "truth", "in_arm", "resolve", "fresh_dyn", "fresh_star", "sides_shared",
             "joined_star", "fresh_symbol", "least", "resolve_import", "loop_element", "interp")

    def e_ListComp(self, node, fr) -> Value:
        return self.comprehension(node, fr)

    def e_GeneratorExp(self, node, fr) -> Value:
        # its first items stay first (a list's may not: `insert(0, x)`, `sort()`)
        return self.comprehension(node, fr, keep_head=True)

    def e_SetComp(self, node, fr) -> Value:
        return set_of(self.comprehension(node, fr).items)

    def e_DictComp(self, node, fr) -> Value:
        return DictV({}, open=True)

    @staticmethod
    def _decide(p, fr) -> Optional[bool]:
        return fr.facts.decide(p) if p is not None else None

    def comprehension(self, node, fr, keep_head: bool = False) -> Value:
        """A list comprehension over known items: the list itself when every filter is decided,
        else a list of unknown length whose element is the join of those that may be kept (and,
        `keep_head`, whose `head` is the items every path keeps first)."""
        if len(node.generators) != 1 or node.generators[0].is_async:
            return ListV(None)
        gen = node.generators[0]
        source = self.eval(gen.iter, fr)
        items = self.iterate(source, fr)
        saved = dict(fr.env)
        rec, fr.record = fr.record, False
        try:
            if items is None:
                # (a list of unknown length whose every item is known alike: `[b for _, b in blocks]`)
                known = isinstance(source, (ListV, ModuleV)) and source.elem is not None
                elem, whole = source.elem if known else self._tensor_row(source, fr), None
                if isinstance(source, RangeV) and isinstance(node, ast.ListComp) and not gen.ifs:
                    elem = OwnIndex("element")  # (each item holds another value of it)
                if not gen.ifs:  # (pieces mapped one to one: whole again when concatenated)
                    elem, whole = pieces.each_piece(source, elem, lambda: self.fresh_symbol("piece", None, lo=0))
                self.assign(gen.target, elem, fr, None)
                # `[Block(d) for _ in range(depth)]`: depth of them (a loop over them runs)
                since = own_entries.now()
                out = own_entries.mark(ListV(None, self.eval(node.elt, fr), None if gen.ifs else self.trip_count(source),
                                             whole=whole), elem, since)
                own_entries.made(self.interp, since)
                if isinstance(node, ast.ListComp):
                    out.first = first_items.of_range(source, node, lambda i: self._element_at(node, i, fr)) or \
                        first_items.of_items(source, node, lambda i: self._element_at(node, i, fr))
                return out
            out = []
            maybe = len(items) > MAX_COMPREHENSION  # only the first ones are looked at
            head = 0  # how many of `out` every path keeps, before the first undecided filter
            for it in items[:MAX_COMPREHENSION]:
                self.assign(gen.target, it, fr, None)
                preds = [self.truth(self.eval(c, fr)) for c in gen.ifs]
                decided = [self._decide(p, fr) for p in preds]
                if False in decided:
                    continue
                if None not in decided:
                    out.append(self.eval(node.elt, fr))
                    head += not maybe
                    continue
                maybe = True  # a filter the analysis cannot decide: maybe kept, and the element
                # made only where it holds (`[x[5] for x in xs if x.shape[0] > 5]`), an arm
                conds = [p for p, d in zip(preds, decided) if d is None]
                out.append(self.in_arm(fr, conds, (span_of(node), f"filter on line {node.lineno}"),
                                       lambda: self.eval(node.elt, fr))[0])
            if maybe:  # its length is unknown (`len(...) <= 1` must not be read off the items seen)
                return ListV(None, self.join_values(out) if out else UnknownV("element"),
                             head=tuple(out[:head]) if keep_head else ())
            return ListV(out)
        finally:
            fr.record = rec
            fr.env.clear()
            fr.env.update(saved)

    def _tensor_row(self, source, fr) -> Value:
        """An item of a tensor of unknown length (`[t.item() for t in torch.linspace(0, p, n)]`):
        its rows, of the other axes. The facts taking its first row asks for are not kept: the
        comprehension may have no item."""
        if not isinstance(source, TensorV):
            return UnknownV("element")
        fr.facts.push()
        try:
            return self.loop_element(source, None, fr)
        finally:
            fr.facts.pop()

    def _element_at(self, node, i: Value, fr) -> Value:
        self.assign(node.generators[0].target, i, fr, None)
        return self.eval(node.elt, fr)

    # ---- joins ------------------------------------------------------------------
    def join_values(self, vals: list, facts=None) -> Value:
        from .sink import join_shapes
        vals = [v for v in vals if v is not None]
        if not vals:
            return UnknownV("join")
        first = vals[0]
        if all(v is first for v in vals):
            return first
        read = read_alike(vals, lambda lazy: self.resolve_import({}, "", lazy), self.join_values)
        if read is not None:
            return read
        if isinstance(first, OpaqueV) and all(type(v) is type(first) and v.path == first.path and v.kind == first.kind
                                              for v in vals):
            # one object named alike on every path (`out_chs = out_chs or in_chs`, both given `dims[0]`):
            # a name stands for one value, as its int symbol does
            return first
        if all(isinstance(v, TensorV) for v in vals):
            shapes = [self.resolve(v) for v in vals]
            if facts is not None:
                shapes = [_align(shapes[0], sh, facts) for sh in shapes]
            s = join_shapes(shapes)
            if s is not None:
                s = _fresh_joins(s, self.fresh_dyn) if "?join" in s.symbols() else s
            else:
                from ..shapes.shape import Shape
                s = common_ends(shapes, self.fresh_star, self.sides_shared) or Shape.unknown(self.fresh_star())
                self.joined_star(shapes, s)
            dts = {v.dtype for v in vals}
            if s == shapes[0] and len(dts) == 1 and all(_same_flags(v, first) for v in vals):
                return first  # one abstract value: a loop whose body keeps it is at its fixpoint
            return TensorV(s, dts.pop() if len(dts) == 1 else None, first.origin,
                           contiguous=all(v.contiguous for v in vals),
                           optional=any(v.optional for v in vals),  # (None on one path: may be None)
                           joined_none=any(v.joined_none for v in vals) or _replaced_optional(vals))
        if all(isinstance(v, IntV) for v in vals):
            if all(v.expr == first.expr for v in vals):
                return first
            return IntV(self._joined_int(vals))
        if all(isinstance(v, IntV) or _int_symbol(v) for v in vals):
            # a size parameter (`stem_width`, an int-typed symbol) on one path and a size computed
            # from it on the other (`3 * (stem_width // 4)`): some int, which a later layer or
            # `zeros` can still take as a size; unknown, it made every shape after it unknown
            if all(_int_symbol(v) and v.path == first.path for v in vals):
                return first
            return IntV(self._joined_int(vals))
        if all(isinstance(v, ModuleV) and v.children is None and v.elem is None for v in vals) and \
                len({(v.kind, v.describe()) for v in vals}) == 1:
            return first  # layers built alike (`stages.append(nn.Linear(d, d))` in a loop)
        if all(isinstance(v, DictV) and not v.open and v.items.keys() == first.items.keys() for v in vals):
            # the same keys on every path (`act_kwargs or {}` given `{}`): a dict of those keys
            return DictV({k: self.join_values([v.items[k] for v in vals]) for k in first.items},
                         exact=all(v.exact for v in vals))
        if all(isinstance(v, TupleV) for v in vals) and len({len(v.items) for v in vals}) == 1:
            return TupleV(tuple(self.join_values([v.items[i] for v in vals]) for i in range(len(first.items))))
        tensors = [v for v in vals if isinstance(v, TensorV)]
        if tensors and all(isinstance(v, (TensorV, NoneV)) for v in vals):
            # a tensor on some paths, None on others (`self.pos = None if kind == 'none' else
            # Parameter(...)`, the kind a string default picks): an optional tensor, as a
            # parameter defaulting to None is, so `if self.pos is None:` is undecided
            t = self.join_values(tensors, facts)
            return dataclasses.replace(t, optional=True, none_at_default=None, joined_none=True) \
                if isinstance(t, TensorV) else t
        if all(type(v) is type(first) for v in vals) and isinstance(first, (NoneV, StrV, FloatV, BoolV)):
            return first if isinstance(first, NoneV) or _same_constant_bool(vals) else type(first)()
        if all(isinstance(v, (IntV, FloatV)) for v in vals):
            # ints on some paths, floats on others (`low = math.floor(low)` under a flag): still a
            # number, which a tensor's arithmetic takes alike (`torch.arange(n) - low`); unknown,
            # it made every tensor computed with it unknown
            return NumberV()
        hyper = operands.hyperparameter(vals, lambda: self._joined_int(vals))  # numbers and configured values: never a tensor
        if hyper is not None:
            return hyper
        # one of several layers or functions; an object None on some paths; tuples of lengths that differ;
        # a value of unknown kind paired with itself
        picked = (choice_of(vals) or join_maybe_none(vals) or join_falsy(vals) or open_tuples.joined(vals, self.join_values)
                  or tuple_or_output.joined(vals) or pair_of_itself(vals) or open_choice(vals) or number_or_tensor.joined(vals, self.join_values)
                  or list_choice(vals) or dict_choice(vals) or arm_lists.joined(vals, self.join_values))
        return picked if picked is not None else UnknownV("join")

    def _joined_int(self, vals: list):
        """Some int for ints that differ on the paths: a fresh symbol, at least 1 as a size is,
        unless a path gives a constant below that (`shift = 0` on one path, `window // 2` on the
        other: `shift > 0` must stay undecided, not hold on every path), or an int parameter that
        may be below it (`self.shift_size` of default 0 on one path, `0` on the other)."""
        consts = [v.expr.value if isinstance(v, IntV) else self.least(v.path) for v in vals
                  if not isinstance(v, IntV) or v.expr.value is not None]
        low = min(consts, default=1)
        return self.fresh_dyn() if low >= 1 else self.fresh_symbol("?", None, lo=low)


def _int_symbol(v) -> bool:
    return isinstance(v, OpaqueV) and v.kind == "int"


def _fresh_joins(s, fresh):
    """Each axis the joined values disagree on gets a symbol of its own: one symbol for all of
    them would claim those axes equal (`[B, C, C, C]` after `B, C, H, W = y.shape` where `y` is a
    strided conv's output or its input)."""
    from ..shapes.shape import Shape

    def dim(d):
        return fresh() if "?join" in d.symbols() else d
    return Shape(tuple(map(dim, s.dims)), s.star, tuple(map(dim, s.suffix)))


def _same_constant_bool(vals: list) -> bool:
    """Bools every path knows to be the same constant (a helper's `return False` in each arm of
    its `try`, `is_torchdynamo_compiling()` in eager execution): that constant, not an unknown
    bool that left the `if` testing it open. One a flag's default decides is no constant."""
    def const(v):
        return isinstance(v, BoolV) and v.pred is not None and (v.pred.is_true or v.pred.is_false) \
            and v.at_default is None
    return all(const(v) and v.pred.is_true == vals[0].pred.is_true for v in vals)


def _replaced_optional(vals: list) -> bool:
    """An optional tensor on some paths and another tensor on others (`if mask is None and not
    compiling(): mask = ones(...)`): its None side is no longer just the callers' default, since
    a caller that omits it may take the path that made one, so a later `None` test of it must
    follow both sides (a joined None) rather than continue from the absent one. The optional
    tensor itself read as given on a path (`evaluator._read_as_tensor`: the same origin) is no
    other tensor: a caller that omits it never gets past that read."""
    opts = [v for v in vals if v.optional]
    return bool(opts) and any(not v.optional and not any(v.origin is o.origin and v.origin is not None for o in opts)
                              for v in vals)


def _same_flags(a: TensorV, b: TensorV) -> bool:
    return (a.contiguous, a.layout_note, a.requires_grad, a.is_param, a.optional, a.joined_none) == \
        (b.contiguous, b.layout_note, b.requires_grad, b.is_param, b.optional, b.joined_none)


def _align(ref, s, facts):
    """`s` with each dimension the facts prove equal to `ref`'s replaced by it, so a loop-carried
    `[keys.shape[0], 128]` joins with `[B, 128]` when the facts say they are the same."""
    from ..shapes.shape import Shape
    if ref.rank is None or s.rank != ref.rank or s == ref:
        return s
    dims = tuple(a if a == b or (not (a - b).is_const and facts.entails(eq(a, b))) else b
                 for a, b in zip(ref.dims, s.dims))
    return Shape(dims)

