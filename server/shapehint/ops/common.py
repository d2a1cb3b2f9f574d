"""Shape helpers shared by many rules: broadcasting, elementwise results, dims lists."""
from __future__ import annotations

from ..shapes.expr import Expr, emax
from ..shapes.shape import Shape, conj, disj, dim_str, eq, ge, is_dyn
from ..shapes.values import ListV, NoneV, TensorV, TupleV, Value
from .context import NotApplicable, OpContext
from .dtypes import result_type


def apart(cx: OpContext, s: Shape, front=(), back=()) -> Shape:
    """`s` less the known axes that may be the axes an operation edits on the other side.

    The axes named before a variadic segment and those after it may be the same axes when they
    were learned one side after the other (`x.shape[2]` read, then x met a Linear(16, ...): x may
    be [B, T, 16], the segment empty and axis 2 the last one; `cx.sides_shared`). Prefix axis i and suffix axis -j are the same when the rank is i + j, which is possible
    when i + j >= max(len(prefix), len(suffix)). An operation that edits (removes, replaces, or
    inserts beside) prefix axes `front` (0-based) or suffix axes `back` (1-based from the end)
    therefore keeps only the other side's axes that cannot be those; what is dropped goes into a
    segment of its own (the old one's learned rank would not count it). Raises NotApplicable when
    an edited axis itself would be dropped."""
    p, q = len(s.dims), len(s.suffix)
    if s.star is None or not p or not q or not (front or back) or not cx.sides_shared(s.star):
        return s
    m = max(p, q)
    keep_q = min([q] + [m - e - 1 for e in front])
    keep_p = min([p] + [m - e for e in back])
    if keep_q == q and keep_p == p:
        return s
    base = cx.view_base(s)
    if base is not None and len(base.dims) >= keep_p and len(base.suffix) >= keep_q \
            and all(e < len(base.dims) for e in front) and all(e <= len(base.suffix) for e in back):
        # the same axes as laid out around the segment they were learned from (`x.shape[1]` of
        # `[*ids, d]` read first): as many kept, and its segment still learns the input's rank
        return apart(cx, base, front, back)
    if any(e >= keep_p for e in front) or any(e > keep_q for e in back):
        raise NotApplicable("the edited axes may be the same axes")
    # what is kept of the two sides may still share axes only when it is more than the m axes
    # the tensor surely has
    star = cx.dropped_star(s.star if keep_p + keep_q > m else None,
                           (s.star, s.dims[keep_p:], s.suffix[:q - keep_q], keep_p + keep_q > m))
    return Shape(s.dims[:keep_p], star, s.suffix[q - keep_q:] if keep_q > 0 else ())


def broadcast_dims(cx: OpContext, a: Expr, b: Expr, where: str) -> Expr:
    if a == b:
        return a
    if a.value == 1:
        return b
    if b.value == 1:
        return a
    cx.require(disj(eq(a, b), eq(a, 1), eq(b, 1)),
               lambda: f"{cx.opname}: shapes do not broadcast: {where} has sizes {a} and {b}", "SH106")
    if is_dyn(a) and is_dyn(b):
        # both sizes hold an unknown (a join of paths that disagree, `(H - 1)//?3 + 1`): whichever
        # side the facts might prove it to be, the size shows as `?`; the proofs, over floor
        # divisions by unknowns, cost seconds of solver time in a ResNet's residual sums
        return emax(a, b)
    if cx.entails(eq(a, b)):
        return a
    if cx.entails(eq(a, 1)):
        return b
    if cx.entails(eq(b, 1)):
        return a
    # under the broadcast precondition, max(a, b) is a whenever a >= b is forced (a residual
    # `out + x` with out of 4*planes channels keeps 4*planes)
    if cx.entails(ge(a, b)):
        return a
    if cx.entails(ge(b, a)):
        return b
    return emax(a, b)


