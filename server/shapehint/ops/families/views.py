"""Views and shape-changing operators: reshape/view, flatten, squeeze, expand/repeat,
repeat_interleave, narrow, the sliding-window Tensor.unfold, as_strided,
view_as_real/view_as_complex, sum_to_size and resize_ (permutations and transposes:
permutations.py).

Contiguity is modelled by *strides* (the stride model lives in ops/common.py because indexing
and joins make views too): transpose/permute/expand/narrow results carry explicit strides, so
`view` runs PyTorch's own stride computation and is rejected (SH104) exactly when PyTorch
rejects it; reshape falls back to a contiguous copy. With symbolic sizes, SH104 is reported only
when no size equal to 1 could make the view legal (that is what "no admissible input" means).
"""
from __future__ import annotations

from ...shapes.expr import Expr, product
from ...shapes.rearranged import Inserted
from ...shapes.shape import Shape, dim_str, disj, eq, ge, is_dyn, ne
from ...shapes.values import DtypeV, IntV, StarSizeV, TensorV, TupleV
from ..arguments import known_tensor, ranked_tensor
from ..cancel import cancelled
from ..common import (apart, dim_list, located, reshaped, shape_str, size_list, strides_of, view_result,
                      view_strides as _view_strides)
from ..dtypes import COMPLEX_OF_PARTS
from ..context import NotApplicable, OpContext
from ..edges import axiswise, axiswise_or_edge
from ..registry import op


# ---- reshape / view --------------------------------------------------------------------

def infer_size(cx: OpContext, x: TensorV, sizes: list, what: str) -> tuple:
    """Sizes with at most one -1, checked against x's number of elements."""
    neg = [i for i, s in enumerate(sizes) if s.value == -1]
    if len(neg) > 1:
        cx.fail(f"{cx.opname}: only one dimension can be inferred (-1), got {shape_str(sizes)}", "SH103")
    for s in sizes:
        if s.value is not None and s.value < -1:
            cx.fail(f"{cx.opname}: invalid shape dimension {s.value} in {shape_str(sizes)}", "SH107")
    if x.shape.rank is None:
        out = list(sizes)
        if neg:
            # the elements of a tensor of unknown rank: its known axes times its segment's
            # product, so the inferred size is that product times what the known sizes leave of
            # the known axes (`x.view(-1, x.size(-1))`: the leading axes flattened, named once
            # their rank is learned), else unknown; the rank and the other sizes are those asked for
            out[neg[0]] = _segment_quotient(cx, x, [s for s in sizes if s.value != -1]) or cx.fresh("?inferred")
        return tuple(out)
    numel = product(x.shape.dims)
    known = [s for s in sizes if s.value != -1]
    kprod = product(known)
    if not neg:
        cx.require(eq(kprod, numel), lambda: f"{cx.opname}: {what} {shape_str(sizes)} needs {kprod} elements, but "
                   f"{cx.label(x)} {x.shape} has {numel}", "SH103")
        return tuple(sizes)
    if kprod.value == 0:
        cx.fail(f"{cx.opname}: cannot infer -1 in {shape_str(sizes)}: the other sizes multiply to 0", "SH103")
    num, den = cancelled(numel, known, cx.entails)
    cx.require(eq(num % den, 0), lambda: f"{cx.opname}: {what} {shape_str(sizes)} cannot hold the {numel} elements of "
               f"{cx.label(x)} {x.shape}: {numel} is not a multiple of {kprod}", "SH103")
    out = list(sizes)
    out[neg[0]] = num // den
    return tuple(out)


def _segment_quotient(cx: OpContext, x: TensorV, known: list):
    """The elements of unknown-rank `x` over the product of `known` where they divide its known
    axes: a multiple of its segment's product. Where the segment's two sides may be the same axes,
    those of the segment they were split from (`view_base`), and the exact quotient (the view holds
    every element) even where they do not (`x.view(-1, x.shape[-1])` of `[B, T, *x]`: `B*T//x.shape[-1]`)."""
    shared = cx.sides_shared(x.shape.star)
    s = cx.view_base(x.shape) if shared else x.shape
    p = None if s is None or cx.sides_shared(s.star) else cx.segment_product(s.star)
    if p is None:
        return None
    num, den = cancelled(product(s.dims + s.suffix), known, cx.entails)
    return num * p if den.value == 1 else (num * p) // den if shared else None


