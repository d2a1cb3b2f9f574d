"""Linear layers: F.linear, nn.Linear, nn.Bilinear, nn.Identity."""
from __future__ import annotations

from ...shapes.shape import Shape, eq
from ...shapes.values import TensorV
from ..arguments import size_or_fresh
from ..common import apart
from ..context import NotApplicable, OpContext
from ..registry import module, op


@op("torch.nn.functional.linear")
def linear(cx: OpContext, input, weight, bias=None):
    w = cx.dims(weight, 2, "weight")
    return _linear(cx, input, w[1], w[0])


def _linear(cx: OpContext, x, in_features, out_features) -> TensorV:
    if not isinstance(x, TensorV):
        raise NotApplicable("input unknown")
    last = cx.last_dim(x)
    s = x.shape  # read after last_dim: it may have learned a trailing dimension
    cx.require(eq(last, in_features),
               lambda: f"{cx.opname} expects the last dimension to be {in_features}, but {cx.label(x)} has {last} here",
               "SH101")
    if s.rank is not None:
        return cx.tensor(s.dims[:-1] + (out_features,), like=x)
    s = apart(cx, s, back=(1,))  # the last axis may be a named leading one
    return cx.tensor(Shape(s.dims, s.star, s.suffix[:-1] + (out_features,)), like=x)


@module("torch.nn.Linear")
def Linear(cx: OpContext, in_features, out_features, bias=True, device=None, dtype=None):
    for name, v in (("in_features", in_features), ("out_features", out_features)):
        e = cx.int_of(v)
        if e is not None and e.value is not None and e.value < 0:
            cx.fail(f"{cx.opname}: {name} must be non-negative, got {e}", "SH107")


@Linear.forward(twin=linear)
def _linear_fwd(cx: OpContext, m, input):
    return _linear(cx, input, size_or_fresh(cx, m.cfg["in_features"]), size_or_fresh(cx, m.cfg["out_features"]))


@Linear.params
def _linear_params(cx: OpContext, m):
    fin, fout = cx.int_of(m.cfg["in_features"]), cx.int_of(m.cfg["out_features"])
    out = {"weight": [fout, fin]}
    if cx.bool_of(m.cfg["bias"]) is not False:
        out["bias"] = [fout]
    return out


@module("torch.nn.Identity")
def Identity(cx: OpContext, *args, **kwargs):
    return None


@Identity.forward
def _identity_fwd(cx: OpContext, m, input):
    if not isinstance(input, TensorV):
        raise NotApplicable("input unknown")
    return input


@op("torch.nn.functional.bilinear")
def bilinear(cx: OpContext, input1, input2, weight, bias=None):
    w = cx.dims(weight, 3, "weight")
    return _bilinear(cx, input1, input2, w[1], w[2], w[0])


def _bilinear(cx, x1, x2, in1, in2, out):
    if not isinstance(x1, TensorV) or not isinstance(x2, TensorV) or x1.shape.rank is None or x2.shape.rank is None:
        raise NotApplicable("inputs unknown")
    cx.require(eq(x1.shape.dims[-1], in1), lambda: f"{cx.opname} expects input1's last dimension to be {in1}, "
               f"but {cx.label(x1)} has {x1.shape.dims[-1]}", "SH101")
    cx.require(eq(x2.shape.dims[-1], in2), lambda: f"{cx.opname} expects input2's last dimension to be {in2}, "
               f"but {cx.label(x2)} has {x2.shape.dims[-1]}", "SH101")
    if x1.shape.rank != x2.shape.rank:
        cx.fail(f"{cx.opname}: input1 and input2 must have the same rank", "SH102")
    for a, b in zip(x1.shape.dims[:-1], x2.shape.dims[:-1]):
        cx.require(eq(a, b), lambda: f"{cx.opname}: input1 and input2 batch dimensions differ ({a} vs {b})", "SH101")
    return cx.tensor(x1.shape.dims[:-1] + (out,), like=x1)


@module("torch.nn.Bilinear")
def Bilinear(cx: OpContext, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
    return None


@Bilinear.forward(twin=bilinear)
def _bilinear_fwd(cx, m, input1, input2):
    return _bilinear(cx, input1, input2, cx.int_of(m.cfg["in1_features"]), cx.int_of(m.cfg["in2_features"]),
                     cx.int_of(m.cfg["out_features"]))
