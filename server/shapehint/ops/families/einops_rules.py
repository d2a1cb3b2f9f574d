"""einops: rearrange/repeat/reduce, pack/unpack and the layers einops.layers.torch.Rearrange/Reduce.

The parser and the checks mirror einops' own `ParsedExpression` and
`_prepare_transformation_recipe` (einops 0.8), so a pattern is accepted or rejected as einops
does; axis lengths are Exprs, so `(h w)` with `h=H` splits a symbolic dimension.
"""
from __future__ import annotations

import keyword

from ...shapes.expr import Expr, product
from ...shapes.shape import Shape, eq, ge
from ...shapes.values import IntV, ListV, TensorV, TupleV
from ..context import NotApplicable, OpContext
from ..registry import module, op

ELL = "…"
REDUCTIONS = ("min", "max", "sum", "mean", "prod", "any", "all")


class Anon:
    """A numeric axis (`2` in `(h 2)`); every occurrence is a different axis, as in einops."""

    def __init__(self, value: int):
        self.value = value

    def __repr__(self) -> str:
        return str(self.value)


class Parsed:
    def __init__(self, cx: OpContext, text: str):
        self.identifiers: set = set()
        self.has_ellipsis = False
        self.ell_in_group = False
        self.non_unit_anon = False
        self.composition: list = []
        group = None
        cur = ""
        text = text.replace("...", ELL)
        if "." in text:
            _err(cx, "a single '.' is not allowed; use '...' for an ellipsis")

        def add(x):
            nonlocal group
            if not x:
                return
            if x in self.identifiers:
                _err(cx, f"the pattern repeats the axis '{x}'")
            if x == ELL:
                self.identifiers.add(ELL)
                self.has_ellipsis = True
                if group is None:
                    self.composition.append(ELL)
                else:
                    group.append(ELL)
                    self.ell_in_group = True
                return
            if x.isdecimal():
                if int(x) == 1:
                    if group is None:
                        self.composition.append([])
                    return
                ax = Anon(int(x))
                self.non_unit_anon = True
            else:
                if not x.isidentifier() or x[0] == "_" or x[-1] == "_" or keyword.iskeyword(x):
                    _err(cx, f"'{x}' is not a valid axis name")
                ax = x
            self.identifiers.add(ax)
            if group is None:
                self.composition.append([ax])
            else:
                group.append(ax)

        for ch in text:
            if ch in "() ":
                add(cur)
                cur = ""
                if ch == "(":
                    if group is not None:
                        _err(cx, "axis composition is one level only (no brackets inside brackets)")
                    group = []
                elif ch == ")":
                    if group is None:
                        _err(cx, "brackets are not balanced")
                    self.composition.append(group)
                    group = None
            elif ch == ELL:
                add(cur)
                add(ELL)
                cur = ""
            else:
                cur += ch
        if group is not None:
            _err(cx, "brackets are not balanced")
        add(cur)


def _err(cx: OpContext, msg: str) -> None:
    cx.fail(f"{cx.opname}: {msg}", "SH107")