def _sizes_of(cx, size, x: TensorV) -> list:
    if len(size) == 1 and isinstance(size[0], DtypeV):
        raise NotApplicable("view(dtype)")
    return size_list(cx, size, x.shape.rank is None)


def _around_segment(cx: OpContext, x: TensorV, size) -> Shape | None:
    """`x.view(sizes)` where the sizes are around x's own unknown segment (`(*x.shape[:-1], -1,
    64)`, a StarSizeV): the segment's elements cancel, so the sizes around it are exact; None
    when the sizes are not such. Only what the known sizes decide exactly: no -1 that does not
    divide out, no claim that fails (that is left to the code's known ranks). Sizes around
    another tensor's segment are the result's as given, a -1 among them a size of its own."""
    if len(size) != 1 or not isinstance(size[0], StarSizeV):
        return None
    t, s = size[0].shape, x.shape
    given = t.dims + t.suffix
    inferred = [i for i, d in enumerate(given) if d.value == -1]
    if t.star != s.star and len(inferred) <= 1 and not any(d.value is not None and d.value < -1 for d in given):
        # sizes around another tensor's segment: a view has the sizes it is asked for
        # (`y.view(x.size()[:-1] + (n,))` after a matmul of `y`'s flattened rows); whether the
        # elements agree is not decided here, so neither is a `-1`'s size: a fresh one
        # (`out.reshape(*input_shape, -1)` of a kernel's result the analysis lost)
        sizes = [cx.fresh("?inferred") if i in inferred else d for i, d in enumerate(given)]
        return Shape(tuple(sizes[:len(t.dims)]), t.star, tuple(sizes[len(t.dims):])) if inferred else t
    # (sizes on both sides of a segment may be the same axes when it is empty, where they were
    # learned one side after the other: not cancelled)
    if s.star is None or t.star != s.star or ((s.dims and s.suffix) or (t.dims and t.suffix)) \
            and cx.sides_shared(s.star):
        raise NotApplicable("sizes around another segment")
    sizes = list(t.dims + t.suffix)
    numel = product(s.dims + s.suffix)
    neg = [i for i, d in enumerate(sizes) if d.value == -1]
    if len(neg) > 1 or any(d.value is not None and d.value < -1 for d in sizes):
        raise NotApplicable("sizes not exact")
    known = [d for d in sizes if d.value != -1]
    kprod = product(known)
    if not neg:
        cx.require(eq(kprod, numel), lambda: f"{cx.opname}: the shape {t} needs {kprod} elements for each one of "
                   f"the leading sizes, but {cx.label(x)} {s} has {numel}", "SH103")
    else:
        if kprod.value == 0:
            raise NotApplicable("sizes multiply to 0")
        num, den = cancelled(numel, known, cx.entails)
        cx.require(eq(num % den, 0), lambda: f"{cx.opname}: the shape {t} cannot hold the elements of {cx.label(x)} "
                   f"{s}: {numel} is not a multiple of {kprod}", "SH103")
        sizes[neg[0]] = num // den
    return Shape(tuple(sizes[:len(t.dims)]), t.star, tuple(sizes[len(t.dims):]))


@op("Tensor.view")
def view(cx: OpContext, self, *size):
    x = known_tensor(self)
    around = _around_segment(cx, x, size)
    if around is not None:
        return cx.tensor(around, like=x)
    new = infer_size(cx, x, _sizes_of(cx, size, x), "shape")
    if x.shape.rank is None:
        return cx.tensor(new, like=x)
    st = None if x.contiguous else _view_strides(cx, x, new, f"the view to {shape_str(new)}")
    return view_result(cx, new, x, st)


@op("torch.reshape", "Tensor.reshape")
def reshape(cx: OpContext, input, *shape):
    x = known_tensor(input)
    around = _around_segment(cx, x, shape)
    if around is not None:
        return cx.tensor(around, like=x)
    new = infer_size(cx, x, size_list(cx, shape, x.shape.rank is None), "shape")
    return _reshaped(cx, x, new)


