"""Elementwise operators: activations, unary math, dropout, binary arithmetic with broadcasting.

Most of these share two shape rules (same shape; broadcast), so they are declared from tables.
Each table row is one distinct rule with all its aliases (functional, torch., Tensor method,
in-place method, nn layer).
"""
from __future__ import annotations

from ...shapes.shape import Shape, eq
from ...shapes.values import BoolV, DtypeV, FloatV, IntV, NoneV, TensorV, UnknownV, Value
from ..common import broadcast_shapes, inherit_layout, result_dtype, same_layout
from ..dtypes import COMPLEX_OF_PARTS, category, is_integral, of_operand, to_float
from ..context import NotApplicable, OpContext
from ..registry import module, op

# name -> (nn layer or None, has functional F.name, has torch.name)
UNARY = {
    "relu": ("ReLU", True, True), "relu6": ("ReLU6", True, False), "gelu": ("GELU", True, False),
    "silu": ("SiLU", True, False), "mish": ("Mish", True, False), "elu": ("ELU", True, False),
    "selu": ("SELU", True, True), "celu": ("CELU", True, True), "leaky_relu": ("LeakyReLU", True, False),
    "hardtanh": ("Hardtanh", True, False), "hardswish": ("Hardswish", True, False),
    "hardsigmoid": ("Hardsigmoid", True, False), "softplus": ("Softplus", True, False),
    "softsign": ("Softsign", True, False), "tanhshrink": ("Tanhshrink", True, False),
    "logsigmoid": ("LogSigmoid", True, False), "sigmoid": ("Sigmoid", True, True), "tanh": ("Tanh", True, True),
    "threshold": ("Threshold", True, True), "rrelu": ("RReLU", True, True), "softshrink": ("Softshrink", True, False),
    "hardshrink": ("Hardshrink", True, False),
    "dropout": ("Dropout", True, True), "dropout1d": ("Dropout1d", True, False), "dropout2d": ("Dropout2d", True, False),
    "dropout3d": ("Dropout3d", True, False), "alpha_dropout": ("AlphaDropout", True, True),
    "exp": (None, False, True), "log": (None, False, True), "sqrt": (None, False, True), "rsqrt": (None, False, True),
    "abs": (None, False, True), "neg": (None, False, True), "sin": (None, False, True), "cos": (None, False, True),
    "exp2": (None, False, True), "log1p": (None, False, True), "expm1": (None, False, True), "log2": (None, False, True),
    "floor": (None, False, True), "ceil": (None, False, True), "round": (None, False, True), "sign": (None, False, True),
    "reciprocal": (None, False, True), "square": (None, False, True), "erf": (None, False, True),
    "clone": (None, False, True), "detach": (None, False, True), "logical_not": (None, False, True),
    "isnan": (None, False, True), "isinf": (None, False, True), "nan_to_num": (None, False, True),
    "clamp": (None, False, True), "clamp_min": (None, False, True), "clamp_max": (None, False, True),
    "float": (None, False, False), "half": (None, False, False), "double": (None, False, False),
    "long": (None, False, False), "int": (None, False, False), "bool": (None, False, False),
    "bfloat16": (None, False, False), "to": (None, False, False), "type": (None, False, False),
    "cpu": (None, False, False), "cuda": (None, False, False), "requires_grad_": (None, False, False),
    "zero_": (None, False, False), "fill_": (None, False, False), "normal_": (None, False, False),
    "uniform_": (None, False, False), "cumsum": (None, False, True), "cumprod": (None, False, True),
    "log10": (None, False, True), "tan": (None, False, True), "atan": (None, False, True),
    "asin": (None, False, True), "acos": (None, False, True), "sinh": (None, False, True), "cosh": (None, False, True),
    "trunc": (None, False, True), "frac": (None, False, True), "logit": (None, False, True),
    "flip": (None, False, True), "roll": (None, False, True), "triu": (None, False, True), "tril": (None, False, True),
}
ALIASED = {"clamp": ("clip",), "sigmoid": ("torch.special.expit",), "float": ()}
DTYPE_OF = {"float": "float32", "half": "float16", "double": "float64", "long": "int64", "int": "int32",
            "bool": "bool", "bfloat16": "bfloat16", "isnan": "bool", "isinf": "bool", "logical_not": "bool"}