def transform(cx: OpContext, x: TensorV, pattern: str, operation: str, lengths: dict) -> Shape:
    if "->" not in pattern:
        _err(cx, f"the pattern '{pattern}' has no '->'")
    ltxt, rtxt = pattern.split("->", 1)
    left, right = Parsed(cx, ltxt), Parsed(cx, rtxt)
    if not left.has_ellipsis and right.has_ellipsis:
        _err(cx, "ellipsis on the right side but not on the left")
    if left.has_ellipsis and left.ell_in_group:
        _err(cx, "ellipsis inside parentheses on the left side is not allowed")
    if operation == "rearrange":
        if left.non_unit_anon or right.non_unit_anon:
            _err(cx, "numeric axes other than 1 are not supported in rearrange")
        diff = left.identifiers ^ right.identifiers
        if diff:
            _err(cx, f"axes {_names(diff)} appear on only one side of the pattern")
    elif operation == "repeat":
        diff = left.identifiers - right.identifiers
        if diff:
            _err(cx, f"axes {_names(diff)} of the left side are missing on the right side of repeat")
        missing = {a for a in right.identifiers if not isinstance(a, Anon)} - left.identifiers - set(lengths)
        if missing:
            _err(cx, f"give the sizes of the new axes {_names(missing)}, e.g. {sorted(map(str, missing))[0]}=2")
    elif operation in REDUCTIONS:
        diff = right.identifiers - left.identifiers
        if diff:
            _err(cx, f"axes {_names(diff)} on the right side of reduce do not appear on the left side")
    else:
        _err(cx, f"unknown reduction '{operation}'; expected one of {', '.join(REDUCTIONS)}")

    if x.shape.rank is None:
        n_fixed = len(left.composition) - (1 if left.has_ellipsis else 0)
        if left.has_ellipsis:
            raise NotApplicable("rank unknown")
        cx.learn_rank(x, n_fixed)
    dims = x.shape.dims
    ndim = len(dims)
    if left.has_ellipsis:
        n_other = len(left.composition) - 1
        if ndim < n_other:
            _err(cx, f"the pattern needs at least {n_other} dimensions but {cx.label(x)} {x.shape} has {ndim}")
        ell_axes = [f"{ELL}{i}" for i in range(ndim - n_other)]
        lcomp = []
        for c in left.composition:
            lcomp.extend([[a] for a in ell_axes] if c == ELL else [c])
        rcomp = []
        for c in right.composition:
            if c == ELL:
                rcomp.extend([[a] for a in ell_axes])
            else:
                rcomp.append([a for ax in c for a in (ell_axes if ax == ELL else [ax])])
    else:
        if ndim != len(left.composition):
            _err(cx, f"the pattern '{ltxt.strip()}' names {len(left.composition)} dimensions but {cx.label(x)} "
                 f"{x.shape} has {ndim}")
        lcomp, rcomp = left.composition, right.composition

    known: dict = {}
    for c in lcomp:
        for a in c:
            known[a] = Expr.const(a.value) if isinstance(a, Anon) else None
    for c in rcomp:
        for a in c:
            if a not in known:
                known[a] = Expr.const(a.value) if isinstance(a, Anon) else None
    for name, v in lengths.items():
        if name not in known:
            _err(cx, f"axis '{name}' is given a length but does not appear in the pattern")
        known[name] = v
    for c in lcomp:
        unknown = [a for a in c if known[a] is None]
        if len(unknown) > 1:
            _err(cx, f"cannot infer the sizes of {_names(unknown)}: give all but one as keyword arguments")
    # match the input dimensions against the left side
    for i, c in enumerate(lcomp):
        length = dims[i]
        unknown = [a for a in c if known[a] is None]
        kp = product(known[a] for a in c if known[a] is not None)
        if not unknown:
            cx.require(eq(length, kp), lambda: f"{cx.opname}: dimension {i} of {cx.label(x)} {x.shape} is {length}, but "
                       f"the pattern needs {_group(c)} = {kp}", "SH101")
        else:
            cx.require(eq(length % kp, 0), lambda: f"{cx.opname}: dimension {i} of {cx.label(x)} {x.shape} ({length}) "
                       f"cannot be split as {_group(c)}: it is not a multiple of {kp}", "SH101")
            known[unknown[0]] = length // kp
    out = []
    for c in rcomp:
        out.append(product(known[a] for a in c))
    return Shape(tuple(out))


def _names(axes) -> str:
    return ", ".join(sorted("'" + str(a).replace(ELL, "...") + "'" for a in axes))


def _group(c) -> str:
    return "(" + " ".join(str(a) for a in c) + ")" if len(c) != 1 else str(c[0])


def _lengths(cx: OpContext, kwargs: dict) -> dict:
    out = {}
    for k, v in kwargs.items():
        e = cx.int_of(v)
        if e is None:
            raise NotApplicable(f"axis length {k} unknown")
        out[k] = e
    return out