def _reshaped(cx, x: TensorV, new) -> TensorV:
    if x.shape.rank is None:
        return cx.tensor(new, like=x)
    if x.contiguous:  # a view of a row-major tensor: row-major (strides None: the source's layout)
        return view_result(cx, new, x, None)
    return reshaped(cx, x, new)


@op("Tensor.view_as")
def view_as(cx: OpContext, self, other):
    return view(cx, self, TupleV(tuple(_int(d) for d in cx.dims(other, None, "other"))))


@op("Tensor.reshape_as")
def reshape_as(cx: OpContext, self, other):
    return reshape(cx, self, TupleV(tuple(_int(d) for d in cx.dims(other, None, "other"))))


def _int(e):
    return IntV(e)


@op("torch.flatten", "Tensor.flatten", "torch.ravel", "Tensor.ravel")
def flatten(cx: OpContext, input, start_dim=0, end_dim=-1):
    x = known_tensor(input)
    a, b = cx.const_int(start_dim), cx.const_int(end_dim)
    if x.shape.rank is None and a is not None and b is not None:  # `ctx.flatten(-2)` of `[*x, h, d]`
        return axiswise(cx, x, [a, b], lambda t: flatten(cx, t, start_dim, end_dim))
    dims = cx.dims(x, None)
    r = len(dims)
    s, e = cx.norm_dim(start_dim, r, "start_dim"), cx.norm_dim(end_dim, r, "end_dim")
    if r == 0:
        return _reshaped(cx, x, (Expr.const(1),))
    if s > e:
        cx.fail(f"{cx.opname}: start_dim ({s}) cannot come after end_dim ({e})", "SH107")
    if s == e:
        return x
    return _reshaped(cx, x, dims[:s] + (product(dims[s:e + 1]),) + dims[e + 1:])


@op("torch.unflatten", "Tensor.unflatten")
def unflatten(cx: OpContext, input, dim, sizes):
    x = known_tensor(input)
    dims = cx.dims(x, None)
    if not dims:
        cx.fail(f"{cx.opname} cannot unflatten a 0-dim tensor", "SH105")
    d = cx.norm_dim(dim, len(dims))
    sz = size_list(cx, [sizes])
    if not sz:
        cx.fail(f"{cx.opname}: sizes must be non-empty", "SH107")
    sub = cx.tensor(Shape((dims[d],)), dtype=x.dtype)
    new = infer_size(cx, sub, sz, "sizes")
    return _reshaped(cx, x, dims[:d] + new + dims[d + 1:])


# ---- squeeze / unsqueeze -----------------------------------------------------------------

@op("torch.squeeze", "Tensor.squeeze", "Tensor.squeeze_")
def squeeze(cx: OpContext, input, dim=None):
    x = known_tensor(input)
    dims = cx.dims(x, None)
    r = len(dims)
    which = dim_list(cx, dim, r)
    drop = []
    if which is not None and len(set(which)) != len(which):
        cx.fail(f"{cx.opname}: a dim appears more than once in {which}", "SH107")
    if which is None:
        maybe = [dim_str(d) if not is_dyn(d) else f"axis {i}"  # (an unknown size has no name to show)
                 for i, d in enumerate(dims) if d.value is None and not cx.entails(ne(d, 1))]
        if maybe:
            cx.warn("SH202", f"{cx.opname} without a dim also removes {', '.join(maybe)} of "
                    f"{cx.label(x)} {x.shape} when it is 1; pass the dim to squeeze")
        drop = [i for i, d in enumerate(dims) if d.value == 1]
    else:
        for i in set(which):
            if r == 0:
                continue
            d = dims[i]
            if d.value == 1 or cx.entails(eq(d, 1)):
                drop.append(i)
            elif d.value is None and not cx.entails(ne(d, 1)):
                raise NotApplicable("squeezed size may or may not be 1")
    st = strides_of(x)
    keep = [i for i in range(r) if i not in drop]
    return view_result(cx, [dims[i] for i in keep], x, [st[i] for i in keep] if st is not None else None)


