"""Calls: operator rules, nn layers and containers, user functions, classes and builtins.

A user function called with actual arguments is analysed in that calling context (its
summary instantiated at the call site): its preconditions constrain the caller's symbols,
its records are kept per context, and errors it proves are reported on the failing line
with the call sites as related locations. Depth is bounded (recursion included).
An unknown external callee yields an unknown value and one SH301 note per callee.
"""
from __future__ import annotations

import ast
import inspect
from typing import Optional

from ..ops import registry
from ..ops.context import NotApplicable, OpFailed
from ..shapes.expr import Expr
from ..shapes.shape import Shape, eq
from ..shapes.values import (DictV, ExtRef, ListV, ModuleV, NoneV, Span, TensorV, TupleV, UnknownV, Value)
from .objects import BoundMethod, BuiltinFn, ClassObj, FuncObj, InstanceObj, PartialV, SuperV
from .evaluator import BoundOp, TensorMethod
from .callmemo import quiet_state
from .opctx import AnalysisContext
from .result import Related
from .frames import MAX_GUESSED_RECURSION, MAX_RECURSIVE_CALLS, Budget, Cancelled, Frame, span_of

CONTAINERS = {"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"}
# in-place methods that change the receiver's shape (the others keep it)
RESHAPING_IN_PLACE = {"unsqueeze_", "squeeze_", "t_", "transpose_", "swapdims_", "swapaxes_", "resize_",
                      "resize_as_", "as_strided_"}
SILENT_EXT = ("torch.no_grad", "torch.manual_seed", "torch.set_grad_enabled", "torch.inference_mode",
              "torch.cuda.", "torch.device", "torch.compile", "torch.jit", "logging.", "warnings.", "print")


class RangeV(Value):
    def __init__(self, start: Expr, stop: Expr, step: Expr):
        self.start, self.stop, self.step = start, stop, step


