"""Shape helpers shared by many rules: broadcasting, elementwise results, dims lists."""
from __future__ import annotations

from ..shapes.expr import Expr, emax
from ..shapes.shape import Shape, conj, disj, eq
from ..shapes.values import TensorV, Value
from .context import NotApplicable, OpContext


def broadcast_dims(cx: OpContext, a: Expr, b: Expr, where: str) -> Expr:
    if a == b:
        return a
    if a.value == 1:
        return b
    if b.value == 1:
        return a
    cx.require(disj(eq(a, b), eq(a, 1), eq(b, 1)),
               f"{cx.opname}: shapes do not broadcast: {where} has sizes {a} and {b}", "SH106")
    if cx.entails(eq(a, b)):
        return a
    if cx.entails(eq(a, 1)):
        return b
    if cx.entails(eq(b, 1)):
        return a
    return emax(a, b)


def broadcast_shapes(cx: OpContext, *shapes: Shape) -> Shape:
    """PyTorch broadcasting (right-aligned); unknown-rank operands give an unknown-rank result."""
    known = [s for s in shapes if s.rank is not None]
    unknown = [s for s in shapes if s.rank is None]
    if unknown:
        if len(unknown) == 1 and all(s.rank == 0 for s in known):
            return unknown[0]
        if len({(u.star, u.dims, len(u.suffix)) for u in unknown}) == 1 and len(unknown) > 1 and not known:
            # the same unknown rest (x + f(x)): broadcast the known suffixes
            u = max(unknown, key=lambda s: len(s.suffix))
            suffix = list(u.suffix)
            for s in unknown:
                for i in range(1, len(s.suffix) + 1):
                    suffix[-i] = broadcast_dims(cx, suffix[-i], s.suffix[-i], f"dimension -{i}")
            return Shape(u.dims, u.star, tuple(suffix))
        if len(unknown) == 1 and all(len(s.dims) <= len(unknown[0].suffix) for s in known):
            u = unknown[0]
            suffix = list(u.suffix)
            for s in known:
                for i in range(1, len(s.dims) + 1):
                    suffix[-i] = broadcast_dims(cx, suffix[-i], s.dims[-i], f"dimension -{i}")
            return Shape(u.dims, u.star, tuple(suffix))
        raise NotApplicable("broadcast of unknown ranks")
    rank = max((len(s.dims) for s in known), default=0)
    out: list[Expr] = []
    for i in range(rank, 0, -1):
        cur = None
        for s in known:
            if len(s.dims) >= i:
                d = s.dims[-i]
                cur = d if cur is None else broadcast_dims(cx, cur, d, f"dimension {rank - i}")
        out.append(cur)
    return Shape(tuple(out))


def tensor_args(*vals: Value) -> list[TensorV]:
    return [v for v in vals if isinstance(v, TensorV)]


def result_dtype(*vals: Value) -> str | None:
    dts = [v.dtype for v in vals if isinstance(v, TensorV) and v.dtype]
    if not dts:
        return None
    for pref in ("float64", "float32", "bfloat16", "float16", "int64", "int32", "bool"):
        if pref in dts:
            return pref
    return dts[0]


def same_shape(cx: OpContext, x: Value) -> TensorV:
    if not isinstance(x, TensorV):
        raise NotApplicable("not a tensor")
    return TensorV(x.shape, x.dtype, origin=cx.span)


# ---- size arguments (appended for the tensor-manipulation families) ---------------

def size_list(cx: OpContext, args) -> list:
    """Sizes given as varargs (`view(2, 3)`) or one tuple/list/torch.Size (`view((2, 3))`).

    Returns a list of Exprs; raises NotApplicable when a size or the length is unknown.
    """
    from ..shapes.values import ListV, TupleV
    args = list(args)
    if len(args) == 1 and isinstance(args[0], (TupleV, ListV)):
        items = args[0].items
        if items is None:
            raise NotApplicable("size of unknown length")
        args = list(items)
    elif len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = list(args[0])
    out = []
    for a in args:
        e = cx.int_of(a)
        if e is None:
            raise NotApplicable("size unknown")
        out.append(e)
    return out


def dim_list(cx: OpContext, v, rank: int, what: str = "dim") -> list | None:
    """A dim argument given as an int or a tuple/list of ints, normalised; None when absent."""
    from ..shapes.values import ListV, NoneV, TupleV
    if v is None or isinstance(v, NoneV):
        return None
    if isinstance(v, (TupleV, ListV)):
        if v.items is None:
            raise NotApplicable("dims unknown")
        return [cx.norm_dim(i, rank, what) for i in v.items]
    if isinstance(v, (list, tuple)):
        return [cx.norm_dim(i, rank, what) for i in v]
    return [cx.norm_dim(v, rank, what)]


def shape_str(dims) -> str:
    from ..shapes.shape import dim_str
    return "[" + ", ".join(dim_str(Expr.lift(d)) for d in dims) + "]"