@op("torch.unsqueeze", "Tensor.unsqueeze", "Tensor.unsqueeze_")
def unsqueeze(cx: OpContext, input, dim):
    x = known_tensor(input)
    if x.shape.rank is None:
        i = cx.const_int(dim)
        if i is None:
            raise NotApplicable("dim unknown")
        s = x.shape
        if i >= 0 and i <= len(s.dims):
            s = apart(cx, s, front=(i - 1,) if i else ())  # a new axis after a trailing one: not last
            return cx.tensor(Shape(s.dims[:i] + (Expr.const(1),) + s.dims[i:], s.star, s.suffix), like=x)
        if i < 0 and -i - 1 <= len(s.suffix):
            s = apart(cx, s, back=(-i - 1,) if i < -1 else ())
            k = len(s.suffix) + i + 1
            return cx.tensor(Shape(s.dims, s.star, s.suffix[:k] + (Expr.const(1),) + s.suffix[k:]), like=x)
        if i > 0:  # (past the known leading axes: learned up to axis i - 1, or those before it kept)
            return axiswise_or_edge(cx, x, [i - 1], lambda t: unsqueeze(cx, t, dim), Inserted(i))
        raise NotApplicable("rank unknown")
    dims = x.shape.dims
    r = len(dims)
    i = cx.norm_dim(dim, r + 1)
    st = strides_of(x)
    nst = None
    if st is not None:
        s_new = Expr.const(1) if i >= r else dims[i] * st[i]
        nst = list(st[:i]) + [s_new] + list(st[i:])
    return view_result(cx, dims[:i] + (Expr.const(1),) + dims[i:], x, nst)


# ---- expand / repeat -----------------------------------------------------------------------

def expanded(cx: OpContext, x: TensorV, sizes: list, what: str = "expand") -> TensorV:
    # as many axes known as sizes given: exactly that rank (`t[None, :, None].expand(b, -1, 1)`)
    sure = x.shape.rank is None and max(len(x.shape.dims), len(x.shape.suffix)) >= len(sizes)
    dims = cx.dims(x, len(sizes) if sure else None)
    r = len(dims)
    if len(sizes) < r:
        cx.fail(f"{cx.opname}: the number of sizes ({len(sizes)}) must be at least the number of dimensions "
                f"of {cx.label(x)} {x.shape} ({r})", "SH102")
    st = strides_of(x)
    lead = len(sizes) - r
    out, ost = [], []
    for k, s in enumerate(sizes):
        if k < lead:
            if s.value is not None and s.value < 0:
                cx.fail(f"{cx.opname}: size {s} is not allowed for a new leading dimension", "SH107")
            out.append(s)
            ost.append(Expr.const(0))
            continue
        d = dims[k - lead]
        old_st = st[k - lead] if st is not None else None
        if s.value is not None and s.value < -1:
            cx.fail(f"{cx.opname}: invalid size {s}", "SH107")
        if s.value == -1 or s == d:
            out.append(d)
            ost.append(old_st)
            continue
        if d.value == 1:
            out.append(s)
            ost.append(Expr.const(0))
            continue
        cx.require(disj(eq(d, s), eq(d, 1)), lambda: f"{cx.opname}: the expanded size {s} must match the existing size "
                   f"{d} of {cx.label(x)} {x.shape} at dimension {k - lead} (only size-1 dimensions expand)",
                   "SH101")
        out.append(s)
        ost.append(old_st if cx.entails(eq(d, s)) else Expr.const(0))
    ok = st is not None and all(s is not None for s in ost)
    return view_result(cx, out, x, ost if ok else None, located(cx, "expanded"))


@op("Tensor.expand")
def expand(cx: OpContext, self, *sizes, implicit=False):
    return expanded(cx, known_tensor(self), size_list(cx, sizes))


@op("Tensor.expand_as")
def expand_as(cx: OpContext, self, other):
    return expanded(cx, known_tensor(self), list(cx.dims(other, None, "other")))


@op("torch.broadcast_to", "Tensor.broadcast_to")
def broadcast_to(cx: OpContext, input, size):
    return expanded(cx, known_tensor(input), size_list(cx, [size]))


@op("Tensor.repeat")
def repeat(cx: OpContext, self, *repeats):
    x = known_tensor(self)
    reps = size_list(cx, repeats)
    dims = cx.dims(x, None)
    if len(reps) < len(dims):
        cx.fail(f"{cx.opname}: {len(reps)} repeat counts for {cx.label(x)} {x.shape} with {len(dims)} "
                "dimensions; give at least one per dimension", "SH102")
    return _tiled(cx, x, dims, reps)