# ops that compute in floating point: integer and bool inputs give the default float dtype
FLOAT_RESULT = {"sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "exp2", "log1p", "expm1", "log2",
                "reciprocal", "erf", "log10", "tan", "atan", "asin", "acos", "sinh", "cosh", "logit", "softsign",
                "tanhshrink"}
# integer-accumulating ops: bool and narrower integers give int64
WIDEN_TO_INT64 = {"cumsum", "cumprod"}
NEEDS_2D = {"triu", "tril"}
# Dropout1d/2d/3d: the ranks each is meant for (unbatched, batched). dropout1d rejects any other
# rank; dropout2d/3d only warn (deprecated, "will result in an error in a future release") and
# run on any input feature dropout takes (at least 2 dimensions once a 1-D input of dropout3d is
# given its batch dimension). dropout2d also warns on 3-D input, which it takes as (N, C, L).
DROPOUT_RANKS = {"dropout1d": (2, 3), "dropout2d": (3, 4), "dropout3d": (4, 5)}
DROPOUT_MIN_RANK = {"dropout2d": 2, "dropout3d": 1}


def _unary(name: str):
    def rule(cx: OpContext, input, *args, **kwargs):
        if not isinstance(input, TensorV):
            raise NotApplicable("input unknown")
        if name in NEEDS_2D:
            cx.at_least(input, 2)
        if name in DROPOUT_RANKS:
            _dropout_ranks(cx, name, input)
        if name == "neg" and input.dtype == "bool":
            cx.fail(f"{cx.opname}: negation of a bool tensor is not supported (to invert a mask use `~` or "
                    "logical_not())", "SH107")
        # clone() too keeps the layout (memory_format=torch.preserve_format)
        out = cx.tensor(input.shape, dtype=_unary_dtype(name, input.dtype, args, kwargs))
        return inherit_layout(out, input)
    rule.__name__ = name
    return rule


def _dropout_ranks(cx: OpContext, name: str, x: TensorV) -> None:
    if name not in DROPOUT_MIN_RANK:
        cx.dims(x, DROPOUT_RANKS[name])
        return
    r, lo = x.shape.rank, DROPOUT_MIN_RANK[name]
    if r is None:
        return  # any rank from `lo` runs: nothing to learn or to warn about
    if r < lo:
        cx.fail(f"{cx.opname}: feature dropout needs at least 2 dimensions, but {cx.label(x)} is {r}D {x.shape}",
                "SH102")
    if r not in DROPOUT_RANKS[name]:
        meant = " or ".join(f"{k}D" for k in DROPOUT_RANKS[name])
        cx.warn("SH205", f"{cx.opname} on {cx.label(x)} {x.shape}: a {r}D input is deprecated (PyTorch warns and "
                         f"will raise in a future release); it is meant for {meant} inputs, use dropout instead")
    elif name == "dropout2d" and r == 3:
        cx.warn("SH205", f"{cx.opname} on 3D {cx.label(x)} {x.shape}: PyTorch takes it as (N, C, L) and drops "
                         "whole channels of 1D features, which a future release will change; use dropout1d")


def _unary_dtype(name: str, dt, args, kwargs):
    if name in ("to", "type"):
        got = _converted(args, kwargs)
        return dt if got is KEEPS else got
    if name in DTYPE_OF:
        return DTYPE_OF[name]
    if name in FLOAT_RESULT:
        return to_float(dt)
    if name in WIDEN_TO_INT64 and is_integral(dt):
        return "int64"
    if name == "square" and dt == "bool":
        return "int64"
    return dt


KEEPS = object()  # `x.to(device)`: the dtype is x's
DEVICE_LIKE = ("device", "is_cuda")  # what `x.device` evaluates to (evaluator: UnknownV(name))


def _converted(args, kwargs):
    """The dtype `x.to(torch.long)`, `x.to(device, torch.float16)`, `x.to(other)`,
    `x.to(dtype=...)` or `x.type(torch.int32)` converts to: KEEPS when it keeps x's, None when
    it is unknown (`x.to(y.dtype)` with y's dtype unknown: x's would be a guess)."""
    out = KEEPS
    for a in list(args) + [kwargs.get("dtype"), kwargs.get("other")]:
        if isinstance(a, DtypeV):
            return a.name
        if isinstance(a, TensorV):
            return a.dtype
        if isinstance(a, UnknownV) and a.reason not in DEVICE_LIKE:
            out = None  # a dtype we cannot see, or a device: either way not knowably x's
    return out


