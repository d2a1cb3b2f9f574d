"""Calls: operator rules, user functions, classes and builtins (nn layers: layers.py).

A user function called with actual arguments is analysed in that calling context (its
summary instantiated at the call site): its preconditions constrain the caller's symbols,
its records are kept per context, and errors it proves are reported on the failing line
with the call sites as related locations. Depth is bounded (recursion included).
An unknown external callee yields an unknown value and one SH301 note per callee.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..ops import registry
from ..ops.context import NotApplicable, OpFailed
from ..shapes.expr import Expr
from ..shapes.shape import eq
from ..shapes.values import DictV, ExtRef, FloatV, IntV, ListV, ModuleV, Span, StarSizeV, TensorV, UnknownV, Value
from .objects import BoundMethod, BoundOp, BuiltinFn, ChoiceV, ClassObj, DictChoiceV, FuncObj, InstanceObj, KeepsShapeV, ListChoiceV, OpenArgsV, OpenChoiceV, PartialV, SuperV, TensorMethod, VmapV
from .callmemo import BUILD_SKIPS, CALL_SKIPS
from .defaults import default_symbol, typed_by_defaults
from .built import recorded_in_built
from .ruleargs import binds
from .spread import bind_positional, opens, spread_of, spread_reaches
from . import class_params, contexts, int_results, layers, nested_configs, costs, dict_choices, sized_kwargs, linked_choices, divisibility, enums, layer_tails, list_choices, many_items, maybe_none, operands, rebound_globals, reconfiguration, returns, sizes, tables, tensor_values, unfinished, vmaps
from .opctx import AnalysisContext, operands_related
from .result import Related
from .frames import MAX_GUESSED_RECURSION, MAX_RECURSIVE_CALLS, Budget, Cancelled, Frame, span_of

# in-place methods that change the receiver's shape (the others keep it)
RESHAPING_IN_PLACE = {"unsqueeze_", "squeeze_", "t_", "transpose_", "swapdims_", "swapaxes_", "resize_",
                      "resize_as_", "as_strided_"}
SILENT_EXT = ("torch.no_grad", "torch.manual_seed", "torch.set_grad_enabled", "torch.inference_mode",
              "torch.cuda.", "torch.device", "torch.compile", "torch.jit", "logging.", "warnings.", "print")


class Calls:
    """Calls of everything callable, and instantiation of user classes (a component of the
    interpreter). The module whose code runs (`lines`, `path`: a call into another file swaps
    them) and whether module code runs are read from the interpreter."""

    _USES = ("interp", "eval", "exec_block", "in_arm", "open_arm", "close_arm", "join_arms", "_size_int", "_layer_io", "_run_sequential", "annotation_shape", "declared_return", "bound_op",
             "build_container", "build_layer", "builtin", "call_module", "call_stack", "external_special", "failed",
             "fresh_dyn", "fresh_symbol", "function_named", "gave_up_in", "internal_errors", "iterate", "join_values", "journal", "loop_element",
             "max_depth", "memo", "module_lines", "mutation_log", "note_called_from", "observe", "recursion_guessed",
             "repeats_running_call", "report", "resolve", "sink", "source")

    def e_Call(self, node: ast.Call, fr) -> Value:
        func = self.eval(node.func, fr)
        labels: dict = {}
        args: list = []
        choice = None  # (where, a ListChoiceV spread there: list_choices.py)
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.eval(a.value, fr)
                if isinstance(v, StarSizeV):  # `.reshape(*input_shape, -1)`: (after the loop; a copy, unlabelled)
                    args.append(StarSizeV(v.shape))
                    continue
                if isinstance(v, OpenArgsV) and a is node.args[-1]:  # (spread.py)
                    args.append(v)
                    continue
                items = self.iterate(v, fr)
                if isinstance(v, ListChoiceV) and choice is None:
                    choice = (len(args), v)
                    continue
                if items is None:
                    if len(node.args) == 1 and isinstance(func, ExtRef) and func.path == "torch.nn.Sequential" \
                            and layer_tails.grown_layers(v) is None:
                        # `nn.Sequential(*[Block(d) for _ in range(depth)])` (a grown list's layout: layer_tails.py)
                        return self.build_container(func.path, [ListV(None, self.loop_element(v, None, fr))], span_of(node))
                    if a is not node.args[-1] or spread_of(v) is None:  # (spread.py)
                        return UnknownV("*args")
                    items = [spread_of(v)]
                args.extend(items)
            else:
                v = self.eval(a, fr)
                labels[id(v)] = a  # the text only when a message needs it (opctx.label)
                args.append(v)
        kwargs: dict = {}
        open_kwargs, kw_choice = False, None
        for kw in node.keywords:
            v = self.eval(kw.value, fr)
            if kw.arg is None:
                if isinstance(v, DictV):
                    kwargs.update(v.items)
                    open_kwargs = sized_kwargs.wider(open_kwargs, v.open)
                elif isinstance(v, DictChoiceV) and kw_choice is None and choice is None:
                    kw_choice = v
                else:
                    return UnknownV("**kwargs")
            else:
                labels[id(v)] = kw.value
                kwargs[kw.arg] = v
        for v in args + list(kwargs.values()):
            list_choices.written(v)  # (the callee may write it)
        if open_kwargs or opens(args):  # (bind_params reads it, if the callee is a user function)
            kwargs = sized_kwargs.opened(kwargs, True if opens(args) else open_kwargs)
        if kw_choice is not None:
            return dict_choices.spread_each(self, lambda k: self.call_value(func, args, k, fr, span_of(node), node, labels), kwargs, kw_choice, fr)
        if choice is not None:
            return list_choices.spread_each(
                self, lambda a: self.call_value(func, a, kwargs, fr, span_of(node), node, labels), args, *choice, fr)
        if any(isinstance(v, StarSizeV) and id(v) not in labels for v in args):
            # sizes around an unknown segment spread as varargs to a torch op: one size argument (sizes.py);
            # a user function would bind them to several parameters. One passed whole is one argument
            packed = sizes.displayed(args, self._size_int) if isinstance(func, (TensorMethod, ExtRef)) else None
            if packed is None:
                return UnknownV("*args")
            args = [packed]
        out = self.call_value(func, args, kwargs, fr, span_of(node), node, labels)
        if isinstance(func, TensorMethod) and func.name in RESHAPING_IN_PLACE and isinstance(out, TensorV) \
                and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            fr.env[node.func.value.id] = out  # `x.unsqueeze_(0)` changes x itself
        return out

    def call_value(self, fn: Value, args: list, kwargs: dict, fr, span: Optional[Span], node=None,
                   labels: Optional[dict] = None) -> Value:
        fn = maybe_none.callee(fn)
        if not spread_reaches(fn, args):  # (a torch container's spread of layers: layer_tails.py)
            return layer_tails.sequential_of(fn, args, kwargs, self.join_values) or UnknownV("*args")
        if isinstance(fn, TensorMethod):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                labels = dict(labels or {})
                labels.setdefault(id(fn.target), node.func.value)
            return self.call_rule(f"Tensor.{fn.name}", [fn.target] + args, kwargs, fr, node or span,
                                  self._opname_lazy(node, f".{fn.name}"), labels)
        if isinstance(fn, ExtRef):
            return self.call_external(fn.path, args, kwargs, fr, span, node, labels)
        if isinstance(fn, ModuleV):
            return self.call_module(fn, args, kwargs, fr, span, node, labels)
        if isinstance(fn, BoundMethod):
            return self.call_function(fn.func, [fn.self_obj] + args, kwargs, fr, span)
        if isinstance(fn, FuncObj):
            return self.call_function(fn, args, kwargs, fr, span)
        if isinstance(fn, ClassObj):
            return enums.enum_member(fn, args, kwargs) or self.instantiate(fn, args, kwargs, fr, span)
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
            if fn.cls.is_sequential() and len(args) == 1 and not kwargs and not fn.cut:  # (spread.py)
                return self._run_sequential(fn, args[0], fr, span, labels)
            return self.gave_up(fr, args, kwargs, UnknownV("instance call"))
        if isinstance(fn, BuiltinFn):
            return self.builtin(fn.name, args, kwargs, fr, span)
        if isinstance(fn, BoundOp):
            return self.bound_op(fn, args, kwargs, fr, span)
        if isinstance(fn, PartialV):
            merged = {**fn.kwargs, **kwargs}
            return self.call_value(fn.func, list(fn.args) + list(args),
                                   sized_kwargs.opened(merged, kind) if (kind := sized_kwargs.of_kwargs(kwargs)) else merged, fr, span, node, labels)
        if isinstance(fn, VmapV):
            return vmaps.call(self, fn, args, kwargs, fr, span, node, labels)
        if isinstance(fn, (ChoiceV, OpenChoiceV)):
            return self._call_each(fn, args, kwargs, fr, span, node, labels)
        if isinstance(fn, KeepsShapeV):
            out = tables.call_keeper(fn, args, kwargs, span)
            return out if out is not None else self.gave_up(fr, args, kwargs, UnknownV("call"))
        # a callee the analysis cannot see (an unknown value, a lookup at run time): what it
        # does to tensors passed to it is not followed, so no signature may vouch for them
        return operands.configured_get(fn, node, args, kwargs, self.join_values) or \
            self.gave_up(fr, args, kwargs, UnknownV("call"))

    def _call_each(self, fn: ChoiceV, args: list, kwargs: dict, fr, span, node, labels) -> Value:
        """A call of one of several options (choices.py): each called as an undecided arm, so
        what one requires does not hold after it, and with its errors not reported (the program
        may take another option); the results of those that return are joined."""
        opts = fn.options + ((UnknownV("open"),) if isinstance(fn, OpenChoiceV) else ())  # (open_choices.py)
        outs = list_choices.run_each(self, fr, [lambda o=o: self.call_value(o, args, kwargs, fr, span, node, labels)
                                                for o in opts], getattr(fn, "conds", None) or ())
        return class_params.joined_calls(self, fn, outs, fr.facts) if outs else UnknownV("call")

    def _opname(self, node, default: str) -> str:
        return self.source(node, 48) if isinstance(node, ast.Call) else default

    @staticmethod
    def _opname_lazy(node, default: str):
        """What AnalysisContext names the operation by: the call's node (its text, when asked)."""
        return node if isinstance(node, ast.Call) else default

    # ---- registry rules --------------------------------------------------------
    def call_rule(self, name: str, args: list, kwargs: dict, fr, node, opname,
                  labels: Optional[dict] = None, rule=None) -> Value:
        """`opname`: the operation's name in messages, or its call's node (AnalysisContext)."""
        rule = rule or registry.lookup(name)
        span = span_of(node) if isinstance(node, ast.AST) else node
        if rule is None:
            if name.startswith("Tensor.") and not name.startswith("Tensor.__"):
                self.unknown_callee(name, span, fr)
            return self.gave_up(fr, args, kwargs, UnknownV(name))
        for vals in (args, kwargs.values()):  # shapes of unknown rank that were learned since
            for a in vals:
                if isinstance(a, TensorV) and a.shape.star is not None:
                    self.resolve(a)
                elif isinstance(a, StarSizeV) and a.shape.star is not None:
                    a.shape = self.resolve(TensorV(a.shape))  # (`torch.zeros(input_shape)`, sizes.py)
        cx = AnalysisContext(self.interp, fr, span, opname, labels)
        if not binds(rule.signature, len(args) + 1, kwargs):
            try:
                rule.signature.bind(cx, *args, **kwargs)
            except TypeError:
                return self.gave_up(fr, args, kwargs, UnknownV(f"{name}: arguments do not match"))
        try:
            out = rule.fn(cx, *args, **kwargs)
        except OpFailed as err:
            if self._on_a_default(fr, args, kwargs):
                return UnknownV("error")
            self.failed(fr, span, err, operands_related(args, kwargs, span))
            return UnknownV("error")
        except NotApplicable:
            return self.gave_up(fr, args, kwargs, UnknownV(name))
        except (Budget, Cancelled, RecursionError):
            raise
        except Exception as exc:  # a rule bug must never fail the analysis
            self.internal_errors.append(f"{name}: {type(exc).__name__}: {exc}")
            return self.gave_up(fr, args, kwargs, UnknownV(name))
        return tensor_values.evaluate(name, args, kwargs, linked_choices.settled(divisibility.within_class(self.interp, fr, out)), self.journal) if out is not None else UnknownV(name)

    def _on_a_default(self, fr, args, kwargs) -> bool:
        """An operation that fails on the analysed function's own default value of a number,
        passed as it came (`torch.arange(klen)` with `klen=-1`, a placeholder the body never
        meant to run with): the generic analysis took one value of the parameter, callers pass
        others — and a caller that omits it is judged in its own analysis (issue 25)."""
        fn = self.function_named(fr.root) if fr.root else None
        if fn is None or not fn.defaults:
            return False
        taken = {id(v) for v in fn.defaults.values() if isinstance(v, (IntV, FloatV))}
        return bool(taken) and any(id(a) in taken for a in list(args) + list(kwargs.values()))

    def gave_up(self, fr, args, kwargs, result: Value) -> Value:
        """An operation on tensors whose shapes the analysis could not follow: counted per
        analysis (`Interp.gave_up_in`), since then "no error found" vouches for less."""
        if any(isinstance(a, TensorV) for a in list(args) + list(kwargs.values())):
            self.gave_up_in[fr.root] = self.gave_up_in.get(fr.root, 0) + 1
        return result

    def call_external(self, path: str, args, kwargs, fr, span, node, labels) -> Value:
        special = self.external_special(path, args, kwargs, fr, span, node)
        if special is not None:
            return special
        if path in layers.CONTAINERS:
            return self.build_container(path, args, span)
        rule = registry.lookup(path)
        if rule is None:
            if any(isinstance(a, TensorV) for a in list(args) + list(kwargs.values())) and not path.startswith(SILENT_EXT):
                self.unknown_callee(path, span, fr)
                return self.gave_up(fr, args, kwargs, UnknownV(path))
            return UnknownV(path)
        if isinstance(rule, registry.ModuleRule):
            return self.build_layer(rule, args, kwargs, fr, span, node, labels)
        return self.call_rule(path, args, kwargs, fr, span, self._opname_lazy(node, path.split(".")[-1]), labels, rule)

    def unknown_callee(self, name: str, span, fr) -> None:
        if name in self.sink.unknown_callees or span is None:
            return
        self.sink.unknown_callees.add(name)
        short = name.replace("torch.nn.functional.", "F.")
        self.sink.diag(span, "SH301", f"{short} has no shape rule or summary: its result is unknown")

    # ---- user functions and classes ------------------------------------------------------
    def call_function(self, f: FuncObj, args: list, kwargs: dict, fr, span: Optional[Span],
                      created: Optional[Span] = None) -> Value:
        return self._call(f, args, kwargs, fr, span, created)[0]

    def _call(self, f: FuncObj, args: list, kwargs: dict, fr, span: Optional[Span], created=None) -> tuple:
        """(the call's value, whether its frame ended dead, whether it assumed an optional
        argument omitted) — the flags False when the body did not run."""
        crossing = costs.crossing(self.interp, f, fr, args, kwargs)  # into or out of an imported module's code
        out = crossing(self.interp, f, lambda: self._call_here(f, args, kwargs, fr, span, created)) \
            if crossing is not None else self._call_here(f, args, kwargs, fr, span, created)
        return unfinished.noted(self.interp, f, args, kwargs, out)  # (a call cut off: unfinished.py)

    def _call_here(self, f: FuncObj, args: list, kwargs: dict, fr, span: Optional[Span], created=None) -> tuple:
        if fr.depth >= self.max_depth:
            self.journal.note("cutoff")
            return UnknownV("call depth"), False, False
        key = (f.qualname, id(args[0]) if f.cls is not None and args else None)
        running, made = self.call_stack.counts(key)
        if running and made >= MAX_RECURSIVE_CALLS:
            self.journal.note("cutoff")
            return UnknownV("recursion"), False, False
        if self.repeats_running_call(f, args, kwargs):
            self.journal.note("cutoff")
            return UnknownV("recursion"), False, False
        guessed = self.recursion_guessed(f.qualname, fr.facts)
        if guessed is not None and guessed > MAX_GUESSED_RECURSION:
            self.journal.note("cutoff")
            return UnknownV("recursion"), False, False
        if self.memo is None or self.observe or self.interp.module_code or f.closure is not None:  # (callmemo.py)
            return self._run_function(f, args, kwargs, fr, span, created, key, running, made, guessed)
        situation = self._situation(fr, kwargs)
        hit = self.memo.lookup(self.interp, f, args, kwargs, situation, fr.facts) or \
            self.memo.any_caller.lookup(self.interp, f, args, kwargs, fr)
        if hit is not None:
            if (fr.root and fr.root != f.qualname and fr.built is None
                    and not (f.module_path and f.module_path != self.interp.path)):
                self.note_called_from(f.qualname, fr.root)
            fr.dead = fr.dead or hit.dead
            fr.assumes_default = fr.assumes_default or hit.assumes_default
            return self.memo.result_for(hit, args), False, False
        journal = self.journal
        before, alone = journal.mark(CALL_SKIPS), self.memo.any_caller.mark(self.interp, f, args, kwargs, fr)
        ran = self._run_function(f, args, kwargs, fr, span, created, key, running, made, guessed)
        if journal.only_since(before, CALL_SKIPS):
            self.memo.remember(self.interp, f, args, kwargs, situation, fr.facts, *ran)
            self.memo.any_caller.remember(self.interp, f, args, kwargs, fr, alone, *ran)
        return ran

    @staticmethod
    def _situation(fr, kwargs: dict) -> tuple:
        """What of the caller's frame (and of the call) changes what a callee does (callmemo.py)."""
        return (fr.depth, fr.root, fr.foreign, fr.record, fr.assumes_default, fr.after_return or bool(fr.returns),
                fr.entry_depth if fr.context else fr.facts.depth, fr.qualname == "<module>", fr.facts.depth,
                sized_kwargs.of_kwargs(kwargs), fr.caught)  # (inside a `try` that catches, errors are not reported)

    def _run_function(self, f: FuncObj, args: list, kwargs: dict, fr, span: Optional[Span], created,
                      key, running: int, made: int, guessed) -> tuple:
        """(value, whether the callee's frame ended dead, whether it assumed an optional argument omitted)."""
        bound = self.bind_params(f, args, kwargs, fr, span)
        if bound is None:
            return UnknownV("arguments"), False, False
        env, binding, open_defaults = bound
        nested_configs.note_built_with(f, args, env)
        caller = fr.qualname
        foreign = f.module_path if f.module_path and f.module_path != self.interp.path else ""
        record, built = recorded_in_built(fr, f, args, kwargs, foreign, f"{caller}:{span.line if span else '?'}")
        context = built[2] if built is not None else contexts.of_call(fr, caller, span.line if span else None, foreign)
        sub = Frame(env, f.qualname, fr.facts, f.globals, context=context,
                    is_entry=(caller == "<module>"), depth=fr.depth + 1, cls=f.cls,
                    self_obj=args[0] if f.cls is not None and args else None,
                    receiver=many_items.receiver_name(f.node) if f.cls is not None and args else "",
                    call_sites=fr.call_sites + ([span] if span and not fr.foreign else []),
                    record=record, foreign=foreign, records_back=bool(foreign) and (fr.record or fr.records_back),
                    built=built, closure=f.closure,
                    created=fr.created + ([created] if created is not None else []), root=fr.root,
                    assumes_default=fr.assumes_default, after_return=fr.after_return or bool(fr.returns),
                    open_defaults=open_defaults, caught=fr.caught,
                    entry_depth=fr.entry_depth if fr.context else fr.facts.depth)
        if sub.record and self.observe:  # (what the records translate into the callee's own names)
            a = f.node.args
            names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
            sub.params = (tuple((n, env[n]) for n in names if isinstance(env.get(n), TensorV)),
                          nested_configs.own_names(f, args, env, binding),
                          rebound_globals.call_kinds(self.journal, reconfiguration.call_kinds(names, env)))
        if f.node.returns is not None:
            sub.declared_return = self.declared_return(f, fr, f.globals, binding, span)
        # a construction context (built.py) runs the model on inputs of its own: not a caller that
        # gives the function its inputs
        if fr.root and fr.root != f.qualname and not foreign and fr.built is None:
            self.note_called_from(f.qualname, fr.root)
        saved_lines = self.interp.lines  # (messages quote the callee's file, another's code calls it or not)
        self.interp.lines = self.module_lines.get(foreign, saved_lines) if foreign else self.interp.file_lines
        stack = self.call_stack
        calls = stack.enter(key, running, made, f, fr.facts, guessed is not None, args, kwargs)
        try:
            self.exec_block(f.node.body, sub)
        finally:
            while sub.return_marks:  # what held only past an early return (controlflow._continue_past)
                sub.facts.pop()
                sub.return_marks -= 1
            self.interp.lines = saved_lines
            stack.leave(key, calls)
        if sub.dead and not fr.dead:
            fr.dead, fr.died_of = True, sub.died_of
        if sub.assumes_default:
            fr.assumes_default = True
        flags = sub.dead, sub.assumes_default
        if f.node.returns is not None and returns.all_lost(self.interp, f, sub.returns):
            # a stub (`...` body, a .pyi, an external signature) or a body whose results are lost: its
            # annotated result, the names the arguments bound; a known one (`[None] * n`) overrules it
            ann = self.annotation_shape(f.node.returns, fr, f.globals)
            if ann is not None:
                names = {n for n in ann[0].symbols() if not n.startswith("?") and n not in binding}
                extra = {n: self.fresh_symbol(n, span) for n in names}
                return (TensorV(ann[0].subs({**binding, **extra}), ann[1], span),) + flags
        return (int_results.call_result(f, sub.returns, lambda: returns.joined(self, sub), self.fresh_dyn),) + flags

    def bind_params(self, f: FuncObj, args: list, kwargs: dict, fr, span) -> Optional[tuple]:
        """(the callee's environment, the annotation's symbols bound, the parameters left at a
        default that the caller's open `**kwargs` may hold)."""
        open_kwargs = sized_kwargs.of_kwargs(kwargs)
        a = f.node.args
        params = [p.arg for p in a.posonlyargs + a.args]
        env: dict = {}
        if not bind_positional(env, params, args, a.vararg.arg if a.vararg is not None else None):
            return None
        extra_kw = {}
        for k, v in kwargs.items():
            if k in params or k in [p.arg for p in a.kwonlyargs]:
                env[k] = v
            else:
                extra_kw[k] = v
        if a.kwarg is not None:
            env[a.kwarg.arg] = DictV(extra_kw, exact=True)
        open_defaults = set()
        for p in params + [p.arg for p in a.kwonlyargs]:
            if p not in env:
                env[p] = f.defaults.get(p, UnknownV(f"missing {p}"))
                if open_kwargs and p in f.defaults and not sized_kwargs.keeps_default(open_kwargs, f, p, self.interp if f.module_path in ("", self.interp.path) else None):
                    open_defaults.add(p)  # the caller's `**kwargs` may hold it
                    if f.cls is not None and f.node.name == "__init__":
                        # (a factory's `Net(cfg, **kwargs)`: `num_classes=1000` is one possible
                        # value, as in the class's own analysis, defaults.py)
                        env[p] = default_symbol(self.interp, f.cls.name, p, env[p])
        if a.kwarg is not None and open_kwargs:
            env[a.kwarg.arg].open = open_kwargs
        typed_by_defaults(env, f.defaults)
        binding: dict = {}
        for p in a.posonlyargs + a.args + a.kwonlyargs:
            if p.annotation is not None and isinstance(env.get(p.arg), TensorV):
                self.unify_annotation(env[p.arg], p, f, env, fr, span, binding)
        return env, binding, frozenset(open_defaults)

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
            possible, _ = fr.facts.possible(eq(want, got), core=False)
            if possible is False:
                self.report(fr, span, "SH101", f"{f.qualname} expects `{p.arg}` to be {shape.subs(binding)}, "
                            f"but it gets {actual}", [Related(p.lineno, p.col_offset, "annotated here")])
                return
            if possible:
                fr.facts.add(eq(want, got), (span, f"argument `{p.arg}` of {f.qualname}"))

    def instantiate(self, cls: ClassObj, args, kwargs, fr, span) -> Value:
        inst = InstanceObj(cls, {}, span)
        if cls.writes_dataclass_init():
            self.init_dataclass(cls, inst, args, kwargs, fr, span)
            return inst
        init = cls.lookup("__init__")
        if isinstance(init, FuncObj):
            if self.memo is None or self.observe or self.interp.module_code:  # (callmemo.py)
                self.call_function(init, [inst] + list(args), kwargs, fr, span)
                return unfinished.finished(inst)
            return self._construct(cls, init, inst, args, kwargs, fr, span)
        elif init is None:  # `class Head(nn.Linear): pass`: the torch layer's own __init__
            self.bound_op(BoundOp(SuperV(cls, inst), "__init__"), list(args), kwargs, fr, span)
        return inst

    def init_dataclass(self, cls: ClassObj, inst: InstanceObj, args, kwargs, fr, span) -> None:
        """The `__init__` `@dataclass` writes for `cls`, run on `inst`: its fields, those of its
        dataclass bases first as Python orders them, from the arguments, else their defaults;
        then `__post_init__`. Also what `super().__init__(...)` runs in a subclass's own
        `__init__` (a config class that computes its fields, then hands them to its base)."""
        fields = cls.dataclass_fields()
        for n, d in fields:
            if d is not None:
                inst.attrs[n] = d
        for (n, _), v in zip(fields, args):
            inst.attrs[n] = v
        for k, v in kwargs.items():
            inst.attrs[k] = v
        post = inst.cls.lookup("__post_init__")  # (`self.__post_init__()`: a subclass's own)
        if isinstance(post, FuncObj):
            self.call_function(post, [inst], {}, fr, span)

    def _construct(self, cls: ClassObj, init: FuncObj, inst: InstanceObj, args, kwargs, fr, span) -> Value:
        """`cls(*args, **kwargs)`, or a copy of an earlier alike construction (callmemo.py)."""
        situation = self._situation(fr, kwargs)
        built = self.memo.lookup_built(self.interp, cls, args, kwargs, situation, fr.facts, span)
        if built is not None:
            return built
        journal = self.journal
        first, log_start, before = inst.born, len(self.mutation_log), journal.mark(BUILD_SKIPS)
        _, dead, assumes = self._call(init, [inst] + list(args), kwargs, fr, span)
        if inst.cut:  # (nothing to remember: unfinished.py)
            return unfinished.finished(inst)
        if journal.only_since(before, BUILD_SKIPS) and not dead and not assumes:
            self.memo.remember_built(self.interp, cls, args, kwargs, situation, fr.facts, inst, first, log_start)
        return inst