def _tiled(cx, x, dims, reps):
    for rp in reps:
        if rp.value is not None and rp.value < 0:
            cx.fail(f"{cx.opname}: repeat counts must be non-negative, got {rp}", "SH107")
    full = (Expr.const(1),) * (len(reps) - len(dims)) + tuple(dims)
    return cx.tensor([a * b for a, b in zip(full, reps)], like=x)


@op("torch.tile", "Tensor.tile")
def tile(cx: OpContext, input, dims):
    x = known_tensor(input)
    shape = cx.dims(x, None)
    reps = size_list(cx, [dims])
    reps = [Expr.const(1)] * (len(shape) - len(reps)) + reps
    return _tiled(cx, x, shape, reps)


# ---- narrow --------------------------------------------------------------------------------

@op("torch.narrow", "Tensor.narrow")
def narrow(cx: OpContext, input, dim, start, length):
    x = known_tensor(input)
    dims = cx.dims(x, None)
    if not dims:
        cx.fail(f"{cx.opname} cannot be applied to a 0-dim tensor", "SH102")
    d = cx.norm_dim(dim, len(dims))
    size = dims[d]
    st, ln = cx.int_of(start), cx.int_of(length)
    if isinstance(start, TensorV):
        st = cx.fresh("start")
    if st is None or ln is None:
        raise NotApplicable("start/length unknown")
    if st.value is not None and st.value < 0:
        cx.require(ge(size, -st.value), lambda: f"{cx.opname}: start {st} is out of range for dimension {d} of size "
                   f"{size}", "SH105")
        st = st + size
    cx.require(ge(ln, 0), lambda: f"{cx.opname}: length must be non-negative, got {ln}", "SH107")
    cx.require(ge(size, st), lambda: f"{cx.opname}: start {st} is out of range for dimension {d} of size {size}", "SH105")
    cx.require(ge(size, st + ln), lambda: f"{cx.opname}: start ({st}) + length ({ln}) exceeds dimension {d} of size "
               f"{size} of {cx.label(x)} {x.shape}", "SH105")
    strides = strides_of(x)
    return view_result(cx, dims[:d] + (ln,) + dims[d + 1:], x, strides, located(cx, "narrowed"))


# ---- sliding windows and explicit strides ----------------------------------------------------

@op("Tensor.unfold")
def unfold_windows(cx: OpContext, self, dimension, size, step):
    """Windows of `size` every `step` along `dimension`, appended as a last dim (a view)."""
    x = known_tensor(self)
    dims = cx.dims(x, None)
    r = len(dims)
    d = cx.norm_dim(dimension, r, "dimension")
    sz, st = cx.int_of(size), cx.int_of(step)
    if sz is None or st is None:
        raise NotApplicable("size/step unknown")
    n = dims[d] if r else Expr.const(1)
    cx.require(ge(sz, 0), lambda: f"{cx.opname}: size is {sz} but must be >= 0", "SH107")
    cx.require(ge(n, sz), lambda: f"{cx.opname}: maximum size for {cx.label(x)} {x.shape} at dimension {d} is {n} but "
               f"size is {sz}", "SH107")
    cx.require(ge(st, 1), lambda: f"{cx.opname}: step is {st} but must be > 0", "SH107")
    windows = (n - sz) // st + 1
    old = strides_of(x)
    if r == 0:
        return view_result(cx, [sz], x, [Expr.const(1)], located(cx, "unfolded"))
    out = list(dims)
    out[d] = windows
    new_st = None
    if old is not None:
        new_st = list(old)
        new_st[d] = old[d] * st
        new_st.append(old[d])
    return view_result(cx, out + [sz], x, new_st, located(cx, "unfolded"))


@op("torch.as_strided", "Tensor.as_strided")
def as_strided(cx: OpContext, input, size, stride, storage_offset=None):
    x = known_tensor(input)
    sizes, strides = size_list(cx, [size]), size_list(cx, [stride])
    if len(sizes) != len(strides):
        cx.fail(f"{cx.opname}: mismatch in length of strides and shape ({len(strides)} vs {len(sizes)})", "SH107")
    return view_result(cx, sizes, x, strides, located(cx, "as_strided"))