def broadcast_shapes(cx: OpContext, *shapes: Shape) -> Shape:
    """PyTorch broadcasting (right-aligned); unknown-rank operands give an unknown-rank result."""
    known = [s for s in shapes if s.rank is not None]
    unknown = [s for s in shapes if s.rank is None]
    if len({(u.star, len(u.dims), len(u.suffix)) for u in unknown}) > 1:
        # (a tensor whose axis past its segment was read, `[b, t, *own, d]`, beside one laid out
        # around the segment that axis was learned from, `[b, *x, 1]`: the same rest)
        based = [cx.view_base(u) or u for u in unknown]
        if len({(u.star, len(u.dims), len(u.suffix)) for u in based}) == 1:
            unknown = based
            shapes = tuple(known) + tuple(based)
    if unknown:
        if len(unknown) == 1 and all(len(s.dims) <= unknown[0].min_rank and all(d.value == 1 for d in s.dims)
                                     for s in known):
            # scalars, and ones on no more axes than it surely has (`alpha * x`, alpha of shape
            # [1]): each meets an axis of it, which broadcasting with 1 leaves as it is
            return unknown[0]
        if len({(u.star, len(u.dims), len(u.suffix)) for u in unknown}) == 1 and len(unknown) > 1 and not known:
            # the same unknown rest (x + f(x)), as many axes around it: broadcast axis by axis
            u = unknown[0]
            dims, suffix = list(u.dims), list(u.suffix)
            for s in unknown[1:]:
                dims = [broadcast_dims(cx, p, q, f"dimension {i}") for i, (p, q) in enumerate(zip(dims, s.dims))]
                suffix = [broadcast_dims(cx, p, q, f"dimension {i - len(suffix)}")
                          for i, (p, q) in enumerate(zip(suffix, s.suffix))]
            return Shape(tuple(dims), u.star, tuple(suffix))
        if len(unknown) == 1 and all(len(s.dims) <= len(unknown[0].suffix) for s in known):
            u = unknown[0]
            suffix = list(u.suffix)
            for s in known:
                for i in range(1, len(s.dims) + 1):
                    suffix[-i] = broadcast_dims(cx, suffix[-i], s.dims[-i], f"dimension -{i}")
            return Shape(u.dims, u.star, tuple(suffix))
        return trailing_broadcast(cx, shapes)
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


def trailing_broadcast(cx: OpContext, shapes) -> Shape:
    """Operands of unknown rank with different segments (a residual `out + x`, out `[*?, C]` from
    a call the analysis could not follow, x `[B, T, C]`): whatever the ranks, the axes each
    operand names at its end are its last axes, so the last k of the result (k: the fewest named
    by an unknown-rank operand) broadcast axis by axis, and the axes before them are a segment of
    their own. Where some unknown-rank operand names no last axis, the result is a tensor of
    unknown rank, no error claimed (`q * cos`, q a transposed `[*?]`: ops/edges.py): no rank is
    claimed either, so a migration's rank search, which runs at given ranks, is left as it was."""
    k = min(len(s.suffix) for s in shapes if s.rank is None)
    if k == 0:
        return Shape.unknown(cx.fresh_star(None))
    out: list[Expr] = []
    for i in range(k, 0, -1):
        cur = None
        for s in shapes:
            axes = s.suffix if s.rank is None else s.dims
            if len(axes) >= i:
                cur = axes[-i] if cur is None else broadcast_dims(cx, cur, axes[-i], f"dimension -{i}")
        out.append(cur)
    return Shape((), cx.fresh_star(None), tuple(out))


def tensor_args(*vals: Value) -> list[TensorV]:
    return [v for v in vals if isinstance(v, TensorV)]


def result_dtype(*vals: Value) -> str | None:
    """PyTorch's type promotion over the operands, Python scalars included (ops/dtypes.py)."""
    return result_type(*vals)


def same_shape(cx: OpContext, x: Value) -> TensorV:
    if not isinstance(x, TensorV):
        raise NotApplicable("not a tensor")
    return cx.tensor(x.shape, like=x)


# ---- size arguments (appended for the tensor-manipulation families) ---------------

def size_list(cx: OpContext, args, lost: bool = False) -> list:
    """Sizes given as varargs (`view(2, 3)`) or one tuple/list/torch.Size (`view((2, 3))`).

    Returns a list of Exprs; raises NotApplicable when a size or the length is unknown. `lost`:
    the sizes a view or reshape of a tensor of unknown rank is asked for as one sequence, where an
    unknown one is a size of its own (`x.size()[:-1] + (self.nf,)` with `nf` a value the analysis
    lost): nothing else is claimed of that axis, and the sizes known and the rank are exact; were
    it a `-1`, the axis is still some size, and one more `-1` would fail at run time. (A lone
    unknown argument may be the whole sequence; sizes spelled one by one around a lost value are
    mostly read off it, `z.reshape(z.shape[0], n, -1)`, where a fresh `?` in the function's own
    answer would take the place of the sizes its calling contexts agree on: both stay unknown.)
    """
    args = list(args)
    lost = lost and len(args) == 1 and isinstance(args[0], (TupleV, ListV))
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
        if e is None and not lost:
            raise NotApplicable("size unknown")
        out.append(e if e is not None else cx.fresh("?"))
    return out


def dim_list(cx: OpContext, v, rank: int, what: str = "dim") -> list | None:
    """A dim argument given as an int or a tuple/list of ints, normalised; None when absent."""
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
    return "[" + ", ".join(dim_str(Expr.lift(d)) for d in dims) + "]"