def _register_unary() -> None:
    for name, (layer, functional, torch_fn) in UNARY.items():
        names = [f"Tensor.{name}"]
        if functional:
            names.append(f"torch.nn.functional.{name}")
        if torch_fn:
            names.append(f"torch.{name}")
        if not name.endswith("_"):
            names.append(f"Tensor.{name}_")
            if functional:
                names.append(f"torch.nn.functional.{name}_")
            if torch_fn:
                names.append(f"torch.{name}_")
        for a in ALIASED.get(name, ()):
            names.append(a if "." in a else f"torch.{a}")
            names.append(f"Tensor.{a}" if "." not in a else a)
        fn = _unary(name)
        canon = names[1] if len(names) > 1 and not names[1].startswith("Tensor.") and functional else names[0]
        if torch_fn and not functional:
            canon = f"torch.{name}"
        op(canon, *[n for n in names if n != canon])(fn)
        if layer:
            _layer(layer, fn)


def _layer(layer: str, fn) -> None:
    def ctor(cx, *args, **kwargs):
        return None
    rule = module(f"torch.nn.{layer}")(ctor)

    def fwd(cx, m, input):
        return fn(cx, input)
    rule.forward(fwd, twin=fn)


@op("Tensor.contiguous")
def contiguous(cx: OpContext, self, memory_format=None):
    if not isinstance(self, TensorV):
        raise NotApplicable("input unknown")
    return cx.tensor(self.shape, dtype=self.dtype)


# ---- binary ops with broadcasting ------------------------------------------------

BINARY = {
    "add": ("__add__", "__radd__", "__iadd__"), "sub": ("__sub__", "__rsub__", "__isub__", "subtract"),
    "mul": ("__mul__", "__rmul__", "__imul__", "multiply"), "div": ("__truediv__", "__rtruediv__", "__itruediv__", "divide", "true_divide"),
    "floor_divide": ("__floordiv__", "__rfloordiv__"), "remainder": ("__mod__", "fmod"), "pow": ("__pow__",),
    "float_power": (), "maximum": ("max_elementwise",), "minimum": (), "atan2": (), "hypot": (),
    "eq": ("__eq__",), "ne": ("__ne__",), "lt": ("__lt__", "less"), "le": ("__le__",), "gt": ("__gt__", "greater"), "ge": ("__ge__",),
    "logical_and": (), "logical_or": (), "logical_xor": (),
    # `&`, `|`, `^` are bitwise: bool for bool tensors, the promoted integer type otherwise
    "bitwise_and": ("__and__",), "bitwise_or": ("__or__",), "bitwise_xor": ("__xor__",),
}
COMPARISON = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}
IN_PLACE_ALIASES = ("__iadd__", "__isub__", "__imul__", "__itruediv__")


def _binary_dtype(name: str, input, other, kwargs, reflected=False):
    if name in COMPARISON:
        return "bool"
    if name == "float_power":
        dt = result_dtype(input, other)
        return dt and ("complex128" if dt.startswith("complex") else "float64")
    dt = result_dtype(input, other)
    if name == "pow" and dt == "bool" and (reflected or all(isinstance(v, TensorV) for v in (input, other))):
        return "int64"  # bool ** bool computes in int64; only a Python bool exponent keeps bool
    mode = kwargs.get("rounding_mode")
    if name == "atan2" or (name == "div" and (mode is None or isinstance(mode, NoneV))):
        return to_float(dt)  # true division
    return dt


def _binary(name: str, inplace: bool = False, reflected: bool = False):
    def rule(cx: OpContext, input, other, *args, **kwargs):
        ts = [v for v in (input, other) if isinstance(v, TensorV)]
        if not ts:
            raise NotApplicable("no tensor operand")
        for v in (input, other):
            if not isinstance(v, (TensorV, IntV, FloatV)) and not _scalar(v):
                raise NotApplicable("operand unknown")
        shape = broadcast_shapes(cx, *[t.shape for t in ts])
        if name == "sub" and any(of_operand(v) == "bool" for v in (input, other)):
            cx.fail(f"{cx.opname}: subtraction with a bool tensor is not supported (to invert a mask use `~` or "
                    "logical_not())", "SH107")
        dtype = _binary_dtype(name, input, other, kwargs, reflected)
        if inplace and isinstance(input, TensorV):
            _cast_back(cx, dtype, input)
            dtype = input.dtype
            shape = input.shape  # written into `input`: the broadcast must fit it, and it keeps its shape
        out = cx.tensor(shape, dtype=dtype)
        dense = [t for t in ts if t.shape.rank]
        if dense and all(same_layout(t, dense[0]) for t in dense[1:]):
            return inherit_layout(out, dense[0])
        return out
    rule.__name__ = name + ("_" if inplace else "")
    return rule


