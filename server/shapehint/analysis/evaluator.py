"""Expressions: from `ast` nodes to abstract values.

Tensor arithmetic and methods go through the operator registry (`Tensor.__add__`,
`Tensor.view`, ...); Python ints stay symbolic `Expr`s; comparisons of ints become `Pred`s,
which `if`/`assert` hand to the solver. Every tensor- or int-valued expression is recorded
with its span so hover works on any sub-expression.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.expr import Expr, expr_nodes
from ..shapes.shape import FALSE, TRUE, neg
from ..shapes.values import BoolV, DictV, DtypeV, EllipsisV, ExtRef, FloatV, IntV, ListV, ModuleV, NoneV, SliceV, StarSizeV, StrV, TensorV, TupleV, UnknownV, Value
from .objects import BoundMethod, BoundOp, BuiltinFn, ChoiceV, ClassObj, FuncObj, InstanceObj, LazyImport, ModuleNS, NumberOrTensor, OpaqueV, ShapeAliasV, SuperV, TensorMethod, UnionAliasV
from .annotations import UNION_PATHS, alias_members, is_shape_type
from .choices import conditioned, registry_choice, replaced_default_item
from .maybe_none import narrowed, read_through
from . import absent_attrs, class_params, classvalues, first_items, own_entries, layer_tails, list_choices, layercfg, linked_choices, many_items, number_or_tensor, open_tuples, optional_exprs, operands, optional_args, records, selection, sizes, tuple_or_output, unfinished, unnamed_modules, sized_kwargs
from .arith import float_binop, int_binop, math_constant, python_value
from .strings import formatted, known, str_item
from .sequence_arith import sequence_binop
from .unknown_receivers import sized_method, sliced_sizes_of_lost
from .flags import flag_join, negated, off_default_arm
from .frames import decorated, span_of
from .known_names import BINOP_METHODS, BUILTINS, DTYPES, TENSOR_ATTR_RULES


class Expressions:
    """Evaluation of each kind of expression (`e_<node class>`; the interpreter dispatches and
    counts the steps, `Interp.eval`). A component of the interpreter: what it calls on the other
    parts is bound when the interpreter wires it (`_USES`)."""

    _USES = ("eval", "assign", "call_function", "call_rule", "check_divisor", "eval_defaults", "fresh_dyn", "fresh_star",
             "hole_symbol", "in_arm", "join_values", "comprehension", "open_arm", "close_arm", "join_arms", "interp", "iterate", "module_param", "mutated", "note_omitted", "opaque_symbol",
             "resolve", "resolve_import", "sides_shared", "trip_count", "truth", "view_base")

    # ---- atoms --------------------------------------------------------------
    def e_Constant(self, node: ast.Constant, fr) -> Value:
        v = node.value
        if isinstance(v, bool):
            return BoolV(TRUE if v else FALSE)
        if isinstance(v, int):
            return IntV(Expr.const(v))
        if isinstance(v, float):
            return FloatV(v)
        if isinstance(v, str):
            return StrV(v)
        if v is None:
            return NoneV()
        if v is Ellipsis:
            return EllipsisV()
        return UnknownV("constant")

    def e_Name(self, node: ast.Name, fr) -> Value:
        name = node.id
        if name == "__":
            return IntV(self.hole_symbol(node))
        if name in fr.env:
            v = fr.env[name]
            return v if type(v) is not LazyImport else self.resolve_import(fr.env, name, v)
        scope = fr.globals if fr.closure is None or name not in fr.closure else fr.closure  # (closures.py)
        if name in scope:
            v = scope[name]
            return v if type(v) is not LazyImport else self.resolve_import(scope, name, v)
        if name in BUILTINS:
            return BuiltinFn(name)
        return UnknownV(f"undefined name {name}")

    def e_Attribute(self, node: ast.Attribute, fr) -> Value:
        return self.attribute(self._read_as_tensor(node.value, fr, node.attr), node.attr, node, fr)

    def _read_as_tensor(self, node, fr, attr: str) -> Value:
        """The value of `node`, whose attribute is read. `input_ids.size()` outside a test of
        it: None has no such attribute, so the path that gets on has the optional tensor given
        (controlflow._if_optional), or the object that may be None (maybe_none.read_through)."""
        obj = self.eval(node, fr)
        if isinstance(obj, TensorV) and obj.optional and isinstance(node, ast.Name) and not fr.expr_arms \
                and fr.env.get(node.id) is obj:
            obj = fr.env[node.id] = obj.given()
        got = read_through(obj, attr)
        if got is not obj and isinstance(node, ast.Name) and not fr.expr_arms and fr.env.get(node.id) is obj:
            fr.env[node.id] = got
        return got

    def attribute(self, obj: Value, name: str, node: Optional[ast.AST], fr) -> Value:
        if isinstance(obj, ModuleNS):
            v = obj.attrs.get(name, UnknownV(f"{name}"))
            return v if type(v) is not LazyImport else self.resolve_import(obj.attrs, name, v)
        if isinstance(obj, ExtRef):
            path = f"{obj.path}.{name}"
            if obj.path == "torch" and name in DTYPES:
                return DtypeV(DTYPES[name])
            return classvalues.class_attr(obj, name) or math_constant(path) or ExtRef(path)
        if isinstance(obj, TensorV):
            if name == "shape":
                return self.call_rule("Tensor.size", [obj], {}, fr, node, "size")
            if name == "ndim":
                return self.call_rule("Tensor.dim", [obj], {}, fr, node, "dim")
            if name == "dtype":
                return DtypeV(obj.dtype) if obj.dtype else UnknownV("dtype")
            if name in TENSOR_ATTR_RULES:
                return self.call_rule(TENSOR_ATTR_RULES[name], [obj], {}, fr, node, f".{name}")
            if name in ("data", "grad", "real"):
                return TensorV(obj.shape, obj.dtype, obj.origin)
            if name in ("device", "is_cuda", "requires_grad", "layout"):
                return UnknownV(name)
            return TensorMethod(obj, name)
        if isinstance(obj, InstanceObj):
            if name in obj.attrs:
                return many_items.read(obj, name, node, fr)
            v = obj.cls.lookup(name)
            if obj.unwritten:  # (a base's constructor that was cut off may have set it)
                v = unfinished.unwritten(obj, name, v)
            if isinstance(v, FuncObj):
                if decorated(v.node, "property"):
                    return self.call_function(v, [obj], {}, fr, span_of(node) if node else None)
                if decorated(v.node, "staticmethod"):
                    return v
                return BoundMethod(v, obj.cls if decorated(v.node, "classmethod") else obj)
            if v is not None:
                return v
            if obj.base_layer is not None:  # what the torch layer it subclasses holds
                return self.attribute(obj.base_layer, name, node, fr)
            got = unnamed_modules.read(obj, name) if obj.cls.is_module() else None
            if got is not None:  # (registered under a name not known: that site's modules)
                return got
            if obj.cls.is_module() or name in ("append", "extend") or records.reads_items(obj, name):
                return BoundOp(obj, name)
            return UnknownV(f"no attribute {name}") if absent_attrs.absent(obj, name) \
                else OpaqueV(f"{self._opaque_name(obj)}.{name}")  # (absent: `getattr`'s default)
        if isinstance(obj, ModuleV):
            if name in ("weight", "bias"):  # the parameter, not the `bias=True` it was built with
                return self.module_param(obj, name, fr, node)
            if name in obj.cfg:
                return layercfg.config_attr(obj, name)
            if obj.names and obj.children is not None and name in obj.names:
                # ModuleDict / Sequential(OrderedDict) children are attributes too (nanoGPT's
                # `self.transformer.wte`)
                return obj.children[obj.names.index(name)]
            return BoundOp(obj, name)
        if isinstance(obj, OpaqueV):
            return OpaqueV(f"{obj.path}.{name}")
        if isinstance(obj, ClassObj):
            v = obj.lookup(name)
            if isinstance(v, FuncObj) and v.node is not None and decorated(v.node, "classmethod"):
                return BoundMethod(v, obj)  # (`Weights.verify(w)`: `cls` is the class read from)
            return v if v is not None else classvalues.class_attr(obj, name) or UnknownV(f"{obj.name}.{name}")
        if isinstance(obj, SuperV):
            for base in obj.cls.bases:
                if isinstance(base, ClassObj):
                    v = base.lookup(name)
                    if isinstance(v, FuncObj):
                        return BoundMethod(v, obj.self_obj)
            return BoundOp(obj, name)
        if isinstance(obj, TupleV) and len(obj.items) == 2 and name in ("values", "indices"):
            # the (values, indices) named tuples of max/min/topk/sort/median/mode/kthvalue
            return obj.items[0 if name == "values" else 1]
        if isinstance(obj, (ListV, DictV, TupleV, StrV)):
            return BoundOp(obj, name)
        list_choices.written(obj)  # (`proj.append(x)`, `kw.update(...)` on a choice of containers)
        if isinstance(obj, ChoiceV):  # what every option holds (a method: one of theirs)
            vals = [self.attribute(o, name, node, fr) for o in obj.options]
            return class_params.named_attr(obj, name, vals) or self.join_values(vals)
        return sized_method(obj, name, self.fresh_star) or classvalues.other_attr(obj, name)

    def _opaque_name(self, obj: InstanceObj) -> str:
        # (`config.dim` of a `config: PretrainedConfig` whose class does not set `dim`: as the
        # attributes its class sets are named, defaults.py, so a reader binds it to the argument)
        return obj.held_by or obj.cls.name[:1].lower() + obj.cls.name[1:]

    def e_Subscript(self, node: ast.Subscript, fr) -> Value:
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape" or _sizes_call(node.value):
            # `x.shape[1]` on a tensor of unknown rank: that one dimension (its rank stays open);
            # `x.shape[:-1]`, `x.size()[:-1]`: the sizes around its unknown segment (sizes.py)
            base = self._read_as_tensor(node.value.value if isinstance(node.value, ast.Attribute) else node.value.func.value, fr,
                                       "shape")
            if isinstance(node.slice, ast.Slice):  # (`out.shape[:-2]` of a kernel's result: unknown_receivers.py)
                base = sliced_sizes_of_lost(base, self.fresh_star) or base
            if isinstance(base, TensorV) and self.resolve(base).rank is None:
                idx = self.eval(node.slice, fr)
                if isinstance(idx, IntV) and idx.expr.value is not None:
                    return self.call_rule("Tensor.size", [base, idx], {}, fr, node, "shape")
                for i in sizes.last_axes(self.resolve(base), idx):
                    # (`x.shape[:-1]` of `[*x]`: its last axis read first, so that it is one of its own)
                    self.call_rule("Tensor.size", [base, IntV(Expr.const(i))], {}, fr, node, "shape")
                got = sizes.read_slice(self.resolve(base), idx, self.sides_shared, self.view_base)
                if got is not None:
                    return got
        obj = self.eval(node.value, fr)
        if type(obj) is ExtRef and is_shape_type(obj.path):
            return ShapeAliasV(node, fr.globals)  # `Batch = Float[Tensor, "B T C"]`, read where used
        idx = self.eval(node.slice, fr)
        if type(obj) is ExtRef and obj.path in UNION_PATHS:  # (an alias a parameter's hint may name: hints.py)
            return UnionAliasV("subscript", members=alias_members(node, obj.path))
        return self.subscript(obj, idx, node, fr)

    def subscript(self, obj: Value, idx: Value, node, fr) -> Value:
        if isinstance(obj, TensorV):
            return self.call_rule("Tensor.__getitem__", [obj, idx], {}, fr, node, "indexing")
        if isinstance(obj, open_tuples.OpenTupleV):
            return open_tuples.item(obj, idx)
        if isinstance(obj, tuple_or_output.TupleOrOutputV):
            return tuple_or_output.item(obj, idx, lambda o, i: self.subscript(o, i, node, fr), self.join_values)
        if isinstance(obj, StarSizeV):
            # `input_shape[1]` of `input_shape = x.size()`: as `x.shape[1]` (the segment is the
            # tensor's, learned by its name)
            probe = TensorV(obj.shape)
            if isinstance(idx, IntV) and idx.expr.value is not None:
                return self.call_rule("Tensor.size", [probe, idx], {}, fr, node, "shape")
            return sizes.sliced(self.resolve(probe), idx) or sizes.open_slice(idx, self.fresh_star)
        if isinstance(obj, ModuleV) and obj.children is None and obj.elem is not None:
            return obj.elem if isinstance(idx, IntV) else layer_tails.plain(obj) if isinstance(idx, SliceV) else \
                UnknownV("subscript")
        if isinstance(obj, ModuleV) and obj.children is not None:
            obj = ListV(list(obj.children)) if not (obj.names and isinstance(idx, StrV)) else \
                DictV(dict(zip(obj.names, obj.children)))
        if known(obj) is not None:
            return str_item(obj.value, idx) or UnknownV("subscript")
        if isinstance(obj, (TupleV, ListV)) and obj.items is not None:
            if isinstance(idx, IntV) and idx.expr.value is not None:
                i = idx.expr.value
                if -len(obj.items) <= i < len(obj.items):
                    return obj.items[i]
                return UnknownV("index out of range")
            if isinstance(idx, SliceV):
                parts = [None if p is None or isinstance(p, NoneV) else
                         (p.expr.value if isinstance(p, IntV) else "?") for p in (idx.start, idx.stop, idx.step)]
                if "?" not in parts and None not in [p for p in parts if p is not None]:
                    items = obj.items[slice(*parts)]
                    return TupleV(tuple(items), obj.is_size) if isinstance(obj, TupleV) else ListV(list(items))
            if isinstance(obj, ListV) and obj.items:  # a slice at bounds not known: a list of any of them
                joined = self.join_values(obj.items)
                return ListV(None, joined) if isinstance(idx, SliceV) else joined
            return UnknownV("subscript")
        if isinstance(obj, ListV) and obj.items is None and obj.name is not None and \
                isinstance(idx, IntV) and idx.expr.value is not None:
            return OpaqueV(f"{obj.name}[{idx.expr.value}]")  # `window_size[0]` of `window_size: List[int]`
        if isinstance(obj, OpaqueV) and obj.kind != "int" and isinstance(idx, IntV) and idx.expr.value is not None:
            return OpaqueV(f"{obj.path}[{idx.expr.value}]")  # named as its attributes are: `config.sizes[0]`
        if isinstance(obj, ListV) and obj.elem is not None:
            # a slice of a list of unknown length is such a list (`list(range(n))[::-1]`), not an item
            return ListV(None, obj.elem) if isinstance(idx, SliceV) else first_items.item(obj, idx) or own_entries.entry(self.interp, obj, idx, node, fr) or many_items.item(obj.elem, self.mutated)
        if isinstance(obj, DictV) and isinstance(idx, StrV) and idx.value in obj.items:
            return obj.items[idx.value]
        if isinstance(obj, InstanceObj):  # an output object's fields, a table's entries
            return records.item(self.interp, obj, idx, node, fr, self.subscript)
        if isinstance(obj, DictV) and (not isinstance(idx, (StrV, IntV)) or isinstance(idx, StrV) and idx.value is None):
            picked = registry_choice(obj)  # a registry of layers or functions: one of them
            if picked is not None:
                return picked
            self._escaped_items(obj, fr)
        return operands.configured_item(obj, idx, node, self.interp.fresh_symbol) or replaced_default_item(obj, idx) or UnknownV("subscript")

    def _escaped_items(self, d: DictV, fr) -> None:
        """`batched[key]` with a key not known may be any item, which the code may then fill
        (`batched[key].append(t)`): the lists and dicts among the items are no longer known —
        never the empty ones they started as. A list or dict of constants only (a table of
        configurations: `cfgs = {"A": [64, "M", 128]}`) is read, not filled: it stays known, else
        one function reading it by a key not known (a factory's generic analysis) would make it
        unknown for every context that reads it by a known key."""
        changed = {k: (ListV(None, UnknownV("item")) if isinstance(v, ListV) else DictV({}, open=True))
                   for k, v in d.items.items() if isinstance(v, (ListV, DictV)) and not _constant_table(v)}
        if changed:
            self.mutated(d)
            d.items.update(changed)

    # ---- operators ------------------------------------------------------------
    def e_BinOp(self, node: ast.BinOp, fr) -> Value:
        a, b = self.eval(node.left, fr), self.eval(node.right, fr)
        return self.binop(type(node.op), a, b, node, fr)

    def binop(self, op, a: Value, b: Value, node, fr) -> Value:
        name = BINOP_METHODS.get(op)
        if isinstance(a, NumberOrTensor) or isinstance(b, NumberOrTensor):
            return number_or_tensor.binop(self.interp, op, a, b, node, fr)
        if isinstance(a, TensorV) or isinstance(b, TensorV):
            a, b = operands.tensor_operands(a, b, self.opaque_symbol)
            if name is None:
                return UnknownV("tensor operator")
            if isinstance(a, TensorV):
                return self.call_rule(f"Tensor.__{name}__", [a, b], {}, fr, node, _opsym(op))
            return self.call_rule(f"Tensor.__r{name}__", [b, a], {}, fr, node, _opsym(op))
        if isinstance(a, (IntV, BoolV)) and isinstance(b, (IntV, BoolV)):
            x, y = self._int(a), self._int(b)
            if x is not None and y is not None:
                if y.value == 0 and op in _DIVISIONS:
                    self.check_divisor(b, node, fr)
                return _tracked(int_binop(op, x, y))
        if isinstance(a, (IntV, OpaqueV)) and isinstance(b, (IntV, OpaqueV)):
            x, y = self.int_value(a), self.int_value(b)
            if x is not None and y is not None:
                return _tracked(int_binop(op, x, y))
        if FloatV in (type(a), type(b)) and isinstance(a, (IntV, FloatV, OpaqueV)) and isinstance(b, (IntV, FloatV, OpaqueV)):
            return float_binop(op, a, b, self.int_value)  # `planes * 0.25`, the int a parameter's symbol
        joined = sequence_binop(op, a, b, self.join_values, self._size_int)
        if joined is not None:
            return joined
        if isinstance(a, StrV) and a.value is not None and op in (ast.Mod, ast.Add):
            # `"layer%d" % (i + 1)`, `"block" + name`: Python's own, on known values
            vals = [python_value(v) for v in (b.items if isinstance(b, TupleV) and op is ast.Mod else (b,))]
            if None not in vals:
                try:
                    return StrV(a.value % tuple(vals) if op is ast.Mod else a.value + vals[0])
                except (TypeError, ValueError):
                    pass
        if isinstance(a, StrV) or isinstance(b, StrV):
            return StrV(None)
        return UnknownV("binop")

    def _int(self, v: Value) -> Optional[Expr]:
        if isinstance(v, IntV):
            return v.expr
        if isinstance(v, BoolV) and v.pred is not None and (v.pred.is_true or v.pred.is_false):
            return Expr.const(int(v.pred.is_true))
        return None

    def int_value(self, v: Value) -> Optional[Expr]:
        if isinstance(v, IntV):
            return v.expr
        if isinstance(v, OpaqueV):
            return self.opaque_symbol(v)
        return self._int(v)

    def e_UnaryOp(self, node: ast.UnaryOp, fr) -> Value:
        v = self.eval(node.operand, fr)
        if isinstance(node.op, ast.Not):
            return negated(v, self.truth(v))
        if isinstance(v, TensorV):
            if isinstance(node.op, ast.USub):
                return self.call_rule("Tensor.neg", [v], {}, fr, node, "-")
            if isinstance(node.op, ast.Invert):
                return self.call_rule("Tensor.logical_not", [v], {}, fr, node, "~")
            return v
        e = self.int_value(v)
        if e is not None and isinstance(node.op, ast.USub):
            return IntV(-e)
        if e is not None and isinstance(node.op, ast.UAdd):
            return IntV(e)
        if isinstance(v, FloatV):
            return FloatV(-v.value if v.value is not None and isinstance(node.op, ast.USub) else v.value)
        return UnknownV("unary")

    def e_IfExp(self, node: ast.IfExp, fr) -> Value:
        omitted = optional_exprs.omitted_none(self, node, fr)
        if omitted is not None:
            return omitted
        v = self.eval(node.test, fr)
        self.note_omitted(fr, v)
        p = self.truth(v)
        decided = fr.facts.decide(p) if p is not None else None
        if decided is not None:
            arm = node.body if decided else node.orelse
            return optional_args.given_or_default(self.interp, node, arm, self.eval(arm, fr), fr, self.join_values)
        # undecided: each arm under its condition, as the arms of an `if` (controlflow._if): what
        # one arm requires (`x[5] if x.shape[0] > 5 else x[0]`) must not hold after it
        origin = (span_of(node.test), f"condition on line {node.lineno}")
        mark = self.open_arm()
        fr.expr_arms += 1
        try:
            off = off_default_arm(v)
            v1, died1 = self.in_arm(fr, (p,), origin, lambda: narrowed(node.test, True, fr, lambda: self.eval(node.body, fr), False, self.mutated),
                                    off is True)
            learned1 = self.close_arm(mark)
            mark = self.open_arm()
            v2, died2 = self.in_arm(fr, (None if p is None else neg(p),), origin,
                                    lambda: narrowed(node.test, False, fr, lambda: self.eval(node.orelse, fr), False, self.mutated), off is False)
        finally:
            fr.expr_arms -= 1
        self.join_arms([(learned1, not died1), (self.close_arm(mark), not died2)])
        fr.dead = fr.dead or (died1 and died2)
        picked = selection.selected_join(p, v1, v2, self.int_value) or linked_choices.linked(self, fr, node, v1, v2)  # (`r if r <= w else w`: min(r, w))
        return picked if picked is not None else conditioned(flag_join(self.join_values, v1, v2, off_default_arm(v)), v1, v2, p)

    # ---- displays ---------------------------------------------------------------
    def _items(self, elts, fr) -> Optional[list]:
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                v = self.eval(e.value, fr)
                if isinstance(v, (TupleV, ListV)) and v.items is not None:
                    out.extend(v.items)
                elif isinstance(v, StarSizeV):
                    out.append(v)  # (e_Tuple makes the sizes around its segment)
                else:
                    return None
            else:
                out.append(self.eval(e, fr))
        return out

    def e_Tuple(self, node: ast.Tuple, fr) -> Value:
        items = self._items(node.elts, fr)
        if items is not None and any(isinstance(v, StarSizeV) for v in items):
            return sizes.displayed(items, self._size_int) or UnknownV("tuple")  # `(*input_shape, -1, d)`
        return TupleV(tuple(items)) if items is not None else UnknownV("tuple")

    def _size_int(self, v: Value):
        """An item of a size: its int (a number, or a name that stands for one), else None."""
        return self.int_value(v) if isinstance(v, (IntV, OpaqueV)) else operands.size_of(v)

    def e_List(self, node: ast.List, fr) -> Value:
        items = self._items(node.elts, fr)
        if items is not None and any(isinstance(v, StarSizeV) for v in items):
            return ListV(None)
        return ListV(items) if items is not None else ListV(None)

    def e_Set(self, node, fr) -> Value:
        return classvalues.set_of(self._items(node.elts, fr))

    def e_Dict(self, node: ast.Dict, fr) -> Value:
        out, is_open = {}, False
        for k, v in zip(node.keys, node.values):
            kv = self.eval(k, fr) if k is not None else None
            vv = self.eval(v, fr)
            if k is None and isinstance(vv, DictV):  # {**defaults, "dim": 64}
                out.update(vv.items)
                is_open = sized_kwargs.wider(is_open, vv.open)
            elif isinstance(kv, StrV) and kv.value is not None:
                out[kv.value] = vv
            else:  # a key the analysis does not know
                is_open = True
        return DictV(out, open=is_open)

    def e_Slice(self, node: ast.Slice, fr) -> Value:
        return SliceV(*(self.eval(p, fr) if p is not None else None for p in (node.lower, node.upper, node.step)))

    def e_Starred(self, node: ast.Starred, fr) -> Value:
        return self.eval(node.value, fr)

    def e_JoinedStr(self, node, fr) -> Value:
        return formatted(node, lambda e: python_value(self.eval(e, fr)))

    def e_Lambda(self, node, fr) -> Value:
        # a function whose body returns the expression (`map(lambda t: rearrange(t, ...), qkv)`);
        # the names it reads from the enclosing function (`self`) are taken as they are now
        fn = getattr(node, "_sh_function", None)
        if fn is None:  # (trees are never changed: made once per lambda)
            ret = ast.copy_location(ast.Return(node.body), node.body)
            fn = ast.copy_location(ast.FunctionDef("<lambda>", node.args, [ret], [], None, None), node)
            fn.end_lineno, fn.end_col_offset = node.end_lineno, node.end_col_offset
            node._sh_function = fn
        f = FuncObj(fn, f"{fr.qualname}.<locals>.<lambda>", {**fr.globals, **fr.env}, module_path=fr.foreign or self.interp.path)
        f.defaults = self.eval_defaults(fn, fr)
        return f

    def e_NamedExpr(self, node: ast.NamedExpr, fr) -> Value:
        v = self.eval(node.value, fr)
        self.assign(node.target, v, fr, node)
        return v


def _sizes_call(node: ast.AST) -> bool:
    """`x.size()` of a name: its sizes, subscripted as `x.shape` is (a name only: the receiver
    is evaluated again when it is not a tensor of unknown rank)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
        and isinstance(node.func.value, ast.Name) and not node.args and not node.keywords




def _opsym(op) -> str:
    return {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
            ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}.get(op, "?")


# Shape arithmetic stays small (the largest result in the test and benchmark programs has 7
# nodes); integer code that is not about shapes (binary splitting, bignum series) multiplies
# symbolic ints into polynomials of exponential size, which then cost seconds per solver query.
MAX_INT_EXPR_NODES = 64


def _tracked(v: Value) -> Value:
    """An int result too large to be a shape is not tracked."""
    if isinstance(v, IntV) and not v.expr.is_const and expr_nodes(v.expr, MAX_INT_EXPR_NODES) > MAX_INT_EXPR_NODES:
        return UnknownV("integer expression too large")
    return v


_DIVISIONS = (ast.FloorDiv, ast.Mod, ast.Div)


def _constant_table(v) -> bool:
    """A non-empty list or dict whose items are all constants (ints, strings, floats, bools, None)."""
    items = v.items if isinstance(v, ListV) else list(v.items.values()) if not v.open else None
    if not items:
        return False
    return all(isinstance(i, (StrV, FloatV, NoneV)) or isinstance(i, IntV) and i.expr.value is not None
               or isinstance(i, BoolV) and i.pred is not None and (i.pred.is_true or i.pred.is_false)
               for i in items)