# ---- strides: the contiguity model (appended for views/indexing/joins) ---------------------
# A view-producing rule gives its result an explicit stride tuple, kept in `_STRIDES` (a weak map
# keyed by the TensorV, since values.py has no field for it), so `view` can run PyTorch's own
# stride computation (`computeStride`, aten/src/ATen/TensorUtils.cpp) and reject exactly what
# PyTorch rejects. A tensor without an entry is row-major when `contiguous` is True; a
# non-contiguous tensor without one (made by another family) has unknown strides.
import itertools  # noqa: E402
import weakref  # noqa: E402
from typing import Optional  # noqa: E402

from ..shapes.expr import product  # noqa: E402
from ..shapes.shape import FALSE, Shape as _Shape, ne  # noqa: E402

_STRIDES: "weakref.WeakKeyDictionary[TensorV, tuple]" = weakref.WeakKeyDictionary()


# ---- strides -------------------------------------------------------------------------

def contiguous_strides(dims) -> tuple:
    out, acc = [], Expr.const(1)
    for d in reversed(dims):
        out.append(acc)
        acc = acc * d
    return tuple(reversed(out))


def strides_of(t: TensorV) -> Optional[tuple]:
    s = _STRIDES.get(t)
    if s is not None and t.shape.rank == len(s):
        return s
    if t.contiguous and t.shape.rank is not None:
        return contiguous_strides(t.shape.dims)
    return None


def _same(cx: OpContext, a: Expr, b: Expr) -> bool:
    return a == b or (a.value is None or b.value is None) and cx.entails(eq(a, b))


def _written_alike(cx: OpContext, a: Expr, b: Expr) -> bool:
    return a == b


def is_contiguous(cx: OpContext, dims, strides, same=_same) -> bool:
    """PyTorch's is_contiguous: sizes of 1 are skipped; symbolic sizes count as ≠ 1."""
    if any(d.value == 0 for d in dims):
        return True
    expected = Expr.const(1)
    for d, s in zip(reversed(dims), reversed(strides)):
        if d.value == 1:
            continue
        if not same(cx, s, expected):
            return False
        expected = expected * d
    return True


def located(cx: OpContext, what: str) -> str:
    """How a view's layout note names where the view was made ("transposed on line 12")."""
    return f"{what} on line {cx.span.line}" if cx.span is not None else what


def view_result(cx: OpContext, dims, src: TensorV, strides: Optional[tuple], note: str = "",
                dtype: Optional[str] = None) -> TensorV:
    """A tensor sharing `src`'s storage with the given strides (None: unknown unless src is contiguous)."""
    dims = tuple(Expr.lift(d) for d in dims)
    out = cx.tensor(_Shape(dims), dtype=dtype or src.dtype)
    if strides is None:
        out.contiguous = src.contiguous
        out.layout_note = src.layout_note
        return out
    # (strides written alike only: the solver's "no" costs as much as its "yes", and a layout
    # kept strided is still viewed exactly — `view_strides` asks the solver itself)
    if is_contiguous(cx, dims, strides, _written_alike):
        return out
    out.contiguous = False
    out.layout_note = note or src.layout_note or "a strided view"
    _STRIDES[out] = tuple(strides)
    return out


def _lt(cx, a: Expr, b: Expr, doubts=None, same=_same) -> bool:
    if a.value is not None and b.value is not None:
        return a.value < b.value
    return not _same_or_doubt(cx, a, b, doubts, same)


def _same_or_doubt(cx, a: Expr, b: Expr, doubts, same=_same) -> bool:
    """`same`, noting in `doubts` (when given) a pair neither proved equal nor proved different."""
    same = same(cx, a, b)
    if not same and doubts is not None and (a.value is None or b.value is None) and not cx.entails(ne(a, b)):
        doubts.append((a, b))
    return same


def compute_stride(cx: OpContext, old, ostr, new, doubts=None, same=_same) -> Optional[list]:
    """PyTorch's computeStride: strides of `new` viewing (old, ostr), or None when impossible —
    or when a size's equality it turned on is not decided (by `same`), which `doubts` (a list) then holds."""
    if not old:
        return [Expr.const(1)] * len(new)
    numel = product(old)
    if numel.value == 0:
        return list(ostr) if tuple(old) == tuple(new) else list(contiguous_strides(new))
    newstride: list = [None] * len(new)
    view_d = len(new) - 1
    base = ostr[-1]
    t_numel, v_numel = Expr.const(1), Expr.const(1)
    for td in range(len(old) - 1, -1, -1):
        t_numel = t_numel * old[td]
        if td == 0 or (old[td - 1].value != 1 and not _same_or_doubt(cx, ostr[td - 1], t_numel * base, doubts, same)):
            # the last chunk takes every remaining view dim: the callers have already required the
            # element counts to agree, so comparing C with 12*(C//12) structurally is not needed
            while view_d >= 0 and (td == 0 or _lt(cx, v_numel, t_numel, doubts, same) or new[view_d].value == 1):
                newstride[view_d] = v_numel * base
                v_numel = v_numel * new[view_d]
                view_d -= 1
            if td > 0 and not _same_or_doubt(cx, v_numel, t_numel, doubts, same):
                return None
            if td > 0:
                base = ostr[td - 1]
                t_numel, v_numel = Expr.const(1), Expr.const(1)
    if view_d != -1:
        return None
    return newstride


