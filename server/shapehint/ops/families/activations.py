"""Activations with parameters or a shape of their own: PReLU (a slope per channel) and GLU
(halves a dimension); the plain elementwise activations are in elementwise.py."""
from __future__ import annotations

from ...shapes.expr import Expr
from ...shapes.shape import disj, divides, eq, ge
from ...shapes.values import TensorV
from ..arguments import ranked_tensor
from ..context import NotApplicable, OpContext
from ..registry import module, op


@op("torch.nn.functional.prelu", "torch.prelu")
def prelu(cx: OpContext, input, weight):
    """One slope, or one per channel (dim 1; the only dim of a 1D input)."""
    w = ranked_tensor(weight)
    if isinstance(input, TensorV) and input.shape.rank is None and w.shape.rank <= 1 and \
            (w.shape.rank == 0 or w.shape.dims[0].value == 1):
        return cx.tensor(input.shape, like=input)  # one slope suits every rank: no channel to match
    x = ranked_tensor(input)
    if w.shape.rank > 1:
        cx.fail(f"{cx.opname}: expected `weight` to be a scalar or 1D tensor, but {cx.label(w)} is "
                f"{w.shape.rank}D {w.shape}", "SH102")
    n = w.shape.dims[0] if w.shape.rank == 1 else Expr.const(1)
    if x.shape.rank == 0:
        cx.require(eq(n, 1), lambda: f"{cx.opname}: a zero-dim input takes a single slope, but got {n} parameters",
                   "SH101")
        return cx.tensor(x.shape, like=x)
    c = x.shape.dims[1] if x.shape.rank >= 2 else Expr.const(1)
    cx.require(disj(eq(n, 1), eq(n, c)), lambda: f"{cx.opname}: mismatch of parameter numbers and input channel size: "
               f"found {n} parameters and channel size {c} (dimension 1 of {cx.label(x)} {x.shape})", "SH101")
    return cx.tensor(x.shape, like=x)


@module("torch.nn.PReLU")
def PReLU(cx: OpContext, num_parameters=1, init=0.25, device=None, dtype=None):
    n = cx.int_of(num_parameters)
    if n is not None:
        cx.require(ge(n, 1), lambda: f"{cx.opname}: num_parameters must be positive, got {n}", "SH107")
    return None


@PReLU.forward(twin=prelu)
def _prelu_fwd(cx: OpContext, m, input):
    n = cx.int_of(m.cfg["num_parameters"])
    if n is None:
        raise NotApplicable("num_parameters unknown")
    return prelu(cx, input, cx.tensor([n]))


@PReLU.params
def _prelu_params(cx: OpContext, m):
    n = cx.int_of(m.cfg["num_parameters"])
    return {} if n is None else {"weight": (n,)}


@op("torch.nn.functional.glu")
def glu(cx: OpContext, input, dim=-1):
    x = ranked_tensor(input)
    if x.shape.rank == 0:
        cx.fail(f"{cx.opname}: glu does not support scalars", "SH102")
    k = cx.norm_dim(dim, x.shape.rank)
    n = x.shape.dims[k]
    cx.require(divides(2, n), lambda: f"{cx.opname}: halving dimension must be even, but dimension {k} is {n}", "SH107")
    dims = list(x.shape.dims)
    dims[k] = n // 2
    return cx.tensor(dims, like=x)


@module("torch.nn.GLU")
def GLU(cx: OpContext, dim=-1):
    return None


@GLU.forward(twin=glu)
def _glu_fwd(cx: OpContext, m, input):
    return glu(cx, input, m.cfg["dim"])
