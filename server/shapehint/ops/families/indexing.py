"""Indexing: `x[...]` (basic and advanced), `x[...] = v`, index_select, masked_select, select, take.

`x[i]` follows PyTorch's applySlicing: integers (and 0-dim integer tensors) select and drop a
dimension first; slices, None and Ellipsis give views; integer tensors/lists and boolean masks
are *advanced* indices. Advanced index shapes broadcast together; the result goes where the
first one was when they are adjacent, else to the front. A boolean mask selects a
data-dependent number of elements: a fresh symbol bounded by the mask's size.
"""
from __future__ import annotations

from ...shapes.expr import Expr, emax, emin, product
from ...shapes.shape import Shape, conj, eq, ge, le, lt
from ...shapes.values import BoolV, EllipsisV, IntV, ListV, NoneV, SliceV, TensorV, TupleV
from ..common import apart, broadcast_shapes
from ..context import NotApplicable, OpContext
from ..registry import op
from ..common import strides_of, view_result

INT_DTYPES = {"int64", "int32", "int16", "int8"}
MASK_DTYPES = {"bool", "uint8"}


def _kind(cx: OpContext, it) -> str:
    if it is None or isinstance(it, NoneV):
        return "none"
    if isinstance(it, EllipsisV):
        return "ellipsis"
    if isinstance(it, SliceV):
        return "slice"
    if isinstance(it, BoolV):
        b = cx.bool_of(it)
        if b is None:
            raise NotApplicable("unknown bool index")
        return "true" if b else "false"
    if isinstance(it, IntV) or isinstance(it, int):
        return "int"
    if isinstance(it, TensorV):
        if it.dtype in MASK_DTYPES:
            return "mask"
        if it.dtype in INT_DTYPES:
            return "int" if it.shape.rank == 0 else "tensor"
        raise NotApplicable("index tensor of unknown dtype")
    if isinstance(it, ListV):
        if it.items is None:
            raise NotApplicable("list index of unknown length")
        if all(isinstance(i, IntV) for i in it.items):
            return "list"
    raise NotApplicable("unsupported index")


def _consumes(k: str, it) -> int:
    if k in ("int", "slice", "tensor", "list"):
        return 1
    if k == "mask":
        return it.shape.rank if it.shape.rank is not None else -1
    return 0


def slice_len(cx: OpContext, size: Expr, sl: SliceV) -> Expr:
    """Length of x[start:stop:step] along a dimension of `size`, with Python's clamping."""
    step = Expr.const(1) if sl.step is None or isinstance(sl.step, NoneV) else cx.int_of(sl.step)
    if step is None or step.value is None:
        raise NotApplicable("symbolic slice step")
    if step.value <= 0:
        cx.fail(f"{cx.opname}: slice step must be positive, got {step.value} (use flip for reverse order)", "SH107")

    def bound(v, default):
        if v is None or isinstance(v, NoneV):
            return None
        e = cx.int_of(v)
        if e is None:
            raise NotApplicable("slice bound unknown")
        if e.value is not None:
            negative = e.value < 0
        elif cx.entails(ge(e, 0)):
            negative = False
        elif cx.entails(lt(e, 0)):
            negative = True  # `x[:, :-w]` with w a size
        else:  # Python reads it from the start or from the end: two lengths
            raise NotApplicable("slice bound of unknown sign")
        if negative:
            e = size + e  # negative bounds count from the end, then clamp at 0
        return _clamp(cx, e, size)

    a = bound(sl.start, None) or Expr.const(0)
    b = bound(sl.stop, None) or size
    diff = b - a
    if diff.value is not None:
        diff = Expr.const(max(diff.value, 0))
    elif not (diff == size or b == size and a.value == 0) and not cx.entails(ge(diff, 0)):
        diff = emax(diff, 0)  # sizes are never negative, so only a real difference needs the max
    return diff if step.value == 1 else (diff + step.value - 1) // step.value


def _clamp(cx, e: Expr, size: Expr) -> Expr:
    if e.value == 0 or e == size:
        return e
    if e.value is not None and size.value is not None:
        return Expr.const(min(max(e.value, 0), size.value))
    if not (e.value is not None and e.value >= 0) and not cx.entails(ge(e, 0)):
        e = emax(e, 0)
    if e == size or cx.entails(le(e, size)):
        return e
    return emin(e, size)