def _cast_back(cx: OpContext, dtype, self: TensorV) -> None:
    """An in-place op casts its result back to self's dtype, which must not lose its category
    (`ints.add_(0.5)` fails: "result type Float can't be cast to the desired output type Long")."""
    if dtype is not None and self.dtype is not None and category(dtype) > category(self.dtype):
        cx.fail(f"{cx.opname}: the result type {dtype} can't be cast to {cx.label(self)}'s dtype {self.dtype} in place",
                "SH107")


def _scalar(v: Value) -> bool:
    return isinstance(v, BoolV)


for _name, _extra in BINARY.items():
    _names = [f"Tensor.{_name}"]
    for e in _extra:
        if e not in IN_PLACE_ALIASES:
            _names.append(f"Tensor.{e}")
            if not e.startswith("__"):
                _names.append(f"torch.{e}")
    op(f"torch.{_name}", *_names)(_binary(_name))
    op(f"Tensor.{_name}_", *[f"Tensor.{e}" for e in _extra if e in IN_PLACE_ALIASES])(_binary(_name, inplace=True))
op("Tensor.__rpow__")(_binary("pow", reflected=True))


@op("torch.where")
def where(cx: OpContext, condition, input=None, other=None):
    if input is None and other is None:
        raise NotApplicable("data-dependent where(cond)")
    ts = [v for v in (condition, input, other) if isinstance(v, TensorV)]
    for v in (condition, input, other):
        if not isinstance(v, (TensorV, IntV, FloatV)):
            raise NotApplicable("operand unknown")
    return cx.tensor(broadcast_shapes(cx, *[t.shape for t in ts]), dtype=result_dtype(input, other))


@op("Tensor.masked_fill", "Tensor.masked_fill_", "torch.masked_fill")
def masked_fill(cx: OpContext, input, mask, value):
    if not isinstance(input, TensorV) or not isinstance(mask, TensorV):
        raise NotApplicable("operand unknown")
    out = broadcast_shapes(cx, input.shape, mask.shape)
    if out.rank is not None and input.shape.rank is not None and out.rank > input.shape.rank:
        cx.fail(f"{cx.opname}: the mask {mask.shape} has more dimensions than {cx.label(input)} {input.shape}", "SH106")
    return cx.tensor(input.shape, dtype=input.dtype)


_register_unary()


# ---- ternary pointwise ops, conversions, in-place fills --------------------------------------

INTEGER = {"int64", "int32", "int16", "int8", "uint8", "bool"}


def _operand(v: Value) -> TensorV | None:
    if isinstance(v, TensorV):
        return v
    if isinstance(v, (IntV, FloatV)) or _scalar(v):
        return None
    raise NotApplicable("operand unknown")


def into_self(cx: OpContext, self: TensorV, shape: Shape) -> TensorV:
    """An in-place op writes into `self`: the broadcast of its operands must be self's shape."""
    if shape.rank is not None and self.shape.rank is not None:
        bad = lambda: f"{cx.opname}: output with shape {self.shape} doesn't match the broadcast shape {shape}"
        if shape.rank != self.shape.rank:
            cx.fail(bad, "SH106")
        for a, b in zip(shape.dims, self.shape.dims):
            cx.require(eq(a, b), bad, "SH106")
    return inherit_layout(cx.tensor(self.shape, dtype=self.dtype), self)


def _pointwise(cx: OpContext, *vals: Value) -> tuple:
    ts = [t for t in (_operand(v) for v in vals) if t is not None]
    if not ts:
        raise NotApplicable("no tensor operand")
    return broadcast_shapes(cx, *[t.shape for t in ts]), ts


@op("torch.lerp", "Tensor.lerp")
def lerp(cx: OpContext, input, end, weight):
    shape, _ = _pointwise(cx, input, end, weight)
    return cx.tensor(shape, dtype=result_dtype(input, end, weight))


@op("Tensor.lerp_")
def lerp_(cx: OpContext, self, end, weight):
    shape, _ = _pointwise(cx, self, end, weight)
    return into_self(cx, self, shape)


