"""Python builtins and a few library helpers the analysis follows precisely.

`len`, `range`, `zip`, `enumerate`, `min`/`max` on ints, `int()`, `isinstance`/`issubclass`, `super()`,
`getattr`, list/dict/module-container methods, `torch._check`, `torch.Size`, `math.*`, `dataclasses.field`, `collections.OrderedDict`, `nn.Parameter`, `register_buffer`.
A component of the interpreter (`Interp.builtins`): it calls back into the interpreter through
the methods bound when the interpreter wires it (`_USES`).
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.expr import Expr, emax, emin
from ..shapes.shape import FALSE, TRUE, conj, disj, ge, le
from ..shapes.values import BoolV, DefaultStrV, DictV, ExtRef, FloatV, IntV, ListV, ModuleV, NoneV, SliceV, StrV, TensorV, TupleV, UnknownV, Value
from ..ops import pieces
from .layers import CONTAINERS
from .typetests import inputs_are_tensors, isinstance_of, subclass_of
from .strings import known, str_float, str_method
from . import absent_attrs, arith, attr_presence, bounded_loops, classvalues, copies, dicts, grown_lists, instance_len, layer_tails, loop_counts, open_tuples, own_entries, properties, records, sized_kwargs, torch_names, unnamed_modules
from .objects import UNKNOWN_MODULES, ChoiceV, ClassObj, InstanceObj, OpaqueV, RangeV, SuperV

# methods of lists, dicts and layers that write nothing (bound_op): the others count as writes
_READING = {"get", "index", "count", "values", "items", "keys", "to", "cuda", "cpu", "eval", "train", "float", "half", "double", "requires_grad_"}


def falsy_literal(node) -> bool:
    """`False`, `0`, `None`, `""`: a check of one is how the code raises (`assert False, "unsupported"`)."""
    return isinstance(node, ast.Constant) and not node.value and not isinstance(node.value, float)


# what the builtins call on the other parts of the interpreter
_USES = ("_learn_guarded_ranks", "_safe_eval", "assume", "attribute", "binop", "build_layer", "call_rule", "call_value", "fresh_dyn",
         "fresh_symbol", "function_named", "init_dataclass", "int_value", "join_values", "mutated", "opaque_symbol", "resolve", "subscript", "truncated", "truth")


class Builtins:
    _USES = _USES

    def builtin(self, name: str, args: list, kwargs: dict, fr, span) -> Value:
        fn = getattr(self, f"b_{name}", None)
        if fn is not None:
            return fn(args, kwargs, fr, span)
        if name == "set":
            return classvalues.set_call(args, kwargs)
        return NoneV() if name == "print" else UnknownV(name)

    def b_len(self, args, kwargs, fr, span):
        v = args[0] if args else None
        n = classvalues.length(v)  # a tuple's, a list's, a set's of known items
        if n is not None:
            return IntV(Expr.const(n))
        if isinstance(v, ModuleV) and v.children is not None:
            return IntV(Expr.const(len(v.children)))
        if isinstance(v, TensorV):
            return self.call_rule("Tensor.size", [v, IntV(Expr.const(0))], {}, fr, span, "len")
        if known(v) is not None:
            return IntV(Expr.const(len(v.value)))
        if isinstance(v, DictV) and not v.open:
            return IntV(Expr.const(len(v.items)))
        if isinstance(v, ListV) and v.length is not None:
            return IntV(v.length)  # `outs` grown `n` times in a loop
        if isinstance(v, NoneV) and fr is not None:
            # `len(None)` raises: no run gets past here with this None — the analysis took an
            # optional argument's default (`idx=None`) that every caller reaching here replaces —
            # so what follows holds only under that assumption (Frame.assumes_default)
            fr.assumes_default = True
        return instance_len.length(self, v, fr, span)  # (a class's own `__len__`, else unknown)

    def b_range(self, args, kwargs, fr, span):
        ints = [self.int_value(a) for a in args]
        if not ints or any(i is None for i in ints):
            return UnknownV("range")
        start, stop, step = (Expr.const(0), ints[0], Expr.const(1)) if len(ints) == 1 else \
            (ints[0], ints[1], ints[2] if len(ints) > 2 else Expr.const(1))
        if start.value is not None and stop.value is not None and step.value:
            r = range(start.value, stop.value, step.value)
            if len(r) <= 64:
                return ListV([IntV(Expr.const(i)) for i in r])
        return RangeV(start, stop, step)

    def b_int(self, args, kwargs, fr, span):
        if not args:
            return IntV(Expr.const(0))
        v = args[0]
        if isinstance(v, IntV):
            return IntV(self.truncated("int", v.expr))
        if isinstance(v, OpaqueV):
            return IntV(self.truncated("int", self.opaque_symbol(v)))
        if isinstance(v, FloatV) and v.value is not None:
            return IntV(Expr.const(int(v.value)))
        if isinstance(v, FloatV) and v.quotient is not None and fr is not None:
            # `int(config.hidden_size / config.num_attention_heads)`: truncation is the floor
            # division where the dividend is not negative and the divisor positive
            a, b = v.quotient
            if fr.facts.entails(ge(a, 0)) and fr.facts.entails(ge(b, 1)):
                return IntV(a // b)
        if isinstance(v, BoolV) and v.pred is not None and (v.pred.is_true or v.pred.is_false):
            return IntV(Expr.const(int(v.pred.is_true)))  # `dim_in + int(concat_ones)`
        if isinstance(v, StrV) and v.value is not None and v.value.strip().lstrip("-").isdigit():
            return IntV(Expr.const(int(v.value)))
        return IntV(self.fresh_symbol("int", span, lo=0))

    def b_float(self, args, kwargs, fr, span):
        v = args[0] if args else None
        if isinstance(v, IntV) and v.expr.value is not None:
            return FloatV(float(v.expr.value))
        if isinstance(v, FloatV):
            return v
        return (str_float(v.value) if known(v) is not None else None) or FloatV(None)

    def b_bool(self, args, kwargs, fr, span):
        return BoolV(self.truth(args[0]) if args else None)

    def _minmax(self, args, pick):
        if len(args) == 1:
            items = self.iterate(args[0], None)
            args = items or []
        ints = [self.int_value(a) for a in args]
        if ints and all(i is not None for i in ints):
            out = ints[0]
            for i in ints[1:]:
                out = pick(out, i)
            return IntV(out)
        if any(isinstance(a, FloatV) for a in args):
            # known numbers, some floats (`max(1.0, width_mult)`): Python's own max/min
            nums = [a.value if isinstance(a, FloatV) else a.expr.value if isinstance(a, IntV) else None for a in args]
            if args and None not in nums:
                got = args[nums.index((max if pick is emax else min)(nums))]
                return got
            return FloatV(None)
        return UnknownV("min/max")

    def b_max(self, args, kwargs, fr, span):
        return self._minmax(args, emax)

    def b_min(self, args, kwargs, fr, span):
        return self._minmax(args, emin)

    def b_abs(self, args, kwargs, fr, span):
        return arith.abs_value(args[0] if args else None, fr.facts if fr is not None else None)

    def b_round(self, args, kwargs, fr, span):
        v = args[0] if args else None
        if isinstance(v, FloatV) and v.value is not None and len(args) == 1:
            return IntV(Expr.const(round(v.value)))
        digits = args[1].expr.value if len(args) == 2 and isinstance(args[1], IntV) else None
        if isinstance(v, FloatV) and v.value is not None and digits is not None:
            return FloatV(round(v.value, digits))  # (`round(2.675, 2)` is 2.67: Python's own)
        if len(args) == 1 and not isinstance(v, IntV):
            q = arith.round_quotient(v)  # `round(out_chs * 1.0)`; else some int, never a float
            return IntV(q) if q is not None else UnknownV("round")
        if isinstance(v, IntV) and len(args) == 1:
            return IntV(self.truncated("round", v.expr))
        return v if isinstance(v, IntV) else FloatV(None)

    def b_sum(self, args, kwargs, fr, span):
        items = self.iterate(args[0], fr) if args else None
        if items is None:
            return UnknownV("sum")
        ints = [self.int_value(i) for i in items]
        if all(i is not None for i in ints):
            out = Expr.const(0)
            for i in ints:
                out = out + i
            return IntV(out)
        acc = items[0] if items else IntV(Expr.const(0))
        for it in items[1:]:
            acc = self.binop(ast.Add, acc, it, span, fr)
        return acc

    def b_divmod(self, args, kwargs, fr, span):
        a, b = (self.int_value(x) for x in args[:2])
        if a is None or b is None or b.value == 0:
            return UnknownV("divmod")
        return TupleV((IntV(a // b), IntV(a % b)))

    def b_any(self, args, kwargs, fr, span, join=disj):
        """`any`/`all` of known items: the disjunction (conjunction) of their truths, so that
        `if any([isinstance(v, (tuple, list)) for v in (k, s)]):` picks its arm."""
        items = self.iterate(args[0], None) if len(args) == 1 else None
        preds = [self.truth(i) for i in items] if items is not None else [None]
        return BoolV(None if None in preds else join(*preds))

    def b_all(self, args, kwargs, fr, span):
        return self.b_any(args, kwargs, fr, span, conj)

    def b_isinstance(self, args, kwargs, fr, span, issubclass=False):
        got = None if len(args) != 2 or kwargs else subclass_of(*args) if issubclass else \
            isinstance_of(args[0], args[1], isinstance(args[0], TensorV) and inputs_are_tensors(self, fr))
        return BoolV(None if got is None else TRUE if got else FALSE)

    def b_issubclass(self, args, kwargs, fr, span):
        return self.b_isinstance(args, kwargs, fr, span, True)

    def b_zip(self, args, kwargs, fr, span):
        lists = [self.iterate(a, fr) for a in args]
        if any(l is None for l in lists):  # as long as the shortest: unknown
            return bounded_loops.zipped(lists, [self.loop_element(a, l, fr) for a, l in zip(args, lists)], pieces.zipped(args),
                                        lambda j, i: bounded_loops.named_item(args[j], i, lambda v, k: self.subscript(v, k, None, fr)))
        return ListV([TupleV(tuple(t)) for t in zip(*lists)])

    def b_map(self, args, kwargs, fr, span):
        # `q, k, v = map(lambda t: ..., qkv)`: the function applied to each item, when they are known
        lists = [self.iterate(a, fr) for a in args[1:]]
        if len(args) < 2 or any(items is None for items in lists):
            return UnknownV("map")
        return ListV([self.call_value(args[0], list(t), {}, fr, span) for t in zip(*lists)])

    def b_filter(self, args, kwargs, fr, span):
        """`filter(None, [conv, act() if act else None, norm])` (a stem given to
        `nn.Sequential(*...)`): the known items whose truth is decided, those that are true;
        `filter(fn, xs)` asks `fn` of each. One undecided leaves the list unknown, never a guess
        at its length (a layer missing or added would shift every shape after it)."""
        items = self.iterate(args[1], fr) if len(args) == 2 and not kwargs else None
        if items is None:
            return UnknownV("filter")
        kept = []
        for item in items:
            test = item if isinstance(args[0], NoneV) else self.call_value(args[0], [item], {}, fr, span)
            decided = self._decided_truth(test, fr)
            if decided is None:
                return UnknownV("filter")
            if decided:
                kept.append(item)
        return ListV(kept)

    def _decided_truth(self, v: Value, fr) -> Optional[bool]:
        """`bool(v)` when the facts decide it. A container layer is as long as its children (an
        empty `nn.Sequential()` is false); a choice, when every option agrees."""
        if isinstance(v, ModuleV) and v.kind in CONTAINERS:
            return bool(v.children) if v.children is not None else None
        if isinstance(v, ChoiceV):
            got = {self._decided_truth(o, fr) for o in v.options}
            return got.pop() if len(got) == 1 else None
        p = self.truth(v)
        return fr.facts.decide(p) if p is not None and fr is not None else None

    def b_enumerate(self, args, kwargs, fr, span):
        items = self.iterate(args[0], fr) if args else None
        if items is None:
            elem = self.loop_element(args[0], None, fr) if args else None
            if elem is None or isinstance(elem, UnknownV):
                return UnknownV("enumerate")
            i = IntV(self.fresh_dyn())  # `for i, layer in enumerate(self.layers)`
            return bounded_loops.enumerated(args[0], i) or own_entries.carried(args[0], ListV(None, TupleV((i, elem))))
        start = self.int_value(args[1]) if len(args) > 1 else Expr.const(0)
        return ListV([TupleV((IntV(start + i), it)) for i, it in enumerate(items)])

    def b_list(self, args, kwargs, fr, span):
        if not args:
            return ListV([])
        items = self.iterate(args[0], fr)
        return ListV(list(items)) if items is not None else self._unknown_length(args[0], fr)

    def b_tuple(self, args, kwargs, fr, span):
        if not args:
            return TupleV(())
        items = self.iterate(args[0], fr)
        if isinstance(args[0], TupleV) or isinstance(args[0], OpaqueV) and items is None:
            return args[0]  # (a value of unknown kind: the same items, if it is a sequence at all)
        return TupleV(tuple(items)) if items is not None else pieces.kept_whole(args[0]) or open_tuples.of_list(args[0])

    def b_slice(self, args, kwargs, fr, span):
        # `slice(None, None, 2)` built into an index tuple (`x[tuple([slice(None)] * axis + ...)]`)
        if not 1 <= len(args) <= 3 or kwargs:
            return UnknownV("slice")
        return SliceV(None, args[0], None) if len(args) == 1 else SliceV(*args)

    def b_reversed(self, args, kwargs, fr, span):
        items = self.iterate(args[0], fr) if args else None
        if items is None:
            return self._unknown_length(args[0], fr) if args else UnknownV("reversed")
        return ListV(list(reversed(items)))

    def b_dict(self, args, kwargs, fr, span):
        if not args:
            return DictV(dict(kwargs), open=sized_kwargs.of_kwargs(kwargs))
        if isinstance(args[0], DictV):
            return DictV({**args[0].items, **kwargs}, open=sized_kwargs.wider(args[0].open, sized_kwargs.of_kwargs(kwargs)),
                         written_elsewhere=args[0].written_elsewhere)
        return dicts.of_pairs(self.iterate(args[0], fr), kwargs, sized_kwargs.of_kwargs(kwargs))  # dict(zip(names, values))

    def b_super(self, args, kwargs, fr, span):
        if fr.cls is not None and fr.self_obj is not None:
            return SuperV(fr.cls, fr.self_obj)
        return UnknownV("super")

    def b_getattr(self, args, kwargs, fr, span):
        if len(args) >= 2 and isinstance(args[1], StrV) and args[1].value is not None:
            v = self.attribute(args[0], args[1].value, None, fr)
            if len(args) > 2 and absent_attrs.absent(args[0], args[1].value):
                return args[2]  # (only there: an unknown value is an attribute set to what is not known)
            if isinstance(v, (OpaqueV, UnknownV)) and getattr(v, "kind", None) != "int" and len(args) > 2 and isinstance(args[2], FloatV):
                # a float default says the attribute may be a float (`getattr(cfg, "mlp_ratio", 4.0)`):
                # not an int's symbol, or `int(dim * ratio)` would drop the truncation
                return FloatV(None)
            return v
        return UnknownV("getattr")

    def b_setattr(self, args, kwargs, fr, span):
        if properties.stored_by(args) is not None:  # (a property's name: its setter runs)
            return properties.store(self.call_value, args, fr, span)
        if len(args) == 3 and isinstance(args[0], InstanceObj):
            self.mutated(args[0])
            unnamed_modules.write(args[0], args[1], args[2])
        return NoneV()

    def b_hasattr(self, args, kwargs, fr, span):
        known = len(args) == 2 and (torch_names.provides(args[0], args[1]) or attr_presence.surely_has(*args))
        return BoolV(TRUE if known else FALSE if known is False and len(args) == 2 else None)

    def b_dir(self, args, kwargs, fr, span):
        return (torch_names.dir_of(args[0]) if len(args) == 1 else None) or UnknownV("dir")

    # ---- iteration ------------------------------------------------------------------
    def iterate(self, v: Value, fr) -> Optional[list]:
        if isinstance(v, (TupleV, ListV)):
            return list(v.items) if v.items is not None else None
        if isinstance(v, ModuleV):
            if v.names is not None and v.kind == "torch.nn.ModuleDict":
                return [StrV(n) for n in v.names]
            return list(v.children) if v.children is not None else None
        if isinstance(v, DictV):
            return [StrV(k) for k in v.items] if not v.open else None
        if isinstance(v, TensorV) and fr is not None:
            s = self.resolve(v)
            if s.rank and s.dims[0].value is not None and s.dims[0].value <= 64:
                return [self.call_rule("Tensor.__getitem__", [v, IntV(Expr.const(i))], {}, fr, None, "iteration")
                        for i in range(s.dims[0].value)]
        return None

    def loop_element(self, it: Value, items: Optional[list], fr) -> Value:
        if items:
            return self.join_values(items)
        if isinstance(it, RangeV):
            return self._range_element(it, fr)
        if isinstance(it, TensorV) and fr is not None:
            return self.call_rule("Tensor.__getitem__", [it, IntV(Expr.const(0))], {}, fr, None, "iteration")
        if isinstance(it, ListV) and it.elem is not None:
            return it.elem
        if isinstance(it, ModuleV) and it.elem is not None:
            return it.elem
        return UnknownV("element")

    def _range_element(self, it: RangeV, fr) -> Value:
        """Any element of `range(start, stop, step)`: start <= i < stop going up, stop < i <= start
        going down (`range(n - 1, -1, -1)`); an unknown step bounds nothing."""
        step = it.step.value
        if not step:
            return UnknownV("element")
        low, high = (it.start, it.stop - 1) if step > 0 else (it.stop + 1, it.start)
        floor = low.value if low.value is not None and low.value < 0 else 0  # int symbols are >= 1 otherwise
        i = self.fresh_symbol("i", None, lo=floor)
        fr.facts.add(ge(i, low))
        fr.facts.add(le(i, high))
        return IntV(i)

    # ---- methods of lists, dicts, modules --------------------------------------------
    def bound_op(self, op, args, kwargs, fr, span) -> Value:
        t, name = op.target, op.name
        if isinstance(t, StrV):  # strings are immutable: nothing is written
            out = str_method(t.value, name, args, kwargs) if t.value is not None else None
            if isinstance(t, DefaultStrV):  # a default callers may replace: decides nothing
                out = DefaultStrV(out.value) if isinstance(out, StrV) else None
            return out if out is not None else UnknownV(name)
        if isinstance(t, SuperV) and isinstance(t.self_obj, InstanceObj) and records.is_mapping_class(t.cls):
            got = records.own_items(t.self_obj, name, args, kwargs)
            if got is not None:
                if name == "__init__":
                    self.mutated(t.self_obj)
                return got
        if name == "copy" and not args and not kwargs and isinstance(t, (DictV, ListV)):
            return copies.copied(t, False) or UnknownV(name)
        if name not in _READING:
            self.mutated(t.self_obj if isinstance(t, SuperV) else t)
        if isinstance(t, ListV):
            if t.items is None:
                if t.elem is not None and name in ("append", "extend", "insert"):
                    t.elem = self._joined_elem(t.elem, name, args, fr)  # it may hold what was added
                    grown_lists.record(t, name, args, fr.facts.depth)
                    t.length = t.length + 1 if name != "extend" and t.length is not None else None
                return NoneV()
            if name == "append" and args:
                t.items.append(args[0])
            elif name == "extend" and args:
                items = self.iterate(args[0], fr)
                if items is None:
                    t.items = None
                else:
                    t.items.extend(items)
            elif name == "insert" and len(args) == 2 and isinstance(args[0], IntV) and args[0].expr.value is not None:
                t.items.insert(args[0].expr.value, args[1])
            elif name == "pop" and t.items:
                return t.items.pop()
            elif name in ("index", "count"):
                return IntV(self.fresh_symbol("n", span, lo=0))
            return NoneV()
        if isinstance(t, DictV):
            return dicts.dict_method(t, name, args, self.join_values, own=not fr.foreign)
        if isinstance(t, ModuleV) and t.children is None and t.elem is not None and \
                name in ("append", "extend", "insert", "add_module"):
            t.elem = grown_lists.layer_elem(self._joined_elem(t.elem, name, args, fr))
            layer_tails.forget(t)
            return NoneV()
        if isinstance(t, ModuleV) and t.children is not None:
            if name in ("append", "add_module") and args:
                t.children.append(args[-1])
                if t.names is not None and len(args) == 2 and isinstance(args[0], StrV):
                    t.names.append(args[0].value)
            elif name == "extend" and args:
                items = self.iterate(args[0], fr)
                if items is None:
                    t.children = None
                else:
                    t.children.extend(items)
            elif name in ("values",):
                return ListV(list(t.children))
            elif name == "items" and t.names:
                return ListV([TupleV((StrV(n), c)) for n, c in zip(t.names, t.children)])
            elif name == "keys" and t.names:
                return ListV([StrV(n) for n in t.names])
            return NoneV()
        if isinstance(t, InstanceObj) and name in records.MAPPING_READS and records.is_field_mapping(t):
            return records.read(t, name) or UnknownV(name)
        if isinstance(t, InstanceObj):
            if name in ("register_buffer", "register_parameter") and len(args) >= 2:
                unnamed_modules.write(t, args[0], args[1])
            elif name == "add_module" and len(args) == 2:
                # a name not known (in a loop of unknown count, too; a value not even known to be a
                # string): which modules it holds is not known either (objects.UNKNOWN_MODULES),
                # never one layer in place of several
                known = isinstance(args[0], StrV) and args[0].value is not None
                t.attrs[args[0].value if known else UNKNOWN_MODULES] = args[1]
                if not known:
                    site = f"{UNKNOWN_MODULES} {span.line}:{span.col}" if span else UNKNOWN_MODULES + " ?"
                    t.attrs[site] = loop_counts.site_marker(fr, span, t.attrs.get(site))
            elif name in ("items", "values", "keys", "children", "named_children") and not args and t.cls.is_module():
                # a container subclass's own modules (`for name, layer in self.items()` in a
                # ModuleDict subclass), in the order they were registered
                named = t.registered_modules()
                if named is None:
                    return loop_counts.unknown_count(t, name)
                if name in ("values", "children"):
                    return ListV([v for _, v in named])
                if name == "keys":
                    return ListV([StrV(k) for k, _ in named])
                return ListV([TupleV((StrV(k), v)) for k, v in named])
            elif name in ("to", "cuda", "cpu", "eval", "train", "float", "half", "double", "requires_grad_"):
                return t
            return NoneV()
        if isinstance(t, SuperV):
            if name == "forward" and isinstance(t.self_obj, InstanceObj) and t.self_obj.base_layer is not None:
                # `class Scaled(nn.Embedding)`'s own forward: `super().forward(ids) * scale`
                return self.call_value(t.self_obj.base_layer, args, kwargs, fr, span)
            if name == "__init__" and isinstance(t.self_obj, InstanceObj) and t.cls.is_sequential():
                layers = list(args[0].items.values()) if len(args) == 1 and isinstance(args[0], DictV) else list(args)
                t.self_obj.seq = layers  # nn.Sequential.__init__(*layers) or (OrderedDict)
            elif name == "__init__" and isinstance(t.self_obj, InstanceObj) and t.cls.generated_init_owner():
                self.init_dataclass(t.cls.generated_init_owner(), t.self_obj, args, kwargs, fr, span)
            elif name == "__init__" and isinstance(t.self_obj, InstanceObj):
                rule = _layer_base(t.cls)
                if rule is not None:  # `class LayerNorm2d(nn.LayerNorm)`: super().__init__(dim)
                    layer = self.build_layer(rule, args, kwargs, fr, span, None, None)
                    t.self_obj.base_layer = layer if isinstance(layer, ModuleV) else None
            return NoneV()  # nn.Module.__init__ and friends
        if isinstance(t, ModuleV) and name in ("to", "cuda", "cpu", "eval", "train", "float", "half"):
            return t
        return UnknownV(name)

    def _unknown_length(self, it: Value, fr) -> Value:
        """`list(xs)`, `reversed(xs)` of an iterable whose length is unknown: a list of its element."""
        elem = self.loop_element(it, None, fr)
        return ListV(None, None if isinstance(elem, UnknownV) else elem)

    def _joined_elem(self, elem: Value, name: str, args: list, fr) -> Value:
        """The element of a list of unknown length after `append`/`insert`/`extend` adds to it."""
        if not args:
            return elem
        if name == "extend":
            added = self.loop_element(args[0], self.iterate(args[0], fr), fr)
        else:
            added = args[-1]
        return self.join_values([elem, added])


def _layer_base(cls, depth: int = 0):
    """The registry rule of the torch layer `cls` derives from (`nn.LayerNorm`), if any."""
    from ..ops import registry
    for b in cls.bases:
        if isinstance(b, ExtRef):
            rule = registry.lookup(b.path)
            if isinstance(rule, registry.ModuleRule) and b.path not in CONTAINERS:
                return rule
        elif isinstance(b, ClassObj) and depth < 64:
            got = _layer_base(b, depth + 1)
            if got is not None:
                return got
    return None
