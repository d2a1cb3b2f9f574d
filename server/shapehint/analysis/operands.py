"""What a tensor's arithmetic takes an opaque operand for (issue 28, cause 1).

An `OpaqueV` is a value known only by name; in `x + v` it might be a tensor, whose shape would
broadcast with x's, so in general the result stays unknown. Two kinds are known not to be:
  a number      a parameter annotated `int` (`x * n`): its symbol, exactly.
  configured    an attribute of a configuration object (`x + config.rms_norm_eps`, named as
                `objects.config_named` says): configurations hold hyperparameters, numbers among
                them, never tensors. Whether it is an int or a float is not known, so it is
                taken as a number only where that cannot change the answer: with a floating (or
                unknown) tensor dtype, an int and a float scalar give the same dtype and shape.
                With an integral or bool tensor (`distance + config.max_positions - 1`) the
                shape is the same either way but the dtype is not (int64 or float32), so the
                tensor takes part with its dtype unknown: the result's shape, and no dtype.
Anything else is left as it is (the rule then gives up: unknown, never a guess).

An item of a configuration's attribute read by a constant key (`config.rope_scaling["factor"]`)
is named as attributes are, so it is `configured` too: the mapping itself may be unknown (written
by a base constructor that was cut off: unfinished.py), but what it holds is a hyperparameter.
So is one read by `.get` (`config.rope_scaling.get("attention_factor")`): the item, or None when
the key is absent, which a tensor's arithmetic refuses (a TypeError), so where the arithmetic
returns, it was the item; given a default, the join of the item and the default.

A number on some paths and a configured value on others (a scale one of several functions of a
table computes: `1.0` in one, the `.get` item in another, `0.1 * math.log(factor) + 1.0` in a
third) is a `HyperparameterV`: taken as a configured value is, and unknown to all other code.
A value known only by name that is not configured (`outputs.scale`) may be a tensor: its join
with a number stays unknown.
"""
from __future__ import annotations

import ast
from dataclasses import replace
from typing import Callable, Optional

from ..ops.dtypes import is_complex, is_floating
from ..frontend.names import dotted
from ..shapes.expr import Expr
from ..shapes.values import FloatV, IntV, NoneV, StrV, TensorV, UnknownV, Value
from .objects import HyperparameterV, OpaqueV, SizedHyperparameterV, config_named


def configured(path: str) -> bool:
    """Whether `path` (`config.hidden_act`, `self.cfg.eps`) reads an attribute of a configuration."""
    owners = path.split(".")[:-1]
    return any(config_named(o) for o in owners)


def configured_item(obj: Value, idx: Value, node, fresh: Callable = None) -> Optional[Value]:
    """`config.rope_scaling["factor"]` where `config.rope_scaling` is not known (`obj`): known by
    that name; None for anything else (an item of a value not known is unknown). Read at an int
    index not known (`config.hidden_sizes[i]` in a loop over the stages), it is one item of
    several, so no name: a hyperparameter whose int, where an operation takes one (a layer's
    width, `torch.ones(dim)`), is one size of its own (`fresh`), at least 0 (a stage's depth may
    be 0), the same for every use of that value."""
    if not (isinstance(obj, (UnknownV, OpaqueV)) and isinstance(node, ast.Subscript)):
        return None
    path = dotted(node.value)
    if fresh is not None and isinstance(idx, IntV) and idx.expr.value is None and path and configured(path):
        return SizedHyperparameterV("subscript", size=fresh("?", None, lo=0))
    return _item(path, idx)


def configured_get(fn: Value, node, args: list, kwargs: dict, join: Callable) -> Optional[Value]:
    """`config.rope_scaling.get("factor"[, default])` where `config.rope_scaling` is not known (`fn`
    its unknown `.get`): the item by that name, joined with a default other than None; None for
    anything else. `join`: the join of values several paths give."""
    if not (isinstance(fn, (UnknownV, OpaqueV)) and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get" and not kwargs and 1 <= len(args) <= 2 and not isinstance(args[-1], TensorV)):
        return None
    item = _item(dotted(node.func.value), args[0])
    if item is None or len(args) == 1 or isinstance(args[1], NoneV):
        return item
    return join([item, args[1]])


def _item(path: Optional[str], idx: Value) -> Optional[OpaqueV]:
    key = idx.value if isinstance(idx, StrV) else idx.expr.value if isinstance(idx, IntV) else None
    if key is None or not path or not configured(path):
        return None
    return OpaqueV(f"{path}[{key!r}]")


def hyperparameter(vals: list, size: Callable) -> Optional[HyperparameterV]:
    """The join of numbers and configured values (at least one of those), else None; of ints and
    configured attributes only, one that an operation may take as an int (`size()`: a fresh symbol)."""
    def number(v):
        return isinstance(v, (IntV, FloatV)) or isinstance(v, OpaqueV) and v.kind == "int"
    if all(number(v) or _settled(v) for v in vals) and not all(number(v) for v in vals):
        if all(isinstance(v, IntV) or isinstance(v, OpaqueV) for v in vals):
            return SizedHyperparameterV("join", size=size())
        return HyperparameterV("join")
    return None


def size_of(v: Value) -> Optional[Expr]:
    """The int an operation takes of a join of ints and configured attributes (`hyperparameter`)."""
    return v.size if isinstance(v, SizedHyperparameterV) else None


def _settled(v: Value) -> bool:
    """A configured value: a configuration's attribute or item, or a join of such with numbers."""
    return isinstance(v, HyperparameterV) or isinstance(v, OpaqueV) and configured(v.path)


def tensor_operands(a: Value, b: Value, symbol: Callable) -> tuple:
    """The operands of a binary operator one of which is a tensor, with what is known of an opaque
    one (`symbol`: the symbol standing for an opaque int, `Environment.opaque_symbol`)."""
    x, y = _operand(a, b, symbol), _operand(b, a, symbol)
    if isinstance(a, TensorV) and _number_of_either_kind(b, a):
        x, y = replace(a, dtype=None), FloatV()
    elif isinstance(b, TensorV) and _number_of_either_kind(a, b):
        x, y = FloatV(), replace(b, dtype=None)
    return x, y


def _number_of_either_kind(v: Value, tensor: TensorV) -> bool:
    """A configured number (int or float, not known which) with a tensor whose dtype it decides."""
    return (isinstance(v, HyperparameterV) or isinstance(v, OpaqueV) and v.kind != "int" and configured(v.path)) \
        and tensor.dtype is not None \
        and not (is_floating(tensor.dtype) or is_complex(tensor.dtype))


def _operand(v: Value, other: Value, symbol: Callable) -> Value:
    if not isinstance(v, (OpaqueV, HyperparameterV)):
        return v
    if isinstance(v, OpaqueV) and v.kind == "int":
        return IntV(symbol(v))
    if _settled(v) and isinstance(other, TensorV) and \
            (other.dtype is None or is_floating(other.dtype) or is_complex(other.dtype)):
        return FloatV()
    return v