def _apply(cx: OpContext, tensor, pattern, operation, kwargs) -> TensorV:
    if isinstance(tensor, TensorV):
        x = tensor
    else:
        raise NotApplicable("input unknown (lists of tensors are not modelled)")
    pat = cx.str_of(pattern)
    if pat is None:
        raise NotApplicable("pattern unknown")
    return cx.tensor(transform(cx, x, pat, operation, _lengths(cx, kwargs)), dtype=x.dtype)


@op("einops.rearrange")
def rearrange(cx: OpContext, tensor, pattern, **axes_lengths):
    return _apply(cx, tensor, pattern, "rearrange", axes_lengths)


@op("einops.repeat")
def repeat(cx: OpContext, tensor, pattern, **axes_lengths):
    return _apply(cx, tensor, pattern, "repeat", axes_lengths)


@op("einops.reduce")
def reduce(cx: OpContext, tensor, pattern, reduction, **axes_lengths):
    red = cx.str_of(reduction)
    if red is None:
        raise NotApplicable("custom reduction")
    return _apply(cx, tensor, pattern, red, axes_lengths)


@module("einops.layers.torch.Rearrange")
def Rearrange(cx: OpContext, pattern, **axes_lengths):
    return None


@Rearrange.forward(twin=rearrange)
def _rearrange_fwd(cx: OpContext, m, input):
    cfg = dict(m.cfg)
    return _apply(cx, input, cfg.pop("pattern"), "rearrange", cfg.get("axes_lengths", {}))


@module("einops.layers.torch.Reduce")
def Reduce(cx: OpContext, pattern, reduction, **axes_lengths):
    return None


@Reduce.forward(twin=reduce)
def _reduce_fwd(cx: OpContext, m, input):
    cfg = dict(m.cfg)
    red = cx.str_of(cfg["reduction"])
    if red is None:
        raise NotApplicable("custom reduction")
    return _apply(cx, input, cfg["pattern"], red, cfg.get("axes_lengths", {}))


# ---- pack / unpack --------------------------------------------------------------------
# Mirror einops.packing (0.8): `analyze_pattern`, then pack = reshape each input to
# (*before, -1, *after) and concatenate on that axis; unpack = split that axis at the
# products of the packed shapes (one of them may hold a -1) and reshape each piece.

def _pack_pattern(cx: OpContext, pattern, opname: str) -> tuple:
    pat = cx.str_of(pattern)
    if pat is None:
        raise NotApplicable("pattern unknown")
    axes = pat.split()
    if len(axes) != len(set(axes)):
        _err(cx, f"duplicate axis names in the pattern '{pat}'")
    if "*" not in axes:
        _err(cx, f"no *-axis in the pattern '{pat}'")
    for a in axes:
        if a != "*" and (not a.isidentifier() or a[0] == "_" or a[-1] == "_" or keyword.iskeyword(a)):
            _err(cx, f"'{a}' is not a valid axis name")
    before = axes.index("*")
    return before, len(axes) - before - 1


