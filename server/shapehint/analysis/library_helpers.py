"""Library helpers the analysis knows by their meaning rather than their code: torch's runtime
checks (`torch._check`), activation checkpointing (the result is the call's), and `math`'s
functions on known numbers. A component of the interpreter (`_USES` bound when it is wired);
split from builtins.py."""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.expr import Expr, product
from ..shapes.shape import DYN_PREFIX
from ..shapes.values import (DefaultStrV, DictV, ExtRef, FloatV, IntV, ListV, ModuleV, NoneV, StrV, TensorV, TupleV, UnknownV,
                             Value)
from .arith import exact_root, floor_quotient
from .copies import copied, copied_instance
from .eager_mode import eager_answer
from .defaults import default_symbol
from .objects import FloatLimits, InstanceObj, OpenKwargs, PartialV
from .strings import re_function
from . import vmaps

# activation checkpointing recomputes a function's result in the backward pass: the value is the
# call's. Recognised by name, torch's (`torch.utils.checkpoint.checkpoint`, `checkpoint_sequential`)
# and those of the wrappers libraries name after it (`checkpoint`, `checkpoint_seq(fns, x)` imported
# from a module the analysis does not follow)
TORCH_CHECKPOINT_SEQ = "torch.utils.checkpoint.checkpoint_sequential"
CHECKPOINT_OPTIONS = {"use_reentrant", "context_fn", "determinism_check", "debug", "early_stop",
                      "preserve_rng_state"}

def is_checkpoint(path: str) -> bool:
    """Activation checkpointing of one function (`checkpoint(fn, *args)`), by name as above."""
    return path.rsplit(".", 1)[-1] == "checkpoint"


# torch's runtime checks: {path: the position of the condition}
CHECKS = {"torch._check": 0, "torch._assert": 0, "torch._check_with": 1, "torch._check_is_size": 0}
ANY_INT = -(2 ** 62)  # the lower bound of an int symbol that may be any int (symbols are >= 1 unless told)


