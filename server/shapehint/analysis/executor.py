"""Statements: assignment, `assert`, definitions, imports (control flow: controlflow.py).

`assert` and `torch._check` add facts; one that no admissible input satisfies is SH108.
"""
from __future__ import annotations

import ast
import re
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.values import DefaultStrV, DictV, ExtRef, IntV, ListV, ModuleV, NoneV, StarSizeV, StrV, TensorV, TupleV, UnknownV, Value
from .objects import BoundOp, ClassObj, FuncObj, InstanceObj, LazyImport, OpaqueV, OpenTupleV
from .result import Related
from .frames import Frame, add_fact, span_of
from .divisibility import learn as learn_divisible
from .builtins import falsy_literal
from .library_helpers import CHECKS
from .optional_args import taken_default
from . import list_choices, many_items, private_dicts, properties, rebound_globals, returns
from .optional_imports import absent
from .closures import enclosing_scope
from .open_tuples import unpacked
from .shape_slices import unpacked_slice
from ..ops.registry import library_roots
from ..frontend.params import defaulted

_INDEXED = re.compile(r"^[A-Za-z_]\w*\[-?\d+\]$")  # `window_size[0]` of a `List[int]` parameter




IN_PLACE = {ast.Add: "__iadd__", ast.Sub: "__isub__", ast.Mult: "__imul__", ast.Div: "__itruediv__"}