@op("torch.view_as_real")
def view_as_real(cx: OpContext, input):
    x = known_tensor(input)
    dims = cx.dims(x, None)
    if x.dtype is not None and x.dtype not in COMPLEX_OF_PARTS.values():
        cx.fail(f"{cx.opname}: view_as_real is only supported for complex tensors, but {cx.label(x)} is {x.dtype}",
                "SH107")
    real = {v: k for k, v in COMPLEX_OF_PARTS.items()}.get(x.dtype)
    return cx.tensor(tuple(dims) + (Expr.const(2),), dtype=real)


@op("torch.view_as_complex")
def view_as_complex(cx: OpContext, input):
    x = known_tensor(input)
    dims = cx.dims(x, None)
    if x.dtype is not None and x.dtype not in COMPLEX_OF_PARTS:
        cx.fail(f"{cx.opname}: view_as_complex is only supported for float tensors, but {cx.label(x)} is {x.dtype}",
                "SH107")
    if not dims:
        cx.fail(f"{cx.opname}: the input must have a last dimension of size 2, but {cx.label(x)} is a scalar", "SH102")
    cx.require(eq(dims[-1], 2), lambda: f"{cx.opname}: the input must have a last dimension of size 2, but "
               f"{cx.label(x)} {x.shape} has {dims[-1]}", "SH101")
    return cx.tensor(dims[:-1], dtype=COMPLEX_OF_PARTS.get(x.dtype))


# ---- sum_to_size / resize_ -------------------------------------------------------------------

@op("Tensor.sum_to_size")
def sum_to_size(cx: OpContext, self, *size):
    """The inverse of expand: `size` must expand to self's shape."""
    x = known_tensor(self)
    dims = cx.dims(x, None)
    if not size:
        cx.fail(f"{cx.opname}: sum_to_size() needs a size", "SH107")
    sizes = size_list(cx, size)
    bad = lambda: f"{cx.opname}: size {shape_str(sizes)} is not expandable to size {x.shape}"
    if len(sizes) > len(dims):
        cx.fail(bad, "SH102")
    for s, d in zip(reversed(sizes), reversed(dims)):
        cx.require(disj(eq(s, d), eq(s, 1)), bad, "SH101")
    return cx.tensor(sizes, like=x)


@op("Tensor.resize_")
def resize_(cx: OpContext, self, *sizes, memory_format=None):
    x = known_tensor(self)
    new = size_list(cx, sizes)
    for s in new:
        cx.require(ge(s, 0), lambda: f"{cx.opname}: trying to resize to a negative dimension {s}: {shape_str(new)}",
                   "SH107")
    return cx.tensor(new, like=x)


@op("Tensor.resize_as_")
def resize_as_(cx: OpContext, self, the_template, *, memory_format=None):
    x, t = known_tensor(self), known_tensor(the_template)
    return cx.tensor(cx.dims(t, None), like=x)


@op("torch.repeat_interleave", "Tensor.repeat_interleave")
def repeat_interleave(cx: OpContext, input, repeats=None, dim=None, *, output_size=None):
    x = ranked_tensor(input)
    r = cx.int_of(repeats)
    if r is None:
        if not isinstance(repeats, TensorV):
            raise NotApplicable("repeats unknown")
        # per-element counts: the size along `dim` is their sum, known only when run; the other
        # axes stay (flattened to 1-D only without a `dim`)
        if cx.is_none(dim):
            return cx.tensor([cx.fresh("repeated")], like=x)
        dims = list(x.shape.dims)
        dims[cx.norm_dim(dim, x.shape.rank)] = cx.fresh("repeated")
        return cx.tensor(dims, like=x)
    cx.require(ge(r, 0), lambda: f"{cx.opname}: repeats must be non-negative, got {r}", "SH107")
    if cx.is_none(dim):
        n = Expr.const(1)
        for d in x.shape.dims:
            n = n * d
        return cx.tensor([n * r], like=x)
    k = cx.norm_dim(dim, x.shape.rank)
    dims = list(x.shape.dims)
    dims[k] = dims[k] * r
    return cx.tensor(dims, like=x)