def _check_int(cx: OpContext, x: TensorV, i: Expr, d: int, size: Expr) -> None:
    msg = lambda: (f"{cx.opname}: index {i} is out of range for dimension {d} of {cx.label(x)} {x.shape} "
           f"(size {size})")
    if i.value is not None and i.value < 0:
        cx.require(ge(size, -i.value), msg, "SH105")
    else:
        cx.require(lt(i, size), msg, "SH105")


def index_shape(cx: OpContext, x: TensorV, index) -> tuple:
    """(result dims, strides or None, whether it is a view) of x[index]."""
    items = list(index.items) if isinstance(index, TupleV) and not index.is_size else [index]
    kinds = [_kind(cx, it) for it in items]
    if any(_consumes(k, it) < 0 for k, it in zip(kinds, items)):
        # a mask of unknown rank (`m[i] == 1` of a tensor with a `*` segment) takes an unknown
        # number of dims: where the others and an ellipsis land is unknown, never an error
        raise NotApplicable("mask of unknown rank")
    need = sum(_consumes(k, it) for k, it in zip(kinds, items))
    dims = cx.dims(x, None)
    r = len(dims)
    if need > r:
        cx.fail(f"{cx.opname}: too many indices for {cx.label(x)} {x.shape} of dimension {r} ({need} given)", "SH105")
    st = strides_of(x)
    out: list = []        # (size, stride or None, advanced index shape or None)
    d = 0
    for k, it in zip(kinds, items):
        if _consumes(k, it) and d + _consumes(k, it) > r:
            cx.fail(f"{cx.opname}: too many indices for {cx.label(x)} {x.shape} of dimension {r}", "SH105")
        if k == "ellipsis":  # PyTorch lets every ellipsis skip the same number of dims
            for _ in range(min(r - need, r - d)):
                out.append((dims[d], st[d] if st else None, None))
                d += 1
        elif k == "none" or k == "true":
            nxt = st[d] * dims[d] if st and d < r else Expr.const(1)
            out.append((Expr.const(1), nxt, None))
        elif k == "false":
            out.append((Expr.const(0), Expr.const(1), None))
        elif k == "int":
            if not isinstance(it, TensorV):
                _check_int(cx, x, cx.int_of(it), d, dims[d])
            d += 1
        elif k == "slice":
            n = slice_len(cx, dims[d], it)
            step = cx.const_int(it.step) if it.step is not None and not isinstance(it.step, NoneV) else 1
            out.append((n, st[d] * step if st else None, None))
            d += 1
        elif k == "tensor":
            out.append((dims[d], None, it.shape))
            d += 1
        elif k == "list":
            for i in it.items:
                _check_int(cx, x, cx.int_of(i), d, dims[d])
            out.append((dims[d], None, Shape.of((len(it.items),))))
            d += 1
        elif k == "mask":
            m = it.shape.dims
            for j, md in enumerate(m):
                cx.require(eq(md, dims[d + j]), lambda: f"{cx.opname}: the mask {it.shape} does not match "
                           f"{cx.label(x)} {x.shape} at dimension {d + j} ({md} vs {dims[d + j]})", "SH101")
            n = cx.fresh("n")
            cx.require(conj(ge(n, 0), le(n, product(m))), "mask count", "SH107")
            out.append((n, None, Shape.of((n,))))
            d += len(m)
    for j in range(d, r):  # trailing dimensions not mentioned
        out.append((dims[j], st[j] if st else None, None))
    adv = [i for i, o in enumerate(out) if o[2] is not None]
    if not adv:
        return [o[0] for o in out], ([o[1] for o in out] if st else None), True
    bshape = broadcast_shapes(cx, *[out[i][2] for i in adv])
    if bshape.rank is None:
        raise NotApplicable("index of unknown rank")
    plain = [o[0] for o in out if o[2] is None]
    if adv == list(range(adv[0], adv[-1] + 1)):
        before = [o[0] for o in out[:adv[0]]]
        return before + list(bshape.dims) + [o[0] for o in out[adv[-1] + 1:]], None, False
    return list(bshape.dims) + plain, None, False


