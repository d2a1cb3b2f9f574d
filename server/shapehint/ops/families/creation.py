"""Tensor creation: zeros/ones/empty/rand/randn/randint/full, arange/linspace/logspace, eye,
*_like, Tensor.new_*, tensor/as_tensor from nested lists, tril/triu_indices, multinomial
samples, and nn.Transformer's causal mask.

Sizes may be varargs or one tuple/list/torch.Size and may be symbolic. The dtype keyword
arrives as a DtypeV whose name is already canonical ("float32", "int64", ...).
"""
from __future__ import annotations

import math

from ...shapes.expr import Expr
from ...shapes.shape import Shape, ge
from ...shapes.values import BoolV, DtypeV, FloatV, IntV, ListV, NoneV, StarSizeV, StrV, TensorV, TupleV, UnknownV
from ..arguments import ranked_tensor, size_or_fresh
from ..common import size_list
from ..dtypes import scalar_dtype
from ..context import NotApplicable, OpContext
from ..registry import op

NAMES = {"float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32",
         "short": "int16", "cfloat": "complex64"}


def dtype_name(v, default=None):
    if isinstance(v, DtypeV):
        return NAMES.get(v.name, v.name)
    if isinstance(v, StrV) and v.value:
        return NAMES.get(v.value.replace("torch.", ""), v.value.replace("torch.", ""))
    if v is not None and not isinstance(v, NoneV):
        return None  # a dtype we cannot see (`dtype=x.dtype` of an unknown tensor)
    return default


def _sizes(cx: OpContext, size) -> list | Shape:
    """The sizes given; a Shape with a variadic segment for the sizes of a tensor of unknown
    rank (`torch.zeros(input_shape)` with `input_shape = input_ids.size()`: sizes.py)."""
    size = list(size)
    if len(size) == 1 and isinstance(size[0], StarSizeV):
        held = size[0].shape
        sz = list(held.dims + held.suffix)
    else:
        held, sz = None, size_list(cx, _lost_ints(cx, size))
    for s in sz:
        if s.value is not None and s.value < 0:
            cx.fail(f"{cx.opname}: sizes must be non-negative, got {s} in "
                    f"[{', '.join(str(x) for x in sz)}]", "SH107")
    return held if held is not None and held.rank is None else sz


def _lost_ints(cx: OpContext, size: list) -> list:
    """Sizes listed one by one (`torch.ones(dim, 1, 1)`, `torch.zeros((n, d))`) are each an int
    (PyTorch takes a sequence only alone): one whose value the analysis lost (`dim` an item of a
    list of unknown length) is a size of its own, the others still known. A lone value of unknown
    kind may be the sequence itself: left as it is (unknown)."""
    if len(size) == 1 and isinstance(size[0], (TupleV, ListV)) and size[0].items is not None:
        return _lost_ints(cx, list(size[0].items)) if len(size[0].items) > 1 else size
    if len(size) < 2:
        return size
    # (one the context still reads as a size, a joined width, keeps its one symbol)
    return [IntV(size_or_fresh(cx, s)) if isinstance(s, UnknownV) else s for s in size]


def _new(cx: OpContext, dims, dtype) -> TensorV:
    return cx.tensor(dims if isinstance(dims, Shape) else Shape.of(dims), dtype=dtype)


def _filled(name: str, default_dtype="float32"):
    def rule(cx: OpContext, *sizes, size=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False, memory_format=None, generator=None, names=None):
        if size is not None:
            sizes = (size,)
        if not sizes:
            cx.fail(f"{cx.opname} needs a size", "SH107")
        return _new(cx, _sizes(cx, sizes), dtype_name(dtype, default_dtype))
    rule.__name__ = name
    return rule


for _n in ("zeros", "ones", "empty", "rand", "randn"):
    op(f"torch.{_n}")(_filled(_n))