@op("einops.pack", "einops.packing.pack")
def pack(cx: OpContext, tensors, pattern):
    before, after = _pack_pattern(cx, pattern, "pack")
    if not isinstance(tensors, (TupleV, ListV)) or tensors.items is None:
        raise NotApplicable("tensors unknown")
    ts = list(tensors.items)
    if not ts:
        _err(cx, "nothing to pack")
    if not all(isinstance(t, TensorV) and t.shape.rank is not None for t in ts):
        raise NotApplicable("an operand is unknown")
    outer = None
    packed, lengths = Expr.const(0), []
    for i, t in enumerate(ts):
        dims = list(t.shape.dims)
        if len(dims) < before + after:
            cx.fail(f"{cx.opname}: tensor {i} has shape {t.shape}, while the pattern assumes at least "
                    f"{before + after} axes", "SH102")
        mid = dims[before:len(dims) - after]
        edge = dims[:before] + dims[len(dims) - after:]
        if any(d.value == 0 for d in edge):
            cx.fail(f"{cx.opname}: tensor {i} {t.shape} has 0 elements: the packed axis (-1) could be any size",
                    "SH103")
        if outer is None:
            outer = edge
        else:
            for k, (a, b) in enumerate(zip(outer, edge)):
                cx.require(eq(a, b), lambda: f"{cx.opname}: tensor {i} {t.shape} does not match tensor 0 on axis "
                           f"{k if k < before else k - before - after} outside the '*'", "SH101")
        lengths.append(TupleV(tuple(IntV(d) for d in mid), True))
        packed = packed + product(mid)
    shape = list(outer[:before]) + [packed] + list(outer[before:])
    return TupleV((cx.tensor(shape, like=ts[0]), ListV(lengths)))


@op("einops.unpack", "einops.packing.unpack")
def unpack(cx: OpContext, tensor, packed_shapes, pattern):
    before, after = _pack_pattern(cx, pattern, "unpack")
    if not isinstance(tensor, TensorV) or tensor.shape.rank is None:
        raise NotApplicable("input unknown")
    if not isinstance(packed_shapes, (TupleV, ListV, list, tuple)) or \
            isinstance(packed_shapes, (TupleV, ListV)) and packed_shapes.items is None:
        raise NotApplicable("packed shapes unknown")
    items = packed_shapes.items if isinstance(packed_shapes, (TupleV, ListV)) else packed_shapes
    shapes = [cx.ints_of(s) if not (isinstance(s, (TupleV, ListV)) and s.items == ()) and s != () else []
              for s in items]
    if any(s is None for s in shapes):
        raise NotApplicable("a packed shape is unknown")
    dims = list(tensor.shape.dims)
    if len(dims) != before + 1 + after:
        cx.fail(f"{cx.opname} expects a {before + 1 + after}D input, but {cx.label(tensor)} is "
                f"{len(dims)}D {tensor.shape}", "SH102")
    axis = dims[before]
    unknown = [i for i, s in enumerate(shapes) if any(d.value == -1 for d in s)]
    if len(unknown) > 1:
        _err(cx, "at most one packed shape may hold a -1")
    known = Expr.const(0)
    for i, s in enumerate(shapes):
        if i not in unknown:
            known = known + product(s)
    out_shapes = []
    if unknown:
        s = shapes[unknown[0]]
        rest = [d for d in s if d.value != -1]
        if [d.value for d in s].count(-1) > 1:
            cx.fail(f"{cx.opname}: could not split axis of size {axis} into {_shapes_text(shapes)}", "SH103")
        left = axis - known
        cx.require(ge(left, 0), lambda: f"{cx.opname}: could not split axis of size {axis} into {_shapes_text(shapes)}",
                   "SH103")
        kp = product(rest)
        if kp.value == 0:  # reshape's -1 next to a 0: any size would do
            cx.fail(f"{cx.opname}: could not split axis of size {axis} into {_shapes_text(shapes)}", "SH103")
        cx.require(eq(left % kp, 0), lambda: f"{cx.opname}: could not split axis of size {axis} into "
                   f"{_shapes_text(shapes)}", "SH103")
        fill = left // kp
        shapes[unknown[0]] = [fill if d.value == -1 else d for d in s]
    else:
        cx.require(eq(known, axis), lambda: f"{cx.opname}: could not split axis of size {axis} into "
                   f"{_shapes_text(shapes)}", "SH103")
    for s in shapes:
        out_shapes.append(cx.tensor(dims[:before] + list(s) + dims[before + 1:], like=tensor))
    return ListV(out_shapes)


def _shapes_text(shapes: list) -> str:
    return "[" + ", ".join("(" + ", ".join(str(d) for d in s) + ")" for s in shapes) + "]"
