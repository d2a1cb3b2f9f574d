"""nn layers and containers: building one from its constructor's arguments (the registry
rule's `ctor`), calling one (its `forward` rule, or each child of a Sequential in turn), and its
parameters (`layer.weight`). A component of the interpreter (`Interp.layers`): it calls back into
the interpreter through the methods bound when the interpreter wires it (`_USES`)."""
from __future__ import annotations

import ast
from typing import Optional

from ..ops import registry
from ..ops.context import NotApplicable, OpFailed
from ..shapes.shape import TRUE, Shape
from ..shapes.values import DictV, ListV, ModuleV, NoneV, TensorV, TupleV, UnknownV, Value
from .arm_alignment import aligned_options
from .objects import ChoiceV, InstanceObj
from .opctx import AnalysisContext
from .frames import span_of
from .ruleargs import ForwardRule, bind_arguments
from . import class_params, layer_tails, list_choices, loop_counts, own_entries

CONTAINERS = {"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"}
REPEATS = 3  # applications of a Sequential's unit of unknown count, at most (`_repeated`)


class Layers:
    # (`interp`: what a rule's context reads, opctx.AnalysisContext)
    _USES = ("interp", "observe", "sink", "call_value", "call_rule", "join_values", "source", "failed", "resolve",
             "_opname", "_opname_lazy", "internal_errors", "in_arm", "open_arm", "close_arm", "join_arms")

    def build_layer(self, rule, args, kwargs, fr, span, node, labels) -> Value:
        if rule.name in CONTAINERS:
            return self.build_container(rule.name, args, span)
        cx = AnalysisContext(self.interp, fr, span, self._opname_lazy(node, rule.name.split(".")[-1]), labels)
        arguments = bind_arguments(rule.signature, [cx] + list(args), kwargs)
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
        if len(args) == 1 and isinstance(args[0], DictV) and args[0].open:
            # an OrderedDict of pairs made in a loop the analysis did not follow: what it holds is
            # unknown, and the container is too (never the empty one: that would be the identity);
            # one filled in a loop with layers alike (`layers[f"layer_{i}"] = Block(d)`) is a
            # Sequential of some number of them
            d = args[0]
            elem = _layer_elem(d.elem) if kind == "torch.nn.Sequential" and not d.items else None
            return ModuleV(kind, {}, None, None, None, elem, None)
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
        out = ModuleV(kind, {}, None, children, names, elem, length if elem is not None else None)
        return own_entries.carried(args[0], out) if len(args) == 1 and kind != "torch.nn.ModuleDict" else out

    def call_module(self, m: ModuleV, args, kwargs, fr, span, node, labels) -> Value:
        if m.kind == "torch.nn.Sequential":
            if m.head is not None and m.tail is not None and len(args) == 1:
                out = layer_tails.call(self, m, args[0], fr, span, labels)
            elif m.children is None and m.elem is not None and len(args) == 1:
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
                                 ForwardRule(rule))
            if isinstance(out, UnknownV) and out.reason == "error":
                pass
        if node is not None and fr.record and isinstance(node, ast.Call):
            self._layer_io(node.func, m, args, out, fr)
        return out

    def _run_sequential(self, inst: InstanceObj, x: Value, fr, span, labels) -> Value:
        """A subclass of nn.Sequential without a forward: its layers in the order registered —
        those given to `super().__init__`, then those assigned or `add_module`d."""
        named = inst.registered_modules()
        if named is None:
            # (all registered at one site in a loop of unknown count: a stack of that layer)
            layer = loop_counts.stacked_layer(inst)
            return UnknownV("Sequential") if layer is None else self._repeated(layer, x, fr, span, labels)
        layers = [v for _, v in named]
        for layer in layers:
            x = self.call_value(layer, [x], {}, fr, span, None, labels)
            if isinstance(x, UnknownV):
                break
        return x

    def _repeated(self, layer: Value, x: Value, fr, span, labels) -> Value:
        """`layer` applied an unknown number of times (a Sequential of them): what one
        application gives when it keeps the shape, else the join of what the applications give,
        with the dimensions they disagree on unknown.

        The units after the first take what those before gave, not the first's input: each
        application runs from the join of the inputs so far, until a join adds no unknown (at
        most REPEATS), so that the calls a unit makes are also seen with those inputs (else the
        first unit's input, in a context all of them share, reads as theirs).

        Each application's sizes that the facts where it ran prove equal to its input's are
        written as the input's (`_applied`): the stack of no unit leaves the input as it is, so
        only so is such a size known on every path."""
        joined = x
        # (the join as made: a call may teach the rank of an unknown-rank input afterwards)
        seen = self.resolve(x) if isinstance(x, TensorV) else None
        for _ in range(REPEATS):
            out = self._applied(layer, joined, fr, span, labels)
            if not isinstance(out, TensorV) or not isinstance(joined, TensorV):
                if isinstance(joined, UnknownV) or not isinstance(x, TensorV):
                    return out if isinstance(out, UnknownV) else UnknownV("Sequential")
                joined = out if isinstance(out, UnknownV) else UnknownV("Sequential")
                continue  # (one more application, from an unknown input: its calls lose their values)
            joined = self.join_values([joined, out], fr.facts)
            before, seen = seen, self.resolve(joined)
            if _alike(before, seen):
                return joined
        return UnknownV("Sequential")

    def _applied(self, layer: Value, x: Value, fr, span, labels) -> Value:
        """`layer(x)`, each size of the result that the facts where it ran prove equal to the
        input's written as the input's (a depthwise block asks `x.shape[1] == dim`). A choice of
        layers runs each option as an undecided arm (calls._call_each), whose facts are dropped
        after it: the sizes are matched within each arm."""
        def run(unit):
            out = self.call_value(unit, [x], {}, fr, span, None, labels)
            if isinstance(out, TensorV) and isinstance(x, TensorV):
                out = aligned_options([(None, x), (TRUE, out)], fr.facts, self.resolve)[1]
            return out
        if type(layer) is not ChoiceV or not layer.options:
            return run(layer)
        outs = list_choices.run_each(self, fr, [lambda o=o: run(o) for o in layer.options],
                                     getattr(layer, "conds", None) or ())
        return class_params.joined_calls(self, layer, outs, fr.facts) if outs else UnknownV("call")

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
        cx = AnalysisContext(self.interp, fr, span_of(node) if node is not None else None, m.kind)
        try:
            dims = rule.params_fn(cx, m).get(name)
        except Exception:
            return UnknownV(name)
        if dims is None or any(d is None for d in dims):
            return NoneV() if dims is None else UnknownV(name)
        return TensorV(Shape.of(dims), "float32", m.span, is_param=True)


def _layer_elem(v) -> Optional[Value]:
    # a layer the container may hold, or one of several (the layers a loop's passes built: calling
    # it calls each); anything else (an unknown, a join that lost it) is no element
    if isinstance(v, ChoiceV) and all(isinstance(o, (ModuleV, InstanceObj)) for o in v.options):
        return v
    return v if isinstance(v, (ModuleV, InstanceObj)) else None


def _alike(a: Shape, b: Shape) -> bool:
    """`b`, a join with `a`, claims nothing `a` does not: each axis equal, or unknown in both."""
    if a.star is not None and b.star is not None and not (a.dims or a.suffix or b.dims or b.suffix):
        return True  # both any shape at all
    if a.star != b.star or len(a.dims) != len(b.dims) or len(a.suffix) != len(b.suffix):
        return a == b
    return all(p == q or (_unknown(p) and _unknown(q)) for p, q in zip(a.dims + a.suffix, b.dims + b.suffix))


def _unknown(d) -> bool:
    return not d.is_const and all(s.startswith("?") for s in d.symbols())
