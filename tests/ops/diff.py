"""Differential-test harness: a rule against PyTorch on the meta device.

`check(rule, torch_call, args, kwargs)` runs PyTorch with meta tensors of the given shapes
and the rule with the same concrete shapes, and asserts both agree: the same output shapes,
or both reject. Tensor arguments are written as `T(2, 3)` (meta float32) or `T(2, 3, dtype="long")`. `dtype=True` also compares the output dtypes (type promotion).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from shapehint.ops.concrete import (ConcreteContext, OpFailed, NotApplicable, apply, build_module,
                                    call_module, shape_of, tensor)
from shapehint.shapes.values import DtypeV, ListV, TensorV, TupleV

DTYPES = {"float": torch.float32, "long": torch.int64, "bool": torch.bool, "int": torch.int32,
          "cfloat": torch.complex64, "half": torch.float16, "double": torch.float64, "bf16": torch.bfloat16,
          "cdouble": torch.complex128}
NAME_OF = {v: str(v).replace("torch.", "") for v in DTYPES.values()}


@dataclass(frozen=True)
class T:
    dims: tuple
    dtype: str = "float"

    def __init__(self, *dims, dtype="float"):
        object.__setattr__(self, "dims", tuple(dims))
        object.__setattr__(self, "dtype", dtype)

    def meta(self):
        return torch.empty(self.dims, dtype=DTYPES[self.dtype], device="meta")

    def cpu(self):
        # small real values (indices 0) for ops whose meta kernel is missing or skips a check
        t = torch.zeros(self.dims, dtype=DTYPES[self.dtype])
        return t + 0.5 if t.dtype.is_floating_point else t  # (bool + 0 would be int64)

    def abstract(self):
        return tensor(*self.dims, dtype=NAME_OF[DTYPES[self.dtype]])


def _to_torch(v, device="meta"):
    if isinstance(v, T):
        return v.meta() if device == "meta" else v.cpu()
    if isinstance(v, tuple):
        return tuple(_to_torch(i, device) for i in v)
    if isinstance(v, list):
        return [_to_torch(i, device) for i in v]
    return v


def _to_abstract(v):
    if isinstance(v, T):
        return v.abstract()
    if isinstance(v, torch.dtype):
        return DtypeV(str(v).replace("torch.", ""))
    if isinstance(v, tuple):
        return tuple(_to_abstract(i) for i in v)
    if isinstance(v, list):
        return [_to_abstract(i) for i in v]
    return v


def torch_shape(out):
    if isinstance(out, torch.Tensor):
        return tuple(out.shape)
    if isinstance(out, (tuple, list)):
        return tuple(torch_shape(o) for o in out)
    if isinstance(out, int):
        return ("int", out)
    return None


def torch_dtype(out):
    if isinstance(out, torch.Tensor):
        return str(out.dtype).replace("torch.", "")
    if isinstance(out, (tuple, list)):
        return tuple(torch_dtype(o) for o in out)
    return None


def rule_dtype(v):
    if isinstance(v, TensorV):
        return v.dtype
    if isinstance(v, (TupleV, ListV)) and v.items is not None:
        return tuple(rule_dtype(i) for i in v.items)
    return None


def run_torch(fn, args, kwargs, device="meta", dtype=False):
    try:
        out = fn(*_to_torch(args, device), **{k: _to_torch(v, device) for k, v in kwargs.items()})
        return ("ok", (torch_shape(out), torch_dtype(out)) if dtype else torch_shape(out))
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        return ("error", str(e).splitlines()[0][:200])


def run_rule(name, args, kwargs, dtype=False):
    try:
        out = apply(name, *_to_abstract(args), **{k: _to_abstract(v) for k, v in kwargs.items()})
        return ("ok", (shape_of(out), rule_dtype(out)) if dtype else shape_of(out))
    except OpFailed as e:
        return ("error", e.message)


def run_module_rule(name, ctor_args, ctor_kwargs, args, kwargs, dtype=False):
    try:
        m = build_module(name, *ctor_args, **ctor_kwargs)
        out = call_module(ConcreteContext(name), m, list(_to_abstract(args)), {k: _to_abstract(v) for k, v in kwargs.items()})
        return ("ok", (shape_of(out), rule_dtype(out)) if dtype else shape_of(out))
    except OpFailed as e:
        return ("error", e.message)


def check(name, torch_fn, args=(), kwargs=None, device="meta", dtype=False):
    """device="cpu": run PyTorch on small CPU tensors (no meta kernel, or one laxer than CPU's)."""
    kwargs = kwargs or {}
    want = run_torch(torch_fn, args, kwargs, device, dtype)
    got = run_rule(name, args, kwargs, dtype)
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), \
        f"{name}{args}{kwargs}: torch={want} rule={got}"


def check_module(name, torch_cls, ctor_args=(), ctor_kwargs=None, args=(), kwargs=None, device="meta", dtype=False):
    ctor_kwargs, kwargs = ctor_kwargs or {}, kwargs or {}
    try:
        with torch.device(device):
            mod = torch_cls(*ctor_args, **ctor_kwargs)
        want = run_torch(mod, args, kwargs, device, dtype)
    except (RuntimeError, ValueError, TypeError) as e:
        want = ("error", str(e))
    got = run_module_rule(name, ctor_args, ctor_kwargs, args, kwargs, dtype)
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), \
        f"{name}({ctor_args}, {ctor_kwargs}){args}: torch={want} rule={got}"