@op("torch.full")
def full(cx: OpContext, size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    return _new(cx, _sizes(cx, [size]), dtype_name(dtype, scalar_dtype(fill_value)))


@op("torch.randint")
def randint(cx: OpContext, *args, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False, pin_memory=False):
    args = list(args)
    if size is not None:
        args.append(size)
    if len(args) == 2:
        low, high, sz = IntV(Expr.const(0)), args[0], args[1]
    elif len(args) == 3:
        low, high, sz = args
    else:
        raise NotApplicable("randint arguments")
    lo, hi = cx.int_of(low), cx.int_of(high)
    if lo is not None and hi is not None and lo.value is not None and hi.value is not None and lo.value >= hi.value:
        cx.fail(f"{cx.opname}: low ({lo}) must be less than high ({hi})", "SH107")
    return _new(cx, _sizes(cx, [sz]), dtype_name(dtype, "int64"))


def _num(cx: OpContext, v):
    """('int', Expr) | ('float', float | None) for an arange bound."""
    if isinstance(v, FloatV):
        return "float", v.value
    e = cx.int_of(v)
    if e is not None:
        return "int", e
    if isinstance(v, TensorV):
        return "float", None
    raise NotApplicable("bound unknown")


@op("torch.randperm")
def randperm(cx: OpContext, n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    k = cx.int_of(n)
    if k is None:
        raise NotApplicable("n unknown")
    cx.require(ge(k, 0), lambda: f"{cx.opname}: n must be non-negative, got {k}", "SH107")
    return _new(cx, [k], dtype_name(dtype, "int64"))


_INT_KINDS = {**{t: True for t in ("int8", "int16", "int32", "int64", "uint8", "bool")},
              **{t: False for t in ("float16", "bfloat16", "float32", "float64")}}


@op("torch.arange")
def arange(cx: OpContext, start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    if end is None or isinstance(end, NoneV):
        start, end = IntV(Expr.const(0)), start
    parts = [_num(cx, v) for v in (start, end, step)]
    is_int = all(k == "int" for k, _ in parts)
    # a bound that is a tensor is an int one when its dtype is (`arange(torch.tensor(6))` is
    # int64); of unknown dtype (a parameter only taken for a tensor), the result's is unknown
    kinds = [_INT_KINDS.get(v.dtype) if isinstance(v, TensorV) else k == "int" for v, (k, _) in zip((start, end, step), parts)]
    out_dtype = dtype_name(dtype, None if None in kinds else "int64" if all(kinds) else "float32")
    if is_int:
        a, b, s = (p for _, p in parts)
        if s.value is None:
            raise NotApplicable("symbolic step")
        if s.value == 0:
            cx.fail(f"{cx.opname}: step must be nonzero", "SH107")
        span = b - a if s.value > 0 else a - b
        st = abs(s.value)
        if span.value is not None:
            if span.value < 0:
                cx.fail(f"{cx.opname}: upper bound and lower bound are inconsistent with the step sign "
                        f"(start={a}, end={b}, step={s})", "SH107")
            return _new(cx, [-(-span.value // st)], out_dtype)
        cx.require(ge(span, 0), lambda: f"{cx.opname}: upper bound and lower bound are inconsistent with the step sign",
                   "SH107")
        return _new(cx, [(span + st - 1) // st], out_dtype)
    vals = [float(p.value) if k == "int" and p.value is not None else p for k, p in parts]
    if any(v is None or isinstance(v, Expr) for v in vals):
        return _new(cx, [cx.fresh("n")], out_dtype)
    a, b, s = vals
    if s == 0:
        cx.fail(f"{cx.opname}: step must be nonzero", "SH107")
    n = math.ceil((b - a) / s)  # PyTorch computes the length in double precision too
    if n < 0:
        cx.fail(f"{cx.opname}: upper bound and lower bound are inconsistent with the step sign", "SH107")
    return _new(cx, [n], out_dtype)


@op("torch.linspace", "torch.logspace")
def linspace(cx: OpContext, start, end, steps, base=None, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    n = cx.int_of(steps)
    if n is None:  # (`sum(depths)` of a list the analysis does not hold: still one axis)
        return _new(cx, [cx.fresh("n")], dtype_name(dtype, "float32"))
    if n.value is not None and n.value < 0:
        cx.fail(f"{cx.opname}: number of steps must be non-negative, got {n}", "SH107")
    return _new(cx, [n], dtype_name(dtype, "float32"))


@op("torch.eye")
def eye(cx: OpContext, n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
        pin_memory=False):
    rows = cx.int_of(n)
    cols = rows if m is None or isinstance(m, NoneV) else cx.int_of(m)
    if rows is None or cols is None:
        raise NotApplicable("size unknown")
    for v in (rows, cols):
        if v.value is not None and v.value < 0:
            cx.fail(f"{cx.opname}: n and m must be non-negative, got {v}", "SH107")
    return _new(cx, [rows, cols], dtype_name(dtype, "float32"))


def _like(name: str, fixed_dtype=None):
    def rule(cx: OpContext, input, *args, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None, pin_memory=False, generator=None, **kwargs):
        if not isinstance(input, TensorV):
            raise NotApplicable("input unknown")
        dt = dtype_name(dtype, None)  # (full_like keeps the input's dtype, whatever the fill value)
        return cx.tensor(input.shape, dtype=dt or fixed_dtype or input.dtype)
    rule.__name__ = name
    return rule


for _n in ("zeros_like", "ones_like", "empty_like", "randn_like", "rand_like", "full_like", "randint_like"):
    op(f"torch.{_n}")(_like(_n))


def _new_method(name: str):
    def rule(cx: OpContext, self, *size, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False, fill_value=None):
        if not isinstance(self, TensorV):
            raise NotApplicable("input unknown")
        if name == "new_full":
            if fill_value is None and len(size) == 2:
                size = size[:1]
        return _new(cx, _sizes(cx, size), dtype_name(dtype, self.dtype))
    rule.__name__ = name
    return rule


for _n in ("new_zeros", "new_ones", "new_empty", "new_full"):
    op(f"Tensor.{_n}")(_new_method(_n))


def nested_shape(cx: OpContext, v, depth=0) -> tuple:
    """(dims, dtype) of a nested list/tuple of scalars, as torch.tensor sees it."""
    if isinstance(v, (IntV, FloatV, BoolV)):
        return (), scalar_dtype(v)
    if isinstance(v, TensorV):  # an element tensor is converted to a Python scalar
        if v.shape.rank is None:
            raise NotApplicable("element of unknown rank")
        n = Expr.const(1)
        for d in v.shape.dims:
            n = n * d
        if n.value is None:
            raise NotApplicable("element of symbolic size")
        if n.value != 1:
            cx.fail(f"{cx.opname}: only one-element tensors can be converted to Python scalars, got "
                    f"{v.shape}", "SH107")
        return (), v.dtype or "float32"
    if isinstance(v, (TupleV, ListV)):
        if v.items is None:
            return _scalars_of_unknown_count(cx, v)
        subs = [nested_shape(cx, i, depth + 1) for i in v.items]
        if not subs:
            return (Expr.const(0),), "float32"
        first = subs[0][0]
        for k, (s, _) in enumerate(subs[1:], 1):
            if len(s) != len(first) or any(a != b for a, b in zip(s, first)):
                if len(s) != len(first) or any(a.value is not None and b.value is not None for a, b in zip(s, first)):
                    cx.fail(f"{cx.opname}: ragged nested sequence: element {k} at depth {depth} has shape "
                            f"{list(map(str, s))} but element 0 has {list(map(str, first))}", "SH107")
                raise NotApplicable("symbolic ragged check")
        dts = {d for _, d in subs}
        dt = next((d for d in ("float32", "int64", "bool") if d in dts), "float32")
        if any(d.startswith("float") for d in dts):
            dt = "float32"
        return (Expr.const(len(subs)),) + tuple(first), dt
    raise NotApplicable("element unknown")


def _scalars_of_unknown_count(cx: OpContext, v) -> tuple:
    """A list of numbers whose count is not known (`[g for _ in range(n)]`: n of them): one axis
    of that count, or of a size of its own; any other element (a list, a tensor) may be ragged."""
    elem = getattr(v, "elem", None)
    if isinstance(elem, (IntV, FloatV, BoolV)):
        dt = scalar_dtype(elem)
    elif cx.surely_int(elem):
        dt = "int64"  # (an int parameter: `[group_size for _ in range(n)]`)
    else:
        raise NotApplicable("list of unknown length")
    n = getattr(v, "length", None)
    return (n if isinstance(n, Expr) else cx.fresh("n"),), dt


@op("torch.tensor", "torch.as_tensor", "torch.asarray", "Tensor.new_tensor")
def tensor(cx: OpContext, data, *args, dtype=None, device=None, requires_grad=False, pin_memory=False, copy=None):
    if isinstance(data, TensorV) and args:  # Tensor.new_tensor(self, data)
        data = args[0]
    if isinstance(data, TensorV):
        if data.shape.rank is None:
            raise NotApplicable("input unknown")
        return cx.tensor(data.shape, dtype=dtype_name(dtype, data.dtype))
    try:
        dims, dt = nested_shape(cx, data)
    except NotApplicable:
        return cx.tensor(Shape.unknown(cx.fresh_star(None)), dtype=dtype_name(dtype, None))
    return _new(cx, dims, dtype_name(dtype, dt))


def _tri_count(r: int, c: int, off: int, lower: bool) -> int:
    if lower:
        return sum(max(0, min(c, i + off + 1)) for i in range(r))
    return sum(max(0, c - max(0, i + off)) for i in range(r))


def _tri(lower: bool):
    def rule(cx: OpContext, row, col, offset=0, *, dtype=None, device=None, layout=None):
        r, c, o = cx.const_int(row), cx.const_int(col), cx.const_int(offset)
        if r is None or c is None or o is None:
            return _new(cx, [2, cx.fresh("n")], dtype_name(dtype, "int64"))
        if r < 0 or c < 0:
            cx.fail(f"{cx.opname}: row and col must be non-negative", "SH107")
        return _new(cx, [2, _tri_count(r, c, o, lower)], dtype_name(dtype, "int64"))
    rule.__name__ = "tril_indices" if lower else "triu_indices"
    return rule


op("torch.tril_indices")(_tri(True))
op("torch.triu_indices")(_tri(False))


@op("torch.multinomial", "Tensor.multinomial")
def multinomial(cx: OpContext, input, num_samples, replacement=False, *, generator=None, out=None):
    x = ranked_tensor(input)
    n = cx.int_of(num_samples)
    if n is None:
        raise NotApplicable("num_samples")
    if x.shape.rank not in (1, 2):
        cx.fail(f"{cx.opname}: prob_dist must be 1 or 2 dim, got {x.shape.rank}D", "SH102")
    cx.require(ge(n, 1), lambda: f"{cx.opname}: cannot sample n_sample <= 0 samples", "SH107")
    if cx.bool_of(replacement) is False:
        cx.require(ge(x.shape.dims[-1], n), lambda: f"{cx.opname}: cannot sample {n} > {x.shape.dims[-1]} samples without "
                   "replacement", "SH107")
    return cx.tensor(x.shape.dims[:-1] + (n,), dtype="int64")


@op("torch.nn.Transformer.generate_square_subsequent_mask")
def square_subsequent_mask(cx: OpContext, sz, device=None, dtype=None):
    n = cx.int_of(sz)
    if n is None:
        raise NotApplicable("size")
    return cx.tensor([n, n], dtype="float32")
