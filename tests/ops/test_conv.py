"""Differential tests: convolution rules against PyTorch (meta device; CPU where meta skips a check)."""
import random

import pytest
import torch
import torch.nn.functional as F

from shapehint.ops.concrete import ConcreteContext, OpFailed, build_module, call_module
from shapehint.ops.registry import lookup
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import TensorV

from .diff import DTYPES, _to_abstract, T, check, check_module, run_module_rule, run_rule, torch_shape

rng = random.Random(7)


def _conv_case(k):
    r = random.Random(100 + k)
    nsp = r.choice([1, 2, 2, 3])
    g = r.choice([1, 1, 2, 3])
    cin = g * r.randint(1, 3)
    cout = g * r.randint(1, 3)
    if r.random() < 0.15:
        cout += 1  # weight not divisible by groups
    batched = r.random() < 0.7
    c_in_x = cin if r.random() < 0.8 else cin + 1
    sp = [r.randint(1, 9) for _ in range(nsp)]
    ks = [r.randint(1, 4) for _ in range(nsp)]
    kw = dict(stride=r.choice([1, 2, 3, (1,) * nsp]), padding=r.choice([0, 1, 2, "same", "valid"]),
              dilation=r.choice([1, 1, 2]), groups=g)
    if kw["padding"] == "same" and r.random() < 0.5:
        kw["stride"] = 1
    x = T(*(([r.randint(1, 3)] if batched else []) + [c_in_x] + sp))
    w = T(cout, cin // g, *ks)
    return nsp, x, w, kw


@pytest.mark.parametrize("k", range(40))
def test_conv_functional(k):
    nsp, x, w, kw = _conv_case(k)
    name = f"torch.nn.functional.conv{nsp}d"
    # CPU: the meta kernel does not check that weight.shape[0] is divisible by groups
    want, got = _cpu(getattr(F, f"conv{nsp}d"), (x, w), kw), run_rule(name, (x, w), kw)
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), (x, w, kw, want, got)


@pytest.mark.parametrize("k", range(30))
def test_conv_layer(k):
    r = random.Random(300 + k)
    nsp, x, w, kw = _conv_case(k + 1000)
    cout, ks = w.dims[0], w.dims[2:]
    cin = w.dims[1] * kw["groups"]
    kw["padding_mode"] = r.choice(["zeros", "zeros", "reflect", "replicate", "circular"])
    check_module(f"torch.nn.Conv{nsp}d", getattr(torch.nn, f"Conv{nsp}d"), (cin, cout, tuple(ks)), kw, (x,))


def _convT_case(k):
    r = random.Random(500 + k)
    nsp = r.choice([1, 2, 3])
    g = r.choice([1, 2])
    cin, cout = g * r.randint(1, 3), g * r.randint(1, 3)
    sp = [r.randint(1, 6) for _ in range(nsp)]
    ks = [r.randint(1, 4) for _ in range(nsp)]
    s, d = r.choice([1, 2, 3]), r.choice([1, 2])
    kw = dict(stride=s, padding=r.choice([0, 1, 2]), output_padding=r.choice([0, 0, 1, 2]), groups=g, dilation=d)
    x = T(*(([r.randint(1, 3)] if r.random() < 0.7 else []) + [cin if r.random() < 0.85 else cin + 1] + sp))
    return nsp, x, T(cin, cout // g, *ks), kw


def _real(v):
    if isinstance(v, T):
        return torch.zeros(v.dims, dtype=DTYPES[v.dtype])
    if isinstance(v, (tuple, list)):
        return type(v)(_real(i) for i in v)
    return v


def _cpu(fn, args, kwargs):
    """PyTorch on small CPU tensors, for checks the meta kernels skip (output_padding, groups, bias)."""
    try:
        return ("ok", torch_shape(fn(*_real(args), **{k: _real(v) for k, v in kwargs.items()})))
    except (RuntimeError, ValueError, IndexError, TypeError, AssertionError) as e:
        return ("error", str(e))


def cpu_check(name, fn, args=(), kwargs=None):
    kwargs = kwargs or {}
    want, got = _cpu(fn, args, kwargs), run_rule(name, args, kwargs)
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), f"{name}{args}{kwargs}: {want} {got}"


def cpu_check_module(name, cls, ctor=(), ckw=None, args=(), kwargs=None, setup=None):
    ckw, kwargs = ckw or {}, kwargs or {}
    try:
        mod = cls(*_real(ctor), **{k: _real(v) for k, v in ckw.items()})
        if setup:
            setup(mod)
        want = _cpu(mod, args, kwargs)
    except (RuntimeError, ValueError, TypeError, AssertionError) as e:
        want = ("error", str(e))
    try:
        got = run_module_rule(name, _to_abstract(tuple(ctor)), {k: _to_abstract(v) for k, v in ckw.items()},
                              args, kwargs)
    except OpFailed as e:
        got = ("error", e.message)
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), \
        f"{name}({ctor}, {ckw}){args}{kwargs}: torch={want} rule={got}"