def reshaped(cx: OpContext, x: TensorV, new) -> TensorV:
    """`reshape` of a tensor that is not row-major: a view where computeStride finds one, else a copy.
    Only sizes written alike count as equal here: a reshape's sizes do not depend on its layout, and
    the solver's questions about the strides of symbolic sizes (`H // P` of a window partition)
    cost seconds a model while deciding nothing about shapes. A layout that leaves open is unknown
    (no strides, not row-major): no later view is rejected and no `is_contiguous()` answered on it."""
    ostr = strides_of(x)
    st = compute_stride(cx, x.shape.dims, ostr, new, same=_written_alike) if ostr is not None else None
    if st is not None:
        return view_result(cx, new, x, st)
    out = cx.tensor(new, like=x)
    if ostr is not None and any(d.value is None for d in (*x.shape.dims, *ostr, *new)):
        out.contiguous, out.layout_note = False, x.layout_note or "a reshape of a strided view"
    return out


def view_strides(cx: OpContext, x: TensorV, new, what: str) -> Optional[list]:
    """Strides of a `view` (None: the source's layout — every view of a row-major tensor is
    row-major — or unknown strides); raises SH104 when no admissible input has compatible strides."""
    if x.contiguous:  # (`_STRIDES` holds no contiguous tensor)
        return None
    old = x.shape.dims
    ostr = strides_of(x)
    if ostr is None:
        return None
    got = compute_stride(cx, old, ostr, new)
    if got is not None:
        return got
    doubts: list = []
    compute_stride(cx, old, ostr, new, doubts)
    # sizes the failure turned on without knowing them equal or not (the channels a view's -1
    # leaves): when they are equal the view may be legal, so it is an admissible way out
    rescues = [conj(*(eq(a, b) for a, b in doubts))] if doubts else []
    if not all(d.value is not None for d in old):
        # a symbolic size equal to 1 can make the view legal; look for witnesses (one or two sizes = 1)
        cands = []
        for i, d in enumerate(old):
            if d.value is None and not cx.entails(ne(d, 1)):
                w = _one_witness(d)
                if w is not None:
                    cands.append((d, w))
        for k in (1, 2):
            for combo in itertools.combinations(cands[:6], k):
                mp: dict = {}
                for _, w in combo:
                    mp.update(w)
                o2 = [d.subs(mp) for d in old]
                if all(d.subs(mp).value == 1 for d, _ in combo) and \
                        compute_stride(cx, o2, [s.subs(mp) for s in ostr], [d.subs(mp) for d in new]) is not None:
                    rescues.append(conj(*(eq(d, 1) for d, _ in combo)))
    cx.require(disj(*rescues) if rescues else FALSE,
               lambda: f"{cx.opname}: {what} is not compatible with the strides of {cx.label(x)} {x.shape}, which is not "
               f"contiguous ({x.layout_note or 'a strided view'}); use .reshape(...) or call .contiguous() first",
               "SH104")
    return None


def _one_witness(d: Expr) -> Optional[dict]:
    for s in sorted(d.symbols()):
        for v in range(1, 130):
            if d.subs({s: v}).value == 1:
                return {s: v}
    return None


def inherit_layout(out: TensorV, src: TensorV) -> TensorV:
    """Elementwise results keep a dense input's memory layout (PyTorch's TensorIterator follows the
    input's stride order), so `(x.transpose(1, 2) * 2).view(...)` fails as it does at run time.
    An expanded input (a zero stride) is not dense: the result is then contiguous."""
    if src.contiguous or out.shape != src.shape:
        return out
    strides = _STRIDES.get(src)
    if strides is not None and any(s.value == 0 for s in strides):
        return out
    out.contiguous = False
    out.layout_note = src.layout_note
    if strides is not None:
        _STRIDES[out] = strides
    return out


def same_layout(a: TensorV, b: TensorV) -> bool:
    """Both operands have one shape and one stride pattern (the result then keeps it)."""
    return a.shape == b.shape and a.contiguous == b.contiguous and _STRIDES.get(a) == _STRIDES.get(b)