def _addc(name: str, inplace: bool):
    def rule(cx: OpContext, input, tensor1, tensor2, *, value=1, out=None):
        shape, ts = _pointwise(cx, input, tensor1, tensor2)
        if name == "addcdiv" and all(isinstance(t, TensorV) and t.dtype in INTEGER for t in (tensor1, tensor2)):
            cx.fail(f"{cx.opname}: integer division with addcdiv is no longer supported ({tensor1.dtype} / "
                    f"{tensor2.dtype}); convert to float first", "SH107")
        if inplace:
            return into_self(cx, input, shape)
        dt = result_dtype(input, tensor1, tensor2)
        return cx.tensor(shape, dtype=to_float(dt) if name == "addcdiv" else dt)
    rule.__name__ = name + ("_" if inplace else "")
    return rule


for _n in ("addcmul", "addcdiv"):
    op(f"torch.{_n}", f"Tensor.{_n}")(_addc(_n, False))
    op(f"Tensor.{_n}_")(_addc(_n, True))


@op("torch.rsub")
def rsub(cx: OpContext, input, other, *, alpha=1):
    shape, _ = _pointwise(cx, input, other)
    return cx.tensor(shape, dtype=result_dtype(input, other))


@op("Tensor.where")
def where_method(cx: OpContext, self, condition, y):
    return where(cx, condition, self, y)


@op("Tensor.type_as")
def type_as(cx: OpContext, self, other):
    if not isinstance(self, TensorV):
        raise NotApplicable("input unknown")
    dtype = other.dtype if isinstance(other, TensorV) else None
    return inherit_layout(cx.tensor(self.shape, dtype=dtype), self)


@op("torch.isfinite", "Tensor.isfinite", "torch.isposinf", "Tensor.isposinf", "torch.isneginf", "Tensor.isneginf",
    "torch.isreal", "Tensor.isreal", "torch.signbit", "Tensor.signbit")
def isfinite(cx: OpContext, input):
    if not isinstance(input, TensorV):
        raise NotApplicable("input unknown")
    return cx.tensor(input.shape, dtype="bool")


@op("torch.bernoulli", "Tensor.bernoulli")
def bernoulli(cx: OpContext, input, p=None, *, generator=None, out=None):
    if not isinstance(input, TensorV):
        raise NotApplicable("input unknown")
    return cx.tensor(input.shape, dtype=input.dtype)


@op("Tensor.bernoulli_")
def bernoulli_(cx: OpContext, self, p=0.5, *, generator=None):
    # p may be a tensor of probabilities: it must broadcast to self (PyTorch expands it)
    if not isinstance(self, TensorV):
        raise NotApplicable("input unknown")
    if isinstance(p, TensorV):
        return into_self(cx, self, broadcast_shapes(cx, self.shape, p.shape))
    return cx.tensor(self.shape, dtype=self.dtype)


@op("Tensor.random_", "Tensor.exponential_", "Tensor.geometric_", "Tensor.cauchy_", "Tensor.log_normal_")
def random_fill_(cx: OpContext, self, *args, **kwargs):
    if not isinstance(self, TensorV):
        raise NotApplicable("input unknown")
    return cx.tensor(self.shape, dtype=self.dtype)


@op("Tensor.copy_")
def copy_(cx: OpContext, self, src, non_blocking=False):
    if not isinstance(self, TensorV) or not isinstance(src, TensorV):
        raise NotApplicable("operand unknown")
    return into_self(cx, self, broadcast_shapes(cx, self.shape, src.shape))


@op("torch.complex", "torch.polar")
def complex_(cx: OpContext, real, imag, *, out=None):
    """complex(real, imag) / polar(abs, angle): two real tensors of one float dtype, broadcast."""
    if not isinstance(real, TensorV) or not isinstance(imag, TensorV):
        raise NotApplicable("operand unknown")
    for t in (real, imag):
        if t.dtype is not None and t.dtype not in COMPLEX_OF_PARTS:
            cx.fail(f"{cx.opname} expects both inputs to be float16, float32 or float64 tensors, but "
                    f"{cx.label(t)} is {t.dtype}", "SH107")
    if real.dtype and imag.dtype and real.dtype != imag.dtype:
        cx.fail(f"{cx.opname} expects both inputs to have one dtype, but got {real.dtype} and {imag.dtype}", "SH107")
    return cx.tensor(broadcast_shapes(cx, real.shape, imag.shape),
                     dtype=COMPLEX_OF_PARTS.get(real.dtype or imag.dtype or ""))