class CallMixin:
    _open_kwargs = False  # the call being made splats an open `**kwargs` (DictV.open)
    _last_open_defaults: frozenset = frozenset()  # bind_params' parameters left at defaults by one

    def e_Call(self, node: ast.Call, fr) -> Value:
        func = self.eval(node.func, fr)
        labels: dict = {}
        args: list = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.eval(a.value, fr)
                items = self.iterate(v, fr)
                if items is None:
                    if len(node.args) == 1 and isinstance(func, ExtRef) and func.path == "torch.nn.Sequential":
                        # `nn.Sequential(*[Block(d) for _ in range(depth)])`
                        return self.build_container(func.path, [ListV(None, self.loop_element(v, None, fr))], span_of(node))
                    return UnknownV("*args")
                args.extend(items)
            else:
                v = self.eval(a, fr)
                labels[id(v)] = a  # the text only when a message needs it (opctx.label)
                args.append(v)
        kwargs: dict = {}
        open_kwargs = False
        for kw in node.keywords:
            v = self.eval(kw.value, fr)
            if kw.arg is None:
                if isinstance(v, DictV):
                    kwargs.update(v.items)
                    open_kwargs = open_kwargs or v.open
                else:
                    return UnknownV("**kwargs")
            else:
                labels[id(v)] = kw.value
                kwargs[kw.arg] = v
        self._open_kwargs = open_kwargs  # read by bind_params, if the callee is a user function
        try:
            out = self.call_value(func, args, kwargs, fr, span_of(node), node, labels)
        finally:
            self._open_kwargs = False
        if isinstance(func, TensorMethod) and func.name in RESHAPING_IN_PLACE and isinstance(out, TensorV) \
                and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            fr.env[node.func.value.id] = out  # `x.unsqueeze_(0)` changes x itself
        return out

    def call_value(self, fn: Value, args: list, kwargs: dict, fr, span: Optional[Span], node=None,
                   labels: Optional[dict] = None) -> Value:
        if isinstance(fn, TensorMethod):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                labels = dict(labels or {})
                labels.setdefault(id(fn.target), node.func.value)
            return self.call_rule(f"Tensor.{fn.name}", [fn.target] + args, kwargs, fr, node or span,
                                  self._opname(node, f".{fn.name}"), labels)
        if isinstance(fn, ExtRef):
            return self.call_external(fn.path, args, kwargs, fr, span, node, labels)
        if isinstance(fn, ModuleV):
            return self.call_module(fn, args, kwargs, fr, span, node, labels)
        if isinstance(fn, BoundMethod):
            return self.call_function(fn.func, [fn.self_obj] + args, kwargs, fr, span)
        if isinstance(fn, FuncObj):
            return self.call_function(fn, args, kwargs, fr, span)
        if isinstance(fn, ClassObj):
            return self.instantiate(fn, args, kwargs, fr, span)
        if isinstance(fn, InstanceObj):
            like_module = fn.cls.callable_like_a_module() or fn.base_layer is not None
            target = fn.cls.lookup("forward") if like_module else fn.cls.lookup("__call__")
            if target is None and fn.base_layer is not None:  # a torch layer's subclass keeping its forward
                return self.call_value(fn.base_layer, args, kwargs, fr, span, node, labels)
            if isinstance(target, FuncObj):
                out = self.call_function(target, [fn] + args, kwargs, fr, span, created=fn.span)
                if node is not None and fr.record and isinstance(node, ast.Call):
                    self._layer_io(node.func, fn, args, out, fr)
                return out
            if fn.cls.is_sequential() and len(args) == 1 and not kwargs:
                return self._run_sequential(fn, args[0], fr, span, labels)
            return UnknownV("instance call")
        if isinstance(fn, BuiltinFn):
            return self.builtin(fn.name, args, kwargs, fr, span)
        if isinstance(fn, BoundOp):
            return self.bound_op(fn, args, kwargs, fr, span)
        if isinstance(fn, PartialV):
            return self.call_value(fn.func, list(fn.args) + list(args), {**fn.kwargs, **kwargs}, fr, span, node, labels)
        return UnknownV("call")

    def _opname(self, node, default: str) -> str:
        if isinstance(node, ast.Call):
            return self.source(node, 48)
        return default

    # ---- registry rules --------------------------------------------------------
    def call_rule(self, name: str, args: list, kwargs: dict, fr, node, opname: str,
                  labels: Optional[dict] = None, rule=None) -> Value:
        rule = rule or registry.lookup(name)
        span = span_of(node) if isinstance(node, ast.AST) else node
        if rule is None:
            if name.startswith("Tensor.") and not name.startswith("Tensor.__"):
                self.unknown_callee(name, span, fr)
            return self.gave_up(fr, args, kwargs, UnknownV(name))
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, TensorV):
                self.resolve(a)
        cx = AnalysisContext(self, fr, span, opname, labels)
        if not _binds(rule.signature, len(args) + 1, kwargs):
            try:
                rule.signature.bind(cx, *args, **kwargs)
            except TypeError:
                return self.gave_up(fr, args, kwargs, UnknownV(f"{name}: arguments do not match"))
        try:
            out = rule.fn(cx, *args, **kwargs)
        except OpFailed as err:
            self.failed(fr, span, err, self._arg_related(args, kwargs, span))
            return UnknownV("error")
        except NotApplicable:
            return self.gave_up(fr, args, kwargs, UnknownV(name))
        except (Budget, Cancelled, RecursionError):
            raise
        except Exception as exc:  # a rule bug must never fail the analysis
            self.internal_errors.append(f"{name}: {type(exc).__name__}: {exc}")
            return self.gave_up(fr, args, kwargs, UnknownV(name))
        return out if out is not None else UnknownV(name)

    def gave_up(self, fr, args, kwargs, result: Value) -> Value:
        """An operation on tensors whose shapes the analysis could not follow: counted per
        analysis (`Interp.gave_up_in`), since then "no error found" vouches for less."""
        if any(isinstance(a, TensorV) for a in list(args) + list(kwargs.values())):
            self.gave_up_in[fr.root] = self.gave_up_in.get(fr.root, 0) + 1
        return result

    def _arg_related(self, args, kwargs, span) -> list:
        rel = []
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, TensorV) and a.origin is not None and span is not None and a.origin.line != span.line:
                rel.append(Related(a.origin.line, a.origin.col, f"this value gets its shape {a.shape} here"))
            if isinstance(a, ModuleV) and a.span is not None:
                rel.append(Related(a.span.line, a.span.col, f"{getattr(a, 'label', a.describe())} is created here"))
        return rel

    def call_external(self, path: str, args, kwargs, fr, span, node, labels) -> Value:
        special = self.external_special(path, args, kwargs, fr, span, node)
        if special is not None:
            return special
        if path in CONTAINERS:
            return self.build_container(path, args, span)
        rule = registry.lookup(path)
        if rule is None:
            if any(isinstance(a, TensorV) for a in list(args) + list(kwargs.values())) and \
                    not path.startswith(SILENT_EXT):
                self.unknown_callee(path, span, fr)
                return self.gave_up(fr, args, kwargs, UnknownV(path))
            return UnknownV(path)
        if isinstance(rule, registry.ModuleRule):
            return self.build_layer(rule, args, kwargs, fr, span, node, labels)
        return self.call_rule(path, args, kwargs, fr, span, self._opname(node, path.split(".")[-1]), labels, rule)

    def unknown_callee(self, name: str, span, fr) -> None:
        if name in self.sink.unknown_callees or span is None:
            return
        self.sink.unknown_callees.add(name)
        short = name.replace("torch.nn.functional.", "F.")
        self.sink.diag(span, "SH301", f"{short} has no shape rule or summary: its result is unknown")

    # ---- layers ------------------------------------------------------------------
    def build_layer(self, rule, args, kwargs, fr, span, node, labels) -> Value:
        if rule.name in CONTAINERS:
            return self.build_container(rule.name, args, span)
        cx = AnalysisContext(self, fr, span, self._opname(node, rule.name.split(".")[-1]), labels)
        arguments = _arguments(rule.signature, [cx] + list(args), kwargs)
        if arguments is None:
            return UnknownV(f"{rule.name}: arguments do not match")
        cfg = rule.config(arguments)
        try:
            extra = rule.ctor(cx, *args, **kwargs)
        except OpFailed as err:
            self.failed(fr, span, err, [])
            return UnknownV("error")
        except NotApplicable:
            extra = None
        except Exception as exc:
            self.internal_errors.append(f"{rule.name}: {exc}")
            extra = None
        if isinstance(extra, ModuleV):
            return extra
        if isinstance(extra, dict):
            cfg.update(extra)
        m = ModuleV(rule.name, cfg, None)
        m.label = self._opname(node, rule.name.split(".")[-1]).replace("torch.nn.", "nn.")
        return m

    def build_container(self, kind: str, args, span) -> Value:
        children, names, elem, length = [], None, None, None
        if kind == "torch.nn.Sequential" and len(args) == 1 and isinstance(args[0], DictV):
            names, children = list(args[0].items), list(args[0].items.values())
        elif kind == "torch.nn.Sequential" and len(args) == 1 and isinstance(args[0], ListV) and args[0].items is None:
            children, elem, length = None, _layer_elem(args[0].elem), args[0].length
        elif kind == "torch.nn.Sequential":
            children = list(args)
        elif args:
            src = args[0]
            if isinstance(src, DictV):
                names, children = list(src.items), list(src.items.values())
            elif isinstance(src, (ListV, TupleV)) and src.items is not None:
                children = list(src.items)
            else:
                children = None
                elem = _layer_elem(src.elem) if isinstance(src, ListV) and kind != "torch.nn.ModuleDict" else None
                length = src.length if isinstance(src, ListV) and elem is not None else None
        return ModuleV(kind, {}, None, children, names, elem, length if elem is not None else None)

    def call_module(self, m: ModuleV, args, kwargs, fr, span, node, labels) -> Value:
        if m.kind == "torch.nn.Sequential":
            if m.children is None and m.elem is not None and len(args) == 1:
                out = self._repeated(m.elem, args[0], fr, span, labels)
            elif m.children is None or len(args) != 1:
                return UnknownV("Sequential")
            else:
                x = args[0]
                for c in m.children:
                    x = self.call_value(c, [x], {}, fr, span, None, labels)
                    if isinstance(x, UnknownV):
                        break
                out = x
        else:
            rule = registry.lookup(m.kind)
            if not isinstance(rule, registry.ModuleRule) or rule.forward_fn is None:
                return UnknownV(m.kind)
            label = m.label if hasattr(m, "label") else m.describe()
            out = self.call_rule(m.kind, [m] + list(args), kwargs, fr, span, label, labels,
                                 _ForwardRule(rule))
            if isinstance(out, UnknownV) and out.reason == "error":
                pass
        if node is not None and fr.record and isinstance(node, ast.Call):
            self._layer_io(node.func, m, args, out, fr)
        return out

    def _run_sequential(self, inst: InstanceObj, x: Value, fr, span, labels) -> Value:
        """A subclass of nn.Sequential without a forward: its layers in the order registered —
        those given to `super().__init__`, then those assigned or `add_module`d."""
        layers = list(inst.seq or []) + [v for v in inst.attrs.values() if isinstance(v, ModuleV) or
                                         isinstance(v, InstanceObj) and v.cls.is_module()]
        for layer in layers:
            x = self.call_value(layer, [x], {}, fr, span, None, labels)
            if isinstance(x, UnknownV):
                break
        return x

    def _repeated(self, layer: Value, x: Value, fr, span, labels) -> Value:
        """`layer` applied an unknown number of times (a Sequential of them): what one
        application gives when it keeps the shape, else the join with the input, with the
        dimensions they disagree on unknown."""
        out = self.call_value(layer, [x], {}, fr, span, None, labels)
        if not isinstance(out, TensorV) or not isinstance(x, TensorV):
            return out if isinstance(out, UnknownV) else UnknownV("Sequential")
        return self.join_values([x, out], fr.facts)

    def _layer_io(self, func_node, m, args, out, fr) -> None:
        if not self.observe:
            return
        ins = [str(self.resolve(a)) for a in args if isinstance(a, TensorV)]
        if not ins:
            return
        outs = str(self.resolve(out)) if isinstance(out, TensorV) else "?"
        name = self.source(func_node)
        self.sink.record(span_of(func_node), name, fr.qualname, m if isinstance(m, ModuleV) else
                         ModuleV(m.cls.name, {}, getattr(m, "span", None)), fr.context, fr.is_entry, False)
        self.sink.layer_io(span_of(func_node), fr.qualname, name, f"{', '.join(ins)} → {outs}")

    def module_param(self, m: ModuleV, name: str, fr, node) -> Value:
        rule = registry.lookup(m.kind)
        if not isinstance(rule, registry.ModuleRule) or rule.params_fn is None:
            return UnknownV(name)
        cx = AnalysisContext(self, fr, span_of(node) if node is not None else None, m.kind)
        try:
            dims = rule.params_fn(cx, m).get(name)
        except Exception:
            return UnknownV(name)
        if dims is None or any(d is None for d in dims):
            return NoneV() if dims is None else UnknownV(name)
        return TensorV(Shape.of(dims), "float32", m.span, is_param=True)

    # ---- user functions and classes ------------------------------------------------------
    def call_function(self, f: FuncObj, args: list, kwargs: dict, fr, span: Optional[Span],
                      created: Optional[Span] = None) -> Value:
        if fr.depth >= self.max_depth:
            self.cutoffs += 1
            return UnknownV("call depth")
        key = (f.qualname, id(args[0]) if f.cls is not None and args else None)
        running, made = self.active.get(key, (0, 0))
        if running and made >= MAX_RECURSIVE_CALLS:
            self.cutoffs += 1
            return UnknownV("recursion")
        if self.repeats_running_call(f.qualname, args, kwargs):
            self.cutoffs += 1
            return UnknownV("recursion")
        guessed = self.recursion_guessed(f.qualname, fr.facts)
        if guessed is not None and guessed > MAX_GUESSED_RECURSION:
            self.cutoffs += 1
            return UnknownV("recursion")
        if self.observe or self.module_code:  # (callmemo.py)
            return self._run_function(f, args, kwargs, fr, span, created, key, running, made, guessed)
        situation = self._situation(fr)
        hit = self.memo.lookup(self, f, args, kwargs, situation, fr.facts)
        if hit is not None:
            self._open_kwargs = False  # bind_params would have taken it
            if fr.root and fr.root != f.qualname and not (f.module_path and f.module_path != self.path):
                self.called_from.setdefault(f.qualname, set()).add(fr.root)
            fr.dead = fr.dead or hit.dead
            fr.assumes_default = fr.assumes_default or hit.assumes_default
            return self.memo.result_for(hit, args)
        before = quiet_state(self)
        out = self._run_function(f, args, kwargs, fr, span, created, key, running, made, guessed)
        if quiet_state(self) == before:
            self.memo.remember(self, f, args, kwargs, situation, fr.facts, out, self._last_dead, self._last_assumes)
        return out

    def _situation(self, fr) -> tuple:
        """What of the caller's frame changes what a callee does (callmemo.py)."""
        return (fr.depth, fr.root, fr.foreign, fr.record, fr.assumes_default, fr.after_return or bool(fr.returns),
                fr.entry_depth if fr.context else fr.facts.depth, fr.qualname == "<module>", fr.facts.depth,
                self._open_kwargs)

    def _run_function(self, f: FuncObj, args: list, kwargs: dict, fr, span: Optional[Span], created,
                      key, running: int, made: int, guessed) -> Value:
        self._last_dead = self._last_assumes = False
        env = self.bind_params(f, args, kwargs, fr, span)
        if env is None:
            return UnknownV("arguments")
        binding, open_defaults = self._last_binding, self._last_open_defaults
        where = f"line {span.line}" if span else "?"
        caller = fr.qualname
        foreign = f.module_path if f.module_path and f.module_path != self.path else ""
        sub = Frame(env, f.qualname, fr.facts, f.globals, context=f"called from {caller} ({where})",
                    is_entry=(caller == "<module>"), depth=fr.depth + 1, cls=f.cls,
                    self_obj=args[0] if f.cls is not None and args else None,
                    call_sites=fr.call_sites + ([span] if span and not fr.foreign else []),
                    record=fr.record and not foreign, foreign=foreign or fr.foreign,
                    created=fr.created + ([created] if created is not None else []), root=fr.root,
                    assumes_default=fr.assumes_default, after_return=fr.after_return or bool(fr.returns),
                    open_defaults=open_defaults, caught=fr.caught,
                    entry_depth=fr.entry_depth if fr.context else fr.facts.depth)
        if fr.root and fr.root != f.qualname and not foreign:
            self.called_from.setdefault(f.qualname, set()).add(fr.root)
        saved_lines = self.lines
        if foreign:
            self.lines = self.module_lines.get(foreign, self.lines)
        self.active[key] = (running + 1, made + 1 if running else 1)
        calls = self.running_calls.setdefault(f.qualname, [])
        calls.append((fr.facts, fr.facts.depth, guessed is not None, (args, kwargs)))
        try:
            self.exec_block(f.node.body, sub)
        finally:
            while sub.return_marks:  # what held only past an early return (executor._continue_past)
                sub.facts.pop()
                sub.return_marks -= 1
            self.lines = saved_lines
            calls.pop()
            running, made = self.active[key]
            self.active[key] = (running - 1, made if running > 1 else 0)
        if sub.dead:
            fr.dead = True
        if sub.assumes_default:
            fr.assumes_default = True
        self._last_dead, self._last_assumes = sub.dead, sub.assumes_default
        if f.node.returns is not None and not any(isinstance(r, TensorV) for r in sub.returns):
            # a stub (`...` body, a .pyi beside the code, an external signature): its annotated
            # result, with the names the arguments bound
            ann = self.annotation_shape(f.node.returns, fr, f.globals)
            if ann is not None:
                names = {n for n in ann[0].symbols() if not n.startswith("?") and n not in binding}
                extra = {n: self.fresh_symbol(n, span) for n in names}
                return TensorV(ann[0].subs({**binding, **extra}), ann[1], span)
        if not sub.returns:
            return NoneV()
        return sub.returns[0] if len(sub.returns) == 1 else self.join_values(sub.returns)

    def bind_params(self, f: FuncObj, args: list, kwargs: dict, fr, span) -> Optional[dict]:
        open_kwargs, self._open_kwargs = self._open_kwargs, False
        a = f.node.args
        params = [p.arg for p in a.posonlyargs + a.args]
        env: dict = {}
        for name, v in zip(params, args):
            env[name] = v
        if a.vararg is not None:
            env[a.vararg.arg] = TupleV(tuple(args[len(params):]))
        extra_kw = {}
        for k, v in kwargs.items():
            if k in params or k in [p.arg for p in a.kwonlyargs]:
                env[k] = v
            else:
                extra_kw[k] = v
        if a.kwarg is not None:
            env[a.kwarg.arg] = DictV(extra_kw)
        open_defaults = set()
        for p in params + [p.arg for p in a.kwonlyargs]:
            if p not in env:
                env[p] = f.defaults.get(p, UnknownV(f"missing {p}"))
                if open_kwargs and p in f.defaults:
                    open_defaults.add(p)  # the caller's `**kwargs` may hold it
        if a.kwarg is not None and open_kwargs:
            env[a.kwarg.arg].open = True
        self._last_open_defaults = frozenset(open_defaults)
        binding: dict = {}
        for p in a.posonlyargs + a.args + a.kwonlyargs:
            if p.annotation is not None and isinstance(env.get(p.arg), TensorV):
                self.unify_annotation(env[p.arg], p, f, env, fr, span, binding)
        self._last_binding = binding
        return env

    def unify_annotation(self, t: TensorV, p: ast.arg, f: FuncObj, env: dict, fr, span, binding=None) -> None:
        """An annotated parameter receiving an actual tensor: its names bind to the actual dims
        (one binding for all the parameters of a call: jaxtyping names are shared)."""
        ann = self.annotation_shape(p.annotation, fr, f.globals)
        if ann is None:
            return
        shape = ann[0]
        actual = self.resolve(t)
        if shape.rank is None or actual.rank is None:
            return
        if shape.rank != actual.rank:
            self.report(fr, span, "SH102", f"{f.qualname} expects `{p.arg}` of rank {shape.rank} {shape}, "
                        f"but it gets {actual}", [Related(p.lineno, p.col_offset, "annotated here")])
            return
        binding = binding if binding is not None else {}
        for want, got in zip(shape.dims, actual.dims):
            syms = want.symbols()
            if len(syms) == 1 and want == Expr.sym(next(iter(syms))) and not next(iter(syms)).startswith("?"):
                name = next(iter(syms))
                if name not in binding:
                    binding[name] = got
                    continue
                want = binding[name]
            elif any(s.startswith("?") for s in syms):
                continue
            want = want.subs(binding)
            possible, _ = fr.facts.possible(eq(want, got))
            if possible is False:
                self.report(fr, span, "SH101", f"{f.qualname} expects `{p.arg}` to be {shape.subs(binding)}, "
                            f"but it gets {actual}", [Related(p.lineno, p.col_offset, "annotated here")])
                return
            if possible:
                fr.facts.add(eq(want, got), (span, f"argument `{p.arg}` of {f.qualname}"))

    def instantiate(self, cls: ClassObj, args, kwargs, fr, span) -> Value:
        inst = InstanceObj(cls, {}, span)
        if cls.is_dataclass and cls.lookup("__init__") is None:
            names = [n for n, _ in cls.fields]
            for n, d in cls.fields:
                if d is not None:
                    inst.attrs[n] = d
            for n, v in zip(names, args):
                inst.attrs[n] = v
            for k, v in kwargs.items():
                inst.attrs[k] = v
            post = cls.lookup("__post_init__")
            if isinstance(post, FuncObj):
                self.call_function(post, [inst], {}, fr, span)
            return inst
        init = cls.lookup("__init__")
        if isinstance(init, FuncObj):
            if self.observe or self.module_code:  # (callmemo.py)
                self.call_function(init, [inst] + list(args), kwargs, fr, span)
                return inst
            return self._construct(cls, init, inst, args, kwargs, fr, span)
        elif init is None:  # `class Head(nn.Linear): pass`: the torch layer's own __init__
            self.bound_op(BoundOp(SuperV(cls, inst), "__init__"), list(args), kwargs, fr, span)
        return inst


    def _construct(self, cls: ClassObj, init: FuncObj, inst: InstanceObj, args, kwargs, fr, span) -> Value:
        """`cls(*args, **kwargs)`, or a copy of an earlier alike construction (callmemo.py)."""
        situation = self._situation(fr)
        built = self.memo.lookup_built(self, cls, args, kwargs, situation, fr.facts, span)
        if built is not None:
            self._open_kwargs = False  # bind_params would have taken it
            return built
        first, log_start, before = inst.born, len(self.mutation_log), quiet_state(self, writes=False)
        self._last_dead = self._last_assumes = False
        self.call_function(init, [inst] + list(args), kwargs, fr, span)
        if quiet_state(self, writes=False) == before and not self._last_dead and not self._last_assumes:
            self.memo.remember_built(self, cls, args, kwargs, situation, fr.facts, inst, first, log_start)
        return inst