@op("Tensor.__getitem__")
def getitem(cx: OpContext, self, index):
    x = self
    if not isinstance(x, TensorV):
        raise NotApplicable("input unknown")
    if x.shape.rank is None:
        if _an_item(cx, x, index):
            item = cx.tensor(Shape.unknown(cx.fresh_star(None)), like=x)
            item.maybe_sequence = True  # (itself a tuple, maybe: nested levels)
            return item
        return _getitem_unknown_rank(cx, x, index)
    dims, st, is_view = index_shape(cx, x, index)
    if not is_view:
        return cx.tensor(dims, like=x)
    return view_result(cx, dims, x, st, f"sliced on line {cx.span.line}" if cx.span else "sliced")


def _an_item(cx: OpContext, x: TensorV, index) -> bool:
    """Whether `x[i]` may be an item of a tuple of tensors (`x[1:]`: a tuple of them): `x` is a
    parameter only hinted to be a tensor of which nothing is known yet
    (`hidden_states[i].permute(0, 3, 1, 2)` over a backbone's feature maps). Such an item's shape
    is its own: items differ, so what one teaches (a rank, a channel count) says nothing of `x` or
    of the others. Once `x` is used as a tensor (an axis read, a rank learned), `x[i]` is a row of
    it again."""
    s = x.shape
    return x.maybe_sequence and s.star is not None and not s.dims and not s.suffix \
        and not isinstance(index, TupleV) and _kind(cx, index) in ("int", "slice")


def _whole(item) -> bool:
    it, k = item
    return k == "slice" and all(p is None or isinstance(p, NoneV) for p in (it.start, it.stop, it.step))


def _edited(part, first: int) -> list:
    """The axes an index edits, counted from `first` (0: from the front; 1: from the end, `part`
    reversed): those an int or a slice other than `:` takes, and the one a None is inserted
    beside on the side away from the segment."""
    out, d = [], first
    for it, k in part:
        if k == "none":
            if d > first:
                out.append(d - 1)
        elif k in ("int", "slice"):
            if k == "int" or not _whole((it, k)):
                out.append(d)
            d += 1
    return out


def _getitem_unknown_rank(cx: OpContext, x: TensorV, index):
    """x[0], x[:, 0], x[..., -1] on a tensor of unknown rank: only leading/trailing edits."""
    items = list(index.items) if isinstance(index, TupleV) else [index]
    kinds = [_kind(cx, it) for it in items]
    if any(k in ("tensor", "list", "mask", "true", "false") for k in kinds):
        raise NotApplicable("advanced index on unknown rank")
    if "ellipsis" in kinds:
        e = kinds.index("ellipsis")
        head, tail = list(zip(items[:e], kinds[:e])), list(zip(items[e + 1:], kinds[e + 1:]))
    else:
        head, tail = list(zip(items, kinds)), []
    # `:` beside the unknown middle changes nothing: `freqs[:, -n:, :]` on [*s, d] must not take
    # its third `:` for a dimension before d (rank 3 has d there)
    while head and _whole(head[-1]):
        head.pop()
    while tail and _whole(tail[0]):
        tail.pop(0)
    nh = sum(1 for _, k in head if k in ("int", "slice"))
    nt = sum(1 for _, k in tail if k in ("int", "slice"))
    if nh:
        cx.dim(x, nh - 1)
    if nt:
        cx.dim(x, -nt)
    s = x.shape
    if s.rank is not None:
        return getitem(cx, x, index)
    s = apart(cx, s, _edited(head, 0), _edited(tail[::-1], 1))
    if len(s.dims) < nh or len(s.suffix) < nt:
        raise NotApplicable("the indexed axes may be the same axes")

    def edit(part, dims):
        out, d = [], 0
        for it, k in part:
            if k == "none":
                out.append(Expr.const(1))
            elif k == "int":
                if not isinstance(it, TensorV):
                    _check_int(cx, x, cx.int_of(it), d, dims[d])
                d += 1
            elif k == "slice":
                out.append(slice_len(cx, dims[d], it))
                d += 1
        return out, d

    h, used = edit(head, s.dims)
    t_start = len(s.suffix) - nt
    t, _ = edit(tail, s.suffix[t_start:])
    return cx.tensor(Shape(tuple(h) + s.dims[used:], s.star, s.suffix[:t_start] + tuple(t)), like=x)