@pytest.mark.parametrize("k", range(30))
def test_conv_transpose_functional(k):
    nsp, x, w, kw = _convT_case(k)
    name = f"torch.nn.functional.conv_transpose{nsp}d"
    want, got = _cpu(getattr(F, f"conv_transpose{nsp}d"), (x, w), kw), run_rule(name, (x, w), kw)
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), (x, w, kw, want, got)


@pytest.mark.parametrize("k", range(15))
def test_conv_transpose_layer(k):
    nsp, x, w, kw = _convT_case(k + 77)
    kw["output_padding"] = 0
    cin, cout = w.dims[0], w.dims[1] * kw["groups"]
    cpu_check_module(f"torch.nn.ConvTranspose{nsp}d", getattr(torch.nn, f"ConvTranspose{nsp}d"),
                 (cin, cout, w.dims[2:]), kw, (x,))


@pytest.mark.parametrize("size", [[7, 7], [8, 8], [9, 9], [6, 7], [1, 4, 8, 8], [8]])
def test_conv_transpose_output_size(size):
    check_module("torch.nn.ConvTranspose2d", torch.nn.ConvTranspose2d, (4, 2, 3), {"stride": 2, "padding": 1},
                 (T(1, 4, 4, 4),), {"output_size": size})


@pytest.mark.parametrize("ctor,kw", [
    ((4, 6, 3), {"groups": 4}), ((4, 6, 3), {"groups": 0}), ((4, 6, 3), {"padding": "same", "stride": 2}),
    ((4, 6, 3), {"padding": "full"}), ((4, 6, 3), {"padding_mode": "mirror"}), ((4, 6, 3), {"groups": 2}),
])
def test_conv_ctor_errors(ctor, kw):
    check_module("torch.nn.Conv2d", torch.nn.Conv2d, ctor, kw, (T(1, 4, 8, 8),))


def test_conv_bias_and_weight_rank():
    cpu_check("torch.nn.functional.conv2d", F.conv2d, (T(1, 3, 8, 8), T(4, 3, 3, 3), T(5)))
    check("torch.nn.functional.conv2d", F.conv2d, (T(1, 3, 8, 8), T(4, 3, 3, 3), T(4)))
    check("torch.nn.functional.conv2d", F.conv2d, (T(1, 3, 8, 8), T(4, 3, 3)))
    check("torch.nn.functional.conv1d", F.conv1d, (T(2, 3, 8, 8), T(4, 3, 3)))


def test_message_names_layer_and_input():
    m = build_module("torch.nn.Conv2d", 3, 64, kernel_size=3)
    cx = ConcreteContext("nn.Conv2d(3, 64, kernel_size=3)")
    with pytest.raises(OpFailed) as e:
        call_module(cx, m, [TensorV(Shape.of([1, 4, 8, 8]))], {})
    assert "expects 3 input channels" in e.value.message and "has 4" in e.value.message
    assert e.value.code == "SH101"


def _sym_conv(name, ctor, kw, dims):
    m = build_module(name, *ctor, **kw)
    x = TensorV(Shape.of([Expr.sym(d) if isinstance(d, str) else d for d in dims]))
    return str(call_module(ConcreteContext(name), m, [x], {}).shape)


def test_symbolic_conv():
    assert _sym_conv("torch.nn.Conv2d", (3, 64, 3), {"stride": 2, "padding": 1}, ["B", 3, "H", "W"]) == \
        "[B, 64, (H - 1)//2 + 1, (W - 1)//2 + 1]"
    assert _sym_conv("torch.nn.Conv2d", (3, 8, (3, 1)), {}, ["B", 3, "H", "W"]) == "[B, 8, H - 2, W]"
    assert _sym_conv("torch.nn.Conv1d", (3, 8, 5), {"padding": "same"}, ["B", 3, "L"]) == "[B, 8, L]"
    assert _sym_conv("torch.nn.ConvTranspose2d", (3, 8, 4), {"stride": 2, "padding": 1}, ["B", 3, "H", "W"]) == \
        "[B, 8, 2*H, 2*W]"


def test_symbolic_channel_mismatch_is_error():
    m = build_module("torch.nn.Conv2d", 3, 64, 3)
    with pytest.raises(OpFailed):
        call_module(ConcreteContext("c"), m, [TensorV(Shape.of([Expr.sym("B"), 4, Expr.sym("H"), 5]))], {})


def test_distinct_rules_registered():
    for n in (1, 2, 3):
        assert lookup(f"torch.conv{n}d") is lookup(f"torch.nn.functional.conv{n}d")
        assert lookup(f"torch.nn.ConvTranspose{n}d") is not None