class Statements:
    """Simple statements, assignments, definitions and imports (`s_<node class>`; the
    interpreter dispatches and counts the steps, `Interp.exec_stmt`). A component of the
    interpreter: what it calls on the other parts is bound when the interpreter wires it; the
    module being run (`path`, `functions`, `classes`: an import swaps them) is read from it."""

    _USES = ("interp", "eval", "exec_stmt", "source", "_learn_guarded_ranks", "_learn_unpack_rank", "_unpack_sizes", "annotation_shape", "binop",
             "bound_op", "call_function", "call_rule", "check_declared", "check_return", "check_unpack", "check_shape_comment", "e_Name", "function_named", "implied", "import_module", "iterate", "resolve_import",
             "join_values", "mutated", "new_store", "report", "reporter", "resolve", "env", "observe", "sink",
             "span_log")

    # ---- simple statements --------------------------------------------------------
    def s_Expr(self, st: ast.Expr, fr):
        if self._raises_on_purpose(st.value, fr):
            return "raise"
        self.eval(st.value, fr)

    def _raises(self, st: ast.stmt, fr) -> bool:
        """`raise ...`, `assert False, ...`, `torch._assert(False, ...)`."""
        return isinstance(st, ast.Raise) or isinstance(st, ast.Assert) and falsy_literal(st.test) or \
            isinstance(st, ast.Expr) and self._raises_on_purpose(st.value, fr)

    def _raises_on_purpose(self, node, fr) -> bool:
        """`torch._assert(False, "targets should not be none")`: the code's way to raise, not a
        claim about shapes (no SH108); the flow ends there, as at a `raise`."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
            return False
        func = self._safe_eval(node.func, fr)
        k = CHECKS.get(func.path) if isinstance(func, ExtRef) else None
        return k is not None and len(node.args) > k and falsy_literal(node.args[k])

    def s_Global(self, st: ast.Global, fr):
        fr.declared = fr.declared | frozenset(st.names)

    def s_Nonlocal(self, st: ast.Nonlocal, fr):
        fr.nonlocals = fr.nonlocals | frozenset(st.names)

    def s_Pass(self, st, fr):
        return None

    def s_Delete(self, st: ast.Delete, fr):
        """`del xs[i]`: the list loses an item, so neither its items nor its length are known."""
        for t in st.targets:
            obj = self._safe_eval(t.value, fr) if isinstance(t, ast.Subscript) else None
            list_choices.written(obj)
            if isinstance(obj, DictV):  # `del kw[k]`: the dict loses that key, or any one
                self.mutated(obj)
                key = self._safe_eval(t.slice, fr)
                if isinstance(key, StrV) and key.value is not None and not obj.open:
                    obj.items.pop(key.value, None)
                else:
                    obj.items.clear()  # (its keys, which may be any: an open dict's)
                    obj.open = True
            if isinstance(obj, ListV):
                self.mutated(obj)
                obj.elem = self.join_values(obj.items) if obj.items else obj.elem
                obj.items, obj.length = None, None
        return None

    def s_Break(self, st, fr):
        return "break"

    def s_Continue(self, st, fr):
        return "continue"

    def s_Raise(self, st, fr):
        return "raise"

    def s_Return(self, st: ast.Return, fr):
        v = self.eval(st.value, fr) if st.value is not None else NoneV()
        if fr.declared_return is not None:  # (contracts.py: every path's result is checked)
            v = self.check_return(v, fr.declared_return, st, fr)
        returns.note(fr, v)
        fr.returns.append(v)
        return "return"

    def s_Assign(self, st: ast.Assign, fr):
        for t in st.targets:
            if type(t) is not ast.Name:  # (`h, w = x.shape` teaches x's rank; most targets are names)
                self._learn_unpack_rank(t, st.value, fr)
        v = unpacked_slice(st.targets, st.value, self.eval(st.value, fr), lambda n: self.eval(n, fr))
        for t in st.targets:
            self.assign(t, v, fr, st)
        self.check_shape_comment(st, v, fr)

    def s_AugAssign(self, st: ast.AugAssign, fr):
        cur = self.eval(st.target, fr) if not isinstance(st.target, ast.Name) else self.e_Name(st.target, fr)
        layer_list = isinstance(cur, ModuleV) and cur.kind == "torch.nn.ModuleList"
        if isinstance(st.op, ast.Add) and (isinstance(cur, ListV) or layer_list):
            # `layers += [conv, relu]` extends the list (or an `nn.ModuleList`) in place, as `extend`
            # of any iterable: a loop sees it grow (controlflow._loop_once), and every alias with it
            self.bound_op(BoundOp(cur, "extend"), [self.eval(st.value, fr)], {}, fr, span_of(st))
            self.assign(st.target, cur, fr, st)
            return
        other = self.eval(st.value, fr)
        method = IN_PLACE.get(type(st.op))
        if isinstance(cur, TensorV) and method is not None:
            # `out += identity` changes `out` itself: its shape stays whatever `identity` is
            v = self.call_rule(f"Tensor.{method}", [cur, other], {}, fr, st, method)
            v = v if isinstance(v, TensorV) else cur
        else:
            v = self.binop(type(st.op), cur, other, st, fr)
            if isinstance(cur, TensorV) and isinstance(v, UnknownV):
                # `mask *= <not understood>`: in place, so the tensor keeps its shape (or raises)
                v = TensorV(cur.shape, None, cur.origin, cur.contiguous, cur.layout_note)
        self.assign(st.target, v, fr, st)
        self.check_shape_comment(st, v, fr)

    def s_AnnAssign(self, st: ast.AnnAssign, fr):
        if st.value is None:
            return
        v = self.eval(st.value, fr)
        ann = self.annotation_shape(st.annotation, fr)
        if ann is not None:
            v = self.check_declared(v, ann[0], ann[1], st, fr, "the annotation")
        self.sink.annotate(st.lineno)
        self.assign(st.target, v, fr, st)

    def s_Assert(self, st: ast.Assert, fr):
        if falsy_literal(st.test):  # `assert False, "unsupported"`: a raise (see _raises_on_purpose)
            return "raise"
        self._learn_guarded_ranks(st.test, True, fr)  # first: then the test itself pins the dimensions
        self.assume(self.eval(st.test, fr), st, fr, "assert", st.test)

    def assume(self, v: Value, node, fr, what: str, test=None) -> None:
        p = self.implied(v)
        if p is None or p.is_true:
            return
        span = span_of(node)
        possible, core = fr.facts.possible(p)
        if possible is False and (self._on_defaults(test, fr) or fr.assumes_default):
            # it fails for the defaults the generic analysis took, not for every call (or on a
            # path an omitted optional argument chose: callers that pass it go elsewhere)
            return
        if possible is False and self._only_as_a_size(p, fr):
            return
        if possible is False:
            rel = [Related(o[0].line, o[0].col, o[1]) for o in core if o and o[0].line != span.line]
            self.report(fr, span, "SH108", self._assert_message(what, test, p, fr) + self._core_note(core), rel)
            if not fr.caught:
                self.reporter.assertion_failed(fr, span, p)
            return
        add_fact(fr.facts, p, (span, f"{what} on line {span.line}"))
        learn_divisible(self.interp, fr, p, node)

    def _only_as_a_size(self, p, fr) -> bool:
        """`assert self.num_chunks_before == 0` on `config.lsh_num_chunks_before`: a value the
        analysis cannot see is a symbol >= 1 (it is a size nearly everywhere), but when that bound
        is what makes an assertion fail, the value may be any int: no error."""
        opaque = p.symbols() & self.env.opaque_names
        if not opaque:
            return False
        relaxed = self.new_store()  # (the analysis's limits and Z3 session: a cancel stops it too)
        relaxed.lower, relaxed.upper = dict(fr.facts.lower), dict(fr.facts.upper)
        for name in opaque:
            relaxed.lower[name] = -(2 ** 31)
        for f in fr.facts.facts:
            relaxed.add(f.pred, f.origin)
        return relaxed.possible(p, core=False)[0] is not False

    def _on_defaults(self, test, fr) -> bool:
        """Whether `test` reads a parameter at a `None` default that callers may replace
        (`def f(x, arg_types=None): assert arg_types is not None`; optional_args.taken_default):
        callers that give it pass the assertion; an error needs the argument given and omitted
        both to fail. Or a string default callers may replace (values.DefaultStrV): `else: assert
        not pool_type` after a helper's known modes checks a mode, reached only by strings the
        analysis could not rule out; the calls' contexts, binding what they pass, judge it."""
        return test is not None and any(isinstance(n, ast.Name) and (
            taken_default(self.interp, n.id, fr) or isinstance(fr.env.get(n.id), DefaultStrV)) for n in ast.walk(test))

    def _assert_message(self, what: str, test, p, fr) -> str:
        if test is None:
            return f"this {what} fails for every admissible input: {p} is impossible"
        known = []
        for n in ast.walk(test):
            if isinstance(n, ast.Name) and isinstance(fr.env.get(n.id), IntV) and n.id not in [k for k, _ in known]:
                known.append((n.id, fr.env[n.id].expr))
        for n in ast.walk(test):
            if isinstance(n, (ast.Attribute, ast.Call)) and self.source(n).endswith(("shape", ")")) and len(known) < 4:
                src = self.source(n)
                val = self._safe_eval(n, fr)
                if isinstance(val, TupleV) and all(isinstance(i, IntV) for i in val.items):
                    known.append((src, "(" + ", ".join(str(i.expr) for i in val.items) + ")"))
                elif isinstance(val, IntV):
                    known.append((src, val.expr))
        vals = ", ".join(f"{k} = {v}" for k, v in known[:4])
        return f"`{what} {ast.unparse(test)}` fails for every admissible input" + (f" ({vals} here)" if vals else "")

    def _core_note(self, core) -> str:
        lines = sorted({o[0].line for o in core if o})
        return f" given line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}" if lines else ""

    # ---- assignment ---------------------------------------------------------------
    def assign(self, target: ast.AST, v: Value, fr, stmt: Optional[ast.AST]) -> None:
        if isinstance(target, ast.Name):
            if isinstance(v, DictV) and not v.open and fr.qualname != "<module>" and private_dicts.is_private(stmt, target.id, fr):
                v.exact = True
            self.shadow(target.id, v, fr)
            if target.id in fr.declared and fr.env is not fr.globals:
                rebound_globals.store(self.interp.journal, fr, target.id)
            elif not (target.id in fr.nonlocals and rebound_globals.store_enclosing(fr, target.id)):
                fr.env[target.id] = v
            if fr.record and self.observe and stmt is not None:
                self.sink.record(span_of(target), target.id, fr.qualname, v, fr.context, fr.is_entry, True,
                                 getattr(fr, "iter_label", ""), fr.params)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(v, StarSizeV) and not any(isinstance(e, ast.Starred) for e in target.elts):
                got = self._unpack_sizes(v, len(target.elts), span_of(target))
                v = TupleV(tuple(got), is_size=True) if got is not None else UnknownV("sizes")
            items = self.unpack(v, len(target.elts), fr)
            if not self.check_unpack(target, items, v, getattr(stmt, "value", None), fr):
                items = None
            star = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)), None)
            if items is not None and star is not None:
                n_after = len(target.elts) - star - 1
                items = items[:star] + [ListV(items[star:len(items) - n_after])] + items[len(items) - n_after:]
            if items is None or len(items) != len(target.elts):
                items = [UnknownV("unpack")] * len(target.elts)
            for t, item in zip(target.elts, items):
                self.assign(t.value if isinstance(t, ast.Starred) else t, item, fr, stmt)
                if isinstance(t, ast.Name) and isinstance(item, IntV) and fr.context == "":
                    self.name_symbol(item.expr, t.id, fr)
                elif isinstance(t, ast.Name) and isinstance(item, OpaqueV) and fr.context == "":
                    self.name_symbol(Expr.sym(item.path), t.id, fr)  # `wh, ww = window_size[0], window_size[1]`
            return
        if isinstance(target, ast.Attribute):
            obj = self.eval(target.value, fr)
            put = properties.setter(obj.cls, target.attr) if isinstance(obj, InstanceObj) else None
            if put is not None:  # (none: Python raises)
                if put:
                    self.call_function(put, [obj, v], {}, fr, span_of(target))
                return
            if isinstance(obj, ClassObj) and obj.node is not None:
                rebound_globals.store_class(obj, target.attr)
            if isinstance(obj, InstanceObj):
                self.mutated(obj)
                obj.attrs[target.attr] = many_items.written(obj, target.attr, v, self.join_values, target, fr)
                if isinstance(v, (ModuleV, InstanceObj)) and (v.span is None or fr.foreign == ""):
                    # (where a layer was built, for messages: not a write the call memo minds;
                    # a copied construction keeps the spans it made, Interp.span_log)
                    self.span_log.append((v, v.span))
                    v.span = span_of(target) if not fr.foreign else v.span
                if fr.record and self.observe and stmt is not None and isinstance(v, (TensorV, ModuleV)):
                    self.sink.record(span_of(target), self.source(target), fr.qualname, v, fr.context,
                                     fr.is_entry, False, "", fr.params)
            return
        if isinstance(target, ast.Subscript):
            obj = self.eval(target.value, fr)
            idx = self.eval(target.slice, fr)
            list_choices.written(obj)
            if isinstance(obj, (ListV, DictV)):
                self.mutated(obj)
            if isinstance(obj, ListV) and obj.items is not None and isinstance(idx, IntV) and idx.expr.value is not None:
                i = idx.expr.value
                if -len(obj.items) <= i < len(obj.items):
                    obj.items[i] = v
            elif isinstance(obj, ListV) and obj.items:
                # a write at an index the analysis cannot follow (`self.heads[self.index - 1] = y`,
                # MONAI's deep supervision filling placeholders): any item may now be v
                obj.items, obj.elem = None, self.join_values(obj.items + [v])
            elif isinstance(obj, ListV) and obj.items is None and obj.elem is not None:
                obj.elem = self.join_values([obj.elem, v])  # (a list of unknown length: any item)
            elif isinstance(obj, DictV):
                if isinstance(idx, StrV) and idx.value is not None:
                    obj.items[idx.value] = v
                else:
                    # under a key not known (`layers[f"layer_{i}"]` in a loop): the keys not known
                    # hold `v` or what was put there before, unless it was open to anything
                    if not obj.open:
                        obj.open, obj.elem = True, v
                    elif obj.elem is not None:
                        obj.elem = self.join_values([obj.elem, v])
            elif isinstance(obj, TensorV):
                self.call_rule("Tensor.__setitem__", [obj, idx, v], {}, fr, target, "indexed assignment")

    def unpack(self, v: Value, n: int, fr) -> Optional[list]:
        if isinstance(v, (TupleV, ListV)) and v.items is not None:
            return list(v.items)
        if isinstance(v, ModuleV) and v.children is not None:
            return list(v.children)
        if isinstance(v, OpenTupleV):
            return unpacked(v, n)
        if isinstance(v, ListV) and v.items is None and v.if_length is not None and v.if_length[0] == n:
            return list(v.if_length[1])  # (only the paths where it had n items get past this)
        items = self.iterate(v, fr)
        return items

    def shadow(self, name: str, v: Value, fr) -> None:
        """A local named like a symbol this function's shapes may print (`batch, dim, c = x.shape`
        in a method whose layers are built with the constructor's `dim`): printed bare, `2*dim`
        would read as the local, which holds another size. In this function the symbol prints as
        unknown (a missing size is better than a wrong one); the local may take the name. Such an
        entry (`dim -> ?dim`) is for shapes only: texts are not rewritten with it (`shadowing`)."""
        info = self.env.dims.get(name)
        if fr.context or fr.qualname == "<module>" or info is None or info.names_a_local():
            return  # (a name another function's unpacking gave its own symbol is no symbol here)
        if not isinstance(v, (IntV, OpaqueV)) or isinstance(v, IntV) and v.expr == Expr.sym(name) \
                or isinstance(v, OpaqueV) and v.path == name:
            return  # (a tensor named `emb` is not read as a size; `dim = self.dim` is the same size)
        table = self.sink.renames_of(fr.qualname)
        if name not in table and name not in table.values():
            table[name] = f"?{name}"

    def name_symbol(self, e: Expr, name: str, fr) -> None:
        """`B, T, C = x.size()`: the program's names replace default names like `x.shape[0]`."""
        syms = e.symbols()
        # (a run that records nothing, a construction, names nothing: its table is the function's,
        # which a construction context's records are printed in, `forward`'s too, where the local
        # is no name; a construction assuming a sequence's length unpacks `enumerate` of its items)
        if len(syms) != 1 or e != Expr.sym(next(iter(syms))) or name == "_" or not fr.record or \
                getattr(fr.context, "construction", False):  # (construction_records.py)
            return
        old = next(iter(syms))
        if ".shape[" in old or old.startswith("?") or _INDEXED.match(old):
            table = self.sink.renames_of(fr.qualname)
            if old not in table and name not in table.values():
                table[old] = name
                info, mine = self.env.dims.get(old), self.env.dims.get(name)
                if info is not None and (mine is None or mine.names_a_local()):
                    # (a symbol of that name, a constructor's `dim`, keeps its own: this local
                    # shadows it here only, `shadow`, and other functions still print it)
                    self.env.dims[name] = type(info)(name, info.origin + f", named `{name}`", info.facts)

    # ---- definitions and imports ---------------------------------------------------------
    def s_FunctionDef(self, st: ast.FunctionDef, fr):
        qual = st.name if fr.qualname == "<module>" else f"{fr.qualname}.<locals>.{st.name}"
        f = FuncObj(st, qual, fr.globals, module_path=fr.foreign or self.interp.path, closure=enclosing_scope(fr))
        f.defaults = self.eval_defaults(st, fr)
        fr.env[st.name] = f
        self.interp.functions.append(f)

    s_AsyncFunctionDef = s_FunctionDef

    def s_ClassDef(self, st: ast.ClassDef, fr):
        bases = [self.eval(b, fr) for b in st.bases]
        qual = st.name if fr.qualname == "<module>" else f"{fr.qualname}.{st.name}"
        is_dc = any(_is_dataclass_deco(d) for d in st.decorator_list)
        cls = ClassObj(st.name, qual, st, bases, {}, is_dataclass=is_dc, module_path=fr.foreign or self.interp.path)
        body_fr = Frame({}, qual, fr.facts, fr.globals, record=False)
        for item in st.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                f = FuncObj(item, f"{qual}.{item.name}", fr.globals, cls, module_path=fr.foreign or self.interp.path)
                f.defaults = self.eval_defaults(item, fr)
                properties.define(cls, f)
                self.interp.functions.append(f)
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                dv = self.eval(item.value, fr) if item.value is not None else None
                if dv is not None and _is_field_call(item.value):
                    dv = self._field_default(item.value, fr)
                cls.fields.append((item.target.id, dv))
                self._note_zero_defaults([dv])  # (a config field's default is one value of many)
                if dv is not None:
                    cls.attrs[item.target.id] = dv
            elif isinstance(item, ast.ClassDef):
                self.s_ClassDef(item, body_fr)
                cls.attrs[item.name] = body_fr.env[item.name]
            else:
                self.exec_stmt(item, body_fr)
                for k, v in body_fr.env.items():
                    cls.attrs.setdefault(k, v)
        fr.env[st.name] = cls
        self.interp.classes.append(cls)

    def _field_default(self, call: ast.Call, fr) -> Optional[Value]:
        for kw in call.keywords:
            if kw.arg == "default":
                return self.eval(kw.value, fr)
        return None

    def eval_defaults(self, st: ast.FunctionDef, fr) -> dict:
        out = {arg.arg: self._safe_eval(d, fr) for arg, d in defaulted(st) if d is not None}
        self._note_zero_defaults(out.values())
        return out

    def _note_zero_defaults(self, values) -> None:
        """The 0s among defaults (and their tuples' items): a division by one is no error (contracts.py)."""
        for v in values:
            items = v.items if isinstance(v, (TupleV, ListV)) and v.items is not None else [v]
            for i in items:
                if isinstance(i, IntV) and i.expr.value == 0:
                    self.interp.zero_defaults.add(id(i))

    def _safe_eval(self, node, fr) -> Value:
        """`node`'s value without recording it (a second look at code that already ran)."""
        rec, fr.record = fr.record, False
        try:
            return self.eval(node, fr)
        finally:
            fr.record = rec

    def s_Import(self, st: ast.Import, fr):
        if any(self._import_fails(a.name, 0, fr) for a in st.names):
            return "raise"
        lazy = self._lazy_imports(fr)
        for alias in st.names:
            # `import a.b` binds `a`; `import a.b as m` binds the submodule
            name = alias.name if alias.asname else alias.name.split(".")[0]
            if lazy:
                fr.env[alias.asname or name] = self.interp.imports.lazy(fr.globals, name, 0, None)
                continue
            if alias.asname is None:
                self.import_module(alias.name, 0, fr.globals)  # (runs the submodule's body, as Python does)
            fr.env[alias.asname or name] = self.import_module(name, 0, fr.globals) or ExtRef(name)

    def s_ImportFrom(self, st: ast.ImportFrom, fr):
        modname, level = st.module or "", st.level or 0
        if self._import_fails(modname, level, fr):
            return "raise"
        if self._lazy_imports(fr) and all(a.name != "*" for a in st.names):
            for alias in st.names:
                fr.env[alias.asname or alias.name] = self.interp.imports.lazy(fr.globals, modname, level, alias.name)
            return
        mod = self.import_module(modname, level, fr.globals)
        for alias in st.names:
            if alias.name == "*":
                if mod is not None and hasattr(mod, "attrs"):
                    fr.env.update(mod.attrs)
                continue
            name = alias.asname or alias.name
            if mod is not None and hasattr(mod, "attrs"):
                got = mod.attrs.get(alias.name)
                if isinstance(got, LazyImport):
                    got = self.resolve_import(mod.attrs, alias.name, got)
                fr.env[name] = got if got is not None else (
                    self.import_module(f"{modname}.{alias.name}", level, fr.globals) or UnknownV(alias.name))
            else:
                fr.env[name] = ExtRef(f"{modname}.{alias.name}" if modname else alias.name)

    def _import_fails(self, name: str, level: int, fr) -> bool:
        """Inside a `try` that catches ImportError, importing a module the analysis' world lacks
        raises (optional_imports.py)."""
        if not fr.imports_may_fail:
            return False
        imports = self.interp.imports
        directory = imports.directory_of(fr.globals) if imports is not None else None
        if not absent(name, level, imports, directory, library_roots()):
            return False
        fr.import_failed = name
        return True

    def _lazy_imports(self, fr) -> bool:
        """Imports at the top level of an imported module are looked up when their names are
        read (imports.py): most of what a package's modules import is never used by the file
        analysed."""
        return bool(fr.foreign) and fr.env is fr.globals and self.interp.imports is not None

def _is_dataclass_deco(d: ast.AST) -> bool:
    node = d.func if isinstance(d, ast.Call) else d
    return (isinstance(node, ast.Name) and node.id == "dataclass") or \
        (isinstance(node, ast.Attribute) and node.attr == "dataclass")


def _is_field_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id == "field") or
        (isinstance(node.func, ast.Attribute) and node.func.attr == "field"))