class _ForwardRule:
    """Adapts a layer's forward function to the rule calling convention."""

    def __init__(self, rule):
        self.fn = rule.forward_fn
        self.signature = _signature(rule.forward_fn)


_SIGNATURES: dict = {}


def _signature(fn):
    """`inspect.signature` costs tens of microseconds: once per rule function."""
    sig = _SIGNATURES.get(fn)
    if sig is None:
        sig = _SIGNATURES[fn] = inspect.signature(fn)
    return sig


_SHAPES: dict = {}


def _binds(sig, npos: int, kwargs: dict) -> bool:
    """True when `sig.bind` would accept `npos` positional arguments and `kwargs` (the rule is
    then called directly: `inspect`'s binder is slow); False when unsure — the caller binds."""
    got = _SHAPES.get(id(sig))  # by id: hashing a Signature is slow (rule signatures live forever)
    shape = got[1] if got is not None and got[0] is sig else None
    if shape is None:
        P = inspect.Parameter
        kinds = [p.kind for p in sig.parameters.values()]
        if P.POSITIONAL_ONLY in kinds:
            shape = ()
        else:
            pos = [p for p in sig.parameters.values() if p.kind == P.POSITIONAL_OR_KEYWORD]
            kwonly = [p for p in sig.parameters.values() if p.kind == P.KEYWORD_ONLY]
            shape = (tuple(p.name for p in pos), tuple(p.default is P.empty for p in pos),
                     frozenset(p.name for p in kwonly), frozenset(p.name for p in kwonly if p.default is P.empty),
                     P.VAR_POSITIONAL in kinds, P.VAR_KEYWORD in kinds)
        _SHAPES[id(sig)] = (sig, shape)
    if not shape:
        return False
    names, required, kwonly, kw_required, star, starstar = shape
    if npos > len(names) and not star:
        return False
    given = names[:npos]
    for k in kwargs:
        if k in given or not (starstar or k in names or k in kwonly):
            return False
    for n, req in zip(names[npos:], required[npos:]):
        if req and n not in kwargs:
            return False
    return kw_required.issubset(kwargs)