class LibraryHelpers:
    """`external_special`: what a call of a library function the rules do not cover gives."""

    _USES = ("_learn_guarded_ranks", "_safe_eval", "assume", "b_isinstance", "call_value", "fresh_symbol", "init_dataclass",
             "int_value", "interp", "iterate")

    # ---- library helpers ---------------------------------------------------------------
    def external_special(self, path: str, args, kwargs, fr, span, node) -> Optional[Value]:
        if path in CHECKS:
            k = CHECKS[path]
            if len(args) > k:
                cond = args[k]
                if isinstance(node, ast.Call) and len(node.args) > k \
                        and self._learn_guarded_ranks(node.args[k], True, fr):  # `torch._assert(x.dim() == 4, ...)`
                    cond = self._safe_eval(node.args[k], fr)  # read again, now that the rank is known
                self.assume(cond, node or span, fr, "torch._check",
                            node.args[k] if isinstance(node, ast.Call) and len(node.args) > k else None)
            return NoneV()
        mode = eager_answer(path, args)
        if mode is not None:
            return mode
        if path == "torch.Size":
            items = self.iterate(args[0], fr) if args else []
            return TupleV(tuple(items), True) if items is not None else UnknownV("Size")
        if path in ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer"):
            v = args[0] if args else kwargs.get("data")
            if isinstance(v, TensorV):
                return TensorV(v.shape, v.dtype, v.origin, is_param=True)
            return UnknownV("Parameter")
        if path in ("dataclasses.field",):
            return kwargs.get("default", UnknownV("field"))
        if path in ("collections.OrderedDict",):
            items = self.iterate(args[0], fr) if args else []
            out = {}
            is_open = items is None
            for it in items or []:
                if isinstance(it, TupleV) and len(it.items) == 2 and isinstance(it.items[0], StrV):
                    out[it.items[0].value] = it.items[1]
                else:
                    is_open = True
            pair = args[0].elem if items is None and isinstance(args[0], ListV) else None
            # pairs of unknown number, each known alike (`(f"block{i}", Stage(...))` appended in a loop)
            held = pair.items[1] if isinstance(pair, TupleV) and len(pair.items) == 2 else None
            return DictV(out, open=is_open, elem=held)
        if path.startswith("re.") and not any(isinstance(a, DefaultStrV) for a in list(args) + list(kwargs.values())):
            return re_function(path[3:], args, kwargs)
        if path.startswith("math."):
            return self._math(path[5:], args, span)
        if path in ("typing.cast",) and len(args) == 2:
            return args[1]
        if path in ("copy.copy", "copy.deepcopy") and len(args) == 1 and not kwargs:
            if isinstance(args[0], InstanceObj):
                return copied_instance(args[0])
            return copied(args[0], path == "copy.deepcopy")
        if path == "dataclasses.replace":  # (of anything but an instance the analysis made: unknown)
            ok = len(args) == 1 and isinstance(args[0], InstanceObj)
            return self._replaced(args[0], kwargs, fr, span) if ok else UnknownV(path)
        if path == "functools.partial" and args and not isinstance(args[0], UnknownV):
            return PartialV(args[0], tuple(args[1:]), dict(kwargs))
        if path in vmaps.PATHS:
            return vmaps.make(list(args), kwargs)
        if path == "itertools.repeat" and len(args) == 2 and not kwargs:
            n = self.int_value(args[1])  # (`tuple(repeat(x, 2))`: the item twice; unbounded when no count)
            if n is not None and n.value is not None and 0 <= n.value <= 64:
                return TupleV((args[0],) * n.value)
            return None
        if path == "torch.finfo" and len(args) <= 1 and not kwargs:
            return FloatLimits()
        if path == "torch.is_tensor" and len(args) == 1:
            return self.b_isinstance([args[0], ExtRef("torch.Tensor")], {}, fr, span)
        name = path.rsplit(".", 1)[-1]
        if is_checkpoint(path) and args:
            rest = {k: v for k, v in kwargs.items() if k not in CHECKPOINT_OPTIONS}
            return self.call_value(args[0], list(args[1:]), rest, fr, span)
        if name.startswith("checkpoint_seq"):
            return self._checkpoint_seq(path, args, kwargs, fr, span)
        return None

    def _replaced(self, obj: InstanceObj, changes: dict, fr, span) -> Value:
        """`dataclasses.replace(cfg, **kwargs)`: what Python runs, `type(cfg)(**fields, **changes)`
        with every field not changed read from `cfg` (`__post_init__` runs again). A field the
        caller's open `**kwargs` may change holds what a default it may replace holds
        (defaults.default_symbol: a size is a symbol, a flag undecided), else unknown: never
        `cfg`'s value claimed as fact — unless that `**kwargs` holds sizes only and the dataclass
        is the analysed file's, whose fields no such build names (sized_kwargs.py)."""
        cls = obj.cls
        if not cls.writes_dataclass_init():  # (a written `__init__` may take other parameters)
            return UnknownV("dataclasses.replace")
        names = [n for n, _ in cls.dataclass_fields()]
        if any(k not in names for k in changes):  # (Python: TypeError)
            return UnknownV("dataclasses.replace")
        # (a factory's sized `**kwargs` names no field of the file's dataclasses: sized_kwargs.py)
        is_open = type(changes) is OpenKwargs and not (changes.sizes and cls.module_path == self.interp.path)
        given = {}
        for n in names:
            if n in changes:
                given[n] = changes[n]
                continue
            v = obj.attrs.get(n, UnknownV(f"{cls.name}.{n}"))
            if is_open:
                opened = default_symbol(self.interp, cls.name, n, v)
                v = opened if opened is not v else UnknownV(f"{cls.name}.{n}")
            given[n] = v
        inst = InstanceObj(cls, {}, span)
        self.init_dataclass(cls, inst, [], given, fr, span)
        return inst

    def _checkpoint_seq(self, path: str, args: list, kwargs: dict, fr, span) -> Value:
        """`checkpoint_seq(self.blocks, x)`, torch's `checkpoint_sequential(fns, segments, x)`:
        the functions applied in order."""
        torch_api = path == TORCH_CHECKPOINT_SEQ
        fns = args[0] if args else kwargs.get("functions")
        x = (args[2] if len(args) > 2 else kwargs.get("input")) if torch_api else \
            (args[1] if len(args) > 1 else kwargs.get("x"))
        if fns is None or x is None:
            return UnknownV(path)
        if isinstance(fns, (ModuleV, InstanceObj)):
            return self.call_value(fns, [x], {}, fr, span)
        items = self.iterate(fns, fr)
        if items is None:
            return UnknownV(path)
        for f in items:
            x = self.call_value(f, [x], {}, fr, span)
            if isinstance(x, UnknownV):
                break
        return x

    def _math(self, name: str, args, span=None) -> Value:
        import math
        ints = [self.int_value(a) for a in args]
        if name == "prod" and args:
            items = self.iterate(args[0], None)
            vals = [self.int_value(i) for i in items or []]
            if items is not None and all(v is not None for v in vals):
                return IntV(product(vals))
        if name in ("ceil", "floor") and args:
            v = args[0]
            if isinstance(v, FloatV) and v.value is not None:
                return IntV(Expr.const(getattr(math, name)(v.value)))
            if isinstance(v, IntV):
                return v
            q = floor_quotient(v, ceil=name == "ceil")  # `math.floor(planes * (width / 64))`
            if q is not None:
                return IntV(q)
            if isinstance(v, FloatV):
                # an int of no known value, maybe negative (a ramp's bound computed from logs of
                # configured values): a number in a tensor's arithmetic, never a float
                return IntV(self.fresh_symbol(DYN_PREFIX, span, lo=ANY_INT))
            return UnknownV(f"math.{name}")  # an int, never a float a layer would refuse
        if name in ("sqrt", "isqrt") and len(args) == 1 and isinstance(args[0], IntV):
            root = exact_root(args[0].expr)  # (a size's square: `math.sqrt(partition_size**2)`)
            if root is not None:
                return IntV(root) if name == "isqrt" else FloatV(quotient=(root, Expr.const(1)))
        if name == "gcd" and len(ints) == 2 and all(i is not None and i.value is not None for i in ints):
            return IntV(Expr.const(math.gcd(ints[0].value, ints[1].value)))
        vals = []
        for a in args:
            if isinstance(a, FloatV):
                vals.append(a.value)
            elif isinstance(a, IntV):
                vals.append(a.expr.value)
            else:
                vals.append(None)
        if vals and None not in vals and hasattr(math, name):
            try:
                out = getattr(math, name)(*vals)
            except (ValueError, TypeError, OverflowError):
                return FloatV(None)
            return IntV(Expr.const(out)) if isinstance(out, int) and not isinstance(out, bool) else FloatV(out)
        if name == "pi":
            return FloatV(math.pi)
        return FloatV(None)