@op("Tensor.__setitem__")
def setitem(cx: OpContext, self, index, value):
    x = self
    if not isinstance(x, TensorV) or x.shape.rank is None:
        raise NotApplicable("input unknown")
    dims, _, _ = index_shape(cx, x, index)
    if isinstance(value, TensorV) and value.shape.rank is not None:
        target = Shape.of(dims)
        vd = value.shape.dims
        # the value must broadcast to the indexed region (extra leading size-1 dims are allowed)
        while len(vd) > len(dims) and vd[0].value == 1:
            vd = vd[1:]
        if len(vd) > len(dims):
            cx.fail(f"{cx.opname}: cannot assign a value of shape {value.shape} to a region of shape "
                    f"{target}", "SH106")
        out = broadcast_shapes(cx, target, Shape(vd))
        for a, b in zip(out.dims, dims):
            cx.require(eq(a, b), lambda: f"{cx.opname}: cannot assign a value of shape {value.shape} to a region of "
                       f"shape {target}", "SH106")
    return NoneV()


@op("torch.index_select", "Tensor.index_select")
def index_select(cx: OpContext, input, dim, index):
    x = input
    if not isinstance(x, TensorV) or not isinstance(index, TensorV) or x.shape.rank is None \
            or index.shape.rank is None:
        raise NotApplicable("operands unknown")
    if index.shape.rank > 1:
        cx.fail(f"{cx.opname}: the index must be a vector (0D or 1D), got {index.shape}", "SH102")
    if index.dtype is not None and index.dtype not in ("int64", "int32"):
        cx.fail(f"{cx.opname}: the index must be an integer tensor, got {index.dtype}", "SH107")
    d = cx.norm_dim(dim, x.shape.rank)
    if x.shape.rank == 0:
        return cx.tensor((), like=x)
    n = index.shape.dims[0] if index.shape.rank == 1 else Expr.const(1)
    dims = list(x.shape.dims)
    dims[d] = n
    return cx.tensor(dims, like=x)


@op("torch.masked_select", "Tensor.masked_select")
def masked_select(cx: OpContext, input, mask):
    if not isinstance(input, TensorV) or not isinstance(mask, TensorV):
        raise NotApplicable("operands unknown")
    if mask.dtype is not None and mask.dtype != "bool":
        cx.fail(f"{cx.opname}: the mask must be a bool tensor, got {mask.dtype}", "SH107")
    full = broadcast_shapes(cx, input.shape, mask.shape)
    n = cx.fresh("n")
    if full.rank is not None:
        cx.require(conj(ge(n, 0), le(n, product(full.dims))), "mask count", "SH107")
    return cx.tensor((n,), like=input)


@op("torch.select", "Tensor.select")
def select(cx: OpContext, input, dim, index):
    x = input
    if not isinstance(x, TensorV) or x.shape.rank is None:
        raise NotApplicable("input unknown")
    if x.shape.rank == 0:
        cx.fail(f"{cx.opname} cannot be applied to a 0-dim tensor", "SH102")
    d = cx.norm_dim(dim, x.shape.rank)
    i = cx.int_of(index)
    if i is None:
        raise NotApplicable("index unknown")
    _check_int(cx, x, i, d, x.shape.dims[d])
    st = strides_of(x)
    keep = [j for j in range(x.shape.rank) if j != d]
    return view_result(cx, [x.shape.dims[j] for j in keep], x, [st[j] for j in keep] if st else None)


@op("torch.take", "Tensor.take")
def take(cx: OpContext, input, index):
    if not isinstance(input, TensorV) or not isinstance(index, TensorV):
        raise NotApplicable("operands unknown")
    return cx.tensor(index.shape, like=input)


@op("torch.index_put", "Tensor.index_put", "Tensor.index_put_", "torch.index_put_")
def index_put(cx: OpContext, input, indices, values, accumulate=False):
    """`x[indices] = values` with a tuple of index tensors: values broadcast to the indexed region."""
    x = input
    if not isinstance(x, TensorV) or x.shape.rank is None:
        raise NotApplicable("input unknown")
    if not isinstance(indices, (TupleV, ListV)) or indices.items is None:
        raise NotApplicable("indices unknown")
    if not all(isinstance(i, (TensorV, NoneV)) for i in indices.items):
        raise NotApplicable("an index is not a tensor")
    setitem(cx, x, TupleV(tuple(indices.items)), values)
    return cx.tensor(x.shape, dtype=x.dtype)