def _arguments(sig, args: list, kwargs: dict) -> Optional[dict]:
    """`sig.bind(*args, **kwargs)` with defaults applied, as {parameter: value} in the
    signature's order; None when the arguments do not bind. Built directly when `_binds`
    vouches for the call (inspect's binder is slow), else by inspect."""
    if not _binds(sig, len(args), kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        return dict(bound.arguments)
    P = inspect.Parameter
    out: dict = {}
    npos = 0
    named = set()
    for name, p in sig.parameters.items():
        if p.kind == P.POSITIONAL_OR_KEYWORD:
            named.add(name)
            if npos < len(args):
                out[name] = args[npos]
                npos += 1
            else:
                out[name] = kwargs[name] if name in kwargs else p.default
        elif p.kind == P.VAR_POSITIONAL:
            out[name] = tuple(args[npos:])
        elif p.kind == P.KEYWORD_ONLY:
            named.add(name)
            out[name] = kwargs[name] if name in kwargs else p.default
        else:  # VAR_KEYWORD
            out[name] = {k: v for k, v in kwargs.items() if k not in named}
    return out


def _layer_elem(v) -> Optional[Value]:
    # a layer the container may hold; anything else (an unknown, a join that lost it) is no element
    return v if isinstance(v, (ModuleV, InstanceObj)) else None
